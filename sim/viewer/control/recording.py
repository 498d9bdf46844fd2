"""A viewer session recorded as it goes (docs/recording-format.md): a session plug-in over
:class:`sim.replay.Recorder`.

:class:`SessionRecording` records, on the session's own recording clock (the
simulated seconds the session ran, which never go back, whatever undo does to
the world's time):

* the scene it starts from (and every scene loaded or recovered later, whose
  pieces it announces),
* every action the controller applied, as it was given (kind ``pick``,
  ``move_to``, ... -- the file's kinds use ``_`` for ``-``; the hover of the
  mouse is left out), with the player,
* the poses of every frame (the recorder keeps 60 a second),
* every event (``picked``, ``dropped``, ``rejected``, ``knocked_down`` with the
  action that caused it, ``came_to_rest``, ``restored`` after an undo, ...).

The recorder writes a chunk a second, so a crash loses at most the last second;
:meth:`SessionRecording.close` (the end of the session) writes the manifest. A
recording that cannot be written is said once as a message and stops; the
session goes on.
"""

from __future__ import annotations

from pathlib import Path

from sim.viewer.control.plugins import SessionPlugin

NOT_RECORDED = frozenset({"hover"})
"""Actions left out of a recording (the mouse passing over pieces, 60 times a second)."""


def default_recording(game: str) -> Path:
    """Where a session of ``game`` is recorded by default: a new file in the recordings folder
    (``$TOWERLAB_RECORDINGS``, else ``$XDG_DATA_HOME/towerlab/recordings``, else
    ``~/.local/share/towerlab/recordings``)."""
    from sim.replay.folder import session_path

    return session_path(game)


class SessionRecording(SessionPlugin):
    """Records a viewer session into a recording file.

    Args:
        path: the recording file (made, with its folder; replaced if it exists).
        seed: the session's seed, kept in the header.
        players: the players in turn order, kept in the header (a played game; ``towerlab penalty`` reads them).
        variant: the game's variant, kept in the header.
        key: the table's key the recording is signed with (:class:`sim.replay.signing.TableKey`), or None.
    """

    name = "recording"

    def __init__(self, path, seed: int | None = None, players=None, variant: str | None = None, key=None):
        from sim.replay import Recorder

        self.path = Path(path)
        self.seed = seed
        self.players = None if players is None else tuple(players)
        self.variant = variant
        self.recorder = Recorder(self.path, key=key)
        self.error: str | None = None
        self.t = 0.0  # recording time (s)
        self._world = None
        self._known: set[str] = set()
        self._last: dict[tuple[str, str | None], int] = {}  # (action, piece) -> its latest recorded index
        self._waiting: list = []  # events of the action being done

    def attach(self, controller) -> None:
        """The session starts (or another world starts in it: a load, a recovery)."""
        world = controller.world
        if self._world is world:
            return
        self._world = world
        scene = world.scene()
        if not self.recorder.started:
            self._safely(lambda: self.recorder.start(scene, None, self.seed, controller.game, self.players,
                                                     variant=self.variant, source="session"), controller)
        else:
            def new_world():
                for p in scene.pieces:
                    self.recorder.add_piece(p)
                self.recorder.event(self.t, "restored", (), None, {"world_time": world.time, "new_world": True})
            self._safely(new_world, controller)
        self._known = set(scene.ids)
        self._frame(controller)

    def applied(self, controller, action) -> None:
        if action.name in NOT_RECORDED or self.error is not None:
            return
        if controller.world is not self._world:
            self.attach(controller)
        data = action.to_json()
        del data["action"]
        kind = action.name.replace("-", "_")
        piece, hand = data.pop("piece", None), data.pop("hand", None)

        def record():
            self._announce(controller)
            index = self.recorder.action(self.t, controller.player, {"kind": kind, "piece": piece, "hand": hand,
                                                                     "args": data}, world=False)
            self._last[(action.name, piece)] = index
            for e in self._waiting:  # what the action did while it was being done: caused by it
                self.recorder.event(self.t, e.kind, e.pieces, index)
            self._waiting = []
        self._safely(record, controller)

    def event(self, controller, event) -> None:
        if self.error is not None:
            return
        if controller.applying is not None and controller.applying.name not in NOT_RECORDED:
            self._waiting.append(event)  # recorded after its action, which is recorded once it is done
            return
        self._flush_waiting(controller)
        cause = None if event.cause is None else self._last.get((event.cause.name, event.cause.piece))
        self._safely(lambda: self.recorder.event(self.t, event.kind, event.pieces, cause), controller)

    def _flush_waiting(self, controller) -> None:
        """Events of an action that failed halfway: recorded without a cause."""
        waiting, self._waiting = self._waiting, []
        for e in waiting:
            self._safely(lambda e=e: self.recorder.event(self.t, e.kind, e.pieces, None), controller)

    def game_event(self, controller, kind: str, pieces=(), data=None) -> None:
        """A game's event (``turn_changed``, ``game_over`` ...: docs/recording-format.md), at the time now."""
        if self.error is None:
            self._flush_waiting(controller)
            self._safely(lambda: self.recorder.event(self.t, kind, pieces, None, data), controller)

    def advanced(self, controller, advance) -> None:
        self._flush_waiting(controller)
        self.t += advance.simulated
        self._frame(controller)

    def close(self, controller) -> None:
        self._flush_waiting(controller)
        if self.error is None:
            self._safely(self.recorder.close, controller)
        else:
            self.recorder.abandon()

    def _frame(self, controller) -> None:
        if self.error is not None:
            return
        world = controller.world

        def record():
            self._announce(controller)
            self.recorder.frame(self.t, world.ids, world.poses())
        self._safely(record, controller)

    def _announce(self, controller) -> None:
        """Pieces that came into the world (added) are described to the recorder before they appear."""
        world = controller.world
        for pid in world.ids:
            if pid not in self._known:
                self.recorder.add_piece(world.piece(pid))
                self._known.add(pid)

    def _safely(self, fn, controller) -> None:
        from sim.replay.errors import RecorderError

        try:
            fn()
        except (RecorderError, OSError) as e:
            self.error = str(e)
            controller.say(f"recording stopped: {e}", "error")
            self.recorder.abandon()
