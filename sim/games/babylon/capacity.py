"""How many pieces a tactical player can still place in one turn (the rule of four), shown by example.

The rulebook ends the game when a player cannot place four pieces, and makes a
player who can place four do so. Whether four fit is answered with a witness:
:func:`plan_turn` builds the pieces of one legal turn (at most five) on the
building as it stands, and :func:`placeable` counts them. So the answer never
claims a placement that does not exist (a property test places every witness
and judges it with the turn rules); it may miss an exotic one, and then a
player who places none ends the game although a cleverer turn existed.

The witness is built from these moves, greedily, in two orders (nobles first,
or towers first) of which the longer counts:

- a tower on a free spot: a tower top or a bridge's end or centre with
  nothing on it and nothing over it up to a level higher;
- a bridge across two free spots at one height, two cells apart in line,
  square to both, its arch over nothing at that height, not congruent with
  the bridge below;
- a noble on a tower with room for one more of the player's (a large one
  only alone, small ones two to a tower, three with five players, never two
  of a colour) and space on the top beside the nobles there.

The first player of the first round builds on the empty table (no nobles, two
levels at most); every other player's first turn must widen the base: a
column of towers on the table beside a free spot, a bridge from its top onto
that spot, towers on the new bridge.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from shapely.geometry import MultiPoint, Polygon

from sim.games.babylon.building import CELL, LEVEL, Layout, Part, read_part
from sim.games.babylon.placement import congruent_pairs, max_small_per_tower
from sim.games.babylon.supply import BRIDGE, NOBLE, TOWER, Pieces
from sim.geometry.transforms import euler_to_quat, transform_points
from sim.pieces import MM
from sim.pieces import dimensions as dim
from sim.scene import Piece
from sim.tol import tol

TURN_MIN, TURN_MAX = 4, 5
FIRST_PLAYER_LEVELS = 2  # the starting player builds at most this high in the first round
NOBLE_ROOM = 0.3e-3  # m kept between two nobles' bases, and between a base and a tower top's edge
_SPOTS_MM = ((0.0, 0.0), (-6.2, 0.0), (6.2, 0.0), (0.0, -6.2), (0.0, 6.2), (-6.2, -6.2), (6.2, 6.2),
             (6.2, -6.2), (-6.2, 6.2), (0.0, 5.9))  # where on a tower top a new noble may go (tower frame)


def free_towers(layout: Layout) -> list[str]:
    """Upright towers with nothing at all on them: no building part and no noble (they take a tower or a bridge end)."""
    return [t for t, p in layout.parts.items() if p.is_tower and p.upright and not layout.carries(t)]


@dataclass
class _Spot:
    """Where a piece could stand: a tower's top or one cell of a bridge's top (working record)."""

    xy: np.ndarray
    z: float  # height of the surface (m)
    yaw: float
    tower: str | None  # the tower's id when this is a tower top
    nobles: list = field(default_factory=list)  # (xy, radius, size, colour) of the nobles on it
    covered: bool = False  # a building part stands on it
    part: str | None = None  # the part whose top it is (None: the table)

    @property
    def level(self) -> int:
        return max(0, round(self.z / LEVEL))

    @property
    def takes_part(self) -> bool:
        return not self.covered and not self.nobles


@dataclass
class _Site:
    """The building as the plan sees it, growing as pieces are added to it."""

    spots: list[_Spot]
    boxes: list[tuple[Polygon, float, float]]  # footprint, bottom, top of every piece (m)
    parts: dict[str, Part]
    scene_pieces: dict[str, Piece]
    player: str
    n_players: int
    hand: Pieces
    ids: set[str]
    placed: list[Piece] = field(default_factory=list)

    def new_id(self, stem: str) -> str:
        k = len(self.placed)
        while f"{self.player}-{stem}{k}" in self.ids:
            k += 1
        self.ids.add(f"{self.player}-{stem}{k}")
        return f"{self.player}-{stem}{k}"

    def clear(self, outline: Polygon, bottom: float, top: float, area: float | None = None) -> bool:
        """Whether nothing occupies ``outline`` between the heights ``bottom`` and ``top`` (m).

        Overlaps seen from above up to ``area`` (m², default a cell's ``tol.babylon_cover``)
        are slivers of contact, not in the way.
        """
        slack = tol.babylon_cell
        area = _cover() if area is None else area
        for poly, b, t in self.boxes:
            if b < top - slack and t > bottom + slack and poly.intersection(outline).area > area:
                return False
        return True

    def add(self, piece: Piece) -> None:
        self.placed.append(piece)
        self.scene_pieces[piece.id] = piece
        self.boxes.append(_box(piece))


def _cover() -> float:
    return tol.babylon_cover * CELL * CELL


def _box(piece: Piece) -> tuple[Polygon, float, float]:
    world = transform_points(piece.shape.vertices, piece.pos, piece.quat)
    return MultiPoint(world[:, :2]).convex_hull, float(world[:, 2].min()), float(world[:, 2].max())


def _square(xy, yaw: float, half: float) -> Polygon:
    c = np.radians(yaw)
    u = np.array([np.cos(c), np.sin(c)]) * half
    v = np.array([-u[1], u[0]])
    o = np.asarray(xy, dtype=float)
    return Polygon([o - u - v, o + u - v, o + u + v, o - u + v])


def _piece(kind: str, pid: str, xy, bottom: float, yaw: float, owner: str | None, params=None) -> Piece:
    params = params or {}
    quat = tuple(float(q) for q in euler_to_quat((0.0, 0.0, float(yaw))))
    probe = Piece(pid, kind, params)
    half = float(probe.shape.extent[2]) / 2
    return Piece(pid, kind, params, (float(xy[0]), float(xy[1]), bottom + half), quat, owner=owner)


def _site(layout: Layout, player: str, hand: Pieces, n_players: int) -> _Site:
    scene = layout.scene
    spots = []
    for pid, part in layout.parts.items():
        if not part.upright:
            continue
        over = [layout.outline(i) for i in layout.carries(pid)]
        nobles = [(n.xy, _radius(n.size), n.size, n.color) for n in layout.nobles_on(pid)] if part.is_tower else []
        for k in range(len(part.cells)):
            covered = any(i in layout.parts for i in layout.carries(pid)) if part.is_tower else any(
                part.cell_square(k).intersection(o).area > _cover() for o in over)
            loose = part.is_tower and any(i in layout.nobles and layout.tower_of(i) != pid for i in layout.carries(pid))
            spots.append(_Spot(part.cells[k].copy(), part.top, part.yaw, pid if part.is_tower else None,
                               list(nobles), covered or loose, pid))
    boxes = [_box(p) for p in scene.pieces]
    return _Site(spots, boxes, dict(layout.parts), {p.id: p for p in scene.pieces}, player, n_players, hand,
                 set(scene.ids))


def _radius(size: str) -> float:
    return dim.BABYLON_NOBLE[size]["base_radius"] * MM


# --- the moves ----------------------------------------------------------------------


def _tower_on(site: _Site, spot: _Spot) -> bool:
    """Stand a tower on ``spot`` if it is free and nothing is in the way."""
    if site.hand.towers < 1 or not _takes_tower(site, spot):
        return False
    piece = _piece(TOWER, site.new_id("t"), spot.xy, spot.z, spot.yaw, site.player)
    site.add(piece)
    site.parts[piece.id] = read_part(piece)
    spot.covered = True
    site.spots.append(_Spot(spot.xy.copy(), spot.z + LEVEL, spot.yaw, piece.id, part=piece.id))
    site.hand = site.hand - Pieces(towers=1)
    return True


def _takes_tower(site: _Site, spot: _Spot) -> bool:
    """Whether a tower may stand on ``spot``: nothing on it, nothing over it up to a level higher."""
    return spot.takes_part and site.clear(_square(spot.xy, spot.yaw, CELL / 2 * 0.98), spot.z, spot.z + LEVEL)


def _noble_room(site: _Site, spot: _Spot, size: str, color: str, limits: bool = True):
    """Nobles of ``size`` and ``color`` standing on ``spot`` where there is room beside those there, in the order
    tried (its centre first); with ``limits``, only on a tower top and within the tactical game's rules (a large
    noble alone, small ones two to a tower, three with five players, never two of a colour)."""
    if spot.covered or (limits and spot.tower is None):
        return
    if limits:
        if any(c == color for *_, c in spot.nobles) or "large" in [n[2] for n in spot.nobles]:
            return
        if (size == "large" and spot.nobles) or len(spot.nobles) >= max_small_per_tower(site.n_players):
            return
    r = _radius(size)
    c, s = np.cos(np.radians(spot.yaw)), np.sin(np.radians(spot.yaw))
    for dx, dy in _SPOTS_MM:
        d = np.array([dx, dy]) * MM
        if np.abs(d).max() + r + NOBLE_ROOM > CELL / 2:
            continue
        xy = spot.xy + np.array([c * d[0] - s * d[1], s * d[0] + c * d[1]])
        if any(np.linalg.norm(xy - other) < r + rr + NOBLE_ROOM for other, rr, *_ in spot.nobles):
            continue
        piece = _piece(NOBLE, f"{color}-noble", xy, spot.z, 0.0, None, {"size": size, "color": color})
        outline, bottom, top = _box(piece)
        if site.clear(outline, bottom + tol.babylon_cell, top, area=0.0):
            yield piece


def _noble_on(site: _Site, spot: _Spot, size: str) -> bool:
    """Stand one of the player's nobles of ``size`` on the tower top ``spot`` if the rules and the room allow."""
    if getattr(site.hand, size) < 1:
        return False
    for piece in _noble_room(site, spot, size, site.player):
        r = _radius(size)
        xy = np.asarray(piece.pos[:2])
        piece = replace(piece, id=site.new_id("n"))
        site.add(piece)
        spot.nobles.append((xy, r, size, site.player))
        site.hand = site.hand - (Pieces(small=1) if size == "small" else Pieces(large=1))
        return True
    return False


