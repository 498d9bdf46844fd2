"""Babylon's tactical game played on the table: 4 or 5 pieces a turn with a live count, each piece's placement
rules on release, the turn's rules at its end, the special move, the live majority table, the final score.

The game is :mod:`sim.games.babylon.tactical`; a turn is judged as the
building after it (the table without the supply, at rest) with the statics'
verdict on it. Readings made here:

- **Set down, then ended.** A piece is judged by its own placement rules the
  moment it is set down (upright and square, on a tower's top or a bridge's
  end or middle, no arch on a piece, no bridge congruent over another, a noble
  upright on a tower, one large or two small — three with five players — and
  never two of one colour): a refused piece goes back with the reason. Until
  the turn ends, the pieces set down this turn may be picked up again and
  moved: they are placed when the turn ends. The turn's rules (4 or 5 pieces,
  a connected building, the first round's limits, the special move, standing)
  are judged at ``end-turn``; a refused turn goes on, with the reasons, and
  ``take-back`` returns this turn's pieces to the supply.
- **A fifth piece is the last.** A sixth pick is refused before it leaves the
  supply.
- **The special move** is an action, not a pick: ``swap-nobles`` exchanges two
  nobles placed earlier (same size, no noble placed this turn); in the expert
  game ``turn-tower`` turns a tower a quarter turn with the nobles on it. Both
  are checked again with the whole turn at its end.
- **Knocked down** (the rulebook: pieces knocked off the building are put back
  as they were before the game goes on): pieces of earlier turns go back to
  where the last turn left them, this turn's to where they were set down.
- **The end**: when every noble is placed, or a player cannot place four
  pieces and ends the turn placing none; the final score is said with its
  reasons (each level's majority, the bridges left, the tie-break).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from sim.games.babylon.building import read_layout
from sim.games.babylon.scoring import TacticalScore, score_tactical
from sim.games.babylon.supply import NOBLE, TOWER, BabylonError, player_of
from sim.games.babylon.tactical import IllegalTurnError, TacticalState, new_tactical, play_turn
from sim.games.play.babylon import building, is_noble, quarter_turn, refuse_placement, with_piece
from sim.games.play.babylon_moves import placements, tactical_actions
from sim.games.play.session import (
    Effect,
    Place,
    PlayError,
    Refused,
    Say,
    Seat,
    Session,
    Table,
    ToSupply,
    pose_of,
)
from sim.scene import Piece, Scene

TURN_MAX = 5
VARIANTS = ("tactical", "expert")


class TacticalSession(Session):
    """Babylon's tactical game on the table (see the module docstring).

    Args:
        players: noble colours in seat order, the starting player first (3 to 5).
        variant: ``tactical``, or ``expert`` (its special move may also turn a tower).

    Raises:
        PlayError: an unknown variant, or players the game does not allow.
    """

    ACTIONS = ("end-turn", "swap-nobles", "turn-tower", "take-back")
    GROUP_RULE = ("one-by-one", "a turn places its pieces one by one, each judged where it is set down")

    def __init__(self, players, variant: str = "tactical"):
        if variant not in VARIANTS:
            raise PlayError(f"--variant: Babylon's tactical game plays {' or '.join(VARIANTS)}, got {variant!r}")
        super().__init__("babylon", variant, players)
        try:
            self.state: TacticalState = new_tactical(self.players, expert=variant == "expert")
        except BabylonError as e:
            raise PlayError(f"--players: {e}") from None
        self.placed_now: dict[str, tuple[float, ...]] = {}  # set down this turn -> where
        self.kinds: dict[str, str] = {}  # set down this turn -> towers, bridges, small or large
        self.special: tuple | None = None  # ("swap", a, b) or ("turn", tower) this turn
        self.special_from: dict[str, tuple[float, ...]] = {}  # poses before the special move
        self.special_to: dict[str, tuple[float, ...]] = {}  # and after it
        self.score: TacticalScore | None = None  # the majority table of the building at rest
        self.final: TacticalScore | None = None
        self.seat = self.state.player
        self.log("turn_changed", player=self.seat)

    # --- reading --------------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.state.over is not None

    def view(self) -> dict:
        """``{game, variant, current, turn, first_round, placed: [ids], count, special, hands: {colour: {towers,
        bridges, small, large}}, majority: [{level, counts, winner, points}], totals, over, final}``."""
        s = self.state
        hands = {}
        for p in self.players:
            h = s.hand(p)
            hands[p] = {"towers": h.towers, "bridges": h.bridges, "small": h.small, "large": h.large}
        for kind in self.kinds.values():  # this turn's pieces are out of the hand already
            hands[s.player][kind] -= 1
        score = self.final or self.score
        majority = [] if score is None else [{"level": r.level, "counts": dict(r.counts), "winner": r.winner,
                                              "points": r.points} for r in score.levels]
        totals = {} if score is None else {c: p.total for c, p in score.players.items()}
        return {"game": "babylon", "variant": self.variant, "current": s.player, "turn": s.turn,
                "first_round": s.first_round, "placed": list(self.placed_now),
                "count": f"{len(self.placed_now)} of 4-5", "special": None if self.special is None
                else list(self.special), "hands": hands, "majority": majority, "totals": totals,
                "over": s.over, "final": None if self.final is None else self.final.to_json()}

    def to_json(self) -> dict:
        return {"game": "babylon", "variant": self.variant, "players": list(self.players), "time": self.time,
                "placed_now": {k: list(v) for k, v in self.placed_now.items()}, "kinds": dict(self.kinds),
                "special": None if self.special is None else list(self.special),
                "special_to": {k: list(v) for k, v in self.special_to.items()}, "state": self.state.to_json()}

    def outcome(self) -> dict:
        """``{winners, loser: None, scores: {colour: points}}`` (the level majorities and bridges left, as they
        stand; final once the game is over)."""
        score = self.final or self.score or score_tactical(self.state.layout, self.players)
        return {"winners": list(self.final.winners) if self.final else [], "loser": None,
                "scores": {c: p.total for c, p in score.players.items()}}

    # --- what is legal ----------------------------------------------------------------------------------

    def legal_actions(self, table: Table) -> list[dict]:
        return tactical_actions(self, table)

    def candidates(self, table: Table) -> list[str]:
        return [p.id for p in table.scene().pieces if p.id in table.supply or p.id in self.placed_now]

    def placements(self, piece: str, table: Table) -> list:
        return placements(self, piece, table, self.owned(building(table)), fast=False)

    # --- the table ------------------------------------------------------------------------------------

    def _pick(self, piece: str, table: Table, player: str) -> list[Effect]:
        if self.over:
            raise Refused("over", "the game is over")
        s = self.state
        if piece in self.placed_now:
            return []
        if piece not in table.supply:
            raise Refused("relocated", f"{piece} was placed in an earlier turn and stays; the special move swaps "
                                       "two nobles (M)" + (" or turns a tower (U)" if s.expert else ""))
        who = player_of(table.scene().piece(piece))
        if who != s.player:
            raise Refused("not-yours", f"{piece} belongs to {who}; it is {s.player}'s turn")
        if len(self.placed_now) >= TURN_MAX:
            raise Refused("too-many", f"{TURN_MAX} pieces are down: a turn places 4 or 5; end the turn (Enter)")
        if is_noble(table, piece):
            if s.first_round:
                raise Refused("first-round-noble", "no nobles in the first round")
            if self.special is not None:
                raise Refused("special-move-after-noble", "the special move was made: no noble this turn")
        return []

    def _drop(self, p: Piece, table: Table, player: str) -> list[Effect]:
        piece = p.id
        layout = read_layout(self.owned(with_piece(building(table), p)))
        refuse_placement(layout, piece, len(self.players))
        self.placed_now[piece] = pose_of(p)
        self.kinds[piece] = p.params["size"] if p.kind == NOBLE else "towers" if p.kind == TOWER else "bridges"
        return [Say(f"{self.state.player}: {len(self.placed_now)} of 4-5 pieces this turn")]

    def _knocked(self, pieces, player: str | None, table: Table) -> list[Effect]:
        before = {p.id: p for p in self.state.scene.pieces}
        out: list[Effect] = []
        back = []
        for pid in pieces:
            if pid in self.placed_now:
                out.append(Place(pid, self.placed_now[pid]))
            elif pid in self.special_to:
                out.append(Place(pid, self.special_to[pid]))
            elif pid in before:
                p = before[pid]
                out.append(Place(pid, (*p.pos, *p.quat)))
            else:
                continue
            back.append(pid)
        if not back:
            return []
        self.log("knocked", player=player or self.seat, pieces=back)
        return out + [Say(f"knocked down: {', '.join(back)} put back as they were", "collapse")]

    def _settled(self, table: Table) -> list[Effect]:
        after = self.owned(building(table))
        self.score = score_tactical(read_layout(after), self.players)
        return []

    # --- actions --------------------------------------------------------------------------------------

    def _act_swap_nobles(self, args: Mapping, table: Table) -> list[Effect]:
        a, b = self._nobles(args)
        s = self.state
        if self.special is not None:
            raise Refused("special-move", "one special move a turn")
        if any(is_noble(table, p) for p in self.placed_now):
            raise Refused("special-move-after-noble", "the special move is only for a turn that placed no noble")
        scene = table.scene()
        pa, pb = scene.piece(a), scene.piece(b)
        if pa.params["size"] != pb.params["size"]:
            raise Refused("special-move-size", f"{a} is {pa.params['size']} and {b} {pb.params['size']}; the "
                                               "special move swaps two nobles of one size")
        if s.first_round:
            raise Refused("first-round-noble", "no nobles are placed in the first round")
        self.special = ("swap", a, b)
        self.special_from = {a: (*pa.pos, *pa.quat), b: (*pb.pos, *pb.quat)}
        self.special_to = {a: self.special_from[b], b: self.special_from[a]}
        return [Place(a, self.special_to[a]), Place(b, self.special_to[b]),
                Say(f"{s.player} swaps {a} and {b} (the special move)")]

    def _act_turn_tower(self, args: Mapping, table: Table) -> list[Effect]:
        s = self.state
        if not s.expert:
            raise Refused("special-move", "turning a tower is the expert game's special move (--variant expert)")
        tower = args.get("piece")
        before = {p.id for p in s.scene.pieces}
        if tower not in before or s.layout.parts.get(tower) is None or not s.layout.parts[tower].is_tower:
            raise Refused("special-move", f"{tower!r} is no tower placed in an earlier turn")
        if self.special is not None:
            raise Refused("special-move", "one special move a turn")
        if any(is_noble(table, p) for p in self.placed_now):
            raise Refused("special-move-after-noble", "the special move is only for a turn that placed no noble")
        layout = read_layout(self.owned(building(table)))
        poses = {p.id: (*p.pos, *p.quat) for p in table.scene().pieces}
        turned = quarter_turn(layout, tower, poses)
        self.special = ("turn", tower)
        self.special_from = {pid: poses[pid] for pid in turned}
        self.special_to = dict(turned)
        return [*(Place(pid, pose) for pid, pose in turned.items()),
                Say(f"{s.player} turns {tower} a quarter turn (the expert special move)")]

    def _act_take_back(self, args: Mapping, table: Table) -> list[Effect]:
        out: list[Effect] = []
        if self.placed_now:
            out.append(ToSupply(tuple(self.placed_now)))
        out += [Place(pid, pose) for pid, pose in self.special_from.items()]
        self._new_turn()
        return out + [Say(f"{self.state.player} starts the turn afresh")]

    def _act_end_turn(self, args: Mapping, table: Table) -> list[Effect]:
        s = self.state
        if self.over:
            raise Refused("over", "the game is over")
        if table.carried:
            raise Refused("hand", "set down or put back the piece in hand first")
        after = self.owned(building(table))
        verdict = table.verdict()
        try:
            self.state = play_turn(s, after, verdict)
        except IllegalTurnError as e:
            broken = e.verdict.violations
            raise Refused(broken[0].rule, "; ".join(v.reason for v in broken)) from None
        except BabylonError as e:
            raise Refused("turn", str(e)) from None
        turn = self.state.turns[-1]
        self.log("placed", player=s.player, pieces=list(turn.placed))
        self.log("game_state", state=self.state.to_json())
        self._new_turn()
        self.score = score_tactical(self.state.layout, self.players)
        said = f"{s.player} placed {len(turn.placed)}" + (" and swapped " + " and ".join(turn.swapped)
                                                          if turn.swapped else "")
        said += f" and turned {turn.rotated}" if turn.rotated else ""
        if self.over:
            return self._ended(said)
        self.seat = self.state.player
        self.log("turn_changed", player=self.seat)
        first = " (first round: no nobles; widen the base)" if self.state.first_round else ""
        return [Seat(self.seat), Say(f"{said}. {self.seat}'s turn: 4 or 5 pieces{first}", "turn")]

    def _ended(self, said: str) -> list[Effect]:
        self.final = score_tactical(self.state.layout, self.players)
        f = self.final
        self.log("game_over", reason=self.state.over, winners=list(f.winners), loser=None)
        out: list[Effect] = [Say(f"{said}. Game over: {self.state.over}", "win")]
        for c, p in f.players.items():
            levels = ", ".join(f"level {lv}: {pts}" for lv, pts in sorted(p.levels.items()) if pts) or "no level"
            lost = sorted({n.reason for n in p.nobles if n.reason})
            why = f"; not scoring: {'; '.join(lost)}" if lost else ""
            points = "1 point" if p.total == 1 else f"{p.total} points"
            out.append(Say(f"{c}: {points} ({levels}; -{p.bridges_left} for bridges left){why}", "score"))
        if f.winners:
            out.append(Say(f"{f.winners[0]} wins", "win"))
        else:
            out.append(Say(f"{' and '.join(f.tied)} tie: none of them scored a level", "win"))
        return out

    # --- helpers --------------------------------------------------------------------------------------

    def owned(self, scene: Scene) -> Scene:
        """``scene`` with this game's players (the table's scene may name them differently)."""
        return replace(scene, players=self.players)

    def _nobles(self, args: Mapping) -> tuple[str, str]:
        pair = args.get("nobles")
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
            raise PlayError(f"nobles: expected two noble ids, got {pair!r}")
        placed = self.state.layout.nobles
        if pair[0] == pair[1]:
            raise Refused("special-move", f"the special move swaps two nobles, not {pair[0]} with itself")
        for n in pair:
            if n not in placed:
                raise Refused("special-move", f"{n} is no noble placed in an earlier turn")
        return pair[0], pair[1]

    def _new_turn(self) -> None:
        self.placed_now, self.special, self.special_from, self.special_to = {}, None, {}, {}
        self.kinds: dict[str, str] = {}


__all__ = ["TacticalSession"]
