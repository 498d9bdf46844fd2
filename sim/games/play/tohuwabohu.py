"""Tohuwabohu played on the table: the deal, the turn timer, the swap, cards fulfilled live; the pro variant.

Variants: ``basic`` (15 s turns), ``advanced`` (10 s turns), ``pro`` (the
professional variant: four-minute rounds, three open cards, everyone builds).
The game's flow is :mod:`sim.games.tohuwabohu.game` and
:mod:`sim.games.tohuwabohu.pro`; whether the area fulfils a card is
:func:`sim.games.tohuwabohu.judgement` on the table at rest and the statics'
verdict on it. Readings of the rulebook made here:

- **Fulfilled the moment it stands.** Whenever the table comes to rest in a
  configuration not judged before, the referee judges it; in the basic game
  the active player's open card is set aside the moment the area fulfils it
  and the construction stands (the rulebook: the others watch whether the
  order was really fulfilled; the program watches). A card revealed while the
  area already fulfils it waits for the next change the player makes: the
  player builds what the card asks during their turn.
- **The turn passes when the time runs out**; what is in a hand then goes
  back where it was picked up (the next player builds with their own hands).
- **A collapse** in the basic game costs nothing (the player whose turn it is
  may rebuild or destroy as they like); in the pro variant the clock stops
  and the players choose: go on unpunished, or a new round in which the
  player who caused it puts a fulfilled card back under the pile.
- **Pro**: everyone builds at once, a pick judged for the player whose hand
  it is (a served table gives each seat hands of its own); on one desktop (hot
  seat) one player's hands work at a time (``seat``), and what is in hand goes
  back when the seat changes. Only the highest level of a structure may be taken apart and never
  a whole structure (:func:`sim.games.tohuwabohu.pro.removal_problems`): a
  pick from below is refused with the reason. "Stop" empties the hands, stops
  the clock, checks the caller's claim and everyone's fulfilled open cards,
  and the clock runs on; a new round clears the area.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from sim.games.play import tohuwabohu_moves as moves
from sim.games.play.session import (
    Clear,
    Effect,
    EmptyHands,
    PlayError,
    Refused,
    Say,
    Seat,
    Session,
    Table,
    seconds_text,
)
from sim.games.tohuwabohu import CARDS, judgement, pro
from sim.games.tohuwabohu import analyze as analyze_area
from sim.games.tohuwabohu import game as basic
from sim.games.tohuwabohu.state import GameError
from sim.scene import Piece

VARIANTS = ("basic", "advanced", "pro")


def card_title(card: str | None) -> str | None:
    """A card's printed title (None for no card)."""
    return None if card is None else CARDS[card].title


