"""Card illustrations: every piece a card counts is visible, the playing area framed alike on every card,
the picture filling its box, and printable sheets of real-size cards with cut marks."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sim.games.tohuwabohu import CARDS
from sim.games.tohuwabohu.illustrate import (
    CARD_MM,
    CUT_MARK_GAP_MM,
    SHEET_MM,
    CardFace,
    card_png,
    load_face_scene,
    picture_box,
    picture_size,
    sheet,
    sheet_layout,
    tohuwabohu_faces,
)
from sim.render.camera import board_corners
from sim.render.cards import CARD_PICTURE_MARGIN, MIN_VISIBLE, card_frame, card_view

FACES = {f.id: f for f in tohuwabohu_faces()}
SIZE = picture_size(dpi=150)


@pytest.fixture(scope="module")
def renderer():
    from sim.render import default_renderer

    return default_renderer()


def _alone(renderer, scene, piece, camera) -> int:
    """Pixels a piece covers with nothing in front of it (its exact silhouette)."""
    ids = renderer.ids(renderer.graph(scene.with_pieces([piece])), camera)
    return int((ids == 0).sum())


@pytest.mark.slow
@pytest.mark.parametrize("card_id", list(CARDS))
def test_every_piece_of_the_card_shows_and_the_whole_area_is_framed(renderer, card_id):
    scene = load_face_scene(FACES[card_id])
    view = card_view(renderer, scene, SIZE)
    camera = view.camera
    assert view.clear, f"{card_id}: from no view does every piece show"
    ids = renderer.ids(renderer.graph(scene), camera)
    seen = np.bincount(ids.ravel() + 1, minlength=len(scene.pieces) + 1)[1:]
    for piece, visible in zip(scene.pieces, seen):
        alone = _alone(renderer, scene, piece, camera)
        assert alone > 50, f"{card_id}: {piece.id} is a speck ({alone} px)"
        assert visible >= MIN_VISIBLE * alone, (f"{card_id}: {piece.id} ({piece.kind}) shows {visible} of its "
                                                f"{alone} pixels from azimuth {view.azimuth}, elevation "
                                                f"{view.elevation}")
    # the whole playing area in the picture, framed by the same rule on every card: inside the margin,
    # touching it on one axis, centred on both
    w, h = SIZE
    px = camera.project(card_frame(scene))
    lo, hi = px.min(axis=0), px.max(axis=0)
    slack = 1e-6 * w
    assert np.all(camera.project(board_corners(scene)) >= [CARD_PICTURE_MARGIN * w - slack,
                                                           CARD_PICTURE_MARGIN * h - slack])
    assert np.all(hi <= [(1 - CARD_PICTURE_MARGIN) * w + slack, (1 - CARD_PICTURE_MARGIN) * h + slack])
    assert np.isclose(lo[0], CARD_PICTURE_MARGIN * w, atol=1e-3 * w) or np.isclose(lo[1], CARD_PICTURE_MARGIN * h,
                                                                                     atol=1e-3 * h)
    np.testing.assert_allclose((lo + hi) / 2, [w / 2, h / 2], atol=1e-3 * w)


def test_the_cross_shows_the_bricks_under_its_levels_and_ten_figures_all_show(renderer):
    # the two pictures that hid what the card asks: the cross's four bricks under and between its
    # plates (the plates seemed to float), five of the ten figures
    for card_id, asked in (("cross-red", ["b1", "b2", "b3", "b4"]),
                           ("figures-exactly-10", [p.id for p in load_face_scene(FACES["figures-exactly-10"]).pieces
                                                   if p.kind == "tohuwabohu.figure"])):
        scene = load_face_scene(FACES[card_id])
        view = card_view(renderer, scene, SIZE)
        ids = renderer.ids(renderer.graph(scene), view.camera)
        rows = {p.id: k for k, p in enumerate(scene.pieces)}
        for pid in asked:
            alone = _alone(renderer, scene, scene.piece(pid), view.camera)
            assert (ids == rows[pid]).sum() >= MIN_VISIBLE * alone, f"{card_id}: {pid} hidden"
    assert len(asked) == 10


def _face(card_id: str = "five-levels") -> CardFace:
    return FACES[card_id]


def test_the_picture_fills_its_box_down_to_the_footer():
    import io

    import imageio.v3 as iio

    dpi = 100
    w, h = picture_size(dpi=dpi)
    picture = np.zeros((h, w, 3), np.uint8)
    picture[...] = np.linspace(60, 200, h)[:, None, None].astype(np.uint8)  # a grey ramp, no white anywhere
    card = iio.imread(io.BytesIO(card_png(_face(), picture, dpi=dpi)))
    assert card.shape[:2] == (round(CARD_MM[1] / 25.4 * dpi), round(CARD_MM[0] / 25.4 * dpi))
    mm = dpi / 25.4
    pw, ph = picture_box()
    frame = (CARD_MM[0] - pw) / 2
    top, bottom = CARD_MM[1] - (ph + frame + 5.0), CARD_MM[1] - (frame + 5.0)  # mm from the card's top
    rows = card[int(top * mm) + 2:int(bottom * mm) - 2, int(frame * mm) + 2:int((frame + pw) * mm) - 2, :3]
    white_rows = (rows.min(axis=2) > 245).all(axis=1)
    assert not white_rows.any(), f"{white_rows.sum()} white rows in the picture box"
    footer = card[int(bottom * mm) + 2:int((CARD_MM[1] - frame) * mm) - 2, int(frame * mm) + 4, :3]
    assert (footer > 245).all()  # the white footer with its small print starts right under the picture


def test_a_sheet_lays_nine_real_size_cards_on_a4_with_cut_marks_at_every_edge():
    layout = sheet_layout(9)
    assert len(layout.origins) == 9
    xs = sorted({x for x, _ in layout.origins})
    ys = sorted({y for _, y in layout.origins})
    assert np.allclose(np.diff(xs), CARD_MM[0]) and np.allclose(np.diff(ys), CARD_MM[1])  # touching: one cut each
    left, bottom, right, top = xs[0], ys[0], xs[-1] + CARD_MM[0], ys[-1] + CARD_MM[1]
    assert min(left, bottom, SHEET_MM[0] - right, SHEET_MM[1] - top) >= 10.0  # inside a printer's margin
    assert np.isclose(left, SHEET_MM[0] - right) and np.isclose(bottom, SHEET_MM[1] - top)  # centred
    edges_x = {round(x, 6) for x in xs + [right]}
    edges_y = {round(y, 6) for y in ys + [top]}
    for (x0, y0), (x1, y1) in layout.cut_marks:
        outside = (max(y0, y1) <= bottom - CUT_MARK_GAP_MM + 1e-9 or min(y0, y1) >= top + CUT_MARK_GAP_MM - 1e-9
                   or max(x0, x1) <= left - CUT_MARK_GAP_MM + 1e-9 or min(x0, x1) >= right + CUT_MARK_GAP_MM - 1e-9)
        assert outside, "a cut mark on a card"
        assert (x0 == x1 and round(x0, 6) in edges_x) or (y0 == y1 and round(y0, 6) in edges_y)
    vertical = {round(x0, 6) for (x0, _), (x1, _) in layout.cut_marks if x0 == x1}
    horizontal = {round(y0, 6) for (_, y0), (_, y1) in layout.cut_marks if y0 == y1}
    assert vertical == edges_x and horizontal == edges_y  # every edge of every card is marked
    assert len(sheet_layout(4).origins) == 4
    with pytest.raises(ValueError, match="1..9"):
        sheet_layout(10)


def test_the_sheet_of_36_cards_is_four_a4_pages():
    faces = list(FACES.values())
    w, h = picture_size(dpi=40)
    pictures = [np.full((h, w, 3), 128, np.uint8)] * len(faces)
    pdf = sheet(faces, pictures, title="Tohuwabohu order cards")
    assert pdf.startswith(b"%PDF")
    pages = re.findall(rb"/Type\s*/Page\b(?!s)", pdf)
    assert len(pages) == 4
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    assert len(boxes) == 4
    for bw, bh in boxes:  # A4 in points
        assert abs(float(bw) - SHEET_MM[0] / 25.4 * 72) < 0.5 and abs(float(bh) - SHEET_MM[1] / 25.4 * 72) < 0.5
