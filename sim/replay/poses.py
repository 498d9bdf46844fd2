"""The pose timeline: keyframes and the rows that changed, so that pieces at rest cost nothing.

Pieces are numbered by a *roster* (every piece the recording has held, in
the order it first appeared; a piece removed and added again with another
shape gets a new number). A frame is either

* a **keyframe**: the present pieces in their order and all their poses; or
* a **delta**: the pieces that left and joined since the frame before (joined
  ones go last, as in the live world), and the poses that differ from the
  frame before, compared bit for bit (a held piece is never stored again).

Keyframes come every ``keyframe_seconds`` and whenever the order of the
present pieces changes other than by leaving and joining; every frame after
the first has its deltas, keyframes too, so the deltas alone say which piece
changed when (:meth:`PoseTrack.changed_frames`). Poses are float64, as the
physics gives them: a replay is exact.

Arrays (one NPZ per chunk; frame numbers count from the recording's first
frame; an array with no rows is left out, so a quiet second costs ``times``
alone):

===============  ===========  ==============================================
``times``        (F,) f8      recording time (s) of each frame
``keys``         (k, 2) i8    keyframe rows: frame, piece number (in order)
``key_poses``    (k, 7) f8    their poses
``deltas``       (m, 2) i8    changed rows: frame, piece number
``delta_poses``  (m, 7) f8    their new poses
``roster``       (c, 3) i8    frame, piece number, -1 (it leaves) or +1 (it joins)
===============  ===========  ==============================================
"""

from __future__ import annotations

import numpy as np

ARRAYS = ("times", "keys", "key_poses", "deltas", "delta_poses", "roster")
"""Every array of a chunk."""

_SHAPES = {"times": ((0,), np.float64), "keys": ((0, 2), np.int64), "key_poses": ((0, 7), np.float64),
           "deltas": ((0, 2), np.int64), "delta_poses": ((0, 7), np.float64), "roster": ((0, 3), np.int64)}
"""Each array's empty shape (the trailing sizes are its row shape) and dtype."""


def _bits(poses: np.ndarray) -> np.ndarray:
    """Poses as integers: equal exactly when bit for bit equal (0.0 and -0.0 differ, a NaN equals itself)."""
    return np.ascontiguousarray(poses, dtype=np.float64).view(np.int64)


def _changed_rows(stack: np.ndarray) -> np.ndarray:
    """(m, n) whether each row of ``stack`` (m + 1, n, 7) differs bit for bit from the row above it: how many of
    its 7 numbers differ, counted by a matrix product (numpy's ``any`` over 7 columns is four times slower)."""
    bits = stack.view(np.int64)
    return ((bits[1:] != bits[:-1]).astype(np.float32) @ np.ones(7, dtype=np.float32)) > 0


