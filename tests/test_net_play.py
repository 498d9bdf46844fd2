"""A game played over the network: a real server on loopback, real clients; seats, turns, tokens, spectators,
sequence numbers, the pose stream, and the log played again bit for bit."""

from __future__ import annotations

import pytest
from net_table import hold_the_server_s_poses, joined, on_table, quiet, recorded, run, served

from sim.net.client import Client, JoinError
from sim.net.links import Link
from sim.net.table import Setup, replay

TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)
"""Tohuwabohu's turns, of ten minutes so that no turn runs out during a test."""


def _supply_piece(table) -> str:
    return table.session.candidates(table.referee.table)[0]


def test_a_turn_played_over_the_network_is_the_server_s_and_every_client_sees_it():
    with served(TOHU) as server:
        async def scenario():
            red, blue, watcher = await joined(server, "red", "blue", watchers=1)
            assert red.welcome["role"] == "seat" and watcher.welcome["role"] == "spectator"
            assert red.welcome["pieces"] == list(server.table.pieces)
            piece = await on_table(server, _supply_piece)
            out_of_turn = await blue.act({"action": "pick", "piece": piece})
            assert out_of_turn["ok"] is False and out_of_turn["rule"] == "turn"
            assert (await red.act({"action": "pick", "piece": piece}))["ok"]
            assert (await red.act({"action": "move-to", "at": [20.0, 10.0]}))["ok"]
            assert (await red.act({"action": "drop"}))["ok"]
            await quiet(server)
            await hold_the_server_s_poses(server, (red, blue, watcher))  # bit for bit
            def carried(c):  # the piece's pick, then its drop (other events may follow: the table goes on)
                kinds = [e["kind"] for e in c.events if piece in e.get("pieces", ())]
                return "picked" in kinds and "dropped" in kinds[kinds.index("picked"):]
            await watcher.wait_for(carried)
            dropped = next(e for e in watcher.events if e["kind"] == "dropped" and piece in e.get("pieces", ()))
            assert dropped["cause"]["player"] == "red"
            # the frame's state follows its events in the same batch: a client looked at between the two still
            # holds the state before (the hand empty comes with the next message)
            await watcher.wait_for(lambda c: c.state["hands"] == {})
            for c in (red, blue, watcher):
                await c.close()
        run(scenario())


def test_refusals_name_their_rule_and_change_nothing():
    with served(TOHU) as server:
        async def scenario():
            red, blue, watcher = await joined(server, "red", "blue", watchers=1)
            before = await on_table(server, lambda t: len(t.log))
            answers = {
                "local": await red.act({"action": "camera", "preset": "top"}),
                "table": await red.act({"action": "undo"}),
                "malformed": await red.act({"action": "pick", "piece": 5}),
                "not-yours": await red.act({"action": "stop", "player": "blue"}),
                "turn": await blue.act({"action": "swap"}),
            }
            for rule, a in answers.items():
                assert a["ok"] is False and a["rule"] == rule, a
            assert await on_table(server, lambda t: len(t.log)) == before  # none reached the game
            spectator = await watcher.act({"action": "swap"})
            assert spectator["ok"] is False and spectator["rule"] == "spectator"
            assert watcher.errors[-1]["code"] == "spectator"
            for c in (red, blue, watcher):
                await c.close()
        run(scenario())


def test_replayed_and_skipped_sequence_numbers_are_errors_that_change_nothing():
    with served(TOHU) as server:
        async def scenario():
            (red,) = await joined(server, "red")
            assert (await red.act({"action": "swap"}))["seq"] == 1
            log = await on_table(server, lambda t: list(t.log))
            await red.raw('{"type":"act","seq":1,"action":{"action":"swap"}}')
            await red.wait_for(lambda c: c.errors and c.errors[-1]["code"] == "replayed")
            await red.raw('{"type":"act","seq":7,"action":{"action":"swap"}}')
            await red.wait_for(lambda c: c.errors[-1]["code"] == "sequence")
            assert red.errors[-1]["message"] == "expected action 2, got 7"
            assert await on_table(server, lambda t: list(t.log)) == log
            assert (await red.act({"action": "swap"}))["seq"] == 2  # the connection is open, the numbering goes on
            await red.close()
        run(scenario())


