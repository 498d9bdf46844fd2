"""The viewer's table as a referee reads it, and the referee's effects carried out on it.

:class:`ControllerTable` is :class:`sim.games.play.session.Table` on a viewer
controller: the pieces as the live world has them, the supply, what each hand
holds, where the set-up put each piece, and the statics' verdict on what is
built (the table without the supply and the hands: :func:`statics_judge`, the
same exact statics the stability panel shows, answered at once so that a
turn's end is judged on the configuration now and never on a stale one).

:class:`Effects` carries out what a session asks, each effect one of the named
operations of the controller's port (:mod:`sim.viewer.control.port`; the referee never
writes the controller's fields): put a piece in a hand back, set a piece down at
a pose at rest (a pawn's step, a swapped noble, a piece put back as it was), walk
a pawn along its route a step at a time, hold a block where it was set down until
the block placed with it has come to rest (Talo's 4 + 1), send pieces back to the
supply, set pieces aside, clear the table for a new round, empty the hands, seat
the player.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sim.games.contract import Verdict
from sim.games.play import session as play
from sim.games.play.judge import statics_judge
from sim.scene import Piece, Scene
from sim.viewer.control.port import PIN_HAND

STEP_SECONDS = 0.25
"""Simulated seconds a walking pawn takes per step of its route."""
KIND = {"refused": "refused", "collapse": "collapse", "turn": "info", "score": "info", "win": "info", "info": "info"}
"""A session's kinds of message as the controller's."""


class ControllerTable:
    """What a session reads of the table, on a viewer controller (read only: changes go through the controller's
    port, :mod:`sim.viewer.control.port`, as :class:`Effects` asks for them).

    Args:
        controller: the viewer's controller.
        judge: the verdict on the pieces built (default: the exact statics); a game's
            ``physics_scene`` is applied by ``prepare``.
        prepare: the scene the judge is asked about, from the pieces built (default: as they are).
    """

    def __init__(self, controller, judge: Callable[[Scene], Verdict] = statics_judge,
                 prepare: Callable[[Scene], Scene] | None = None):
        self.c = controller
        self.judge = judge
        self.prepare = prepare or (lambda s: s)

    def scene(self) -> Scene:
        return self.c.scene()

    @property
    def supply(self) -> frozenset[str]:
        return frozenset(self.c.supply)

    @property
    def carried(self) -> Mapping[str, str]:
        out = {h: s.piece for h, s in self.c.hands.items()}
        if self.c.port.pinned is not None:
            out[PIN_HAND] = self.c.port.pinned
        return out

    @property
    def pinned(self) -> str | None:
        """The block the referee's hand holds (Talo's 4 + 1), or None."""
        return self.c.port.pinned

    def home(self, piece_id: str) -> tuple[float, ...]:
        return self.c.port.home(piece_id)

    def in_play(self, piece_id: str) -> bool:
        return self.c.port.in_play(piece_id)

    @property
    def taken_from_supply(self) -> frozenset[str]:
        """The pieces the hands carry that they took from the supply."""
        return self.c.port.taken_from_supply

    def setup_piece(self, piece_id: str) -> Piece:
        """The set-up's piece of that id: its kind and parameters (a piece set down is it, where it lands)."""
        return self.c.scene0.piece(piece_id)

    def has_home(self, piece_id: str) -> bool:
        """Whether the set-up put ``piece_id`` on the table."""
        return piece_id in self.c.scene0.ids

    def built(self) -> Scene:
        """The pieces built: the table without the supply and without what is in a hand."""
        scene = self.scene()
        out = set(self.supply) | set(self.carried.values())
        return scene.with_pieces(p for p in scene.pieces if p.id not in out)

    def verdict(self) -> Verdict:
        return self.judge(self.prepare(self.built()))


