"""Tohuwabohu's computer players: each order card built as its example construction, the area cleared where
it is in the way (pure).

Every card has an example construction that provably fulfils it and provably
stands (:data:`sim.games.tohuwabohu.examples.EXAMPLES`, the card illustrations'
own). A player builds its open card's example as a *plan*: the example's
pieces (its *slots*, lowest first) set somewhere on the area (its *anchor*:
a shift and a quarter turn), each slot filled by a free piece of the same
kind, colour and size (from the supply first), the pieces of the area in its
way taken away first (back where the set-up laid them, the highest first), and
once every slot is filled and the card is not fulfilled (something else on the
area breaks it: "exactly 5 levels"), the other pieces taken away too. A plan
costs a move a slot to fill and a move a piece to take away; the card is
fulfilled soonest by the plan that costs least.

A piece of the kind a slot needs that lies under others is dug out (what
stands on it taken away first, counted in the plan's cost). The area is
shared: a piece that fills a slot of a rival's cheapest plan costs
:data:`CONTEST` moves more to take away (the rival would set it back on its
turn, as two players building over each other's pieces did, turn after turn,
fulfilling nothing).

- **Greedy** weighs the anchors at the middle of the area and a quarter of the
  way to each side, either way round, and makes the next move of the cheapest
  plans; a position is worth :data:`CARD` a card fulfilled, less the moves its
  card still costs, less :data:`CONTEST` for each piece of a rival's plan its
  move took away. Where the rules allow a swap (basic and advanced games, once
  a turn) it swaps its card when the card's cheapest plan costs more moves than
  a card costs on average on an empty area (:func:`fresh_cost`: the examples'
  pieces, 12.4): a card buried in a rival's construction, or a long one.
- **Planning** also weighs the anchors that set the example onto pieces the
  area has already (a construction someone left: its lower levels reused), and
  weighs every move by its risk of collapse.

The professional variant: the cheapest of the three open cards, "Stop!" the
moment one of them is fulfilled (the referee judges the claim).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np

from sim.bots.position import Position
from sim.bots.tactic import Option, Tactic, terminal_value
from sim.games.play.state import PlayState
from sim.games.play.still import HOME_M
from sim.graphs import reached
from sim.scene import Piece, Scene

CARD = 100.0
"""What a card fulfilled is worth (in moves: more than any card costs)."""
MATCH_M = 0.004
"""How close (m) a piece's box corners come to a slot's for it to fill the slot."""
AREA_HALF = 0.14
"""Half the side of the playing area (m): an anchored example stays inside it."""
SHIFT = 0.07
"""How far (m) from the middle the greedy's other anchors lie."""
EXTRA_TRIES = 8
"""Pieces of the area whose taking away the player tries with the referee once its plan is complete (the one
whose going fulfils the card is taken first)."""
UNREACHABLE = 1e6
"""The cost of a plan that cannot be carried out (pieces of a kind missing)."""
CONTEST = 3.0
"""What taking away a piece of a rival's construction costs, in moves, besides the move itself: the rival sets it
back on its turn, and the piece must be taken again (two players building over each other's pieces fulfil
nothing)."""
SHORTCUTS = True
"""A piece's way back beside the area is worked out alone (the one placement of the listing's that the player
asks for: where the set-up laid it, free on the table), an area's support graph and the statics' verdict on it
are remembered (:data:`MEMO` areas), and a plan's search for the pieces in its way reads the table's solids once:
the same answers for less. False: the whole listing asked and everything worked out again, the reference the
bench and the tests compare against."""
MEMO = 256
"""Areas whose support graph and statics a player remembers (the same area comes back: the position a move
leaves is weighed again by the next move, and the area without a piece by each move that takes it away)."""


@dataclass(frozen=True)
class Slot:
    """One piece of an example construction.

    Attributes:
        key: what a piece must be to fill it (kind and parameters).
        piece: the example's piece where the example has it (the anchor's frame).
        below: the slots it rests on (indices).
    """

    key: tuple
    piece: Piece
    below: tuple[int, ...]


_REMEMBERED: dict[tuple, object] = {}
"""(what, the pieces in play as (id, position, quaternion) each) -> the support graph or the pieces the statics
could not hold, the oldest first (:data:`MEMO` of each)."""