class PoseEncoder:
    """Turns the frames of each chunk (roster numbers, poses) into its arrays; see the module docstring.

    A recorder hands a chunk's frames over whole and this runs on its writing thread: the usual frames (the
    same pieces in the same order) are compared all at once, one array operation a chunk, so that the
    session pays nothing a frame for the pieces at rest.

    Args:
        keyframe_seconds: the most recording time between keyframes (s).
    """

    def __init__(self, keyframe_seconds: float):
        self.keyframe_seconds = float(keyframe_seconds)
        self.frames = 0  # frames encoded so far
        self._order: list[int] = []
        self._numbers: np.ndarray | None = None  # the last frame's pieces (roster numbers) ...
        self._previous = np.zeros((0, 7))  # ... and their poses
        self._last = np.zeros((0, 7))  # the last pose of every roster number, as of the last change of pieces
        self._last_key = -np.inf
        self._reset()

    def _reset(self) -> None:
        self._times: list[float] = []
        self._keys: list[tuple] = []  # (frame, numbers (n,), poses (n, 7)) of each keyframe
        self._deltas: list[tuple] = []  # (frame or frames (r,), numbers (r,), poses (r, 7)) of changed rows
        self._joins: list[tuple[int, int]] = []
        self._leaves: list[tuple[int, int]] = []

    def encode(self, frames) -> dict[str, np.ndarray]:
        """The arrays of one chunk (see :data:`ARRAYS`; empty ones left out), from its frames.

        Args:
            frames: (time, numbers, poses) of each frame, in order: recording time (s), (n,) int32 roster
                numbers of the present pieces in their order, (n, 7) float64 their poses. Neither array
                is changed afterwards (a frame that repeats the one before may hand the same arrays again).
        """
        self._reset()
        k, n = 0, len(frames)
        while k < n:
            if not self._same(frames[k][1]):  # the first frame, or pieces came, went or changed places
                self._change(*frames[k])
                k += 1
                continue
            numbers, end = frames[k][1], k + 1
            while end < n and (frames[end][1] is numbers or self._same(frames[end][1])):
                end += 1
            self._run(frames[k:end])
            k = end
        return self._arrays()

    def _same(self, numbers: np.ndarray) -> bool:
        last = self._numbers
        return last is not None and (numbers is last or (len(numbers) == len(last) and np.array_equal(numbers, last)))

    def _run(self, frames) -> None:
        """Frames of the same pieces in the same order as the last one: every row compared with the frame
        before at once. A frame that hands the same array as the one before (a live world's frame in which
        nothing moved) is not compared at all."""
        g0, numbers = self.frames, self._numbers
        distinct, where = [self._previous], []  # the poses arrays in order, and which one each frame has
        for f in frames:
            if f[2] is not distinct[-1]:
                distinct.append(f[2])
            where.append(len(distinct) - 1)
        stack = np.concatenate(distinct).reshape(len(distinct), len(numbers), 7)
        times = [float(f[0]) for f in frames]
        if times[-1] >= self._last_key + self.keyframe_seconds - 1e-9:  # a keyframe is due in the run
            for i, t in enumerate(times):
                if t >= self._last_key + self.keyframe_seconds - 1e-9:
                    self._keys.append((g0 + i, numbers, stack[where[i]]))
                    self._last_key = t
        at, rows = np.nonzero(_changed_rows(stack))  # array by array, each in the pieces' order
        if len(at):
            first = np.searchsorted(where, np.arange(1, len(distinct)))  # the frame each array came in
            self._deltas.append((g0 + first[at], numbers[rows], stack[at + 1, rows]))
        self._previous = distinct[-1]
        self._times += times
        self.frames += len(frames)

    def _change(self, t: float, numbers: np.ndarray, poses: np.ndarray) -> None:
        """A frame whose pieces differ from the last one's (or the first frame): the long way."""
        g = self.frames
        if self._numbers is not None:
            self._last[self._numbers] = self._previous
        size = int(numbers.max()) + 1 if len(numbers) else 0
        if len(self._last) < size:
            grown = np.full((size, 7), np.nan)
            grown[:len(self._last)] = self._last
            self._last = grown
        order = numbers.tolist()
        present = set(self._order)
        now = set(order)
        predicted = [i for i in self._order if i in now] + [i for i in order if i not in present]
        if predicted != order or t >= self._last_key + self.keyframe_seconds - 1e-9 or g == 0:
            self._keys.append((g, numbers, poses))
            self._last_key = t
        if g:  # every change is a delta, keyframes too: which piece moved when needs no decoding
            for i in self._order:
                if i not in now:
                    self._leaves.append((g, i))
            joined = [i for i in order if i not in present]
            for i in joined:
                self._joins.append((g, i))
            changed = np.any(_bits(poses) != _bits(self._last[numbers]), axis=1)
            if joined:
                changed |= np.isin(numbers, joined)
            if changed.any():
                self._deltas.append((g, numbers[changed], poses[changed]))
        self._order = order
        self._numbers = numbers
        self._previous = poses
        self._times.append(float(t))
        self.frames += 1

    def _arrays(self) -> dict[str, np.ndarray]:
        def rows(parts):
            return _cat([np.column_stack([np.broadcast_to(np.asarray(g, dtype=np.int64), len(n)), n])
                         for g, n, _ in parts], np.int64, (0, 2))

        changes = [(g, i, -1) for g, i in self._leaves] + [(g, i, 1) for g, i in self._joins]
        changes.sort(key=lambda c: (c[0], c[2]))  # a frame's leaves before its joins
        out = {
            "times": np.array(self._times, dtype=np.float64),
            "keys": rows(self._keys),
            "key_poses": _cat([k[2] for k in self._keys], np.float64, (0, 7)),
            "deltas": rows(self._deltas),
            "delta_poses": _cat([d[2] for d in self._deltas], np.float64, (0, 7)),
            "roster": np.array(changes, dtype=np.int64).reshape(-1, 3),
        }
        return {k: v for k, v in out.items() if k == "times" or len(v)}


def _cat(parts, dtype, empty_shape) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(empty_shape, dtype=dtype)


def full_chunk(arrays: dict) -> dict[str, np.ndarray]:
    """A chunk's arrays with the left-out (empty) ones put back."""
    return {k: arrays[k] if k in arrays else np.zeros(*_SHAPES[k]) for k in ARRAYS}


