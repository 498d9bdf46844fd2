"""What every game keeps to: one broken-rule type, one physics verdict it is given, one judge that gives it.

The three games differ in their rules, never in how they meet the rest of the
program (dm_control's ``Task`` is the model): a game reads a scene, asks a
:data:`Judge` about the pieces the physics should see (each game's
``physics_scene``), applies its rules to the scene and the :class:`Verdict`,
and reports every broken rule as a :class:`Violation`. The judge is an
argument, so the rules run and are tested without an engine;
:func:`sim.physics.judge.judge` is the real one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from sim.scene import Scene


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    Attributes:
        rule: the rule's stable name (``balance``, ``on-area``, ``noble-colour``, ...;
            each game lists its own in its docs).
        pieces: ids of the pieces concerned (may be empty: a rule about the turn or the hand).
        reason: one sentence for the player.
    """

    rule: str
    pieces: tuple[str, ...]
    reason: str

    def to_json(self) -> dict:
        """``{rule, pieces, reason}``."""
        return {"rule": self.rule, "pieces": list(self.pieces), "reason": self.reason}

    @classmethod
    def from_json(cls, data: Mapping) -> Violation:
        """The inverse of :meth:`to_json`."""
        return cls(str(data["rule"]), tuple(str(p) for p in data["pieces"]), str(data["reason"]))


@dataclass(frozen=True)
class Verdict:
    """Whether a building stands: the physics' answer, handed to the rules as data.

    Attributes:
        stable: it stands on its own (a knife-edge balance does not).
        margin_g: the horizontal acceleration it withstands (fraction of g), if known.
        knocked_down: ids of the pieces that fell when it was let go (none when it stands).
        settled: the scene as the physics left it (pieces at rest where they came to lie),
            None when the judge did not simulate; games that score poses (Babylon) read
            their levels from it.
    """

    stable: bool
    margin_g: float | None = None
    knocked_down: frozenset[str] = frozenset()
    settled: Scene | None = field(default=None, compare=False, repr=False)

    @classmethod
    def standing(cls) -> Verdict:
        """A building that stands (an empty one, or one the caller knows to be stable)."""
        return cls(True)

    @classmethod
    def falling(cls, knocked_down: Iterable[str] = ()) -> Verdict:
        """A building that does not stand; ``knocked_down`` are the pieces that fell."""
        return cls(False, 0.0, frozenset(knocked_down))

    @classmethod
    def from_check(cls, result) -> Verdict:
        """The verdict of a :func:`sim.physics.check` result, read duck-typed.

        Reads ``stable``, ``margin_g``, ``settled`` (a scene, if there) and, from
        ``pieces`` (id -> record with ``knocked_down``, as an attribute or a key),
        which pieces fell; a building that stands has nothing fallen, whatever
        single pieces say.
        """
        pieces = getattr(result, "pieces", None) or {}
        stable = bool(result.stable)
        fallen = frozenset() if stable else frozenset(pid for pid, rec in pieces.items()
                                                      if _field(rec, "knocked_down"))
        margin = getattr(result, "margin_g", None)
        settled = getattr(result, "settled", None)
        return cls(stable, None if margin is None else float(margin), fallen,
                   settled if isinstance(settled, Scene) else None)

    def to_json(self) -> dict:
        """``{stable, margin_g, knocked_down}`` (the settled scene is not part of it)."""
        return {"stable": self.stable, "margin_g": self.margin_g, "knocked_down": sorted(self.knocked_down)}


def _field(record, name: str):
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


Judge = Callable[[Scene], Verdict]
"""The physics, asked whether a scene (a game's ``physics_scene``) stands."""


def ask(judge: Judge | None, scene: Scene) -> Verdict | None:
    """The judge's verdict on ``scene``: None without a judge; an empty scene stands without asking."""
    if judge is None:
        return None
    if not scene.pieces:
        return Verdict.standing()
    return judge(scene)


@contextmanager
def reading(error: type[Exception], what: str = "state") -> Iterator[None]:
    """Turn a malformed JSON form (a missing field, a value of the wrong type) into one ``error`` line.

    Used by every state's ``from_json``: ``with reading(TaloError): ...``. Errors the
    reading raises itself (a scene's own validation) pass through unchanged.
    """
    try:
        yield
    except KeyError as e:
        raise error(f"{what}: {e.args[0]}: required field is missing") from None
    except (TypeError, ValueError, AttributeError, IndexError) as e:
        raise error(f"{what}: not a valid game state ({e})") from None


_KIND_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object",
               bool: "true or false", type(None): "null"}


def field_of(data: Mapping, key: str, kind: type | tuple[type, ...], error: type[Exception]):
    """``data[key]``, refused with one ``error`` line naming the field unless it is of ``kind``.

    ``bool`` does not pass for ``int``; ``None`` passes only when ``kind`` includes ``type(None)``.
    """
    if not isinstance(data, Mapping):
        raise error(f"state: expected a JSON object, got {type(data).__name__}")
    if key not in data:
        raise error(f"state: {key}: required field is missing")
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise error(f"state: {key}: expected {' or '.join(_KIND_NAMES.get(k, k.__name__) for k in kinds)}, "
                    f"got {shown}")
    return value
