"""Files the package reads at run time ship inside it: found through importlib.resources, also in a wheel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.helpers import ROOT, SCENES

PACKAGE = ROOT / "sim"


def test_meshes_and_card_scenes_are_package_files():
    from sim.games.tohuwabohu.illustrate import CARD_SCENES, tohuwabohu_faces
    from sim.pieces.mesh import MESH_DIR, load_manifest

    assert Path(str(MESH_DIR)).resolve() == PACKAGE / "data" / "meshes"
    assert Path(str(CARD_SCENES)).resolve() == PACKAGE / "data" / "cards" / "tohuwabohu"
    manifest = load_manifest()
    assert len(manifest) > 20 and all((MESH_DIR / name).is_file() for name in manifest)
    faces = tohuwabohu_faces()
    assert len(faces) == 36 and all(f.scene.is_file() for f in faces)
    assert not (ROOT / "meshes").exists() and not (SCENES / "tohuwabohu" / "cards").exists()  # one copy only


def test_no_module_finds_its_files_relative_to_the_source_tree():
    offenders = [f"{p.relative_to(ROOT)}:{n}" for p in sorted(PACKAGE.rglob("*.py"))
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"parents\[\d+\]|Path\(__file__\)", line)]
    assert offenders == []


def _base_site_packages() -> str:
    return sysconfig.get_paths()["purelib"]


@pytest.mark.slow
def test_an_installed_wheel_renders_and_draws_cards_from_another_folder(tmp_path):
    # the package as a user gets it: built from a copy of the sources (nothing written into the checkout),
    # installed into a fresh venv that borrows this environment's dependencies, run from elsewhere
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(PACKAGE, source / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "towerlab-test-base.pth").write_text(_base_site_packages() + "\n")  # numpy, panda3d, pip, ...
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                              "--ignore-installed", "--no-index", str(source)],
                             capture_output=True, text=True, env=env, timeout=600)
    assert install.returncode == 0, install.stderr[-3000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(SCENES / "free" / "mixed-games.json", work / "scene.json")
    towerlab = venv / "bin" / "towerlab"
    where = subprocess.run([str(python), "-c", "import sim, sim.pieces.mesh as m, sim.render.surfaces as s; "
                            "from sim.pieces import shape; "
                            "print(sim.__file__); print(m.MESH_DIR); "
                            "print(s.from_file(shape('tohuwabohu.brick', size='large', color='red')))"],
                           capture_output=True, text=True, cwd=work, env=env, timeout=120, check=True)
    package_file, meshes, from_file = where.stdout.split()
    assert package_file.startswith(site) and meshes.startswith(site)  # not this checkout
    assert from_file == "True"  # the stored meshes, not rebuilt ones
    render = subprocess.run([str(towerlab), "render", "scene.json", "-o", "scene.png", "--size", "64x48"],
                            capture_output=True, text=True, cwd=work, env=env, timeout=300)
    assert render.returncode == 0, render.stderr
    assert (work / "scene.png").read_bytes().startswith(b"\x89PNG")
    cards = subprocess.run([str(towerlab), "cards", "tohuwabohu", "-o", "cards", "--only", "cross-red",
                            "--dpi", "60"], capture_output=True, text=True, cwd=work, env=env, timeout=300)
    assert cards.returncode == 0, cards.stderr
    assert sorted(p.name for p in (work / "cards").iterdir()) == ["cross-red.png", "tohuwabohu-cards.pdf"]
