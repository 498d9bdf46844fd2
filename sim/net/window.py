"""The viewer as a client of a served table: ``towerlab play --join LINK`` / ``--watch LINK`` with a display.

The window is the viewer's own (:class:`~sim.viewer.window.build.ViewerWindow`) on a controller of its own, through
two small seams and nothing else of the viewer changed:

* :class:`NetWorld`, the controller's world: a :class:`~sim.viewer.control.posed.PosedWorld` whose poses are the
  server's, as its client last got them, but for the pieces the window's own hands carry, which go where the
  hand sends them at once (local hand prediction: the carry, its snapping and its ghost are the viewer's own
  code) and settle to the server's pose once the hand lets go;
* :class:`NetSeat`, a session plug-in, the action sink: every action of the table the window does (pick,
  move-to, drop, rotate, poke, pull, the game's keys ...) is sent to the server as it is done; the server is
  the only judge: a refusal is said in the window (the server's words) and a carry it refused is put back at
  once. What the server says (turns, verdicts, collapses, refusals) is said in the window as the server says
  it.

A spectator's window refuses every table action (``spectators watch``). :class:`NetPanel` shows the game panel
from the server's state (:func:`sim.viewer.play.panels.panel_lines`, the play window's own text) and binds the
game's keys that take no place on the table (throw, end the turn, stop, swap ...).
"""

from __future__ import annotations

import asyncio
import queue
import threading

import numpy as np

from sim.net.client import Client
from sim.net.links import Link
from sim.net.table import HANDS_ACTIONS, TAKE_ACTIONS, own_hand
from sim.viewer.control.live import Advance
from sim.viewer.control.plugins import SessionPlugin, WindowPlugin
from sim.viewer.control.posed import PosedWorld
from sim.viewer.window.play.pointing import PointingKeys

GAME_KEYS = {"throw": ("X", "x"), "together": ("G", "g"), "end-turn": ("Enter", "enter"), "finish": ("End", "end"),
             "swap": ("O", "o"), "stop": ("Enter", "enter"), "continue": ("C", "c"), "punish": ("X", "x"),
             "done": ("End", "end"), "take-back": ("B", "b"), "next-round": ("N", "n")}
"""The game's keys that take no place on the table, as the play window binds them (docs/play.md)."""
PLACE_KEYS = {"select-pawn": ("V", "v", "show where your pawn can go"),
              "move-pawn": ("M", "m", "your pawn to the field under the cursor (start, walk, restart)"),
              "swap-nobles": ("M", "m", "mark the noble under the cursor; two: the special move"),
              "turn-tower": ("U", "u", "turn the tower under the cursor (expert special move)")}
"""The game's keys that point at the table (or show on it), as the play window binds them."""
TABLE_ACTIONS = HANDS_ACTIONS | TAKE_ACTIONS
"""The viewer's actions sent to the server."""


class ClientThread:
    """A :class:`~sim.net.client.Client` on an event loop of its own thread, for a window's thread to use."""

    def __init__(self, link: Link, name: str = "towerlab play --join"):
        self.client = Client(link, name=name, legal=True)  # its window rings where a carried piece may go
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="towerlab-client", daemon=True)
        self._thread.start()

    def call(self, coro, timeout: float | None = None):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def join(self, timeout: float = 20.0) -> dict:
        """Join the table (raises :class:`~sim.net.client.JoinError`) and wait for its first keyframe."""
        welcome = self.call(self.client.join(timeout), timeout + 5)
        self.call(self.client.wait_for(lambda c: c.frame >= 0 and bool(c.state), timeout), timeout + 5)
        return welcome

    def send(self, action: dict, answered) -> None:
        """Send an action; ``answered(answer)`` is called on the client's thread when it is answered."""
        async def go():
            answered(await self.client.send(action))
        asyncio.run_coroutine_threadsafe(go(), self.loop)

    def close(self) -> None:
        try:
            self.call(self.client.close(), 10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)


