"""A carried piece on its way: it clears what lies under and beside its way, and its rays look under its own outline
(a triangle beside a triangle)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.scene import from_dict
from sim.viewer.control.actions import action
from sim.viewer.control.carry import footprint
from sim.viewer.control.controller import Controller


def free(*pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": list(pieces)})


def box(pid, size, pos):
    return {"id": pid, "kind": "box", "size": list(size), "pos": list(pos)}


@pytest.mark.parametrize("gap_mm", [1.0, 2.0, 3.0])
def test_a_piece_carried_past_a_corner_a_few_millimetres_off_its_way_does_not_strike_it(gap_mm):
    """A 40 x 20 mm brick carried diagonally onto a 70 mm plinth passes the corner of a brick lying on a
    pedestal as high, ``gap_mm`` off its swept outline (Tohuwabohu: a brick carried onto level 3 past the one
    beside its place): the hand does not keep it on the line to the millimetre, so it goes over."""
    x = gap_mm - 2.8  # the post's corner gap_mm off the corner of the brick's swept outline
    c = Controller(free(box("plinth", (80, 60, 70), (0, 40, 35)), box("pedestal", (60, 30, 69), (x, -22, 34.5)),
                        box("post", (40, 20, 20), (x, -22, 79)), box("brick", (40, 20, 20), (190, -93, 10))),
                   threaded=False)
    before = c.world.pose("post").copy()
    for name, fields in (("pick", {"piece": "brick"}), ("move-to", {"at": [0.0, 18.0]}), ("drop", {})):
        c.apply(action(name, **fields))
        c.run_until_quiet()
    assert np.allclose(c.world.pose("post"), before, atol=1e-5)  # never touched
    assert c.world.pose("brick")[:3] == pytest.approx([0.0, 0.018, 0.08], abs=1e-3)  # on the plinth


def test_a_footprints_rays_lie_under_the_piece_itself_not_its_whole_box():
    from sim.scene import Piece

    tri = Piece("t", "tohuwabohu.level", {"shape": "tri"})
    fp = footprint(tri.shape.vertices, (0.0, 0.0, 0.0, 1.0))
    x, y = fp.samples[:, 0], fp.samples[:, 1]
    from scipy.spatial import ConvexHull, Delaunay

    outline = tri.shape.vertices[:, :2]
    hull = Delaunay(outline[ConvexHull(outline).vertices])
    assert (hull.find_simplex(np.column_stack([x, y])) >= 0).all()  # every ray under the triangle
    box_area = np.prod(2 * fp.half)
    assert len(fp.samples) < 0.75 * 81 and box_area > 0  # fewer than the box's grid: its empty corners left out
