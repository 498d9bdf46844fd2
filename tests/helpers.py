"""Helpers shared by tests: shipped scene files."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "scenes"


def scene_files() -> list[Path]:
    """Every scene file shipped under scenes/."""
    return sorted(SCENES.rglob("*.json"))
