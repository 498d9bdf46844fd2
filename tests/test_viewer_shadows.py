"""The live picture's shadow map, kept from frame to frame (a viewer window under Xvfb, in a process of its own):
drawn from what stands still, again when a piece begins or ceases to move or the light has turned 3 degrees."""

from __future__ import annotations

import pytest
from desktop import run_in_window

pytestmark = pytest.mark.window
SIZE = (320, 200)

_SCRIPT = r"""
import json
import numpy as np
from sim.render.graph import SHADOW_MASK
from sim.scene import from_dict
from sim.viewer.control.actions import action
from sim.viewer.control.controller import Controller
from sim.viewer.window.build import ViewerWindow

blocks = [{"id": f"b{k}", "kind": "talo.block", "length": 2, "cell": [k, 2], "layer": 0, "axis": "y"}
          for k in range(10)]
scene = from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": blocks})
c = Controller(scene, threaded=False, size=(320, 200))
w = ViewerWindow(c, "shadows")
look = w.look
out = {}

def frames(n, each=None):
    drawn = []
    for k in range(n):
        if each is not None:
            each(k)
        w.taskMgr.step()
        drawn.append(bool(look.shadow.buffer.is_active()))
    return drawn

out["start"] = frames(10)
c.apply(action("pick", piece="b9"))
frames(30)
centre = np.array([-20.0, 20.0])
def carry(k):
    a = 2 * np.pi * k / 40
    c.apply(action("move-to", at=list(centre + 15.0 * np.array([np.cos(a), np.sin(a)]))))
out["carrying"] = frames(40, carry)
out["carried_hidden"] = bool(look.live_nodes["b9"].is_hidden(SHADOW_MASK))
def orbit(degrees):
    def each(k):
        c.apply(action("orbit", degrees=[degrees, 0.0]))
        c.camera.current = c.camera.goal  # no glide: the camera turns that much each frame
    return each
out["orbit_slow"] = frames(40, orbit(0.05))
out["orbit_fast"] = frames(12, orbit(4.0))
c.apply(action("drop"))
for _ in range(2000):
    w.taskMgr.step()
    if c.quiet() and not look.batch.moving:
        break
frames(5)
node = look.live_nodes["b9"]
out["rested_casts"] = "b9" in look.batch.batched or not node.is_hidden(SHADOW_MASK)  # in the batch, or itself
out["rested"] = frames(10)
w.close()
print(json.dumps(out))
"""


def test_the_shadow_map_is_drawn_again_only_when_what_stands_still_or_the_light_changes(display):
    out = run_in_window(_SCRIPT, display)
    assert any(out["start"]) and not any(out["start"][-3:])  # drawn at first, then kept
    assert out["carried_hidden"]  # a carried piece casts no shadow in the live picture
    assert sum(out["carrying"]) <= 4  # kept while the piece is carried round (the camera still)
    assert sum(out["orbit_slow"]) <= 4  # 0.05 degrees a frame: drawn again about every 60 frames
    assert sum(out["orbit_fast"]) >= 10  # 4 degrees a frame (the light turns some 3): drawn nearly every frame
    assert out["rested_casts"] and not any(out["rested"])  # set down and at rest: its shadow is back, and kept
