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

from functools import cache

import numpy as np

from sim.bots import tohuwabohu_plan
from sim.bots.position import Position
from sim.bots.tactic import Option, Tactic, terminal_value
from sim.bots.tohuwabohu_plan import CONTEST, UNREACHABLE, Plan, Table, anchored, blueprint, key_of, same_place
from sim.games.play.state import PlayState
from sim.games.play.still import HOME_M
from sim.scene import Scene

CARD = 100.0
"""What a card fulfilled is worth (in moves: more than any card costs)."""
SHIFT = 0.07
"""How far (m) from the middle the greedy's other anchors lie."""
EXTRA_TRIES = 8
"""Pieces of the area whose taking away the player tries with the referee once its plan is complete (the one
whose going fulfils the card is taken first)."""


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
    :data:`~sim.bots.tohuwabohu_plan.SHORTCUTS` that one placement is worked out alone, the pose read off the
    set-up (the game's own from its seed), the table's rule asked of it as the listing asks."""
    set_up = _set_up(pos) if tohuwabohu_plan.SHORTCUTS else None
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


__all__ = ["TohuwabohuTactic", "fresh_cost"]