class NetWorld(PosedWorld):
    """The server's poses, with the window's own carries predicted (see the module docstring).

    Args:
        scene: the table's set-up (the pieces' shapes; the server's keyframe gives their poses).
        client: the window's client.
    """

    def __init__(self, scene, client: Client):
        super().__init__(scene)
        self.client = client
        self._held: dict[str, str] = {}  # hand -> piece, the window's own carries
        self._aim: dict[str, np.ndarray] = {}  # piece -> where its hand holds it (7,)
        self._lifted: dict[str, np.ndarray] = {}  # piece -> the pose it is about to be taken at, this frame
        self.refresh()

    def refresh(self) -> None:
        """Show the server's latest poses (the window's carried pieces where their hands are)."""
        self._lifted.clear()
        latest = self.client.latest
        if latest is None:
            return
        frame, t, numbers, poses = latest
        ids = [self.client.pieces[n] for n in numbers.tolist()]
        poses = poses.copy()
        for k, pid in enumerate(ids):
            if pid in self._aim:
                poses[k] = self._aim[pid]
        self.show(t, ids, poses)

    # the hands: predicted here, done by the server
    def grab(self, hand: str, piece_id: str, force_limit: float | None = None) -> None:
        lifted = self._lifted.pop(piece_id, None)  # a pick lifts the piece clear of what it stands on first
        self._held[hand] = piece_id
        self._aim[piece_id] = self.pose(piece_id) if lifted is None else lifted

    def pose(self, piece_id: str) -> np.ndarray:
        """A piece's pose: where the window's own hand holds it, else the server's."""
        aim = self._aim.get(piece_id)
        return super().pose(piece_id) if aim is None else aim.copy()

    def move_hand(self, hand: str, target) -> None:
        piece = self._held.get(hand)
        if piece is not None:
            self._aim[piece] = np.asarray(target, dtype=float).reshape(7).copy()

    def release(self, hand: str, pose=None) -> None:
        piece = self._held.pop(hand, None)
        self._aim.pop(piece, None)

    def held(self) -> dict[str, str]:
        return dict(self._held)

    def set_pose(self, piece_id: str, pose) -> None:
        """A pose the controller gives a piece: the server gives it too (its action is sent). The pick's lift,
        just before the hand takes the piece, is where the window's own carry starts (as the server's does)."""
        if piece_id in self._aim:
            self._aim[piece_id] = np.asarray(pose, dtype=float).reshape(7).copy()
        else:
            self._lifted[piece_id] = np.asarray(pose, dtype=float).reshape(7).copy()

    def push(self, piece_id: str, point, impulse) -> None:
        """The server pushes (the poke is sent)."""

    def pull(self, piece_id: str, target, point=None, stiffness=None, limit=None) -> None:
        """The server pulls (the pull is sent)."""

    def release_pull(self, piece_id: str) -> None:
        """The server lets go."""

    def advance(self, seconds: float, budget: float | None = None) -> Advance:
        self.refresh()
        return Advance(0, float(seconds), 0.0, 1.0)

    def ray_tests(self, starts, ends) -> list:
        """:meth:`PosedWorld.ray_test` of every segment, all pieces at once (a carry's plan casts some 64 a
        frame over a Babylon table's 123 pieces: one by one, a second a frame), at each piece's convex parts as
        the live world's collision shapes have them (:mod:`sim.net.rays`), and at the ground as the live world
        has it: the board's slab (``board``, its top at z = 0) and the endless table under it (``table``), so
        that the window's own carry rests on what the server's would."""
        from sim.net.rays import cast
        from sim.viewer.control.posed import PosedHit

        names, at = self._placed()
        starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
        out = []
        for (start, end), hit in zip(zip(starts, ends), cast(at, starts, ends)):
            if hit is None:
                out.append(None)
                continue
            k, t, normal = hit
            out.append(PosedHit(names[k], start + (end - start) * t, normal, float(t * np.linalg.norm(end - start))))
        return out

    def _ground(self):
        """The board's slab and the table (ids, origins, parts), as the live world builds them (sim.physics.world:
        the table's top at z = -thickness, the board's slab on it, its top at z = 0)."""
        if getattr(self, "_grounds", None) is None:
            from sim.geometry.solids import box
            from sim.names import BOARD, TABLE

            board = self._scene0.board_info
            far = 1e3  # the endless table: a slab wider than any ray the viewer casts
            ids, at, parts = [TABLE], [[0.0, 0.0, -board.thickness]], [[box([-far, -far, -1.0], [far, far, 0.0])]]
            if board.shape is not None:
                ids.append(BOARD)
                at.append(list(board.pos))
                parts.append([p.vertices for p in board.shape.parts])
            self._grounds = (ids, np.array(at, dtype=float), parts)
        return self._grounds[:2]

    def ray_test(self, start, end):
        return self.ray_tests([start], [end])[0]

    def _placed(self):
        """The bodies' names and their convex parts' faces where they are now (:func:`sim.net.rays.placed`): the
        faces kept while the pieces present are the same, their places while the poses are."""
        from sim.geometry.transforms import quat_to_matrix
        from sim.net.rays import faces_of, placed

        ids, poses = self._ids, self._poses
        ground, at = self._ground()
        key = tuple(ids)
        if getattr(self, "_faces_key", None) != key:
            parts = [[p.vertices for p in self._pieces[i].shape.parts] for i in ids]
            self._faces_of, self._faces_key, self._placed_key = faces_of([*parts, *self._grounds[2]]), key, None
        bits = poses.tobytes()
        if self._placed_key != bits:
            rot = np.stack([quat_to_matrix(q) for q in poses[:, 3:]]) if ids else np.zeros((0, 3, 3))
            rot = np.concatenate([rot, np.tile(np.eye(3), (len(ground), 1, 1))])
            self._placed_at = placed(self._faces_of, rot, np.concatenate([poses[:, :3].reshape(-1, 3), at]))
            self._placed_key = bits
        return [*ids, *ground], self._placed_at


