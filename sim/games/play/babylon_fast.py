"""Babylon's fast game played on the table: everyone builds at once in the areas between neighbours, knocked-down
parts counted live, "stop", round scores by the four conditions, a large noble set aside per round won, three wins.

The game is :mod:`sim.games.babylon.fast`. Readings of the rulebook made here:

- **Turn-free.** Everyone builds at the same time: a pick or a drop is judged
  for the player whose hand it is (``pick(piece, table, player)``; a served
  table gives each seat hands of its own). On one desktop (hot seat) one
  player's hands work at a time (``seat``, Tab in the window), and what is in
  hand goes back when the seat changes. Actions are blamed on the player whose
  hand did them.
- **Set down is placed.** A piece is judged the moment it is set down by the
  fast game's placement rules (:func:`~sim.games.babylon.fast.placement_violations`:
  a part upright, square, on a tower's top or a bridge's end or middle, no arch
  on a piece, on the table or the buildings and never on the supply; a noble
  upright on a tower or a bridge; both in one of the player's two construction
  areas); a refused piece goes back with the reason. A placed building part
  stays; a placed noble may be picked up again only to be set down on the same
  tower (moved aside to make room), or, when small and sharing its tower with a
  large noble, to be placed elsewhere (the rulebook's exception). Whether the
  building stands is the physics' answer: what falls is knocked down.
- **Knocked down, live.** The physics' knocked-down pieces are read against
  the buildings as they stood (:func:`~sim.games.babylon.fast.with_everything_above`:
  whatever stood on a knocked-down piece falls with it). The building parts go
  to a pile beyond the table's edge behind their owner's seat: they are out of
  the round, and each is a minus point for the player whose action came last
  (none when no one's did). Fallen nobles go back to their owners' supplies, to
  be placed again; a player who knocked down another player's noble is out of
  the round: their hands are emptied and they touch nothing until it ends.
- **The end of a round.** ``stop`` is called by a player who has placed all
  their nobles (upright on the buildings: on a tower, or on a bridge, where a
  noble may stand but scores nothing; large ones set aside after round wins do
  not count); ``done`` says a player can build no further: once every player still
  in the round is done (or out), the round is over. The hands are emptied and
  the round is scored on the buildings as they stand
  (:func:`~sim.games.babylon.fast.score_fast`; the expert variant doubles a noble
  on a building of one tower orientation); the buildings stay until
  ``next-round`` clears the table, and each winner's large noble leaves the game.
  The first to win three rounds wins the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from sim.games.babylon.building import Layout, read_layout
from sim.games.babylon.fast import (
    FastGame,
    FastScore,
    Knock,
    construction_areas,
    nobles_placed,
    nobles_to_place,
    placement_violations,
    score_fast,
    with_everything_above,
)
from sim.games.babylon.supply import NOBLE, BabylonError, player_of, players_of
from sim.games.contract import Violation
from sim.games.play import session as play
from sim.games.play.babylon import with_piece
from sim.games.play.babylon_moves import fast_actions, placements
from sim.games.play.session import Effect, PlayError, Refused, Session, Table, pose_of
from sim.scene import Piece, Scene

VARIANTS = ("fast", "fast-expert")
PILE_GAP = 0.03
"""How far (m) beyond the table's edge the pile of knocked-down parts begins."""