def check_poses(poses: np.ndarray, most: float, slack: float) -> str | None:
    """What is wrong with (n, 7) poses (None when nothing): a number that is not finite, a position farther than
    ``most`` (m) from the origin, a quaternion whose length is not 1 within ``slack`` (zero, or not a rotation).
    """
    if not len(poses):
        return None
    if not np.isfinite(poses).all():
        row = int(np.flatnonzero(~np.isfinite(poses).all(axis=1))[0])
        return f"row {row}: a number that is not finite ({poses[row].tolist()})"
    far = np.abs(poses[:, :3]).max(axis=1) > most
    if far.any():
        row = int(np.flatnonzero(far)[0])
        return f"row {row}: a position farther than {most:g} m ({poses[row, :3].tolist()})"
    length = np.sqrt(np.einsum("ij,ij->i", poses[:, 3:], poses[:, 3:]))
    off = np.abs(length - 1.0) > slack
    if off.any():
        row = int(np.flatnonzero(off)[0])
        return f"row {row}: a quaternion of length {length[row]:.6g}, not a rotation ({poses[row, 3:].tolist()})"
    return None


def check_chunk(arrays: dict, roster_size: int, frames_before: int) -> str | None:
    """What is wrong with one chunk's arrays (None when nothing): unknown or missing arrays, dtypes, shapes,
    piece numbers outside the roster, frame numbers outside the chunk or out of order."""
    unknown = sorted(set(arrays) - set(ARRAYS))
    if unknown:
        return f"{unknown[0]}: not an array of a recording chunk"
    if "times" not in arrays:
        return "times: missing"
    for k, v in arrays.items():
        shape, dtype = _SHAPES[k]
        if v.dtype != dtype or v.ndim != len(shape) or v.shape[1:] != shape[1:]:
            return f"{k}: expected {np.dtype(dtype).name} rows of shape {shape[1:]}, got {v.dtype.name} {v.shape}"
    a = full_chunk(arrays)
    f = len(a["times"])
    if f and not np.isfinite(a["times"]).all():
        return "times: a time that is not finite"
    if f and not np.all(np.diff(a["times"]) >= 0):
        return "times: not in order"
    for rows, poses in (("keys", "key_poses"), ("deltas", "delta_poses")):
        if len(a[rows]) != len(a[poses]):
            return f"{poses}: expected {len(a[rows])} rows, got {len(a[poses])}"
    for name in ("keys", "deltas", "roster"):
        r = a[name]
        if not len(r):
            continue
        if r[:, 0].min() < frames_before or r[:, 0].max() >= frames_before + f or np.any(np.diff(r[:, 0]) < 0):
            return f"{name}: frame numbers outside the chunk or out of order"
        if r[:, 1].min() < 0 or r[:, 1].max() >= roster_size:
            return f"{name}: a piece number outside the roster (0..{roster_size - 1})"
    if len(a["roster"]) and not np.all(np.isin(a["roster"][:, 2], (-1, 1))):
        return "roster: expected -1 (leaves) or +1 (joins)"
    if frames_before == 0 and f and (not len(a["keys"]) or a["keys"][0, 0] != 0):
        return "keys: the first frame must be a keyframe"
    k = a["keys"]
    if len(k) > 1:  # a keyframe holds each piece once
        s = k[np.lexsort((k[:, 1], k[:, 0]))]
        if np.any(np.all(s[1:] == s[:-1], axis=1)):
            return "keys: a keyframe holds a piece twice"
    return None


