"""The game clock through the viewer's controller (offscreen): it begins with the game's announcement, waits for a
window that is getting ready, stands while the world is paused, the help is open or the window holds it, and a
turn's length is a house rule (``--turn-seconds``)."""

from __future__ import annotations

import pytest

from sim.games.play.session import PlayError
from sim.games.play.tohuwabohu import TohuwabohuSession
from sim.games.registry import game_rng
from sim.viewer.control.actions import action, specs_with
from sim.viewer.control.controller import FRAME, Controller
from sim.viewer.play.games import new_game
from sim.viewer.play.mode import Referee


def session(variant=None, turn_seconds=None):
    g = new_game("tohuwabohu", ("ann", "bob"), variant, 3, turn_seconds)
    referee = Referee(g)
    return Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee]), referee


def frames(c, seconds: float) -> None:
    for _ in range(int(round(seconds / FRAME))):
        c.frame()


def test_the_clock_begins_with_the_announcement_of_the_first_turn():
    c, referee = session()
    assert not referee.started and referee.probe()["clock"]["stands"] == "waiting for the window"
    c.frame()
    assert referee.started and c.messages[0].text.startswith("ann's turn (0:15 on the clock) - order: ")
    frames(c, 1.0)
    assert referee.view()["time_left"] == pytest.approx(15.0 - 61 * FRAME)


def test_a_window_getting_ready_holds_the_clock_until_it_is_ready():
    c, referee = session()
    referee.wait_for_window()
    frames(c, 5.0)  # the window's first frames, the order cards drawn: no turn time passes
    assert not referee.started and referee.view()["time_left"] == 15.0 and not c.messages
    assert "(stands: waiting for the window)" in referee.view()["clock"]
    referee.window_ready()
    frames(c, 2.0)
    assert referee.started and referee.view()["time_left"] == pytest.approx(13.0)
    assert referee.probe()["clock"] == {"started": True, "stands": None, "time_left": pytest.approx(13.0),
                                        "time": pytest.approx(2.0)}


def test_the_clock_stands_while_paused_while_the_help_is_open_and_while_the_window_holds_it():
    c, referee = session()
    frames(c, 1.0)
    left = referee.view()["time_left"]
    specs = specs_with(c.plugins)
    for on, off, why in (({"action": "pause"}, {"action": "resume"}, "paused"),
                         ({"action": "toggle", "what": "help"}, {"action": "toggle", "what": "help"}, "help")):
        c.apply(action(on, "a", specs))
        for _ in range(60):
            c.tick(FRAME)  # a window's frames: paused or not, the session clock runs
        assert referee.clock_stands() == why and referee.view()["time_left"] == left
        assert f"(stands: {why})" in referee.view()["clock"]
        c.apply(action(off, "a", specs))
    referee.hold("a dialog")
    frames(c, 1.0)
    assert referee.view()["time_left"] == left and referee.clock_stands() == "a dialog"
    referee.hold("a dialog", False)
    frames(c, 1.0)
    assert referee.view()["time_left"] == pytest.approx(left - 1.0)


def test_a_turn_length_as_a_house_rule():
    c, referee = session(turn_seconds=20)
    frames(c, 19.5)
    assert referee.session.seat == "ann" and referee.view()["time_left"] == pytest.approx(20.0 - 19.5)
    frames(c, 1.0)
    assert referee.session.seat == "bob" and referee.view()["time_left"] == pytest.approx(19.5)
    assert TohuwabohuSession(("a", "b"), game_rng(0), "advanced", turn_seconds=30).state.time_left == 30.0
    assert TohuwabohuSession(("a", "b"), game_rng(0), "advanced").state.time_left == 10.0
    with pytest.raises(PlayError, match="four-minute rounds"):
        TohuwabohuSession(("a", "b"), game_rng(0), "pro", turn_seconds=30)
    with pytest.raises(PlayError, match="talo .*turns are not timed"):
        new_game("talo", None, None, 0, 20)
