"""The window client's world (sim.net.window.NetWorld): the server's poses, the window's own carries predicted,
and rays cast at all pieces at once that find what the viewer's PosedWorld finds, one by one."""

from __future__ import annotations

import numpy as np

from sim.net.window import NetWorld
from sim.viewer.play.games import new_game
from sim.viewer.posed import PosedWorld


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
    for a, b in zip([one.ray_test(s, e) for s, e in zip(starts, ends)], many.ray_tests(starts, ends)):
        assert (a is None) == (b is None)
        if a is not None:
            hits += 1
            assert a.piece == b.piece and np.allclose(a.point, b.point) and np.allclose(a.normal, b.normal)
            assert np.isclose(a.distance, b.distance)
    assert hits > 20
