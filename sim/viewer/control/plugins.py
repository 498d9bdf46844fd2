"""The viewer's extension seam: what a plug-in (a game's referee, a replay) may add to a session and a window.

A :class:`SessionPlugin` lives beside the :class:`~sim.viewer.control.controller.Controller`
and sees everything it does, with no Panda3D in it (it runs the same headless,
in scripts and in tests):

* :meth:`~SessionPlugin.applied` after every applied action, and
  :meth:`~SessionPlugin.event` for every event of the session: the live world's
  (``moved``, ``left_support``, ``fell``, ``knocked_down`` -- a collapse, with the
  action that caused it --, ``came_to_rest``, ``settled``) and the controller's
  own (``picked``, ``dropped``, ``rejected``, ``restored``);
* :meth:`~SessionPlugin.check` before an action, to veto it with a reason, and
  :meth:`~SessionPlugin.judge_drop` as a hand sets a piece down (with the pose it
  lands at), to reject the drop: the piece is let go where it was picked (to the supply, if it came from
  there), the reason is said as a message, and the drop leaves no undo step;
  :meth:`~SessionPlugin.judge_ghost` answers the same question beforehand, for the ghost of a carried piece
  (drawn red where the drop would be rejected);
* :meth:`~SessionPlugin.may_use` limits the pieces and hands the player may use
  now (hot seat): a pick, add, poke, pull or remove of another piece, or a switch to
  another hand, is refused with its reason; :meth:`~SessionPlugin.may_group` may refuse
  several pieces picked up at once, as one group;
* :meth:`~SessionPlugin.tick` once per frame with the session clock
  (:attr:`Controller.session_time`: wall seconds in a window, frames of 1/60 s in
  a script, so a scripted game's timers are the same every run);
* :attr:`~SessionPlugin.actions` declares its own JSON action kinds (checked like
  the built-in ones, in ``--actions`` files too, see
  :func:`sim.viewer.control.actions.specs_with`) that :meth:`~SessionPlugin.perform`
  does; those in :attr:`~SessionPlugin.undoable` are undone like the built-in
  ones: the undo stack keeps the whole session state, the plug-in's own included
  (:meth:`~SessionPlugin.state` / :meth:`~SessionPlugin.restore`).

A :class:`WindowPlugin` lives beside the :class:`~sim.viewer.window.build.ViewerWindow`:
it builds its DirectGUI panels in :meth:`~WindowPlugin.attach`, lists its key
bindings in :meth:`~WindowPlugin.controls` (bound by the window, listed in the
F1 help), draws each frame in :meth:`~WindowPlugin.frame` and says when what it
draws is complete (:meth:`~WindowPlugin.settled`). What the window draws comes
from ``controller.world`` (any :class:`~sim.viewer.control.live.ViewerWorld`, given by the
controller's ``world_factory``) and the controller's hands, ghosts and verdict.

A game's referee changes the table only through the controller's named
operations (:mod:`sim.viewer.control.port`), never by writing its fields.

Every hook has a default that does nothing, so a plug-in defines only what it
needs. Hooks that may refuse return a reason (one line) or None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.viewer.control.actions import Action, Field
    from sim.viewer.control.controller import Controller
    from sim.viewer.control.keys import Control
    from sim.viewer.control.live import Advance, LiveEvent


class SessionPlugin:
    """A plug-in of the controller (a game's referee, a recorder, a replay's driver).

    Attributes:
        name: what it is called in messages and errors.
        actions: its own action kinds: name -> field -> :class:`~sim.viewer.control.actions.Field`
            (e.g. ``{"roll": {}, "walk": {"pawn": Field(...), "to": Field(...)}}``).
        undoable: which of its actions the undo stack records (undo puts the session, the plug-in's
            :meth:`state` included, back to just before it).
    """

    name: str = "plug-in"
    actions: dict[str, dict[str, Field]] = {}
    undoable: tuple[str, ...] = ()

    def attach(self, controller: Controller) -> None:
        """The session starts (and starts again on a load or a recovery: a new world)."""

    def check(self, controller: Controller, action: Action) -> str | None:
        """Before any action (built-in or its own): a reason to refuse it, or None to let it happen."""
        return None

    def may_use(self, controller: Controller, piece: str | None, hand: str | None) -> str | None:
        """Whether the player may use ``piece`` (None: a new one from the catalogue) with ``hand`` now:
        a reason why not, or None."""
        return None

    def may_group(self, controller: Controller, pieces: tuple[str, ...], hand: str) -> str | None:
        """Whether the player may pick ``pieces`` up at once, as one group in ``hand`` (the window's box
        selection): a reason why not (a game whose pieces are placed one at a time names its rule), or None.
        Asked before :meth:`may_use` is asked of each piece."""
        return None

    def perform(self, controller: Controller, action: Action) -> None:
        """Do one of its own :attr:`actions` (raise ``action.fail(field, reason)`` when it cannot)."""
        raise action.fail(None, f"{self.name} declares {action.name!r} but does not perform it")

    def applied(self, controller: Controller, action: Action) -> None:
        """After an action was done (built-in or its own)."""

    def judge_drop(self, controller: Controller, hand: str, piece: str, pose) -> str | None:
        """A hand is letting its piece go, set down at ``pose`` (7,) (its resting place on what is under it):
        a reason to reject the drop (the piece is let go where it was picked instead), or None."""
        return None

    def judge_ghost(self, controller: Controller, hand: str, piece: str, pose) -> str | None:
        """Asked before, not when, a piece is set down: the reason it would be rejected (:meth:`judge_drop`) if
        the hand set it down at ``pose`` (7,) now, where its ghost shows it (the window draws that ghost red), or
        None (also when not known yet). Nothing changes."""
        return None

    def event(self, controller: Controller, event: LiveEvent) -> None:
        """Something happened (see the module's list of kinds)."""

    def advanced(self, controller: Controller, advance: Advance) -> None:
        """The world advanced (once per frame that was not paused)."""

    def tick(self, controller: Controller, dt: float) -> None:
        """Once per frame, paused or not: ``dt`` seconds of the session clock went by."""

    def busy(self, controller: Controller) -> bool:
        """Whether it is still moving things on the table (a pawn walking its route): the session is not quiet
        (a script waits for it as for a hand setting a piece down)."""
        return False

    def state(self) -> Any:
        """Its own state, kept in every undo step and restored with it (default: none)."""
        return None

    def restore(self, state: Any) -> None:
        """Go back to a state :meth:`state` returned."""

    def close(self, controller: Controller) -> None:
        """The session ends."""


class WindowPlugin:
    """A plug-in of the window: panels, keys and drawing of its own."""

    def attach(self, window) -> None:
        """The window is open: build panels under ``window.aspect2d`` or marks under ``window.render``."""

    def controls(self) -> tuple[Control, ...]:
        """Its key bindings (:class:`~sim.viewer.control.keys.Control` whose ``method`` is a callable); the window binds
        them and the F1 help lists them under their group."""
        return ()

    def frame(self, window, dt: float) -> None:
        """Once per frame, after the window drew the controller's state."""

    def settled(self, window) -> bool:
        """Whether what it draws is complete (nothing of it still drawn in the background): a picture of the
        window waits for it."""
        return True

    def close(self, window) -> None:
        """The window closes."""
