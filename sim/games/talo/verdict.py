"""Judgements as plain data: a broken rule with its reason, and the physics verdict the rules are given."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sim.scene import Scene


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    Attributes:
        rule: a short name (``grid``, ``diagonal``, ``protrusion``, ``water``,
            ``height``, ``overlap``, ``support``, ``balance``, ``stock``, ``pawn``, ...).
        pieces: ids of the pieces concerned.
        reason: one sentence for the player.
    """

    rule: str
    pieces: tuple[str, ...]
    reason: str

    def to_json(self) -> dict:
        """``{rule, pieces, reason}``."""
        return {"rule": self.rule, "pieces": list(self.pieces), "reason": self.reason}


@dataclass(frozen=True)
class Verdict:
    """Whether a building stands: the physics' answer, handed to the rules as data.

    Attributes:
        stable: it stands on its own (a knife-edge balance does not).
        margin_g: the horizontal acceleration it withstands (fraction of g), if known.
        knocked_down: ids of the pieces that fell when it was let go.
    """

    stable: bool
    margin_g: float | None = None
    knocked_down: frozenset[str] = frozenset()

    @classmethod
    def standing(cls) -> Verdict:
        """A building that stands (for scenes the caller knows to be stable)."""
        return cls(True)

    @classmethod
    def falling(cls, knocked_down: Iterable[str] = ()) -> Verdict:
        """A building that does not stand; ``knocked_down`` are the pieces that fell."""
        return cls(False, 0.0, frozenset(knocked_down))

    @classmethod
    def from_check(cls, result) -> Verdict:
        """The verdict of a :func:`sim.physics.check` result.

        Reads ``stable``, ``margin_g`` and, from ``pieces`` (id -> record with
        ``knocked_down``, as an attribute or a key), which pieces fell; a
        building that stands has nothing fallen, whatever single pieces say.
        """
        pieces = getattr(result, "pieces", None) or {}
        stable = bool(result.stable)
        fallen = frozenset() if stable else frozenset(pid for pid, rec in pieces.items()
                                                      if _field(rec, "knocked_down"))
        margin = getattr(result, "margin_g", None)
        return cls(stable, None if margin is None else float(margin), fallen)


def _field(record, name: str):
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


def without_pawns(scene: Scene) -> Scene:
    """The building alone: balance is judged without the pawns, whose weight may not hold anything up."""
    return scene.with_pieces(p for p in scene.pieces if p.kind != "talo.pawn")
