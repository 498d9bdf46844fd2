"""Tohuwabohu's order cards for the game panel, drawn as ``towerlab cards`` draws them, once, and kept on disk.

A card is its colour frame, its title and its example construction rendered
offscreen (:func:`sim.render.cards.card_picture` and
:func:`~sim.games.tohuwabohu.illustrate.card_png`: the command's own drawing),
at :data:`ART_DPI`. Drawing one takes a second or two, so :class:`CardArt`
draws the cards a game shows in a worker process of its own, one at a time in
the order they are asked for, and keeps each as a PNG file in the cache folder
(``$TOWERLAB_CACHE/cards``, else ``~/.cache/towerlab/cards``); the file's name
holds a digest of everything the picture depends on (the card's scene file,
its title, the resolution, :data:`ART_VERSION`), so a later game shows it at
once and a changed card is drawn again. The window turns the files into
textures (:mod:`sim.viewer.window.play.tray`). Nothing here imports Panda3D; the
worker starts the offscreen renderer in its own process.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

ART_DPI = 100
"""Resolution of the panel's cards: 248 x 346 pixels, sharp at the size the panel shows them."""
ART_VERSION = 1
"""Changes whenever the drawing changes: every card kept on disk is drawn again."""


def cards_folder() -> Path | None:
    """Where drawn cards are kept: ``$TOWERLAB_CACHE/cards``, else the user cache folder (``$XDG_CACHE_HOME``
    or ``~/.cache``) ``/towerlab/cards``; None when the cache is switched off (``TOWERLAB_CACHE=off``)."""
    from sim.pieces.decompose import CACHE_ENV

    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip() in ("", "off") else Path(value).expanduser() / "cards"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "towerlab" / "cards"


@cache
def _faces() -> dict:
    from sim.games.tohuwabohu.illustrate import tohuwabohu_faces

    return {f.id: f for f in tohuwabohu_faces()}


def _face(card: str):
    if card not in _faces():
        raise KeyError(f"no Tohuwabohu order card {card!r}")
    return _faces()[card]


def art_path(folder: Path, card: str, dpi: int = ART_DPI) -> Path:
    """The file a card's picture is kept in: ``<card>-<dpi>-<digest>.png``.

    Raises:
        KeyError: no such card.
    """
    face = _face(card)
    digest = hashlib.sha256()
    for part in (face.scene.read_bytes(), face.title.encode(), face.label.encode(), str(face.frame).encode(),
                 str(dpi).encode(), str(ART_VERSION).encode()):
        digest.update(part)
        digest.update(b"\0")
    return Path(folder) / f"{card}-{dpi}-{digest.hexdigest()[:12]}.png"


def draw_cards(cards, folder, dpi: int = ART_DPI) -> list[str]:
    """Draw the cards not yet kept in ``folder`` (as ``towerlab cards`` does) and keep them there.

    Returns:
        The files, in the order of ``cards``.

    Raises:
        RendererUnavailableError: no offscreen renderer starts here.
    """
    from sim.atomic import write_bytes
    from sim.games.tohuwabohu.illustrate import card_png, load_face_scene, picture_size
    from sim.render import default_renderer
    from sim.render.cards import card_picture

    out = []
    for card in cards:
        path = art_path(Path(folder), card, dpi)
        if not path.is_file():
            face = _face(card)
            picture, _ = card_picture(default_renderer(), load_face_scene(face), picture_size(dpi=dpi))
            write_bytes(path, card_png(face, picture, dpi=dpi))
        out.append(str(path))
    return out


