"""Talo's computer players: climb, blockade, and (planning) the die's replies (pure).

A position is read off the grid (:mod:`sim.games.talo`: the layout, the
surfaces, every pawn's routes) and valued for a player as

    6 · (level + reach) − 30 · blockaded   for the player,
    minus the same for the strongest rival,

where *level* is where the pawn stands, *reach* the highest level its routes
reach now (where it can stand by the end of this turn, or, for a rival, at
the start of its next), and *blockaded* that it is shut in for good
(:func:`sim.games.talo.is_blocked`). A won game is worth
:data:`~sim.bots.tactic.WIN`. So a block that lets the pawn climb a level is
worth 6, a step up 6, a block that takes a level from the rival's reach 6,
a blockade 30.

- **Greedy** weighs every listed placement of the blocks the throw allows by
  the position it leaves (blocks far from every pawn's routes change nothing
  and are weighed once), every route of the pawn, and ending the turn; placing
  is worth a little more while the player leads (the game ends when the stock
  is used up, and the highest pawn wins) and a little less while it trails.
- **Planning** plays each of the greedy's best few on: the rest of the turn
  (the blocks left in hand placed as the greedy would, then the pawn to its
  highest spot), then the rival's reply to every throw of the die (each of the
  ten alike; the rival places the one block of the throw's combinations that
  is best for it, near the pawns), and values the position after the reply,
  on average over the throws. The model knows the building rules
  (:func:`sim.games.talo.placement.placement_violations`), not the balance:
  the referee's statics judge that of the move made, and the planning player's
  risk model of the hand (:mod:`sim.bots.risk`) weighs it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sim.bots.position import Position
from sim.bots.tactic import WIN, Option, Tactic, terminal_value
from sim.games.play.state import PlayState
from sim.games.talo import Layout, Terrain, blockaded, layout_of, reachable
from sim.games.talo.board import MAX_LEVEL, PAWN_ROOM
from sim.games.talo.layout import GridBlock, GridPawn
from sim.scene import Scene

CLIMB = 6.0
"""What a level of a pawn's standing or reach is worth."""
BLOCKADE = 30.0
"""What a pawn shut in for good costs its player."""
HURRY = 0.5
"""What placing a block is worth while leading (minus while trailing): the stock's end ends the game."""
NEAR = 1
"""Fields (Chebyshev distance) around a pawn's routes where a block may change what it reaches."""
DIE = tuple(range(1, 11))
"""The faces of the die."""
COMBINATIONS = 2
"""After a throw, the combinations of blocks whose places a player weighs (the model's best)."""
MEMO = 512
"""Positions whose replies a planning player remembers (the grid its turn's rest leaves is often the one a later
move of the turn weighs again)."""
SHORTCUTS = True
"""A block added to the model's grid keeps the routes of the pawns it lies off, the model's blocks are looked for
near the pawns only, and a position's replies are remembered (:data:`MEMO`): the same answers at a fraction of
the cost. False: everything read again, the reference the bench and the tests compare against."""


