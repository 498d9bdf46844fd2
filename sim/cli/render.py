"""``towerlab render``: PNG pictures of scenes, drawn offscreen (no display needed)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json, err_console
from sim.errors import TowerlabError

MIN_SIZE, MAX_SIZE = 16, 8192  # pixels per side
_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


class RenderArgumentError(TowerlabError):
    """A render option that cannot be used (size, camera, output)."""


def register(app: typer.Typer) -> None:
    app.command()(render)


def parse_size(text: str) -> tuple[int, int]:
    """``"1024x768"`` -> (1024, 768).

    Raises:
        RenderArgumentError: not WIDTHxHEIGHT, or a side outside 16..8192.
    """
    m = _SIZE.match(text)
    if not m:
        raise RenderArgumentError(f"--size: expected WIDTHxHEIGHT such as 1024x768, got {text!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (MIN_SIZE <= w <= MAX_SIZE and MIN_SIZE <= h <= MAX_SIZE):
        raise RenderArgumentError(f"--size: each side must be {MIN_SIZE}..{MAX_SIZE} pixels, got {w}x{h}")
    return w, h


def output_paths(scenes: list[Path], out: Path) -> list[Path]:
    """Where each scene's picture goes.

    One scene: ``out`` itself, or ``out/<name>.png`` when ``out`` is an existing
    directory. Several: ``out`` is a directory and each picture is named after
    its scene file; scenes of the same name get their folder's name in front.

    Raises:
        RenderArgumentError: several scenes but ``out`` is an existing file.
    """
    if len(scenes) == 1:
        return [out / f"{scenes[0].stem}.png" if out.is_dir() else out]
    if out.exists() and not out.is_dir():
        raise RenderArgumentError(f"-o {out}: several scenes need a directory, and this is a file")
    stems = [p.stem for p in scenes]
    names = [f"{p.parent.name}-{p.stem}" if stems.count(p.stem) > 1 else p.stem for p in scenes]
    if len(set(names)) < len(names):
        names = [f"{i:03d}-{n}" for i, n in enumerate(names)]
    return [out / f"{n}.png" for n in names]


def _settle_function():
    """``sim.physics.settle``, looked up before anything is drawn."""
    try:
        from sim.physics import settle
    except ImportError:
        raise RenderArgumentError("--settle needs the physics engine (sim.physics.settle), "
                                  "which this installation lacks") from None
    return settle


def render(
    scenes: Annotated[list[Path], typer.Argument(help="Scene files to draw.", show_default=False)],
    out: Annotated[Path, typer.Option("-o", "--out", help="PNG file, or a directory (several scenes).",
                                      show_default=False)],
    size: Annotated[str, typer.Option("--size", help="Picture size, WIDTHxHEIGHT in pixels.")] = "1024x1024",
    camera: Annotated[str, typer.Option("--camera", help="iso, front, side or top; framed automatically.")] = "iso",
    eye: Annotated[tuple[float, float, float] | None, typer.Option(
        "--eye", help="Explicit camera position X Y Z (mm), with --look-at.", show_default=False)] = None,
    look_at: Annotated[tuple[float, float, float] | None, typer.Option(
        "--look-at", help="Point the explicit camera looks at, X Y Z (mm).", show_default=False)] = None,
    settle: Annotated[bool, typer.Option("--settle", help="Let physics settle the pieces first.")] = False,
    transparent: Annotated[bool, typer.Option("--transparent", help="Transparent background (alpha).")] = False,
    antialias: Annotated[str, typer.Option(
        "--antialias", help="msaa (4x multisampling) or fxaa (a post-process, faster for batches).")] = "msaa",
    as_json: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
) -> None:
    """Draw scenes to PNG files: shaded materials, soft shadows, anti-aliased.

    Needs no display: it renders offscreen with EGL (Mesa's llvmpipe will do),
    or with Panda3D's software renderer when EGL is missing (flat, no shadows;
    one warning line). Exit 2 on a bad scene or option, before drawing anything.
    """
    from sim.pieces import MM
    from sim.render import ANTIALIAS, CAMERAS, CameraError
    from sim.scene import load_scene

    w, h = parse_size(size)
    if (eye is None) != (look_at is None):
        raise RenderArgumentError("--eye and --look-at go together")
    if eye is None and camera not in CAMERAS:
        raise CameraError(f"--camera: expected one of {', '.join(CAMERAS)}, got {camera!r}")
    if antialias not in ANTIALIAS:
        raise RenderArgumentError(f"--antialias: expected one of {', '.join(ANTIALIAS)}, got {antialias!r}")
    loaded = [load_scene(p) for p in scenes]  # every scene is checked before anything is drawn
    targets = output_paths(scenes, out)
    settle_scene = _settle_function() if settle else None
    eye_m = None if eye is None else tuple(x * MM for x in eye)
    at_m = None if look_at is None else tuple(x * MM for x in look_at)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from sim.render import default_renderer, save_png

    report = []
    columns = (TextColumn("rendering"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=err_console, transient=True, disable=len(loaded) < 2) as bar:
        task = bar.add_task("", total=len(loaded))
        for path, scene, target in zip(scenes, loaded, targets):
            bar.update(task, description=path.name)
            start = time.perf_counter()
            if settle_scene is not None:
                scene = settle_scene(scene)
            image = default_renderer(antialias).render(scene, (w, h), camera, eye_m, at_m, transparent)
            save_png(image, target)
            report.append({"scene": str(path), "image": str(target), "size": [w, h],
                           "camera": "explicit" if eye is not None else camera, "settled": settle,
                           "seconds": round(time.perf_counter() - start, 3)})
            bar.advance(task)
    if as_json:
        emit_json(report)
    else:
        for r in report:
            console.print(f"[green]wrote[/] {r['image']}  ({w}x{h}, {r['camera']}, {r['seconds']:.2f} s)")