class PoseTrack:
    """The poses of every frame of a recording, decoded on demand; see the module docstring.

    Args:
        chunks: every chunk's arrays, in order (checked by :func:`check_chunk`).
    """

    def __init__(self, chunks: list[dict]):
        full = [full_chunk(c) for c in chunks]

        def cat(k):
            return np.concatenate([c[k] for c in full]) if full else np.zeros(*_SHAPES[k])

        self.times = cat("times")
        keys, deltas, roster = cat("keys"), cat("deltas"), cat("roster")
        self.key_poses, self.delta_poses = cat("key_poses"), cat("delta_poses")
        starts = np.flatnonzero(np.r_[True, keys[1:, 0] != keys[:-1, 0]]) if len(keys) else np.zeros(0, np.int64)
        self.key_frame = keys[starts, 0] if len(keys) else np.zeros(0, np.int64)
        self.key_offsets = np.r_[starts, len(keys)].astype(np.int64)
        self.key_ids = keys[:, 1].astype(np.int32)
        self.delta_frame, self.delta_ids = deltas[:, 0], deltas[:, 1].astype(np.int32)
        joins, leaves = roster[roster[:, 2] > 0], roster[roster[:, 2] < 0]
        self.join_frame, self.join_ids = joins[:, 0], joins[:, 1].astype(np.int32)
        self.leave_frame, self.leave_ids = leaves[:, 0], leaves[:, 1].astype(np.int32)
        self._roster = int(max([0, *(int(a.max()) + 1 for a in (self.key_ids, self.delta_ids, self.join_ids)
                                     if len(a))]))
        self._cache: tuple[int, list[int], np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.times)

    def check(self) -> str | None:
        """What is wrong with the pieces' coming and going (None when nothing): between two keyframes a piece
        leaves only while present and joins only while absent (decoding removes and appends them), checked
        in one pass over the keyframes and the roster's changes."""
        changes = sorted(zip(np.r_[self.leave_frame, self.join_frame].tolist(),
                             [0] * len(self.leave_frame) + [1] * len(self.join_frame),
                             np.r_[self.leave_ids, self.join_ids].tolist()))
        keys = self.key_frame.tolist()
        k, present = -1, set()
        for frame, joining, number in changes:
            while k + 1 < len(keys) and keys[k + 1] <= frame:
                k += 1
                a, b = self.key_offsets[k], self.key_offsets[k + 1]
                present = set(self.key_ids[a:b].tolist())
            if k >= 0 and keys[k] == frame:
                continue  # the keyframe lists the frame's pieces itself
            if joining and number in present:
                return f"roster: piece {number} joins at frame {frame} while it is there"
            if not joining and number not in present:
                return f"roster: piece {number} leaves at frame {frame} while it is not there"
            (present.add if joining else present.discard)(number)
        return None

    def frame_at(self, t: float) -> int:
        """The number of the last frame at or before time ``t`` (s); the first one before it."""
        return max(0, int(np.searchsorted(self.times, t + 1e-9, side="right")) - 1)

    def at(self, g: int) -> tuple[list[int], np.ndarray]:
        """Frame ``g``: the present pieces' roster numbers, in order, and their poses (n, 7), as recorded.

        Decoding goes on from the frame decoded last when ``g`` follows it, else from the keyframe before.

        Raises:
            IndexError: no such frame.
        """
        if not 0 <= g < len(self.times):
            raise IndexError(f"frame {g}: the recording has frames 0..{len(self.times) - 1}")
        k = int(np.searchsorted(self.key_frame, g, side="right")) - 1
        key = int(self.key_frame[k])
        if self._cache is not None and key <= self._cache[0] <= g:
            start, order, table = self._cache[0], list(self._cache[1]), self._cache[2].copy()
        else:
            a, b = self.key_offsets[k], self.key_offsets[k + 1]
            order = self.key_ids[a:b].tolist()
            table = np.full((max(self._roster, 1), 7), np.nan)
            table[self.key_ids[a:b]] = self.key_poses[a:b]
            start = key
        if g > start:
            self._apply(start + 1, g, order, table)
        self._cache = (g, order, table)
        return list(order), table[order].copy()

    def changed_frames(self, number: int) -> np.ndarray:
        """(k,) the frames at which piece ``number``'s pose differed from the frame before (or it appeared)."""
        return self.delta_frame[self.delta_ids == number]

    def appeared(self, number: int, g: int) -> int | None:
        """The frame at or before ``g`` at which piece ``number`` last appeared (None if it had not)."""
        joins = self.join_frame[(self.join_ids == number) & (self.join_frame <= g)]
        rows = np.flatnonzero(self.key_ids == number)
        keys = self.key_frame[np.searchsorted(self.key_offsets, rows, side="right") - 1] if len(rows) else rows
        keys = keys[keys <= g]
        if len(joins):
            return int(joins[-1])
        return int(keys[0]) if len(keys) else None

    def rest_frame(self, number: int, g: int) -> int:
        """The last frame at or before ``g`` at which piece ``number`` stood still: its pose there is where it
        was before the motion going on at ``g`` began (the frame before the run of frames in which it kept
        changing, or its first frame)."""
        changed = self.changed_frames(number)
        j = int(np.searchsorted(changed, g, side="right")) - 1
        if j < 0 or changed[j] != g:
            return g
        while j > 0 and changed[j - 1] == changed[j] - 1:
            j -= 1
        first = self.appeared(number, g)
        return max(int(changed[j]) - 1, 0 if first is None else first)

    def _apply(self, first: int, last: int, order: list[int], table: np.ndarray) -> None:
        """Frames ``first..last`` (deltas, joins, leaves) onto ``order`` and ``table``, in place."""
        def span(frames):
            return slice(*np.searchsorted(frames, [first, last + 1]))

        joins, leaves = span(self.join_frame), span(self.leave_frame)
        changes = sorted([(int(f), 0, int(i)) for f, i in zip(self.leave_frame[leaves], self.leave_ids[leaves])]
                         + [(int(f), 1, int(i)) for f, i in zip(self.join_frame[joins], self.join_ids[joins])])
        for _, joining, i in changes:  # a frame's leaves before its joins, as the encoder wrote them
            if joining:
                order.append(i)
            else:
                order.remove(i)
        d = span(self.delta_frame)
        ids, poses = self.delta_ids[d], self.delta_poses[d]
        if len(ids):
            # rows come in frame order: keep each piece's last (numpy does not promise which of repeated
            # indices an assignment keeps)
            _, last = np.unique(ids[::-1], return_index=True)
            rows = len(ids) - 1 - last
            table[ids[rows]] = poses[rows]
