"""compas_cra's own samples beside towerlab: the same verdicts, and the time each takes, in one run.

Each case is one of compas_cra's example scripts (docs/examples/*.py in its
repository): a sample of compas_cra/data/samples/, its supports, friction,
tilt and interface settings. towerlab imports the sample (``sim.importers.compas``)
and decides it (``sim.statics.analyze``: feasibility, then the margin);
compas_cra finds its interfaces (``assembly_interfaces_numpy``, or the ones the
file stores where its example uses those) and solves ``rbe_solve`` (its verdict:
it stands when the tension it needs stays below 1e-4 of the mean block weight)
and ``cra_solve`` (its kinematic model; it stands when IPOPT finds a solution).

`.venv/bin/python tools/bench_assemblies.py` prints the table (times: best of
--repeat for towerlab, one run of compas_cra each). `--record` also writes
compas_cra's verdicts to tests/data/compas/verdicts.json, which the tests
compare towerlab's with (CI has no compas_cra). compas_cra is the optional
`bench` extra; without it only towerlab's side runs, on the samples kept in
tests/data/compas/.

`--against /work/main` also times another checkout's statics (before a change) on the
same imported scenes, each of its runs (a process of its own) taking turns with ours,
and prints how many times faster ours is with the margin: the before/after figures of
docs/statics.md (`--only armadillo --towerlab-only --against /work/main`). `--threads N`
sets how many cone programs run side by side (``sim.statics.cone.THREADS``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_statics import quiet  # noqa: E402  (silences IPOPT's output, also on file descriptor 1)

from sim.importers.compas import read_assembly, to_scene  # noqa: E402
from sim.scene import from_dict  # noqa: E402
from sim.statics import analyze  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "compas"
TENSION = 1e-4  # compas_cra's RBE verdict: it stands when its largest tension is below this share of a block's weight

Y = (0.0, 1.0, 0.0)
DETECT_FINE = {"nmax": 10, "amin": 1e-2, "tmax": 1e-2}  # 02_cubes, 05_wedge, 16_ha
DETECT_SHELF = {"nmax": 10, "amin": 1e-6, "tmax": 1e-4}  # 07_shelf, 09_bridge
CASES = [  # name, sample, supports, mu, tilt (axis, degrees) or None, interfaces (None: the file's), extra
    ("cubes", "cubes", [0], 0.84, None, DETECT_FINE, {}),
    ("A", "A", [0, 1], 0.84, None, DETECT_FINE, {}),
    ("H", "H", [0, 1], 0.84, None, DETECT_FINE, {}),
    *[(f"{t}", t, [0, 1], 0.84, None, DETECT_FINE, {}) for t in ("type-a", "type-b", "type-c", "type-d")],
    *[(f"{t} tilted 90°", t, [0, 1], 0.84, (Y, 90.0), DETECT_FINE, {}) for t in ("type-a", "type-b", "type-c",
                                                                                   "type-d")],
    *[(s, s, [0], 0.9, None, DETECT_SHELF, {}) for s in ("shelf", "shelf-stable", "shelf-s1", "shelf-s2",
                                                        "shelf-s3")],
    ("snake", "snake", [0], 0.7, None, {"nmax": 10, "amin": 1e-4, "tmax": 1e-2}, {}),
    ("bridge", "bridge", [0, 1], 0.9, None, DETECT_SHELF, {"density": {k: 3.51 for k in (11, 12, 13, 14, 15)}}),
    ("concave-short", "concave-short", [0], 0.84, None, None, {}),
    ("concave-short tilted 40°", "concave-short", [0], 0.84, (Y, 40.0), None, {}),
    ("concave-long tilted 50°", "concave-long", [0], 0.84, (Y, 50.0), None, {}),
    ("cube-curve-short", "cube-curve-short", [0], 0.84, None, None, {}),
    ("cube-curve-tall", "cube-curve-tall", [0], 0.84, None, None, {}),
    ("curve-3-blocks", "curve-3-blocks", [0], 0.84, None, None, {"decomposition": "coacd"}),
    ("armadillo", "armadillo_cra", [], 0.84, None, {"nmax": 10, "amin": 1e-4, "tmax": 0.05}, {"snap": 50.0}),
]


def sample_path(sample: str) -> Path:
    """The sample's file: the repository's copy where there is one, else compas_cra's."""
    kept = DATA / f"{sample}.json"
    if kept.is_file():
        return kept
    import compas_cra

    return Path(compas_cra.SAMPLE) / f"{sample}.json"


