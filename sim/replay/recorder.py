"""Recording as it goes: a :class:`Recorder` takes the scene, actions, frames and events and writes them
second by second (docs/recording-format.md).

The viewer and the games call::

    with Recorder("game.tlrec") as rec:
        rec.start(scene, settings, seed, game, players, variant="pro")
        i = rec.action(t, "ana", {"kind": "grab", "piece": "b3", "hand": "right", "args": {...}})
        rec.frame(t, ids, poses)                        # 60 Hz; the changed rows are kept
        rec.event(t, "knocked_down", ("t4",), cause=i)  # any kind a game needs, with data
    # close() wrote the manifest: the file is an ordinary zip archive

or, on a live world, ``rec.feed(live_world)`` after every ``advance`` (see
:mod:`sim.replay.live`). Each chunk (``chunk_seconds`` of recording time) is
written once a later item arrives, so a crash loses at most the last chunk; a
``with`` block closes the recording on Ctrl-C too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from sim.replay.errors import RecorderError
from sim.replay.layout import (
    CHUNK_SECONDS,
    HEADER,
    KEYFRAME_SECONDS,
    MANIFEST,
    RATE_HZ,
    SCENE_POSES,
    SIGNATURE,
    chunk_names,
    header_json,
    manifest_json,
    settings_json,
)
from sim.replay.live import LiveFeed
from sim.replay.members import json_bytes, npz_bytes
from sim.replay.meshes import MeshPacker
from sim.replay.poses import PoseEncoder
from sim.replay.records import WORLD_ACTIONS, RecordedAction, RecordedEvent, check_kind
from sim.replay.writer import ChunkWriter

__all__ = ["CHUNK_SECONDS", "HEADER", "KEYFRAME_SECONDS", "MANIFEST", "RATE_HZ", "SCENE_POSES", "Recorder",
           "chunk_names", "settings_json"]

class Recorder:
    """Writes a recording as it goes.

    Args:
        path: the recording file (replaced if it exists). It is a valid recording from the first
            chunk on, whatever happens to this process.
        rate_hz: frames kept per second of recording time (frames closer together are skipped).
        chunk_seconds: recording time per chunk.
        keyframe_seconds: the most recording time between keyframes.
        sync: sync every member to the disk (see :class:`~sim.replay.container.AppendZip`).
        key: the table's key (:class:`~sim.replay.signing.TableKey`): the manifest is signed with it when the
            recording is closed (``signature.json``), or None for an unsigned recording.

    Attributes:
        path: the file.
    """

    def __init__(self, path, *, rate_hz: float = RATE_HZ, chunk_seconds: float = CHUNK_SECONDS,
                 keyframe_seconds: float = KEYFRAME_SECONDS, sync: bool = True, key=None):
        if not (rate_hz > 0 and chunk_seconds > 0 and keyframe_seconds >= chunk_seconds):
            raise RecorderError(f"rate {rate_hz} Hz, chunks of {chunk_seconds} s, keyframes every "
                                f"{keyframe_seconds} s: expected positive values, keyframes no closer than chunks")
        self.path = Path(path)
        self.rate_hz, self.chunk_seconds, self.keyframe_seconds = float(rate_hz), float(chunk_seconds), \
            float(keyframe_seconds)
        self.sync = sync
        self.key = key
        self._action_log: list[RecordedAction] = []
        self._event_log: list[RecordedEvent] = []
        self._roster: list[tuple[str, dict]] = []  # (id, file form) by roster number
        self._writer: ChunkWriter | None = None
        self._encoder = PoseEncoder(self.keyframe_seconds)  # runs on the writing thread, chunk after chunk
        self._frames: list[tuple[float, np.ndarray, np.ndarray]] = []  # the chunk's frames: time, numbers, poses
        self._kept = 0  # frames kept so far
        self._frame0 = 0  # the number of the chunk's first frame
        self._present: dict[str, int] = {}  # id -> roster number of the pieces present in the last frame
        self._ids: tuple[str, ...] | None = None  # the last frame's ids, and their roster numbers
        self._numbers = np.zeros(0, dtype=np.int32)
        self._specs: dict[str, dict] = {}  # file forms of pieces about to appear (from add actions)
        self._start = 0.0
        self._chunk = 0  # the stretch of time being filled, from the start
        self._chunk_end = np.inf  # where it ends (s), less the clock's tolerance
        self._written = 0  # chunks written (stretches in which nothing happened make none)
        self._last_frame = -np.inf
        self._last_slot = -1  # the last kept frame's place on the grid of 1 / rate_hz from the start
        self._latest = 0.0  # the latest time seen
        self._fresh: list[dict] = []  # roster entries since the last chunk
        self._chunk_actions: list[RecordedAction] = []  # written as JSON by the writing thread
        self._chunk_events: list[RecordedEvent] = []
        self._live = None  # the live feed, once feed() was called
        self._meshes = MeshPacker(self._write_mesh)  # mesh files travel inside the recording
        self._pending_meshes: list[tuple[str, bytes]] | None = []  # written right after the header

    # --- starting and stopping -------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """:meth:`start` was called."""
        return self._writer is not None

    @property
    def writer_cpu(self) -> float:
        """CPU time (s) the writing thread has spent encoding and writing chunks."""
        return 0.0 if self._writer is None else self._writer.cpu

    @property
    def frames(self) -> int:
        """Frames kept so far."""
        self._catch_up()
        return self._kept

    @property
    def latest(self) -> float:
        """The latest recording time seen (s)."""
        self._catch_up()
        return self._latest

    @property
    def actions(self) -> list[RecordedAction]:
        """Every action recorded so far."""
        self._catch_up()
        return self._action_log

    @property
    def events(self) -> list[RecordedEvent]:
        """Every event recorded so far."""
        self._catch_up()
        return self._event_log

    @property
    def roster(self) -> list[tuple[str, dict]]:
        """Every piece the recording has held: (id, file form) by roster number."""
        self._catch_up()
        return self._roster

    @property
    def chunk_end(self) -> float:
        """The recording time (s) at which the chunk being filled ends: an item from then on hands it to the
        writer."""
        return self._chunk_end

    @property
    def closed(self) -> bool:
        """:meth:`close` was called."""
        return self._writer is not None and self._writer.closed

    def start(self, scene, settings=None, seed: int | None = None, game: str | None = None, players=None, *,
              variant: str | None = None, source: str = "session", time: float = 0.0, poses=None,
              replayable: bool = False, extra: Mapping | None = None) -> None:
        """Begin: the scene, the settings and seed, the game and its players.

        Args:
            scene: the :class:`~sim.scene.Scene` it starts from.
            settings: the physics settings (a dataclass or mapping), or None.
            seed: the seed of the session's randomness (dice, deals), or None.
            game: the game (default the scene's).
            players: the players in turn order (default the scene's).
            variant: the game's variant (``basic``, ``pro``, ``talo``, ``fantasy``, ``tactical``, ``fast``).
            source: what made it: ``session`` (a live world, the viewer, a game), ``simulate``, ``check``.
            time: the recording time of the start (s).
            poses: (n, 7) the scene's exact poses (default the scene's own).
            replayable: a live world's actions from this scene and these settings reproduce the frames
                (it started fresh): a re-simulation replays them.
            extra: anything else worth keeping (JSON data).

        Raises:
            RecorderError: started already, or the file cannot be made.
        """
        from sim.errors import ShapeError
        from sim.scene.io import to_dict

        if self._writer is not None:
            raise RecorderError(f"{self.path}: the recording was started already")
        players = scene.players if players is None else players
        scene_json = to_dict(scene)
        try:  # every mesh file a piece names becomes a member (written after the header), named in its place
            scene_json["pieces"] = [self._meshes.spec(p) for p in scene_json["pieces"]]
        except ShapeError as e:
            raise RecorderError(f"{self.path}: cannot record a mesh piece ({e})") from None
        header = header_json(scene_json, source=source, game=game or scene.game, variant=variant, players=players,
                             seed=seed, settings=settings, rates=(self.rate_hz, self.chunk_seconds,
                                                                  self.keyframe_seconds),
                             time=time, replayable=replayable, extra=extra)
        exact = scene.poses() if poses is None else np.asarray(poses, dtype=np.float64).reshape(len(scene.pieces), 7)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = ChunkWriter(self.path, sync=self.sync)
        except OSError as e:
            raise RecorderError(f"{self.path}: cannot write the recording ({e.strerror or e})") from None
        self._start = self._latest = float(time)
        self._chunk_end = self._start + self.chunk_seconds - 1e-9
        self._write(HEADER, json_bytes(header), chain=True)
        pending, self._pending_meshes = self._pending_meshes, None
        for name, data in pending:
            self._write(name, data)
        self._write(SCENE_POSES, npz_bytes({"poses": exact}))
        self._roster = [(p.id, spec) for p, spec in zip(scene.pieces, scene_json["pieces"])]  # numbers 0..n-1

    def _write_mesh(self, name: str, data: bytes) -> None:
        """A mesh file's member: after the header (kept until it is written), else at once."""
        if self._pending_meshes is not None:
            self._pending_meshes.append((name, data))
        else:
            self._write(name, data)

    def _portable(self, spec: Mapping) -> dict:
        """A piece's file form as the recording holds it: its mesh files as members of the recording."""
        from sim.errors import ShapeError

        try:
            return self._meshes.spec(dict(spec))
        except ShapeError as e:
            raise RecorderError(f"{self.path}: cannot record a mesh piece ({e})") from None

    def start_live(self, live, seed: int | None = None, game: str | None = None, players=None, *,
                   variant: str | None = None, extra: Mapping | None = None) -> None:
        """Begin recording a live world (:class:`~sim.physics.live.LiveWorld`) from where it is now; then call
        :meth:`feed` after every ``advance``.

        A world that has neither run nor been changed is recorded from its scene and settings as *replayable*:
        a re-simulation replays its actions and reproduces every frame. Otherwise the recording starts from
        the scene as it stands now, at the world's time.

        Args:
            live: the live world.
            seed, game, players, variant, extra: as for :meth:`start`.
        """
        fresh = LiveFeed.fresh(live)
        scene = live.world.scene if fresh else live.scene_now()
        self.start(scene, live.world.settings, seed, game, players, variant=variant, source="session",
                   time=live.time, poses=scene.poses(), replayable=fresh, extra=extra)
        self._live = LiveFeed(self, live)

    def close(self) -> None:
        """Write the last chunk and the manifest (and its signature, with a key); the file is complete. Closing
        twice does nothing."""
        if self._writer is None or self._writer.closed:
            return
        try:
            self._catch_up()
            self._flush()
            self._writer.drain()
            manifest = manifest_json(self._latest - self._start, self._kept, self._written, len(self._action_log),
                                     len(self._event_log), self._writer.digests)
            raw = json_bytes(manifest)
            self._writer.write(MANIFEST, raw)
            if self.key is not None:
                self._writer.write(SIGNATURE, json_bytes(self.key.sign(raw)))
            self._writer.close()
        except (OSError, ValueError) as e:
            self._writer.abandon()
            raise RecorderError(f"{self.path}: cannot write the recording ({_why(e)})") from None

    def abandon(self) -> None:
        """Stop without closing: the file is what a crash leaves (its whole chunks); for tests and errors."""
        if self._writer is not None:
            self._writer.abandon()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc) -> None:
        if self._writer is not None:
            self.close()

    # --- what is recorded --------------------------------------------------------------------------

    def action(self, t: float, actor: str | None, data: Mapping, *, world: bool | None = None,
               world_time: float | None = None) -> int:
        """Record an action.

        Args:
            t: its recording time (s).
            actor: who made it (a player), or None.
            data: ``{"kind", "piece"?, "hand"?, "args"?}``: a live-world action's JSON or a game's own.
            world: it is a live-world action (default: its kind is one of ``WORLD_ACTIONS``).
            world_time: the live world's time when it was made (default ``t``), for re-simulation.

        Returns:
            Its index (an event's ``cause``).
        """
        self._need_started()
        self._catch_up()
        kind = check_kind(data.get("kind"), "action")
        t = self._at(t, "action")
        world = kind in WORLD_ACTIONS if world is None else bool(world)
        args = dict(data.get("args") or {})
        if kind == "add" and isinstance(args.get("spec"), Mapping):
            args["spec"] = self._portable(args["spec"])
        a = RecordedAction(len(self._action_log), t, actor, kind, data.get("piece"), data.get("hand"), args, world,
                           (t if world_time is None else float(world_time)) if world else None)
        if kind == "add" and isinstance(args.get("spec"), Mapping):
            self._specs[str(args["spec"].get("id", a.piece))] = dict(args["spec"])
        self._action_log.append(a)
        self._chunk_actions.append(a)
        return a.index

    def add_piece(self, piece) -> None:
        """Say what a piece that is about to appear in the frames is (a :class:`~sim.scene.Piece`); pieces of
        the scene and of recorded ``add`` actions are known already."""
        from sim.scene.io import piece_to_dict

        self._catch_up()
        self._specs[piece.id] = self._portable(piece_to_dict(piece))

    def event(self, t: float, kind: str, pieces=(), cause: int | None = None, data: Mapping | None = None) -> int:
        """Record an event.

        Args:
            t: its recording time (s).
            kind: see :mod:`sim.replay.records` (games may add their own kinds).
            pieces: the pieces concerned.
            cause: index of the action that caused it (from :meth:`action`), or None.
            data: anything else, JSON data.

        Returns:
            Its index.
        """
        self._need_started()
        self._catch_up()
        check_kind(kind)
        t = self._at(t, "event")
        if cause is not None and not 0 <= int(cause) < len(self._action_log):
            raise RecorderError(f"event {kind} at {t:.3f} s: cause {cause} is no recorded action")
        e = RecordedEvent(len(self._event_log), t, kind, tuple(str(p) for p in pieces),
                          None if cause is None else int(cause), dict(data or {}))
        self._event_log.append(e)
        self._chunk_events.append(e)
        return e.index

    def frame(self, t: float, ids, poses, *, owned: bool = False) -> bool:
        """Record the poses of every present piece at time ``t``.

        Args:
            t: recording time (s); a frame in the same slot of the ``1 / rate_hz`` grid (from the start,
                slots centred on its points) as the last kept one is skipped: a faster source is thinned to
                the rate, a 60 Hz one kept whole, whatever its phase.
            ids: the present pieces, in order.
            poses: (n, 7) their poses: position (m) and quaternion xyzw.
            owned: ``poses`` is a float64 array nobody changes afterwards (a live world's own frame): it is
                kept as it is until its chunk is written; otherwise a copy is kept.

        Returns:
            Whether the frame was kept.

        Raises:
            RecorderError: time went backwards, the poses do not match the ids, or a piece is unknown.
        """
        self._need_started()
        self._catch_up()
        t = float(t)
        if t < self._last_frame - 1e-9:
            raise RecorderError(f"frame at {t:.6f} s: before the last frame ({self._last_frame:.6f} s)")
        slot = math.floor((t - self._start) * self.rate_hz + 0.5 + 1e-6)  # the frame grid, from the start
        if slot <= self._last_slot:
            return False
        ids = ids if isinstance(ids, tuple) else tuple(ids)
        poses = np.asarray(poses, dtype=np.float64) if owned else np.array(poses, dtype=np.float64)
        if poses.shape != (len(ids), 7):
            raise RecorderError(f"frame at {t:.6f} s: expected poses of shape ({len(ids)}, 7), got {poses.shape}")
        self._at(t, "frame")
        if (ids is not self._ids and ids != self._ids) or self._specs:
            # pieces came, went or changed places, or may have changed shape
            present = {}
            for i in ids:
                number = None if i in self._specs else self._present.get(i)
                if number is None:
                    number = self._number(i, t)
                present[i] = number
            self._present = present
            self._ids, self._numbers = ids, np.array([present[i] for i in ids], dtype=np.int32)
        self._frames.append((t, self._numbers, poses))
        self._kept += 1
        self._last_frame, self._last_slot = t, slot
        return True

    def feed(self, live, report=None) -> None:
        """Take what a live world did since the last call: its actions, frames and events (see
        :class:`~sim.replay.live.LiveFeed`: noted now, recorded a chunk at a time, and before anything else is
        recorded or read). Call it after every ``advance``; a first call on a recorder not started yet starts
        it (:meth:`start_live`), so call it once before the first advance too.

        Args:
            live: the :class:`~sim.physics.live.LiveWorld`.
            report: the ``AdvanceReport`` of the last advance (not needed: the world's own frames are read).
        """
        feed = self._live
        if feed is None or feed.live is not live:
            if self._writer is None:
                self.start_live(live)
            else:  # another world (the session made a new one): it goes on there
                self._catch_up()
                self._live = LiveFeed(self, live)
            feed = self._live
        feed.feed()

    def engine_reset(self, live) -> int:
        """Record that the session took an exact snapshot of a live world (``live.snapshot(exact=True)``: every
        body made afresh): a re-simulation makes the same reset at the same step and stays exact. Call it
        right after the snapshot; what the world did before is fed first.

        Returns:
            The event's index.
        """
        self.feed(live)
        return self._live.engine_reset()

    # --- writing -----------------------------------------------------------------------------------

    def _number(self, piece_id: str, t: float) -> int:
        """The roster number of a piece that appears: its last one, or a new one when it comes with another
        file form (an ``add`` action of a piece that was removed)."""
        spec = self._specs.pop(piece_id, None)
        roster = self._roster
        for k in range(len(roster) - 1, -1, -1):
            if roster[k][0] == piece_id:
                if spec is None or spec == roster[k][1]:
                    return k
                break
        if spec is None:
            raise RecorderError(f"frame at {t:.6f} s: piece {piece_id!r} appears without being known (record "
                                f"its add action or call add_piece first)")
        roster.append((piece_id, spec))
        self._fresh.append({"number": len(roster) - 1, "id": piece_id, "piece": spec})
        return len(roster) - 1

    def _at(self, t: float, what: str) -> float:
        """``t`` checked; chunks before it are written first."""
        t = float(t)
        if not math.isfinite(t) or t < self._start - 1e-9:
            raise RecorderError(f"{what} at {t} s: before the recording's start ({self._start} s) or not finite")
        while t >= self._chunk_end:
            self._flush()
        if t > self._latest:
            self._latest = t
        return t

    def _flush(self) -> None:
        """Hand the chunk being filled (if anything is in it) to the writing thread, which encodes and writes
        it, and go on to the next stretch of time."""
        k = self._chunk
        self._chunk += 1
        self._chunk_end = self._start + (self._chunk + 1) * self.chunk_seconds - 1e-9
        if not (self._frames or self._chunk_actions or self._chunk_events or self._fresh):
            return  # nothing happened in this stretch: no chunk
        frames, actions, events = self._frames, self._chunk_actions, self._chunk_events
        head = {"chunk": self._written, "t0": self._start + k * self.chunk_seconds,
                "t1": self._start + (k + 1) * self.chunk_seconds, "frame0": self._frame0, "frames": len(frames),
                "pieces": self._fresh}
        encoder = self._encoder

        def encode() -> tuple[dict, dict]:  # on the writing thread, chunks in order
            return encoder.encode(frames), {**head, "actions": [a.to_json() for a in actions],
                                            "events": [e.to_json() for e in events]}

        try:
            self._writer.chunk(*chunk_names(self._written), encode)  # digests filled in as it is written
        except (OSError, ValueError) as e:
            self._writer.abandon()
            raise RecorderError(f"{self.path}: cannot write the recording ({_why(e)})") from None
        self._written += 1
        self._frame0 += len(frames)
        self._frames, self._fresh, self._chunk_actions, self._chunk_events = [], [], [], []

    def _write(self, name: str, data: bytes, *, chain: bool = False) -> None:
        try:
            self._writer.write(name, data, chain=chain)
        except (OSError, ValueError) as e:
            self._writer.abandon()
            raise RecorderError(f"{self.path}: cannot write the recording ({_why(e)})") from None

    def _catch_up(self) -> None:
        """Record what the live feed saw and has not recorded yet: before anything else is recorded or read."""
        live = self._live
        if live is not None and live.waiting:
            live.record()

    def _need_started(self) -> None:
        if self._writer is None:
            raise RecorderError(f"{self.path}: call start() first")
        if self._writer.closed:
            raise RecorderError(f"{self.path}: the recording is closed")


def _why(e: BaseException) -> str:
    return (e.strerror if isinstance(e, OSError) and e.strerror else None) or str(e)
