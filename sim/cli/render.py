"""``towerlab render``: PNG (or JPEG) pictures of scenes, drawn offscreen (no display needed)."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json, note_line, one_output, progress, writable_output
from sim.errors import TowerlabError
from sim.limits import PICTURE_SIDES

MIN_SIZE, MAX_SIZE = PICTURE_SIDES  # pixels per side
_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")
# Suffixes of picture formats that are not written: a name ending so is a mistake, not a folder.
OTHER_IMAGE_SUFFIXES = (".gif", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".exr", ".svg", ".pdf", ".avif", ".heic")

OUT_HELP = ("Where the pictures go: NAME.png or NAME.jpg is one file (one scene only); any other name is a "
            "folder, made if missing, with one PNG per scene named after its scene file.")


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


def parse_point(option: str, values) -> tuple[float, float, float] | None:
    """Three finite coordinates (mm) of ``--eye`` or ``--look-at``, or None when not given.

    Raises:
        RenderArgumentError: a coordinate that is not a finite number (nan, inf) or lies further out than a
            scene's pieces may (the camera's arithmetic overflows long before a float does).
    """
    from sim.scene.schema import MAX_COORD_MM

    if values is None:
        return None
    if not all(math.isfinite(v) and abs(v) <= MAX_COORD_MM for v in values):
        raise RenderArgumentError(f"{option}: expected three numbers within {MAX_COORD_MM:g} mm of the origin, "
                                  f"got {' '.join(f'{v:g}' for v in values)}")
    return tuple(float(v) for v in values)


def output_paths(scenes: list[Path], out: Path) -> list[Path]:
    """Where each scene's picture goes (the rule of ``-o``, see :data:`OUT_HELP`).

    ``out`` ending in .png, .jpg or .jpeg (and not an existing folder) is the
    picture of the one scene; any other name is a folder holding
    ``<scene name>.png`` per scene, where scenes of the same name get their
    folder's name in front.

    Raises:
        RenderArgumentError: a file name for several scenes; a picture format that is not
            written (.gif, .tif, ...); an existing file where a folder is meant.
    """
    from sim.render.image import image_format

    suffix = out.suffix.lower()
    if not out.is_dir():
        if image_format(out) is not None:
            if len(scenes) > 1:
                raise RenderArgumentError(f"-o {out}: {len(scenes)} scenes need a folder; give a name without "
                                          f"{out.suffix} (each picture is named after its scene)")
            return [out]
        if suffix in OTHER_IMAGE_SUFFIXES:
            raise RenderArgumentError(f"-o {out}: {out.suffix} pictures are not written; use .png or .jpg")
        if out.exists():
            raise RenderArgumentError(f"-o {out}: is a file; give a folder, or a file name ending in .png or .jpg")
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
    out: Annotated[Path | None, typer.Option("-o", "--out", help=OUT_HELP, show_default=False)] = None,
    size: Annotated[str, typer.Option("--size", help="Picture size, WIDTHxHEIGHT in pixels.")] = "1024x1024",
    camera: Annotated[str, typer.Option("--camera", help="iso, front, side or top; framed automatically.")] = "iso",
    eye: Annotated[tuple[float, float, float] | None, typer.Option(
        "--eye", help="Explicit camera position X Y Z (mm), with --look-at.", show_default=False)] = None,
    look_at: Annotated[tuple[float, float, float] | None, typer.Option(
        "--look-at", help="Point the explicit camera looks at, X Y Z (mm).", show_default=False)] = None,
    settle: Annotated[bool, typer.Option("--settle", help="Let physics settle the pieces first.")] = False,
    transparent: Annotated[bool, typer.Option("--transparent", help="Transparent background (alpha; PNG only).")
                           ] = False,
    antialias: Annotated[str, typer.Option(
        "--antialias", help="msaa (4x multisampling) or fxaa (a post-process, faster for batches).")] = "msaa",
    as_json: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
    output: Annotated[Path | None, typer.Option("--output", hidden=True, show_default=False)] = None,
) -> None:
    """Draw scenes to PNG (or JPEG) files: shaded materials, soft shadows, anti-aliased.

    Needs no display: it renders offscreen with EGL (Mesa's llvmpipe will do),
    or with Panda3D's software renderer when EGL is missing (flat, no shadows;
    one warning line). Exit 2 on a bad scene, option or output place, before
    drawing anything. A scene with no pieces, or whose pieces lie so far apart
    that they shrink to specks, is drawn with a warning line.
    """
    from sim.pieces import MM
    from sim.render import ANTIALIAS, CAMERAS, CameraError, scene_camera
    from sim.scene import load_scene

    w, h = parse_size(size)
    eye, look_at = parse_point("--eye", eye), parse_point("--look-at", look_at)
    if (eye is None) != (look_at is None):
        raise RenderArgumentError("--eye and --look-at go together")
    if eye is None and camera not in CAMERAS:
        raise CameraError(f"--camera: expected one of {', '.join(CAMERAS)}, got {camera!r}")
    if antialias not in ANTIALIAS:
        raise RenderArgumentError(f"--antialias: expected one of {', '.join(ANTIALIAS)}, got {antialias!r}")
    out = one_output(out, output, what="a .png or .jpg file for one scene, or a folder")
    targets = output_paths(scenes, out)
    if transparent and any(t.suffix.lower() != ".png" for t in targets):
        raise RenderArgumentError(f"--transparent needs a .png file (JPEG has no alpha), got -o {out}")
    if len(targets) == 1 and targets[0] == out:
        writable_output(out)
    else:
        writable_output(out, directory=True)
    loaded = [load_scene(p, solid=True) for p in scenes]  # every scene is checked before anything is drawn
    settle_scene = _settle_function() if settle else None
    eye_m = None if eye is None else tuple(x * MM for x in eye)
    at_m = None if look_at is None else tuple(x * MM for x in look_at)
    views = [scene_camera(scene, (w, h), camera, eye_m, at_m) for scene in loaded]  # camera errors first

    from sim.render import default_renderer
    from sim.render.camera import framing_warning
    from sim.render.image import save_image

    report = []
    renderer = default_renderer(antialias)  # a renderer that cannot start is one line before any file
    with progress(f"rendering {len(loaded)} scene(s)", quiet=as_json, unit="pictures") as update:
        for i, (path, scene, target, view) in enumerate(zip(scenes, loaded, targets, views)):
            start = time.perf_counter()
            if settle_scene is not None:
                scene = settle_scene(scene)
                view = scene_camera(scene, (w, h), camera, eye_m, at_m)
            warning = framing_warning(scene, view)
            if warning is not None:
                note_line(f"{path}: {warning}", "warning")
            image = renderer.render_graph(renderer.graph(scene), view, transparent)
            _save(image, target, save_image)
            report.append({"scene": str(path), "image": str(target), "size": [w, h],
                           "camera": "explicit" if eye is not None else camera, "settled": settle,
                           "warning": warning, "seconds": round(time.perf_counter() - start, 3)})
            if update is not None:
                update(i + 1, len(loaded))
    if as_json:
        emit_json(report)
    else:
        for r in report:
            console.print(f"[green]wrote[/] {r['image']}  ({w}x{h}, {r['camera']}, {r['seconds']:.2f} s)")


def _save(image, target: Path, save) -> None:
    """Write a picture; a failure of the file system is one line naming the file."""
    from sim.cli.common import OutputError

    try:
        save(image, target)
    except OSError as e:
        raise OutputError(f"-o {target}: cannot write ({e.strerror or e})") from None