def _remembered(what: str, play: list[Piece], make):
    """``make()``, remembered for the same pieces in play at the same poses (:data:`SHORTCUTS`)."""
    if not SHORTCUTS:
        return make()
    key = (what, tuple((p.id, tuple(p.pos), tuple(p.quat)) for p in play))
    if key not in _REMEMBERED:
        _REMEMBERED[key] = make()
        if len(_REMEMBERED) > 2 * MEMO:
            del _REMEMBERED[next(iter(_REMEMBERED))]
    return _REMEMBERED[key]


def _unheld(play: Scene) -> frozenset[str]:
    """The pieces of ``play`` (the pieces in play) the statics cannot hold."""
    from sim.games.tohuwabohu.referee import physics_scene
    from sim.statics import analyze

    built = physics_scene(play) if play.pieces else None
    return frozenset(analyze(built, margin=False).unheld) if built and built.pieces else frozenset()


def key_of(piece: Piece) -> tuple:
    """What makes two pieces interchangeable: kind and parameters."""
    return piece.kind, tuple(sorted((k, str(v)) for k, v in piece.params.items()))


@cache
def blueprint(card: str) -> tuple[Slot, ...]:
    """The slots of ``card``'s example construction, lowest first (each after those it rests on)."""
    from sim.analysis import support_graph
    from sim.games.tohuwabohu.examples import EXAMPLES

    scene = EXAMPLES[card]().scene()
    graph = support_graph(scene)
    bottom = {p.id: float(_corners(p)[:, 2].min()) for p in scene.pieces}
    order = sorted(scene.pieces, key=lambda p: (bottom[p.id], p.id))
    index = {p.id: k for k, p in enumerate(order)}
    return tuple(Slot(key_of(p), p, tuple(sorted(index[i] for i in graph.rests_on(p.id) if i in index)))
                 for p in order)


def _corners(piece: Piece) -> np.ndarray:
    from sim.geometry.transforms import transform_points

    return transform_points(np.asarray(piece.shape.box_corners), piece.pos, piece.quat)


def anchored(piece: Piece, anchor) -> Piece:
    """An example's piece moved by ``anchor`` (dx, dy m, quarter turns about the vertical through the middle)."""
    from scipy.spatial.transform import Rotation

    dx, dy, quarters = anchor
    turn = Rotation.from_euler("z", 90.0 * quarters, degrees=True)
    pos = turn.apply(piece.pos) + (dx, dy, 0.0)
    quat = (turn * Rotation.from_quat(piece.quat)).as_quat()
    return piece.moved(tuple(float(x) for x in pos), tuple(float(q) for q in quat))


def same_place(a: Piece, b: Piece) -> bool:
    """Whether two pieces of one kind fill the same space (their box corners within :data:`MATCH_M`)."""
    ca, cb = _corners(a), _corners(b)
    d = np.linalg.norm(ca[:, None, :] - cb[None, :, :], axis=2)
    return float(d.min(axis=1).max()) <= MATCH_M


@dataclass(frozen=True)
class Plan:
    """A card's example construction at an anchor, read against the table.

    Attributes:
        card: the card.
        anchor: (dx, dy, quarter turns).
        targets: the slots' pieces where the plan sets them (slot order).
        filled: slot index -> the table piece that fills it.
        obstacles: pieces of the area in the way of a slot still to fill, the highest first.
        cost: moves to the card (slots to fill and pieces to take away); :data:`UNREACHABLE` when pieces are
            missing.
    """

    card: str
    anchor: tuple
    targets: tuple[Piece, ...]
    filled: Mapping[int, str]
    obstacles: tuple[str, ...]
    cost: float


