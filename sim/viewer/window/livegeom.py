"""The live picture's geometry: the renderer's triangles indexed, and round pieces with fewer of them.

llvmpipe shades vertices and sets up triangles on a single thread, and a
Babylon city lists 100 000 vertices and 33 000 triangles as the renderer
keeps them (three vertices a triangle, finely tessellated nobles). The live
copy of the scene graph draws the same pieces with:

- each distinct vertex once (an indexed triangle list): a noble's smooth body
  shares most of its vertices;
- the position of a box's vertices in its own frame kept in a column of its own
  (:data:`LOCAL`), for its eased edges once the batch has moved the positions;
- the body of every piece that has a smaller one
  (:func:`sim.render.surfaces.simple_body`): nobles and pawns 140 triangles
  instead of 382 (12-sided instead of 24), towers and bridges their flat faces
  triangulated afresh (172 to 108, 204 to 148: the same solid). The
  full-quality picture keeps the renderer's own.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    Geom,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    InternalName,
    NodePath,
)

from sim.render.graph import geom_node, is_box
from sim.render.surfaces import BODY, simple_body

LOCAL = "local"
"""A box's vertex column holding its position in the piece's own frame (the live shader eases its edges
there): the batch of resting pieces (:mod:`sim.viewer.window.batch`) flattens positions into the world, not it."""


class LiveGeometry:
    """Indexed and simplified geometry, made once per geometry and per piece kind."""

    def __init__(self):
        self._indexed: dict = {}
        self._simple: dict = {}

    def dress(self, node: NodePath, shape, simplify: bool = True) -> None:
        """Give a piece's live node (a copy of the renderer's) its live geometry: ``shape``'s simpler body
        where it has one (with ``simplify``), every geometry indexed, a box's with its :data:`LOCAL` column."""
        body = self._body(shape) if simplify else None
        local = is_box(shape)
        for path in node.find_all_matches("**/+GeomNode"):
            geom_node_ = path.node()
            simple = body if body is not None and geom_node_.get_name() == f"{shape.name}:{BODY}" else None
            for k in range(geom_node_.get_num_geoms()):
                geom = simple if simple is not None else self.indexed(geom_node_.get_geom(k), local)
                if geom is not None:
                    geom_node_.set_geom(k, geom)

    def _body(self, shape):
        key = id(shape)
        if key not in self._simple:
            surface = simple_body(shape)
            geom = None
            if surface is not None:
                node = geom_node(f"{shape.name}:{BODY}:simple", surface.positions, surface.normals, surface.colors)
                geom = self.indexed(node.get_geom(0))
            self._simple[key] = (shape, geom)  # the shape kept alive: its id stays its own
        return self._simple[key][1]

    def indexed(self, geom, local: bool = False):
        """The same triangles with each distinct vertex once (indexed), and with ``local`` the :data:`LOCAL`
        column, made once per geometry (None for a geometry that is not a plain list of triangles: it stays
        as it is)."""
        key = (id(geom), local)
        if key not in self._indexed:
            vdata = geom.get_vertex_data()
            array = vdata.get_array(0)
            stride = array.get_array_format().get_stride() // 4
            rows = np.frombuffer(memoryview(array), dtype=np.float32).reshape(-1, stride)
            prim = geom.get_primitive(0) if geom.get_num_primitives() == 1 else None
            if (prim is None or prim.is_indexed() or prim.get_num_vertices() != len(rows) or len(rows) % 3
                    or vdata.get_num_arrays() != 1):
                self._indexed[key] = (geom, None)  # not the renderer's plain triangle list: as it is
                return None
            unique, inverse = np.unique(rows, axis=0, return_inverse=True)
            fmt = vdata.get_format()
            if local:  # the positions again, in a column the batch's flattening leaves alone
                fmt, unique = _with_local(fmt), np.hstack([unique, unique[:, :3]])
            data = GeomVertexData(vdata.get_name(), fmt, Geom.UH_static)
            data.unclean_set_num_rows(len(unique))
            data.modify_array_handle(0).copy_data_from(np.ascontiguousarray(unique, dtype=np.float32))
            tris = GeomTriangles(Geom.UH_static)
            tris.set_index_type(Geom.NT_uint32)
            for a, b, c in inverse.reshape(-1, 3).tolist():  # once per kind of piece: a few thousand at most
                tris.add_vertices(a, b, c)
            out = Geom(data)
            out.add_primitive(tris)
            self._indexed[key] = (geom, out)  # the original kept alive: its id stays its own
        return self._indexed[key][1]


def _with_local(fmt: GeomVertexFormat) -> GeomVertexFormat:
    """``fmt`` (one array, positions first) with a :data:`LOCAL` column of three floats after its own."""
    array = GeomVertexArrayFormat(fmt.get_array(0))
    array.add_column(InternalName.make(LOCAL), 3, Geom.NT_float32, Geom.C_other)
    return GeomVertexFormat.register_format(GeomVertexFormat(array))