class Grid:
    """A Talo position as the model sees it: the blocks and pawns on the grid, each pawn's routes.

    A grid made from another by a block or a pawn's move reads again only the fields that changed
    (:meth:`sim.games.talo.Terrain.changed`); whether a pawn is shut in for good is asked again only when the
    block lies beside a pawn (elsewhere the model keeps the answer it had: an approximation of the search, never
    of a move made, whose position the referee judges).

    Args:
        layout: the grid (blocks and pawns).
        players: the pawns' colours, in turn order.
        terrain: the layout's surfaces (default read from it).
        shut: the pawns shut in for good, when known.
    """

    def __init__(self, layout: Layout, players: tuple[str, ...], terrain: Terrain | None = None,
                 shut: frozenset[str] | None = None):
        self.layout = layout
        self.players = players
        self.terrain = Terrain(layout) if terrain is None else terrain
        self._shut = shut
        self._reach: dict = {}
        self._near: dict = {}

    @property
    def key(self) -> tuple:
        """What the model's answers depend on: where the blocks lie and the pawns stand (not the blocks' ids)."""
        return (tuple(sorted((b.length, b.cell, b.layer, b.axis) for b in self.layout.blocks)),
                tuple(sorted((p.color, p.cell, p.level) for p in self.layout.pawns)), self.players)

    def reach(self, color: str):
        """The routes of ``color``'s pawn (:func:`sim.games.talo.reachable`)."""
        if color not in self._reach:
            self._reach[color] = reachable(self.terrain, color)
        return self._reach[color]

    def shut(self, color: str) -> bool:
        """Whether ``color``'s pawn is shut in for good (:func:`sim.games.talo.blockaded`). A pawn with a step to
        take is not (it is neither hemmed in nor, but in a closed tunnel the model overlooks, sealed in), so only
        a pawn that cannot move is asked about."""
        if self._shut is None:
            if all(len(self.reach(c).routes) > 1 for c in self.players if self.layout.pawn(c) is not None):
                return False
            self._shut = blockaded(self.terrain)
        return color in self._shut

    def level(self, color: str) -> int:
        """Where ``color``'s pawn stands (0 without one)."""
        pawn = self.layout.pawn(color)
        return 0 if pawn is None else pawn.level

    def plus(self, *blocks: GridBlock) -> Grid:
        """The grid with ``blocks`` added. A pawn's routes are kept where the blocks lie off every field of them and
        the fields beside (a step goes to a neighbouring field and depends on that field's column alone: the
        routes are the same)."""
        layout = replace(self.layout, blocks=self.layout.blocks + tuple(blocks))
        cells = {v[:2] for b in blocks for v in b.voxels()}
        beside = any(max(abs(c[0] - p.cell[0]), abs(c[1] - p.cell[1])) <= 1 for c in cells for p in layout.pawns)
        out = Grid(layout, self.players, self.terrain.changed(layout, cells), None if beside else self._shut)
        if SHORTCUTS:
            out._reach = {c: r for c, r in self._reach.items() if cells.isdisjoint(self.near_of(c))}
        return out

    def moved(self, color: str, spot) -> Grid:
        """The grid with ``color``'s pawn at ``spot`` (i, j, level)."""
        pawns = tuple(GridPawn(p.id, p.color, (int(spot[0]), int(spot[1])), int(spot[2])) if p.color == color else p
                      for p in self.layout.pawns)
        layout = replace(self.layout, pawns=pawns)
        return Grid(layout, self.players, self.terrain.changed(layout))

    def climbed(self, color: str) -> Grid:
        """The grid with ``color``'s pawn moved to the highest spot it reaches (the nearest of the highest); the grid
        itself while the pawn waits beside the board."""
        if self.layout.pawn(color) is None:
            return self
        reach = self.reach(color)
        best = max(reach.routes, key=lambda s: (s[2], -len(reach.routes[s]), s))
        return self if best == reach.pawn.spot else self.moved(color, best)

    def near_of(self, color: str) -> frozenset[tuple[int, int]]:
        """Fields where a block may change what ``color``'s pawn reaches: every field of its routes and around
        (none without a pawn)."""
        if color not in self._near:
            cells = {s[:2] for s in self.reach(color).routes} if self.layout.pawn(color) is not None else ()
            self._near[color] = frozenset((i + di, j + dj) for i, j in cells for di in range(-NEAR, NEAR + 1)
                                          for dj in range(-NEAR, NEAR + 1))
        return self._near[color]

    def near(self) -> set[tuple[int, int]]:
        """Fields where a block may change what some pawn reaches: every field of a pawn's routes and around."""
        return set().union(*(self.near_of(c) for c in self.players))


def kind_of(block: GridBlock, near: set) -> tuple:
    """What makes two blocks alike to the model: the fields near the pawns they cover, their bottom and top."""
    return frozenset(block.footprint()) & near, block.layer, block.top


def worth(grid: Grid, player: str) -> float:
    """What ``grid`` is worth to ``player`` (see the module docstring)."""

    def standing(color: str) -> float:
        if grid.layout.pawn(color) is None:
            return 0.0
        return CLIMB * (grid.level(color) + grid.reach(color).max_level) - BLOCKADE * grid.shut(color)

    rivals = [standing(c) for c in grid.players if c != player]
    return standing(player) - (max(rivals) if rivals else 0.0)


def grid_of(state: PlayState) -> Grid:
    """The position of ``state`` on the grid (the supply left out)."""
    scene = state.scene()
    built = scene.with_pieces(p for p in scene.pieces if p.id not in state.supply)
    return Grid(layout_of(built), tuple(state.players))


def block_at(scene: Scene, piece: str, pose) -> GridBlock | None:
    """The grid block ``piece`` becomes set down at ``pose`` (None off the grid)."""
    probe = scene.piece(piece).moved(tuple(pose[:3]), tuple(pose[3:]))
    layout = layout_of(Scene("talo", scene.board, (probe,)))
    return layout.blocks[0] if layout.blocks else None