class Effects:
    """Carries out a session's effects through the controller's port (:mod:`sim.viewer.control.port`), some at once,
    some over the frames that follow. It never writes the controller's fields.

    Args:
        controller: the viewer's controller.
        table: its :class:`ControllerTable`.
        said: ``said(text, kind)`` for each thing the referee says (the panel keeps the last refusal).
    """

    def __init__(self, controller, table: ControllerTable, said: Callable[[str, str], None] | None = None):
        self.c = controller
        self.table = table
        self.said = said or (lambda text, kind: None)
        self.walks: list[list] = []  # [piece, remaining poses, seconds to the next step]
        self.unpins: list[play.Unpin] = []  # wait until the piece placed with the pinned one rests

    @property
    def busy(self) -> bool:
        """A pawn is still walking, or a held block waits to be let go."""
        return bool(self.walks or self.unpins)

    def run(self, effects) -> None:
        """Carry out ``effects`` in order."""
        for e in effects:
            self._DO[type(e)](self, e)

    def tick(self, seconds: float) -> None:
        """Time passed: walking pawns take their next steps; a held block is let go once the block placed with
        it has been set down."""
        for w in list(self.walks):
            w[2] -= seconds
            while w[2] <= 1e-9 and w[1]:
                self.c.port.place(w[0], w[1].pop(0))
                w[2] += STEP_SECONDS
            if not w[1]:
                self.walks.remove(w)
        if self.unpins and not self.c.hands:
            pending, self.unpins = self.unpins, []
            for u in pending:
                self.c.port.unpin(u.piece, u.home)

    def data(self) -> dict:
        """What is under way, as JSON data: the pawns walking (their steps to come), the blocks to let go, the
        block the referee's hand holds."""
        return {"walks": [[w[0], [list(map(float, p)) for p in w[1]], float(w[2])] for w in self.walks],
                "unpins": [[u.piece, u.home] for u in self.unpins], "pinned": self.c.port.pinned}

    def restore_data(self, field, known) -> None:
        """Go on from :meth:`data`'s data (a :class:`~sim.fieldcheck.Field`), its pieces among ``known``; the
        controller's session (the world, and so the referee's hand) restored first.

        Raises:
            sim.fieldcheck.FieldError: a field is not what :meth:`data` writes, or the block it says the referee's
                hand holds is not the one the world's holds.
        """
        f = field.object(("walks", "unpins", "pinned"))

        def piece(g):
            if g.text() not in known:
                raise g.fail("expected a piece of the game")
            return g.value
        walks = []
        for w in f["walks"].items(16):
            pid, poses, left = w.items(3, 3)
            walks.append([piece(pid), [tuple(float(x) for x in p) for p in poses.floats((-1, 7))],
                          left.number(-1.0, 60.0)])
        unpins = []
        for u in f["unpins"].items(4):
            pid, home = u.items(2, 2)
            unpins.append(play.Unpin(piece(pid), home.flag()))
        pinned = None if f["pinned"].is_null() else piece(f["pinned"])
        if pinned != self.c.port.pinned:
            raise f["pinned"].fail(f"expected the piece the world's {PIN_HAND} hand holds ({self.c.port.pinned})")
        self.walks, self.unpins = walks, unpins

    # --- the effects, each an operation of the controller's port ---

    def _say(self, e: play.Say) -> None:
        self.c.say(e.text, KIND.get(e.kind, "info"))
        self.said(e.text, e.kind)

    def _put_back(self, e: play.PutBack) -> None:
        self.c.port.put_back_piece(e.piece)  # held all the way back: a piece in a hand is never knocked down

    def _walk(self, e: play.Walk) -> None:
        if e.poses:
            self.walks.append([e.piece, list(e.poses), 0.0])
            self.tick(0.0)

    def _unpin(self, e: play.Unpin) -> None:
        if e.home:
            self.c.port.unpin(e.piece, home=True)
        else:
            self.unpins.append(e)
            self.tick(0.0)

    _DO = {
        play.Say: _say,
        play.PutBack: _put_back,
        play.Place: lambda self, e: self.c.port.place(e.piece, e.pose),
        play.Walk: _walk,
        play.ToSupply: lambda self, e: self.c.port.to_supply(e.pieces),
        play.SetAside: lambda self, e: self.c.port.set_aside(e.pieces),
        play.Clear: lambda self, e: self.c.port.clear(),
        play.EmptyHands: lambda self, e: self.c.port.empty_hands(e.player),
        play.Pin: lambda self, e: self.c.port.pin(e.piece, e.pose),
        play.Unpin: _unpin,
        play.Seat: lambda self, e: self.c.port.seat(e.player),
    }
    """Each effect's operation."""
