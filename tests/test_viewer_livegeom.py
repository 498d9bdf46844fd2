"""The live picture's geometry (Panda3D nodes, no window): indexed, and the simpler bodies of round pieces."""

from __future__ import annotations

from panda3d.core import NodePath

from sim.render.graph import GeomLibrary, SceneGraph
from sim.render.surfaces import piece_surfaces, simple_body
from sim.scene import from_dict
from sim.viewer.window.livegeom import LiveGeometry


def _triangles(node) -> int:
    return sum(g.node().get_geom(k).get_primitive(0).get_num_primitives()
               for g in node.find_all_matches("**/+GeomNode") for k in range(g.node().get_num_geoms()))


def test_the_live_copy_draws_the_simpler_bodies_indexed_and_the_renderers_own_stay():
    scene = from_dict({"format": "towerlab-scene/1", "game": "babylon", "pieces": [
        {"id": "t", "kind": "babylon.tower", "pos": [0, 0, 10]},
        {"id": "n1", "kind": "babylon.noble", "size": "small", "color": "red", "pos": [0, 0, 20]},
        {"id": "n2", "kind": "babylon.noble", "size": "small", "color": "red", "pos": [40, 0, 0]}]})
    graph = SceneGraph(scene, GeomLibrary())
    live = graph.root.copy_to(NodePath("live"))
    geometry = LiveGeometry()
    for p in scene.pieces:
        geometry.dress(live.find(p.id), p.shape)
    for p in scene.pieces:
        own, copy = graph.nodes[p.id], live.find(p.id)
        assert _triangles(own) == piece_surfaces(p.shape)[0].triangles  # the full-quality picture's: untouched
        assert _triangles(copy) == simple_body(p.shape).triangles < _triangles(own)
        prim = copy.find("**/+GeomNode").node().get_geom(0).get_primitive(0)
        assert prim.is_indexed()
    first = live.find("n1").find("**/+GeomNode").node().get_geom(0)
    assert live.find("n2").find("**/+GeomNode").node().get_geom(0) == first  # made once per kind (the same Geom)


def test_a_box_keeps_its_own_frame_through_the_flattening_of_the_batch():
    """The live shader eases a box's edges in the box's own frame: the batch of resting pieces flattens
    positions into the world, and must leave that column alone (else every batched block is all edge)."""
    import numpy as np
    from panda3d.core import GeomVertexReader

    from sim.viewer.window.livegeom import LOCAL

    scene = from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": [
        {"id": "b", "kind": "talo.block", "length": 3, "cell": [4, 4], "layer": 0, "axis": "x"}]})
    graph = SceneGraph(scene, GeomLibrary())
    live = graph.root.copy_to(NodePath("live"))
    LiveGeometry().dress(live.find("b"), scene.pieces[0].shape)
    live.find("b").set_pos(0.3, -0.2, 0.05)
    live.flatten_strong()
    data = live.find("**/+GeomNode").node().get_geom(0).get_vertex_data()
    rows = {}
    for column in ("vertex", LOCAL):
        reader = GeomVertexReader(data, column)
        rows[column] = np.array([tuple(reader.get_data3()) for _ in range(data.get_num_rows())])
    half = np.asarray(scene.pieces[0].shape.extent) / 2
    np.testing.assert_allclose(np.abs(rows[LOCAL]).max(axis=0), half, atol=1e-6)  # still the box's own frame
    np.testing.assert_allclose(rows["vertex"] - rows[LOCAL], np.tile([0.3, -0.2, 0.05], (len(rows[LOCAL]), 1)),
                               atol=1e-6)  # while the positions moved into the world
