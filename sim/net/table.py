"""The authoritative table: one game played on the server, frame by frame, as ``towerlab play --offscreen`` plays it.

A :class:`ServedTable` holds the same headless controller and referee as the play window (``threaded=False``: the
statics judge at once, so that the same actions at the same frames give the same game, bit for bit). It knows
nothing of the network: the server (:mod:`sim.net.server`) hands it each seat's actions with
:meth:`ServedTable.submit` between frames and runs :meth:`ServedTable.step` sixty times a second of wall time.

**Seats.** A seat acts only for itself: on its turn in a game of turns; at any time where everyone builds at
once (Babylon's fast game, Tohuwabohu's professional one), each seat with hands of its own (the controller's hands
per seat: ``red``, and ``red-left`` where the game is built with two), so that every seat carries at once: a
seat's hand actions name its own hands (``right``/``left`` or none are read as its own, another seat's is
``not-yours``), its picks and drops are judged for it, and the actions no hand does (a poke, a pull) are blamed
on it. A ``player`` field is the seat's own. The camera's, the view's and the table's own actions (pause, save,
undo ...) are not a seat's.

**The log.** Everything that reaches the controller is logged with the frame it came before: the seats'
actions as their JSON, and the table's own doings (``hold``/``release`` of the game's clock, ``put-back`` of a
hand of a seat that left). :func:`replay` plays a log on a new table without the network and the wall clock:
the same game, the same recording, bit for bit. That is how "no action is lost" is checked.

**Absent seats** hold the game's clock (``waiting for red``): every seat until it has joined once, then the seat
needed now (whose turn it is; anyone where everyone builds at once) while it is gone. After ``seat_timeout``
seconds the table's setting decides: ``pause`` (the clock waits until the seat is back) or ``go-on`` (the clock
runs; an untimed turn of the absent seat is ended for it). A seat that leaves with a piece in hand has it put
back where it was picked up (its own hands alone, where each seat has hands of its own).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sim.viewer.control.actions import Action, ActionError, RefusalError, specs_with, with_hands
from sim.viewer.control.actions import action as checked_action

FRAME = 1.0 / 60.0
"""A frame of the table (s): the scripted frame of the controller."""
ABSENT = ("pause", "go-on")
"""What the table does once an absent seat's time is up."""
HANDS_ACTIONS = frozenset({"move-to", "lift", "lower", "rotate", "tip", "flip", "orient", "drop", "cancel", "hand"})
"""Actions on the hands at work: the seat whose hands they are."""
SECOND_HAND = "left"
"""The hot seat's name of a player's second hand (Tohuwabohu's left), read at a table of hands per seat as the
seat's own second hand."""
TAKE_ACTIONS = frozenset({"pick", "pick-group", "poke", "pull", "release-pull"})
"""Actions that put the table's hands to work."""
LOCAL_ACTIONS = frozenset({"camera", "orbit", "pan", "zoom", "toggle", "hover", "follow", "screenshot"})
"""The window's own actions: done in the window, never sent."""
ANYONE = frozenset({"next-round", "continue", "punish"})
"""The table's decisions that any seat may take at any time (a new round; the players' choice after a collapse)."""
TABLE_RULE = "the table's, not a seat's"


@dataclass(frozen=True)
class Setup:
    """What a table plays: the game's set-up.

    Attributes:
        game, variant, players, seed, turn_seconds: as ``towerlab play`` takes them (None: the defaults).
    """

    game: str
    variant: str | None = None
    players: tuple[str, ...] | None = None
    seed: int = 0
    turn_seconds: float | None = None

    def to_json(self) -> dict:
        return {"game": self.game, "variant": self.variant, "players": None if self.players is None else
                list(self.players), "seed": self.seed, "turn_seconds": self.turn_seconds}