class Table:
    """What a Tohuwabohu plan reads of the table, read once per position.

    Args:
        pos: the position.
    """

    def __init__(self, pos: Position):
        from sim.analysis import support_graph

        self.scene: Scene = pos.scene
        self.free = set(pos.supply)
        self.movable = set(pos.pieces)  # the pieces a hand may take now (the pro variant's highest level)
        self.play = [p for p in self.scene.pieces if p.id not in self.free]
        built = self.scene.with_pieces(self.play)
        self.graph = _remembered("graph", self.play, lambda: support_graph(built)) if self.play else None
        self.on_area = {p.id for p in self.play}
        self._obstacles: dict[tuple, object] = {}

    def unheld(self) -> frozenset[str]:
        """The pieces in play the statics cannot hold (while any cannot, the area fulfils no card)."""
        if not hasattr(self, "_unheld"):
            self._unheld = _remembered("unheld", self.play, lambda: _unheld(self.scene.with_pieces(self.play)))
        return self._unheld

    def _solids(self, scene: Scene, ignore: set[str]):
        """The solids of ``scene`` (pieces of the area) but ``ignore`` (:class:`~sim.scene.overlap.Obstacles`), read
        once per table (:data:`SHORTCUTS`)."""
        from sim.scene.overlap import Obstacles

        if not SHORTCUTS:
            return Obstacles(scene, ignore=ignore)
        key = (tuple(scene.ids), frozenset(ignore))
        if key not in self._obstacles:
            self._obstacles[key] = Obstacles(scene, ignore=ignore)
        return self._obstacles[key]

    def joined(self, pieces) -> set[str]:
        """The pieces in play joined to ``pieces`` by contacts (their structure, as the support graph sees it)."""
        return reached((p for p in pieces if p in self.on_area),
                       lambda p: (i for i in self.graph.touching(p) if i in self.on_area))

    def carries(self, piece: str) -> list[str]:
        """The pieces standing on ``piece`` (in play)."""
        return [] if self.graph is None else [i for i in self.graph.carries(piece) if i in self.on_area]

    def above(self, pieces) -> list[str]:
        """``pieces`` and everything standing on them, the highest first."""
        return sorted(reached(pieces, self.carries),
                      key=lambda i: (-float(_corners(self.scene.piece(i))[:, 2].max()), i))

    def plan(self, card: str, anchor, theirs: frozenset[str] = frozenset()) -> Plan:
        """``card``'s example at ``anchor`` against this table (``theirs``: the pieces of the rivals' constructions,
        each in the way costing :data:`CONTEST` moves more)."""
        slots = blueprint(card)
        targets = tuple(anchored(s.piece, anchor) for s in slots)
        filled: dict[int, str] = {}
        used: set[str] = set()
        for k, (slot, target) in enumerate(zip(slots, targets)):
            for p in self.play:
                if p.id not in used and key_of(p) == slot.key and same_place(p, target):
                    filled[k] = p.id
                    used.add(p.id)
                    break
        stray = [p for p in self.play if p.id not in used]
        blocking: set[str] = set()
        if stray:
            scene = self.scene.with_pieces(stray)
            for k, target in enumerate(targets):
                if k in filled:
                    continue
                ignore: set[str] = set()
                while (clash := self._solids(scene, ignore).overlap(target, (*target.pos, *target.quat))) \
                        is not None and clash.a in scene.ids:
                    blocking.add(clash.a)
                    ignore.add(clash.a)
        need: dict[tuple, int] = {}
        for k, slot in enumerate(slots):
            if k not in filled:
                need[slot.key] = need.get(slot.key, 0) + 1
        dig, taken = self._dig(need, used, set(self.above(blocking)))
        obstacles = tuple(self.above(blocking | dig)) if taken is not None else ()
        contested = sum(1 for p in obstacles if p in theirs) + sum(1 for p in taken or () if p in theirs)
        cost = UNREACHABLE if taken is None else \
            float(len(slots) - len(filled) + len(obstacles) + CONTEST * contested)
        return Plan(card, tuple(anchor), targets, filled, obstacles, cost)

    def _dig(self, need: Mapping[tuple, int], used: set[str], away: set[str]):
        """The pieces to take away so that every slot to fill has a piece of its kind a hand may take, and the
        pieces taken from under others for it: ``(pieces to take away, the buried pieces used)``, ``(set(),
        None)`` when the table has too few. A piece in the supply, or in play with nothing on it once ``away``
        is taken away, is free; a piece under others is dug out (what stands on it taken away), the least to
        take away first, never from under the plan's own ``used`` pieces."""
        free: dict[tuple, int] = {}
        buried: dict[tuple, list[str]] = {}
        for p in self.scene.pieces:
            if p.id in used:
                continue
            key = key_of(p)
            if p.id in self.free or p.id in away or not set(self.carries(p.id)) - away:
                free[key] = free.get(key, 0) + 1
            else:
                buried.setdefault(key, []).append(p.id)
        dig: set[str] = set()
        taken: list[str] = []
        for key, n in need.items():
            short = n - free.get(key, 0)
            if short <= 0:
                continue
            picks = []
            for pid in buried.get(key, ()):
                up = set(self.above(self.carries(pid))) - away
                if not up & used:
                    picks.append((len(up - dig), pid, up))
            if len(picks) < short:
                return set(), None
            for _, pid, up in sorted(picks)[:short]:
                dig |= up
                taken.append(pid)
        return dig, taken

    def fits(self, card: str, anchor) -> bool:
        """Whether the example at ``anchor`` lies inside the area."""
        for s in blueprint(card):
            c = _corners(anchored(s.piece, anchor))
            if np.abs(c[:, :2]).max() > AREA_HALF:
                return False
        return True


