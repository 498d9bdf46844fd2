"""The window client's world (sim.net.window.NetWorld): the server's poses, the window's own carries predicted,
and rays cast at all pieces' shapes at once that meet what the server's live world meets."""

from __future__ import annotations

import contextlib

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


def test_rays_at_all_pieces_at_once_meet_the_pieces_shapes_where_the_live_world_s_rays_do():
    """The window's rays at the pieces' convex parts (sim.net.rays) against the server's own (Bullet's, at the
    collision shapes): the same piece, board or table at the same distance, over arches, between towers and past
    the round board's edge, where a piece's bounding box would be met first."""
    from sim.net.table import ServedTable, Setup

    setup = Setup("babylon", "fast", ("red", "blue", "green"), 0)
    table = ServedTable(setup)
    try:
        live = table.controller.world
        game = new_game(setup.game, setup.players, setup.variant, setup.seed, None)
        client = _Client(game.scene)
        ids = list(live.ids)
        client.latest = (0, 0.0, np.array([client.pieces.index(i) for i in ids]), live.poses())
        world, boxes = NetWorld(game.scene, client), PosedWorld(game.scene)
        boxes.show(0.0, ids, live.poses())
        rng = np.random.default_rng(5)
        centres = live.poses()[rng.integers(len(ids), size=400), :3]  # down at the pieces: their tops and gaps
        starts = centres + np.c_[rng.uniform(-0.03, 0.03, (400, 2)), rng.uniform(0.05, 0.2, 400)]
        ends = starts + np.c_[rng.uniform(-0.05, 0.05, (400, 2)), np.full(400, -0.4)]
        met = differ = 0
        for k, (truth, mine) in enumerate(zip(live.ray_tests(starts, ends), world.ray_tests(starts, ends))):
            assert (truth is None) == (mine is None), k
            if truth is None:
                continue
            met += truth.piece in ids
            assert mine.piece == truth.piece, (k, mine, truth)
            assert abs(mine.point[2] - truth.point[2]) < 1e-4, (k, mine, truth)  # 23 µm at most: Bullet's margins
            box = boxes.ray_test(starts[k], ends[k])
            differ += box is None or abs(box.point[2] - truth.point[2]) > 3e-3
        assert met > 200 and differ > 20  # the bounding boxes would have been met higher, or elsewhere
    finally:
        table.close()


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
    from sim.viewer.control.actions import action

    with _served_and_window() as (table, window):
        for a in ({"action": "pick", "piece": "blue-tower-4"}, {"action": "lift", "mm": 20},
                  {"action": "move-to", "at": [-300, 150]}):
            assert table.submit("blue", a)["ok"], a
            window.apply(action(a, ""))
            for _ in range(60):
                table.step()
                window.frame()
            served = table.controller.carries["blue"].target  # the seat's own hand at the table
            predicted = window.carries["right"].target
            assert np.allclose(predicted[:3], served[:3], atol=1e-5), (a, predicted, served)  # Bullet: microns


def test_the_window_s_predicted_carry_over_the_pieces_rides_where_the_server_s_hand_holds_it():
    """Carried in over another seat's stock (round towers close together): the window's rays meet the pieces'
    shapes, as the server's do, so the piece hovers at the server's height."""
    from sim.viewer.control.actions import action

    with _served_and_window() as (table, window):
        # over green's stock, the carried tower's corners over its round towers' corners: the boxes held it 8 mm
        # higher. (Where the way there passes higher pieces, the hover height is the way's highest as looked up
        # from where the piece was when the world last changed: the server's piece lags its hand, the window's
        # is at its aim, and the two may differ by a few mm until the piece is let go.)
        for a in ({"action": "pick", "piece": "blue-tower-4"}, {"action": "move-to", "at": [330.0, 200.0]}):
            assert table.submit("blue", a)["ok"], a
            window.apply(action(a, ""))
            for _ in range(30 if a["action"] == "pick" else 150):  # the server's hand there and at rest
                table.step()
                window.frame()
        served = table.controller.carries["blue"].target  # the seat's own hand at the table
        predicted = window.carries["right"].target
        assert np.allclose(predicted[:3], served[:3], atol=1e-4), (predicted, served)  # a few microns


@contextlib.contextmanager
def _served_and_window():
    """A served Babylon fast game's table (the server's side) and a window's controller on a NetWorld of it,
    both with every piece where the set-up put it: (table, window)."""
    from sim.net.table import ServedTable, Setup
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
        try:
            yield table, window
        finally:
            window.close()
    finally:
        table.close()