AGAINST = """
import json, sys, time
from pathlib import Path
from sim.scene import from_dict
from sim.statics import analyze
path = Path(sys.argv[1])
scene = from_dict(json.loads(path.read_text()), path.stem, base=path.parent)
analyze(scene, margin=False)
t = time.perf_counter(); analyze(scene, margin=False); f = time.perf_counter() - t
c = time.process_time(); t = time.perf_counter(); r = analyze(scene); m = time.perf_counter() - t
c = time.process_time() - c
print(json.dumps({"ms_feasibility": f * 1e3, "ms_with_margin": m * 1e3, "cpu_ms_with_margin": c * 1e3,
                  "margin_g": r.margin_g,
                  "weakest_deg": r.weakest_direction_deg, "solves": r.lp_solves}))
"""


def against(checkout: Path, scene_file: Path) -> dict:
    """Another checkout's statics (main's, before a change) on the same scene file, in a process of its own."""
    out = subprocess.run([sys.executable, "-c", AGAINST, str(scene_file)], capture_output=True, text=True,
                         cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)}, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def ours(case, folder: Path, repeat: int, checkout: Path | None = None) -> dict:
    """towerlab on a case: import (ms), feasibility and full statics (best of ``repeat``, ms), verdicts; with
    ``checkout``, that checkout's too, its runs taking turns with ours (``against``)."""
    name, sample, supports, mu, tilt, _, extra = case
    start = time.perf_counter()
    assembly = read_assembly(sample_path(sample))
    density = extra.get("density", {})
    if density:  # compas_cra's density_setup: the sample's blocks as the example weighs them
        from dataclasses import replace

        assembly = replace(assembly, blocks=tuple(replace(b, density=density.get(int(b.key), b.density))
                                                 for b in assembly.blocks))
    imported = to_scene(assembly, supports=[str(k) for k in supports], friction=mu, rotate=tilt,
                        snap=extra.get("snap", 0.0), decomposition=extra.get("decomposition", "exact"),
                        mesh_folder=re.sub(r"[^a-z0-9]+", "-", name.lower()))
    for file, text in imported.meshes.items():
        (folder / file).parent.mkdir(parents=True, exist_ok=True)
        (folder / file).write_text(text)
    scene = from_dict(imported.scene, name, base=folder)
    loaded = time.perf_counter()
    analyze(scene, margin=False)  # warm the shapes' mass properties and hull faces
    times_f, times_m, feasibility, full = [], [], None, None
    theirs, cpu_m = [], []
    scene_file = folder / (re.sub(r"[^a-z0-9]+", "-", name.lower()) + ".json")
    if checkout is not None:
        scene_file.write_text(json.dumps(imported.scene))
    for _ in range(repeat):
        if checkout is not None:
            theirs.append(against(checkout, scene_file))
        t = time.perf_counter()
        feasibility = analyze(scene, margin=False)
        times_f.append(time.perf_counter() - t)
        t, c = time.perf_counter(), time.process_time()
        full = analyze(scene)
        times_m.append(time.perf_counter() - t)
        cpu_m.append(time.process_time() - c)
    parts = sum(len(p.shape.parts) for p in scene.pieces)
    other = {} if not theirs else {"against": {
        "ms_feasibility": round(min(t["ms_feasibility"] for t in theirs), 1),
        "ms_with_margin": round(min(t["ms_with_margin"] for t in theirs), 1),
        "cpu_ms_with_margin": round(min(t["cpu_ms_with_margin"] for t in theirs), 1),
        "margin_g": theirs[0]["margin_g"], "weakest_deg": theirs[0]["weakest_deg"], "solves": theirs[0]["solves"]}}
    return {**other, "blocks": len(scene.pieces), "parts": parts, "interfaces": len(full.interfaces),
            "feasible": feasibility.feasible, "stable": full.stable, "unheld": list(feasibility.unheld),
            "solves": full.lp_solves,
            "margin_g": None if not full.feasible else round(full.margin_g, 4),
            "weakest_deg": None if full.weakest_direction_deg is None else round(full.weakest_direction_deg, 1),
            "ms_import": round((loaded - start) * 1e3, 1), "ms_interfaces": round(full.timings_ms["interfaces"], 1),
            "ms_feasibility": round(min(times_f) * 1e3, 1), "ms_with_margin": round(min(times_m) * 1e3, 1),
            "cpu_ms_with_margin": round(min(cpu_m) * 1e3, 1)}


