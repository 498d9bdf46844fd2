"""Broken scene files never break the command line: a property test over mutated scenes.

Valid scenes of every game are mutated (wrong types, out-of-range and non-finite
numbers, deleted and duplicated fields and pieces, odd strings, deep nesting,
truncation, bytes that are not UTF-8) and run through ``validate``, ``check``,
``render`` and every game's check by ``sim.cli.main``. Whatever the file, each
run ends in exit 0 or 2, within a budget of time and memory enforced as it runs
(:func:`tests.jail.in_budget`); on 2 stderr holds one error line; never a
traceback; an existing output file is never damaged.

``make test`` runs a fixed set of examples (derandomized, so every run asks the
same questions). ``TOWERLAB_FUZZ=5000 .venv/bin/python -m pytest tests/test_fuzz_cli.py``
draws that many fresh ones.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli import main
from tests.jail import MiB, in_budget

FORMAT = "towerlab-scene/1"
SEEDS = {
    "free": {"format": FORMAT, "game": "free", "title": "two boxes and a can", "pieces": [
        {"id": "a", "kind": "box", "size": [40, 20, 20], "pos": [0, 0, 10]},
        {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [5, 0, 30], "rot": [0, 0, 30], "density": 1.2},
        {"id": "c", "kind": "cylinder", "radius": 8, "height": 16, "pos": [60, 0, 8], "friction": 0.4}]},
    "talo": {"format": FORMAT, "game": "talo", "board": "talo-green", "players": ["red", "blue"], "pieces": [
        {"id": "a", "kind": "talo.block", "length": 1, "cell": [4, 4], "layer": 0, "axis": "z"},
        {"id": "b", "kind": "talo.block", "length": 2, "cell": [6, 4], "layer": 0, "axis": "z"},
        {"id": "c", "kind": "talo.block", "length": 3, "cell": [4, 4], "layer": 2, "axis": "x", "owner": "red"},
        {"id": "p", "kind": "talo.pawn", "color": "red", "cell": [2, 2], "layer": 0},
        {"id": "q", "kind": "talo.pawn", "color": "blue", "cell": [7, 7], "layer": 0}]},
    "tohuwabohu": {"format": FORMAT, "game": "tohuwabohu", "pieces": [
        {"id": "b1", "kind": "tohuwabohu.brick", "size": "large", "color": "red", "pos": [-35, 0, 10],
         "rot": [0, 0, 90]},
        {"id": "b2", "kind": "tohuwabohu.brick", "size": "large", "color": "blue", "pos": [35, 0, 10],
         "rot": [0, 0, 90]},
        {"id": "L1", "kind": "tohuwabohu.level", "shape": "quad", "pos": [0, 0, 21.5]},
        {"id": "f1", "kind": "tohuwabohu.figure", "color": "green", "pos": [0, 0, 34]}]},
    "babylon": {"format": FORMAT, "game": "babylon", "players": ["red", "blue", "green"], "pieces": [
        {"id": "t1", "kind": "babylon.tower", "pos": [0, 0, 10], "owner": "red"},
        {"id": "t2", "kind": "babylon.tower", "pos": [50, 0, 10], "owner": "blue"},
        {"id": "br", "kind": "babylon.bridge", "pos": [25, 0, 30], "owner": "red"},
        {"id": "n1", "kind": "babylon.noble", "size": "small", "color": "blue", "pos": [50, 0, 29], "owner": "blue"}]},
}

NUMBERS = st.sampled_from([0, -0.0, -1, 1, 0.5, 1e-6, 5e-324, 1e-308, 1e6, 1e9, 1e308, -1e308, 2**63, 10**40,
                           10**400, float("nan"), float("inf"), float("-inf")]) | st.floats() | st.integers()
STRINGS = st.sampled_from(["", " ", " a", "\ud800x", "x\udfff", "\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "a\nb",
                           "tab\there", "\x00", "\x7f", "\u202eevil", "[/]", "[bold]x", "[red]", "board", "table",
                           "NaN", "1e308", "☃", "🧱🧱", "x" * 5000, "red", "talo.block", "box", "z",
                           "towerlab-scene/1", "talo-green"]) | st.text(max_size=6)
VALUES = st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS,
                   st.lists(NUMBERS, max_size=5), st.dictionaries(STRINGS, NUMBERS, max_size=2))
FIELDS = ["id", "kind", "pos", "rot", "quat", "owner", "fixed", "friction", "density", "cell", "layer", "axis",
          "length", "size", "color", "shape", "radius", "height", "format", "game", "board", "players", "pieces",
          "title", "notes", "bogus"]


def nodes(doc, path=()):
    """Every place in a document: (path, value), the root first."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from nodes(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from nodes(v, (*path, i))


def parent_of(doc, path):
    for key in path[:-1]:
        doc = doc[key]
    return doc


FACTORS = [0.5, 0.9, 0.999, 1.001, 1.1, 2, 3] * 3 + [-1, 0, 10, 1e3, 1e6, 1e-3, 1e-9]
OPS = ["tweak"] * 6 + ["copy-piece"] * 2 + ["delete"] * 2 + ["replace"] * 2 + ["string", "add", "nest", "duplicate"]
DAMAGE = ["none"] * 12 + ["truncate", "wrap", "digits", "bytes", "dup-key"]