class TaloTactic(Tactic):
    """Talo on the green or the island board (see the module docstring)."""

    greedy_width = 3
    plan_width = 4
    risk_weight = 400.0  # a collapse loses the game (WIN): a sure one costs this much

    def __init__(self, game: str, variant: str):
        super().__init__(game, variant)
        self._replies: dict[tuple, float] = {}  # Grid.key, rival, player, stock -> replies(): the oldest goes first

    def options(self, pos: Position) -> list[Option]:
        me = pos.player
        grid = _grid(pos)
        now = worth(grid, me)
        out = []
        moved = moved_this_turn(pos.state.history)
        for a in pos.actions:
            name = a["action"]
            if name in ("move-pawn", "restart") and moved:
                continue  # a route is a whole walk: walking on before the board changes only loops (level 3 did)
            if name == "start":
                i, j = a["cell"]
                centre = (grid.layout.board.n - 1) / 2
                out.append(Option(a, -abs(i - centre) - abs(j - centre), f"start on {a['cell']}"))
            elif name == "throw":
                out.append(Option(a, now, "throw the die"))
            elif name == "end-turn":
                out.append(Option(a, now, "end the turn", {"worth": now}))
            elif name in ("move-pawn", "restart"):
                spot = (*a["cell"], a.get("level", 0))
                w = worth(grid.moved(me, spot), me)
                out.append(Option(a, w, f"{name} to {list(a['cell'])} at level {spot[2]}", {"worth": w}))
        out += self._placements(pos, grid, me)
        return sorted(out, key=lambda o: -o.quick)

    def _placements(self, pos: Position, grid: Grid, me: str) -> list[Option]:
        near = grid.near()
        lead = np.sign(grid.level(me) - max((grid.level(c) for c in grid.players if c != me), default=0))
        out, seen = [], set()
        for piece in self._worth_listing(pos, grid, me):
            for spot in pos.placements(piece):
                block = block_at(pos.scene, piece, spot.pose)
                if block is None:
                    continue
                key = kind_of(block, near)
                if key in seen:
                    continue  # alike near every route to one weighed already (far from all: alike to any)
                seen.add(key)
                w = worth(grid.plus(block), me) + HURRY * lead
                out.append(Option(spot.action(), w, f"{piece} on {list(block.cell)} at level {block.layer} "
                                                   f"({block.axis})", {"worth": round(w, 3)}))
        return out

    def _worth_listing(self, pos: Position, grid: Grid, me: str) -> list[str]:
        """The pieces whose places are asked of the referee: one of each length, and after a throw only those
        of the :data:`COMBINATIONS` combinations whose best block the model values most (a list costs a tenth
        of a second)."""
        pieces = pos.kinds(pos.pieces)
        options = [tuple(o) for o in pos.view.get("options") or ()]
        if pos.view["phase"] != "take" or len(options) <= COMBINATIONS:
            return pieces
        now = worth(grid, me)
        best = best_blocks(grid, sorted({n for o in options for n in o}), me)
        ranked = sorted(options, key=lambda o: -max(best[n][0] if best[n] else now for n in o))
        keep = {n for o in ranked[:COMBINATIONS] for n in o}
        return [p for p in pieces if int(pos.scene.piece(p).params["length"]) in keep]

    def value(self, state: PlayState, player: str, pos: Position) -> float:
        if state.is_terminal:
            return terminal_value(state, player)
        return worth(grid_of(state), player)

    def lookahead(self, pos: Position, state: PlayState, player: str, rng: np.random.Generator) -> float:
        if state.is_terminal:
            return terminal_value(state, player)
        grid = grid_of(state)
        view = state.view()
        if view["current"] == player:  # the rest of the turn: the hand placed as the greedy would, then climb
            for length in view["hand"]:
                block = best_block(grid, [length], player)
                if block is not None:
                    grid = grid.plus(block)
            grid = grid.climbed(player)
            if grid.level(player) >= MAX_LEVEL:
                return WIN
        rival = _next(grid.players, player)
        if rival is None:
            return worth(grid, player)
        stock = {int(k): v for k, v in view["stock"].items()}
        key = (grid.key, rival, player, tuple(sorted(stock.items())))
        if key not in self._replies or not SHORTCUTS:
            if len(self._replies) >= MEMO:
                self._replies.pop(next(iter(self._replies)))
            self._replies[key] = replies(grid, rival, player, stock)
        return self._replies[key]


