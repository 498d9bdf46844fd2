"""A game saved and resumed (``save-game``, ``towerlab play --resume``): every game and variant, resumed from the
file and given the same actions after, ends bit for bit like the game that went on after the save (the world,
the hands, the die's stream, the deal, the cards, the clock, the journal); a file that is not a saved game is one
line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import one_line

from sim.cli import main
from sim.viewer.control.actions import action, specs_with
from sim.viewer.control.controller import Controller
from sim.viewer.control.script import ScriptRunner
from sim.viewer.play.games import new_game
from sim.viewer.play.mode import Referee
from sim.viewer.play.save import GameFileError, read_game, restore

ROOT = Path(__file__).resolve().parents[1]

OPENING_TALO = [{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}, {"action": "throw"},
                {"action": "pick", "piece": "b1-1"}, {"action": "move-to", "at": [-70, -90]}]
THROWS = [{"action": "drop"}, {"action": "end-turn"}, {"action": "throw"}, {"action": "select-pawn"},
          {"action": "end-turn"}, {"action": "throw"}, {"action": "end-turn"}, {"action": "throw"}]
IN_HAND = [{"action": "pick", "piece": "small-blue-2"}, {"action": "move-to", "at": [0, 0]},
           {"action": "wait", "seconds": 2}]
BABYLON = [{"action": "pick", "piece": "red-bridge-1"}, {"action": "move-to", "at": [0.0, 0.0]}]
BABYLON_AFTER = [{"action": "drop"}, {"action": "end-turn"}]  # refused: a turn is 4 or 5 pieces
FAST = [{"action": "pick", "piece": "red-tower-5"}, {"action": "move-to", "at": [-150, -80]}]
FAST_AFTER = [{"action": "drop"}, {"action": "seat", "player": "blue"}, {"action": "done"},
              {"action": "seat", "player": "green"}, {"action": "done"}, {"action": "seat", "player": "red"},
              {"action": "done"}, {"action": "next-round"}]
GAMES = {  # (game, variant): the actions before the save (a piece in hand at it) and after
    ("talo", "green"): (OPENING_TALO, THROWS),
    ("talo", "island"): (OPENING_TALO, THROWS),
    ("talo", "fantasy"): ([{"action": "throw"}, {"action": "pick", "piece": "b1-1"},
                           {"action": "move-to", "at": [0, 0]}], THROWS[:2] + THROWS[4:]),
    ("tohuwabohu", "basic"): (IN_HAND, [{"action": "drop"}, {"action": "wait", "seconds": 13.5}, {"action": "swap"},
                                        {"action": "pick", "piece": "level-tri-1"}, {"action": "drop"}]),
    ("tohuwabohu", "advanced"): (IN_HAND, [{"action": "wait", "seconds": 1}, {"action": "swap"}]),
    ("tohuwabohu", "pro"): (IN_HAND, [{"action": "drop"}, {"action": "seat", "player": "blue"},
                                      {"action": "pick", "piece": "level-tri-1"}, {"action": "drop"},
                                      {"action": "stop"}, {"action": "wait", "seconds": 1}]),
    ("babylon", "tactical"): (BABYLON, BABYLON_AFTER),
    ("babylon", "expert"): (BABYLON, BABYLON_AFTER),
    ("babylon", "fast"): (FAST, FAST_AFTER),
    ("babylon", "fast-expert"): (FAST, FAST_AFTER),
}


def _session(game, variant, seed=5, players=None):
    g = new_game(game, players, variant, seed)
    referee = Referee(g)
    return Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee]), referee


def _run(c, actions) -> None:
    specs = specs_with(c.plugins)
    ScriptRunner(c, [action(a, f"actions[{i}]", specs) for i, a in enumerate(actions)], lambda r: None).run()


def _game_file(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("saved_at")
    return data


@pytest.mark.parametrize("game, variant", list(GAMES))
def test_a_resumed_game_given_the_same_actions_ends_bit_for_bit_like_the_game_saved(game, variant, tmp_path):
    before, after = GAMES[(game, variant)]
    mid, went_on, resumed = tmp_path / "mid.json", tmp_path / "went-on.json", tmp_path / "resumed.json"
    c, referee = _session(game, variant)
    _run(c, before + [{"action": "save-game", "path": str(mid)}] + after
         + [{"action": "save-game", "path": str(went_on)}])
    c.close()
    saved = read_game(mid)
    assert (saved.game, saved.variant, saved.seed) == (game, variant, 5)
    c2, referee2 = _session(saved.game, saved.variant, saved.seed, saved.players)
    restore(c2, referee2, saved.data)
    assert referee2.session.to_json() == json.loads(json.dumps(json.loads(mid.read_text())["referee"]["session"]))
    _run(c2, after + [{"action": "save-game", "path": str(resumed)}])
    c2.close()
    a, b = _game_file(went_on), _game_file(resumed)
    assert a == b  # every pose, velocity, grip, tracker baseline, call of the referee and its answers: to the bit
    assert json.dumps(a["viewer"]["world"]) == json.dumps(b["viewer"]["world"])
    at_save = json.loads(mid.read_text())["referee"]["session"]["time"]
    later = {e.kind for e in referee2.session.journal if e.time > at_save}
    assert later & {"rolled", "turn_changed", "refused", "round_ended", "game_state"}, later  # the game went on


def test_a_game_saved_resumed_from_the_command_line_in_another_process(tmp_path):
    """The file between two processes (another hash seed for every set): ``towerlab play --resume`` goes on with
    a Tohuwabohu turn whose clock is running and a piece in hand, the recording tells it."""
    before, after = GAMES[("tohuwabohu", "basic")]
    (tmp_path / "a.json").write_text(json.dumps(before + [{"action": "save-game", "path": "mid.json"}]))
    (tmp_path / "b.json").write_text(json.dumps(after + [{"action": "save-game", "path": "resumed.json"}]))
    (tmp_path / "ab.json").write_text(json.dumps(before + [{"action": "save-game", "path": "mid2.json"}] + after
                                                 + [{"action": "save-game", "path": "went-on.json"}]))

    def play(*args):
        run = subprocess.run([sys.executable, "-m", "sim", "play", *args, "--offscreen"], cwd=tmp_path, text=True,
                             capture_output=True, timeout=300, env={**_env(), "PYTHONHASHSEED": str(len(args))})
        assert run.returncode == 0, run.stderr[-2000:]
        return run.stdout.strip().splitlines()[-1]

    play("tohuwabohu", "--seed", "5", "--actions", "ab.json", "--no-record")
    play("tohuwabohu", "--seed", "5", "--actions", "a.json", "--no-record")
    line = play("--resume", "mid.json", "--actions", "b.json", "--record", "resumed.tlrec")
    assert line.startswith("tohuwabohu (basic; red, blue): turn 2 under way (blue's)"), line
    assert _game_file(tmp_path / "went-on.json") == _game_file(tmp_path / "resumed.json")
    from sim.replay import load_recording

    kinds = [e.kind for e in load_recording(tmp_path / "resumed.tlrec").events]
    assert kinds[:2] == ["resumed", "game_state"] and "turn_changed" in kinds


def _env() -> dict:
    import os

    return dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.fixture(scope="module")
def saved_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("saved") / "game.json"
    c, _ = _session("tohuwabohu", "basic")
    _run(c, IN_HAND + [{"action": "save-game", "path": str(path)}])
    c.close()
    return path


def _edited(saved_file: Path, tmp_path: Path, change) -> Path:
    data = json.loads(saved_file.read_text())
    change(data)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(data))
    return out


@pytest.mark.parametrize("change, words", [
    (lambda d: d.__setitem__("format", "towerlab-scene/1"), 'format: expected one of "towerlab-game/2"'),
    (lambda d: d.__setitem__("format", "towerlab-game/1"), "format: expected 'towerlab-game/2' (a game saved by an "
                                                           "earlier towerlab"),
    (lambda d: d.__setitem__("game", "chess"), "game: expected one of"),
    (lambda d: d.__setitem__("seed", -1), "seed: expected an integer from 0"),
    (lambda d: d["viewer"]["hands"]["right"].__setitem__("piece", "ghost"),
     "viewer.hands.right.piece: expected a piece of the world"),
    (lambda d: d["viewer"]["world"]["live"]["state"]["velocities"][0].__setitem__(0, 1e6),
     "viewer.world.live.state.velocities: expected velocities under 1000"),
    (lambda d: d["referee"]["calls"][0].__setitem__(0, "cheat"), "referee.calls[0][0]: expected one of"),
    (lambda d: d["referee"]["session"]["state"].__setitem__("turn", 1),
     "referee.session: the record of the game's calls does not make this game"),
    (lambda d: d["referee"]["calls"].pop(), "referee.session: the record of the game's calls does not make"),
    (lambda d: d.__setitem__("referee", 3), "referee: expected an object"),
])
def test_a_file_that_is_not_a_saved_game_is_one_line_naming_the_field(saved_file, tmp_path, change, words, capsys):
    bad = _edited(saved_file, tmp_path, change)
    assert main(["play", "--resume", str(bad), "--offscreen", "--exit", "--no-record"]) == 2
    line = one_line(capsys)
    assert line.startswith(f"towerlab: error: {bad}: ") and words in line, line


def test_what_is_not_a_file_to_resume(tmp_path):
    with pytest.raises(GameFileError, match="no such file"):
        read_game(tmp_path / "none.json")
    with pytest.raises(GameFileError, match="not a regular file"):
        read_game(tmp_path)
    (tmp_path / "text.json").write_bytes(b"\xff\xfe")
    with pytest.raises(GameFileError, match="not a text file"):
        read_game(tmp_path / "text.json")
    (tmp_path / "half.json").write_text('{"format": "towerlab-game/2", ')
    with pytest.raises(GameFileError, match="not valid JSON"):
        read_game(tmp_path / "half.json")
