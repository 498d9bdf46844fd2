"""Benchmark: does the free-running simulation agree with the exact statics at thin margins, and on masonry?

Run on an otherwise idle machine::

    .venv/bin/python tools/bench_agreement.py [--quick] [--family harmonic|tipping|lever|ladder|random]
    .venv/bin/python tools/bench_agreement.py --arches [--quick] [--simulate] [--cra] [--json FILE] [--record]

For every case of the thin-margin suite (``sim.cases.thin.suite``: harmonic
stacks, tipping blocks, levers on fixed and movable posts, ladders and random
towers at margins of 0.002-0.01 g and as far past the boundary, some turned
and shifted), ``check`` runs its statics and its free simulation (2 s, no
certified rest); the simulation *agrees* when it moves nothing exactly where
the statics say the structure stands. Prints the agreement rate overall, per
family and where |margin| >= 0.01 g, every miss (a stable structure the
simulation dropped, or a fall it missed), and the wall time per case.

``--arches``: the masonry suite (``sim.cases.arches.suite``: voussoir arches at
±1 % and ±5 % of their critical thickness and ±2 % of their critical friction,
the reference from their thrust lines, ``sim.cases.thrust``). One row per case:
its name, family and parameters, the reference verdict and margin, the
statics' verdict, margin and time, and a ``simulation`` column (the free
run's verdict, with ``--simulate``: ``check`` on every case, its agreement with the
statics per family, how far it moved and its wall time). ``--cra`` adds
compas_cra's ``rbe_solve`` verdict on the same blocks (the optional ``bench``
extra), and compas_cra's own critical t/R by bisection next to the reference's;
``--record`` writes those to tests/data/arches/compas_cra.json, which the tests
hold the reference to (CI has no compas_cra). ``--written``: the statics also on
each arch as another tool writes it (corners rounded to 0.001 mm, turned).
``--json FILE``: the rows as JSON, one object a case with the keys ``case``,
``family``, ``n``, ``half_angle_deg``, ``radius_mm``, ``depth_mm``, ``ratio``,
``friction``, ``abutments``, ``turn_deg``, ``critical``, ``factor``,
``reference`` (stands), ``reference_margin_g``, ``statics``, ``statics_margin_g``,
``statics_ms``, ``simulation`` (the free run stood still; None without ``--simulate``; with it
also ``moved``, ``max_displacement_mm``, ``wall_s``), and
``written``, ``written_margin_g``, ``compas_cra`` where asked for.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "tools"))

from scipy.spatial.transform import Rotation  # noqa: E402

from sim.cases import arches  # noqa: E402
from sim.cases.rewrite import rewritten  # noqa: E402
from sim.cases.thin import suite, turned_towers  # noqa: E402
from sim.physics import check  # noqa: E402
from sim.statics import analyze  # noqa: E402

CRA_RECORD = ROOT / "tests" / "data" / "arches" / "compas_cra.json"
CRA_TENSION = 1e-4  # compas_cra's RBE verdict: it stands when its largest tension is below this of a block's weight
CRA_STEPS = 7  # bisection steps for compas_cra's critical t/R, between 0.99 and 1.01 of the reference's


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a sample of every family (a smoke run)")
    parser.add_argument("--family", help="only this family")
    parser.add_argument("--match", help="only cases whose name contains this")
    parser.add_argument("--turned-boxes", action="store_true",
                        help="also the towers of boxes turned against one another (beyond 4-point manifolds)")
    parser.add_argument("--arches", action="store_true", help="the masonry suite (voussoir arches), statics columns")
    parser.add_argument("--cra", action="store_true", help="with --arches: compas_cra's rbe_solve beside them")
    parser.add_argument("--record", action="store_true", help="with --cra: write " + str(CRA_RECORD))
    parser.add_argument("--json", type=Path, help="with --arches: write the rows to this file")
    parser.add_argument("--simulate", action="store_true",
                        help="with --arches: also check's free simulation of every case (its column)")
    parser.add_argument("--written", action="store_true",
                        help="with --arches: also each arch as another tool writes it (corners rounded to 0.001 mm, "
                             "turned by 17 degrees)")
    args = parser.parse_args()
    if args.arches:
        masonry(args)
    else:
        thin(args)


def thin(args) -> None:
    """The thin-margin suite: the statics and the free simulation of ``check`` on every case."""
    extra = turned_towers(args.quick) if args.turned_boxes else []
    cases = [c for c in suite(args.quick) + extra if (args.family in (None, c.family))
             and (args.match is None or args.match in c.name)]
    per_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wide = [0, 0]
    misses, walls = [], []
    for k, case in enumerate(cases):
        start = time.perf_counter()
        r = check(case.scene)
        wall = time.perf_counter() - start
        walls.append((wall, case.name))
        statics = bool(r.statics.stable)
        agrees = r.dynamics.stable == statics
        expected = statics == case.stands
        per_family[case.family][0] += agrees
        per_family[case.family][1] += 1
        if abs(case.margin_g) >= 0.01 - 1e-12 and case.family != "turned boxes":
            wide[0] += agrees
            wide[1] += 1
        if not agrees or not expected:
            what = ("MISSED FALL" if not statics else "dropped") if not agrees else "statics off"
            misses.append(f"| {case.name} | {case.margin_g:+.4f} | {r.margin_g or 0:.4f} | {what} | "
                          f"{', '.join(r.dynamics.moved[:4])} | {r.dynamics.max_displacement_mm:.2f} |")
        print(f"[{k + 1}/{len(cases)}] {case.name}: statics {'stands' if statics else 'falls'}, simulation "
              f"{'stands' if r.dynamics.stable else 'moved'} ({wall:.1f} s)", file=sys.stderr, flush=True)
    beyond = per_family.pop("turned boxes", None)
    total = sum(a for a, _ in per_family.values()), sum(n for _, n in per_family.values())
    print(f"## agreement of the free simulation with the statics: {total[0]}/{total[1]} = "
          f"{100 * total[0] / max(total[1], 1):.1f} %\n")
    print("| family | agree | cases | rate |\n|---|---:|---:|---:|")
    for family, (a, n) in per_family.items():
        print(f"| {family} | {a} | {n} | {100 * a / n:.1f} % |")
    print(f"| \\|margin\\| ≥ 0.01 g | {wide[0]} | {wide[1]} | {100 * wide[0] / max(wide[1], 1):.1f} % |")
    if beyond:
        print(f"\nbeyond the suite, boxes turned against one another (contacts of 5-8 corners, 4 points kept): "
              f"{beyond[0]}/{beyond[1]} = {100 * beyond[0] / beyond[1]:.1f} %")
    print(f"\nmisses ({len(misses)}):\n")
    if misses:
        print("| case | margin by construction (g) | statics (g) | what | moved | max displacement (mm) |")
        print("|---|---:|---:|---|---|---:|")
        print("\n".join(misses))
    walls.sort(reverse=True)
    print(f"\nwall time: {sum(w for w, _ in walls):.0f} s for {len(walls)} cases; slowest: "
          + ", ".join(f"{n} {w:.1f} s" for w, n in walls[:3]))


def _cell(value) -> str:
    """A table cell: a verdict, a number to 5 places, or a dash for what was not run."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "stands" if value else "falls"
    return f"{value:.5f}" if isinstance(value, float) else str(value)