def test_a_link_acts_for_its_own_seat_alone():
    with served(TOHU) as server:
        links = server.links()

        async def scenario():
            wrong = Link(links["red"].host, links["red"].port, "red", links["blue"].token)
            for link, code in ((wrong, "token"), (Link(wrong.host, wrong.port, "green", "x" * 22), "not-found"),
                               (Link(wrong.host, wrong.port, None, links["red"].token), "token")):
                with pytest.raises(JoinError) as e:
                    await Client(link, reconnect=False).join()
                assert e.value.code == code
            (red,) = await joined(server, "red")
            with pytest.raises(JoinError, match="the seat red is taken") as e:
                await Client(links["red"]).join()
            assert e.value.code == "seat-taken"
            await red.close()
            again = Client(links["red"])  # once it is free, the same link takes the seat again
            assert (await again.join())["seat"] == "red"
            await again.close()
        run(scenario())


def test_the_game_clock_waits_for_every_seat_to_join():
    with served(TOHU) as server:
        async def scenario():
            (red,) = await joined(server, "red")
            await red.wait_for(lambda c: c.state["stands"] == "waiting for blue to join")
            (blue,) = await joined(server, "blue")
            await red.wait_for(lambda c: c.state["stands"] is None)
            for c in (red, blue):
                await c.close()
        run(scenario())


def test_the_log_of_a_networked_game_replays_to_the_same_game_bit_for_bit(tmp_path):
    from sim.replay import load_recording

    with served(TOHU, record=tmp_path / "net.tlrec") as server:
        async def scenario():
            red, blue = await joined(server, "red", "blue")
            pieces = await on_table(server, lambda t: t.session.candidates(t.referee.table)[:2])
            for k, piece in enumerate(pieces):
                assert (await red.act({"action": "pick", "piece": piece}))["ok"]
                await red.act({"action": "move-to", "at": [30.0 * k - 15.0, 0.0]})
                await red.act({"action": "drop"})
                await quiet(server)
            await red.act({"action": "pick", "piece": pieces[0]})
            await red.drop()  # mid-carry: the table puts it back
            await red.wait_connected()
            await red.act({"action": "swap"})
            await quiet(server)
            for c in (red, blue):
                await c.close()
        run(scenario())
    frames, log = server.table.frame_no, server.table.log  # the table stopped and closed: all it played
    again = replay(TOHU, log, frames, record=tmp_path / "again.tlrec")
    assert [e["control"] for e in log if "control" in e].count("put-back") == 1
    a, b = load_recording(tmp_path / "net.tlrec"), load_recording(tmp_path / "again.tlrec")
    assert a.complete and b.complete
    assert recorded(a) == recorded(b)
    assert len(a.times) == frames + 1
    assert again.session.to_json() == server.table.session.to_json()


def test_each_seat_chooses_its_own_talo_start_field_in_turn():
    """Talo's start fields are chosen in the seats' order: once red has chosen, it is blue's turn (not red's, who
    would otherwise choose blue's field for it); then the turns are the game's (the table once asked whose hands
    were last at work, which in Talo stayed red's: blue could never act)."""
    with served(Setup("talo", "green", ("red", "blue"), 2)) as server:
        async def scenario():
            red, blue = await joined(server, "red", "blue")
            starts = await on_table(server, lambda t: sorted(t.session.board.starts))
            early = await blue.act({"action": "start", "cell": list(starts[-1])})
            assert early["ok"] is False and early["rule"] == "turn"
            assert (await red.act({"action": "start", "cell": list(starts[0])}))["ok"]
            again = await red.act({"action": "start", "cell": list(starts[-1])})
            assert again["ok"] is False and again["rule"] == "turn"  # blue's field is blue's to choose
            assert (await blue.act({"action": "start", "cell": list(starts[-1])}))["ok"]
            begun = await on_table(server, lambda t: (dict(t.session.starts), t.session.seat))
            assert begun == ({"red": tuple(starts[0]), "blue": tuple(starts[-1])}, "red")
            assert (await blue.act({"action": "throw"}))["rule"] == "turn"
            assert (await red.act({"action": "throw"}))["ok"]
            for _ in range(5):  # red's turn played out (a throw no block matches passes it)
                if await on_table(server, lambda t: t.session.current) != "red":
                    break
                await red.act({"action": "end-turn"})
                await red.act({"action": "throw"})
            assert (await red.act({"action": "throw"}))["rule"] == "turn"
            assert (await blue.act({"action": "throw"}))["ok"]  # blue's turn: the server lets blue act
            for c in (red, blue):
                await c.close()
        run(scenario(), 60)
