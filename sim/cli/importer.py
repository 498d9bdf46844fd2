"""``towerlab import``: assemblies from other tools as scenes (``towerlab import compas FILE -o SCENE``)."""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import OptionError, console, distinct_files, emit_json, progress, safe, writable_output

import_app = typer.Typer(help="Import assemblies from other tools as scenes.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")


def _positive(value: float, option: str, what: str, most: float = math.inf) -> float:
    if not (math.isfinite(value) and 0.0 < value <= most):
        bound = f" at most {most:g}" if math.isfinite(most) else ""
        raise OptionError(f"{option}: expected {what}, greater than 0{bound}, got {value:g}")
    return value


def _axis(text: str) -> tuple[float, float, float]:
    try:
        axis = tuple(float(x) for x in text.split(","))
    except ValueError:
        axis = ()
    if len(axis) != 3 or not all(math.isfinite(x) for x in axis) or not any(axis):
        raise OptionError(f"--about: expected an axis X,Y,Z such as 0,1,0, got {text!r}")
    return axis


@import_app.command("compas")
def compas(
    file: Annotated[Path, typer.Argument(help="A COMPAS assembly JSON file (compas_assembly Assembly or "
                                              "compas_cra CRA_Assembly, COMPAS 2).", show_default=False)],
    out: Annotated[Path, typer.Option("-o", "--out", help="The scene file to write. Blocks that are not convex "
                                      "go as OBJ files into the folder NAME-meshes beside it.",
                                      show_default=False)],
    scale: Annotated[float, typer.Option("--scale", help="mm per unit of the file (COMPAS has no units; "
                                         "1000: metres, as compas_cra's samples).")] = 1000.0,
    support: Annotated[list[str] | None, typer.Option("--support", help="Hold this block fixed (its node key; "
                                                      "repeat or give KEY,KEY), besides the file's supports.",
                                                      show_default=False)] = None,
    friction: Annotated[float, typer.Option("--friction", help="Every block's friction coefficient "
                                            "(compas_cra's default).")] = 0.84,
    density: Annotated[float, typer.Option("--density", help="g/cm³ of a block of COMPAS density 1 "
                                           "(stone); a block's own density multiplies it.")] = 2.4,
    snap: Annotated[float, typer.Option("--snap", help="mm: cut the faces of neighbouring blocks that lie "
                                        "within this of each other to one shared plane (compas_cra's tmax), "
                                        "for models whose blocks do not quite fit.")] = 0.0,
    rotate: Annotated[float, typer.Option("--rotate", help="Degrees to turn the assembly about --about "
                                          "through the origin first (a tilting-table test, as compas_cra's "
                                          "examples do).")] = 0.0,
    about: Annotated[str, typer.Option("--about", help="The axis X,Y,Z of --rotate.")] = "0,1,0",
    decomposition: Annotated[str, typer.Option("--decomposition", help="How blocks that are not convex become "
                                               "convex parts: exact (cut along their reflex edges) or coacd "
                                               "(approximate, for curved blocks; needs the coacd package).")
                             ] = "exact",
    title: Annotated[str | None, typer.Option("--title", help="The scene's title (default: the assembly's name "
                                              "or the file's stem).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON report instead of text.")] = False,
) -> None:
    """Import a COMPAS assembly as a scene: blocks as hull (or mesh) pieces, supports as fixed pieces.

    Reads the JSON itself (COMPAS need not be installed). Says which units it
    assumed, what it lifted, snapped or cut; the scene's notes keep the same.
    """
    from sim.importers.compas import read_assembly, to_scene
    from sim.scene import from_dict
    from sim.scene.overlap import find_overlaps

    writable_output(out)
    distinct_files(("FILE", file), ("-o", out))
    _positive(scale, "--scale", "mm per unit")
    _positive(friction, "--friction", "a friction coefficient", 10.0)
    _positive(density, "--density", "a density in g/cm³", 25.0)
    if not (math.isfinite(snap) and 0.0 <= snap <= 1000.0):
        raise OptionError(f"--snap: expected mm, 0 to 1000, got {snap:g}")
    if not math.isfinite(rotate):
        raise OptionError(f"--rotate: expected degrees, got {rotate:g}")
    if decomposition not in ("exact", "coacd"):
        raise OptionError(f"--decomposition: expected exact or coacd, got {decomposition!r}")
    axis = _axis(about)  # checked even when --rotate is 0: a mistake is said, not ignored
    keys = [k.strip() for s in (support or []) for k in s.split(",") if k.strip()]
    with progress(f"importing {file.name}", quiet=as_json) as update:
        assembly = read_assembly(file)
        if update is not None:
            update(1, 4)
        folder = f"{out.stem}-meshes"
        imported = to_scene(assembly, scale=scale, supports=keys, friction=friction, density=density, snap=snap,
                            rotate=None if rotate == 0.0 else (axis, rotate), mesh_folder=folder,
                            decomposition=decomposition, title=title)
        if update is not None:
            update(2, 4)
        parent = out.parent if str(out.parent) else Path(".")
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".towerlab-import-", dir=parent))
        try:  # the mesh files and the scene are checked in a staging folder: nothing is written on an error
            for name, text in imported.meshes.items():
                (staging / name).parent.mkdir(parents=True, exist_ok=True)
                (staging / name).write_text(text, encoding="utf-8")
            scene = from_dict(imported.scene, str(out), base=staging)
            if update is not None:
                update(3, 4)
            overlaps = find_overlaps(scene, most=3)
            if overlaps:
                worst = max(overlaps, key=lambda o: o.depth)
                raise OptionError(f"{file}: blocks {worst.a} and {worst.b} overlap by {worst.depth * 1000:.3g} mm: "
                                  "they do not fit together" + ("; give --snap MM (about how far their faces "
                                                                "miss) to cut them to shared planes" if not snap
                                                                else f"; --snap {snap:g} did not join them"))
            for name in imported.meshes:
                target = parent / name
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / name, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        from sim.atomic import write_text
        from sim.jsontext import dumps_one_per_line

        write_text(out, dumps_one_per_line(imported.scene, "pieces"))
    _report(file, out, assembly, imported, scene, as_json)


def _report(file: Path, out: Path, assembly, imported, scene, as_json: bool) -> None:
    pieces = imported.scene["pieces"]
    kinds = {k: sum(p["kind"] == k for p in pieces) for k in ("hull", "mesh")}
    approximate = [p.id for p in scene.pieces if p.shape.approximation]
    report = {"file": str(file), "scene": str(out), "assembly": assembly.kind, "blocks": len(pieces),
              "hulls": kinds["hull"], "meshes": kinds["mesh"], "supports": sum(p.get("fixed", False) for p in pieces),
              "mesh_files": sorted(imported.meshes), "notes": list(imported.notes),
              "volume_change": list(imported.volume_change), "approximate": approximate}
    if as_json:
        emit_json(report)
        return
    console.print(f"[green]imported[/] {safe(file)} → {safe(out)}: {report['blocks']} blocks "
                  f"({report['hulls']} hulls, {report['meshes']} meshes), {report['supports']} supports")
    for line in imported.notes[1:]:
        console.print(f"  {safe(line)}")