class TohuwabohuSession(Session):
    """Tohuwabohu on the table (see the module docstring).

    Args:
        players: 2 to 4 names in seating order; turns pass to the next in the list.
        rng: the deal's shuffles.
        variant: ``basic``, ``advanced`` or ``pro``.
        starter: who begins (basic and advanced); default the first.
        turn_seconds: a turn's length (s) as a house rule (basic and advanced); default the rulebook's (15 s,
            advanced 10 s).

    Raises:
        PlayError: an unknown variant, players the deal does not allow, or a turn length for the professional
            variant (it plays four-minute rounds, not timed turns).
    """

    ACTIONS = ("swap", "stop", "continue", "punish", "seat")
    GROUP_RULE = ("hands", "a player builds with both hands, each holding at most one piece")
    AT_REST = ("stop",)
    """Actions the table must be at rest for, hands emptied, before the referee answers."""

    def __init__(self, players, rng: np.random.Generator, variant: str = "basic", starter: str | None = None,
                 turn_seconds: float | None = None):
        if variant not in VARIANTS:
            raise PlayError(f"--variant: Tohuwabohu plays {', '.join(VARIANTS)}, got {variant!r}")
        if turn_seconds is not None and variant == "pro":
            raise PlayError("--turn-seconds: the professional variant plays four-minute rounds, not timed turns")
        super().__init__("tohuwabohu", variant, players)
        try:
            if variant == "pro":
                self.state = pro.new_pro_game(self.players, rng)
            else:
                self.state = basic.new_game(self.players, rng, advanced=variant == "advanced", starter=starter)
                if turn_seconds is not None:  # a house rule: the turn's length is the game's, dealt the same
                    self.state = replace(self.state, turn_seconds=float(turn_seconds))
        except GameError as e:
            raise PlayError(str(e)) from None
        self.collapse_by: str | None = None  # pro: a collapse waits for the players' choice
        self.fulfilled_now: tuple[str, ...] = ()  # what the area fulfils at its last judged rest
        self.seat = self.state.active if self.basic else self.players[0]
        self.log("turn_changed", player=self.seat)
        self.log("game_state", state=self.state.to_json())

    @property
    def basic(self) -> bool:
        """Turn by turn (basic or advanced), not the pro variant."""
        return self.variant != "pro"

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def simultaneous(self) -> bool:
        """The pro variant: everyone builds at once."""
        return not self.basic

    # --- time ---------------------------------------------------------------------------------------

    def _tick(self, seconds: float, table: Table) -> list[Effect]:
        if self.over or self.collapse_by is not None:
            return []  # the pro clock stands while the players decide about a collapse
        if self.basic:
            before = self.state.active, _turns(self.state)
            self.state = basic.tick(self.state, seconds)
            if (self.state.active, _turns(self.state)) == before:
                return []
            self.seat = self.state.active
            self.log("turn_changed", player=self.seat)
            card = card_title(self.state.order_card())
            return [EmptyHands(), Seat(self.seat),
                    Say(f"time is up: {self.seat}'s turn" + (f" - order: {card}" if card else ""), "turn")]
        round_before = self.state.round
        self.state = pro.tick(self.state, seconds)
        if self.state.round == round_before:
            return []
        self.log("round_ended", round=round_before, reason="the time is up")
        return [EmptyHands(), Clear(), Say(f"round {round_before} is over (the time is up): round {self.state.round} "
                                           "begins on a cleared area", "turn")]

    def announce(self) -> list[Effect]:
        if self.over:
            return []
        if self.basic:
            card = card_title(self.state.order_card())
            return [Say(f"{self.seat}'s turn ({seconds_text(self.state.time_left)} on the clock)"
                        + (f" - order: {card}" if card else ""), "turn")]
        return [Say(f"round {self.state.round}: {seconds_text(self.state.time_left)} for everyone; {self.seat}'s "
                    "hands (Tab: the next player's)", "turn")]

    # --- actions ------------------------------------------------------------------------------------

    def _act_swap(self, args: Mapping, table: Table) -> list[Effect]:
        if not self.basic:
            raise Refused("swap", "the professional variant has no swap: every player has three open cards")
        old = self.state.order_card()
        try:
            self.state = basic.swap(self.state)
        except GameError as e:
            raise Refused("swap", str(e)) from None
        self.log("game_state", state=self.state.to_json())
        return [Say(f"{self.seat} put {card_title(old)!r} under the pile: now {card_title(self.state.order_card())!r}")]

    def _act_seat(self, args: Mapping, table: Table) -> list[Effect]:
        player = self.player_arg(args)
        if self.basic:
            raise Refused("turn", f"it is {self.state.active}'s turn; the turn passes when the time runs out")
        if self.over:
            raise Refused("over", "the game is over")
        self.seat = player
        return [EmptyHands(), Seat(player), Say(f"{player}'s hands", "turn")]

    def _act_stop(self, args: Mapping, table: Table) -> list[Effect]:
        caller = self.player_arg(args)
        if self.basic:
            raise Refused("stop", "only the professional variant has \"Stop\"; here a card counts the moment it "
                                  "is fulfilled")
        if self.collapse_by is not None:
            raise Refused("collapse", "first choose how to go on after the collapse (continue or punish)")
        fulfilled = self._fulfilled(table)
        try:
            self.state, result = pro.stop(self.state, caller, fulfilled)
        except GameError as e:
            raise Refused("stop", str(e)) from None
        out: list[Effect] = [EmptyHands()]
        shown = [f"{p}: {', '.join(card_title(c) for c in cards)}" for p, cards in result.set_aside.items() if cards]
        if result.accepted:
            out.append(Say(f"stop by {caller}: " + "; ".join(shown), "score"))
        else:
            out.append(Say(f"stop by {caller}: none of {caller}'s open cards is fulfilled"
                           + (f"; set aside: {'; '.join(shown)}" if shown else ""), "refused"))
        for p, cards in result.set_aside.items():
            for c in cards:
                self.log("card_fulfilled", player=p, card=c)
        self.log("game_state", state=self.state.to_json())
        if self.over:
            out += self._won()
        elif result.round_over:
            self.log("round_ended", round=self.state.round - 1, reason="a player fulfilled their open cards")
            out += [Clear(), Say(f"round {self.state.round - 1} is over: round {self.state.round} begins on a "
                                 "cleared area", "turn")]
        return out

    def _act_continue(self, args: Mapping, table: Table) -> list[Effect]:
        culprit = self._pending_collapse()
        self.state = pro.collapse(self.state, culprit, new_round=False)
        self.collapse_by = None
        self.log("collapse_choice", choice="continue", culprit=culprit)
        return [Say("the round goes on, unpunished", "turn")]

    def _act_punish(self, args: Mapping, table: Table) -> list[Effect]:
        culprit = self._pending_collapse()
        card = args.get("card")
        if card is not None and card not in self.state.hand(culprit).done:
            raise Refused("punish", f"{culprit} has not fulfilled {card!r}")
        back = card or (self.state.hand(culprit).done[-1] if self.state.hand(culprit).done else None)
        self.state = pro.collapse(self.state, culprit, new_round=True, card=card)
        self.collapse_by = None
        self.log("collapse_choice", choice="punish", culprit=culprit, card=back)
        self.log("round_ended", round=self.state.round - 1, reason="collapse")
        self.log("game_state", state=self.state.to_json())
        what = f"puts {card_title(back)!r} back under the pile" if back else "has no fulfilled card to give back"
        return [EmptyHands(), Clear(), Say(f"{culprit} {what}; round {self.state.round} begins on a cleared area",
                                           "turn")]

    def _pending_collapse(self) -> str:
        if self.basic:
            raise Refused("collapse", "only the professional variant asks about a collapse")
        if self.collapse_by is None:
            raise Refused("collapse", "nothing has collapsed")
        return self.collapse_by

    # --- the table ----------------------------------------------------------------------------------

    def _pick(self, piece: str, table: Table, player: str) -> list[Effect]:
        if self.over:
            raise Refused("over", "the game is over")
        if self.collapse_by is not None:
            raise Refused("collapse", "the game is interrupted: choose to continue the round or punish")
        if self.basic or piece in table.supply:
            return []
        scene = _at_rest(table)
        if piece not in scene.ids:
            return []
        problems = pro.removal_problems(analyze_area(scene), [piece])
        if problems:
            raise Refused("highest-level", f"only the highest level may be taken apart: {'; '.join(problems)}")
        return []

    def _drop(self, piece: Piece, table: Table, player: str) -> list[Effect]:
        if self.over:
            raise Refused("over", "the game is over")
        return []

    def _knocked(self, pieces, player: str | None, table: Table) -> list[Effect]:
        if self.over:
            return []
        culprit = player if player in self.players else self.seat
        names = ", ".join(pieces[:5]) + (" ..." if len(pieces) > 5 else "")
        self.log("knocked", player=culprit, pieces=list(pieces))
        if self.basic:
            return [Say(f"collapse: {names} fell ({culprit}); no penalty in this game: build on", "collapse")]
        if self.collapse_by is not None:
            return []
        self.collapse_by = culprit
        return [EmptyHands(), Say(f"collapse caused by {culprit}: {names} fell. Continue the round (C), or a new "
                                  f"round and {culprit} gives back a fulfilled card (X)?", "collapse")]

    def _settled(self, table: Table) -> list[Effect]:
        self.fulfilled_now = self._fulfilled(table)
        if not self.basic or self.over:
            return []
        card = self.state.order_card()
        self.state = basic.fulfil(self.state, self.fulfilled_now)
        if self.state.order_card() == card and not self.over:
            return []
        self.log("card_fulfilled", player=self.seat, card=card)
        self.log("game_state", state=self.state.to_json())
        if self.over:
            return self._won()
        nxt = card_title(self.state.order_card())
        return [Say(f"{self.seat} fulfilled {card_title(card)!r}" + (f"; next: {nxt!r}" if nxt else ""), "score")]

    def _fulfilled(self, table: Table) -> tuple[str, ...]:
        verdict = table.verdict()
        if verdict is None:
            return ()
        return judgement(_at_rest(table), verdict).fulfilled

    def _won(self) -> list[Effect]:
        self.log("game_over", reason="every order fulfilled", winners=[self.state.winner], loser=None)
        return [EmptyHands(), Say(f"{self.state.winner} has fulfilled every order and wins!", "win")]

    # --- reading ------------------------------------------------------------------------------------

    def view(self) -> dict:
        """``{game, variant, players: [{name, pile, open: [{id, title, color, fulfilled}], done, active}], clock,
        time_left, round, prompt, winner}``."""
        s = self.state
        players = []
        for h in s.hands:
            shown = h.open[:1] if self.basic else h.open
            players.append({"name": h.name, "pile": len(h.pile), "done": len(h.done),
                            "open": [{"id": c, "title": card_title(c), "color": CARDS[c].color,
                                      "fulfilled": c in self.fulfilled_now} for c in shown],
                            "active": h.name == self.seat})
        prompt = None
        if self.collapse_by is not None:
            prompt = {"question": f"Collapse caused by {self.collapse_by}: continue the round, or a new round "
                                  f"and {self.collapse_by} gives back a fulfilled card?",
                      "choices": [["Continue (C)", "continue"], ["Punish (X)", "punish"]]}
        return {"game": self.game, "variant": self.variant, "players": players, "seat": self.seat,
                "clock": seconds_text(s.time_left), "time_left": s.time_left,
                "round": None if self.basic else s.round, "swapped": getattr(s, "swapped", None),
                "prompt": prompt, "winner": s.winner}

    def to_json(self) -> dict:
        return {"game": self.game, "variant": self.variant, "players": list(self.players), "time": self.time,
                "seat": self.seat, "collapse_by": self.collapse_by, "fulfilled_now": list(self.fulfilled_now),
                "state": self.state.to_json()}

    def outcome(self) -> dict:
        """``{winners, loser: None, scores: {player: cards fulfilled}}``."""
        s = self.state
        return {"winners": [] if s.winner is None else [s.winner], "loser": None,
                "scores": {h.name: len(h.done) for h in s.hands}}

    # --- what is legal ----------------------------------------------------------------------------------

    def legal_actions(self, table: Table) -> list[dict]:
        return moves.actions(self)

    def candidates(self, table: Table) -> list[str]:
        return [p.id for p in table.scene().pieces]

    def placements(self, piece: str, table: Table) -> list:
        return moves.placements(self, piece, table)


def _turns(state) -> int:
    return sum(1 for e in state.log if e.action == "turn")


def _at_rest(table: Table):
    """The pieces built: the table without the supply and without the pieces in a hand."""
    scene = table.scene()
    out = set(table.carried.values()) | set(table.supply)
    return scene.with_pieces(p for p in scene.pieces if p.id not in out)
