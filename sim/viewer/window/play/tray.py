"""Tohuwabohu's card tray in the window (Panda3D): each player's face-up order cards as ``towerlab cards`` draws
them, and the draw pile's back with its count, in a row at the lower left (over the hover panel).

Only the window imports this module. What it shows is
:func:`sim.viewer.play.panels.tohuwabohu_cards` of the referee's view; the
pictures come from :class:`sim.viewer.play.cards.CardArt` (drawn in a worker
process, kept on disk) and become textures once; a card still being drawn is
shown as its colour and title. A card the area fulfils at its last rest is
framed in green.
"""

from __future__ import annotations

from direct.gui.DirectGui import DirectFrame
from direct.gui.OnscreenImage import OnscreenImage
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import Filename, SamplerState, TextNode, Texture, TransparencyAttrib

from sim.pieces import dimensions as dim
from sim.viewer.play.panels import tohuwabohu_cards
from sim.viewer.window import theme
from sim.viewer.window.layout import fit

CARD_ASPECT = 63.0 / 88.0
"""A playing card's width over its height."""
HEIGHT = {"basic": 0.42, "pro": 0.28}
"""A card's height (the window's height is 2) before the tray is shrunk to fit the window's width."""
BOTTOM = 0.36
"""The tray's bottom edge over the window's: the hover panel below it (``sim.viewer.window.overlay``) stays free."""
MARGIN = 0.03
GAP = 0.02
GROUP_GAP = 0.07
CAPTION = 0.034
BACK = (0.16, 0.2, 0.32, 0.95)
TEXT = theme.TEXT
CAPTION_EM = 0.5
"""A caption letter's mean width over the text's scale (its caption still cut to what fits)."""
ACTIVE = theme.ACTIVE
FULFILLED = (0.15, 0.85, 0.3, 1.0)
SHADE = theme.PANEL


def group_width(g, h: float) -> float:
    """The width of one player's group of cards ``h`` high (the window's height is 2)."""
    w = h * CARD_ASPECT
    cards = len(g["cards"]) + (1 if g["pile"] else 0)
    back = w * 0.55 if g["pile"] else 0.0
    caption = CAPTION_EM * CAPTION * len(g.get("caption", ""))  # room for its caption, as the font's letters go
    return max(len(g["cards"]) * w + back + GAP * max(cards - 1, 0), 0.55 * h, caption)


def tray_width(groups, h: float) -> float:
    """The whole tray's width, margins and the gaps between groups included."""
    return sum(group_width(g, h) for g in groups) + GROUP_GAP * max(len(groups) - 1, 0) + 2 * MARGIN


def fitted_height(groups, h: float, room: float) -> float:
    """The cards' height: ``h``, or less so that the tray fits ``room`` wide (the gaps between cards and
    groups keep their size: only the cards shrink; a caption wider than its cards keeps its room until the
    cards outgrow it). The tray's width grows with the cards' height, piecewise linearly: the largest height
    that fits is found by bisection."""
    if tray_width(groups, h) <= room:
        return h
    lo, hi = 0.0, h
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if tray_width(groups, mid) <= room else (lo, mid)
    return lo


