"""The play mode in the window (Panda3D): the game panel, the die as it rolls, the selected pawn's routes,
Tohuwabohu's order cards (:mod:`.tray`), the legal places of a carried piece (:mod:`.draw_legal`).

Only the window imports this module. The panel's text is
:meth:`sim.viewer.play.mode.Referee.panel`; the routes are
:meth:`~sim.viewer.play.mode.Referee.routes`, drawn as lines from the pawn's
field up and down the levels it steps through, a ring on each spot it can
reach.
"""

from __future__ import annotations

import time

import numpy as np
from direct.gui.DirectGui import DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import LineSegs, NodePath, TextNode

from sim.render.graph import SHADOW_MASK
from sim.viewer.control.keys import Control
from sim.viewer.control.plugins import WindowPlugin
from sim.viewer.window import theme
from sim.viewer.window.layout import fit
from sim.viewer.window.play.draw_legal import LegalDrawing
from sim.viewer.window.play.pointing import PointingKeys

PANEL = theme.PANEL
TEXT = theme.TEXT
REFUSED = theme.ALERT
ROUTE = (1.0, 0.85, 0.15, 1.0)
SPOT = (0.15, 0.9, 0.35, 1.0)
SCALE = 0.036
ROLL_SECONDS = 0.8
"""How long the die is shown rolling before it shows the throw."""
WIDTH = 1.9
"""The panel's width at most (``aspect2d`` units); less in a narrow window (the overlay's :meth:`column`)."""
PAD = 0.03
REFRESH = 8.0
"""Times a second the panel asks the referee for its view."""
LIFT = 0.002
"""How far (m) the route lines float over the surfaces."""
READY_FRAMES = 3
"""Frames a window draws before it counts as ready for the game's clock (its first frames are on screen)."""
READY_LIMIT = 30.0
"""Wall seconds at most that the game's clock waits for the window's order cards to be drawn."""


class PlayDrawing:
    """The game panel (top left, under the status line) and the route marks of one window.

    Args:
        base: the ShowBase.
        mode: the :class:`~sim.viewer.play.mode.Referee`.
    """

    def __init__(self, base, mode):
        self.base = base
        self.mode = mode
        self.frame = DirectFrame(parent=base.a2dTopLeft, frameColor=PANEL, frameSize=(0.0, WIDTH, -0.5, 0.0),
                                 pos=(0.02, 0, -0.11), suppressMouse=0)  # a panel to read: clicks go through
        self.frame.set_tag("towerlab-panel", "game")
        self.text = OnscreenText(parent=self.frame, pos=(PAD, -0.05), scale=SCALE, fg=TEXT, align=TextNode.A_left,
                                 mayChange=True, text="")
        self._laid_out = None  # (text, top, room) the panel was last laid out for
        self.routes = route_node(base)
        self._rolled = 0
        self._rolling = 0.0
        self._since = 1.0
        self._shown_routes = None
        self._rng = np.random.default_rng()  # the rolling faces only: the throw itself is the referee's
        self.tray = None
        self._art_error = None
        self.legal = LegalDrawing(base, mode)
        if mode.session.game == "tohuwabohu":
            from sim.viewer.play.cards import CardArt
            from sim.viewer.window.play.tray import CardTray

            self.tray = CardTray(base, mode, CardArt())

    def update(self, seconds: float) -> None:
        """Redraw what changed (once a frame; the referee is asked at most :data:`REFRESH` times a second)."""
        self._since += seconds
        if self._since < 1.0 / REFRESH and self._rolling <= 0.0:
            return
        self._since = 0.0
        text = self.mode.panel()
        view = self.mode.view()
        if view["game"] == "talo":
            text = self._die(text, view, seconds)
        self._place(text)
        routes = self.mode.routes()
        if routes != self._shown_routes:
            self._draw_routes(routes)
            self._shown_routes = routes
        if self.tray is not None:
            self.tray.update()
            if self.tray.art.error and self.tray.art.error != self._art_error:
                self._art_error = self.tray.art.error
                self.mode.c.say(self._art_error, "error")

    def _place(self, text: str) -> None:
        """The panel under the status line, as wide as the room left of the stability panel, its text broken to
        that width; hidden while the help or a dialog shows."""
        overlay = self.base.overlay
        if overlay.modal:
            self.frame.hide()
            if self.tray is not None:
                self.tray.root.hide()
            return
        self.frame.show()
        if self.tray is not None:
            self.tray.root.show()
        top, room = overlay.column()
        key = (text, round(top, 4), round(room, 4))
        if key == self._laid_out:
            return
        self._laid_out = key
        width = min(WIDTH, room)
        lines = fit(text, width - 2 * PAD, lambda line: self.text.textNode.calc_width(line) * SCALE)
        self.text.setText("\n".join(lines))
        self.text.setFg(REFUSED if "REFUSED" in text else TEXT)
        self.frame.setPos(0.02, 0, top)
        line = self.text.textNode.get_line_height() * SCALE
        self.frame["frameSize"] = (0.0, width, -(0.05 + line * (len(lines) - 1) + 0.35 * line + 0.02), 0.0)

    def _die(self, text: str, view, seconds: float) -> str:
        """The die rolling for a moment after each throw (faces at random, for the eye), then the throw."""
        throws = view["throws"]
        if throws != self._rolled:
            self._rolled, self._rolling = throws, ROLL_SECONDS
        if self._rolling > 0.0:
            self._rolling -= seconds
            face = int(self._rng.integers(1, 11))
            return "\n".join(f"die: rolling ... {face}" if line.startswith("die:") else line
                             for line in text.split("\n"))
        return text

    def _draw_routes(self, routes) -> None:
        draw_routes(self.routes, routes)

    def destroy(self) -> None:
        self.frame.destroy()
        self.routes.remove_node()
        self.legal.destroy()
        if self.tray is not None:
            self.tray.destroy()


