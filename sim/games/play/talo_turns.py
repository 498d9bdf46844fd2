"""What both Talo games share on the table: the die, the blocks taken from the stock boards, the hand, two blocks
placed together, the turn passing on, and the end.

:class:`StockTurns` is the part of a session that :class:`~sim.games.play.talo.TaloSession` (pawns on the grid)
and :class:`~sim.games.play.fantasy.FantasySession` (free building, no pawns) have in common. The game itself is
a rules module (``RULES``: :mod:`sim.games.talo.game` or :mod:`sim.games.talo.fantasy`) over a
:class:`~sim.games.talo.turns.TurnState`; the table's blocks keep their set-up ids (``b4-2``: the second 4 of the
stock) and the game's its own, so the session maps one to the other (``live_of``). Readings shared by both:

- **Declining**: a player may end the turn after a throw without taking blocks: they stay in the stock.
- **Taking blocks**: after a throw, picking a block off a stock board takes the one combination of the throw
  that holds its length (a 5 allows 5, 1 + 4 or 2 + 3: picking a 4 takes 1 + 4); ``take`` chooses explicitly.
  Afterwards only blocks of the lengths in hand may be picked; placed blocks stay where they are.
- **On release** a block is judged where it would land by the game's placement rules and its balance by the
  injected judge (the statics: a knife edge does not stand). A refused block goes back where it was picked up,
  with the reason, and stays in the player's hand.
- **Together** (``together``): the next two blocks are judged as one placement (a counterweight). The first is
  held where it was set down (the player's other hand, so to speak) until the second comes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import ModuleType

import numpy as np

from sim.games.contract import Judge
from sim.games.play.session import Effect, Pin, Refused, Say, Seat, Session, Table, Unpin, pose_of
from sim.games.talo.board import TaloError
from sim.games.talo.turns import BUILD, OVER, TAKE, THROW, IllegalMoveError, TurnState
from sim.pieces import dimensions as dim
from sim.scene import Piece


class StockTurns(Session):
    """The die, the stock and the hand of a Talo game on the table (see the module docstring).

    Subclasses set ``RULES`` and fill in :meth:`_put` (a block's placement from where it lands),
    :meth:`_new_ids` (the game's ids of the blocks a placement adds) and the game's own actions.

    Args:
        game: the scene format's game (``talo``).
        variant: the game's variant.
        players: the players in turn order.
        rng: the die.
        judge: the balance verdict on a building (``Scene -> Verdict``).
    """

    RULES: ModuleType
    """The game's rules: ``throw``, ``take``, ``precheck``, ``building_after``, ``place``, ``end_turn``,
    ``collapse``."""
    GROUP_RULE = ("one-at-a-time", "the blocks a throw gives are built one at a time (G: two placed together, "
                                   "the first held where it is set down)")

    def __init__(self, game: str, variant: str, players, rng: np.random.Generator, judge: Judge):
        super().__init__(game, variant, players)
        self.rng = rng
        self.judge = judge
        self.state: TurnState | None = None
        self.live_of: dict[str, str] = {}  # game block id -> table piece id
        self.together = False
        self.pending: tuple | None = None  # (piece, placement, pose): the first block of two placed together

    # --- reading --------------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.phase == OVER

    @property
    def phase(self) -> str:
        """The game's: ``throw``, ``take``, ``build``, ``over``."""
        return self.state.phase

    @property
    def current(self) -> str:
        """Whose turn it is."""
        return self.state.player

    @property
    def current_player(self) -> str | None:
        return None if self.over else self.current

    def outcome(self) -> dict:
        """``{winners, loser, scores}``; the scores are :meth:`scores`."""
        o = None if self.state is None else self.state.outcome
        return {"winners": [] if o is None else list(o.winners), "loser": None if o is None else o.loser,
                "scores": self.scores()}

    def scores(self) -> dict[str, int]:
        """Each player's score as the game counts it (Talo: the level of the pawn; Talo-Fantasy: blocks placed)."""
        raise NotImplementedError

    def stock_view(self) -> dict:
        """``{rolls, throws, options, hand, stock: {length: left}, together, pending, outcome}`` (before the
        game begins: the full stock)."""
        s = self.state
        stock = {n: dim.TALO_COUNT[n] for n in range(1, 11)} if s is None else {n: s.stock.count(n)
                                                                                 for n in range(1, 11)}
        return {"rolls": list(s.rolls) if s else [],
                "throws": 0 if s is None else sum(1 for e in s.log if e.action == "throw"),
                "options": [list(o) for o in s.options] if s else [], "hand": list(s.hand) if s else [],
                "stock": stock, "together": self.together,
                "pending": None if self.pending is None else self.pending[0],
                "outcome": None if s is None or s.outcome is None else s.outcome.to_json()}

    def turn_json(self) -> dict:
        """What the turn holds besides the game's state: ``{together, pending: {piece, pose}}``."""
        return {"together": self.together, "pending": None if self.pending is None else
                {"piece": self.pending[0], "pose": list(self.pending[2])}}

    def _game(self) -> TurnState:
        return self.state

    # --- actions --------------------------------------------------------------------------------------

    def _act_throw(self, args: Mapping, table: Table) -> list[Effect]:
        s = self._game()
        player = s.player
        try:
            self.state = self.RULES.throw(s, self.rng)
        except TaloError as e:
            raise Refused("throw", reason(e)) from None
        got = self.state.rolls if self.state.player == player else last_rolls(self.state, player)
        self.log("rolled", player=player, rolls=list(got))
        if self.state.player != player:  # nothing matched after three throws
            return self._next_turn(f"{player} threw {', '.join(map(str, got))}: no blocks match; the turn passes")
        options = " | ".join("+".join(map(str, o)) for o in self.state.options)
        return [Say(f"{player} threw {got[-1]}: take {options} (pick a block from the stock)")]

    def _act_take(self, args: Mapping, table: Table) -> list[Effect]:
        s = self._game()
        try:
            self.state = self.RULES.take(s, [int(n) for n in args["blocks"]])
        except TaloError as e:
            raise Refused("take", reason(e)) from None
        return [Say(f"{s.player} takes {' + '.join(map(str, self.state.hand))}")]

    def _act_together(self, args: Mapping, table: Table) -> list[Effect]:
        s = self._game()
        if self.pending is not None:  # called off: the held block goes back to the stock, still in hand
            piece = self.pending[0]
            self.pending, self.together = None, False
            return [Unpin(piece, home=True), Say(f"{piece} goes back: placed together no more")]
        if self.together:
            self.together = False
            return [Say("the next block is placed on its own")]
        if s.phase != BUILD or len(s.hand) < 2:
            raise Refused("together", "two blocks in hand are needed to place them together")
        self.together = True
        return [Say("the next two blocks are placed together: set the first down, it is held until the second")]

    def _act_end_turn(self, args: Mapping, table: Table) -> list[Effect]:
        s = self._game()
        if self.pending is not None:
            raise Refused("together", f"{self.pending[0]} waits for the block placed with it (or call it off: G)")
        try:
            if s.phase == TAKE:  # nothing taken: the throw's blocks stay in the stock
                s = self.RULES.take(s, s.options[0])
            self.state = self.RULES.end_turn(s)
        except TaloError as e:
            raise Refused("turn", reason(e)) from None
        if self.over:
            return self._ended()
        return self._next_turn(f"{s.player} ends the turn")

    def _next_turn(self, said: str) -> list[Effect]:
        self.together = False
        self.log("turn_changed", player=self.current)
        self.log("game_state", state=self.state.to_json())
        return [Seat(self.current), Say(f"{said}. {self.current}'s turn: throw the die (X){self._turn_hint()}",
                                        "turn")]

    def _turn_hint(self) -> str:
        """What the next player should know besides the throw (Talo: a blockaded pawn)."""
        return ""

    def _ended(self) -> list[Effect]:
        o = self.state.outcome
        self.log("game_over", reason=o.reason, winners=list(o.winners), loser=o.loser)
        who = " and ".join(o.winners) or "nobody"
        lost = f"; {o.loser} caused it and loses" if o.loser else ""
        return [Say(f"game over ({o.reason}){lost}: {who} wins", "win")]

    def _collapsed(self, fallen, player: str | None, pieces) -> list[Effect]:
        """Built blocks (the game's ids ``fallen``; the table's ``pieces``) knocked down by ``player``'s action: the
        game's collapse rule ends it."""
        culprit = player if player in self.players else self.state.player
        self.log("knocked", player=culprit, pieces=list(pieces))
        self.state = self.RULES.collapse(self.state, culprit, fallen)
        self.pending = None
        return [Say(f"collapse: {', '.join(fallen)} fell ({culprit})", "collapse"), *self._ended()]

    # --- the table ------------------------------------------------------------------------------------

    def _pick_block(self, piece: str, length: int, table: Table) -> list[Effect]:
        """A block picked from the stock boards: what the throw allows, what is in hand."""
        if piece not in table.supply:
            raise Refused("placed", f"{piece} is built in; placed blocks stay where they are")
        s = self._game()
        if s.phase == THROW:
            raise Refused("turn", f"{s.player}: throw the die first (X)")
        if s.phase == TAKE:
            combo = next((o for o in s.options if length in o), None)
            if combo is None:
                allowed = " | ".join("+".join(map(str, o)) for o in s.options)
                raise Refused("take", f"a throw of {s.rolls[-1]} allows {allowed}; no block of length {length}")
            self.state = self.RULES.take(s, combo)
            return [Say(f"{s.player} takes {' + '.join(map(str, combo))}")]
        free = list(s.hand)
        if self.pending is not None:
            free.remove(self.pending[1].length)
        if length not in free:
            have = " + ".join(map(str, free)) or "nothing"
            raise Refused("hand", f"no block of length {length} in hand (holding {have})")
        return []

    def drop_refusal(self, piece: Piece, table: Table, player: str | None = None) -> Refused | None:
        """Why ``piece`` set down as it lies would be refused now, balance aside (None: it would not be); nothing
        changes. The drop's own check but the statics (asked by the legal placements and the window's ghost)."""
        who = self._actor(player)
        try:
            self._for(who)
            self._game()
            self._checked_puts(self._put(piece.id, int(piece.params["length"]), pose_of(piece)))
        except Refused as r:
            return r
        return None

    def _checked_puts(self, put) -> list:
        """The placements judged together with ``put`` now (the first of two, if one waits, and ``put``), every
        building rule but balance checked.

        Raises:
            Refused: not the time, not in hand, or a rule broken (the waiting block goes home with it).
        """
        puts = [put] if self.pending is None else [self.pending[1], put]
        try:
            self.RULES.precheck(self._game(), puts)
        except IllegalMoveError as e:
            undo = [Unpin(self.pending[0], home=True)] if self.pending is not None else []
            raise Refused(e.violations[0].rule, reason(e), undo) from None
        return puts

    def _drop(self, block: Piece, table: Table, player: str) -> list[Effect]:
        s = self._game()
        piece, pose = block.id, pose_of(block)
        put = self._put(piece, int(block.params["length"]), pose)
        try:
            puts = self._checked_puts(put)
        except Refused:
            if self.pending is not None:  # the two placed together go back, still in hand
                self.pending, self.together = None, False
            raise
        if self.together and self.pending is None:
            self.pending = (piece, put, pose)
            return [Pin(piece, pose), Say(f"{piece} is held where it was set down: now the block placed with it")]
        first = self.pending
        undo = [Unpin(first[0], home=True)] if first is not None else []
        try:
            verdict = self.judge(self.RULES.building_after(s, puts))
            self.state = self.RULES.place(s, puts, verdict)
        except IllegalMoveError as e:
            self.pending, self.together = None, False
            pieces = ([first[0]] if first is not None else []) + [piece]
            raise Refused(e.violations[0].rule, self._table_reason(e, s, puts, pieces), undo) from None
        self.pending, self.together = None, False
        pieces = ([first[0]] if first is not None else []) + [piece]
        self.live_of.update(zip(self._new_ids(s, puts), pieces))
        out: list[Effect] = [Unpin(first[0])] if first is not None else []
        self.log("placed", player=s.player, pieces=pieces)
        self.log("game_state", state=self.state.to_json())
        if self.over:
            return out + self._ended()
        return out + [Say(f"{s.player} placed {self._where(pieces, puts)}")]

    def _table_reason(self, e: IllegalMoveError, state, puts, pieces) -> str:
        """The players' sentence for a refused placement of ``pieces`` (the table's ids, in the order set
        down), with every block named as the table names it: the game numbers its own as they are built
        (``b2``: the second), which a player would read as a block of length 2. A balance refusal names the
        blocks that would fall because of this placement, the one set down last first."""
        names = dict(self.live_of)
        names.update(zip(self._new_ids(state, puts), pieces))
        out = []
        for v in e.violations:
            fallen = [names.get(g, g) for g in v.pieces]
            if v.rule == "balance" and any(g in names for g in v.pieces) and "would fall" in v.reason:
                first = [p for p in reversed(pieces) if p in fallen]
                out.append("the building does not stand on its own: "
                           f"{', '.join(first + sorted(set(fallen) - set(first)))} would fall")
            else:
                out.append(re.sub(r"(?<![\w-])b\d+(?![\w-])", lambda m: names.get(m.group(0), m.group(0)), v.reason))
        return "; ".join(out)

    # --- what the games fill in --------------------------------------------------------------------------

    def _put(self, piece: str, length: int, pose):
        """The game's placement of a block of ``length`` landing at ``pose`` (7,); a refusal when it cannot be."""
        raise NotImplementedError

    def _new_ids(self, state, puts) -> list[str]:
        """The game's ids of the blocks ``puts`` add to ``state``."""
        raise NotImplementedError

    def _where(self, pieces, puts) -> str:
        """Where the pieces were placed, for the players."""
        return " and ".join(pieces)


def reason(e: Exception) -> str:
    """The players' sentence for a refused move."""
    if isinstance(e, IllegalMoveError):
        return "; ".join(v.reason for v in e.violations)
    return str(e)


def last_rolls(state, player: str) -> list[int]:
    """The rolls of ``player``'s last throw, from the log (the turn has passed on)."""
    for e in reversed(state.log):
        if e.action == "throw" and e.player == player:
            return list(e.data["rolls"])
    return []


__all__ = ["StockTurns", "last_rolls", "reason"]
