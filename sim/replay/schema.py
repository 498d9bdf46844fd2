"""The JSON members of a recording, as pydantic models: every field of the type and range it must have.

A recording comes from someone else (a player, a referee): its header, its
chunks' JSON and its manifest are checked field by field when it is read, as
scene files are (:mod:`sim.scene.schema`, whose validators and messages these
share): ``header.json: settings.dt: expected a time step 1e-05..0.1 (s), got 0``.
Fields a reader does not act on are kept as they came (a later version's extras).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from sim.limits import finite
from sim.scene.schema import GAMES, V, boolean, first_error, got, identifier, int_range, one_of, player_list

MAX_SECONDS = 1e7
"""The latest recording time read (s, about four months): a later one is damage, not a session."""

MAX_POSITION = 1e6
"""The farthest from the origin a recorded piece may be (m): a thousand kilometres, far past any fall."""

QUAT_SLACK = 1e-3
"""How far from 1 a recorded quaternion's length may be: the physics keeps them unit to 1e-12; poses made by
hand (a test's, a script's) are let through rounded, a zero or doubled quaternion is no rotation."""


def _fail(expected: str, value: Any):
    raise PydanticCustomError("expected", "expected {expected}, got {got}", {"expected": expected, "got": got(value)})


def _count(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 53:
        _fail("a whole number >= 0", v)
    return v


def _number(lo: float, hi: float, what: str, *, above: bool = False):
    """A finite number lo..hi (above lo only, with ``above``), as a float; ``what`` names it in the message."""
    expected = f"{what} 0 < x <= {hi:g}" if above and lo == 0 else f"{what} {lo:g}..{hi:g}"

    def check(v: Any) -> float:
        if not finite(v) or not (lo < v if above else lo <= v) or not v <= hi:
            _fail(expected, v)
        return float(v)
    return check


_time = _number(-MAX_SECONDS, MAX_SECONDS, "a time (s)")


def _optional_time(v: Any) -> float | None:
    return None if v is None else _time(v)


def _positive(hi: float, what: str):
    return _number(0.0, hi, what, above=True)


def _string(v: Any) -> str:
    if not isinstance(v, str):
        _fail("a string", v)
    return v


def _optional_string(v: Any) -> str | None:
    return None if v is None else _string(v)


def _variant(v: Any) -> str | None:
    if v is not None and not isinstance(v, str):
        _fail("a variant's name or null", v)
    return v


def _object(v: Any) -> dict:
    if not isinstance(v, dict):
        _fail("an object", v)
    return v


def _sha256(v: Any) -> str:
    if not isinstance(v, str) or len(v) != 64 or any(c not in "0123456789abcdef" for c in v):
        _fail("a sha256 digest (64 hex digits)", v)
    return v


def _seed(v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 128:
        _fail("an integer >= 0 or null", v)
    return v


def _players(v: Any):
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(x, str) and x and x == x.strip() for x in v):
        _fail("a list of player names or null", v)
    return player_list(v)


# --- physics settings ---------------------------------------------------------------------------------------

SETTINGS = {  # every field of PhysicsSettings: its type and (numbers) range (tests/test_hostile_files.py keeps them
    # equal to the dataclass's fields; a range is wide unless the setting divides, loops, sizes a buffer or scales)
    "length_scale": (float, 1e-3, 1e6, "Bullet units per metre"), "dt": (float, 1e-5, 0.1, "a time step (s)"),
    "solver_iterations": (int, 1, 100_000, "iterations"), "residual_velocity": (float, 0.0, 1e3, "a speed (m/s)"),
    "residual_per_margin": (float, 0.0, 1e3, "m/s per g"), "residual_per_level": (float, 0.0, 1e3, "m/s per g"),
    "residual_floor": (float, 0.0, 1e3, "a speed (m/s)"), "residual_ceiling": (float, 0.0, 1e3, "a speed (m/s)"),
    "iterations_per_margin": (float, 0.0, 1e9, "iterations per g"),
    "iterations_per_level": (float, 0.0, 1e9, "iterations per level"),
    "min_iterations": (int, 1, 100_000, "iterations"), "collapse_pieces": (int, 1, 1_000_000, "pieces"),
    "collapse_dt": (float, 1e-5, 0.1, "a time step (s)"), "collapse_iterations": (int, 1, 100_000, "iterations"),
    "max_iterations": (int, 1, 100_000, "iterations"), "stable_sleep_margin": (float, 0.0, 1e3, "a margin (g)"),
    "stable_sleep_window": (float, 0.0, 3600.0, "a duration (s)"),
    "stable_freeze": (bool,), "erp": (float, 0.0, 1.0, "a fraction"),
    "contact_erp": (float, 0.0, 1.0, "a fraction"), "friction_erp": (float, 0.0, 1.0, "a fraction"),
    "split_impulse": (bool,), "split_impulse_threshold": (float, -1.0, 1.0, "a depth (m)"),
    "contact_slop": (float, 0.0, 1.0, "a depth (m)"), "contact_breaking_threshold": (float, 0.0, 1.0, "a gap (m)"),
    "warm_starting": (float, 0.0, 1.0, "a fraction"), "cone_friction": (bool,), "sat": (bool,),
    "sat_corners": (int, 0, 10_000, "corners"), "shrink": (float, 0.0, 0.5, "a fraction"),
    "array_parts": (int, 1, 16, "parts (pybullet's buffer holds 16)"), "swell": (float, 0.0, 1.0, "a length (m)"),
    "prime_depth": (float, 0.0, 1.0, "a depth (m)"), "table_size": (float, 1e-3, 1e4, "a size (m)"),
    "top_down": (bool,), "friction_anchors": (bool,), "damping": (float, 0.0, 1e3, "a rate (1/s)"),
    "sleeping": (bool,), "restitution_velocity_threshold": (float, 0.0, 1e3, "a speed (m/s)"),
    "probe_g": (float, 0.0, 10.0, "an acceleration (g)"), "probe_period": (float, 1e-3, 1e6, "a period (s)"),
    "probe_update": (float, 1e-4, 60.0, "an interval (s)"), "max_seconds": (float, 1e-3, 3600.0, "a duration (s)"),
    "watch_seconds": (float, 1e-4, 3600.0, "an interval (s)"), "deterministic_pairs": (bool,),
    "configure_engine": (bool,), "span_margin": (float, 0.0, 1e3, "a margin (g)"), "exact_hulls": (bool,),
    "exact_faces": (int, 0, 1000, "faces (each a pyramid body part)"), "face_gap": (float, 0.0, 0.01, "a gap (m)"),
    "exact_parts": (int, 0, 64, "parts (each cut into its faces)"),
}
"""The physics settings a recording's header may hold: each field's type, and range (lo, hi, what)."""


def _setting(kind, lo=None, hi=None, what=""):
    """The check of one physics setting: of its type, finite, and within its range."""
    if kind is bool:
        return boolean
    if kind is int:
        return int_range(int(lo), int(hi))
    return _number(lo, hi, what)


_SETTING_CHECKS = {name: _setting(*spec) for name, spec in SETTINGS.items()}


def check_settings(data: Any) -> dict | None:
    """A header's physics settings checked: None, or an object whose known fields (those of
    :class:`~sim.physics.settings.PhysicsSettings`, :data:`SETTINGS`) have their type and range; unknown ones (of
    another version) are dropped. Returns the known fields. (Checked without importing the physics: reading a
    recording needs no pybullet.)

    Raises:
        ValueError: ``(field, reason)`` as its args.
    """
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("settings", f"expected an object of physics settings or null, got {got(data)}")
    out = {}
    for name, check in _SETTING_CHECKS.items():
        if name in data:
            try:
                out[name] = check(data[name])
            except PydanticCustomError as e:
                raise ValueError(f"settings.{name}", str(e)) from None
    if "min_iterations" in out and "max_iterations" in out and out["min_iterations"] > out["max_iterations"]:
        raise ValueError("settings.min_iterations", "expected at most max_iterations")
    return out


# --- the models -----------------------------------------------------------------------------------------------


class _Open(BaseModel):
    """A record whose fields are checked and whose other keys are kept (a later version's additions)."""

    model_config = ConfigDict(extra="allow", frozen=True)


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Header(_Open):
    """``header.json``: what a reader acts on (see docs/recording-format.md)."""

    format: V(_string)
    software_version: V(_string)
    source: V(_string)
    game: V(one_of(*GAMES))
    variant: V(_variant) = None
    players: V(_players) = None
    seed: V(_seed) = None
    settings: Any = None
    rate_hz: V(_positive(1000.0, "a rate (Hz)")) = 60.0
    chunk_seconds: V(_positive(3600.0, "a duration (s)")) = 1.0
    keyframe_seconds: V(_positive(36000.0, "a duration (s)")) = 10.0
    start_time: V(_time) = 0.0
    replayable: V(boolean) = False
    scene: V(_object)
    extra: V(_object) = {}

    @field_validator("keyframe_seconds")
    @classmethod
    def _keyframes(cls, v, info):
        chunk = info.data.get("chunk_seconds")
        if chunk is not None and v < chunk:
            _fail(f"a duration >= chunk_seconds ({chunk:g} s)", v)
        return v


class MemberEntry(_Closed):
    """One member in the manifest."""

    name: V(_string)
    size: V(_count)
    sha256: V(_sha256)


class Manifest(_Open):
    """``manifest.json``, written when the recording is closed."""

    format: V(_string) = None
    closed: V(boolean) = True
    duration: V(_time) = None
    frames: V(_count) = None
    chunks: V(_count) = None
    actions: V(_count) = None
    events: V(_count) = None
    members: list[MemberEntry]


def _hex16(v: Any) -> str:
    if not isinstance(v, str) or len(v) != 16 or any(c not in "0123456789abcdef" for c in v):
        _fail("a key id (16 hex digits)", v)
    return v


class Signature(_Closed):
    """``signature.json``, after the manifest of a recording a table signed (:mod:`sim.replay.signing`)."""

    format: V(one_of("towerlab-signature/1"))
    algorithm: V(one_of("hmac-sha256"))
    key_id: V(_hex16)
    manifest_sha256: V(_sha256)
    hmac: V(_sha256)


class RosterEntry(_Closed):
    """A piece that appears in a chunk: its roster number, id and scene-file form."""

    number: V(_count)
    id: V(identifier)
    piece: V(_object)


class ActionRecord(_Closed):
    """One recorded action (:class:`~sim.replay.records.RecordedAction`)."""

    index: V(_count)
    time: V(_time)
    actor: V(_optional_string) = None
    kind: V(_string)
    piece: V(_optional_string) = None
    hand: V(_optional_string) = None
    args: V(_object) = {}
    world: V(boolean) = False
    world_time: V(_optional_time) = None


class EventRecord(_Closed):
    """One recorded event (:class:`~sim.replay.records.RecordedEvent`)."""

    index: V(_count)
    time: V(_time)
    kind: V(_string)
    pieces: list[V(_string)] = []
    cause: V(lambda v: None if v is None else _count(v)) = None
    data: V(_object) = {}


class ChunkBody(_Open):
    """A chunk's JSON: where it lies in time and in frames, what came in it, and the digests that chain it."""

    chunk: V(_count) = None
    t0: V(_time)
    t1: V(_time)
    frame0: V(_count)
    frames: V(_count)
    pieces: list[RosterEntry] = []
    actions: list[ActionRecord] = []
    events: list[EventRecord] = []
    npz_sha256: V(_sha256)
    previous_sha256: V(_sha256)


def _vector(n: int, most: float):
    def check(v: Any):
        if not isinstance(v, list) or len(v) != n or not all(finite(x) and abs(x) <= most for x in v):
            _fail(f"{n} finite numbers within {most:g}", v)
        return v
    return check


def _pose(v: Any):
    p = _vector(7, MAX_POSITION)(v)
    length = math.sqrt(sum(x * x for x in p[3:]))
    if abs(length - 1.0) > QUAT_SLACK:
        _fail("a pose [x, y, z, qx, qy, qz, qw] with a unit quaternion", v)
    return v


def _optional(check):
    return lambda v: None if v is None else check(v)




class _AddArgs(_Open):
    spec: V(_object)
    pose: V(_pose)
    velocity: V(_optional(_vector(6, 1e3))) = None


class _PoseArgs(_Open):
    pose: V(_pose)


class _PushArgs(_Open):
    impulse: V(_vector(3, 1e3))
    point: V(_optional(_vector(3, MAX_POSITION))) = None


class _GrabArgs(_Open):
    target: V(_pose)
    strength: V(_number(0.0, 1e6, "a strength")) = 1.0


class _TargetArgs(_Open):
    target: V(_pose)


class _ShakeArgs(_Open):
    amplitude: V(_number(0.0, 1.0, "an amplitude (m)"))
    frequency: V(_number(0.0, 1000.0, "a frequency (Hz)"))
    direction_deg: V(_number(-3600.0, 3600.0, "an angle (degrees)")) = 0.0
    seconds: V(_number(0.0, 3600.0, "a duration (s)"))


class _NoArgs(_Open):
    pass


WORLD_ARGS = {"add": _AddArgs, "remove": _NoArgs, "set_pose": _PoseArgs, "push": _PushArgs, "grab": _GrabArgs,
              "move_hand": _TargetArgs, "release": _NoArgs, "shake": _ShakeArgs}
"""The arguments of each live-world action a re-simulation applies, checked when the recording is read."""

NEEDS = {"add": ("piece",), "remove": ("piece",), "set_pose": ("piece",), "push": ("piece",),
         "grab": ("piece",), "move_hand": ("hand",), "release": ("hand",), "shake": ()}
"""The fields of a recorded action each live-world action needs."""


def parse(model: type[BaseModel], data: Any) -> BaseModel:
    """``data`` checked by ``model``.

    Raises:
        ValueError: ``(field, reason)`` as its args (the first problem found).
    """
    if not isinstance(data, dict):
        raise ValueError("", f"expected an object, got {got(data)}")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ValueError(*first_error(e)) from None