class ServedTable:
    """One game on the server (see the module docstring).

    Args:
        setup: the game.
        saved: a saved game (:class:`sim.viewer.play.save.SavedGame`) to go on from (its set-up is the game's).
        record: the recording's path, or None for none.
        key: the table's key (:class:`sim.replay.signing.TableKey`) its recording is signed with, or None.
        absent: :data:`ABSENT`: what happens once an absent seat's time is up.
        seat_timeout: seconds of the table an absent seat is waited for.
        live: the table decides for absent seats (False: a replay, which does only what its log says).
    """

    def __init__(self, setup: Setup, *, saved=None, record: Path | None = None, absent: str = "pause",
                 seat_timeout: float = 60.0, live: bool = True, key=None):
        from sim.cli.play import game_controller
        from sim.viewer.play.games import new_game
        from sim.viewer.play.mode import Referee

        if absent not in ABSENT:
            raise ValueError(f"absent: expected one of {', '.join(ABSENT)}, got {absent!r}")
        self.setup = setup
        game = new_game(setup.game, setup.players, setup.variant, setup.seed, setup.turn_seconds)
        self.recording = None
        if record is not None:
            from sim.viewer.control.recording import SessionRecording

            self.recording = SessionRecording(record, setup.seed, game.session.players, game.session.variant,
                                              key=key)
        self.referee = Referee(game, self.recording)
        seats = tuple(game.session.players) if game.session.simultaneous else ()
        self.controller = game_controller(game, self.referee, self.recording, saved, threaded=False, size=(1280, 800),
                                          seat_hands=seats)
        self.variant = game.variant
        self.players: tuple[str, ...] = tuple(game.session.players)
        self.pieces: tuple[str, ...] = tuple(game.scene.ids)
        self.specs = with_hands(specs_with(self.controller.plugins), self.controller.hand_names)
        self.absent, self.seat_timeout, self.live = absent, float(seat_timeout), live
        self.legal_moves = False  # the state says what is legal (:meth:`start_legal`: a served table's)
        self.frame_no = 0
        self.log: list[dict] = []
        self.present = {p: False for p in self.players}
        self.joined_once: set[str] = set()
        self.gone_at: dict[str, int] = {}  # seat -> the frame it left (absent seats that had joined)
        self._ended: set[tuple[str, int]] = set()  # (seat, turn) whose turn the table ended for it
        self.holds: set[str] = set()
        self._pulling: dict[str, str] = {}  # piece -> the seat that pulled it last (hands per seat)
        self._absences()

    # --- reading -----------------------------------------------------------------------------------

    @property
    def session(self):
        return self.referee.session

    @property
    def simultaneous(self) -> bool:
        """Everyone builds at once, each seat with hands of its own (the session's
        :attr:`~sim.games.play.session.Session.simultaneous`)."""
        return bool(self.controller.state.seat_hands)

    @property
    def time(self) -> float:
        """The table's time (s): frames run times :data:`FRAME`."""
        return self.frame_no * FRAME

    def state(self) -> dict:
        """The game as the clients see it (a ``state`` message's fields)."""
        c, s = self.controller, self.session
        hands = {h: {"piece": st.piece, "pieces": list(st.pieces), "player": c.player_of(h)}
                 for h, st in c.hands.items()}
        out = {"view": _data(self.referee.view()), "seat": s.seat, "current": s.current_player, "over": s.over,
               "stands": self.referee.clock_stands(), "hands": hands, "summary": self.referee.summary(),
               "seats": {p: {"present": self.present[p], "joined": p in self.joined_once} for p in self.players}}
        if self.legal_moves:
            out["legal"] = self.legal()
        return out

    def start_legal(self) -> None:
        """From now on :meth:`state` says what is legal for every carried piece (``legal``), worked out on a thread of
        the referee's own (:class:`~sim.viewer.play.legal.LegalMoves`), so that no frame waits for it."""
        self.referee.legal.start()
        self.legal_moves = True

    def legal(self) -> dict:
        """Hand -> what is legal now for the piece it carries, once the referee has worked it out: ``{piece, pending,
        rules, places: [[x, y, z] m, ...] (where each place shows on the table), ghost: {pose, legal, rule, reason} |
        None}`` (:meth:`~sim.viewer.play.legal.Legal.to_json`). Nothing of the game changes."""
        known = self.referee.legal_now()
        return {h: k.to_json(self.referee.table.setup_piece(k.piece)) for h, k in sorted(known.items())
                if k.places is not None}

    # --- the seats' actions ------------------------------------------------------------------------

    def submit(self, seat: str, data: dict) -> dict:
        """A seat's action (the viewer's action dict, hostile): done, or refused with the rule and why.

        Returns:
            ``{"ok": True, "played": True}`` or ``{"ok": False, "rule": ..., "reason": ..., "played": ...}``:
            ``played`` says whether the action reached the game (and its log); a refusal before it
            (``malformed``, ``turn``, ``not-yours``, ``not-carrying``, ``local``, ``table``, ``over``) changes
            nothing.
        """
        if seat not in self.players:
            return _no("seat", f"{seat!r} is not a seat of this table")
        try:
            a = checked_action(data, "action", self.specs)
        except ActionError as e:
            return _no("malformed", str(e))
        refusal = self._policy(seat, a)
        if refusal is not None:
            return refusal
        return self._apply(seat, self.as_seats(seat, a))

    def as_seats(self, seat: str, a: Action) -> Action:
        """``a`` as the table logs it for ``seat`` (a permitted action): a ``player`` not given is the seat,
        a hand where each seat has hands of its own is the seat's own (checked by the policy before)."""
        if "player" in a.args and a["player"] is None:
            a = Action(a.name, {**a.args, "player": seat}, a.where)
        if self.simultaneous and "hand" in a.args:
            a = Action(a.name, {**a.args, "hand": own_hand(seat, a["hand"])}, a.where)
        return a

    def _policy(self, seat: str, a: Action) -> dict | None:
        """Why the seat may not do ``a`` now (None: it may): the network's rules, before the game's."""
        s, c = self.session, self.controller
        if a.name in LOCAL_ACTIONS:
            return _no("local", f"{a.name!r} is the window's own: done in the window, not at the table")
        if a.name == "seat" or a.name in _TABLE_ONLY:
            return _no("table", f"{a.name!r} is {TABLE_RULE}")
        if a.args.get("player") not in (None, seat):
            return _no("not-yours", f"{seat} acts for {seat} alone, not for {a['player']}")
        if s.over:
            return _no("over", "the game is over")
        if a.name in ANYONE:
            return None
        if not self.simultaneous:
            if s.current_player != seat:  # whose turn it is (Talo's start fields too), not whose hands were last
                return _no("turn", f"it is {s.current_player}'s turn, not {seat}'s")
            return None
        if a.name == "hand":
            return _no("local", "each seat's actions name its own hands: there is no hand to switch to at the table")
        if "hand" in a.args:
            hand = own_hand(seat, a["hand"])
            if c.state.seat_hands.get(hand) != seat:
                return _no("not-yours", f"{seat} works with {seat}'s hands ({', '.join(c.hands_for(seat))}), not "
                                        f"with {a['hand']}")
            if a.name in HANDS_ACTIONS and hand not in c.hands:
                return _no("not-carrying", f"{seat}'s hand {hand} holds nothing")
        return None

    def _apply(self, seat: str, a: Action) -> dict:
        """Do ``a`` for ``seat`` on the controller (logged): done, or refused by the game. Where each seat has
        hands of its own, what no hand does (a poke, a pull, a game's action) is the seat's from now on."""
        self.log.append({"frame": self.frame_no, "seat": seat, "action": a.to_json()})
        if self.simultaneous:
            self.controller.port.seat(seat)
            if a.name == "pull":
                self._pulling[a["piece"]] = seat
        return self._do(a)

    def _do(self, a: Action) -> dict:
        session = self.session
        start = len(session.journal)
        try:
            self.controller.apply(a)
        except RefusalError as e:
            refused = [x for x in session.journal[start:] if x.kind == "refused"] if session is self.session else []
            rule = dict(refused[-1].data).get("rule", "refused") if refused else "refused"
            return _no(rule, e.reason, played=True)
        except ActionError as e:
            return _no("cannot", e.reason, played=True)
        if session is self.session:  # a game's action the rules refuse is said and logged, not raised
            refused = [x for x in session.journal[start:] if x.kind == "refused"]
            if refused:
                data = dict(refused[-1].data)
                return _no(data.get("rule", "refused"), data.get("reason", ""), played=True)
        return {"ok": True, "played": True}

    # --- the seats coming and going ----------------------------------------------------------------

    def joined(self, seat: str) -> None:
        """The seat's player is at the table (joined, or back)."""
        self.present[seat] = True
        self.joined_once.add(seat)
        self.gone_at.pop(seat, None)
        self._absences()

    def left(self, seat: str) -> None:
        """The seat's player is gone: a piece in its hands goes back where it was picked up (one already being set
        down lands), a pull is let go; the seat waits."""
        self.present[seat] = False
        self.gone_at[seat] = self.frame_no
        c = self.controller
        if self.simultaneous:  # its own hands alone; a piece being set down is let land
            for hand in [h for h, st in c.hands.items() if st.lowering is None and c.player_of(h) == seat]:
                self._control("put-back", hand=hand)
            for piece in sorted(p for p, who in self._pulling.items() if who == seat and p in c.world.pulls()):
                self._control("release-pull", piece=piece)
        elif self.session.current_player == seat:  # its turn: its hands at work; a piece being set down is let land
            for hand in [h for h, st in c.hands.items() if st.lowering is None]:
                self._control("put-back", hand=hand)
            if c.world.pulls():
                self._control("release-pull")
        self._absences()

    def _absences(self) -> None:
        """The game clock's holds for the seats absent now (logged as the table's own doings)."""
        if not self.live:
            return
        s = self.session
        want = set()
        for p in self.players:
            if self.present[p]:
                continue
            if p not in self.joined_once:
                want.add(f"waiting for {p} to join")
                continue
            needed = self.simultaneous or s.current_player == p
            timed_out = (self.frame_no - self.gone_at.get(p, self.frame_no)) * FRAME >= self.seat_timeout
            if needed and (self.absent == "pause" or not timed_out):
                want.add(f"waiting for {p}")
            elif needed and timed_out and not self.simultaneous and "end-turn" in s.ACTIONS and not s.over:
                turn = sum(1 for e in s.journal if e.kind == "turn_changed")
                if (p, turn) not in self._ended:
                    self._ended.add((p, turn))
                    self._apply(p, Action("end-turn", {}, "action"))
        for reason in sorted(self.holds - want):
            self._control("release", reason=reason)
        for reason in sorted(want - self.holds):
            self._control("hold", reason=reason)

    def _control(self, what: str, **args) -> None:
        """One of the table's own doings, logged and done."""
        self.log.append({"frame": self.frame_no, "control": what, **args})
        self._do_control(what, args)

    def _do_control(self, what: str, args: dict) -> None:
        c = self.controller
        if what == "hold":
            self.holds.add(args["reason"])
            self.referee.hold(args["reason"], True)
        elif what == "release":
            self.holds.discard(args["reason"])
            self.referee.hold(args["reason"], False)
        elif what == "put-back":
            if args["hand"] in c.hands:
                c.put_back(args["hand"])
        elif what == "release-pull":
            c.apply(Action("release-pull", {"piece": args.get("piece")}, "table"))
        else:
            raise ValueError(f"a table's log holds no control {what!r}")

    # --- time --------------------------------------------------------------------------------------

    def step(self):
        """One frame: the game's clock and the world advance by :data:`FRAME`; the live world's Advance."""
        if self.live and self.gone_at:
            self._absences()
        adv = self.controller.frame()
        self.frame_no += 1
        return adv

    def close(self) -> None:
        """The game ends here: the recording closed (its manifest written), the world freed."""
        self.controller.close()

    # --- a log played again ------------------------------------------------------------------------

    def play_entry(self, entry: dict) -> None:
        """Do one entry of another table's log (at this table's frame: the caller keeps them in step)."""
        if "control" in entry:
            self.log.append(dict(entry))
            self._do_control(entry["control"], {k: v for k, v in entry.items() if k not in ("frame", "control")})
            return
        self._apply(entry["seat"], checked_action(entry["action"], "action", self.specs))


