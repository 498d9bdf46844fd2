"""The table's stream to its clients: written once for every client that keeps up (``websockets.broadcast``), and
through a client's own queue, in order, when its connection is behind."""

from __future__ import annotations

from net_table import hold_the_server_s_poses, joined, on_table, quiet, run, served

from sim.net.table import Setup

TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)


def _order(log: list):
    """``on_message`` that keeps the kind and frame of each message a client takes in, in order."""
    def seen(client, m) -> None:
        log.append((m["type"], m.get("frame"), m.get("seq")))
    return seen


async def _carry(server, red) -> None:
    piece = await on_table(server, lambda t: t.session.candidates(t.referee.table)[0])
    for a in ({"action": "pick", "piece": piece}, {"action": "move-to", "at": [30.0, -20.0]},
              {"action": "move-to", "at": [-10.0, 40.0]}, {"action": "drop"}):
        assert (await red.act(a))["ok"], a
    await quiet(server)


def _in_order(log: list) -> None:
    frames = [f for kind, f, _ in log if kind in ("keyframe", "poses")]
    assert frames == sorted(frames) and len(frames) > 10
    seqs = [s for kind, _, s in log if kind == "answer"]
    assert seqs == sorted(seqs)


def test_clients_that_keep_up_are_sent_the_pose_stream_by_broadcast_not_through_their_queues():
    with served(TOHU) as server:
        async def scenario():
            clients = await joined(server, "red", "blue", watchers=3)
            logs = [[] for _ in clients]
            for c, log in zip(clients, logs):
                c.on_message = _order(log)
            conns = {c.name: c for c in server.conns if c.seat is not None}
            start = {id(c): c.queued for c in server.conns}
            await _carry(server, clients[0])
            await hold_the_server_s_poses(server, clients)
            for log in logs:
                _in_order(log)
            poses = [sum(1 for kind, _, _ in log if kind == "poses") for log in logs]
            assert min(poses) > 10
            # through the queue: a seat's answers (4) and the few batches that came while one waited there
            red = conns["red"]
            assert red.queued - start[id(red)] < 4 + poses[0] / 2
            for c in server.conns:
                if c.seat is None:
                    assert c.queued - start[id(c)] < min(poses) / 2
            for c in clients:
                await c.close()
        run(scenario())


def test_a_client_whose_connection_is_behind_is_sent_everything_through_its_queue_in_order():
    with served(TOHU) as server:
        async def scenario():
            red, blue, watcher = await joined(server, "red", "blue", watchers=1)
            logs = {"red": [], "blue": [], "watcher": []}
            for name, c in zip(logs, (red, blue, watcher)):
                c.on_message = _order(logs[name])
            behind = [c for c in server.conns if c.seat is not None and c.seat.name == "red"] + \
                [c for c in server.conns if c.seat is None]
            for c in behind:  # as if their sockets' buffers were full: the broadcast passes them by
                c.keeps_up = lambda: False
            start = {id(c): c.queued for c in behind}
            await _carry(server, red)
            await hold_the_server_s_poses(server, (red, blue, watcher))
            for log in logs.values():
                _in_order(log)
            for c, name in zip(behind, ("red", "watcher")):
                assert c.queued - start[id(c)] >= sum(1 for kind, _, _ in logs[name] if kind == "poses") > 10
            for c in (red, blue, watcher):
                await c.close()
        run(scenario())