def route_node(base) -> NodePath:
    """The node the selected pawn's routes are drawn under: over everything, unlit, casting no shadow."""
    node = base.render.attach_new_node("play-routes")
    node.hide(SHADOW_MASK)
    node.set_light_off(1)
    node.set_bin("fixed", 45)
    node.set_depth_test(False)
    return node


def draw_routes(node: NodePath, routes) -> None:
    """Talo: the selected pawn's ``routes`` (world points of its feet, step by step:
    :func:`~sim.viewer.play.mode.talo_routes`) drawn under ``node`` as lines, a ring at each spot it can reach."""
    node.node().remove_all_children()
    if not routes:
        return
    segs = LineSegs("routes")
    segs.set_thickness(3.0)
    segs.set_color(*ROUTE)
    for route in routes:
        pts = [np.array(p) + [0.0, 0.0, LIFT] for p in route]
        segs.move_to(*pts[0])
        for a, b in zip(pts, pts[1:]):
            if abs(b[2] - a[2]) > 1e-6:  # a step up or down: over the edge between the fields
                mid = (a + b) / 2
                segs.draw_to(mid[0], mid[1], a[2])
                segs.draw_to(mid[0], mid[1], b[2])
            segs.draw_to(*b)
    rings = LineSegs("spots")
    rings.set_thickness(3.0)
    rings.set_color(*SPOT)
    for route in routes:
        x, y, z = route[-1]
        r = 0.007
        for k in range(17):
            a = 2 * np.pi * k / 16
            p = (x + r * np.cos(a), y + r * np.sin(a), z + LIFT)
            (rings.draw_to if k else rings.move_to)(*p)
    NodePath(segs.create()).reparent_to(node)
    NodePath(rings.create()).reparent_to(node)


