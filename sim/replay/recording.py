"""Reading a recording back, checked: :func:`load_recording` returns a :class:`Recording` or one clear error.

A closed recording is checked against its manifest (every member's size and
sha256); one whose writer never closed it (a crash, a cut copy) is read from
its whole members up to the last whole chunk, the chunks checked by their
chain of sha256 digests, and says so in :attr:`Recording.notes`. Arrays are
read with ``allow_pickle=False``; nothing is ever unpickled.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

import sim
from sim.errors import SceneError
from sim.jsontext import READ_ERRORS, unreadable
from sim.replay.container import DamagedError, scan
from sim.replay.errors import RecordingError
from sim.replay.poses import PoseTrack, check_chunk
from sim.replay.recorder import HEADER, MANIFEST, SCENE_POSES, chunk_names
from sim.replay.records import SUPPORTED_FORMATS, RecordedAction, RecordedEvent
from sim.scene import Scene
from sim.scene.schema import GAMES, got


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

    # --- what it is ----------------------------------------------------------------------------

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
        return self._pieces[number]

    def scene_of_frame(self, g: int) -> Scene:
        """The scene of frame ``g``: its pieces at their recorded poses, in order."""
        numbers, poses = self.track.at(g)
        return self.scene.with_pieces(self._pieces[k].moved(p[:3], p[3:]) for k, p in zip(numbers, poses))

    def scene_at(self, t: float) -> Scene:
        """The scene of the last frame at or before ``t`` (s)."""
        return self.scene_of_frame(self.frame_at(t))

    @cached_property
    def _pieces(self) -> dict[int, object]:
        from sim.scene import from_dict

        s = self.scene
        base = {"format": "towerlab-scene/1", "game": s.game, "board": s.board}
        if s.players is not None:
            base["players"] = list(s.players)
        own = {p.id: p for p in s.pieces}
        out = {}
        for k, (pid, spec) in enumerate(self.roster):
            if pid in own and k < len(s.pieces):
                out[k] = own[pid]
            else:
                out[k] = from_dict({**base, "pieces": [spec]}, f"{self.path}: roster[{k}]").pieces[0]
        return out

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
                "replayable": bool(self.header.get("replayable")), "notes": list(self.notes)}


def load_recording(path) -> Recording:
    """Read and check a recording.

    Raises:
        RecordingError: one line naming the file and what is wrong: it cannot be read, is no recording,
            is of a format this version does not read, is damaged (a checksum or a digest does not match,
            an array is malformed), or was cut before its first whole second.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise RecordingError(f"{path}: cannot read the recording ({e.strerror or e})") from None
    return _read(path, data)


def _read(path: Path, data: bytes) -> Recording:
    def fail(what: str):
        raise RecordingError(f"{path}: {what}")

    if not data.startswith(b"PK\x03\x04"):
        fail("not a towerlab recording (it does not begin with a zip member)" if data else "empty file")
    members, closed = _members(path, data)
    order = list(members)
    if not order:
        fail("truncated: it stops before its header ends")
    if order[0] != HEADER:
        fail(f"not a towerlab recording (its first member is {order[0]}, not {HEADER})")
    header = _json(path, HEADER, members[HEADER])
    fmt = header.get("format") if isinstance(header, dict) else None
    if fmt not in SUPPORTED_FORMATS:
        fail(f"format {fmt!r} is not supported (towerlab {sim.__version__} reads {', '.join(SUPPORTED_FORMATS)})")
    _check_header(path, header)
    notes = []
    version = header.get("software_version")
    if version != sim.__version__:
        notes.append(f"recorded with towerlab {version}, read by {sim.__version__} (format {fmt}, supported)")
    manifest = None
    if MANIFEST in members:
        manifest = _json(path, MANIFEST, members[MANIFEST])
        _check_manifest(path, manifest, members)
    elif closed:
        fail(f"{MANIFEST}: missing from a closed recording")
    if SCENE_POSES not in members:
        fail(f"{SCENE_POSES}: missing (cut before its first second)")
    scene = _scene(path, header, members[SCENE_POSES])
    roster, chunks, actions, events = _chunks(path, header, members, manifest is not None, scene)
    if not chunks or not sum(len(c["times"]) for c in chunks):
        fail("truncated: no whole second was recorded (it stops before its first chunk)")
    track = PoseTrack(chunks)
    if manifest is None:
        notes.append(f"not closed (the recorder stopped without closing it): plays its whole chunks, up to "
                     f"{float(track.times[-1]):.2f} s")
    return Recording(path, header, scene, tuple(roster), track, tuple(actions), tuple(events), manifest is not None,
                     tuple(notes))


def _is_text(v) -> bool:
    return isinstance(v, str)


def _is_names(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


_HEADER_FIELDS = (  # (key, required, the check, what it takes): the fields a reader acts on
    ("software_version", True, _is_text, "a version string"),
    ("source", True, _is_text, "a string (session, simulate, check)"),
    ("game", True, lambda v: v in GAMES, f"one of {', '.join(GAMES)}"),
    ("variant", False, lambda v: v is None or isinstance(v, str), "a variant's name or null"),
    ("players", False, lambda v: v is None or _is_names(v), "a list of player names or null"),
    ("seed", False, lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0),
     "an integer >= 0 or null"),
    ("settings", False, lambda v: v is None or isinstance(v, dict), "an object of physics settings or null"),
)


def _check_header(path: Path, header: dict) -> None:
    """Refuse a header whose fields a reader acts on are missing or of the wrong kind (one line naming it)."""
    for key, required, ok, expected in _HEADER_FIELDS:
        if key not in header:
            if required:
                raise RecordingError(f"{path}: {HEADER}: {key}: missing (expected {expected})")
        elif not ok(header[key]):
            raise RecordingError(f"{path}: {HEADER}: {key}: expected {expected}, got {got(header[key])}")


