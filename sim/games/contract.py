"""What every game keeps to: one broken-rule type, one physics verdict it is given, one judge that gives it.

The three games differ in their rules, never in how they meet the rest of the
program (dm_control's ``Task`` is the model): a game reads a scene, asks a
:data:`Judge` about the pieces the physics should see (each game's
``physics_scene``), applies its rules to the scene and the :class:`Verdict`,
and reports every broken rule as a :class:`Violation`. The judge is an
argument, so the rules run and are tested without an engine;
:func:`sim.physics.judge.judge` is the real one. :class:`Verdict` and
:data:`Judge` are defined below every layer that gives or reads them
(:mod:`sim.verdict`) and named here as part of the games' contract.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from sim.scene import Scene
from sim.verdict import Judge, Verdict


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


__all__ = ["Judge", "Verdict", "Violation", "ask", "field_of", "reading"]