def _bridge_between(site: _Site, a: _Spot, b: _Spot, pid: str | None = None) -> tuple[Piece, float, float] | None:
    """(a bridge from spot ``a`` to spot ``b``, the height of its bottom (m), its yaw (degrees)), if the spots are
    free, in line, at one height, the way is clear and it lies over no bridge congruently; else None. Its id is
    ``pid``, else a new one."""
    if a is b or not (a.takes_part and b.takes_part):
        return None
    if abs(a.z - b.z) > tol.babylon_cell:
        return None
    d = b.xy - a.xy
    if abs(float(np.linalg.norm(d)) - 2 * CELL) > tol.babylon_cell:
        return None
    yaw = float(np.degrees(np.arctan2(d[1], d[0]))) % 360.0
    if any(min((yaw - s.yaw) % 90.0, 90.0 - (yaw - s.yaw) % 90.0) > np.degrees(tol.babylon_square) for s in (a, b)):
        return None
    middle = (a.xy + b.xy) / 2
    z = max(a.z, b.z)
    arch = _square(middle, yaw, CELL / 2 * 0.98)
    if any(abs(t - z) <= tol.babylon_cell and poly.intersection(arch).area > _cover() for poly, _, t in site.boxes):
        return None  # the arch would stand on it
    if not all(site.clear(_square(xy, yaw, CELL / 2 * 0.98), z, z + LEVEL) for xy in (a.xy, middle, b.xy)):
        return None
    piece = _piece(BRIDGE, pid or site.new_id("b"), middle, z, yaw, site.player)
    if congruent_pairs([*site.parts.values(), read_part(piece)], [piece.id]):
        return None
    return piece, z, yaw


