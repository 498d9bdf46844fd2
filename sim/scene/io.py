"""Load, validate and save scene files (``towerlab-scene/1``).

Every problem becomes a :class:`~sim.errors.SceneError` naming the file, the
field and what was expected. Saving is atomic and writes the Talo shorthand
and Euler angles back as they were given, so a scene round-trips unchanged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from sim.atomic import write_text
from sim.errors import SceneError, ShapeError, UnknownKindError
from sim.geometry.transforms import canonical_quat, euler_to_quat
from sim.jsontext import READ_ERRORS, dumps_one_per_line, unreadable
from sim.limits import FileRefusedError, read_text
from sim.names import RESERVED_IDS
from sim.pieces import DEFAULT_BOARD, KINDS, MM
from sim.pieces import board as catalogue_board
from sim.pieces.boards import BOARDS
from sim.scene import schema
from sim.scene.grid import SHORTHAND_KINDS, grid_pose
from sim.scene.model import GridPlacement, Piece, Scene
from sim.scene.overlap import refuse_overlaps
from sim.scene.schema import got
from sim.tol import tol

G_CM3 = 1000.0
SAVE_DIGITS = 6
"""Decimals of the millimetres (and degrees) a saved scene keeps: nanometres, far below any tolerance."""


def where_id(i: int) -> str:
    """The field path of piece i's id."""
    return f"pieces[{i}].id"


def load_scene(path, *, solid: bool = False) -> Scene:
    """Read and validate a scene file.

    Args:
        path: the file.
        solid: also refuse pieces that interpenetrate each other or the board (deeper than
            ``tol.overlap``), as every command that analyses a scene does
            (:func:`~sim.scene.overlap.refuse_overlaps`).

    Raises:
        SceneError: the file cannot be read or is not a valid scene (or, with ``solid``,
            not one of solid pieces).
    """
    path = Path(path)
    scene = from_dict(read_json(path), str(path), base=path.parent)
    return refuse_overlaps(scene) if solid else scene


def read_json(path, kind: str = "scene"):
    """The parsed content of a JSON file of towerlab's (a scene, a game script: ``kind``, a key of
    :data:`sim.limits.LIMITS`), read by the one policy for users' files (a regular file within its limit).

    Raises:
        SceneError: the file cannot be read, is no regular file, is too large, or is not JSON it can hold.
    """
    source = str(path)
    try:
        text = read_text(path, kind)
    except FileRefusedError as e:
        raise SceneError(source, "", e.reason) from None
    return parse_json(text, source)


def parse_json(text: str, source: str = "<scene>"):
    """JSON text as data; ``source`` names it in errors.

    Raises:
        SceneError: not JSON, nested too deeply to read, or holding an integer of too many digits.
    """
    try:
        return json.loads(text)
    except READ_ERRORS as e:
        raise SceneError(source, "", unreadable(e)) from None


def loads(text: str, source: str = "<scene>", *, base=None) -> Scene:
    """Parse and validate a scene from JSON text; ``source`` names it in errors, ``base`` as in :func:`from_dict`."""
    return from_dict(parse_json(text, source), source, base=base)


def from_dict(data, source: str = "<scene>", *, base=None) -> Scene:
    """Validate a scene given as parsed JSON data.

    Args:
        data: the parsed JSON.
        source: names the scene in errors.
        base: the folder that file names in it (a ``mesh`` piece's ``file``) are relative to:
            the scene file's folder; the current one when None.
    """
    if not isinstance(data, dict):
        raise SceneError(source, "", f"expected a JSON object, got {type(data).__name__}")
    pieces_raw = data.get("pieces")
    if isinstance(pieces_raw, list) and len(pieces_raw) > schema.MAX_PIECES:
        raise SceneError(source, "pieces", f"{len(pieces_raw)} pieces, more than the {schema.MAX_PIECES} "
                                           "a scene may hold")
    try:
        header = schema.SceneHeader.model_validate(data)
    except ValidationError as e:
        raise SceneError(source, *schema.first_error(e)) from None
    board_name = header.board if header.board is not None else DEFAULT_BOARD[header.game]
    if board_name not in BOARDS:
        raise SceneError(source, "board", f"expected one of {', '.join(BOARDS)}, got {got(board_name)}")
    pieces = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(header.pieces):
        piece = _piece(raw, f"pieces[{i}]", header.game, board_name, header.players, source, base)
        if piece.id in RESERVED_IDS:
            raise SceneError(source, where_id(i), f"{got(piece.id)} is reserved for the board and table; "
                                                  "choose another id")
        if piece.id in seen:
            raise SceneError(source, where_id(i),
                             f"duplicate id {got(piece.id)} (first used by pieces[{seen[piece.id]}])")
        seen[piece.id] = i
        pieces.append(piece)
    return Scene(header.game, board_name, tuple(pieces), header.title, header.notes, header.players, source)


