"""Scripted live sessions: a list of steps (plain data) played on a live world, recorded as they go.

What tests, the demo and the benchmark drive; the viewer's ``--actions``
runs its own controller the same way. Steps, in SI units like the live world:

* a live-world action (``LiveWorld.apply``'s JSON: ``{"kind": "grab", "piece": "b3", "hand": "right",
  "player": "ana", "args": {...}}``), made now;
* ``{"kind": "carry", "hand": "right", "to": [x, y, z], "seconds": 0.5}``: the hand's target moves in a
  straight line to ``to`` (m), one ``move_hand`` a frame, the world running meanwhile;
* ``{"kind": "wait", "seconds": 1.0}``: the world runs;
* ``{"kind": "event", "event": "card_fulfilled", "pieces": [], "data": {...}}``: a game event, recorded now.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from sim.replay.errors import ReplayError

FRAME = 1.0 / 60.0
"""Simulated seconds per scripted frame (the live world's frame)."""


def play_script(live, steps: Iterable[Mapping], recorder=None, *, on_frame=None) -> None:
    """Play ``steps`` on a live world, recording into ``recorder`` (a started or fresh
    :class:`~sim.replay.recorder.Recorder`) after every frame.

    Args:
        live: the :class:`~sim.physics.live.LiveWorld`.
        steps: see the module docstring.
        recorder: where it goes (None: not recorded).
        on_frame: called as ``on_frame(live)`` after every frame (a test keeps the live poses with it).

    Raises:
        ReplayError: a step that cannot be made (its kind, a hand that carries nothing).
    """
    def run(seconds: float) -> None:
        for _ in range(max(0, int(round(seconds / FRAME)))):
            live.advance(FRAME)
            if recorder is not None:
                recorder.feed(live)
            if on_frame is not None:
                on_frame(live)

    if recorder is not None:
        recorder.feed(live)
    for k, step in enumerate(steps):
        kind = step.get("kind")
        try:
            if kind == "wait":
                run(float(step["seconds"]))
            elif kind == "carry":
                state = live.hands.state(step["hand"])
                if state is None:
                    raise ReplayError(f"step {k}: hand {step['hand']!r} carries nothing")
                target = state.target.copy()
                start, goal = target[:3].copy(), np.asarray(step["to"], dtype=float)
                frames = max(1, int(round(float(step.get("seconds", 0.5)) / FRAME)))
                for i in range(1, frames + 1):
                    target[:3] = start + (goal - start) * i / frames
                    live.move_hand(step["hand"], target)
                    run(FRAME)
            elif kind == "event":
                if recorder is not None:
                    recorder.feed(live)
                    recorder.event(recorder.latest, step["event"], step.get("pieces", ()), None,
                                   step.get("data") or {})
            else:
                live.apply(dict(step))
        except (KeyError, TypeError) as e:
            raise ReplayError(f"step {k}: malformed ({e!r})") from None
        except ValueError as e:
            raise ReplayError(f"step {k}: {e}") from None
    if recorder is not None:
        recorder.feed(live)
