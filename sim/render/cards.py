"""The picture of a card: a camera that frames the whole playing area the same way on every card and shows
every piece of its construction.

The frame is the area and the construction centred, the nearest of them on
the same margin, seen from the highest viewpoint at which every piece shows
(a brick under a level or a figure behind another is never hidden). The card
faces around the picture (frame, title, sheets) are the game's
(:mod:`sim.games.tohuwabohu.illustrate`), which receives the picture as an
array.
"""

from __future__ import annotations

import numpy as np

from sim.render.camera import board_corners, piece_corners

CARD_PICTURE_MARGIN = 0.04
"""Free border around the playing area in the picture (fraction of its size)."""
MIN_VISIBLE = 0.15
"""Every piece shows at least this fraction of its projected hull (:mod:`sim.render.views`)."""
CARD_ELEVATIONS = (35.0, 30.0, 25.0, 20.0, 17.5, 15.0, 12.5, 10.0)
"""Camera elevations (degrees) tried, highest first: the first from which every piece shows wins. 10 degrees
still shows the level plates' tops; lower, a tower of levels would look like a stack of lines."""


def card_frame(scene) -> np.ndarray:
    """(k, 3) what every card picture keeps inside its margin: the playing area and every piece (m, world)."""
    return np.vstack([piece_corners(scene), board_corners(scene)])


def card_view(renderer, scene, size):
    """The camera of a card's picture: the whole playing area framed, every piece visible.

    Args:
        renderer: a :class:`sim.render.renderer.Renderer`, which draws the id pictures the
            search judges visibility by.
        scene: the card's scene.
        size: (width, height) pixels of the picture.

    Returns:
        A :class:`sim.render.views.ClearView`: the camera, where it looks from, how much of
        each piece it shows and whether every piece reaches :data:`MIN_VISIBLE`.
    """
    from sim.render.views import ViewSearch, clear_view

    search = ViewSearch(elevations=CARD_ELEVATIONS, min_fraction=MIN_VISIBLE, margin=CARD_PICTURE_MARGIN)
    return clear_view(renderer, scene, size, card_frame(scene), search)


def card_picture(renderer, scene, size):
    """A card's picture: its scene drawn from :func:`card_view`'s camera.

    Args:
        renderer: a :class:`sim.render.renderer.Renderer`.
        scene: the card's scene.
        size: (width, height) pixels (:func:`sim.games.tohuwabohu.illustrate.picture_size`).

    Returns:
        (picture (h, w, 4) uint8, the :class:`sim.render.views.ClearView` it was drawn from).
    """
    view = card_view(renderer, scene, size)
    return renderer.render_graph(renderer.graph(scene), view.camera), view