class CardTray:
    """The card tray of one window.

    Args:
        base: the ShowBase.
        referee: the play mode (its ``view()``).
        art: where the card pictures come from.
    """

    def __init__(self, base, referee, art):
        self.base = base
        self.referee = referee
        self.art = art
        self.root = base.a2dBottomLeft.attach_new_node("card-tray")
        self.root.set_transparency(TransparencyAttrib.M_alpha)
        self._shown = None
        self._textures: dict[str, Texture] = {}
        self.placed: list[dict] = []  # what is drawn where: {id, kind (card, drawing, back), x, y, w, h} (aspect2d)
        self.ready = False  # every card shown has its picture (or none can be drawn here)

    def update(self) -> None:
        """Redraw when what the tray shows changed (a card revealed, set aside, fulfilled, or its picture ready)."""
        groups = tohuwabohu_cards(self.referee.view())
        ready = tuple(self.art.picture(c["id"]) is not None for g in groups for c in g["cards"])
        self.art.prefetch(h.pile[0] for h in self.referee.session.state.hands if h.pile)
        key = (repr(groups), ready, self.art.error)
        self.ready = all(ready) or self.art.error is not None
        if key == self._shown:
            return
        self._shown = key
        self._draw(groups)

    def _draw(self, groups) -> None:
        self.root.node().remove_all_children()
        self.placed = []
        pro = self.referee.view()["variant"] == "pro"
        h = fitted_height(groups, HEIGHT["pro" if pro else "basic"], 2.0 * self.base.getAspectRatio())
        x = MARGIN
        for g in groups:
            self._group(g, x, h)
            x += group_width(g, h) + GROUP_GAP

    def _group(self, g, x0: float, h: float) -> None:
        w, y = h * CARD_ASPECT, BOTTOM
        width = group_width(g, h)
        shade = DirectFrame(parent=self.root, frameColor=SHADE, suppressMouse=0,
                            frameSize=(x0 - 0.012, x0 + width + 0.012, y - 0.012, y + h + CAPTION * 1.9))
        shade.set_tag("towerlab-panel", "tray")
        caption = OnscreenText(parent=self.root, text="", pos=(x0, y + h + CAPTION * 0.6), scale=CAPTION,
                               fg=ACTIVE if g["active"] else TEXT, align=TextNode.A_left, mayChange=True)
        caption.setText(fit(g["caption"], width, lambda s: caption.textNode.calc_width(s) * CAPTION, rows=1)[0])
        x = x0
        for c in g["cards"]:
            self._card(c, x, y, w, h)
            x += w + GAP
        if g["pile"]:
            bw, bh = w * 0.55, h * 0.55
            DirectFrame(parent=self.root, frameColor=BACK, frameSize=(x, x + bw, y, y + bh))
            OnscreenText(parent=self.root, text=f"{g['pile']}\nin pile", pos=(x + bw / 2, y + bh * 0.55),
                         scale=CAPTION * 0.9, fg=TEXT, align=TextNode.A_center, mayChange=False)
            self.placed.append({"id": None, "kind": "back", "x": x, "y": y, "w": bw, "h": bh})

    def _card(self, c, x: float, y: float, w: float, h: float) -> None:
        if c["fulfilled"]:
            b = 0.012
            DirectFrame(parent=self.root, frameColor=FULFILLED, frameSize=(x - b, x + w + b, y - b, y + h + b))
        path = self.art.picture(c["id"])
        if path is not None:
            image = OnscreenImage(image=self._texture(c["id"], path), parent=self.root,
                                  pos=(x + w / 2, 0, y + h / 2), scale=(w / 2, 1, h / 2))
            image.set_transparency(TransparencyAttrib.M_alpha)
            self.placed.append({"id": c["id"], "kind": "card", "x": x, "y": y, "w": w, "h": h})
            return
        colour = (*dim.COLORS[c["color"]][:3], 1.0)
        DirectFrame(parent=self.root, frameColor=colour, frameSize=(x, x + w, y, y + h))
        note = "(cannot be drawn here)" if self.art.error else "(drawing ...)"
        OnscreenText(parent=self.root, text=f"{c['title']}\n\n{note}", pos=(x + w / 2, y + h * 0.7),
                     scale=CAPTION * 0.85, fg=TEXT, bg=SHADE, align=TextNode.A_center,
                     wordwrap=w / (CAPTION * 0.85) * 0.9, mayChange=False)  # on a dark plate: any card colour
        self.placed.append({"id": c["id"], "kind": "drawing", "x": x, "y": y, "w": w, "h": h})

    def _texture(self, card: str, path) -> Texture:
        tex = self._textures.get(card)
        if tex is None:
            tex = Texture(card)
            tex.read(Filename.from_os_specific(str(path)))
            tex.set_minfilter(SamplerState.FT_linear_mipmap_linear)
            tex.set_magfilter(SamplerState.FT_linear)
            self._textures[card] = tex
        return tex

    def destroy(self) -> None:
        self.root.remove_node()
        self.art.close()