class NetSeat(SessionPlugin):
    """The action sink (see the module docstring).

    Args:
        remote: the window's :class:`ClientThread`.
        actions: the game's own actions (their fields), sent as they are done.
        own_hands: where everyone builds at once (each seat with hands of its own at the table), the window's hand
            actions name the seat's own hands (``hand: SEAT``; the window's ``left`` is ``SEAT-left``); else they go
            as the window names them.
    """

    name = "network"

    def __init__(self, remote: ClientThread, actions: dict, own_hands: bool = False):
        self.remote = remote
        self.client = remote.client
        self.actions = dict(actions)
        self.seat = self.client.welcome["seat"]
        self.own_hands = own_hands and self.seat is not None
        self.answers: queue.SimpleQueue = queue.SimpleQueue()
        self.sent = 0
        self.answered = 0  # answers to this window's own actions (the welcome also repeats the seat's earlier ones)
        self._answer_frame = -1  # the server's frame at the last of them
        self.refused: list[dict] = []
        self._said = 0

    def check(self, controller, action) -> str | None:
        name = action.name
        if name in TABLE_ACTIONS or name in self.actions:
            if self.seat is None:
                return "a spectator watches: the table's pieces are the players'"
            return None
        from sim.net.table import _TABLE_ONLY

        if name in _TABLE_ONLY:
            return f"{name!r} is the table's (the server's), not a seat's"
        return None

    def perform(self, controller, action) -> None:
        self._send(action)

    def applied(self, controller, action) -> None:
        if action.name in TABLE_ACTIONS and not (self.own_hands and action.name == "hand"):
            self._send(action)  # (with hands per seat, each action names its hand: the switch stays in the window)

    def _send(self, action) -> None:
        data = action.to_json()
        if self.own_hands and "hand" in action.args:
            data["hand"] = own_hand(self.seat, action["hand"])
        self.sent += 1
        self.remote.send(data, lambda a, name=action.name: self.answers.put((name, a)))

    def tick(self, controller, dt: float) -> None:
        said = self.client.said
        for m in said[self._said:]:  # what the table says, as it says it
            controller.say(m.get("text", ""), m.get("kind", "info"))
        self._said = len(said)
        while True:
            try:
                name, answer = self.answers.get_nowait()
            except queue.Empty:
                break
            self.answered += 1
            self._answer_frame = max(self._answer_frame, answer.get("frame", -1))
            if not answer["ok"]:
                self.refused.append({"action": name, **answer})
                if not answer.get("played"):  # the game never heard it: say why here
                    controller.say(answer.get("reason", ""), "refused")
                if name in TAKE_ACTIONS:
                    for hand in list(controller.hands):
                        controller.put_back(hand)
        hands = {h: v for h, v in ((self.client.state or {}).get("hands") or {}).items()
                 if not self.own_hands or (isinstance(v, dict) and v.get("player") == self.seat)}  # the seat's own
        if controller.hands and not hands and self.answers.empty() and self._settled():
            for hand in list(controller.hands):  # the server put the carry back (a turn ran out, a refusal)
                if controller.hands[hand].lowering is None:
                    controller.put_back(hand)

    def _settled(self) -> bool:
        """Every action this window sent has its answer, and the server's state is newer than the last of them (the
        answers the welcome repeats from the seat's earlier connections are not this window's)."""
        return self.answered >= self.sent and self.client.state.get("frame", -1) > self._answer_frame

    def probe(self) -> dict:
        """What a window test reads: the seat, the server's frame, what was sent and refused, the game's state."""
        c = self.client

        return {"seat": self.seat, "frame": c.frame, "connected": c.connected, "sent": self.sent,
                "answered": self.answered, "refused": self.refused[-5:], "current": c.state.get("current"),
                "stands": c.state.get("stands"), "server_hands": c.state.get("hands")}


