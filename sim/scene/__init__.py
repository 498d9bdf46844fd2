"""Scene files (``towerlab-scene/1``): the frozen in-memory scene, loading, validation, saving."""

from sim.scene.io import dumps, from_dict, load_scene, loads, save_scene, to_dict
from sim.scene.model import GridPlacement, Piece, Scene
from sim.scene.overlap import Overlap, find_overlaps, refuse_overlaps
from sim.scene.schema import FORMAT, MAX_PIECES

__all__ = ["FORMAT", "MAX_PIECES", "GridPlacement", "Overlap", "Piece", "Scene", "dumps", "find_overlaps",
           "from_dict", "load_scene", "loads", "refuse_overlaps", "save_scene", "to_dict"]
