"""Whether a scene stands, as data: the physics' (or the statics') answer that the rules are handed.

A bottom-layer definition (it needs only :mod:`sim.scene`): :mod:`sim.physics`
gives verdicts, :mod:`sim.games` reads them, and neither imports the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from sim.scene import Scene


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


__all__ = ["Judge", "Verdict"]
