"""Helpers shared by tests: shipped scene files, small free scenes of boxes."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "scenes"


def scene_files() -> list[Path]:
    """Every scene file shipped under scenes/."""
    return sorted(SCENES.rglob("*.json"))


def free_scene(*pieces):
    """A free scene of the given piece records."""
    from sim.scene import from_dict

    return from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": list(pieces)})


def box_record(name: str, size, pos, **extra) -> dict:
    """A generic box's piece record: size and position in mm, any other fields as given."""
    return {"id": name, "kind": "box", "size": list(size), "pos": list(pos), **extra}


def equilibrium_of(scene):
    """The statics' equilibrium system of a scene, with its interfaces found."""
    from sim.contact import find_interfaces
    from sim.statics.model import equilibrium

    return equilibrium(scene, find_interfaces(scene))
