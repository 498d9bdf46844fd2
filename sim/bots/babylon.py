"""Babylon's tactical game (and the expert one) for computer players: legal turns, majorities, and (planning)
the rivals' nobles (pure).

A turn is 4 or 5 pieces that leave the building connected and standing, so a
move is only as good as the turn it can still be part of:

- **The first round** (no nobles; the first player low, every other widening
  the base) is played as the rule of four's witness builds it
  (:func:`sim.games.babylon.capacity.plan_turn`: a legal turn by
  construction), each piece tried with the referee; the random player builds
  random turns instead (:func:`random_turn`).
- **Later**, a player sets its pieces down one a decision, each from the
  listed placements, and ends the turn once four or five are down: a fifth
  piece is set down only where the turn can end after it (the end is tried
  with the referee), and a turn that cannot be ended is taken back and built
  as the witness builds it.

A position is worth to a player its score as it stands (the level
majorities, minus a point per bridge left: the referee's own majority table)
minus the best rival's, and a little for height: :data:`HEIGHT` a level of
each tower set down this turn (towers are where nobles will score). The
greedy player weighs each placement by that; the planning player then lets
each rival, in turn, set up to :data:`REPLY_NOBLES` nobles where they gain
most, on the free tower tops as the listed placements show them, and values
the position after the replies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from sim.bots.position import Position
from sim.bots.tactic import WIN, Option, Tactic, terminal_value
from sim.games.play.state import PlayState

HEIGHT = 0.05
"""What each level of a tower set down this turn is worth (a tie-break among towers: height is where nobles
score)."""
ASIDE = 1.5
"""What a part set on the table beside the building costs once the turn has begun (after the first round): it
joins the building only if something set on it later also rests on the building, else the turn cannot end."""
REPLY_NOBLES = 2
"""Nobles each rival sets in the planning player's model of the replies."""
TURN_MIN, TURN_MAX = 4, 5
"""Pieces a turn places."""
RANDOM_TURNS = 12
"""Random turns the random player builds before it turns to the witness's."""
KINDS = ("towers", "bridges", "small", "large")
TABLE_CHANCE = {True: 0.3, False: 0.1}
"""The chance that a random piece goes on the table rather than the building, in the first round (every turn
there widens the base) and later."""