class NetPanel(PointingKeys, WindowPlugin):
    """The game panel from the server's state, and the game's keys (see the module docstring)."""

    def __init__(self, seat: NetSeat, controller, session=None):
        self.seat = seat
        self.controller = controller
        board = getattr(session, "board", None) if session is not None and session.game == "talo" else None
        self._grid = None if board is None else board.grid  # Talo's fields (Talo-Fantasy has none)
        self.text = None
        self._shown = None
        self.window = None
        self.routes = None  # Talo: where the selected pawn can go, as the server's view says
        self._shown_routes = None
        self.marked: list[str] = []  # Babylon: the nobles marked for the special move

    def attach(self, window) -> None:
        from direct.gui.DirectGui import DirectFrame
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        from sim.viewer.window.play.draw import PAD, PANEL, SCALE, TEXT, WIDTH

        self.box = DirectFrame(parent=window.a2dTopLeft, frameColor=PANEL, frameSize=(0.0, WIDTH, -0.5, 0.0),
                                 pos=(0.02, 0, -0.12))
        self.box.set_tag("towerlab-panel", "game")
        self.text = OnscreenText(parent=self.box, pos=(PAD, -0.05), scale=SCALE, fg=TEXT, align=TextNode.A_left,
                                 mayChange=True, wordwrap=WIDTH / SCALE - 1.0)
        self.window = window
        if self._grid is not None:
            from sim.viewer.window.play.draw import route_node

            self.routes = route_node(window)

    def controls(self):
        from sim.viewer.control.keys import Control

        out, taken = [], set()
        for name in self.seat.actions:
            key = GAME_KEYS.get(name)
            if key is None or key[1] in taken:
                continue
            taken.add(key[1])
            out.append(Control(key[0], (key[1],), lambda name=name: self._act(name), name.replace("-", " "), "Game"))
        pointing = {"select-pawn": lambda: self._act("select-pawn"), "move-pawn": self._walk,
                    "swap-nobles": self._mark_noble, "turn-tower": self._turn_tower}
        for name, (label, key, what) in PLACE_KEYS.items():
            if name in self.seat.actions and key not in taken and (name != "move-pawn" or self._grid is not None):
                taken.add(key)
                out.append(Control(label, (key,), pointing[name], what, "Game"))
        return tuple(out)

    def _act(self, name: str, **fields) -> None:
        from sim.viewer.control.actions import ActionError, action

        try:
            self.controller.apply(action({"action": name, **fields}, "", {name: self.seat.actions[name]}))
        except ActionError as e:
            self.controller.report(e)

    def pawn_view(self) -> dict | None:
        return (self.seat.client.state or {}).get("view")

    def grid(self):
        return self._grid

    def frame(self, window, dt: float) -> None:
        c = self.seat.client
        state = c.state or {}
        if self.routes is not None and "view" in state:
            from sim.viewer.play.mode import talo_routes
            from sim.viewer.window.play.draw import draw_routes

            routes = talo_routes(state["view"], self._grid)
            if routes != self._shown_routes:
                draw_routes(self.routes, routes)
                self._shown_routes = routes
        refusal = self.seat.refused[-1] if self.seat.refused else None
        key = (state.get("frame"), len(self.seat.refused), c.connected, c.failed is not None)
        if key == self._shown or "view" not in state:
            return
        self._shown = key
        from sim.viewer.play.panels import panel_lines

        who = f"{self.seat.seat}'s seat" if self.seat.seat else "watching"
        link = "" if c.connected else "   (connection lost: coming back ...)" if c.failed is None else \
            f"   (the table cannot be joined again: {c.failed})"
        lines = [f"{who} at {c.link.address}{link}"]
        lines += panel_lines(state["view"], None if refusal is None else
                             {"rule": refusal.get("rule"), "reason": refusal.get("reason")})[:-1]  # not hot seat keys
        keys = "  |  ".join(f"{k.keys} {k.help}" for k in self.controls())
        if keys:
            lines.append(keys)
        self.text.setText("\n".join(lines))
        from sim.viewer.window.play.draw import SCALE, WIDTH

        rows = sum(1 + len(line) // int(2 * (WIDTH / SCALE - 1)) for line in lines)  # wrapped lines, roughly
        self.box["frameSize"] = (0.0, WIDTH, -(0.07 + 1.1 * SCALE * rows), 0.0)


def run_client_window(link: Link, actions_path, screenshot, exit_after: bool, size) -> int:
    """The window on the table (see the module docstring): its exit code.

    Raises:
        JoinError: the table could not be joined (before any window opens).
    """
    from sim.net.joining import game_specs
    from sim.net.legal import NetLegal, NetLegalDrawing
    from sim.viewer.control.actions import load_actions
    from sim.viewer.control.controller import Controller
    from sim.viewer.window.build import run_window

    remote = ClientThread(link)
    try:
        welcome = remote.join()
        specs, game = game_specs(welcome)
        from sim.viewer.play.actions import specs_of

        own = {k: v for k, v in specs_of(game.session).items() if k != "save-game"}
        seat = NetSeat(remote, own, own_hands=game.session.simultaneous)
        legal = NetLegal(remote.client, game.scene, welcome["seat"], game.session.simultaneous)
        script = load_actions(actions_path, specs) if actions_path is not None else None
        controller = Controller(game.scene, world_factory=lambda s: NetWorld(s, remote.client), threaded=False,
                                size=size, supply=game.supply, plugins=[seat, legal], player=welcome["seat"])
        controller.toggles.stability = False  # the server's statics judge; their verdict is not on the wire
        who = welcome["seat"] or "spectator"
        title = f"towerlab play: {welcome['game']} ({welcome['variant']}) at {link.address}, {who}"
        return run_window(controller, title, script, screenshot, exit_after,
                          plugins=[NetPanel(seat, controller, game.session), NetLegalDrawing(legal)],
                          window_picture=True)
    finally:
        remote.close()


__all__ = ["ClientThread", "NetPanel", "NetSeat", "NetWorld", "run_client_window"]
