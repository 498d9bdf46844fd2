"""A recording read back and checked (:func:`load_recording`, :mod:`sim.replay.reading`): what it holds, frame by
frame, as scenes, actions and events."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from sim.replay.poses import PoseTrack
from sim.replay.records import RecordedAction, RecordedEvent
from sim.scene import Scene


@dataclass(frozen=True, eq=False)
class Recording:
    """A recording, read and checked.

    Attributes:
        path: the file.
        header: its header (JSON data: format, software version, source, game, variant, players, seed,
            settings, rates, start time, whether it is replayable, the scene, extras).
        scene: the scene it starts from, with its exact poses.
        roster: (id, file form) of every piece it has held, by roster number.
        track: the pose timeline.
        actions, events: in recorded order.
        complete: it was closed and its manifest checks out.
        notes: what a reader should know (another software version, not closed, where it stops).
        roster_pieces: the :class:`~sim.scene.Piece` of every roster number (its pose the one it first appeared
            with), checked as a scene file's pieces are.
        meshes: the private folder its mesh files were written to (:class:`~sim.replay.meshes.MeshFolder`,
            removed with the recording), or None.
        signature: the signature of a recording a table signed (:class:`~sim.replay.schema.Signature`, whole
            and of this manifest, its key not yet checked: :meth:`check_key`), or None.
        manifest: the manifest's bytes (what a signature signs), or None for a recording never closed.
    """

    path: Path
    header: dict
    scene: Scene
    roster: tuple[tuple[str, dict], ...]
    track: PoseTrack
    actions: tuple[RecordedAction, ...]
    events: tuple[RecordedEvent, ...]
    complete: bool
    notes: tuple[str, ...] = field(default=())
    roster_pieces: tuple = field(default=(), repr=False)
    meshes: object = field(default=None, repr=False)
    signature: object = field(default=None, repr=False)
    manifest: bytes | None = field(default=None, repr=False)

    # --- what it is ----------------------------------------------------------------------------

    def check_key(self, key) -> None:
        """Check that a table holding ``key`` (:class:`~sim.replay.signing.TableKey`) signed this recording.

        Raises:
            SignatureError: unsigned, signed by another key, or changed since it was signed.
        """
        key.check(self.signature, self.manifest or b"")

    @property
    def game(self) -> str:
        """The game (``tohuwabohu``, ``talo``, ``babylon``, ``free``)."""
        return self.header["game"]

    @property
    def variant(self) -> str | None:
        """The game's variant, if recorded."""
        return self.header.get("variant")

    @property
    def players(self) -> tuple[str, ...]:
        """The players in turn order (empty when not recorded)."""
        return tuple(self.header.get("players") or ())

    @property
    def source(self) -> str:
        """What made it: ``session``, ``simulate``, ``check``."""
        return self.header["source"]

    @property
    def times(self) -> np.ndarray:
        """(F,) recording time of every frame (s)."""
        return self.track.times

    @property
    def start(self) -> float:
        """Time of the first frame (s)."""
        return float(self.track.times[0])

    @property
    def end(self) -> float:
        """Time of the last frame (s)."""
        return float(self.track.times[-1])

    @property
    def duration(self) -> float:
        """From the first frame to the last (s)."""
        return self.end - self.start

    # --- poses and scenes ----------------------------------------------------------------------

    def frame(self, g: int) -> tuple[list[str], np.ndarray]:
        """Frame ``g``: the present pieces' ids, in order, and their poses (n, 7), exactly as recorded."""
        numbers, poses = self.track.at(g)
        return [self.roster[k][0] for k in numbers], poses

    def frame_at(self, t: float) -> int:
        """The last frame at or before ``t`` (s), the first one before the start."""
        return self.track.frame_at(t)

    def poses_at(self, t: float) -> tuple[list[str], np.ndarray]:
        """The ids and poses of the last frame at or before ``t`` (s)."""
        return self.frame(self.frame_at(t))

    def piece(self, number: int):
        """The :class:`~sim.scene.Piece` of roster number ``number`` (its pose the one it first appeared with)."""
        return self.roster_pieces[number]

    def scene_of_frame(self, g: int) -> Scene:
        """The scene of frame ``g``: its pieces at their recorded poses, in order."""
        numbers, poses = self.track.at(g)
        return self.scene.with_pieces(self.roster_pieces[k].moved(p[:3], p[3:]) for k, p in zip(numbers, poses))

    def scene_at(self, t: float) -> Scene:
        """The scene of the last frame at or before ``t`` (s)."""
        return self.scene_of_frame(self.frame_at(t))

    # --- actions and events --------------------------------------------------------------------

    def events_until(self, t: float) -> list[RecordedEvent]:
        """The events at or before ``t`` (s), in time order."""
        return [e for e in self.timeline_events if e.time <= t + 1e-9]

    @cached_property
    def timeline_events(self) -> tuple[RecordedEvent, ...]:
        """Every event in time order (recorded order among equal times)."""
        return tuple(sorted(self.events, key=lambda e: (e.time, e.index)))

    def cause(self, event: RecordedEvent) -> RecordedAction | None:
        """The action that caused an event, if recorded."""
        return None if event.cause is None else self.actions[event.cause]

    def summary(self) -> dict:
        """What it holds, as JSON data (``towerlab replay R --json``)."""
        kinds: dict[str, int] = {}
        for e in self.events:
            kinds[e.kind] = kinds.get(e.kind, 0) + 1
        first = next((e for e in self.timeline_events if e.kind == "knocked_down"), None)
        return {"recording": str(self.path), "format": self.header["format"],
                "software_version": self.header["software_version"], "source": self.source, "game": self.game,
                "variant": self.variant, "players": list(self.players), "seed": self.header.get("seed"),
                "start_s": self.start, "end_s": self.end, "duration_s": self.duration, "frames": len(self.track),
                "pieces": len(self.roster), "actions": len(self.actions), "events": kinds,
                "first_knocked_down_s": None if first is None else first.time, "complete": self.complete,
                "replayable": bool(self.header.get("replayable")),
                "signed_by": None if self.signature is None else self.signature.key_id, "notes": list(self.notes)}


def load_recording(path) -> Recording:
    """Read and check a recording (:func:`sim.replay.reading.read_recording`).

    Raises:
        RecordingError: one line naming the file and what is wrong: it cannot be read, is no recording,
            is of a format this version does not read, is damaged (a checksum or a digest does not match,
            an array is malformed, a number out of range), or was cut before its first whole second.
    """
    from sim.replay.reading import read_recording

    return read_recording(path)
