"""The live world while much moves: scenarios for tools/bench_live.py, run in fresh interpreters on any checkout.

Each scenario is a snippet of the live world's public API (``LiveWorld``, ``grab``, ``move_hand``,
``release``, ``remove``, ``add``, ``advance``), so that the same session runs on this code and on a
checkout from before (``--before DIR``), one interpreter each, taking turns. A session is driven as a
viewer drives it: 60 Hz frames of ``advance(1 / 60)``, no budget (every step is taken), and timed from
its first action to its end (opening the world is not counted). It prints one JSON line: simulated and
wall seconds, the pieces knocked down, those held at the end.

* ``vault-carry``: compas_cra's Armadillo vault (``--vault FILE``, imported with ``towerlab import compas
  armadillo_cra.json --snap 50``); a hand takes its highest block, lifts it 40 mm and carries it 0.8 m
  through the blocks beside it in 1.2 s, lets go, 0.8 s more;
* ``vault-collapse``: the same vault with the fixed blocks under one of its feet taken away: what they
  carried comes down, 2 s;
* ``babylon-struck``: the Babylon bench (140 pieces, 15 cm high) struck through its upper half: a beam of
  60 × 220 × 70 mm (2 g/cm³) carried by a hand at 1 m/s across its whole width, 100-170 mm above the board,
  and let go, 2 s (two thirds of the bench come down);
* ``talo-knocked``: the Talo stock built up (55 blocks, ``scenes/talo/all-55-blocks.json``) knocked over by
  a beam of 60 × 220 × 60 mm (8 g/cm³, 6.3 kg) thrown at 3 m/s through it 120 mm above the board, 2 s.
"""

from __future__ import annotations

import json
import subprocess
import sys

PRELUDE = """
import json, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from sim.physics.live import LiveWorld
from sim.scene import from_dict, load_scene

def frames(lw, seconds):
    for _ in range(int(round(seconds * 60))):
        lw.advance(1 / 60)

def fallen(lw):
    return len({{p for e in lw.events if e.kind == "knocked_down" for p in e.pieces}})

def thrown(scene, at, velocity, size=(60.0, 60.0, 40.0), density=2.0):
    # a block beside the structure, its centre level with ``at`` (m), thrown along ``velocity`` (m/s)
    v = np.asarray(velocity, dtype=float)
    lo = np.min([p.pos for p in scene.pieces], axis=0)
    hi = np.max([p.pos for p in scene.pieces], axis=0)
    reach = 0.5 * float(np.linalg.norm(hi - lo)) + 0.5 * max(size) / 1000 + 0.03
    start = np.asarray(at, dtype=float) - v / np.linalg.norm(v) * reach
    spec = {{"id": "striker", "kind": "box", "size": list(size), "pos": [float(x) * 1000 for x in start],
             "density": density}}
    return from_dict({{"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": [spec]}},
                     "<striker>").pieces[0]
"""

STRIKE = """
centre = np.mean([p.pos for p in scene.pieces], axis=0)
start = time.perf_counter(); cpu0 = time.process_time(); t0 = lw.time
lw.add(thrown(scene, (centre[0], centre[1], {z}), (3.0, 0.0, 0.0), {size}, {density}), player="bench",
       velocity=[3.0, 0.0, 0.0, 0.0, 0.0, 0.0])
frames(lw, 2.0)
"""
"""A beam (``size`` mm, ``density`` g/cm³) thrown at 3 m/s through a structure, its centre ``z`` (m) above the
table, across the structure's whole width; 2 s."""

SWEEP = """
centre = np.mean([p.pos for p in scene.pieces], axis=0)
beam = thrown(scene, (centre[0], centre[1], {z}), (1.0, 0.0, 0.0), {size}, {density})
start = time.perf_counter(); cpu0 = time.process_time(); t0 = lw.time
lw.add(beam, player="bench")
lw.grab(beam.id, "right", player="bench")
target = lw.hands.state("right").target.copy()
x0 = target[0]
for k in range(1, 31):  # through the structure and out beyond it, 1 m/s for 0.5 s
    target[0] = x0 + 0.5 * k / 30
    lw.move_hand("right", target)
    lw.advance(1 / 60)
lw.release("right")
frames(lw, 1.5)
"""
"""A beam (``size`` mm, ``density`` g/cm³) carried by a hand at 1 m/s through a structure across its whole width,
its centre ``z`` (m) above the table, 0.5 s, and let go; 2 s in all."""

SCENARIOS = {
    "vault-carry": ("load_scene({vault!r})", """
ids = [p.id for p in scene.pieces if not p.fixed]
top = max(ids, key=lambda i: lw.pose(i)[2])
start = time.perf_counter(); cpu0 = time.process_time(); t0 = lw.time
lw.grab(top, "right", player="bench")
target = lw.hands.state("right").target.copy()
origin = target[:3].copy()
for k in range(1, 13):  # lift 40 mm in 0.2 s
    target[2] = origin[2] + 0.04 * k / 12
    lw.move_hand("right", target)
    lw.advance(1 / 60)
lifted = target[:3].copy()
for k in range(1, 73):  # 0.8 m through the blocks beside it in 1.2 s
    target[0] = lifted[0] + 0.8 * k / 72
    lw.move_hand("right", target)
    lw.advance(1 / 60)
lw.release("right")
frames(lw, 0.6)
"""),
    "vault-collapse": ("load_scene({vault!r})", """
fixed = [p for p in scene.pieces if p.fixed]
corner = min(fixed, key=lambda p: p.pos[0] + p.pos[1])
foot = [p.id for p in fixed if np.linalg.norm(np.subtract(p.pos, corner.pos)) < 2.5]
start = time.perf_counter(); cpu0 = time.process_time(); t0 = lw.time
for i in foot:
    lw.remove(i, player="bench")
frames(lw, 2.0)
"""),
    "babylon-struck": ("load_scene({root!r} + '/scenes/babylon/bench-140.json')",
                       SWEEP.format(z=0.135, size=(60.0, 220.0, 70.0), density=2.0)),
    "talo-knocked": ("load_scene({root!r} + '/scenes/talo/all-55-blocks.json')",
                     STRIKE.format(z=0.12, size=(60.0, 220.0, 60.0), density=8.0)),
}

EPILOGUE = """
wall = time.perf_counter() - start
cpu = time.process_time() - cpu0
print(json.dumps({{"simulated": lw.time - t0, "wall": wall, "cpu": cpu, "knocked_down": fallen(lw),
                  "held": len(lw.held), "pieces": len(lw.ids)}}))
"""


def snippet(name: str, root: str, vault: str | None) -> str:
    """The program of scenario ``name`` on the code at ``root``."""
    make, body = SCENARIOS[name]
    opening = f"scene = {make.format(root=root, vault=vault)}\nlw = LiveWorld(scene)\n"
    return PRELUDE.format(root=root) + opening + body + EPILOGUE.format()


def run(name: str, root: str, vault: str | None, timeout: float = 3600.0) -> dict:
    """Scenario ``name`` in a fresh interpreter on the code at ``root``: its JSON line as a dict."""
    out = subprocess.run([sys.executable, "-c", snippet(name, root, vault)], capture_output=True, text=True,
                         check=True, cwd=root, timeout=timeout)
    return json.loads(out.stdout.strip().splitlines()[-1])
