"""Computer players at the viewer's table (headless): their moves made by a hand at a person's pace through the
same referee as a person's, never refused, the same from the same seed; a person's hands held while they move."""

import numpy as np
import pytest

from sim.bots.pace import GRIP_S
from sim.bots.players import make_bot
from sim.cli import main
from sim.viewer.control.actions import RefusalError, action, specs_with
from sim.viewer.control.controller import Controller
from sim.viewer.play.bots import BotSeats, bots_panel, placement_steps, seat_rng, table_state
from sim.viewer.play.games import new_game
from sim.viewer.play.mode import Referee
from tests.helpers import one_line


def table(game, levels, variant=None, seed=3, turn_seconds=None, threaded=False):
    """A game with computer players at the given seats (seat -> level); the controller, referee and seats."""
    g = new_game(game, None, variant, seed, turn_seconds)
    referee = Referee(g)
    players = list(g.session.players)
    bots = {p: make_bot(lv, g.variant.game, g.variant.name, seat_rng(seed, players.index(p)))
            for p, lv in levels.items()}
    seats = BotSeats(referee, bots, levels, threaded=threaded)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee, seats])
    return c, referee, seats


def frames_until(c, done, limit_s: float = 300.0, each=None) -> None:
    for _ in range(int(limit_s * 60)):
        if done():
            return
        c.frame()
        if each is not None:
            each()
    raise AssertionError(f"not done within {limit_s:g} s of the session")


def test_two_computer_players_play_talo_by_hand_and_are_never_refused():
    c, referee, seats = table("talo", {"red": 1, "blue": 2})
    heights: dict[str, float] = {}

    def watch():  # how high each piece a hand holds was carried above where it was taken
        for s in c.hands.values():
            z = float(c.world.pose(s.piece)[2] - s.start[2])
            heights[s.piece] = max(heights.get(s.piece, 0.0), z)

    frames_until(c, lambda: len(seats.made) >= 12, each=watch)
    assert [m for m in seats.made if not m[2]] == [] and seats.failed is None
    placed = [a for _, a, _ in seats.made if a["action"] == "place"]
    assert placed and {p for p, *_ in seats.made} == {"red", "blue"}
    assert all(heights[a["piece"]] > 0.02 for a in placed)  # lifted clear, carried over, set down
    for a in placed:
        if a["piece"] in c.world.ids:  # (a later collapse may have moved it)
            np.testing.assert_allclose(c.world.pose(a["piece"])[:2], a["pose"][:2], atol=2e-3)
    assert not [m.text for m in c.messages if m.kind == "refused"]


def test_the_same_game_gives_the_same_moves():
    def moves():
        c, _, seats = table("babylon", {"red": 2, "blue": 1}, seed=5)
        frames_until(c, lambda: len(seats.made) >= 7)
        out = [(p, a) for p, a, _ in seats.made[:7]]
        c.close()
        return out

    assert moves() == moves()


def test_a_persons_hands_wait_while_a_computer_player_moves_but_the_camera_does_not():
    c, referee, seats = table("talo", {"red": 2})
    specs = specs_with(c.plugins)
    frames_until(c, lambda: seats.move is not None)
    with pytest.raises(RefusalError, match="red is a computer player"):
        c.apply(action({"action": "pick", "piece": next(i for i in c.world.ids if i.startswith("b"))}, "a", specs))
    with pytest.raises(RefusalError, match="red is a computer player"):
        c.apply(action({"action": "throw"}, "a", specs))
    c.apply(action({"action": "orbit", "degrees": [10, 0]}, "a", specs))  # the view stays a person's


def test_skip_makes_the_rest_of_the_move_at_once():
    c, referee, seats = table("babylon", {"red": 1})
    frames_until(c, lambda: seats.move is not None and seats.move.placing is not None)
    move = seats.move
    c.apply(action({"action": "skip-move"}, "a", specs_with(c.plugins)))
    c.frame()
    assert move.done  # every step made: picked, turned, carried and let go
    frames_until(c, lambda: len(seats.made) == 1, limit_s=10)
    assert seats.made[0][2]


def test_a_timed_turn_too_short_for_a_move_is_let_run_out_rather_than_a_move_begun():
    c, referee, seats = table("tohuwabohu", {"red": 2, "blue": 2}, turn_seconds=5.0)
    frames_until(c, lambda: referee.probe()["turns"] >= 3, 120)
    assert seats.made and all(ok for *_, ok in seats.made)
    assert not [m.text for m in c.messages if m.kind == "error"]


def test_a_placement_is_gripped_turned_carried_at_a_persons_pace_and_let_go():
    start = np.array([0.1, 0.0, 0.01, 0, 0, 0, 1.0])
    pose = np.array([-0.2, 0.1, 0.02, 0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)])
    steps = placement_steps("b1", start, pose)
    names = [s["action"] for _, s in steps]
    assert names[:2] == ["pick", "orient"] and names[-1] == "drop" and set(names[2:-1]) == {"move-to"}
    times = [t for t, _ in steps]
    assert times == sorted(times) and steps[1][0] == GRIP_S
    np.testing.assert_allclose(steps[-2][1]["at"], pose[:2] * 1000)
    speed = np.linalg.norm(np.diff([s["at"] for _, s in steps[2:-1]], axis=0), axis=1) * 60 / 1000
    assert speed.max() <= 0.31  # across the table at most a calm person's 0.3 m/s


def test_the_table_state_is_the_referees_game_on_the_live_table():
    c, referee, seats = table("talo", {"blue": 1})
    state = table_state(referee)
    assert state.current_player == referee.session.current_player == "red"
    assert state.legal_actions() == referee.session.legal_actions(referee.table)
    assert set(state.scene().ids) == set(c.world.ids) and state.supply == frozenset(c.supply)


def test_the_panel_says_who_plays_and_with_i_why():
    c, referee, seats = table("babylon", {"red": 3})
    assert bots_panel(seats, False).splitlines()[0] == "Computer players: red (level 3)"
    frames_until(c, lambda: len(seats.made) >= 1)
    text = bots_panel(seats, True)
    d = seats.reasoning["red"]
    assert d.why in text and d.candidates and d.candidates[0].label in text
    assert "risk" in text  # level 3 weighs its candidates by their risk of collapse


@pytest.mark.parametrize("args, says", [
    (["--bot", "blue3"], "--bot blue3: expected SEAT:LEVEL, e.g. blue:2"),
    (["--bot", "purple:2"], "--bot purple:2: no seat 'purple' in this game (its players: red, blue)"),
    (["--bot", "blue:2", "--bot", "blue:1"], "--bot blue:1: blue is given twice"),
    (["--bot", "blue:9"], "--bot blue:9: level: expected one of 1, 2, 3, got 9"),
])
def test_bad_bot_seats_are_one_line(args, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["play", "talo", "--players", "red,blue", "--offscreen", "--no-record", "--exit", *args]) == 2
    assert one_line(capsys) == f"towerlab: error: {says}"


def test_a_bot_at_a_served_tables_seat_is_the_servers(capsys):
    assert main(["play", "--join", "ws://127.0.0.1:1/seat/red?token=x", "--bot", "blue:1"]) == 2
    assert "--bot and --join" in one_line(capsys)


def test_offscreen_a_game_against_the_computer_plays_to_its_script(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "moves.json"
    script.write_text('[{"action": "start", "cell": [0, 0]}, {"action": "wait", "seconds": 12}]')
    assert main(["play", "talo", "--players", "red,blue", "--bot", "blue:1", "--offscreen", "--no-record",
                 "--actions", str(script)]) == 0
    assert "blue" in capsys.readouterr().out