def _bridge_on(site: _Site, a: _Spot, b: _Spot) -> bool:
    """Lay a bridge from spot ``a`` to spot ``b`` if they are free, in line, at one height and the way is clear."""
    if site.hand.bridges < 1:
        return False
    made = _bridge_between(site, a, b)
    if made is None:
        return False
    piece, z, yaw = made
    part = read_part(piece)
    site.add(piece)
    site.parts[piece.id] = part
    a.covered = b.covered = True
    site.spots += [_Spot(part.cells[k].copy(), z + LEVEL, yaw, None, part=piece.id) for k in range(3)]
    site.hand = site.hand - Pieces(bridges=1)
    return True


def _step(site: _Site, move: str) -> bool:
    """Make one move of the kind ``move`` (``noble``, ``tower``, ``bridge``) somewhere; whether one was made."""
    spots = sorted(site.spots, key=lambda s: (-s.z, s.xy[0], s.xy[1]))
    if move == "noble":
        return any(_noble_on(site, s, size) for size in ("large", "small") for s in spots)
    if move == "tower":
        return any(_tower_on(site, s) for s in spots)
    return any(_bridge_on(site, a, b) for a in spots for b in spots)


def _greedy(layout: Layout, player: str, hand: Pieces, n_players: int, order: tuple[str, ...]) -> list[Piece]:
    site = _site(layout, player, hand, n_players)
    while len(site.placed) < TURN_MAX and any(_step(site, m) for m in order):
        pass
    return site.placed