class FastSession(Session):
    """Babylon's fast game on the table (see the module docstring).

    Args:
        players: noble colours in seat order, clockwise (3 to 5).
        variant: ``fast``, or ``fast-expert`` (a building of one tower orientation doubles a noble).

    Raises:
        PlayError: an unknown variant, or players the game does not allow.
    """

    ACTIONS = ("seat", "stop", "done", "next-round")
    GROUP_RULE = ("one-by-one", "pieces are placed one by one, each judged in its construction area")

    def __init__(self, players, variant: str = "fast"):
        super().__init__("babylon", _variant(variant), _players(players))
        self.expert = variant == "fast-expert"
        self.match = FastGame(self.players)
        self.round = 1
        self.set_aside: dict[str, list[str]] = {p: [] for p in self.players}  # large nobles out of the game
        self.results: list[dict] = []  # every round's result
        self.final: FastScore | None = None  # the last round's score
        self.winners: tuple[str, ...] = ()  # of the game
        self._area_cache = None
        self._new_round()
        self.log("turn_changed", player=self.seat)

    def _new_round(self) -> None:
        self.placed: dict[str, tuple[float, ...]] = {}  # building pieces -> where they stand
        self.parts: dict[str, str] = {}  # building parts placed this round -> their player
        # a placed noble in hand -> (its tower, may leave it): each noble is its owner's, so this is per player
        self.lifted: dict[str, tuple[str | None, bool]] = {}
        self.knocks: dict[str | None, list[str]] = {}  # who -> what they knocked down (None: no one's action)
        self.pile: dict[str | None, list[str]] = {}  # who -> the building parts they knocked down
        self.out: dict[str, list[str]] = {}  # who -> the other players' nobles they knocked down
        self.done: set[str] = set()
        self.stopped: str | None = None  # why the round is over, until the next begins
        self.live: FastScore | None = None  # the score of the buildings at rest
        self.up: dict[str, int] = {}  # nobles placed (standing on the buildings) per player, at the last rest

    # --- reading --------------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return bool(self.winners)

    @property
    def simultaneous(self) -> bool:
        return True

    @property
    def on_pile(self) -> frozenset[str]:
        """The building parts knocked down this round (out of the round)."""
        return frozenset(p for parts in self.pile.values() for p in parts)

    def view(self) -> dict:
        """``{game, variant, panel, round, seat, stopped, over, winners, players: [{color, wins, set_aside,
        nobles, to_place, parts, areas, knocked, score, out, done}], last: the last round's result}``."""
        score = self.final if self.stopped else self.live
        players = []
        for c in self.players:
            mine = score.players[c] if score is not None else None
            players.append({
                "color": c, "wins": self.match.wins.get(c, 0), "set_aside": len(self.set_aside[c]),
                "nobles": self.up.get(c, 0), "to_place": nobles_to_place(len(self.players), len(self.set_aside[c])),
                "parts": sum(1 for pid, who in self.parts.items() if who == c and pid in self.placed),
                "areas": {} if mine is None else dict(mine.areas), "knocked": list(self.pile.get(c, [])),
                "score": None if mine is None else mine.score, "out": c in self.out,
                "done": c in self.done})
        return {"game": "babylon", "variant": self.variant, "panel": "babylon-fast", "round": self.round,
                "seat": self.seat, "stopped": self.stopped, "over": self.over, "winners": list(self.winners),
                "players": players, "last": self.results[-1] if self.results else None}

    def outcome(self) -> dict:
        """``{winners, loser: None, scores: {colour: rounds won}}``."""
        return {"winners": list(self.winners), "loser": None,
                "scores": {c: self.match.wins.get(c, 0) for c in self.players}}

    # --- what is legal ----------------------------------------------------------------------------------

    def legal_actions(self, table: Table) -> list[dict]:
        return fast_actions(self, table)

    def candidates(self, table: Table) -> list[str]:
        mine = [p for p in table.scene().pieces if player_of(p) == self.seat]
        return [p.id for p in mine if p.id in table.supply or (p.id in self.placed and p.kind == NOBLE)]

    def placements(self, piece: str, table: Table) -> list:
        areas = self.areas(table)

        def allowed(placed, rule, on) -> bool:
            xy = placed.pos[:2]
            if not any(a.contains(xy) and self.seat in a.players for a in areas):
                return False
            tower, free = self.lifted.get(piece, (None, True))
            return tower is None or free or (rule == "noble-on-tower" and tuple(on) == (tower,))

        return placements(self, piece, table, self.built(table), fast=True, check=allowed)

    def ready(self, player: str) -> bool:
        """Whether ``player`` may build now (the game and the round go on, not out, not done)."""
        try:
            self._ready(player)
        except Refused:
            return False
        return True

    def to_json(self) -> dict:
        return {"game": "babylon", "variant": self.variant, "players": list(self.players), "time": self.time,
                "parts": dict(self.parts), "lifted": {k: list(v) for k, v in self.lifted.items()},
                "pile": {str(k): list(v) for k, v in self.pile.items()},
                "round": self.round, "seat": self.seat, "wins": dict(self.match.wins),
                "set_aside": {c: list(v) for c, v in self.set_aside.items()},
                "placed": {k: list(v) for k, v in self.placed.items()},
                "knocked": {str(k): list(v) for k, v in self.knocks.items()},
                "out": {c: list(v) for c, v in self.out.items()}, "done": sorted(self.done),
                "stopped": self.stopped, "results": self.results, "winners": list(self.winners)}

    # --- the table ------------------------------------------------------------------------------------

    def _pick(self, piece: str, table: Table, player: str) -> list[Effect]:
        self._ready(player)
        p = table.scene().piece(piece)
        who = player_of(p)
        if who != player:
            tab = " (Tab: the next player's hands)" if player == self.seat else ""  # the hot seat's key
            raise Refused("not-yours", f"{piece} belongs to {who}; {player}'s hands are at work{tab}")
        if piece in self.on_pile:
            raise Refused("knocked-down", f"{piece} was knocked down: it lies on the pile, out of this round")
        if piece in table.supply or piece not in self.placed:
            return []
        if p.kind != NOBLE:
            raise Refused("placed", f"{piece} is placed and stays (only nobles may be moved aside on their tower)")
        layout = read_layout(self.built(table))
        tower = layout.tower_of(piece)
        large = tower is not None and any(n.size == "large" and n.id != piece for n in layout.nobles_on(tower))
        self.lifted[piece] = (tower, p.params["size"] == "small" and large)
        return []

    def _drop(self, p: Piece, table: Table, player: str) -> list[Effect]:
        self._ready(player)
        piece, pose = p.id, pose_of(p)
        layout = read_layout(with_piece(self.built(table), p))
        broken = placement_violations(layout, piece, player, self.areas(table))
        if piece in self.lifted and not broken:
            tower, free = self.lifted[piece]
            if tower is not None and not free and layout.tower_of(piece) != tower:
                broken.append(_moved(piece, tower))
        if broken:
            raise Refused(broken[0].rule, "; ".join(v.reason for v in broken))
        self.lifted.pop(piece, None)
        self.placed[piece] = tuple(pose)
        if piece in layout.parts:
            self.parts[piece] = player
        self.log("placed", player=player, pieces=[piece])
        return []

    def _knocked(self, pieces, player: str | None, table: Table) -> list[Effect]:
        hit = [p for p in pieces if p in self.placed]
        if not hit or self.over or self.stopped:
            return []
        who = player if player in self.players else None
        layout = self._standing(table)
        fell = with_everything_above(layout, hit)  # what stood on a knocked-down piece falls with it
        for pid in set(fell) & set(table.carried.values()):  # a noble lifted off it stays in hand, placed afresh
            self.placed.pop(pid, None)
            self.lifted.pop(pid, None)
        fell = [p for p in fell if p in self.placed]
        parts = [p for p in fell if p in layout.parts]
        nobles = [p for p in fell if p in layout.nobles]
        others = [n for n in nobles if who is not None and layout.nobles[n].color != who]
        for pid in fell:
            self.placed.pop(pid, None)
        self.knocks.setdefault(who, []).extend(fell)
        self.pile.setdefault(who, []).extend(parts)
        self.log("knocked", player=who, pieces=fell, parts=parts, nobles_of_others=others)
        out: list[Effect] = [*(play.Place(pid, self._pile_pose(table, pid)) for pid in parts)]
        if parts:
            minus = f": -{len(parts)} for {who}" if who else " (no one's action came before: no one pays)"
            out.append(play.Say(f"knocked down {', '.join(parts)}{minus}; on the pile, out of the round",
                                "collapse"))
        if nobles:
            back = f"fallen nobles go back to their players: {', '.join(nobles)}"
            out += [play.ToSupply(tuple(nobles)), play.Say(back, "collapse")]
        if others:
            first = who not in self.out
            self.out.setdefault(who, []).extend(others)
            self.done.discard(who)
            if first:
                out += [play.EmptyHands(who)] + [
                    play.Say(f"{who} knocked down another player's noble ({', '.join(others)}): out of round "
                        f"{self.round}", "collapse")]
        if self._nobody_builds():
            out += self._end_round(table, "nobody can build any further")
        return out

    def _settled(self, table: Table) -> list[Effect]:
        if self.stopped or self.over:
            return []
        scene = table.scene()
        carried = set(table.carried.values())
        for p in scene.pieces:
            if p.id in self.placed and p.id not in carried:
                self.placed[p.id] = (*p.pos, *p.quat)
        self.live = self._score(table)
        return []

    # --- actions --------------------------------------------------------------------------------------

    def _act_seat(self, args: Mapping, table: Table) -> list[Effect]:
        player = self.player_arg(args)
        if self.over:
            raise Refused("over", "the game is over")
        self.seat = player
        self.lifted = {}
        state = " (out of the round)" if player in self.out else " (done)" if player in self.done else ""
        return [play.EmptyHands(), play.Seat(player), play.Say(f"{player}'s hands{state}", "turn")]

    def _act_stop(self, args: Mapping, table: Table) -> list[Effect]:
        caller = self.player_arg(args)
        self._ready(caller)
        layout = read_layout(self.built(table, carried=True))
        placed = len(nobles_placed(layout, caller))
        need = nobles_to_place(len(self.players), len(self.set_aside[caller]))
        if placed < need:
            raise Refused("stop", f"{caller} has placed {placed} of {need} nobles: \"stop\" is called "
                                  "once all are placed")
        return [play.EmptyHands(), *self._end_round(table, f"{caller} called stop (all nobles placed)")]

    def _act_done(self, args: Mapping, table: Table) -> list[Effect]:
        player = self.player_arg(args)
        self._ready(player)
        self.done.add(player)
        out: list[Effect] = [play.EmptyHands(player)]
        if self._nobody_builds():
            return out + self._end_round(table, "nobody can build any further")
        waiting = [p for p in self.players if p not in self.done and p not in self.out]
        return out + [play.Say(f"{player} can build no further; waiting for {', '.join(waiting)}", "turn")]

    def _act_next_round(self, args: Mapping, table: Table) -> list[Effect]:
        if self.over:
            raise Refused("over", "the game is over")
        if not self.stopped:
            raise Refused("round", f"round {self.round} is still on: it ends with \"stop\" or when nobody can "
                                   "build any further")
        winners = self.results[-1]["winners"]
        aside = []
        for w in winners:
            left = sorted(p.id for p in table.scene().pieces if p.kind == NOBLE and p.params["color"] == w
                          and p.params["size"] == "large" and p.id not in self.set_aside[w])
            if left:
                self.set_aside[w].append(left[-1])
                aside.append(left[-1])
        self.round += 1
        self._new_round()
        self.log("turn_changed", player=self.seat)
        said = f"; set aside for the game: {', '.join(aside)}" if aside else ""
        return [play.EmptyHands(), play.Clear(), *([play.SetAside(tuple(aside))] if aside else []),
                play.Say(f"round {self.round} begins on a cleared table{said}", "turn")]

    # --- the round's end --------------------------------------------------------------------------------

    def _end_round(self, table: Table, reason: str) -> list[Effect]:
        self.final = score = self._score(table)
        self.match = self.match.after_round(score.winners)
        scores = {c: p.score for c, p in score.players.items()}
        result = {"round": self.round, "reason": reason, "winners": list(score.winners), "scores": scores,
                  "score": score.to_json()}
        self.results.append(result)
        self.stopped = reason
        self.log("round_ended", round=self.round, reason=reason, winners=list(score.winners), scores=scores)
        out: list[Effect] = [play.Say(f"round {self.round} is over: {reason}", "score")]
        for c, p in score.players.items():
            if p.out:
                out.append(play.Say(f"{c}: out of the round (knocked down another player's noble)", "score"))
                continue
            areas = ", ".join(f"with {n}: {v}" for n, v in p.areas.items())
            minus = f" - {p.knocked_parts} knocked down" if p.knocked_parts else ""
            out.append(play.Say(f"{c}: {p.score} (the smaller of {areas}{minus}; {p.unplaced} unplaced)", "score"))
        won = " and ".join(score.winners) or "nobody"
        self.winners = self.match.winners
        if self.winners:
            self.log("game_over", reason="three round wins", winners=list(self.winners), loser=None)
            return out + [play.Say(f"{won} wins round {self.round}; {' and '.join(self.winners)} "
                              f"{'wins' if len(self.winners) == 1 else 'win'} the game (three rounds)", "win")]
        return out + [play.Say(f"{won} wins round {self.round} (a large noble leaves the game); G: the next round",
                          "win")]

    def _score(self, table: Table) -> FastScore:
        """The round's score on the buildings now (a noble in hand where it stood), with what was knocked down by
        a player's action (in the scene: on the pile, in a supply or placed again)."""
        keep = set(self.placed) | {p for who, ids in self.knocks.items() if who is not None for p in ids}
        scene = table.scene()
        scene = replace(scene.with_pieces(p for p in scene.pieces if p.id in keep), players=self.players)
        held = {pid: np.asarray(self.placed[pid]) for pid in table.carried.values() if pid in self.placed}
        scene = scene.with_poses(held) if held else scene
        knocks = [Knock(who, tuple(ids)) for who, ids in self.knocks.items() if who is not None]
        layout = read_layout(scene)
        self.up = {c: len(nobles_placed(layout.without(self.on_pile), c)) for c in self.players}
        return score_fast(layout, self.players, knocks, expert=self.expert)

    # --- helpers --------------------------------------------------------------------------------------

    def _ready(self, player: str) -> None:
        """Refuse anything of ``player``'s while they may not build."""
        if self.over:
            raise Refused("over", "the game is over")
        if self.stopped:
            raise Refused("round-over", f"round {self.round} is over ({self.stopped}); G: the next round")
        if player in self.out:
            raise Refused("out", f"{player} knocked down another player's noble and is out of round {self.round}")
        if player in self.done:
            raise Refused("done", f"{player} can build no further this round")

    def _nobody_builds(self) -> bool:
        return all(p in self.done or p in self.out for p in self.players)

    def built(self, table: Table, carried: bool = False) -> Scene:
        """The buildings: the pieces placed (those in a hand left out unless ``carried``), the game's players."""
        scene = table.scene()
        hands = set() if carried else set(table.carried.values())
        return replace(scene.with_pieces(p for p in scene.pieces if p.id in self.placed and p.id not in hands),
                       players=self.players)

    def _standing(self, table: Table) -> Layout:
        """The buildings as they stood before what just fell: every placed piece where it was last at rest."""
        scene = self.built(table, carried=True)
        return read_layout(scene.with_poses({pid: np.asarray(pose) for pid, pose in self.placed.items()}))

    def areas(self, table: Table):
        """The construction areas of the table's seats, in seat order (:func:`construction_areas`)."""
        if self._area_cache is None:
            self._area_cache = construction_areas(replace(table.scene(), players=self.players), self.players)
        return self._area_cache

    def _pile_pose(self, table: Table, piece: str) -> tuple[float, ...]:
        """Where a knocked-down part lies on its owner's pile: its place in the supply mirrored beyond the table's
        edge behind the owner's seat, on the floor round the table."""
        scene = table.scene()
        board = scene.board_info
        seating = board.seating
        owner = player_of(scene.piece(piece))
        k = self.players.index(owner) if owner in self.players else 0
        a = np.radians(seating.seat_angle(k, len(self.players)))
        out = np.array([np.cos(a), np.sin(a)])
        edge = seating.half_size * (abs(out[0]) + abs(out[1])) + PILE_GAP  # beyond the table in that direction
        home = np.asarray(table.home(piece), dtype=float)
        xy = home[:2] + 2.0 * (edge - float(home[:2] @ out)) * out
        return (float(xy[0]), float(xy[1]), float(home[2] - board.thickness), *(float(q) for q in home[3:]))


def _variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise PlayError(f"--variant: Babylon's fast game plays {' or '.join(VARIANTS)}, got {variant!r}")
    return variant


def _players(players) -> tuple[str, ...]:
    """The players, if 3 to 5 noble colours, each once."""
    players = tuple(players)
    try:
        players_of(Scene("babylon", "babylon-table", (), players=players))
    except BabylonError as e:
        raise PlayError("--" + str(e).replace("<scene>: ", "")) from None
    if len(set(players)) != len(players):
        raise PlayError(f"--players: each colour plays once, got {', '.join(players)}")
    return players


def _moved(piece: str, tower: str) -> Violation:
    return Violation("placed", (piece,), f"{piece} is placed on tower {tower}: it may only be moved aside on it "
                                         "(a small noble leaves a tower only when a large one stands there)")


__all__ = ["VARIANTS", "FastSession"]