def replay(setup: Setup, log: list[dict], frames: int, *, saved=None, record: Path | None = None) -> ServedTable:
    """A new table that plays ``log`` (another table's, of the same set-up and saved game) for ``frames`` frames,
    with no network and no wall clock: the game that table played, bit for bit. Closed at the end when
    recorded (the recording is then whole); the caller closes it otherwise.

    Raises:
        ValueError: the log's frames are not in order, or lie past ``frames``.
    """
    t = ServedTable(setup, saved=saved, record=record, live=False)
    i = 0
    for k in range(frames + 1):
        while i < len(log) and log[i]["frame"] == k:
            t.play_entry(log[i])
            i += 1
        if i < len(log) and log[i]["frame"] < k:
            raise ValueError(f"log[{i}]: frame {log[i]['frame']} comes after frame {k}")
        if k < frames:
            t.step()
    if i < len(log):
        raise ValueError(f"log[{i}]: frame {log[i]['frame']} lies past the {frames} frames played")
    if record is not None:
        t.close()
    return t


def own_hand(seat: str, hand: str | None) -> str:
    """The hand of ``seat`` an action names at a table of hands per seat: its own hand's name as it is; none or the
    hot seat's ``right`` its first hand (named after the seat); ``left`` its second (``SEAT-left``); any other name
    as it is (another seat's hand: not the seat's to use)."""
    if hand is None or hand == "right":
        return seat
    if hand == SECOND_HAND:
        return f"{seat}-{SECOND_HAND}"
    return hand


_TABLE_ONLY = frozenset({"pause", "resume", "speed", "step", "wait", "save", "load", "save-game", "undo", "redo",
                         "reset", "recover", "step-back", "add", "remove"})
"""The viewer's actions that change the whole session: the server's alone."""


def _no(rule: str, reason: str, played: bool = False) -> dict:
    """A refusal: by the game when ``played`` (the action reached it and is in the log), else by the table before
    the game (nothing changed)."""
    return {"ok": False, "rule": rule, "reason": reason, "played": played}


def _data(value):
    """A view as JSON data (tuples as lists, numpy numbers as Python's)."""
    return json.loads(json.dumps(value, default=_plain))


def _plain(v):
    import numpy as np

    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, set | frozenset):
        return sorted(v)
    raise TypeError(f"{type(v).__name__} is not JSON data")


__all__ = ["ABSENT", "FRAME", "Setup", "ServedTable", "replay"]
