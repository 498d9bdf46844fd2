"""The referee's record: every call made of a game's session, with what it read of the table, so that the same
session can be made again from the set-up by playing the record back (a saved game, :mod:`sim.viewer.play.save`).

A session is pure and deterministic (:mod:`sim.games.play.session`): the same calls with the same answers of
the table give the same session, bit for bit: its game state, its die's random stream, its journal. A
:class:`Tape` makes every call the referee makes of its session (:data:`CALLS`, one dispatch table for both
ways) and keeps it as JSON data with the table's answers read during it (the pieces' poses, the supply, the
hands, the statics' verdict) and the verdicts of the session's own judge (Talo's balance). Its inputs are the
JSON form of what the referee hands over, in both ways, so that the session sees the same values live and
played back. :func:`replay` makes the calls again of a new session of the same set-up, answering from the
record: no world, no statics. Ticks are kept a run of equal lengths at a time, each length exactly.

A record that does not replay (edited, or of another version) raises :class:`~sim.fieldcheck.FieldError`
naming the call.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np

from sim.errors import TowerlabError
from sim.fieldcheck import Field, FieldError
from sim.games.contract import Verdict
from sim.scene import Piece, Scene

CALLS: dict[str, Callable] = {
    "act": lambda s, t, name, args: s.act(name, args, t),
    "pick": lambda s, t, piece, player=None: s.pick(piece, t, player),
    "drop": lambda s, t, piece, pose, player=None: s.drop(t.setup_piece(piece).moved(pose[:3], pose[3:]), t, player),
    "knocked": lambda s, t, pieces, player: s.knocked(pieces, player, t),
    "settled": lambda s, t: s.settled(t),
    "tick": lambda s, t, seconds: s.tick(seconds, t),
    "areas": lambda s, t: s.areas(t),
}
"""Every call the referee makes of its session: kind -> ``call(session, table, *args)`` (a pick's and a drop's
player is recorded only when it is not the one whose hands are at work: a hand of its own where everyone builds
at once)."""
MAX_CALLS = 5_000_000
"""The most calls a record may hold (ticks counted one a run)."""


def _plain(value):
    """The JSON form of what a call is handed (arrays and tuples as lists, floats exactly)."""
    return json.loads(json.dumps(value, default=lambda v: v.tolist() if isinstance(v, np.ndarray) else list(v),
                                 allow_nan=False))


def verdict_json(v: Verdict | None) -> dict | None:
    """A verdict as the record keeps it (its settled scene is no part of it)."""
    return None if v is None else {"stable": bool(v.stable), "margin_g": None if v.margin_g is None else
                                   float(v.margin_g), "knocked_down": sorted(v.knocked_down)}


class Tape:
    """The record of a session's calls (see the module docstring).

    Args:
        session: the session.
        table: the table it reads (:class:`~sim.viewer.play.table.ControllerTable`).

    Attributes:
        calls: the record, JSON data: ``[kind, args, reads, failed]`` a call, ``["ticks", [[seconds, n], ...]]``
            a run of ticks that read nothing.
    """

    def __init__(self, session, table):
        self.session = session
        self.calls: list = []
        self.table = _Recording(table, self)
        self._reads: list | None = None
        judge = getattr(session, "judge", None)
        if callable(judge):  # the game's own judge (Talo's balance): its verdicts are kept too
            session.judge = self._judging(getattr(judge, "__wrapped__", judge))

    def ask(self, kind: str, *args):
        """Make the call ``kind`` of the session with ``args`` (as their JSON form), keeping it."""
        args = _plain(list(args))
        self._reads = []
        failed = False
        try:
            return CALLS[kind](self.session, self.table, *args)
        except TowerlabError:
            failed = True
            raise
        finally:
            reads, self._reads = self._reads, None
            self._keep(kind, args, reads, failed)

    def _keep(self, kind: str, args: list, reads: list, failed: bool) -> None:
        if kind == "tick" and not reads and not failed:
            last = self.calls[-1] if self.calls else None
            if last is None or last[0] != "ticks":
                self.calls.append(["ticks", []])
            runs = self.calls[-1][1]
            if runs and runs[-1][0] == args[0]:
                runs[-1][1] += 1
            else:
                runs.append([args[0], 1])
            return
        self.calls.append([kind, args, reads, failed])

    def read(self, what: str, value):
        """Keep an answer of the table (``what``: its kind) in the call being made, and give it."""
        if self._reads is None:
            raise RuntimeError(f"the table was read ({what}) outside a call of the tape")
        self._reads.append([what, value])

    def _judging(self, judge):
        def judged(scene):
            verdict = judge(scene)
            self.read("judge", verdict_json(verdict))
            return verdict
        judged.__wrapped__ = judge
        return judged


class _Recording:
    """The table a session reads, each answer kept on the tape."""

    def __init__(self, table, tape: Tape):
        self._table = table
        self._tape = tape

    def scene(self) -> Scene:
        scene = self._table.scene()
        self._tape.read("scene", {"ids": list(scene.ids), "poses": scene.poses().tolist()})
        return scene

    @property
    def supply(self) -> frozenset[str]:
        supply = self._table.supply
        self._tape.read("supply", sorted(supply))
        return supply

    @property
    def carried(self):
        carried = dict(self._table.carried)
        self._tape.read("carried", carried)
        return carried

    def home(self, piece_id: str):
        return self._table.home(piece_id)  # the set-up's: the same for any session of it

    def setup_piece(self, piece_id: str) -> Piece:
        return self._table.setup_piece(piece_id)  # the set-up's too

    def verdict(self):
        v = self._table.verdict()
        self._tape.read("verdict", verdict_json(v))
        return v


# --- playing it back ---------------------------------------------------------------------------------------


def replay(session, field: Field, scene: Scene) -> list:
    """Make the record's calls again of ``session`` (new, of the same set-up), answering from the record.

    Args:
        session: the session.
        field: the record (:attr:`Tape.calls` as data).
        scene: the set-up (its pieces; where each was put).

    Returns:
        The record, checked (to go on with).

    Raises:
        FieldError: the record is not what a tape writes, or does not replay (the path names the call).
    """
    table = _Answering(scene)
    judge = getattr(session, "judge", None)
    if callable(judge):
        session.judge = table.judge
    try:
        for k, call in enumerate(field.items(MAX_CALLS)):
            _replay_one(session, table, call, k)
    finally:
        if callable(judge):
            session.judge = judge
    return field.value


def _replay_one(session, table: _Answering, call: Field, k: int) -> None:
    items = call.items(4, 2)
    kind = items[0].one_of((*CALLS, "ticks"))
    if kind == "ticks":
        table.reads = []
        for run in items[1].items(MAX_CALLS):
            seconds, n = run.items(2, 2)
            dt, count = seconds.number(0.0, 1.0), n.integer(1, 10**9)
            for _ in range(count):
                _made(session, table, call, "tick", [dt], False)
        return
    if len(items) != 4:
        raise call.fail("expected [kind, args, reads, failed]")
    args = items[1].items(4)
    table.reads = [(r.items(2, 2)[0].one_of(_Answering.KINDS), r.items(2, 2)[1]) for r in items[2].items(10**5)]
    _made(session, table, call, kind, [a.value for a in args], items[3].flag())
    if table.reads:
        raise call.fail(f"the call read less of the table than the record holds ({len(table.reads)} left)")


def _made(session, table: _Answering, call: Field, kind: str, args: list, failed: bool) -> None:
    try:
        CALLS[kind](session, table, *args)
        raised = None
    except FieldError as e:
        raise FieldError(e.path or call.path, e.message) from None
    except TowerlabError as e:
        raised = e
    except Exception as e:  # noqa: BLE001 - a record from a file drove the session where no game goes
        raise call.fail(f"the call does not replay ({type(e).__name__}: {e})") from None
    if (raised is not None) != failed:
        raise call.fail("the call " + ("failed" if raised else "succeeded") + " where the record says otherwise")


class _Answering:
    """The table as the record answers it, read by read, in order."""

    KINDS = ("scene", "supply", "carried", "verdict", "judge")

    def __init__(self, scene: Scene):
        self._scene = scene
        self._by_id = {p.id: p for p in scene.pieces}
        self._homes = {p.id: tuple(float(x) for x in (*p.pos, *p.quat)) for p in scene.pieces}
        self.reads: list[tuple[str, Field]] = []

    def _next(self, what: str) -> Field:
        if not self.reads or self.reads[0][0] != what:
            got = self.reads[0][0] if self.reads else "nothing"
            raise FieldError("", f"the session read the table's {what} where the record holds {got}")
        return self.reads.pop(0)[1]

    def scene(self) -> Scene:
        f = self._next("scene").object(("ids", "poses"))
        ids = f["ids"].ids(self._by_id)
        poses = f["poses"].floats((len(ids), 7))
        return self._scene.with_pieces(self._by_id[i].moved(p[:3], p[3:]) for i, p in zip(ids, poses))

    @property
    def supply(self) -> frozenset[str]:
        return frozenset(self._next("supply").ids(self._by_id))

    @property
    def carried(self) -> dict:
        out = {}
        for hand, f in self._next("carried").entries(8):
            piece = f.text()
            if piece not in self._by_id:
                raise f.fail("expected a piece of the game")
            out[hand] = piece
        return out

    def home(self, piece_id: str):
        return self._homes[piece_id]

    def setup_piece(self, piece_id: str) -> Piece:
        """The set-up's piece of that id (a drop's piece is it, where it lands).

        Raises:
            FieldError: no piece of the game.
        """
        if piece_id not in self._by_id:
            raise FieldError("", f"expected a piece of the game, got {piece_id!r}")
        return self._by_id[piece_id]

    def verdict(self):
        return _verdict(self._next("verdict"), self._by_id)

    def judge(self, scene):
        return _verdict(self._next("judge"), None)


def _verdict(f: Field, known) -> Verdict | None:
    if f.is_null():
        return None
    f.object(("stable", "margin_g", "knocked_down"))
    down = f["knocked_down"].items(10**4)
    ids = frozenset(g.text() for g in down)
    if known is not None and not ids <= set(known):
        raise f["knocked_down"].fail("expected pieces of the game")
    return Verdict(f["stable"].flag(), None if f["margin_g"].is_null() else f["margin_g"].number(-1e3, 1e3), ids)


__all__ = ["CALLS", "Tape", "replay", "verdict_json"]
