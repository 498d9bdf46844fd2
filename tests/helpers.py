"""Helpers shared by tests: shipped scene files, small free scenes of boxes."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "scenes"
CARD_SCENES = ROOT / "sim" / "data" / "cards" / "tohuwabohu"  # package data: the cards command reads them


def scene_files() -> list[Path]:
    """Every scene file shipped: the examples under scenes/ and the card scenes in the package."""
    return sorted(SCENES.rglob("*.json")) + sorted(CARD_SCENES.glob("*.json"))


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


def one_line(capsys) -> str:
    """The one line a command wrote to stderr (fails when there are more or none)."""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def forbid_drawing(monkeypatch) -> None:
    """Make starting the renderer fail the test: a command must find its mistake before it draws."""
    import sim.render

    def no_drawing(*args, **kwargs):
        raise AssertionError("the renderer was started although the command should have stopped first")

    monkeypatch.setattr(sim.render, "default_renderer", no_drawing)
