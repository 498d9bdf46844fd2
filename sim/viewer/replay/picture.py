"""Pictures of a replay: each pane's recorded frame drawn by a renderer, side by side, with the captions.

The same drawing for ``towerlab replay R --offscreen --screenshot`` (the
process's offscreen renderer) and for the window's screenshots (its own
renderer on the window's context): poses straight from the recording, the
renderer's full quality, then Pillow's text (:func:`sim.replay.captions.overlay`):
the status line and each pane's label at the top, the current event's caption
at the bottom.
"""

from __future__ import annotations

import numpy as np

from sim.viewer.replay.controller import PANE_GAP, ReplayController

GAP_COLOR = (24, 26, 28)


class PaneGraphs:
    """One scene graph per set of pieces present (most recordings need one), posed frame by frame.

    Args:
        recording: the recording.
        renderer: the :class:`~sim.render.renderer.Renderer` whose graphs they are.
    """

    def __init__(self, recording, renderer):
        self.recording = recording
        self.renderer = renderer
        self._graphs: dict[tuple[str, ...], object] = {}

    def posed(self, g: int):
        """The graph of frame ``g``'s pieces, at frame ``g``'s recorded poses."""
        ids, poses = self.recording.frame(g)
        key = tuple(ids)
        if key not in self._graphs:
            self._graphs[key] = self.renderer.graph(self.recording.scene_of_frame(g))
        graph = self._graphs[key]
        graph.set_poses(poses)
        return graph

    def draw(self, g: int, view) -> np.ndarray:
        """(h, w, 3) uint8: frame ``g`` from ``view``."""
        return self.renderer.render_graph(self.posed(g), view)[..., :3]


def replay_picture(controller: ReplayController, graphs: PaneGraphs, size=None, captions: bool = True) -> np.ndarray:
    """What the replay shows now, in full quality: (h, w, 3) uint8 of ``size`` (default the window's).

    Args:
        controller: the session.
        graphs: drawing with a renderer.
        size: (width, height) pixels.
        captions: draw the status line, the panes' labels and the current event's caption.
    """
    from sim.replay.captions import overlay

    panes = controller.panes()
    view = controller.view(size)
    pictures = []
    for pane in panes:
        picture = graphs.draw(pane.frame, view)
        if captions and pane.label is not None:
            picture = overlay(picture, f"{pane.label}: {pane.time:.2f} s", [])
        pictures.append(picture)
    h = pictures[0].shape[0]
    gap = np.empty((h, PANE_GAP, 3), np.uint8)
    gap[:] = GAP_COLOR
    parts = [pictures[0]]
    for p in pictures[1:]:
        parts += [gap, p]
    picture = np.concatenate(parts, axis=1)
    w = controller.camera.size[0] if size is None else int(size[0])
    if picture.shape[1] < w:  # the panes' width rounded down: the rest in the gap's colour
        rest = np.empty((h, w - picture.shape[1], 3), np.uint8)
        rest[:] = GAP_COLOR
        picture = np.concatenate([picture, rest], axis=1)
    if captions:
        caption = controller.caption()
        picture = overlay(picture, controller.status() if len(panes) == 1 else None,
                          [caption] if caption else [])
    return picture