class PlayWindow(PointingKeys, WindowPlugin):
    """The play mode's window plug-in: the game panel, the routes, the game's keys.

    Args:
        referee: the session's :class:`~sim.viewer.play.mode.Referee`.
    """

    def __init__(self, referee):
        self.referee = referee
        self.window = None
        self.drawing: PlayDrawing | None = None
        self.marked: list[str] = []  # Babylon: the nobles marked for the special move

    def attach(self, window) -> None:
        self.window = window
        self.drawing = PlayDrawing(window, self.referee)
        self.referee.legal.start()  # the legal moves worked out off the frame path
        self._first_frame: float | None = None
        if window.runner is None:  # a person plays: no turn runs out before its player sees the game
            self.referee.wait_for_window()

    def controls(self) -> tuple[Control, ...]:
        return self.game_controls() + (Control("F5", ("f5",), self.save_game, "save the game (towerlab play "
                                               "--resume FILE goes on with it)", "Game"),)

    def save_game(self, path=None) -> None:
        """Save the game to ``path`` (default: a new file in the current folder, said in the window); the
        in-window file list calls it with the file chosen."""
        self._act("save-game", path=None if path is None else str(path))

    def game_controls(self) -> tuple[Control, ...]:
        """The game's own keys."""
        game, variant = self.referee.session.game, self.referee.session.variant
        g = "Game"
        if game == "talo" and variant == "fantasy":
            return (Control("X", ("x",), lambda: self._act("throw"), "throw the die", g),
                    Control("G", ("g",), lambda: self._act("together"), "place the next two blocks together", g),
                    Control("Enter", ("enter",), lambda: self._act("end-turn"), "end the turn", g),
                    Control("End", ("end",), lambda: self._act("finish"), "the goal is reached: end the game", g))
        if game == "talo":
            return (Control("X", ("x",), lambda: self._act("throw"), "throw the die", g),
                    Control("G", ("g",), lambda: self._act("together"), "place the next two blocks together", g),
                    Control("V", ("v",), lambda: self._act("select-pawn"), "show where your pawn can go", g),
                    Control("M", ("m",), self._walk, "your pawn to the field under the cursor (start, walk, "
                                                     "restart)", g),
                    Control("Enter", ("enter",), lambda: self._act("end-turn"), "end the turn", g))
        if game == "tohuwabohu":
            if variant == "pro":
                return (Control("Tab", ("tab",), self._next_seat, "the next player's hands", g),
                        Control("Enter", ("enter",), lambda: self._act("stop"), "Stop! (claim your cards)", g),
                        Control("C", ("c",), lambda: self._act("continue"), "after a collapse: go on", g),
                        Control("X", ("x",), lambda: self._act("punish"), "after a collapse: punish", g))
            return (Control("O", ("o",), lambda: self._act("swap"), "swap your order card (once a turn)", g),)
        return (Control("Enter", ("enter",), lambda: self._act("end-turn"), "end the turn", g),
                Control("M", ("m",), self._mark_noble, "mark the noble under the cursor; two: the special move",
                        g),
                Control("U", ("u",), self._turn_tower, "turn the tower under the cursor (expert special move)", g),
                Control("B", ("b",), lambda: self._act("take-back"), "take this turn's pieces back", g))

    def frame(self, window, dt: float) -> None:
        self.drawing.update(dt)
        self.drawing.legal.update()
        self.referee.hold("a dialog", window.overlay.dialog is not None)
        clock = self.referee.session.view().get("clock") if self.referee.clock_stands() == "help" else None
        window.overlay.help_note(None if clock is None else f"the game's clock stands at {clock}")
        if self.referee.waiting and self.ready(window):
            self.referee.window_ready()

    def settled(self, window) -> bool:
        """The order cards it shows are drawn (or cannot be drawn here)."""
        return self.drawing.tray is None or self.drawing.tray.ready

    def ready(self, window) -> bool:
        """Whether the window is ready for the game's clock: its first :data:`READY_FRAMES` frames drawn and
        the order cards it shows drawn (at most :data:`READY_LIMIT` wall seconds after its first frame)."""
        now = time.monotonic()
        if self._first_frame is None:
            self._first_frame = now
        cards = self.settled(window) or now - self._first_frame >= READY_LIMIT
        return window.frames >= READY_FRAMES and cards

    def close(self, window) -> None:
        self.referee.legal.close()
        if self.drawing is not None:
            self.drawing.destroy()

    # --- keys ---

    def _act(self, name: str, **fields) -> None:
        from sim.errors import TowerlabError
        from sim.viewer.control.actions import action, specs_with

        c = self.window.controller
        try:
            c.apply(action(name, specs=specs_with(c.plugins), **fields))
        except TowerlabError as e:
            c.report(e)

    def _next_seat(self) -> None:
        players = self.referee.session.players
        seat = self.referee.session.seat
        self._act("seat", player=players[(players.index(seat) + 1) % len(players)])

    def pawn_view(self) -> dict:
        return self.referee.view()

    def grid(self):
        return self.referee.session.board.grid
