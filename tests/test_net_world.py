"""The window client's world (sim.net.window.NetWorld): the server's poses, the window's own carries predicted,
and rays cast at all pieces at once that find what the viewer's PosedWorld finds, one by one."""

from __future__ import annotations

import numpy as np

from sim.net.window import NetWorld
from sim.viewer.control.posed import PosedWorld
from sim.viewer.play.games import new_game


class _Client:
    """What NetWorld reads of a client: the roster and the latest poses."""

    def __init__(self, scene):
        self.pieces = tuple(scene.ids)
        self.latest = None

    def send(self, frame, poses):
        self.latest = (frame, frame / 60.0, np.arange(len(self.pieces)), poses.copy())


def test_the_server_s_poses_are_shown_but_for_the_window_s_own_carry_which_goes_where_its_hand_does():
    game = new_game("babylon", None, "fast", 0, None)
    client = _Client(game.scene)
    world = NetWorld(game.scene, client)
    served = game.scene.poses().reshape(-1, 7).copy()
    served[:, 0] += 0.01
    client.send(3, served)
    world.advance(1 / 60)
    assert np.array_equal(world.poses(), served) and world.time == 3 / 60
    piece = game.scene.ids[0]
    world.grab("right", piece)
    aim = np.array([0.1, -0.2, 0.05, 0.0, 0.0, 0.0, 1.0])
    world.move_hand("right", aim)
    served[0, 0] += 0.05  # the server's hand lags behind
    client.send(4, served)
    world.advance(1 / 60)
    assert np.array_equal(world.pose(piece), aim) and world.held() == {"right": piece}
    world.release("right")
    world.advance(1 / 60)
    assert np.array_equal(world.pose(piece), served[0])  # settled to the server's once let go


def test_rays_at_all_pieces_at_once_find_what_one_by_one_finds():
    game = new_game("babylon", None, "fast", 0, None)
    one, many = PosedWorld(game.scene), NetWorld(game.scene, _Client(game.scene))
    rng = np.random.default_rng(5)
    starts = rng.uniform(-0.6, 0.6, (400, 3))
    starts[:, 2] = rng.uniform(0.05, 0.6, 400)
    ends = starts + rng.uniform(-0.4, 0.4, (400, 3))
    ends[:, 2] = -0.05
    hits = 0
    grounds = 0
    for a, b in zip([one.ray_test(s, e) for s, e in zip(starts, ends)], many.ray_tests(starts, ends)):
        if b is not None and b.piece in ("board", "table"):  # the ground, which the replay's world has not
            assert a is None or a.distance >= b.distance
            top = 0.0 if b.piece == "board" else -game.scene.board_info.thickness  # its top, or the board's side
            assert -game.scene.board_info.thickness - 1e-9 <= b.point[2] <= top + 1e-9
            grounds += 1
            continue
        assert (a is None) == (b is None)
        if a is not None:
            hits += 1
            assert a.piece == b.piece and np.allclose(a.point, b.point) and np.allclose(a.normal, b.normal)
            assert np.isclose(a.distance, b.distance)
    assert hits > 20 and grounds > 20


class _Remote:
    """What NetSeat uses of a window's ClientThread: its client, and sending (the answer handed back later)."""

    def __init__(self, client):
        self.client = client
        self.sent = []

    def send(self, action, answered):
        self.sent.append((action, answered))


def test_a_window_that_takes_back_a_seat_which_acted_before_keeps_its_own_carry_until_the_server_answers_it():
    """The welcome repeats the seat's last answers (those of its earlier connection); the window counts only its
    own: its pick, not yet answered and the server's hands still empty, is not put back."""
    from types import SimpleNamespace

    from sim.net.window import NetSeat
    from sim.viewer.control.actions import action

    old = {seq: {"type": "answer", "seq": seq, "ok": True, "played": True, "frame": 10 * seq} for seq in range(1, 16)}
    client = SimpleNamespace(welcome={"seat": "blue"}, said=[], answers=dict(old),
                             state={"frame": 400, "hands": {}})
    seat = NetSeat(_Remote(client), {})
    put_back = []
    controller = SimpleNamespace(hands={"right": SimpleNamespace(lowering=None)}, put_back=put_back.append,
                                 say=lambda *a: None)
    pick = action({"action": "pick", "piece": "blue-tower-4"}, "")
    seat.applied(controller, pick)  # the window's hand took it; the pick is on its way
    seat.tick(controller, 1 / 60)
    assert put_back == []
    (_, answered), = seat.remote.sent
    answered({"type": "answer", "seq": 16, "ok": True, "played": True, "frame": 405})
    client.state = {"frame": 406, "hands": {}}  # answered, and the server's hands empty after it: put back
    seat.tick(controller, 1 / 60)
    assert put_back == ["right"] and seat.answered == 1


def test_the_window_s_predicted_carry_goes_where_the_server_s_hand_takes_it():
    """A piece picked (lifted clear first), lifted and carried over the bare board: the window's own carry (its
    rays meet the board as the live world's do, and not the piece they start in) holds it where the server's hand
    does."""
    from sim.net.table import ServedTable, Setup
    from sim.viewer.control.actions import action
    from sim.viewer.control.controller import Controller

    setup = Setup("babylon", "fast", ("red", "blue", "green"), 0)
    table = ServedTable(setup)
    try:
        game = new_game(setup.game, setup.players, setup.variant, setup.seed, None)
        client = _Client(game.scene)
        client.send(0, game.scene.poses().reshape(-1, 7))
        window = Controller(game.scene, world_factory=lambda s: NetWorld(s, client), threaded=False,
                            size=(760, 560), supply=game.supply, player="blue")
        for p in setup.players:
            table.joined(p)
        for a in ({"action": "pick", "piece": "blue-tower-4"}, {"action": "lift", "mm": 20},
                  {"action": "move-to", "at": [-300, 150]}):
            assert table.submit("blue", a)["ok"], a
            window.apply(action(a, ""))
            for _ in range(60):
                table.step()
                window.frame()
            served = table.controller.carries["right"].target
            predicted = window.carries["right"].target
            assert np.allclose(predicted[:3], served[:3], atol=1e-5), (a, predicted, served)  # Bullet: microns
        window.close()
    finally:
        table.close()