class TohuwabohuTactic(Tactic):
    """Tohuwabohu, every variant (see the module docstring).

    Args:
        game, variant: as for :class:`~sim.bots.tactic.Tactic`.
    """

    greedy_width = 2
    plan_width = 3
    risk_weight = 20.0  # a collapse costs the pieces that fall (moves to set them again)

    def __init__(self, game: str, variant: str):
        super().__init__(game, variant)
        self.pro = variant == "pro"

    # --- reading ---

    def my_cards(self, view, player: str) -> list[str]:
        """The open cards of ``player`` not yet fulfilled."""
        me = next(p for p in view["players"] if p["name"] == player)
        return [c["id"] for c in me["open"]]

    def anchors(self, table: Table, card: str, planning: bool) -> list[tuple]:
        """The anchors weighed for ``card`` (see the module docstring)."""
        out = [(0.0, 0.0, q) for q in (0, 1)]
        out += [(dx, dy, q) for dx, dy in ((SHIFT, 0.0), (-SHIFT, 0.0), (0.0, SHIFT), (0.0, -SHIFT)) for q in (0, 1)]
        if planning:
            out += self._aligned(table, card)
        return [a for a in dict.fromkeys(out) if table.fits(card, a)]

    def _aligned(self, table: Table, card: str) -> list[tuple]:
        """Anchors that set the example's lowest slots onto pieces of the area of their kind."""
        out = []
        for slot in blueprint(card)[:3]:
            for p in table.play:
                if key_of(p) != slot.key:
                    continue
                for q in range(4):
                    turned = anchored(slot.piece, (0.0, 0.0, q))
                    a = (round(p.pos[0] - turned.pos[0], 6), round(p.pos[1] - turned.pos[1], 6), q)
                    if same_place(anchored(slot.piece, a), p):
                        out.append(a)
        return out

    def plans(self, pos: Position, planning: bool) -> list[Plan]:
        """Every plan weighed for the player's open cards, cheapest first."""
        table = _table(pos)
        theirs = self.theirs(pos)
        out = [table.plan(card, a, theirs) for card in self.my_cards(pos.view, pos.player)
               for a in self.anchors(table, card, planning)]
        return sorted(out, key=lambda p: p.cost)

    def theirs(self, pos: Position) -> frozenset[str]:
        """The pieces of the area that fill a slot of a rival's cheapest plan (the greedy's anchors): what a
        rival has built towards its card, and would set back if taken away."""

        def find() -> frozenset[str]:
            table = _table(pos)
            out: set[str] = set()
            for rival in (p["name"] for p in pos.view["players"] if p["name"] != pos.player):
                plans = [table.plan(card, a) for card in self.my_cards(pos.view, rival)
                         for a in self.anchors(table, card, False)]
                best = min(plans, key=lambda p: p.cost, default=None)
                if best is not None and best.cost < UNREACHABLE:
                    out.update(best.filled.values())
            return frozenset(out)

        return pos.memo("tohuwabohu-theirs", find)

    # --- moves ---

    def options(self, pos: Position) -> list[Option]:
        return self._options(pos, planning=False)

    def plan_options(self, pos: Position) -> list[Option]:
        return self._options(pos, planning=True)

    def _options(self, pos: Position, planning: bool) -> list[Option]:
        view = pos.view
        out: list[Option] = []
        if self.pro and any(c["fulfilled"] for p in view["players"] if p["name"] == pos.player for c in p["open"]):
            out.append(Option({"action": "stop"}, CARD, "stop: a card is fulfilled"))
        plans = self.plans(pos, planning)
        done = CARD * _done(view, pos.player)
        seen = set()
        for plan in plans[:4]:
            if plan.cost >= UNREACHABLE:
                break
            for action, label in self._next(pos, plan)[:2]:
                key = str(action)
                if key not in seen:
                    seen.add(key)
                    out.append(Option(action, done - plan.cost + 1, f"{plan.card}: {label}",
                                      {"card": plan.card, "anchor": list(plan.anchor), "cost": plan.cost}))
        if SWAP in pos.actions:
            cost = plans[0].cost if plans else UNREACHABLE
            out.append(Option(SWAP, done - fresh_cost(), f"swap the card: it costs {min(cost, 999):g} moves, a card "
                              f"of the pile {fresh_cost():.1f} on average", {"cost": cost}))
        if not out:
            out.append(Option({"action": "wait", "seconds": float(view["time_left"])}, -UNREACHABLE,
                              "nothing to build: the time runs out"))
        return sorted(out, key=lambda o: -o.quick)

    def _next(self, pos: Position, plan: Plan) -> list[tuple[dict, str]]:
        """The next moves of ``plan``: a piece in the way taken away, else a slot filled (the lowest whose slots
        below are filled), else, every slot filled, another piece of the area taken away."""
        table = _table(pos)
        home = {p.id: p for p in table.play}
        out = []
        for pid in plan.obstacles:
            away = self._away(pos, table, pid)
            if away is not None:
                out.append((away, f"take {pid} away (in the way)"))
        if out:
            return out
        slots = blueprint(plan.card)
        used = set(plan.filled.values())
        for k, slot in enumerate(slots):
            if k in plan.filled or any(b not in plan.filled for b in slot.below):
                continue
            target = plan.targets[k]
            for pid in self._sources(pos, table, slot.key, used):
                out.append(({"action": "place", "piece": pid, "pose": [*target.pos, *target.quat]},
                            f"{pid} to its place (slot {k})"))
                break
        if out or len(plan.filled) < len(slots):
            return out
        extras = [p for p in table.above([i for i in home if i not in used]) if p not in used]
        unheld = table.unheld()
        mine = table.joined(used)
        extras.sort(key=lambda i: (i not in mine, i not in unheld))  # the likeliest to break the card first
        for pid in extras:
            away = self._away(pos, table, pid)
            if away is None:
                continue
            if len(out) < EXTRA_TRIES and _fulfils(pos, away, plan.card):
                return [(away, f"take {pid} away: the card is fulfilled")]
            out.append((away, f"take {pid} away (the card asks no more)"))
        return out[:2]

    def _away(self, pos: Position, table: Table, pid: str) -> dict | None:
        """The move that takes ``pid`` back beside the area, when a hand may take it and everything stays held
        without it (what stands on it stands on something else too: the statics say so), else None."""
        if pid not in table.movable:
            return None
        away = _home_action(pos, pid)
        if away is None or not table.carries(pid):
            return away
        after = Table(Position(pos.after(away).state))
        return away if after.unheld() <= table.unheld() else None

    def _sources(self, pos: Position, table: Table, key, used) -> list[str]:
        """The pieces of ``key`` a slot may take: from the supply first, then the area's that carry nothing and
        fill no slot (of a rival's construction last)."""
        free = [p for p in pos.kinds([i for i in pos.pieces if i in table.free]) if key_of(pos.scene.piece(p)) == key]
        theirs = self.theirs(pos)
        taken = [p.id for p in table.play if key_of(p) == key and p.id not in used and p.id in table.movable
                 and not table.carries(p.id)]
        return free + sorted(taken, key=lambda i: i in theirs)

    def value(self, state: PlayState, player: str, pos: Position) -> float:
        if state.is_terminal:
            return terminal_value(state, player)
        done = state.outcome()["scores"].get(player, 0)
        cards = self.my_cards(pos.view, player)
        after = Position(state)
        table = Table(after)
        now = set(self.my_cards(after.view, player))
        theirs = self.theirs(pos)
        left = [min((table.plan(c, a, theirs).cost for a in self.anchors(table, c, False)), default=UNREACHABLE)
                for c in cards if c in now]
        scene = after.scene
        undone = sum(1 for p in theirs if p not in scene.ids or scene.piece(p).pos != pos.scene.piece(p).pos)
        return CARD * done - (min(left) if left else 0.0) - CONTEST * undone