def _piece(raw, where: str, game: str, board_name: str, players, source: str, base) -> Piece:
    if not isinstance(raw, dict):
        raise SceneError(source, where, f"expected a piece object, got {got(raw)}")
    kind = raw.get("kind")
    if kind is None:
        raise SceneError(source, f"{where}.kind", "required field is missing")
    if not isinstance(kind, str) or kind not in KINDS:
        raise SceneError(source, f"{where}.kind", f"expected one of {', '.join(KINDS)}, got {got(kind)}")
    spec = KINDS[kind]
    if game != "free" and spec.game not in (game, "generic"):
        raise SceneError(source, f"{where}.kind",
                         f"{kind} is not a piece of {game}; use game \"free\" to mix games")
    try:
        m = schema.PIECE_MODELS[kind].model_validate(raw)
    except ValidationError as e:
        raise SceneError(source, *schema.first_error(e, where)) from None
    given = m.model_fields_set
    params = {p.name: getattr(m, p.name) for p in spec.params if p.required or p.name in given}
    for p in spec.params:
        if p.value == "file" and p.name in params:
            params[p.name] = str(Path(os.path.abspath(Path(base or ".") / params[p.name])))
    if players is not None and m.owner is not None and m.owner not in players:
        raise SceneError(source, f"{where}.owner", f"expected one of the players {', '.join(players)}, "
                                                   f"got {got(m.owner)}")
    if m.rot is not None and m.quat is not None:
        raise SceneError(source, f"{where}.quat", "give either rot or quat, not both")
    grid = _grid_placement(m, kind, where, source)
    if grid is not None:
        b = catalogue_board(board_name)
        if b.grid is None:
            raise SceneError(source, f"{where}.cell", f"the grid shorthand needs a Talo board "
                                                      f"(talo-green or talo-island), not \"{board_name}\"")
        try:
            pos, quat = grid_pose(kind, params, grid, b.grid)
        except UnknownKindError as e:
            raise SceneError(source, where, str(e)) from None
        rot = None
    else:
        if m.pos is None:
            missing = "pos" + (" (or cell and layer)" if kind in SHORTHAND_KINDS else "")
            raise SceneError(source, f"{where}.pos", f"required field is missing: {missing}")
        pos = tuple(x * MM for x in m.pos)
        rot = m.rot
        if rot is not None:
            quat = tuple(float(x) for x in euler_to_quat(rot))
        elif m.quat is not None:
            quat = _unit_quat(m.quat)
        else:
            quat = (0.0, 0.0, 0.0, 1.0)
    piece = Piece(
        id=m.id, kind=kind, params=params, pos=pos, quat=quat, owner=m.owner, fixed=m.fixed,
        friction=m.friction, density=None if m.density is None else m.density * G_CM3, grid=grid, rot=rot)
    try:
        piece.shape  # noqa: B018 - built now (cached), so that a piece's geometry is checked with the file
    except ShapeError as e:
        raise SceneError(source, f"{where}.{e.field}", e.reason) from None
    return piece


def _unit_quat(q) -> tuple[float, float, float, float]:
    """Normalise a quaternion unless it already is (so a saved quaternion loads back bit for bit).

    It is scaled by its largest component first, so that no square overflows or vanishes.
    """
    norm2 = sum(x * x for x in q)
    if abs(norm2 - 1.0) > tol.unit_quat or q[3] < 0:
        q = canonical_quat(np.asarray(q) / np.abs(q).max())
    return tuple(float(x) for x in q)


