"""Scene files: round trips, the Talo shorthand, every shipped scene, and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.cli import main
from sim.scene import MAX_PIECES, dumps, load_scene, loads, save_scene
from tests.helpers import scene_files

TALO = {
    "format": "towerlab-scene/1", "game": "talo", "board": "talo-green", "title": "t",
    "players": ["red", "blue"],
    "pieces": [
        {"id": "a", "kind": "talo.block", "length": 3, "cell": [4, 4], "layer": 0, "axis": "z"},
        {"id": "b", "kind": "talo.block", "length": 5, "cell": [2, 4], "layer": 3, "axis": "x", "owner": "red"},
        {"id": "c", "kind": "talo.block", "length": 4, "cell": [7, 1], "layer": 0, "axis": "y"},
        {"id": "p", "kind": "talo.pawn", "color": "red", "cell": [0, 0], "layer": 0},
    ],
}


def _scene(pieces, game="free", **top):
    return {"format": "towerlab-scene/1", "game": game, "pieces": pieces, **top}


def test_round_trip_is_unchanged(tmp_path):
    s = loads(json.dumps(TALO), "t.json")
    path = save_scene(s, tmp_path / "t.json")
    again = load_scene(path)
    assert again == s
    assert dumps(again) == dumps(s)


def test_free_scene_round_trip_with_rot_quat_and_overrides(tmp_path):
    data = _scene([
        {"id": "k", "kind": "box", "size": [200, 50, 20.5], "pos": [1.25, -3, 10.25], "rot": [0, 0, 30]},
        {"id": "q", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 40], "quat": [0, 0, 0.6, 0.8],
         "fixed": True, "friction": 0.8, "density": 1.3},
        {"id": "c", "kind": "cylinder", "radius": 5, "height": 12.5, "pos": [50, 0, 6.25]},
    ], title="mixed", notes="n")
    s = loads(json.dumps(data))
    assert save_scene(s, tmp_path / "f.json") and load_scene(tmp_path / "f.json") == s
    q = s.piece("q")
    assert q.fixed and q.friction == 0.8 and q.density == pytest.approx(1300.0)
    assert q.mass == pytest.approx(0.02**3 * 1300.0)


@settings(max_examples=60, deadline=None)
@given(pos=st.lists(st.floats(-5000, 5000, allow_nan=False), min_size=3, max_size=3),
       quat=st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4).filter(
           lambda q: sum(x * x for x in q) > 0.01))
def test_round_trip_any_pose(pos, quat):
    s = loads(json.dumps(_scene([{"id": "k", "kind": "box", "size": [10, 20, 30], "pos": pos, "quat": quat}])))
    again = loads(dumps(s))
    assert np.allclose(again.poses(), s.poses(), atol=1e-9)
    assert loads(dumps(again)) == again  # a saved scene is a fixed point


def test_talo_shorthand_equals_explicit_pose():
    grid = loads(json.dumps(TALO))
    u = 20.0
    explicit = {
        "a": {"pos": [-100 + 4.5 * u, -100 + 4.5 * u, 1.5 * u], "rot": [0, 90, 0]},  # standing 3
        "b": {"pos": [-100 + 2 * u + 2.5 * u, -100 + 4.5 * u, 3 * u + 10], "rot": [0, 0, 0]},  # lying along x
        "c": {"pos": [-100 + 7.5 * u, -100 + 1 * u + 2 * u, 10], "rot": [0, 0, 90]},  # lying along y
        "p": {"pos": [-90, -90, 16]},  # pawn 32 tall on field (0, 0)
    }
    pieces = []
    for p in TALO["pieces"]:
        q = {k: v for k, v in p.items() if k not in ("cell", "layer", "axis")}
        pieces.append({**q, **explicit[p["id"]]})
    pose = loads(json.dumps({**TALO, "pieces": pieces}))
    for a, b in zip(grid.pieces, pose.pieces):
        assert np.allclose(a.pos, b.pos, atol=1e-12), a.id
        from sim.geometry.transforms import rotation_angle

        assert rotation_angle(a.quat, b.quat) < 1e-9, a.id


@pytest.mark.parametrize("path", scene_files(), ids=lambda p: str(p.relative_to(p.parents[2])))
def test_every_shipped_scene_validates(path):
    s = load_scene(path)
    assert s.pieces, "a shipped scene has pieces"
    assert loads(dumps(s)) == s


# --- bad input: one line naming file and field, exit 2, no traceback ---------------------

def _bad(**kw):
    return {"format": "towerlab-scene/1", "game": "talo", "pieces": [
        {"id": "a", "kind": "talo.block", "length": 3, "cell": [4, 4], "layer": 0, "axis": "z"}], **kw}


def _with_piece(**fields):
    d = _bad()
    d["pieces"][0].update(fields)
    return d


BAD = {
    "not-json": ('{"format": "towerlab-scene/1", "game": ', "not valid JSON"),
    "not-object": ("[1, 2]", "expected a JSON object"),
    "wrong-format": (_bad(format="towerlab-scene/9"), "format: expected one of towerlab-scene/1"),
    "unknown-game": (_bad(game="chess"), "game: expected one of"),
    "unknown-board": (_bad(board="moon"), "board: expected one of"),
    "unknown-kind": (_with_piece(kind="talo.dragon"), "pieces[0].kind: expected one of"),
    "kind-of-other-game": (_with_piece(kind="babylon.tower"), "pieces[0].kind: babylon.tower is not a piece of talo"),
    "missing-field": ({"format": "towerlab-scene/1", "pieces": []}, "game: required field is missing"),
    "missing-param": (_bad(pieces=[{"id": "a", "kind": "talo.block", "cell": [0, 0], "layer": 0, "axis": "x"}]),
                      "pieces[0].length: required field is missing"),
    "missing-pos": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1]}]), "pieces[0].pos: required field"),
    "wrong-type": (_with_piece(length="3"), 'pieces[0].length: expected an integer 1..10, got "3"'),
    "talo-length-11": (_with_piece(length=11), "pieces[0].length: expected an integer 1..10, got 11"),
    "unknown-field": (_with_piece(colour="red"), "pieces[0].colour: unknown field"),
    "duplicate-id": (_bad(pieces=[{"id": "a", "kind": "talo.pawn", "color": "red", "cell": [0, 0], "layer": 0},
                                  {"id": "a", "kind": "talo.pawn", "color": "blue", "cell": [1, 0], "layer": 0}]),
                     'pieces[1].id: duplicate id "a"'),
    "reserved-id": (_scene([{"id": "board", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0.5]}]),
                    'pieces[0].id: "board" is reserved'),
    "nan": ('{"format": "towerlab-scene/1", "game": "free", "pieces": [{"id": "k", "kind": "box", '
            '"size": [1, 1, 1], "pos": [0, NaN, 0]}]}', "pieces[0].pos: expected a finite number, got nan"),
    "infinite": ('{"format": "towerlab-scene/1", "game": "free", "pieces": [{"id": "k", "kind": "box", '
                 '"size": [1, 1, 1], "pos": [0, 0, Infinity]}]}', "pieces[0].pos: expected a finite number, got inf"),
    "huge-coordinate": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1], "pos": [1e9, 0, 0]}]),
                        "pieces[0].pos: expected a coordinate within"),
    "negative-size": (_scene([{"id": "k", "kind": "box", "size": [1, -1, 1], "pos": [0, 0, 0]}]),
                      "pieces[0].size: expected a size 1..10000 mm, got -1"),
    "huge-size": (_scene([{"id": "k", "kind": "box", "size": [1e308, 1, 1], "pos": [0, 0, 0]}]),
                  "pieces[0].size: expected a size 1..10000 mm, got 1e+308"),
    "tiny-size": (_scene([{"id": "k", "kind": "box", "size": [10, 1e-6, 10], "pos": [0, 0, 0]}]),
                  "pieces[0].size: expected a size 1..10000 mm, got 1e-06"),
    "tiny-radius": (_scene([{"id": "k", "kind": "cylinder", "radius": 0.01, "height": 5, "pos": [0, 0, 2.5]}]),
                    "pieces[0].radius: expected a size 1..10000 mm, got 0.01"),
    "tall-cylinder": (_scene([{"id": "k", "kind": "cylinder", "radius": 5, "height": 2e4, "pos": [0, 0, 1e4]}]),
                      "pieces[0].height: expected a size 1..10000 mm, got 20000.0"),
    "huge-density": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0], "density": 1e308}]),
                     "pieces[0].density: expected a density 0.001..25 g/cm³, got 1e+308"),
    "zero-density": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0], "density": 0}]),
                     "pieces[0].density: expected a density 0.001..25 g/cm³, got 0"),
    "huge-friction": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0], "friction": 1e9}]),
                      "pieces[0].friction: expected a friction coefficient 0..10, got 1000000000.0"),
    "deeply-nested": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "deeply-nested-field": ('{"format": "towerlab-scene/1", "game": "free", "pieces": [{"id": "k", "kind": "box", '
                            '"size": [1, 1, 1], "pos": ' + "[" * 900 + "]" * 900 + "}]}",
                            "pieces[0].pos: expected a list of 3 numbers"),
    "5000-digit-integer": ('{"format": "towerlab-scene/1", "game": "free", "pieces": [{"id": "k", "kind": "box", '
                           '"size": [1, 1, 1], "pos": [' + "9" * 5000 + ", 0, 0]}]}", "a number with too many digits"),
    "400-digit-integer": ('{"format": "towerlab-scene/1", "game": "free", "pieces": [{"id": "k", "kind": "box", '
                          '"size": [1, 1, 1], "pos": [' + "9" * 400 + ", 0, 0]}]}",
                          "pieces[0].pos: expected a finite number, got an integer of 400 digits"),
    "surrogate-id": (_scene([{"id": "\ud800x", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0.5]}]),
                     'pieces[0].id: expected a name of printable characters (no \\ud800), got "\\ud800x"'),
    "escape-id": (_scene([{"id": "\x1b[31mred", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0.5]}]),
                  'pieces[0].id: expected a name of printable characters (no \\x1b)'),
    "newline-id": (_scene([{"id": "a\nb", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0.5]}]),
                   "pieces[0].id: expected a name of printable characters (no \\n)"),
    "escape-owner": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0.5], "owner": "r\x07"}]),
                     "pieces[0].owner: expected a name of printable characters (no \\x07)"),
    "escape-player": (_bad(players=["red", "\x1b]0;pwned\x07"]), "players: expected a name of printable characters"),
    "newline-title": (_bad(title="one\ntwo"), "title: expected one line of printable text (no \\n)"),
    "escape-kind": (_with_piece(kind="\x1b[2J"), 'pieces[0].kind: expected one of'),
    "escape-board": (_bad(board="\x1b[2J"), 'board: expected one line of printable text'),
    "rot-and-quat": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0], "rot": [0, 0, 0],
                              "quat": [0, 0, 0, 1]}]), "pieces[0].quat: give either rot or quat"),
    "zero-quat": (_scene([{"id": "k", "kind": "box", "size": [1, 1, 1], "pos": [0, 0, 0], "quat": [0, 0, 0, 0]}]),
                  "pieces[0].quat: expected a quaternion of non-zero length"),
    "grid-and-pos": (_with_piece(pos=[0, 0, 0]), "pieces[0].pos: give either the grid shorthand"),
    "block-without-axis": (_bad(pieces=[{"id": "a", "kind": "talo.block", "length": 2, "cell": [0, 0], "layer": 0}]),
                           "pieces[0].axis: required field is missing"),
    "grid-on-other-board": (_bad(board="table"), "pieces[0].cell: the grid shorthand needs a Talo board"),
    "owner-not-a-player": (_bad(players=["red"], pieces=[{"id": "a", "kind": "talo.pawn", "color": "red",
                                                          "cell": [0, 0], "layer": 0, "owner": "blue"}]),
                           "pieces[0].owner: expected one of the players red"),
    "too-many-pieces": (_scene([{"id": f"k{i}", "kind": "box", "size": [1, 1, 1], "pos": [i * 2, 0, 0.5]}
                                for i in range(MAX_PIECES + 1)]), f"pieces: {MAX_PIECES + 1} pieces, more than"),
    "pieces-not-list": (_bad(pieces={"a": 1}), "pieces: expected a list"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_one_line_exit_2(name, tmp_path, capsys):
    content, expected = BAD[name]
    path = tmp_path / f"{name}.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    code = main(["validate", str(path)])
    out = capsys.readouterr()
    assert code == 2
    lines = [ln for ln in out.err.splitlines() if ln.strip()]
    assert len(lines) == 1, out.err
    assert str(path) in lines[0] and expected in lines[0], lines[0]
    assert "Traceback" not in out.err + out.out
    assert all(c.isprintable() for c in lines[0]), lines[0]  # no raw control character reaches the terminal


def test_missing_file_is_one_line_exit_2(tmp_path, capsys):
    code = main(["validate", str(tmp_path / "nope.json")])
    err = capsys.readouterr().err
    assert code == 2 and "nope.json: cannot read the file" in err and len(err.strip().splitlines()) == 1


def test_validate_reports_each_scene(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(TALO))
    assert main(["validate", "--json", str(good)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report[0]["valid"] and report[0]["pieces"] == 4 and report[0]["kinds"]["talo.block"] == 3


def test_save_is_atomic_and_leaves_no_temp_files(tmp_path, monkeypatch):
    s = loads(json.dumps(TALO))
    target = tmp_path / "scene.json"
    save_scene(s, target)
    before = target.read_text()
    import sim.atomic as atomic

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_scene(s.with_pieces(s.pieces[:1]), target)
    assert target.read_text() == before  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["scene.json"]  # no half-written temp file left


def test_pieces_cli_lists_every_kind_with_mass(capsys):
    from sim.pieces import KINDS

    assert main(["pieces", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {k["kind"] for k in report["kinds"]} == set(KINDS)
    block3 = next(v for k in report["kinds"] if k["kind"] == "talo.block" for v in k["variants"]
                  if v["params"]["length"] == 3)
    assert block3["dimensions_mm"] == [60.0, 20.0, 20.0] and block3["mass_g"] == pytest.approx(16.8)
    assert main(["pieces"]) == 0
    text = capsys.readouterr().out
    assert "tohuwabohu.arch" in text and "36.00" in text


# --- the scene as data: pickling, one registry of kinds, front doors only ----------------

def _piece_count_and_mass(scene) -> tuple[int, float]:
    return len(scene.pieces), sum(p.mass for p in scene.pieces)


def test_a_scene_survives_a_pickle_round_trip():
    import pickle

    for path in scene_files()[:6] + [scene_files()[-1]]:
        s = load_scene(path)
        assert s.pieces[0].shape.parts  # a cached shape is not carried along, and does not break pickling
        again = pickle.loads(pickle.dumps(s))
        assert again == s and dumps(again) == dumps(s) and again.source == s.source
        assert dict(again.pieces[0].params) == dict(s.pieces[0].params)
        with pytest.raises(TypeError):
            again.pieces[0].params["x"] = 1  # still read-only


def test_scenes_go_through_a_process_pool():
    from concurrent.futures import ProcessPoolExecutor

    scenes = [load_scene(p) for p in scene_files()[:4]]
    with ProcessPoolExecutor(max_workers=2) as pool:
        got = list(pool.map(_piece_count_and_mass, scenes))
    assert got == [_piece_count_and_mass(s) for s in scenes]


def test_the_schema_takes_every_kind_and_parameter_from_the_catalogue():
    from sim.pieces import KINDS
    from sim.scene.schema import PIECE_MODELS

    assert list(PIECE_MODELS) == list(KINDS)
    for kind, spec in KINDS.items():
        for param in spec.params:
            assert param.name in PIECE_MODELS[kind].model_fields
            if param.choices and spec.variants():  # a value the catalogue does not list is refused, naming the field
                valid = {k: list(v) if isinstance(v, tuple) else v for k, v in spec.variants()[0].items()}
                piece = {"id": "x", "kind": kind, "pos": [0, 0, 50], **valid}
                piece[param.name] = "nonsense"
                with pytest.raises(Exception, match=rf"pieces\[0\]\.{param.name}: expected "):
                    loads(json.dumps(_scene([piece])))


def test_the_scene_layer_uses_no_private_name_of_another_module():
    import ast
    from pathlib import Path

    import sim.scene

    for path in Path(sim.scene.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        modules = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom | ast.Import)
                   for a in n.names}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not [a.name for a in node.names if a.name.startswith("_")], (path.name, node.module)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
                assert not node.attr.startswith("_"), (path.name, node.value.id, node.attr)


def test_odd_but_valid_text_is_printed_as_text_not_markup(tmp_path, capsys):
    data = _scene([{"id": "[/bold]", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]}], title="[red]x[/]")
    path = tmp_path / "[b].json"
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "[b].json" in out and "[red]x[/]" in out


def test_notes_may_span_lines_but_hold_no_control_characters():
    assert loads(json.dumps(_scene([], notes="one\n\ttwo"))).notes == "one\n\ttwo"
    with pytest.raises(Exception, match=r"notes: expected printable text, newlines and tabs \(no \\x1b\)"):
        loads(json.dumps(_scene([], notes="a\x1b[2Jb")))


def test_a_huge_quaternion_is_normalised_without_overflow():
    s = loads(json.dumps(_scene([{"id": "k", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10],
                                  "quat": [0, 0, 1e300, 1e300]}])))
    assert np.allclose(s.pieces[0].quat, (0, 0, 2 ** -0.5, 2 ** -0.5))