SWAP = {"action": "swap"}


@cache
def fresh_cost() -> float:
    """The moves an order card costs on an empty area, on average over the cards (its example's pieces): what a
    card of the pile is expected to cost (the pile's order is hidden; it holds a share of every colour)."""
    from sim.games.tohuwabohu.examples import EXAMPLES

    return float(np.mean([len(blueprint(c)) for c in EXAMPLES]))


def _done(view, player: str) -> int:
    return int(next(p for p in view["players"] if p["name"] == player)["done"])


def _table(pos: Position) -> Table:
    return pos.memo("tohuwabohu-table", lambda: Table(pos))


def _fulfils(pos: Position, action, card: str) -> bool:
    """Whether the referee finds ``card`` fulfilled once ``action`` is made."""
    step = pos.after(action)
    return any(e.kind == "card_fulfilled" and e.data.get("card") == card for e in step.events) or (
        card in _open(step.state.view(), pos.player, fulfilled=True))


def _open(view, player: str, fulfilled: bool = False) -> list[str]:
    me = next(p for p in view["players"] if p["name"] == player)
    return [c["id"] for c in me["open"] if c["fulfilled"] or not fulfilled]


def _home_action(pos: Position, piece: str) -> dict | None:
    """The listed placement that takes ``piece`` back beside the area (None when there is none).

    The listing holds it when a hand may take the piece, the piece is in play and not where the set-up laid it,
    and it is free there on the table (:func:`sim.games.play.tohuwabohu_moves.placements`): with
    :data:`SHORTCUTS` that one placement is worked out alone, the pose read off the set-up (the game's own from
    its seed), the table's rule asked of it as the listing asks."""
    set_up = _set_up(pos) if SHORTCUTS else None
    if set_up is None:
        for spot in pos.placements(piece):
            if spot.rule == "supply":
                return spot.action()
        return None
    from sim.games.play.spots import table_refusal
    from sim.scene.overlap import Obstacles

    if piece not in pos.pieces or piece in pos.supply:
        return None
    home = set_up.piece(piece)
    here = pos.scene.piece(piece)
    if tuple(here.pos) == tuple(home.pos):
        return None
    pose = (*home.pos, *home.quat)
    obstacles = pos.memo("tohuwabohu-obstacles-" + piece, lambda: Obstacles(pos.scene, ignore=(piece,)))
    if table_refusal(obstacles, here, pose) is not None:
        return None
    return {"action": "place", "piece": piece, "pose": list(pose)}


@cache
def _set_up_of(game: str, variant: str, players: tuple[str, ...], seed: int) -> Scene:
    from sim.games.registry import new_state

    return new_state(game, variant, list(players), seed).scene()


def _set_up(pos: Position) -> Scene | None:
    """The table as the game's set-up laid it (every piece where a hand takes it back to), or None when the table
    is not that set-up's (a piece in the supply, which lies where the set-up laid it, lies elsewhere there)."""

    def make():
        state = pos.state
        scene = _set_up_of(state.game, state.variant.name, tuple(state.players), int(state.seed))
        same = set(pos.scene.ids) <= set(scene.ids) and all(
            max(abs(a - b) for a, b in zip(pos.scene.piece(i).pos, scene.piece(i).pos)) <= HOME_M
            for i in pos.supply)
        return scene if same else None

    return pos.memo("tohuwabohu-set-up", make)


__all__ = ["Plan", "Slot", "Table", "TohuwabohuTactic", "anchored", "blueprint", "key_of", "same_place"]
