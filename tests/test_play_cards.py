"""Tohuwabohu's order cards for the game panel: drawn as ``towerlab cards`` draws them, once, kept on disk, in a
worker process; what the card tray shows of a game's view."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PIL import Image

from sim.cli import main
from sim.viewer.play import cards as art
from sim.viewer.play.cards import ART_DPI, CardArt, art_path, cards_folder
from sim.viewer.play.panels import tohuwabohu_cards


def pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGBA"))


def test_a_card_is_drawn_once_as_the_cards_command_draws_it_and_kept_for_the_next_game(tmp_path, monkeypatch):
    first = CardArt(tmp_path / "kept", mode="inline")
    assert first.picture("cross-red") is not None and first.drawn == 1
    path = first.picture("cross-red")
    assert first.drawn == 1 and path == art_path(tmp_path / "kept", "cross-red")
    w, h = (round(mm / 25.4 * ART_DPI) for mm in (63.0, 88.0))
    assert pixels(path).shape == (h, w, 4)
    assert main(["cards", "tohuwabohu", "--only", "cross-red", "--dpi", str(ART_DPI), "--no-sheet", "-o",
                 str(tmp_path / "cli")]) == 0
    assert np.array_equal(pixels(path), pixels(tmp_path / "cli" / "cross-red.png"))

    def never(*args, **kw):
        raise AssertionError("a kept card is drawn again")

    monkeypatch.setattr(art, "draw_cards", never)
    second = CardArt(tmp_path / "kept", mode="inline")
    assert second.picture("cross-red") == path and second.drawn == 0


def test_the_kept_file_names_everything_the_picture_depends_on(tmp_path, monkeypatch):
    a = art_path(tmp_path, "cross-red")
    assert a.name.startswith("cross-red-100-") and a == art_path(tmp_path, "cross-red")
    assert art_path(tmp_path, "cross-red", 150) != a and art_path(tmp_path, "cross-blue") != a
    monkeypatch.setattr(art, "ART_VERSION", art.ART_VERSION + 1)
    assert art_path(tmp_path, "cross-red") != a
    with pytest.raises(KeyError, match="no Tohuwabohu order card"):
        art_path(tmp_path, "cross-purple")


def test_the_cache_folder_and_a_switched_off_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TOWERLAB_CACHE", str(tmp_path / "c"))
    assert cards_folder() == tmp_path / "c" / "cards"
    monkeypatch.setenv("TOWERLAB_CACHE", "off")
    assert cards_folder() is None
    own = CardArt(mode="inline")
    assert own.folder.is_dir() and own.picture("figures-exactly-8") is not None
    own.close()
    assert not own.folder.exists()


def test_without_a_renderer_the_cards_are_not_drawn_and_the_reason_is_kept(tmp_path, monkeypatch):
    from sim.render.backend import RendererUnavailableError

    def unavailable(*args, **kw):
        raise RendererUnavailableError("no EGL and no software renderer")

    monkeypatch.setattr(art, "draw_cards", unavailable)
    a = CardArt(tmp_path, mode="inline")
    assert a.picture("cross-red") is None and "no EGL" in a.error and not a.busy
    assert a.picture("cross-green") is None and a.drawn == 0


def test_cards_are_drawn_in_a_worker_process_the_asked_ones_first(tmp_path):
    a = CardArt(tmp_path, mode="process")
    try:
        assert a.picture("tower-red") is None and a.busy  # being drawn: the window does not wait
        a.prefetch(["tower-green"])
        a.picture("tower-blue")
        deadline = time.monotonic() + 300
        while a.busy and time.monotonic() < deadline:
            a.poll()
            time.sleep(0.2)
        assert a.error is None and a.drawn == 3
        files = {c: a.picture(c) for c in ("tower-red", "tower-blue", "tower-green")}
        assert all(files.values())
        order = sorted(files, key=lambda c: files[c].stat().st_mtime_ns)
        assert order == ["tower-red", "tower-blue", "tower-green"]  # asked for first, the next card's last
    finally:
        a.close()


def test_closing_stops_a_drawing_under_way_at_once(tmp_path):
    a = CardArt(tmp_path, mode="process")
    assert a.picture("tower-red") is None and a.busy
    workers = list(a._pool._processes.values())
    assert workers and all(w.is_alive() for w in workers)  # starting up and drawing: seconds of work
    a.close()
    assert all(w.exitcode is not None for w in workers)  # stopped, not left for the interpreter's exit to wait on
    assert not list(tmp_path.glob("*.tmp"))  # nothing half-written


def test_the_tray_fits_the_window_four_professionals_included():
    import numpy as np_

    from sim.games.play.tohuwabohu import TohuwabohuSession
    from sim.viewer.window.play.tray import HEIGHT, fitted_height, tray_width

    four = tohuwabohu_cards(TohuwabohuSession(("a", "b", "c", "d"), np_.random.default_rng(3), variant="pro").view())
    room = 2.0 * 1280 / 800
    assert tray_width(four, HEIGHT["pro"]) > room  # too wide at its own height: the cards shrink
    h = fitted_height(four, HEIGHT["pro"], room)
    assert tray_width(four, h) == pytest.approx(room)  # edge to edge with its margins, not past the right edge
    two = tohuwabohu_cards(TohuwabohuSession(("a", "b"), np_.random.default_rng(3)).view())
    assert fitted_height(two, HEIGHT["basic"], room) == HEIGHT["basic"]  # room enough: as it is


def test_the_tray_shows_each_players_face_up_cards_and_pile():
    import numpy as np_

    from sim.games.play.tohuwabohu import TohuwabohuSession

    basic = TohuwabohuSession(("ann", "bob"), np_.random.default_rng(3)).view()
    groups = tohuwabohu_cards(basic)
    assert [g["name"] for g in groups] == ["ann", "bob"] and groups[0]["active"]
    assert len(groups[0]["cards"]) == 1 and groups[1]["cards"] == [] and groups[1]["pile"] == 18
    card = groups[0]["cards"][0]
    assert card["color"] in ("red", "green", "blue") and card["title"] and not card["fulfilled"]
    assert groups[0]["caption"] == "> ann: 17 in pile, 0 done"
    pro = TohuwabohuSession(("ann", "bob", "cy"), np_.random.default_rng(3), variant="pro").view()
    assert [len(g["cards"]) for g in tohuwabohu_cards(pro)] == [3, 3, 3]


def test_a_players_group_of_a_pile_alone_has_room_for_its_caption():
    """The README's picture cut 'bob: 18 in pile, 0 done' to 'bob: 18 in pil ...': his group held only his pile."""
    from sim.viewer.window.play.tray import CAPTION, CAPTION_EM, HEIGHT, group_width

    caption = "bob: 18 in pile, 0 done"
    pile_only = {"cards": [], "pile": 18, "caption": caption}
    assert group_width(pile_only, HEIGHT["basic"]) >= CAPTION_EM * CAPTION * len(caption)
    assert group_width(dict(pile_only, caption=""), HEIGHT["basic"]) < CAPTION_EM * CAPTION * len(caption)
