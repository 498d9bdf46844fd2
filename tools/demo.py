"""`make demo`: show what towerlab does on the bundled scenes, and say where the output went.

Each step is a small function; the whole run takes a minute or two on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from sim.atomic import write_text  # noqa: E402
from sim.cli.pieces import catalogue_report  # noqa: E402
from sim.errors import TowerlabError  # noqa: E402
from sim.scene import load_scene  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
console = Console(highlight=False)


def step_scenes(out: Path) -> None:
    """Validate and summarise every bundled scene."""
    table = Table(title="Bundled scenes")
    for col in ("scene", "game", "board", "pieces", "mass (g)"):
        table.add_column(col)
    summary = []
    for path in sorted((ROOT / "scenes").rglob("*.json")):
        rel = path.relative_to(ROOT)
        try:
            s = load_scene(path)
        except TowerlabError as e:
            table.add_row(str(rel), "[red]invalid[/]", str(e), "", "")
            continue
        mass = sum(p.mass for p in s.pieces) * 1000
        table.add_row(str(rel), s.game, s.board, str(len(s.pieces)), f"{mass:.1f}")
        summary.append({"scene": str(rel), "game": s.game, "board": s.board, "pieces": len(s.pieces),
                        "mass_g": round(mass, 2), "title": s.title})
    console.print(table)
    write_text(out / "scenes.json", json.dumps(summary, indent=2) + "\n")


def step_catalogue(out: Path) -> None:
    """Write the piece catalogue (dimensions and masses) as JSON."""
    report = catalogue_report()
    write_text(out / "catalogue.json", json.dumps(report, indent=2) + "\n")
    n = sum(len(k["variants"]) for k in report["kinds"])
    console.print(f"Catalogue: {len(report['kinds'])} kinds, {n} variants, {len(report['boards'])} boards")


STEPS = [step_scenes, step_catalogue]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "demo")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for step in STEPS:
        console.rule(step.__doc__.splitlines()[0])
        step(out)
    console.rule()
    console.print(f"Done in {time.perf_counter() - t0:.1f} s. Output: [bold]{out}[/]")
    for p in sorted(out.rglob("*")):
        if p.is_file():
            console.print(f"  {p.relative_to(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