def _members(path: Path, data: bytes) -> tuple[dict[str, bytes], bool]:
    """name -> bytes of every whole member, in file order, and whether the writer closed the file.

    Read from the local headers, never from a central directory found by searching backwards: the NPZ
    members are zip archives themselves, and the last one's directory ends a file whose writer died.
    """
    try:
        found = scan(data)
    except DamagedError as e:
        raise RecordingError(f"{path}: {e}") from None
    out: dict[str, bytes] = {}
    for m in found.members:
        if m.name in out:
            raise RecordingError(f"{path}: member {m.name} appears twice (damaged)")
        out[m.name] = m.data
    return out, found.closed


def _json(path: Path, name: str, raw: bytes):
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RecordingError(f"{path}: {name}: not JSON ({e})") from None
    except READ_ERRORS as e:
        raise RecordingError(f"{path}: {name}: {unreadable(e)}") from None


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _check_manifest(path: Path, manifest, members: dict[str, bytes]) -> None:
    if not isinstance(manifest, dict) or not isinstance(manifest.get("members"), list):
        raise RecordingError(f"{path}: {MANIFEST}: members: expected a list")
    listed = set()
    for k, m in enumerate(manifest["members"]):
        try:
            name, size, digest = m["name"], m["size"], m["sha256"]
        except (TypeError, KeyError):
            raise RecordingError(f"{path}: {MANIFEST}: members[{k}]: expected name, size and sha256") from None
        if name not in members:
            raise RecordingError(f"{path}: {name}: listed in the manifest but missing")
        if len(members[name]) != size or _sha(members[name]) != digest:
            raise RecordingError(f"{path}: {name}: sha256 does not match the manifest (damaged)")
        listed.add(name)
    extra = [n for n in members if n not in listed and n != MANIFEST]
    if extra:
        raise RecordingError(f"{path}: {extra[0]}: not in the manifest")


def _scene(path: Path, header: dict, raw: bytes) -> Scene:
    from sim.scene import from_dict

    try:
        scene = from_dict(header["scene"], f"{path}: header.scene")
    except SceneError as e:
        raise RecordingError(str(e)) from None
    except (KeyError, TypeError) as e:
        raise RecordingError(f"{path}: {HEADER}: scene: missing or malformed ({e})") from None
    poses = _npz(path, SCENE_POSES, raw).get("poses")
    if poses is None or poses.shape != (len(scene.pieces), 7) or poses.dtype != np.float64:
        raise RecordingError(f"{path}: {SCENE_POSES}: poses: expected ({len(scene.pieces)}, 7) float64")
    return scene.with_poses(poses)


def _npz(path: Path, name: str, raw: bytes) -> dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        raise RecordingError(f"{path}: {name}: not a readable NPZ archive ({e})") from None


def _chunks(path: Path, header: dict, members: dict[str, bytes], complete: bool, scene: Scene):
    """Roster, chunk arrays, actions and events of the whole chunks, each checked."""
    previous = _sha(members[HEADER])
    roster = [(p.id, None) for p in scene.pieces]
    chunks, actions, events = [], [], []
    frames = 0
    k = 0
    while True:
        npz_name, json_name = chunk_names(k)
        if npz_name not in members or json_name not in members:
            if complete and (npz_name in members or json_name in members):
                raise RecordingError(f"{path}: chunk {k}: a member is missing")
            break  # the end, or the cut
        raw_npz, raw_json = members[npz_name], members[json_name]
        body = _json(path, json_name, raw_json)
        where = f"{path}: {json_name}"
        if not isinstance(body, dict):
            raise RecordingError(f"{where}: expected an object")
        if body.get("npz_sha256") != _sha(raw_npz):
            raise RecordingError(f"{path}: {npz_name}: sha256 does not match its chunk (damaged)")
        if body.get("previous_sha256") != previous:
            raise RecordingError(f"{where}: previous_sha256 does not match the chunk before it (damaged or "
                                 f"out of order)")
        previous = _sha(raw_json)
        if body.get("frame0") != frames:
            raise RecordingError(f"{where}: frame0: expected {frames}, got {body.get('frame0')!r}")
        try:
            for p in body["pieces"]:
                if int(p["number"]) != len(roster):
                    raise ValueError(f"pieces: number {p['number']}, expected {len(roster)}")
                roster.append((str(p["id"]), dict(p["piece"])))
            new_actions = [RecordedAction.from_json(a) for a in body["actions"]]
            new_events = [RecordedEvent.from_json(e) for e in body["events"]]
        except (KeyError, TypeError, ValueError) as e:
            raise RecordingError(f"{where}: malformed ({e})") from None
        for what, new, log in (("action", new_actions, actions), ("event", new_events, events)):
            for item in new:
                if item.index != len(log):
                    raise RecordingError(f"{where}: {what} {item.index} out of order (expected {len(log)})")
                log.append(item)
        for e in new_events:
            if e.cause is not None and not 0 <= e.cause < len(actions):
                raise RecordingError(f"{where}: event {e.index}: cause {e.cause} is no recorded action")
        arrays = _npz(path, npz_name, raw_npz)
        wrong = check_chunk(arrays, len(roster), frames)
        if wrong:
            raise RecordingError(f"{path}: {npz_name}: {wrong}")
        chunks.append(arrays)
        frames += len(arrays["times"])
        k += 1
    specs = {}
    for p in scene.pieces:
        from sim.scene.io import piece_to_dict

        specs[p.id] = piece_to_dict(p)
    roster = [(pid, spec if spec is not None else specs[pid]) for pid, spec in roster]
    return roster, chunks, actions, events