def cra_assembly(case):
    """The case's compas_cra assembly with its interfaces: (assembly, ms to find the interfaces)."""
    import compas
    from compas_cra.algorithms import assembly_interfaces_numpy
    from compas_cra.datastructures import CRA_Assembly
    from compas_cra.equilibrium import density_setup

    _, sample, supports, _, tilt, detect, extra = case
    asm = compas.json_load(str(sample_path(sample))).copy(cls=CRA_Assembly)
    if supports:
        asm.set_boundary_conditions(supports)
    if extra.get("density"):
        with quiet():
            density_setup(asm, extra["density"])
    start = time.perf_counter()
    if detect is not None:
        assembly_interfaces_numpy(asm, **detect)
    found = time.perf_counter()
    if tilt is not None:
        asm.rotate_assembly([0.0, 0.0, 0.0], list(tilt[0]), tilt[1])
    return asm, (found - start) * 1e3


def cra(case, with_cra: bool = True) -> dict:
    """compas_cra on a case: RBE's verdict (by its tension) and time, CRA's where it runs."""
    from compas_cra.equilibrium import cra_solve, rbe_solve

    mu = case[3]
    asm, ms_interfaces = cra_assembly(case)
    weights = [asm.node_block(n).volume() * asm.node_block(n).attributes.get("density", 1.0)
               for n in asm.graph.nodes()]
    out = {"interfaces": sum(len(asm.graph.edge_attribute(e, "interfaces")) for e in asm.graph.edges()),
           "ms_interfaces": round(ms_interfaces, 1)}
    start = time.perf_counter()
    try:
        with quiet():
            rbe_solve(asm, mu=mu, density=1.0)
        tension = max((f["c_nn"] for e in asm.graph.edges() for i in asm.graph.edge_attribute(e, "interfaces")
                       for f in i.forces), default=0.0)
        ratio = tension / (sum(weights) / len(weights))
        out.update(rbe_stable=bool(ratio < TENSION), rbe_tension=float(f"{ratio:.3g}"))
    except Exception as e:  # noqa: BLE001 - IPOPT's failures come as ValueError or RuntimeError
        out.update(rbe_stable=None, rbe_error=str(e).splitlines()[0][:120])
    out["ms_rbe"] = round((time.perf_counter() - start) * 1e3, 1)
    if with_cra:
        asm, _ = cra_assembly(case)
        start = time.perf_counter()
        try:
            with quiet():
                cra_solve(asm, mu=mu, density=1.0)
            out["cra_stable"] = True
        except Exception as e:  # noqa: BLE001
            out.update(cra_stable=False, cra_error=str(e).splitlines()[0][:120])
        out["ms_cra"] = round((time.perf_counter() - start) * 1e3, 1)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of towerlab per case (best of)")
    parser.add_argument("--only", nargs="*", help="case names (default: all)")
    parser.add_argument("--no-cra-solve", action="store_true", help="skip compas_cra's CRA (slow on the vault)")
    parser.add_argument("--threads", type=int, help="cone programs solved side by side (sim.statics.cone.THREADS)")
    parser.add_argument("--towerlab-only", action="store_true", help="skip compas_cra (its vault takes a minute)")
    parser.add_argument("--record", action="store_true", help="write compas_cra's verdicts to " + str(DATA))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--against", type=Path, help="another checkout (main's, before a change): its statics "
                                                      "timed on the same scenes, taking turns with ours")
    args = parser.parse_args(argv)
    if args.threads is not None:
        import sim.statics.cone

        sim.statics.cone.THREADS = max(1, args.threads)
    try:
        import compas_cra
        version = getattr(compas_cra, "__version__", "?")
    except ImportError:
        version = None
    cases = [c for c in CASES if not args.only or c[0] in args.only]
    if version is None:
        kept = [c for c in cases if (DATA / f"{c[1]}.json").is_file()]
        skipped = [c[0] for c in cases if c not in kept]
        if skipped:
            print(f"without compas_cra (pip install '.[bench]'), no sample file for: {', '.join(skipped)}",
                  file=sys.stderr)
        cases = kept
    rows = []
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            row = {"case": case[0], "sample": case[1], "supports": case[2], "mu": case[3],
                   "tilt": None if case[4] is None else [list(case[4][0]), case[4][1]],
                   "interfaces": "stored" if case[5] is None else case[5], **{k: v for k, v in case[6].items()}}
            try:
                row["towerlab"] = ours(case, Path(folder), args.repeat, args.against)
            except Exception as e:  # noqa: BLE001 - a sample towerlab cannot take: say why, go on
                row["towerlab"] = {"error": str(e)}
            if version is not None and not args.towerlab_only:
                row["compas_cra"] = cra(case, with_cra=not (args.no_cra_solve or case[1].startswith("armadillo")))
            rows.append(row)
            if not args.json:
                _print(row)
    if args.record and version is not None:
        DATA.mkdir(parents=True, exist_ok=True)
        record = {"compas_cra": version, "made_by": "tools/bench_assemblies.py --record",
                  "verdicts": [{k: v for k, v in r.items() if k != "towerlab"} for r in rows]}
        (DATA / "verdicts.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    if args.json:
        print(json.dumps({"load_average": load, "compas_cra": version, "cases": rows}, indent=1, ensure_ascii=False))
    return 0


def full_ratio(a: dict, t: dict) -> str:
    """How many times faster ours is with the margin than the other checkout's."""
    return f"{a['ms_with_margin'] / t['ms_with_margin']:.2f}"


def _print(row) -> None:
    t = row["towerlab"]
    if "error" in t:
        print(f"{row['case']:26s} towerlab: {t['error']}", flush=True)
        return
    line = (f"{row['case']:26s} {t['blocks']:4d} blocks {t['parts']:5d} parts {t['interfaces']:5d} interfaces  "
            f"towerlab {'S' if t['feasible'] else 'F'} margin {t['margin_g']}  {t['ms_feasibility']:8.1f} ms"
            f" (+margin {t['ms_with_margin']:8.1f} ms)")
    a = t.get("against")
    if a is not None:
        line += (f"  against: margin {a['margin_g']:.4f} feasibility {a['ms_feasibility']:8.1f} ms +margin "
                 f"{a['ms_with_margin']:8.1f} ms ({a['solves']} solves; ours {full_ratio(a, t)}x faster; CPU "
                 f"{a['cpu_ms_with_margin']:.0f} -> {t['cpu_ms_with_margin']:.0f} ms)")
    c = row.get("compas_cra")
    if c is not None:
        rbe = {True: "S", False: "F", None: "?"}[c["rbe_stable"]]
        cra = {True: "S", False: "F", None: "-"}[c.get("cra_stable")]
        line += (f"  compas_cra RBE {rbe} (tension {c.get('rbe_tension')}) CRA {cra}  interfaces "
                 f"{c['ms_interfaces']:8.1f} ms  RBE {c['ms_rbe']:8.1f} ms" +
                 (f"  CRA {c['ms_cra']:9.1f} ms" if "ms_cra" in c else ""))
    print(line, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
