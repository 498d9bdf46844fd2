"""Perturbation models: what each is, its keys, and the ``MODEL:key=value,…`` text that names one (pure).

Five models, combinable (each may be given more than once):

- ``noise``: placement noise, per piece and independent: a Gaussian shift of
  ``sigma_mm`` along each horizontal axis (``axes``), a turn of ``sigma_deg``
  about the vertical and, with ``tilt_deg``, about each horizontal axis.
- ``friction`` and ``density``: each piece's Coulomb coefficient or density
  times ``1 + sigma_rel · z``, z a standard normal truncated so that the factor stays positive.
- ``nudge``: an impulse of ``impulse_ns`` (N·s) to one piece (named or drawn),
  horizontal, in a direction (given or drawn), at a height on the piece.
- ``vibration``: the table shaking horizontally, ``amplitude_mm`` at
  ``frequency_hz``, for ``duration_s``, in a direction (given or drawn).

Noise (without tilt), friction and density change only the scene a trial
starts from: the statics answer them exactly. A nudge, a vibration and a tilt
(a piece set down tilted lands on its face, which only the simulation tells)
need the dynamics. Every value is checked here, at the boundary: an unknown
model or key, a value out of range or of the wrong type is a
:class:`PerturbationError` naming the model and the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from sim.errors import TowerlabError

RANDOM = "random"
"""The value of a key that each trial draws for itself (a piece, a direction, a height)."""


class PerturbationError(TowerlabError):
    """A perturbation that cannot be used: unknown model or key, a value out of range."""


@dataclass(frozen=True)
class Key:
    """One key of a model.

    Attributes:
        name: as written (``sigma_mm``).
        kind: ``float`` (a number in ``[lo, hi]``), ``angle`` (degrees, or ``random``),
            ``fraction`` (0..1, or ``random``), ``piece`` (an id, or ``random``),
            ``pieces`` (ids joined by ``+``), ``axes`` (``x``, ``y`` or ``xy``).
        default: its value when not given (None: required).
        help: what it means, with its unit.
        lo, hi: the bounds of a ``float``; ``lo_open``: lo itself is excluded.
    """

    name: str
    kind: str
    default: object
    help: str
    lo: float = 0.0
    hi: float = math.inf
    lo_open: bool = False

    @property
    def numeric(self) -> bool:
        """A number a sweep can vary."""
        return self.kind in ("float", "angle", "fraction")


@dataclass(frozen=True)
class Model:
    """A perturbation model: its keys and whether the simulation is needed.

    Attributes:
        name: ``noise``, ``nudge``, ...
        summary: one line.
        keys: its keys, in the order the canonical text lists them.
        dynamic: needs the simulation whatever its values (a nudge, a vibration).
    """

    name: str
    summary: str
    keys: tuple[Key, ...]
    dynamic: bool

    def key(self, name: str) -> Key:
        """The key called ``name``.

        Raises:
            PerturbationError: the model has no such key.
        """
        for k in self.keys:
            if k.name == name:
                return k
        known = ", ".join(k.name for k in self.keys)
        raise PerturbationError(f"{self.name}: unknown key {name!r} (known: {known})")


_PIECES = Key("pieces", "pieces", (), "only these pieces (ids joined by +); default every movable piece")
_SIGMA_REL = Key("sigma_rel", "float", 0.1, "relative standard deviation of each piece's factor", hi=10.0)

MODELS: dict[str, Model] = {m.name: m for m in (
    Model("noise", "placement noise: a Gaussian shift and turn of each piece, independent per piece", (
        Key("sigma_mm", "float", 1.0, "standard deviation of the shift along each horizontal axis (mm)", hi=1e3),
        Key("sigma_deg", "float", 0.0, "standard deviation of the turn about the vertical (degrees)", hi=180.0),
        Key("tilt_deg", "float", 0.0, "standard deviation of the tilt about each horizontal axis (degrees; "
            "needs the dynamics)", hi=45.0),
        Key("axes", "axes", "xy", "the horizontal axes the shift acts along: x, y or xy"),
        _PIECES), dynamic=False),
    Model("friction", "friction variation: each piece's Coulomb coefficient times 1 + sigma_rel z",
          (_SIGMA_REL, _PIECES), dynamic=False),
    Model("density", "density variation: each piece's density times 1 + sigma_rel z", (_SIGMA_REL, _PIECES),
          dynamic=False),
    Model("nudge", "an impulse to one piece, horizontal, at a height on it", (
        Key("impulse_ns", "float", None, "size of the impulse (N s)", hi=1e3, lo_open=True),
        Key("piece", "piece", RANDOM, "the piece pushed, or random (among pieces=)"),
        Key("direction", "angle", RANDOM, "direction of the push (degrees from +x), or random"),
        Key("height", "fraction", 0.5, "where on the piece: 0 its bottom, 1 its top, or random"),
        Key("offset_mm", "float", 0.0, "how far to the left of the piece's centre of mass the push passes (mm)",
            lo=-1e3, hi=1e3),
        Key("time_s", "float", 0.1, "when the impulse comes (s after the start)", hi=600.0),
        _PIECES), dynamic=True),
    Model("vibration", "the table shaking: a horizontal sinusoid", (
        Key("amplitude_mm", "float", 1.0, "displacement amplitude of the table (mm)", hi=1e3, lo_open=True),
        Key("frequency_hz", "float", 5.0, "frequency (Hz)", hi=1e3, lo_open=True),
        Key("duration_s", "float", 2.0, "how long it shakes (s)", hi=600.0, lo_open=True),
        Key("direction", "angle", RANDOM, "direction of the shaking (degrees from +x), or random"),
        Key("start_s", "float", 0.0, "when it starts (s after the start)", hi=600.0)), dynamic=True),
)}
"""Every model by name."""


@dataclass(frozen=True)
class Perturbation:
    """One perturbation: a model and its values (every key present, defaults filled in).

    Attributes:
        model: the model's name.
        params: key -> value: floats (mm, degrees, seconds as the key says), ``random``,
            a piece id, a tuple of piece ids, or an axes string.
    """

    model: str
    params: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __hash__(self):
        return hash(self.text)

    @property
    def spec(self) -> Model:
        """Its model."""
        return MODELS[self.model]

    @property
    def dynamic(self) -> bool:
        """It needs the simulation (a nudge, a vibration, a tilt)."""
        return self.spec.dynamic or (self.model == "noise" and self.params["tilt_deg"] > 0)

    @property
    def pieces(self) -> tuple[str, ...]:
        """The pieces it is limited to (empty: all movable ones)."""
        return tuple(self.params.get("pieces", ()))

    @property
    def text(self) -> str:
        """The canonical ``MODEL:key=value,…`` text, every key written (``pieces`` when given): parsing it gives
        this perturbation."""
        return f"{self.model}:" + ",".join(f"{k.name}={_format(self.params[k.name])}" for k in self.spec.keys
                                           if self.params[k.name] != ())  # no pieces= means every piece

    def with_value(self, key: str, value) -> Perturbation:
        """This perturbation with one key set anew (validated).

        Raises:
            PerturbationError: no such key, or a value out of range.
        """
        k = self.spec.key(key)
        return Perturbation(self.model, {**self.params, key: _convert(self.model, k, value)})

    def to_json(self) -> dict:
        """JSON form: ``model`` and its values (lists for piece ids)."""
        return {"model": self.model, **{k: list(v) if isinstance(v, tuple) else v for k, v in self.params.items()}}


def _format(value) -> str:
    if isinstance(value, tuple):
        return "+".join(value)
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e15 else str(int(value))
    return str(value)


def parse(text: str) -> Perturbation:
    """A perturbation from its text, ``MODEL`` or ``MODEL:key=value,key=value``.

    Raises:
        PerturbationError: an unknown model or key, a key given twice, a missing
            required key, a value of the wrong kind or out of its range.
    """
    name, _, rest = str(text).strip().partition(":")
    name = name.strip()
    if name not in MODELS:
        raise PerturbationError(f"--perturb {text!r}: unknown model {name!r} (known: {', '.join(MODELS)})")
    model = MODELS[name]
    given: dict[str, object] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            raise PerturbationError(f"--perturb {text!r}: expected key=value, got {item!r}")
        try:
            k = model.key(key)
        except PerturbationError as e:
            raise PerturbationError(f"--perturb {text!r}: {e}") from None
        if key in given:
            raise PerturbationError(f"--perturb {text!r}: {name}.{key}: given twice")
        given[key] = _convert(name, k, value.strip())
    params = {}
    for k in model.keys:
        if k.name in given:
            params[k.name] = given[k.name]
        elif k.default is None:
            raise PerturbationError(f"--perturb {text!r}: {name}.{k.name}: required ({k.help})")
        else:
            params[k.name] = k.default
    if name == "nudge" and params["piece"] != RANDOM and params["pieces"]:
        raise PerturbationError(f"--perturb {text!r}: nudge: give piece= or pieces=, not both")
    return Perturbation(name, params)


def _convert(model: str, key: Key, value):
    """A key's value from its text (or a number), checked against its kind and range."""
    where = f"{model}.{key.name}"
    if key.kind == "pieces":
        ids = tuple(s.strip() for s in (value.split("+") if isinstance(value, str) else value))
        if not ids or not all(ids):
            raise PerturbationError(f"{where}: expected piece ids joined by +, got {value!r}")
        return ids
    if key.kind == "piece":
        value = str(value).strip()
        if not value:
            raise PerturbationError(f"{where}: expected a piece id or {RANDOM}, got nothing")
        return value
    if key.kind == "axes":
        if value not in ("x", "y", "xy"):
            raise PerturbationError(f"{where}: expected x, y or xy, got {value!r}")
        return value
    if key.kind in ("angle", "fraction") and value == RANDOM:
        return RANDOM
    try:
        number = float(value)
    except (TypeError, ValueError):
        extra = f" or {RANDOM}" if key.kind in ("angle", "fraction") else ""
        raise PerturbationError(f"{where}: expected a number{extra}, got {value!r}") from None
    if not math.isfinite(number):
        raise PerturbationError(f"{where}: expected a finite number, got {value!r}")
    if key.kind == "angle":
        return number
    lo, hi = (0.0, 1.0) if key.kind == "fraction" else (key.lo, key.hi)
    below = number <= lo if key.lo_open else number < lo
    if below or number > hi:
        low = f"{lo:g} < x" if key.lo_open else f"{lo:g} <= x"
        raise PerturbationError(f"{where}: expected {low} <= {hi:g}, got {number:g}")
    return number


def check_pieces(perturbations, scene) -> None:
    """Check that every piece a perturbation names is a movable piece of ``scene``.

    Raises:
        PerturbationError: naming the perturbation, the key and the piece.
    """
    movable = {p.id for p in scene.pieces if not p.fixed}
    ids = {p.id for p in scene.pieces}
    source = scene.source or "<scene>"
    if not movable:
        raise PerturbationError(f"{source}: no movable piece to perturb")
    for p in perturbations:
        named = list(p.pieces) + ([p.params["piece"]] if p.params.get("piece", RANDOM) != RANDOM else [])
        for i in named:
            if i not in ids:
                raise PerturbationError(f"{p.model}: no piece {i!r} in {source}")
            if i not in movable:
                raise PerturbationError(f"{p.model}: piece {i!r} is fixed in {source}; only movable pieces move")
