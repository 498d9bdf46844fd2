"""Benchmark: does the free-running simulation agree with the exact statics at thin margins?

Run on an otherwise idle machine::

    .venv/bin/python tools/bench_agreement.py [--quick] [--family harmonic|tipping|lever|ladder|random]

For every case of the thin-margin suite (``sim.cases.thin.suite``: harmonic
stacks, tipping blocks, levers on fixed and movable posts, ladders and random
towers at margins of 0.002-0.01 g and as far past the boundary, some turned
and shifted), ``check`` runs its statics and its free simulation (2 s, no
certified rest); the simulation *agrees* when it moves nothing exactly where
the statics say the structure stands. Prints the agreement rate overall, per
family and where |margin| >= 0.01 g, every miss (a stable structure the
simulation dropped, or a fall it missed), and the wall time per case.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.cases.thin import suite, turned_towers  # noqa: E402
from sim.physics import check  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a sample of every family (a smoke run)")
    parser.add_argument("--family", help="only this family")
    parser.add_argument("--match", help="only cases whose name contains this")
    parser.add_argument("--turned-boxes", action="store_true",
                        help="also the towers of boxes turned against one another (beyond 4-point manifolds)")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