def _grid_placement(m, kind: str, where: str, source: str) -> GridPlacement | None:
    cell = getattr(m, "cell", None)
    layer = getattr(m, "layer", None)
    axis = getattr(m, "axis", None)
    if cell is None and layer is None and axis is None:
        return None
    for name in ("pos", "rot", "quat"):
        if getattr(m, name) is not None:
            raise SceneError(source, f"{where}.{name}", "give either the grid shorthand (cell, layer) "
                                                        f"or {name}, not both")
    if cell is None:
        raise SceneError(source, f"{where}.cell", "required field is missing (layer and axis need cell)")
    if layer is None:
        raise SceneError(source, f"{where}.layer", "required field is missing (cell needs layer)")
    if SHORTHAND_KINDS[kind] and axis is None:
        raise SceneError(source, f"{where}.axis", "required field is missing (a block on the grid needs "
                                                  "axis x, y or z)")
    return GridPlacement(cell, layer, axis)


# --- saving -------------------------------------------------------------------

def _num(x: float) -> float | int:
    """A float for JSON: nanometre-rounded mm, integers without a decimal point."""
    r = round(float(x), SAVE_DIGITS)
    return int(r) if r == int(r) else r


def _value(v):
    """A parameter's value for JSON: numbers as :func:`_num`, lists (of lists) of them too."""
    if isinstance(v, tuple):
        return [_value(x) for x in v]
    return _num(v) if isinstance(v, float) else v


def _file_name(path: str, base) -> str:
    """A file's path as a scene file in ``base`` names it: relative to it (POSIX separators) when it can be."""
    if base is None:
        return path
    try:
        return Path(os.path.relpath(path, os.path.abspath(base))).as_posix()
    except ValueError:  # another drive (Windows): only the absolute path names it
        return path


def params_to_dict(p: Piece, base=None) -> dict:
    """A piece's parameters as a file writes them (lists, not tuples; file names relative to ``base``, the folder
    it is saved in, absolute if None): what an ``add`` action or a scene file takes back."""
    files = {q.name for q in KINDS[p.kind].params if q.value == "file"}
    return {k: _file_name(v, base) if k in files else _value(v) for k, v in p.params.items()}


def piece_to_dict(p: Piece, base=None) -> dict:
    """The file form of one piece; file names relative to ``base`` (the folder it is saved in), absolute if None."""
    d: dict = {"id": p.id, "kind": p.kind, **params_to_dict(p, base)}
    if p.grid is not None:
        d["cell"] = list(p.grid.cell)
        d["layer"] = p.grid.layer
        if p.grid.axis is not None:
            d["axis"] = p.grid.axis
    else:
        d["pos"] = [_num(x / MM) for x in p.pos]
        if p.rot is not None:
            d["rot"] = [_num(x) for x in p.rot]
        elif not np.allclose(p.quat, (0.0, 0.0, 0.0, 1.0), atol=0.0, rtol=0.0):
            d["quat"] = [float(x) for x in p.quat]  # full precision: saving and loading is a fixed point
    if p.owner is not None:
        d["owner"] = p.owner
    if p.fixed:
        d["fixed"] = True
    if p.friction is not None:
        d["friction"] = p.friction
    if p.density is not None:
        d["density"] = round(p.density / G_CM3, 9)
    return d


def to_dict(scene: Scene, base=None) -> dict:
    """The file form of a scene; file names relative to the folder ``base`` (absolute when None)."""
    d: dict = {"format": schema.FORMAT, "game": scene.game, "board": scene.board}
    for k in ("title", "notes"):
        if getattr(scene, k) is not None:
            d[k] = getattr(scene, k)
    if scene.players is not None:
        d["players"] = list(scene.players)
    d["pieces"] = [piece_to_dict(p, base) for p in scene.pieces]
    return d


def dumps(scene: Scene, base=None) -> str:
    """The scene as JSON text, one piece per line (diff-friendly); file names as :func:`to_dict`."""
    return dumps_one_per_line(to_dict(scene, base), "pieces")


def save_scene(scene: Scene, path) -> Path:
    """Write a scene file atomically (file names relative to its folder); returns its path."""
    return write_text(path, dumps(scene, Path(path).parent))
