"""The window's marks in the 3D scene: ghosts of where carried pieces would land and their footprints,
the weakest direction as an arrow on the board, contact points and forces, centres of mass.

Drawn without the live shaders (flat colours), hidden from the light's camera (they cast no shadow).
"""

from __future__ import annotations

import numpy as np
from panda3d.core import LineSegs, NodePath, TransparencyAttrib

from sim.render.graph import SHADOW_MASK
from sim.viewer.control.live import LiveVerdict

GHOST = (0.35, 0.65, 1.0, 0.38)
GHOST_BAD = (1.0, 0.35, 0.25, 0.38)
FOOTPRINT = (0.15, 0.45, 0.95, 1.0)
ARROW_STANDS = (0.10, 0.55, 0.20, 1.0)
ARROW_WEAK = (0.95, 0.55, 0.05, 1.0)
ARROW_FALLS = (0.85, 0.12, 0.10, 1.0)
CONTACT = (0.1, 0.1, 0.1, 1.0)
CONTACT_RING = (1.0, 0.95, 0.3, 1.0)
CONTACT_PX, CONTACT_RING_PX = 6.0, 10.0
"""A contact point's dot and its ring, in pixels whatever the zoom."""
FORCE = (0.85, 0.15, 0.55, 1.0)
CENTRE = (0.05, 0.05, 0.05, 1.0)
WEAK_G = 0.2  # margins below this (g) draw the arrow in warning colour


def margin_color(verdict: LiveVerdict | None):
    """The colour of the stability verdict: green stands, orange weak (below :data:`WEAK_G`), red falls."""
    if verdict is None or not verdict.stands:
        return ARROW_FALLS
    return ARROW_WEAK if verdict.margin_g < WEAK_G else ARROW_STANDS


def arrows_shown(verdict: LiveVerdict | None, show: bool) -> bool:
    """Whether the weakest direction's arrows are drawn: stability marks on, and a verdict of a structure that
    stands with a weakest direction and a margin below the cap (worked out only then: see
    ``Drawing._weakest_arrows``)."""
    from sim.statics import MARGIN_CAP_G

    return bool(show and verdict is not None and verdict.weakest_direction_deg is not None and verdict.stands
                and not verdict.empty and verdict.margin_g < MARGIN_CAP_G)


