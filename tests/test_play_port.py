"""The referee's one port: the play mode changes the table only through the controller's named operations
(sim.viewer.control.port), never by writing its fields; a refused drop is put back by the referee's own PutBack; a
session's drop is handed the piece and reads nothing of the table it does not need."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAY = sorted((ROOT / "sim" / "viewer" / "play").glob("*.py"))
FIELDS = {"hands", "carries", "supply", "world", "player", "scene0", "active_hand", "messages", "undo"}
"""The controller's fields the referee may read but never change."""
MUTATORS = {"add", "discard", "update", "pop", "clear", "remove", "append", "extend", "setdefault", "difference_update",
            "set_pose", "remove_piece", "add_piece", "grab", "release", "move_hand", "set_supply", "push", "pull",
            "restore", "release_pull", "note_action", "close"}
"""Calls that change what they are called on (a set, a dict, the live world)."""
ROOTS = {"c", "controller"}
"""How the play mode names the controller (``self.c``, ``controller``, ``c``)."""


def _chain(node) -> list[str]:
    """``self.c.world.set_pose`` -> ["self", "c", "world", "set_pose"] (subscripts looked through)."""
    out = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            out.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        out.append(node.id)
    return out[::-1]


def _writes_a_field(chain: list[str]) -> bool:
    """Whether ``chain`` reaches a controller's field: ``c.hands``, ``self.c.supply``, ``controller.player`` ..."""
    for k, name in enumerate(chain[:-1]):
        rest = chain[k + 1:]
        if rest[:1] == ["state"]:  # the controller's one state, reached directly
            rest = rest[1:]
        if name in ROOTS and (k == 0 or chain[k - 1] == "self") and rest[:1] and rest[0] in FIELDS:
            return True
    return False


def writes(path: Path) -> list[str]:
    """Every place in ``path`` that assigns, deletes or changes in place a field of the controller."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, (ast.Attribute, ast.Subscript)) and _writes_a_field(_chain(sub) + ["="]):
                    out.append(f"{path.name}:{node.lineno}: {ast.unparse(t)}")
                    break
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            chain = _chain(node.func)
            if _writes_a_field(chain):
                out.append(f"{path.name}:{node.lineno}: {ast.unparse(node.func)}(...)")
    return out


def test_the_play_mode_never_writes_the_controllers_fields():
    found = [w for path in PLAY for w in writes(path)]
    assert found == [], "the referee changes the table through the controller's port only:\n" + "\n".join(found)


def test_the_check_finds_what_it_looks_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(self, controller, c):\n    controller.player = 'ann'\n    self.c.supply.discard('x')\n"
                   "    del self.c.hands['right']\n    c.world.set_pose('x', None)\n    self.c.carries.pop('r', None)\n"
                   "    ok = self.c.world.pose('x')\n    self.c.port.seat('bob')\n    self.c.state.player = 'eve'\n")
    assert len(writes(bad)) == 6


def test_a_refused_drop_goes_back_by_the_referees_own_put_back(monkeypatch):
    from test_play_viewer import run, session

    from sim.viewer.control.port import Port

    asked = []
    put_back = Port.put_back_piece
    monkeypatch.setattr(Port, "put_back_piece", lambda self, piece: asked.append(piece) or put_back(self, piece))
    c, ref = session("talo", seed=7)
    run(c, [{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}, {"action": "throw"},
            {"action": "take", "blocks": [1, 3]}, {"action": "pick", "piece": "b3-1"}, {"action": "rotate"},
            {"action": "move-to", "at": [90, -90]}, {"action": "drop"}])  # off the grid: refused
    assert asked == ["b3-1"] and ref.refusal["rule"] == "protrusion"
    assert not c.hands and "b3-1" in c.supply and not c.undo.undo  # back in the stock, no undo step
    assert [e.kind for e in c.events if e.pieces == ("b3-1",)][-2:] == ["picked", "rejected"]
    c.close()


@pytest.mark.parametrize("variant", ["green", "fantasy"])
def test_a_talo_drop_is_handed_the_block_and_reads_no_scene(variant):
    from sim.games import registry
    from sim.games.play.session import PutBack
    from sim.games.play.still import StillTable

    game = registry.variant("talo", variant).start(seed=7)
    table = StillTable(game.scene, game.supply)
    session = game.session
    actions = ([("start", {"cell": [0, 0]}), ("start", {"cell": [0, 9]})] if variant == "green" else []) + [
        ("throw", {})]
    for name, args in actions:
        table.carry_out(session.act(name, args, table))
    length = session.view()["options"][0][0]
    piece = f"b{length}-1"
    assert session.pick(piece, table)[0]
    reads = []
    scene = table.scene
    table.scene = lambda: reads.append("scene") or scene()
    block = game.scene.piece(piece).moved((0.5, 0.5, 0.01), (0.0, 0.0, 0.0, 1.0))  # off Talo's board
    refusal = session.drop_refusal(block, table)
    ok, effects = session.drop(block, table)
    if variant == "green":
        assert refusal.rule == "grid" and not ok and effects[0] == PutBack(piece)
    else:  # Fantasy builds anywhere: the statics judged the block lying on the table
        assert refusal is None and ok
    assert reads == []  # the block's length and pose are the piece's own


def test_the_ports_example_in_the_contracts_refuses_left_of_the_line_beforehand_and_on_release():
    from test_viewer_controller import do, session, talo

    text = (ROOT / "docs" / "contracts.md").read_text()
    block = text[text.index("class LeftOfTheLine"):]
    code = "from sim.viewer.control.plugins import SessionPlugin\n\n" + block[:block.index("```")].replace("\n  ", "\n")
    space: dict = {}
    exec(compile(code, "docs/contracts.md", "exec"), space)  # noqa: S102 - the docs' own example, run as written
    c = session(talo(("b1", 1, (7, 7), 0, "x")), plugins=[space["LeftOfTheLine"]()])
    start = c.world.pose("b1").copy()
    do(c, "pick", piece="b1")
    do(c, "move-to", at=[-60.0, 40.0])
    c.frame()
    assert c.ghost_refusals() == {"b1": "left of the line"}
    do(c, "drop")
    assert not c.hands and any(m.text == "left of the line" for m in c.messages)
    np.testing.assert_allclose(c.world.pose("b1")[:3], start[:3], atol=1e-3)  # put back where it was picked
    c.close()