def _mutate(draw, doc) -> None:
    """One change to a document, in place: most keep it a scene (odd but valid), the rest break a field."""
    op = draw(st.sampled_from(OPS))
    places = list(nodes(doc))
    if op == "tweak":  # a number scaled: a valid scene of other proportions, or one out of bounds
        numbers = [(p, v) for p, v in places if p and isinstance(v, int | float) and not isinstance(v, bool)]
        if numbers:
            path, value = draw(st.sampled_from(numbers))
            new = value * draw(st.sampled_from(FACTORS)) + draw(st.sampled_from([0, 0, 1]))
            if isinstance(value, int) and draw(st.sampled_from([True, True, True, False])):
                new = round(new)  # an integer stays one (a Talo field, a length), mostly
            parent_of(doc, path)[path[-1]] = new
            return
        op = "replace"
    pieces = doc.get("pieces") if isinstance(doc, dict) else None
    if op == "copy-piece" and isinstance(pieces, list) and pieces:
        piece = copy.deepcopy(draw(st.sampled_from(pieces)))
        if isinstance(piece, dict):
            piece["id"] = f"copy{len(pieces)}"
            if isinstance(piece.get("pos"), list) and piece["pos"]:
                piece["pos"][0] = draw(st.sampled_from([0, 5, 19.9, 20, 40, 150, -150, 300]))
        pieces.append(piece)  # a second piece: beside the first, or inside it
        return
    path, value = draw(st.sampled_from(places))
    if not path or (op == "add" and isinstance(value, dict)):
        if isinstance(value, dict):
            value[draw(st.sampled_from(FIELDS))] = draw(VALUES)
        return
    parent, key = parent_of(doc, path), path[-1]
    if op == "delete":
        del parent[key]
    elif op == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))  # a second piece of the same id, or a longer list
    elif op == "string":
        parent[key] = draw(STRINGS)
    elif op == "nest":
        for _ in range(draw(st.sampled_from([1, 3, 60, 500]))):
            value = [value]
        parent[key] = value
    else:
        parent[key] = draw(VALUES)


@st.composite
def mutated_scene(draw) -> tuple[str, bytes]:
    """A seed scene's name and the bytes of a mutant of it."""
    game = draw(st.sampled_from(sorted(SEEDS)))
    doc = copy.deepcopy(SEEDS[game])
    for _ in range(draw(st.integers(1, 2))):
        _mutate(draw, doc)
    text = json.dumps(doc)  # ensure_ascii: lone surrogates travel as \ud800 escapes, as a file may hold them
    damage = draw(st.sampled_from(DAMAGE))
    if damage == "truncate":
        text = text[:draw(st.integers(0, len(text) - 1))]
    elif damage == "wrap":  # nested deeper than any parser recurses
        depth = draw(st.sampled_from([10, 5000, 100_000]))
        text = "[" * depth + text + "]" * depth
    elif damage == "digits":  # an integer of 5000 digits
        text = text.replace("0", "9" * 5000, 1)
    elif damage == "dup-key":
        text = text.replace('{"id": ', '{"id": "dup", "id": ', 1)
    data = text.encode("utf-8")
    if damage == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff\xfe" + data[at:]
    return game, data


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def _commands(scene: Path, before: Path, image: Path) -> list[list[str]]:
    s, b = str(scene), str(before)
    return [  # the physics of a scene is judged by check, tohuwabohu and talo check and babylon score
        ["validate", s],
        ["check", s, "--seconds", "0.05"],
        ["render", s, "-o", str(image), "--size", "24x24"],
        ["tohuwabohu", "check", s, "--seconds", "0.05"],
        ["talo", "check", s],
        ["babylon", "score", s],
        ["babylon", "score", s, "--mode", "fast", "--no-physics", "--json"],
        ["babylon", "check-turn", b, s, "--player", "blue", "--no-physics"],
    ]


KEEP = b"an earlier picture the user wants to keep"
EXAMPLES = int(os.environ.get("TOWERLAB_FUZZ", "0"))
SECONDS, MEMORY = 60.0, 2048 * MiB
"""Each command's budget: seconds on the clock (no hang) and address space beyond the test's (no runaway
allocation), enforced in this process (:func:`tests.jail.in_budget`): a fork a command would cost more than
most commands do."""


@settings(max_examples=EXAMPLES or 250, derandomize=not EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutant=mutated_scene())
def test_no_scene_file_breaks_a_command(mutant):
    game, data = mutant
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scene, before, image = folder / "scene.json", folder / "before.json", folder / "picture.png"
        scene.write_bytes(data)
        before.write_text(json.dumps(SEEDS["babylon"]))
        for args in _commands(scene, before, image):
            image.write_bytes(KEEP)
            with in_budget(SECONDS, MEMORY):
                code, out, err = _run(args)
            assert code in (0, 2), (args, code, err)
            assert "Traceback" not in out + err, args
            lines = [ln for ln in err.splitlines() if ln.strip()]
            if code == 2:
                assert len(lines) == 1 and lines[0].startswith("towerlab: error: "), (args, err)
                assert lines[0].isprintable(), (args, lines[0])
                assert image.read_bytes() == KEEP, args  # a refused run leaves the earlier file alone
            elif args[0] == "render":
                assert image.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), args  # a whole new picture
            assert sorted(p.name for p in folder.iterdir()) == ["before.json", "picture.png", "scene.json"], args


def test_the_budget_holds_a_command_to_its_memory_and_time():
    """The in-process budget bites (a test whose budget could not fail would prove nothing) and is lifted after."""
    limits = resource.getrlimit(resource.RLIMIT_AS)
    with pytest.raises(MemoryError), in_budget(30.0, 256 * MiB):
        np.ones(1 << 30)  # 8 GiB
    with pytest.raises(TimeoutError), in_budget(0.2, MEMORY):
        time.sleep(5)
    assert resource.getrlimit(resource.RLIMIT_AS) == limits
    assert np.ones(1 << 26).sum() == 1 << 26  # 512 MiB again
