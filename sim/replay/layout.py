"""A recording's layout as data: its rates, the names of its members and its header (docs/recording-format.md).

The :class:`~sim.replay.recorder.Recorder` writes by these, :mod:`sim.replay.reading` reads by them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, is_dataclass

import sim
from sim.replay.errors import RecorderError
from sim.replay.records import FORMAT

RATE_HZ = 60.0
"""Frames per second of recording time (the live world's frame rate)."""

CHUNK_SECONDS = 1.0
"""Recording time per chunk (s): what a crash can lose."""

KEYFRAME_SECONDS = 10.0
"""The most recording time between keyframes (s): a seek decodes at most this much."""

HEADER, SCENE_POSES, MANIFEST, SIGNATURE = "header.json", "scene.npz", "manifest.json", "signature.json"
"""Names of the members that are not chunks (the signature, after the manifest, only in a signed recording:
:mod:`sim.replay.signing`)."""


def chunk_names(k: int) -> tuple[str, str]:
    """The members of chunk ``k``: its arrays and its JSON."""
    return f"chunks/{k:06d}.npz", f"chunks/{k:06d}.json"


def settings_json(settings) -> dict | None:
    """A settings object (a dataclass such as ``PhysicsSettings``) or mapping as JSON data."""
    if settings is None:
        return None
    if is_dataclass(settings):
        return asdict(settings)
    if isinstance(settings, Mapping):
        return dict(settings)
    raise RecorderError(f"settings: expected a dataclass or a mapping, got {type(settings).__name__}")


def header_json(scene_json: dict, *, source: str, game: str, variant: str | None, players, seed: int | None,
                settings, rates: tuple[float, float, float], time: float, replayable: bool,
                extra: Mapping | None) -> dict:
    """The header member: what the recording is of (the scene's file form with its meshes as members, the
    game, its players, the seed, the physics settings), its rates (frames a second, seconds a chunk, the most
    seconds between keyframes), the recording time it starts at and whether its actions replay it."""
    rate_hz, chunk_seconds, keyframe_seconds = rates
    return {
        "format": FORMAT, "software": "towerlab", "software_version": sim.__version__, "source": source,
        "game": game, "variant": variant, "players": None if players is None else list(players),
        "seed": None if seed is None else int(seed), "settings": settings_json(settings),
        "rate_hz": rate_hz, "chunk_seconds": chunk_seconds, "keyframe_seconds": keyframe_seconds,
        "start_time": float(time), "replayable": bool(replayable), "scene": scene_json,
        "extra": dict(extra or {}),
    }


def manifest_json(duration: float, frames: int, chunks: int, actions: int, events: int, digests) -> dict:
    """The manifest member, written last: the recording closed, its length (s) and counts, and every member
    before it with its size and sha256 (``digests``: (name, size, sha256) each)."""
    return {"format": FORMAT, "software_version": sim.__version__, "closed": True, "duration": duration,
            "frames": frames, "chunks": chunks, "actions": actions, "events": events,
            "members": [{"name": n, "size": s, "sha256": h} for n, s, h in digests]}