class TacticalTactic(Tactic):
    """Babylon's tactical and expert games (see the module docstring)."""

    greedy_width = 2
    plan_width = 3
    risk_weight = 20.0  # an unstable turn is refused and must be built again; a knocked piece is put back
    local_risk = True  # 140 pieces: an exact verdict a sample costs a tenth of a second

    def options(self, pos: Position) -> list[Option]:
        view = pos.view
        me = pos.player
        placed = list(view["placed"])
        if view["first_round"] or self._stuck(pos):
            witness = witness_turn(pos)
            if witness is not None:
                return [witness]
        out = []
        end = {"action": "end-turn"}
        if len(placed) >= TURN_MIN and pos.accepts(end):
            out.append(Option(end, self._worth(view, me, ()), "end the turn"))
        if len(placed) < TURN_MAX:
            out += self._placements(pos, view, me)
        if not out:
            out.append(Option({"action": "take-back"}, -WIN / 4, "take the turn back: it cannot be ended"))
        return sorted(out, key=lambda o: -o.quick)

    def _stuck(self, pos: Position) -> bool:
        """This player took this turn back (it could not be ended): the witness's turn now."""
        for a in reversed(pos.state.history):
            if a.get("action") == "end-turn":
                return False
            if a.get("action") == "take-back":
                return True
        return False

    def _placements(self, pos: Position, view, me: str) -> list[Option]:
        out = []
        n = len(view["placed"])
        for piece in pos.kinds([p for p in pos.pieces if p in pos.supply]):
            probe = pos.scene.piece(piece)
            kind = kind_of(probe)
            for spot in pos.placements(piece):
                level = level_of(probe, spot.pose)
                if kind in ("small", "large"):
                    added = ((level, me),)
                    w = self._worth(view, me, added)
                elif kind == "bridges":
                    w = self._worth(view, me, (), bridges=1) + HEIGHT * level
                else:
                    w = self._worth(view, me, ()) + HEIGHT * (level + 1)
                if spot.rule == "table" and n and not view["first_round"]:
                    w -= ASIDE  # beside the building, not on it: joined only by what follows, if anything
                out.append(Option(spot.action(), w, f"{piece} ({spot.rule}) at level {level}",
                                  {"level": level, "rule": spot.rule}))
        return out

    def _worth(self, view, me: str, nobles, bridges: int = 0) -> float:
        counts = {int(r["level"]): dict(r["counts"]) for r in view["majority"]}
        for level, color in nobles:
            c = counts.setdefault(level, {})
            c[color] = c.get(color, 0) + 1
        left = {p: h["bridges"] for p, h in view["hands"].items()}
        left[me] -= bridges
        return margin(totals(counts, left), me)

    def value(self, state: PlayState, player: str, pos: Position) -> float:
        if state.is_terminal:
            return terminal_value(state, player)
        view = state.view()
        w = margin({p: float(t) for p, t in view["totals"].items()}, player) if view["totals"] else \
            self._worth(view, player, ())
        if view["current"] == player and len(view["placed"]) >= TURN_MAX and not _ends(state):
            return -WIN  # five down and the turn cannot be ended: a dead end
        scene = state.scene()
        for pid in view["placed"]:
            p = scene.piece(pid)
            if kind_of(p) == "towers":
                w += HEIGHT * (level_of(p, (*p.pos, *p.quat)) + 1)
        return w

    def lookahead(self, pos: Position, state: PlayState, player: str, rng: np.random.Generator) -> float:
        base = self.value(state, player, pos)
        if state.is_terminal or base <= -WIN / 2:
            return base
        view = state.view()
        counts = {int(r["level"]): dict(r["counts"]) for r in view["majority"]}
        left = {p: h["bridges"] for p, h in view["hands"].items()}
        tops = free_tops(pos, state)
        rivals = [p for p in _after(state.players, player)]
        for rival in rivals:
            nobles = view["hands"][rival]["small"] + view["hands"][rival]["large"]
            for _ in range(min(REPLY_NOBLES, nobles)):
                best = max(((margin(totals(_plus(counts, lv, rival), left), rival), lv) for lv, k in tops.items()
                            if k > 0), default=None)
                if best is None or best[0] <= margin(totals(counts, left), rival):
                    break
                counts = _plus(counts, best[1], rival)
                tops[best[1]] -= 1
        return base + margin(totals(counts, left), player) - margin(totals(
            {int(r["level"]): dict(r["counts"]) for r in view["majority"]}, left), player)

    def random_option(self, pos: Position, rng: np.random.Generator) -> Option | None:
        if pos.view["placed"] or pos.view["special"]:  # a turn under way that is not the random turn built
            return Option({"action": "take-back"}, 0.0, "take-back, to build a turn afresh")
        return random_turn(pos, rng)


def kind_of(piece) -> str:
    """``towers``, ``bridges``, ``small`` or ``large``: the hand's count a piece belongs to."""
    if piece.kind == "babylon.noble":
        return piece.params["size"]
    return "towers" if piece.kind == "babylon.tower" else "bridges"


def level_of(piece, pose) -> int:
    """The levels beneath ``piece`` set down upright at ``pose``."""
    from sim.games.babylon.building import LEVEL

    bottom = float(pose[2]) + float(piece.shape.bounds[0][2])
    return max(0, round(bottom / LEVEL))


def totals(counts: Mapping[int, Mapping[str, int]], bridges_left: Mapping[str, int]) -> dict[str, float]:
    """Each player's score: every level whose sole majority the player holds, worth its height, minus a point
    per bridge left (:func:`sim.games.babylon.scoring.score_tactical`)."""
    out = {p: -float(n) for p, n in bridges_left.items()}
    for level, c in counts.items():
        if not c:
            continue
        best = max(c.values())
        leaders = [p for p, n in c.items() if n == best]
        if len(leaders) == 1 and leaders[0] in out:
            out[leaders[0]] += level
    return out


def margin(scores: Mapping[str, float], player: str) -> float:
    """``player``'s score less the best rival's."""
    rivals = [v for p, v in scores.items() if p != player]
    return scores.get(player, 0.0) - (max(rivals) if rivals else 0.0)


def free_tops(pos: Position, state: PlayState) -> dict[int, int]:
    """Level -> the tower tops where a noble may still be set down, as the listed placements of the player's
    small noble show them before the move, less the one the move took (a noble set down there)."""
    small = [p for p in pos.pieces if p in pos.supply and kind_of(pos.scene.piece(p)) == "small"]
    if not small:
        return {}
    probe = pos.scene.piece(small[0])
    out: dict[int, int] = {}
    for tower in {spot.on: level_of(probe, spot.pose) for spot in pos.placements(small[0])}.items():
        out[tower[1]] = out.get(tower[1], 0) + 1
    return out


