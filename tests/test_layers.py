"""Imports go one way: the pure layers import no engine, and nothing below the games imports them.

A lazy import inside a function counts as much as one at the top of a module
(it runs the day that function is called), so the source is read, not only
what an import loads.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.helpers import ROOT

SIM = ROOT / "sim"

ENGINES = ("pybullet", "panda3d", "direct")
BELOW_GAMES = ("sim.scene", "sim.pieces", "sim.contact", "sim.statics", "sim.analysis", "sim.geometry", "sim.cases",
               "sim.physics", "sim.render", "sim.verdict", "sim.tol", "sim.errors", "sim.graphs")
"""Layers the games are built on (or beside, for the engines' doors): none of them may import sim.games."""
ABOVE_GAMES = ("sim.physics", "sim.render", "sim.viewer", "sim.replay", "sim.cli", "sim.experiments")
"""What the games may not import: the engines' doors and the layers built on the games."""


def _imports(path) -> set[str]:
    """Every module a source file imports, anywhere in it (absolute names; relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
    return out


def _under(name: str, roots) -> bool:
    return any(name == r or name.startswith(r + ".") for r in roots)


def _modules(root: str):
    folder = ROOT / root.replace(".", "/")
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]


def test_the_games_import_no_engine_and_no_layer_above_them():
    bad = {f"{p.relative_to(ROOT)}: {m}" for p in _modules("sim.games") for m in _imports(p)
           if _under(m, ENGINES + ABOVE_GAMES)}
    assert not bad, sorted(bad)


@pytest.mark.parametrize("layer", BELOW_GAMES)
def test_no_layer_below_the_games_imports_them(layer):
    bad = {f"{p.relative_to(ROOT)}: {m}" for p in _modules(layer) for m in _imports(p) if _under(m, ("sim.games",))}
    assert not bad, sorted(bad)


def test_importing_every_game_module_loads_no_engine():
    code = ("import importlib, pkgutil, sys, sim.games\n"
            "for m in pkgutil.walk_packages(sim.games.__path__, 'sim.games.'):\n"
            "    importlib.import_module(m.name)\n"
            "print(sorted(n for n in sys.modules if n.split('.')[0] in ('pybullet', 'panda3d', 'direct')\n"
            "             or n.startswith(('sim.physics', 'sim.render', 'sim.viewer'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_importing_the_viewers_controller_loads_no_engine():
    """The controller is the viewer's pure side: the live physics comes with its first session (the default world,
    :mod:`sim.viewer.control.adapter`), Panda3D with a window."""
    code = ("import sys, sim.viewer.control.controller, sim.viewer.play.mode, sim.viewer.play.legal\n"
            "print(sorted(n for n in sys.modules if n.split('.')[0] in ('pybullet', 'panda3d', 'direct')\n"
            "             or n.startswith(('sim.physics', 'sim.render.renderer', 'sim.render.graph'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


VIEWER_PURE = ("sim.viewer.control", "sim.viewer.play", "sim.viewer.replay")
"""The viewer's controller side: its folders hold no Panda3D and never reach into the window side."""


@pytest.mark.parametrize("side", VIEWER_PURE)
def test_the_viewers_controller_side_imports_no_window(side):
    """The folders are the window/controller line: a module of the controller side that imported Panda3D or
    the window side (even lazily, in a function) would be on the wrong side of it. The replay's launcher
    (``replay/run.py``) is the one door, opening the window it was asked for."""
    doors = {ROOT / "sim/viewer/replay/run.py"}
    bad = {f"{p.relative_to(ROOT)}: {m}" for p in _modules(side) if p not in doors for m in _imports(p)
           if _under(m, ("panda3d", "direct", "sim.viewer.window"))}
    assert not bad, sorted(bad)


def test_every_panda3d_module_of_the_viewer_is_on_the_window_side():
    windowed = {str(p.relative_to(ROOT)) for p in _modules("sim.viewer") for m in _imports(p)
                if _under(m, ("panda3d", "direct"))}
    assert windowed and all(p.startswith("sim/viewer/window/") for p in windowed), sorted(windowed)