# --- the first round -----------------------------------------------------------------


def _first_player(player: str, hand: Pieces) -> list[Piece]:
    """The starting player on the empty table, at most two levels high."""
    made: list[Piece] = []

    def put(kind, x, y, level, yaw=0.0):
        made.append(_piece(kind, f"{player}-{kind.split('.')[1][0]}{len(made)}", (x * CELL, y * CELL),
                           level * LEVEL, yaw, player))

    t, b = hand.towers, hand.bridges
    if b >= 3 and t >= 2:  # two bridges, a third across their ends, towers on the other ends
        put(BRIDGE, 0, 0, 0), put(BRIDGE, 0, 2, 0), put(BRIDGE, -1, 1, 1, 90.0)
        put(TOWER, 1, 0, 1), put(TOWER, 1, 2, 1)
    elif b >= 2 and t >= 1:  # a bridge, a tower beside it, a bridge from the bridge's end onto the tower
        put(BRIDGE, 0, 0, 0), put(TOWER, 3, 0, 0), put(BRIDGE, 2, 0, 1)
        for x in (-1, 0)[:t - 1]:
            put(TOWER, x, 0, 1)
    elif b >= 1:  # a bridge and towers on its spots
        put(BRIDGE, 0, 0, 0)
        for x in (-1, 0, 1)[:t]:
            put(TOWER, x, 0, 1)
    else:  # towers on one another
        for level in range(min(t, FIRST_PLAYER_LEVELS)):
            put(TOWER, 0, 0, level)
    return made[:TURN_MAX]


def _widening(layout: Layout, player: str, hand: Pieces, n_players: int) -> list[Piece]:
    """A later player's first turn: a column on the table beside a free spot, a bridge onto it, towers on that."""
    best: list[Piece] = []
    base = layout.base()
    probe = _site(layout, player, hand, n_players)
    for k, spot in enumerate(probe.spots):
        if not spot.takes_part or spot.level < 1 or spot.level + 1 > min(TURN_MAX, hand.towers + 1):
            continue
        for turn in (0.0, 90.0, 180.0, 270.0):
            site = _site(layout, player, hand, n_players)
            start = site.spots[k]
            c = np.radians(spot.yaw + turn)
            foot = spot.xy + 2 * CELL * np.array([np.cos(c), np.sin(c)])
            if base.intersection(_square(foot, spot.yaw, CELL / 2)).area > _cover():
                continue  # the column must stand beside the building: that widens its base
            ground = _Spot(foot, 0.0, spot.yaw, None)
            site.spots.append(ground)
            column = ground
            for _ in range(spot.level):
                if not _tower_on(site, column):
                    break
                column = site.spots[-1]
            if column.level != spot.level or not _bridge_on(site, start, column):
                continue
            for s in site.spots[-3:]:
                if len(site.placed) < TURN_MAX:
                    _tower_on(site, s)
            if len(site.placed) > len(best):
                best = site.placed
    return best


