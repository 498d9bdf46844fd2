"""Reading a recording back, checked: :func:`read_recording` returns a :class:`~sim.replay.recording.Recording` or
one clear error, in time and memory bounded by the file's size.

A recording comes from someone else, so nothing in it is trusted:

* the file is read by the one policy for users' files (:mod:`sim.limits`: a
  regular file, at most 4 GiB);
* a closed one is told from its end (:func:`~sim.replay.container.read_archive`:
  its directory must agree with its members) and checked against its manifest
  (every member's size and sha256, and the totals it states); one whose writer
  never closed it (a crash, a cut copy) is read from its whole members up to
  the last whole chunk, the chunks checked by their chain of sha256 digests, and
  says so in its notes;
* JSON members nest at most 64 deep and every field has the type and range
  :mod:`sim.replay.schema` gives it (the physics settings too);
* arrays are read by :func:`sim.limits.read_npz` (declared sizes against the
  file's budget before anything is inflated, never unpickled) and checked:
  shapes, piece and frame numbers, times inside their chunk, finite poses and
  unit quaternions, pieces that come and go consistently;
* mesh files travel inside it (:mod:`sim.replay.meshes`): a recorded piece never
  names a file on the reader's disk.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import sim
from sim.errors import SceneError
from sim.jsontext import READ_ERRORS, unreadable
from sim.limits import Budget, FileRefusedError, check_depth, read_bytes, read_npz, too_deep
from sim.replay import schema
from sim.replay.container import DamagedError, read_archive
from sim.replay.errors import RecordingError
from sim.replay.layout import HEADER, MANIFEST, SCENE_POSES, SIGNATURE, chunk_names
from sim.replay.meshes import PREFIX, MeshFolder, has_meshes
from sim.replay.poses import PoseTrack, check_chunk, check_poses
from sim.replay.recording import Recording
from sim.replay.records import SUPPORTED_FORMATS, RecordedAction, RecordedEvent, check_kind

TIME_SLACK = 1e-6
"""How far (s) a recorded time may lie outside the chunk that holds it (the recorder's clock tolerance is 1e-9)."""


def read_recording(path) -> Recording:
    """Read and check a recording (see the module docstring).

    Raises:
        RecordingError: one line naming the file and what is wrong.
    """
    path = Path(path)
    try:
        data = read_bytes(path, "recording")
    except FileRefusedError as e:
        raise RecordingError(f"{path}: {e.reason}") from None
    return _Reader(path, data).read()


class _Reader:
    """One reading of one file: its members, its decoding budget, and what it has found so far."""

    def __init__(self, path: Path, data: bytes):
        self.path = path
        self.data = data
        self.budget = Budget.of_file(len(data))
        self.meshes: MeshFolder | None = None

    def fail(self, what: str):
        raise RecordingError(f"{self.path}: {what}")

    # --- members ------------------------------------------------------------------------------------------

    def read(self) -> Recording:
        data = self.data
        if not data.startswith(b"PK\x03\x04"):
            self.fail("not a towerlab recording (it does not begin with a zip member)" if data else "empty file")
        members, closed = self._members()
        order = list(members)
        if not order:
            self.fail("truncated: it stops before its header ends")
        if order[0] != HEADER:
            self.fail(f"not a towerlab recording (its first member is {order[0]}, not {HEADER})")
        raw_header = self._json(HEADER, members[HEADER])
        fmt = raw_header.get("format") if isinstance(raw_header, dict) else None
        if fmt not in SUPPORTED_FORMATS:
            self.fail(f"format {fmt!r} is not supported (towerlab {sim.__version__} reads "
                      f"{', '.join(SUPPORTED_FORMATS)})")
        header = self._model(HEADER, schema.Header, raw_header)
        try:
            settings = schema.check_settings(raw_header.get("settings"))
        except ValueError as e:
            self.fail(f"{HEADER}: {e.args[0]}: {e.args[1]}")
        header_data = {**raw_header, "settings": settings}
        notes = []
        if header.software_version != sim.__version__:
            notes.append(f"recorded with towerlab {header.software_version}, read by {sim.__version__} (format "
                         f"{fmt}, supported)")
        manifest = None
        if MANIFEST in members:
            manifest = self._model(MANIFEST, schema.Manifest, self._json(MANIFEST, members[MANIFEST]))
            self._check_manifest(manifest, members)
        elif closed:
            self.fail(f"{MANIFEST}: missing from a closed recording")
        signature = self._signature(members, order)
        scene_json = raw_header["scene"]
        pieces = scene_json.get("pieces") if isinstance(scene_json, dict) else None
        if any(n.startswith(PREFIX) for n in members) or (isinstance(pieces, list) and has_meshes(pieces)):
            try:
                self.meshes = MeshFolder(members)
            except ValueError as e:
                self.fail(f"{e.args[0]}: {e.args[1]}")
        if SCENE_POSES not in members:
            self.fail(f"{SCENE_POSES}: missing (cut before its first second)")
        scene = self._scene(header_data, members[SCENE_POSES])
        roster, chunks, actions, events, latest = self._chunks(header, members, manifest is not None, scene)
        if not chunks or not sum(len(c["times"]) for c in chunks):
            self.fail("truncated: no whole second was recorded (it stops before its first chunk)")
        track = PoseTrack(chunks)
        wrong = track.check()
        if wrong:
            self.fail(f"chunks: {wrong}")
        if manifest is not None:
            self._check_totals(manifest, header, track, len(chunks), actions, events, latest)
        else:
            notes.append(f"not closed (the recorder stopped without closing it): plays its whole chunks, up to "
                         f"{float(track.times[-1]):.2f} s")
        pieces = self._roster_pieces(scene, roster)
        self._added_pieces(scene, actions)
        return Recording(self.path, header_data, scene, tuple(roster), track, tuple(actions), tuple(events),
                         manifest is not None, tuple(notes), tuple(pieces), self.meshes, signature,
                         members.get(MANIFEST))

    def _members(self) -> tuple[dict[str, bytes], bool]:
        """name -> bytes of every whole member, in file order, and whether the writer closed the file."""
        try:
            found = read_archive(self.data)
        except DamagedError as e:
            self.fail(str(e))
        out: dict[str, bytes] = {}
        for m in found.members:
            if m.name in out:
                self.fail(f"member {m.name} appears twice (damaged)")
            out[m.name] = m.data
        return out, found.closed

    def _json(self, name: str, raw: bytes):
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            self.fail(f"{name}: not JSON ({e})")
        except READ_ERRORS as e:
            self.fail(f"{name}: {unreadable(e)}")
        if check_depth(value) is not None:
            self.fail(f"{name}: not valid here: {too_deep()}")
        return value

    def _model(self, name: str, model, data):
        try:
            return schema.parse(model, data)
        except ValueError as e:
            field, reason = e.args
            self.fail(f"{name}: {field}: {reason}" if field else f"{name}: {reason}")

    def _npz(self, name: str, raw: bytes) -> dict[str, np.ndarray]:
        try:
            return read_npz(raw, self.budget)
        except ValueError as e:
            self.fail(f"{name}: not a readable NPZ archive ({e})")

    # --- the manifest ---------------------------------------------------------------------------------------

    def _check_manifest(self, manifest: schema.Manifest, members: dict[str, bytes]) -> None:
        listed = set()
        for entry in manifest.members:
            if entry.name in listed:
                self.fail(f"{MANIFEST}: {entry.name}: listed twice")
            if entry.name not in members:
                self.fail(f"{entry.name}: listed in the manifest but missing")
            raw = members[entry.name]
            if len(raw) != entry.size or hashlib.sha256(raw).hexdigest() != entry.sha256:
                self.fail(f"{entry.name}: sha256 does not match the manifest (damaged)")
            listed.add(entry.name)
        extra = [n for n in members if n not in listed and n not in (MANIFEST, SIGNATURE)]
        if extra:
            self.fail(f"{extra[0]}: not in the manifest")

    def _signature(self, members: dict[str, bytes], order: list[str]) -> schema.Signature | None:
        """The signature of a signed recording (checked against the manifest's bytes, not yet against a key:
        :meth:`sim.replay.signing.TableKey.check`), or None."""
        if SIGNATURE not in members:
            return None
        if order[-2:] != [MANIFEST, SIGNATURE]:
            self.fail(f"{SIGNATURE}: expected right after {MANIFEST}, as the last member (a table signs the "
                      "manifest of a closed recording)")
        signature = self._model(SIGNATURE, schema.Signature, self._json(SIGNATURE, members[SIGNATURE]))
        if signature.manifest_sha256 != hashlib.sha256(members[MANIFEST]).hexdigest():
            self.fail(f"{SIGNATURE}: manifest_sha256: does not match {MANIFEST} (damaged)")
        return signature

    def _check_totals(self, manifest, header, track: PoseTrack, chunks: int, actions, events, latest: float) -> None:
        """What a closed recording's manifest says it holds must be what it holds."""
        for key, found in (("frames", len(track)), ("chunks", chunks), ("actions", len(actions)),
                           ("events", len(events))):
            said = getattr(manifest, key)
            if said is not None and said != found:
                self.fail(f"{MANIFEST}: {key}: says {said}, the recording holds {found} (damaged)")
        if manifest.duration is not None and abs(latest - header.start_time - manifest.duration) > 1e-6 + \
                1e-9 * abs(manifest.duration):
            self.fail(f"{MANIFEST}: duration: says {manifest.duration:g} s, the recording holds "
                      f"{latest - header.start_time:g} s (damaged)")

    # --- the scene and the pieces ---------------------------------------------------------------------------

    def _spec(self, spec, where: str):
        """A recorded piece's file form, its mesh files resolved to the recording's own."""
        if not isinstance(spec, dict):
            self.fail(f"{where}: expected a piece object, got {schema.got(spec)}")
        if self.meshes is None:
            return spec
        try:
            return self.meshes.resolve(spec, where)
        except ValueError as e:
            self.fail(f"{e.args[0]}: {e.args[1]}")

    def _scene(self, header: dict, raw: bytes):
        from sim.scene import from_dict

        data = dict(header["scene"])
        if isinstance(data.get("pieces"), list):
            data["pieces"] = [self._spec(p, f"{HEADER}: scene.pieces[{k}]") for k, p in enumerate(data["pieces"])]
            header["scene"] = data
        try:
            scene = from_dict(data, f"{self.path}: {HEADER}: scene")
        except SceneError as e:
            raise RecordingError(str(e)) from None
        poses = self._npz(SCENE_POSES, raw).get("poses")
        if poses is None or poses.shape != (len(scene.pieces), 7) or poses.dtype != np.float64:
            self.fail(f"{SCENE_POSES}: poses: expected ({len(scene.pieces)}, 7) float64")
        wrong = check_poses(poses, schema.MAX_POSITION, schema.QUAT_SLACK)
        if wrong:
            self.fail(f"{SCENE_POSES}: poses: {wrong}")
        return scene.with_poses(poses)

    def _roster_pieces(self, scene, roster) -> list:
        """The piece of every roster number, each checked as a scene file's piece."""
        from sim.scene import from_dict

        base = {"format": "towerlab-scene/1", "game": scene.game, "board": scene.board}
        if scene.players is not None:
            base["players"] = list(scene.players)
        out = list(scene.pieces)
        for k in range(len(scene.pieces), len(roster)):
            try:
                out.append(from_dict({**base, "pieces": [roster[k][1]]}, f"{self.path}: roster[{k}]").pieces[0])
            except SceneError as e:
                raise RecordingError(str(e)) from None
        return out

    def _added_pieces(self, scene, actions) -> None:
        """Every recorded live-world ``add`` names a piece a scene file could hold (a re-simulation adds it)."""
        from sim.scene import from_dict

        base = {"format": "towerlab-scene/1", "game": scene.game, "board": scene.board}
        for a in actions:
            if a.world and a.kind == "add":
                try:
                    from_dict({**base, "pieces": [a.args["spec"]]}, f"{self.path}: action {a.index}.args.spec")
                except SceneError as e:
                    raise RecordingError(str(e)) from None

    # --- the chunks -----------------------------------------------------------------------------------------

    def _chunks(self, header: schema.Header, members: dict[str, bytes], complete: bool, scene):
        """Roster, chunk arrays, actions and events of the whole chunks, each checked; and the latest time any
        of them holds."""
        from sim.scene.io import piece_to_dict

        previous = hashlib.sha256(members[HEADER]).hexdigest()
        roster = [(p.id, piece_to_dict(p)) for p in scene.pieces]
        chunks, actions, events = [], [], []
        frames, k, t_last = 0, 0, header.start_time
        most_frames = int(header.rate_hz * header.chunk_seconds) + 2
        while True:
            npz_name, json_name = chunk_names(k)
            if npz_name not in members or json_name not in members:
                if complete and (npz_name in members or json_name in members):
                    self.fail(f"chunk {k}: a member is missing")
                break  # the end, or the cut
            raw_npz, raw_json = members[npz_name], members[json_name]
            where = json_name
            body = self._model(json_name, schema.ChunkBody, self._json(json_name, raw_json))
            if body.npz_sha256 != hashlib.sha256(raw_npz).hexdigest():
                self.fail(f"{npz_name}: sha256 does not match its chunk (damaged)")
            if body.previous_sha256 != previous:
                self.fail(f"{where}: previous_sha256 does not match the chunk before it (damaged or out of order)")
            previous = hashlib.sha256(raw_json).hexdigest()
            if body.frame0 != frames:
                self.fail(f"{where}: frame0: expected {frames}, got {body.frame0}")
            t0, t1 = self._span(body, header, t_last, where)
            for p in body.pieces:
                if p.number != len(roster):
                    self.fail(f"{where}: pieces: number {p.number}, expected {len(roster)}")
                roster.append((p.id, self._spec(p.piece, f"{where}: pieces[{p.number}]")))
            for what, records, log in (("action", body.actions, actions), ("event", body.events, events)):
                for r in records:
                    if r.index != len(log):
                        self.fail(f"{where}: {what} {r.index} out of order (expected {len(log)})")
                    if not t0 - TIME_SLACK <= r.time <= t1 + TIME_SLACK:
                        self.fail(f"{where}: {what} {r.index}: time {r.time:g} s outside its chunk "
                                  f"({t0:g}..{t1:g} s)")
                    log.append(self._action(r, where) if what == "action" else self._event(r, where, len(actions)))
            arrays = self._npz(npz_name, raw_npz)
            wrong = check_chunk(arrays, len(roster), frames) or self._frames(arrays, body, t0, t1, most_frames)
            if wrong:
                self.fail(f"{npz_name}: {wrong}")
            chunks.append(arrays)
            frames += len(arrays["times"])
            t_last = t1
            k += 1
        times = [float(c["times"][-1]) for c in chunks if len(c["times"])]
        latest = max([header.start_time, *times[-1:], *(a.time for a in actions[-1:]), *(e.time for e in events)])
        return roster, chunks, actions, events, latest

    def _span(self, body, header: schema.Header, t_last: float, where: str) -> tuple[float, float]:
        """The chunk's stretch of recording time: ``chunk_seconds`` long, on the grid from the start, after the
        chunk before it."""
        t0, t1 = body.t0, body.t1
        step = header.chunk_seconds
        place = (t0 - header.start_time) / step
        if (abs(t1 - t0 - step) > 1e-6 * max(1.0, step) or t0 < t_last - TIME_SLACK
                or abs(place - round(place)) > 1e-6 * max(1.0, abs(place))):
            self.fail(f"{where}: t0, t1: expected a stretch of {step:g} s on the grid from {header.start_time:g} s "
                      f"after the chunk before it, got {t0:g}..{t1:g} s")
        return t0, t1

    @staticmethod
    def _frames(arrays: dict, body, t0: float, t1: float, most: int) -> str | None:
        """What is wrong with the chunk's frames beyond their shapes: their count, times and poses."""
        times = arrays["times"]
        if len(times) != body.frames:
            return f"times: {len(times)} frames, its chunk says {body.frames}"
        if len(times) > most:
            return f"times: {len(times)} frames in one chunk, more than its rate allows ({most})"
        if len(times) and (not np.isfinite(times).all() or times[0] < t0 - TIME_SLACK
                           or times[-1] > t1 + TIME_SLACK):
            return f"times: frames outside their chunk ({t0:g}..{t1:g} s), from {times[0]:g} to {times[-1]:g} s"
        for name in ("key_poses", "delta_poses"):
            if name in arrays:
                wrong = check_poses(arrays[name], schema.MAX_POSITION, schema.QUAT_SLACK)
                if wrong:
                    return f"{name}: {wrong}"
        return None

    def _action(self, r: schema.ActionRecord, where: str) -> RecordedAction:
        try:
            kind = check_kind(r.kind, "action")
        except ValueError as e:
            self.fail(f"{where}: action {r.index}: {e}")
        args = dict(r.args)
        if r.world:
            self._world_args(r, kind, where)
        if kind == "add" and "spec" in args:
            args["spec"] = self._spec(args["spec"], f"{where}: action {r.index}.args.spec")
        return RecordedAction(r.index, r.time, r.actor, kind, r.piece, r.hand, args, r.world, r.world_time)

    def _world_args(self, r: schema.ActionRecord, kind: str, where: str) -> None:
        """A live-world action (one a re-simulation applies) has what it needs, each number in range."""
        what = f"{where}: action {r.index}"
        if kind not in schema.WORLD_ARGS:
            self.fail(f"{what}: kind: expected a live-world action ({', '.join(schema.WORLD_ARGS)}), got {kind!r}")
        if r.world_time is None or r.world_time < 0:
            self.fail(f"{what}: world_time: expected the live world's time (s, >= 0), got {r.world_time!r}")
        for key in schema.NEEDS[kind]:
            if getattr(r, key) is None:
                self.fail(f"{what}: {key}: required for {kind}")
        try:
            schema.parse(schema.WORLD_ARGS[kind], r.args)
        except ValueError as e:
            self.fail(f"{what}: args.{e.args[0]}: {e.args[1]}" if e.args[0] else f"{what}: args: {e.args[1]}")

    def _event(self, r: schema.EventRecord, where: str, actions: int) -> RecordedEvent:
        try:
            kind = check_kind(r.kind)
        except ValueError as e:
            self.fail(f"{where}: event {r.index}: {e}")
        if r.cause is not None and not r.cause < actions:
            self.fail(f"{where}: event {r.index}: cause {r.cause} is no recorded action")
        return RecordedEvent(r.index, r.time, kind, tuple(r.pieces), r.cause, dict(r.data))