def _plus(counts, level: int, color: str):
    out = {lv: dict(c) for lv, c in counts.items()}
    c = out.setdefault(level, {})
    c[color] = c.get(color, 0) + 1
    return out


def _after(players, player: str) -> list[str]:
    k = players.index(player)
    return list(players[k + 1:] + players[:k])


def _ends(state: PlayState) -> bool:
    return state.apply({"action": "end-turn"}).accepted


def witness_turn(pos: Position) -> Option | None:
    """The rule of four's witness turn (:func:`sim.games.babylon.capacity.plan_turn`) as the player's own
    pieces set down one by one, every one and the end tried with the referee (None when it is refused)."""
    from sim.games.babylon.building import read_layout
    from sim.games.babylon.capacity import plan_turn
    from sim.games.babylon.supply import Pieces

    view, me = pos.view, pos.player
    if view["placed"]:
        return None
    state = pos.state
    scene = state.scene()
    built = scene.with_pieces(p for p in scene.pieces if p.id not in state.supply)
    layout = read_layout(replace(built, players=state.players))
    hand = Pieces(**{k: view["hands"][me][k] for k in KINDS})
    plan = plan_turn(layout, me, hand, len(state.players), view["first_round"])
    free = {k: [p for p in pos.pieces if p in pos.supply and kind_of(scene.piece(p)) == k] for k in KINDS}
    actions = []
    for w in plan:
        k = kind_of(w)
        if not free[k]:
            return None
        actions.append({"action": "place", "piece": free[k].pop(0), "pose": [*w.pos, *w.quat]})
    actions.append({"action": "end-turn"})
    if len(actions) - 1 < TURN_MIN and not view["first_round"]:
        actions = [{"action": "end-turn"}] if len(plan) < TURN_MIN else actions
    s = state
    for a in actions:
        step = s.apply(a)
        if not step.accepted:
            return None
        s = step.state
    return Option(actions[0], 0.0, f"the witness's turn of {len(actions) - 1} pieces", {"pieces": len(actions) - 1},
                  tuple(actions[1:]))


def random_turn(pos: Position, rng: np.random.Generator) -> Option | None:
    """A random legal turn: pieces of random kinds at random listed places (on the building, or beside it, each
    kind of place alike), ended after four or five once the referee accepts the end; tried
    :data:`RANDOM_TURNS` times, then the witness's turn (None: neither is accepted)."""
    state0 = pos.state
    end = {"action": "end-turn"}
    if any(a == end for a in state0.legal_actions()) and state0.apply(end).accepted and not state0.placeable():
        return Option(end, 0.0, "turn: nothing can be placed")
    for _ in range(RANDOM_TURNS):
        state, actions = state0, []
        while len(actions) < TURN_MAX:
            p = Position(state)
            action = _random_piece(p, rng)
            if action is None:
                break
            state = p.after(action).state
            actions.append(action)
            if len(actions) >= TURN_MIN and (len(actions) == TURN_MAX or rng.random() < 0.5):
                step = state.apply(end)
                if step.accepted:
                    actions.append(end)
                    return Option(actions[0], 0.0, f"turn of {len(actions) - 1} pieces", {}, tuple(actions[1:]))
    return witness_turn(pos)


def _random_piece(pos: Position, rng: np.random.Generator) -> dict | None:
    """A random accepted placement of one of the player's supply pieces: a random kind of piece at a random
    place on the building, or (with the chance :data:`TABLE_CHANCE`, or when the building has no place for
    it) on the table beside it: a part on the table joins the building only through what is set on it later."""
    pieces = pos.kinds([p for p in pos.pieces if p in pos.supply])
    chance = TABLE_CHANCE[bool(pos.view["first_round"])]
    for k in rng.permutation(len(pieces)):
        spots = pos.placements(pieces[k])
        on = [s for s in spots if s.rule != "table"]
        table = [s for s in spots if s.rule == "table"]
        for group in ((table, on) if rng.random() < chance else (on, table)):
            for j in rng.permutation(len(group))[:3]:
                action = group[j].action()
                if pos.accepts(action):
                    return action
    return None


__all__ = ["TacticalTactic", "free_tops", "kind_of", "level_of", "margin", "random_turn", "totals", "witness_turn"]
