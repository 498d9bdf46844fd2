"""The legal moves over the network: a served table's state says where each carried piece may go and what the
referee says of its ghost (the referee's own answer, worked out off the frames), and a client's window rings the
places of its own carries and turns a ghost red only where the server judged that same ghost."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np
from net_table import joined, on_table, run, served

from sim.net.client import Client
from sim.net.legal import NetLegal
from sim.net.table import Setup
from sim.viewer.play.games import new_game
from sim.viewer.play.legal import TableCopy, marks

TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)


def _referee_s_own(table, piece: str, ghost) -> tuple[list, object]:
    """The places' points and the ghost's refusal as the referee works them out itself, now."""
    copy = TableCopy(table.referee.table)
    places = tuple(table.session.clone().placements(piece, copy))
    setup = table.referee.table.setup_piece(piece)
    refusal = table.session.clone().drop_refusal(setup.moved(ghost[:3], ghost[3:]), copy)
    return marks(setup, places).round(6).tolist(), refusal


def test_a_carried_piece_s_legal_places_and_its_ghost_s_verdict_reach_every_client_as_the_referee_says():
    with served(TOHU) as server:
        async def scenario():
            red, watcher = await joined(server, "red", watchers=1)
            piece = await on_table(server, lambda t: t.session.candidates(t.referee.table)[0])
            assert (await red.act({"action": "pick", "piece": piece}))["ok"]
            assert (await red.act({"action": "move-to", "at": [400.0, 300.0]}))["ok"]  # off the board's middle
            await watcher.wait_for(lambda c: "right" in c.state["hands"], 30)
            assert "legal" not in watcher.state  # no window asked: the server spends nothing on them
            blue = Client(server.links()["blue"], legal=True)  # a seat's window, which rings them
            await blue.join()

            def judged(c):
                k = (c.state.get("legal") or {}).get("right")
                return k is not None and k["piece"] == piece and k["ghost"] is not None and not k["pending"]
            await watcher.wait_for(judged, 30)
            k = watcher.state["legal"]["right"]
            places, refusal = await on_table(server, _referee_s_own, piece, k["ghost"]["pose"])
            assert k["places"] == places and len(places) > 3
            assert k["ghost"]["legal"] is (refusal is None)
            assert k["ghost"]["rule"] == (None if refusal is None else refusal.rule)
            assert (await red.act({"action": "cancel"}))["ok"]
            await watcher.wait_for(lambda c: not c.state["hands"] and not c.state.get("legal"), 30)
            for c in (red, watcher):
                await c.close()
        run(scenario())


@functools.cache
def _fast_scene():
    return new_game("babylon", ("red", "blue", "green"), "fast", 0, None).scene


def _window(seat, own_hands, state, hands, ghosts):
    client = SimpleNamespace(state=state)
    legal = NetLegal(client, _fast_scene(), seat, own_hands)
    legal.attach(SimpleNamespace(
        hands={h: SimpleNamespace(piece=p, group=()) for h, p in hands.items()},
        carries={h: SimpleNamespace(ghost=np.asarray(g, dtype=float)) for h, g in ghosts.items()}))
    return legal


GHOST = [0.1, -0.05, 0.02, 0.0, 0.0, 0.0, 1.0]


def _answer(piece, pose, legal=False):
    return {"piece": piece, "pending": False, "rules": {"place": 2}, "places": [[0.1, 0.2, 0.0], [0.3, 0.2, 0.0]],
            "ghost": {"pose": pose, "legal": legal, "rule": None if legal else "area",
                      "reason": None if legal else "not your area"}}


def test_a_window_rings_its_own_hand_s_places_and_refuses_only_the_ghost_the_server_judged():
    piece = "red-tower-1"
    near = [GHOST[0] + 1e-4, *GHOST[1:]]  # the window's rays meet the pieces within microns of the server's
    state = {"legal": {"red": _answer(piece, near), "blue": _answer("blue-tower-1", GHOST)}}
    legal = _window("red", True, state, {"right": piece}, {"right": GHOST})
    k = legal.legal_now()
    assert set(k) == {"right"} and k["right"].points().tolist() == [[0.1, 0.2, 0.0], [0.3, 0.2, 0.0]]
    assert k["right"].refusal.rule == "area"
    assert legal.judge_ghost(None, "right", piece, GHOST) == "area: not your area"
    assert legal.probe()["busy"] is False
    elsewhere = [GHOST[0] + 0.01, *GHOST[1:]]  # the window's ghost has moved on: the server's verdict is stale
    legal = _window("red", True, state, {"right": piece}, {"right": elsewhere})
    assert legal.legal_now()["right"].refusal is None and legal.judge_ghost(None, "right", piece, elsewhere) is None
    assert legal.legal_now()["right"].places  # the places do not depend on where the ghost is


def test_a_window_waits_for_the_server_s_answer_and_a_spectator_rings_nothing():
    piece = "red-tower-1"
    legal = _window("red", True, {"legal": {}}, {"right": piece}, {"right": GHOST})
    assert legal.legal_now() == {} and legal.probe()["busy"] is True
    state = {"legal": {"red": _answer("red-tower-2", GHOST)}}  # an answer for the piece carried before
    legal = _window("red", True, state, {"right": piece}, {"right": GHOST})
    assert legal.legal_now() == {}
    watcher = _window(None, True, {"legal": {"red": _answer(piece, GHOST)}}, {}, {})
    assert watcher.legal_now() == {} and watcher.probe() == {"legal": {}, "busy": False}
    turns = _window("red", False, {"legal": {"right": _answer(piece, GHOST, legal=True)}}, {"right": piece},
                    {"right": GHOST})
    assert turns.legal_now()["right"].refusal is None and turns.legal_now()["right"].ghost is not None


def _state(legal) -> str:
    import json

    return json.dumps({"type": "state", "frame": 3, "legal": legal})


def test_a_client_reads_the_legal_moves_a_server_sends_only_once_checked():
    import pytest

    from sim.net.protocol import ProtocolError, server_message

    good = {"red": _answer("red-tower-1", GHOST)}
    assert server_message(_state(good), 10)["legal"] == good
    assert server_message(_state({"red": {**_answer("red-tower-1", GHOST), "ghost": None}}), 10)
    bad = {
        "legal.red.places": {"red": {**_answer("t", GHOST), "places": [[0.1, 0.2]]}},
        "legal.red.places[0][0]": {"red": {**_answer("t", GHOST), "places": [["x", 0.2, 0.0]]}},
        "legal.red.ghost.pose": {"red": {**_answer("t", GHOST), "ghost": {**_answer("t", GHOST)["ghost"],
                                                                          "pose": [1e9, 0, 0, 0, 0, 0, 1]}}},
        "legal.red.ghost.rule": {"red": {**_answer("t", GHOST), "ghost": {**_answer("t", GHOST)["ghost"],
                                                                          "rule": "x" * 500}}},
        "legal.red.pending": {"red": {**_answer("t", GHOST), "pending": "no"}},
        "legal": ["red"],
    }
    for field, legal in bad.items():
        with pytest.raises(ProtocolError) as e:
            server_message(_state(legal), 10)
        assert field in str(e.value), (field, str(e.value))


def test_a_hello_asks_for_the_legal_moves_with_a_flag_and_nothing_else():
    import json

    import pytest

    from sim.net.protocol import PROTOCOL, ProtocolError, client_message

    hello = {"type": "hello", "protocol": PROTOCOL}
    assert client_message(json.dumps({**hello, "legal": True}))["legal"] is True
    with pytest.raises(ProtocolError, match="legal"):
        client_message(json.dumps({**hello, "legal": "yes"}))