def masonry(args) -> None:
    """The masonry suite: one row per arch, the reference's and the statics' verdicts and margins."""
    cases = [c for c in arches.suite(args.quick) if (args.family in (None, c.family))
             and (args.match is None or args.match in c.name)]
    rows = []
    for k, case in enumerate(cases):
        scene = case.scene
        start = time.perf_counter()
        if args.simulate:
            checked = check(scene)
            r, ms = checked.statics, checked.timings_ms["statics"]
        else:
            r = analyze(scene)
            ms = (time.perf_counter() - start) * 1e3
        wall = time.perf_counter() - start
        a = case.arch
        row = {"case": case.name, "family": case.family, "n": a.n, "half_angle_deg": a.half_angle,
               "radius_mm": a.radius, "depth_mm": a.depth, "ratio": a.ratio, "friction": a.friction,
               "abutments": a.abutments, "turn_deg": case.turn_deg, "critical": case.critical, "factor": case.factor,
               "reference": case.stands, "reference_margin_g": case.margin_g, "statics": bool(r.stable),
               "statics_margin_g": float(r.margin_g), "statics_ms": round(ms, 1), "simulation": None}
        if args.simulate:
            d = checked.dynamics
            row.update(simulation=d.stable, moved=len(d.moved), max_displacement_mm=d.max_displacement_mm,
                       wall_s=round(wall, 2))
        if args.written:
            w = analyze(rewritten(scene, decimals=3, turn=Rotation.from_euler("z", 17.0, degrees=True)))
            row.update(written=bool(w.stable), written_margin_g=float(w.margin_g))
        if args.cra:
            row["compas_cra"] = cra_stands(a)[0]
        rows.append(row)
        simulated = "" if not args.simulate else (f", simulation {_cell(row['simulation'])} "
                                                  f"({row['max_displacement_mm']:.3f} mm, {wall:.1f} s)")
        print(f"[{k + 1}/{len(cases)}] {case.name}: reference {_cell(case.stands)}, statics {_cell(bool(r.stable))} "
              f"({ms:.0f} ms){simulated}", file=sys.stderr, flush=True)
    right = sum(r["statics"] == r["reference"] for r in rows)
    print(f"## the statics on the masonry suite: {right}/{len(rows)} verdicts the reference's\n")
    if args.simulate:
        agree = sum(r["simulation"] == r["statics"] for r in rows)
        rate = 100 * agree / max(len(rows), 1)
        print(f"## the free simulation on the masonry suite: {agree}/{len(rows)} = {rate:.1f} % agree with the "
              "statics\n")
        for family in ("thickness", "friction"):
            of = [r for r in rows if r["family"] == family]
            print(f"* {family}: {sum(r['simulation'] == r['statics'] for r in of)}/{len(of)}")
        print(f"* wall time: {sum(r['wall_s'] for r in rows):.0f} s for {len(rows)} cases, slowest "
              f"{max((r['wall_s'] for r in rows), default=0):.1f} s\n")
    extra = ((["written", "written_margin_g"] if args.written else []) + (["compas_cra"] if args.cra else [])
             + (["max_displacement_mm", "wall_s"] if args.simulate else []))
    names = {"written": "written to 0.001 mm", "written_margin_g": "margin (g)", "max_displacement_mm": "moved (mm)",
             "wall_s": "check (s)"}
    head = ["case", "reference", "margin (g)", "statics", "margin (g)", "ms", "simulation",
            *(names.get(e, e) for e in extra)]
    print("| " + " | ".join(head) + " |\n|---|" + "---:|" * (len(head) - 1))
    for r in rows:
        cells = [r["case"], r["reference"], r["reference_margin_g"], r["statics"], r["statics_margin_g"],
                 f"{r['statics_ms']:.0f}", r["simulation"], *(r[e] for e in extra)]
        print("| " + " | ".join(_cell(c) for c in cells) + " |")
    worst = max((abs(r["statics_margin_g"] - r["reference_margin_g"]) for r in rows if r["reference"]), default=0.0)
    print(f"\nlargest difference of the statics' margin from the reference's (standing cases): {worst:.2e} g")
    if args.written:
        print(f"written to 0.001 mm and turned: {sum(r['written'] == r['reference'] for r in rows)}/{len(rows)} "
              "verdicts the reference's")
    if args.cra:
        cra_right = sum(r["compas_cra"] == r["reference"] for r in rows)
        failed = sum(r["compas_cra"] is None for r in rows)
        print(f"compas_cra's RBE: {cra_right}/{len(rows)} verdicts the reference's ({failed} where IPOPT failed)")
        print("\n| arch | critical t/R, thrust lines | compas_cra RBE, bisection |\n|---|---:|---:|")
        critical = cra_criticals(cases)
        if args.record:
            CRA_RECORD.parent.mkdir(parents=True, exist_ok=True)
            import compas_cra

            CRA_RECORD.write_text(json.dumps({"compas_cra": compas_cra.__version__, "tension": CRA_TENSION,
                                              "critical_ratio": critical, "verdicts": [
                                                  {"case": r["case"], "rbe_stands": r["compas_cra"]} for r in rows]},
                                             indent=1) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


def cra_stands(arch: arches.Arch) -> tuple[bool, float]:
    """compas_cra's RBE on the arch's blocks: (stands, largest tension over the mean block weight); (None, nan)
    where IPOPT fails.

    The same prisms (in metres); fixed abutments are supports, free ones stand on a support slab;
    compas_cra finds the interfaces (``assembly_interfaces_numpy``) and solves ``rbe_solve``
    (density 1, the arch's friction; its friction is a four-sided pyramid along each interface's frame).
    """
    from bench_statics import quiet
    from compas_assembly.datastructures import Block
    from compas_cra.algorithms import assembly_interfaces_numpy
    from compas_cra.datastructures import CRA_Assembly
    from compas_cra.equilibrium import rbe_solve

    b = arches.blocks(arch)
    outlines = list(zip(b.polygons, b.fixed))
    if arch.abutments == "blocks":
        wide = 4.0 * arch.radius
        outlines.append((np.array([[-wide, -100.0], [wide, -100.0], [wide, 0.0], [-wide, 0.0]]), True))
    asm = CRA_Assembly()
    supports, half = [], arch.depth / 2000.0
    for poly, fixed in outlines:
        p, k = poly / 1000.0, len(poly)
        verts = [[float(x), -half, float(z)] for x, z in p] + [[float(x), half, float(z)] for x, z in p]
        faces = [list(range(k)), list(range(2 * k - 1, k - 1, -1))]
        faces += [[i, k + i, k + (i + 1) % k, (i + 1) % k] for i in range(k)]
        key = asm.add_block(Block.from_vertices_and_faces(verts, faces))
        if fixed:
            supports.append(key)
    asm.set_boundary_conditions(supports)
    assembly_interfaces_numpy(asm, nmax=10, amin=1e-6, tmax=1e-4)
    try:
        with quiet():
            rbe_solve(asm, mu=arch.friction, density=1.0)
    except ValueError:  # IPOPT found no point (it says infeasible where RBE, with its penalty, always has one)
        return None, math.nan
    volumes = [asm.node_block(n).volume() for n in asm.graph.nodes() if not asm.graph.node_attribute(n, "is_support")]
    tension = max((f["c_nn"] for e in asm.graph.edges() for i in asm.graph.edge_attribute(e, "interfaces")
                   for f in i.forces), default=0.0)
    ratio = tension / float(np.mean(volumes))
    return ratio < CRA_TENSION, ratio


def cra_criticals(cases) -> list[dict]:
    """compas_cra's critical t/R of every arch of the thickness family, by bisection on its RBE verdict
    between 0.99 and 1.01 of the reference's (after checking that it falls at the one and stands at the other)."""
    out, seen = [], set()
    for case in cases:
        if case.family != "thickness" or case.arch.label in seen:
            continue
        seen.add(case.arch.label)
        lo, hi = 0.99 * case.critical, 1.01 * case.critical
        if cra_stands(replace(case.arch, ratio=lo))[0] is not False or not cra_stands(replace(case.arch, ratio=hi))[0]:
            out.append({"arch": case.arch.label, "reference": case.critical, "compas_cra": None})
            continue
        for _ in range(CRA_STEPS):
            mid = 0.5 * (lo + hi)
            stands = cra_stands(replace(case.arch, ratio=mid))[0]
            if stands is None:
                break
            lo, hi = (lo, mid) if stands else (mid, hi)
        out.append({"arch": case.arch.label, "reference": case.critical, "compas_cra": 0.5 * (lo + hi),
                    "bracket": [lo, hi]})
        print(f"| {case.arch.label} | {case.critical:.5f} | {0.5 * (lo + hi):.5f} |", flush=True)
    return out


if __name__ == "__main__":
    main()
