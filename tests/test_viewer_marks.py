"""The window's stability marks follow the statics' verdict (a viewer window under Xvfb, in a process of its own):
a verdict that arrives from the worker process after everything has come to rest is drawn at once (the weakest
direction's arrow just beyond the weak piece, the piece tinted), not only once something moves."""

from __future__ import annotations

import pytest
from desktop import run_in_window

pytestmark = pytest.mark.window
SIZE = (320, 200)

_SCRIPT = r"""
import json
import time
from sim.scene import from_dict
from sim.viewer.control.controller import Controller
from sim.viewer.window.build import ViewerWindow

# a 60 mm plank reaching 29 mm past a wide base's +x end (its centre 1 mm inside): it tips at 0.1 g along +x
scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
    {"id": "base", "kind": "box", "size": [200, 60, 20], "pos": [0, 0, 10]},
    {"id": "plank", "kind": "box", "size": [60, 20, 20], "pos": [99, 0, 30]}]})
c = Controller(scene, threaded=True, size=(320, 200))  # the statics in their worker process, as in the window
w = ViewerWindow(c, "marks")
out = {"arrow_before": None}
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    w.taskMgr.step()
    v = c.verdict()
    if v is None or not v.mode:
        out["arrow_before"] = "arrow" in w.marks._lines
    elif not c.world.verdict_pending:
        break
v = c.verdict()
out["mode"] = list(v.mode)
out["still_moving"] = c.world.moving()
for _ in range(3):
    w.taskMgr.step()
arrow = w.marks._lines.get("arrow")
out["arrow"] = arrow is not None
if arrow is not None:
    lo, hi = arrow.get_tight_bounds()
    out["arrow_x"] = [lo[0], hi[0]]
    out["arrow_z"] = lo[2]
out["tints"] = {k: list(v) for k, v in w.look._tints.items()}
w.close()
print(json.dumps(out))
"""


def test_a_verdict_that_arrives_at_rest_is_drawn_at_once(display):
    out = run_in_window(_SCRIPT, display)
    assert out["arrow_before"] is False  # no arrow before the statics have answered
    assert out["mode"] == ["plank"] and not out["still_moving"]  # it answered with everything at rest
    assert out["arrow"] and out["tints"]["plank"] == [1.0, 0.6, 0.1, 0.35]  # the weakest mode's orange
    lo, hi = out["arrow_x"]
    assert 0.129 < lo < 0.14 and hi == pytest.approx(lo + 0.04, abs=2e-3)  # past the plank's end
    assert out["arrow_z"] == pytest.approx(0.02, abs=1e-3)  # on the base's top, where the plank stands