def plan_turn(layout: Layout, player: str, hand: Pieces, n_players: int, first_round: bool) -> list[Piece]:
    """The pieces of one legal turn for ``player`` (at most five), or fewer when no four fit.

    Args:
        layout: the building before the turn.
        player: whose turn it is.
        hand: the pieces the player holds.
        n_players: 3, 4 or 5.
        first_round: whether the first round's restrictions apply.

    Returns:
        New pieces (ids not in the scene, the player's), each placed by the rules;
        the longest witness found (see the module docstring).
    """
    if not layout.scene.pieces:
        return _first_player(player, hand)
    if first_round:
        return _widening(layout, player, replace(hand, small=0, large=0), n_players)
    plans = [_greedy(layout, player, hand, n_players, order)
             for order in (("noble", "bridge", "tower"), ("tower", "noble", "bridge"))]
    plans.append(_widening(layout, player, hand, n_players))
    return max(plans, key=len)


def placeable(layout: Layout, player: str, hand: Pieces, n_players: int, first_round: bool) -> int:
    """How many pieces (up to five) ``player`` can certainly place in one turn: the length of :func:`plan_turn`."""
    return len(plan_turn(layout, player, hand, n_players, first_round))


def spot_placements(layout: Layout, piece: Piece, n_players: int, *, fast: bool = False
                    ) -> list[tuple[Piece, str, tuple[str, ...]]]:
    """Every spot of the building as it stands where ``piece`` may go by the placement rules, as the witness's
    moves find them (the same free spots, the same room), each tried rather than the first.

    - A tower on every free spot: ``tower-top`` or ``bridge-spot``, square to what it stands on (with
      ``fast``, turned each of the four ways: a tower's opening counts in the fast game's expert scoring).
    - A bridge across every two free spots at one height, two cells apart in line, square to both, its arch
      over nothing, not congruent with the bridge below: ``bridge`` (once per pair: turned less than 180°).
    - A noble on every tower top with room beside the nobles there, by the tactical game's limits (a large
      one alone, small ones two to a tower, three with five players, never two of a colour):
      ``noble-on-tower``; with ``fast``, without the limits (the fast game scores them, it does not forbid
      them), and on the bridges' spots too: ``noble-on-bridge``.

    Table spots are not among them (the caller knows its table).

    Args:
        layout: the building (the player's pieces owned or not).
        piece: the piece to place (a tower, a bridge or a noble, with its id and parameters).
        n_players: 3, 4 or 5.
        fast: the fast game's nobles.

    Returns:
        (the piece where it would stand, its id kept; the rule that allows it; the parts it stands on).
    """
    site = _site(layout, piece.owner or piece.params.get("color") or "", Pieces(), n_players)
    out = []
    if piece.kind == TOWER:
        for spot in site.spots:
            if _takes_tower(site, spot):
                for turn in (0.0, 90.0, 180.0, 270.0) if fast else (0.0,):
                    placed = _piece(TOWER, piece.id, spot.xy, spot.z, (spot.yaw + turn) % 360.0, piece.owner)
                    out.append((placed, "tower-top" if spot.tower else "bridge-spot", (spot.part,)))
    elif piece.kind == BRIDGE:
        for a in site.spots:
            for b in site.spots:
                made = _bridge_between(site, a, b, piece.id)
                if made is not None and made[2] < 180.0 - 1e-6:
                    out.append((replace(made[0], owner=piece.owner), "bridge", (a.part, b.part)))
    elif piece.kind == NOBLE:
        size, color = piece.params["size"], piece.params["color"]
        for spot in site.spots:
            for placed in _noble_room(site, spot, size, color, limits=not fast):
                rule = "noble-on-tower" if spot.tower else "noble-on-bridge"
                out.append((replace(placed, id=piece.id), rule, (spot.part,)))
    return out