class CardArt:
    """The cards a game shows, drawn in the background (see the module docstring).

    Args:
        folder: where they are kept (default :func:`cards_folder`; a folder of the session's own, removed at
            :meth:`close`, when the cache is switched off).
        dpi: their resolution.
        mode: ``process`` (a worker process: the window never waits) or ``inline`` (drawn when asked: tests).

    Attributes:
        error: why cards cannot be drawn here (no offscreen renderer), once a drawing failed; else None.
    """

    def __init__(self, folder: Path | None = None, dpi: int = ART_DPI, mode: str = "process"):
        if mode not in ("process", "inline"):
            raise ValueError(f"mode must be process or inline, got {mode!r}")
        folder = folder if folder is not None else cards_folder()
        self._own = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="towerlab-cards-")) if folder is None else Path(folder)
        self.dpi = dpi
        self.mode = mode
        self.error: str | None = None
        self.drawn = 0  # cards this session drew (not found kept)
        self._paths: dict[str, Path] = {}
        self._asked: list[str] = []  # cards shown and not yet drawn, in the order asked for
        self._later: list[str] = []  # cards prefetched
        self._flight: tuple[str, object] | None = None  # the card being drawn, and its future
        self._pool = None

    def picture(self, card: str) -> Path | None:
        """The file of ``card``'s picture, or None while it is being drawn (it is then queued, before the cards
        only prefetched).

        Raises:
            KeyError: no such card.
        """
        path = self._path(card)
        if path.is_file():
            return path
        self._want(card, self._asked)
        self.poll()
        return path if path.is_file() else None

    def prefetch(self, cards) -> None:
        """Draw these cards too, after those asked for (the next card of each pile: shown at once when it is
        revealed); nothing is shown of them."""
        for card in cards:
            if not self._path(card).is_file():
                self._want(card, self._later)
        self.poll()

    def _want(self, card: str, queue: list) -> None:
        if self.error is not None or (self._flight is not None and self._flight[0] == card) or card in queue:
            return
        if card in self._later:
            self._later.remove(card)
        queue.append(card)

    def poll(self) -> None:
        """Collect a finished drawing and start the next (call it once a frame)."""
        if self._flight is not None and self._flight[1].done():
            card, future = self._flight
            self._flight = None
            self._finished(card, future.exception())
        queue = self._asked or self._later
        if self._flight is not None or not queue or self.error is not None:
            return
        card = queue.pop(0)
        if self.mode == "inline":
            try:
                draw_cards([card], self.folder, self.dpi)
                self._finished(card, None)
            except Exception as e:  # noqa: BLE001 - the panel says why and shows the titles instead
                self._finished(card, e)
            return
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor
            from multiprocessing import get_context

            # spawn: no fork of a process with a window and its threads
            self._pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
        self._flight = (card, self._pool.submit(draw_cards, [card], str(self.folder), self.dpi))

    def _path(self, card: str) -> Path:
        if card not in self._paths:
            self._paths[card] = art_path(self.folder, card, self.dpi)
        return self._paths[card]

    def _finished(self, card: str, error: BaseException | None) -> None:
        if error is None:
            self.drawn += 1
        else:
            self.error = f"the order cards cannot be drawn here ({error.__class__.__name__}: {error})"
            self._asked.clear()
            self._later.clear()

    @property
    def busy(self) -> bool:
        """A card is being drawn or waits to be."""
        return self._flight is not None or bool(self._asked or self._later)

    def close(self) -> None:
        """Stop the worker at once (a card being drawn is dropped: its file is written atomically, so none is
        left half-drawn) and remove a folder of the session's own. Closing a window never waits for a card."""
        if self._pool is not None:
            workers = list(getattr(self._pool, "_processes", {}).values())  # the executor has no public handle
            self._pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:  # else the interpreter's exit waits for the drawing under way
                worker.terminate()
            for worker in workers:
                worker.join(5.0)
            for left in self.folder.glob(".*.tmp"):  # the temporary file of a drawing stopped mid-write
                left.unlink(missing_ok=True)
            self._pool = None
        if self._own:
            shutil.rmtree(self.folder, ignore_errors=True)


__all__ = ["ART_DPI", "ART_VERSION", "CardArt", "art_path", "cards_folder", "draw_cards"]