def moved_this_turn(history) -> bool:
    """Whether the pawn of the player to move has walked (or restarted) since its turn began or a block was last
    placed (nothing it can reach has changed since)."""
    for a in reversed(history):
        name = a.get("action")
        if name in ("end-turn", "start", "place"):
            return False
        if name in ("move-pawn", "restart"):
            return True
    return False


def _grid(pos: Position) -> Grid:
    return pos.memo("talo-grid", lambda: grid_of(pos.state))


def _next(players: tuple[str, ...], player: str) -> str | None:
    if len(players) < 2:
        return None
    return players[(players.index(player) + 1) % len(players)]


def throw_options(d: int, stock: dict[int, int]) -> list[tuple[int, ...]]:
    """The combinations a throw of ``d`` allows from ``stock`` (length -> left): ``d`` alone, or two that add up
    to it."""
    out = [(d,)] if stock.get(d, 0) else []
    for a in range(1, d // 2 + 1):
        b = d - a
        if (a != b and stock.get(a, 0) and stock.get(b, 0)) or (a == b and stock.get(a, 0) >= 2):
            out.append((a, b))
    return out


def replies(grid: Grid, rival: str, player: str, stock: dict[int, int]) -> float:
    """What ``grid`` is worth to ``player`` after ``rival``'s turn, on average over the ten throws of the die: for
    each throw the rival places the one block of the throw's combinations best for it (:func:`best_blocks`), or
    none, then climbs as high as it can."""
    best = best_blocks(grid, [n for n in DIE if stock.get(n, 0)], rival)
    after: dict[int | None, float] = {}
    total = 0.0
    for d in DIE:
        lengths = {n for o in throw_options(d, stock) for n in o}
        pick = max((n for n in lengths if best.get(n) is not None), key=lambda n: best[n][0], default=None)
        if pick not in after:
            moved = grid.plus(best[pick][1]) if pick is not None else grid
            after[pick] = worth(moved.climbed(rival), player)
        total += after[pick]
    return total / len(DIE)


def best_blocks(grid: Grid, lengths, judge: str) -> dict[int, tuple[float, GridBlock] | None]:
    """Per length, the block near the pawns that leaves the grid worth most to ``judge`` with its worth (None
    when no block of that length is worth more than none), kept by the building rules but balance; blocks alike
    near the pawns (:func:`kind_of`) weighed once."""
    from sim.games.play.talo_moves import grid_candidates

    near = grid.near()
    room = {(*p.cell, p.level + a) for p in grid.layout.pawns for a in range(PAWN_ROOM)}
    occ = grid.layout.occupancy
    now = worth(grid, judge)
    out: dict[int, tuple[float, GridBlock] | None] = {}
    for n in lengths:
        best, seen = None, set()
        for cand in grid_candidates(grid.layout.board, n, occ, near if SHORTCUTS else None):
            key = kind_of(cand, near)
            if not key[0] or key in seen:
                continue
            seen.add(key)
            block = GridBlock(f"model-{len(grid.layout.blocks)}", n, cand.cell, cand.layer, cand.axis, judge)
            if not allowed(grid.layout.board, block, room):
                continue
            w = worth(grid.plus(block), judge)
            if w > now and (best is None or w > best[0]):
                best = (w, block)
        out[n] = best
    return out


def allowed(board, block: GridBlock, room: set) -> bool:
    """The building rules the model keeps for a block :func:`~sim.games.play.talo_moves.grid_candidates` gives
    (free fields, on the board or on a block, within level 10): on land at level 0 (the island's water), and
    clear of every pawn's room."""
    if block.layer == 0 and not all(board.is_land(c) for c in block.footprint()):
        return False
    return not any(v in room for v in block.voxels())


def best_block(grid: Grid, lengths, judge: str) -> GridBlock | None:
    """The block of one of ``lengths`` best for ``judge`` (:func:`best_blocks`), None when none is worth more than
    none."""
    found = [b for b in best_blocks(grid, lengths, judge).values() if b is not None]
    return max(found, key=lambda b: b[0])[1] if found else None


__all__ = ["Grid", "TaloTactic", "allowed", "best_block", "best_blocks", "block_at", "grid_of", "kind_of",
           "moved_this_turn", "replies", "throw_options", "worth"]