class Marks:
    """The marks under one node of the window's scene.

    Args:
        parent: the node to put them under (the window's render).
    """

    def __init__(self, parent: NodePath):
        self.root = parent.attach_new_node("towerlab-marks")
        self.root.hide(SHADOW_MASK)
        self.root.set_light_off(1)
        self._ghosts = self.root.attach_new_node("ghosts")
        self._ghosts.set_transparency(TransparencyAttrib.M_alpha)
        self._ghosts.set_depth_write(False)
        self._ghosts.set_bin("fixed", 40)
        self._lines: dict[str, NodePath] = {}

    def _replace(self, name: str, node: NodePath | None) -> None:
        old = self._lines.pop(name, None)
        if old is not None:
            old.remove_node()
        if node is not None:
            node.reparent_to(self.root)
            self._lines[name] = node

    # --- carrying -------------------------------------------------------------------------------

    def carries(self, graph, carries, bad: set[str] = frozenset()) -> None:
        """A ghost and a footprint outline for every carried piece (a :class:`sim.viewer.control.hands.Carry`)."""
        self._ghosts.node().remove_all_children()
        segs = LineSegs("footprints")
        segs.set_thickness(2.0)
        segs.set_color(*FOOTPRINT)
        for c in carries:
            node = graph.nodes.get(c.piece)
            if node is None:
                continue
            ghost = self._ghosts.attach_new_node(f"ghost-{c.piece}")
            for child in node.get_children():
                child.instance_to(ghost)
            x, y, z, qx, qy, qz, qw = (float(v) for v in c.ghost)
            from panda3d.core import LQuaternionf

            ghost.set_pos_quat((x, y, z), LQuaternionf(qw, qx, qy, qz))
            ghost.set_color(*(GHOST_BAD if c.piece in bad else GHOST), 1)
            ghost.set_shader_off(OVERRIDE_GHOST)
            outline = np.vstack([c.outline, c.outline[:1]]) + [0.0, 0.0, 4e-4]
            segs.move_to(*outline[0])
            for p in outline[1:]:
                segs.draw_to(*p)
        self._replace("footprints", NodePath(segs.create()) if carries else None)

    # --- stability ------------------------------------------------------------------------------

    def weakest(self, verdict: LiveVerdict | None, arrows, show: bool) -> None:
        """The weakest direction as arrows on the board, one per structure the weakest mode moves: ``arrows``
        (tail (2,) m, height m, length m) each."""
        if not arrows_shown(verdict, show) or not arrows:
            self._replace("arrow", None)
            return
        a = np.radians(verdict.weakest_direction_deg)
        d = np.array([np.cos(a), np.sin(a)])
        side = np.array([-d[1], d[0]])
        segs = LineSegs("weakest")
        segs.set_thickness(4.0)
        segs.set_color(*margin_color(verdict))
        for centre, floor, size in arrows:
            z = floor + 6e-4
            tail = np.asarray(centre, dtype=float)
            tip = tail + d * size
            segs.move_to(tail[0], tail[1], z)
            segs.draw_to(tip[0], tip[1], z)
            for s in (1.0, -1.0):
                barb = tip - d * size * 0.22 + side * s * size * 0.14
                segs.move_to(tip[0], tip[1], z)
                segs.draw_to(barb[0], barb[1], z)
        self._replace("arrow", NodePath(segs.create()))

    def contacts(self, verdict: LiveVerdict | None, forces, show_points: bool, scale: float) -> None:
        """The statics' contact points and one set of forces holding the structure (``forces``:
        (points (k, 3), forces (k, 3) N) or None), drawn over the pieces at a size in pixels: a contact lies
        between two pieces, where the pieces would hide it, and a mark in millimetres vanishes as the camera
        draws away."""
        if not show_points or verdict is None:
            self._replace("contacts", None)
            return
        node = NodePath("contacts")
        points = [p for f in verdict.interfaces for p in np.asarray(f.polygon)]
        if points:
            for size, colour in ((CONTACT_RING_PX, CONTACT_RING), (CONTACT_PX, CONTACT)):
                _screen_points(np.asarray(points), size, colour).reparent_to(node)
        if forces is not None and len(forces[0]):
            where, vectors = forces
            segs = LineSegs("forces")
            segs.set_thickness(3.0)
            segs.set_color(*FORCE)
            peak = float(np.max(np.linalg.norm(vectors, axis=1)))
            for p, v in zip(where, vectors):
                segs.move_to(*p)
                segs.draw_to(*(p + v / max(peak, 1e-9) * scale))
            node.attach_new_node(segs.create())
        node.set_depth_test(False)
        node.set_depth_write(False)
        node.set_bin("fixed", 45)
        self._replace("contacts", node)

    def centres(self, world, show: bool, size: float) -> None:
        """A small cross at every piece's centre of mass."""
        if not show:
            self._replace("centres", None)
            return
        from scipy.spatial.transform import Rotation

        segs = LineSegs("centres")
        segs.set_thickness(2.0)
        segs.set_color(*CENTRE)
        for pid, pose in zip(world.ids, world.poses()):
            c = pose[:3] + Rotation.from_quat(pose[3:]).apply(world.piece(pid).shape.com)
            for axis in np.eye(3) * size:
                segs.move_to(*(c - axis))
                segs.draw_to(*(c + axis))
        node = NodePath(segs.create())
        node.set_depth_test(False)
        node.set_bin("fixed", 50)
        self._replace("centres", node)


OVERRIDE_GHOST = 200  # the ghost's flat colour beats the live shader's override


def _screen_points(points: np.ndarray, pixels: float, colour) -> NodePath:
    """Square dots ``pixels`` wide (on screen, at any distance) at world ``points`` (k, 3)."""
    from panda3d.core import Geom, GeomNode, GeomPoints, GeomVertexData, GeomVertexFormat, GeomVertexWriter

    data = GeomVertexData("points", GeomVertexFormat.get_v3(), Geom.UH_static)
    data.set_num_rows(len(points))
    writer = GeomVertexWriter(data, "vertex")
    for p in points:
        writer.add_data3(float(p[0]), float(p[1]), float(p[2]))
    prim = GeomPoints(Geom.UH_static)
    prim.add_next_vertices(len(points))
    geom = Geom(data)
    geom.add_primitive(prim)
    node = GeomNode("points")
    node.add_geom(geom)
    out = NodePath(node)
    out.set_render_mode_thickness(pixels)
    out.set_render_mode_perspective(False)
    out.set_color(*colour)
    return out
