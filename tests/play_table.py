"""A table of still pieces for the play sessions' tests: the set-up's scene, the effects played on it, no physics.

Pieces stay exactly where an effect or a test puts them; a test says what the
physics would have seen (``knocked``, ``settled``) itself.
"""

from __future__ import annotations

from sim.games.play import session as play
from sim.scene import Scene


class StillTable:
    """What a session reads of the table (:class:`sim.games.play.session.Table`), on a scene that never moves.

    Args:
        scene: the set-up.
        supply: ids of the pieces waiting in the supply.
        judge: the verdict on the pieces built (``Scene -> Verdict``), or None.
    """

    def __init__(self, scene: Scene, supply, judge=None):
        self.scene0 = scene
        self.poses = {p.id: (*p.pos, *p.quat) for p in scene.pieces}
        self.homes = dict(self.poses)
        self._supply = set(supply)
        self.hands: dict[str, str] = {}
        self.players: dict[str, str] = {}  # hand -> whose it is
        self.picked_from: dict[str, tuple] = {}
        self.pinned: set[str] = set()
        self.set_aside: set[str] = set()
        self.judge = judge
        self.said: list[tuple[str, str]] = []
        self.seat = None

    # --- the Table protocol ---

    def scene(self) -> Scene:
        pieces = [p.moved(tuple(self.poses[p.id][:3]), tuple(self.poses[p.id][3:]))
                  for p in self.scene0.pieces if p.id not in self.set_aside]
        return self.scene0.with_pieces(pieces)

    @property
    def supply(self) -> frozenset[str]:
        return frozenset(self._supply)

    @property
    def carried(self):
        return dict(self.hands)

    def home(self, piece_id: str):
        return self.homes[piece_id]

    def in_play(self, piece_id: str) -> bool:
        return piece_id not in self._supply

    def verdict(self):
        if self.judge is None:
            return None
        built = self.scene()
        out = self._supply | set(self.hands.values())
        return self.judge(built.with_pieces(p for p in built.pieces if p.id not in out))

    # --- hands, as the viewer would use them ---

    def pick(self, session, piece: str, hand: str = "right", player: str | None = None) -> bool:
        """``player``'s hand (None: whose hands are at work) picks ``piece`` up, if the session lets it."""
        ok, effects = session.pick(piece, self, player)
        self.play(effects)
        if ok:
            self.hands[hand] = piece
            self.players[hand] = session.seat if player is None else player
            self.picked_from[piece] = self.poses[piece]
        return ok

    def drop(self, session, pose, hand: str = "right") -> bool:
        piece = self.hands[hand]
        player = self.players.pop(hand, None)
        player = None if player == session.seat else player
        ok, effects = session.drop(self.scene0.piece(piece).moved(pose[:3], pose[3:]), self, player)
        del self.hands[hand]
        if ok:
            self.poses[piece] = tuple(pose)
            self._supply.discard(piece)
        self.play(effects)
        return ok

    def place(self, session, piece: str, probe) -> bool:
        """Pick ``piece`` up and set it down where the piece ``probe`` stands: whether both were allowed."""
        return self.pick(session, piece) and self.drop(session, (*probe.pos, *probe.quat))

    def act(self, session, name: str, **args):
        self.play(session.act(name, args, self))

    def play(self, effects) -> None:
        """Carry out a session's effects."""
        for e in effects:
            if isinstance(e, play.Say):
                self.said.append((e.kind, e.text))
            elif isinstance(e, play.PutBack):
                self.poses[e.piece] = self.picked_from.get(e.piece, self.poses[e.piece])
            elif isinstance(e, play.Place):
                self.poses[e.piece] = e.pose
                self._supply.discard(e.piece)
            elif isinstance(e, play.Walk):
                self.poses[e.piece] = e.poses[-1]
                self._supply.discard(e.piece)
            elif isinstance(e, play.Pin):
                self.poses[e.piece] = e.pose
                self.pinned.add(e.piece)
            elif isinstance(e, play.Unpin):
                self.pinned.discard(e.piece)
                if e.home:
                    self.poses[e.piece] = self.homes[e.piece]
                    self._supply.add(e.piece)
                else:
                    self._supply.discard(e.piece)
            elif isinstance(e, play.ToSupply):
                for p in e.pieces:
                    self.poses[p] = self.homes[p]
                    self._supply.add(p)
            elif isinstance(e, play.SetAside):
                self.set_aside.update(e.pieces)
            elif isinstance(e, play.Clear):
                self.poses = dict(self.homes)
                self._supply = {p for p in self.homes if p not in self.set_aside}
                self.hands.clear()
            elif isinstance(e, play.EmptyHands):
                for h, p in list(self.hands.items()):
                    if e.player is None or self.players.get(h) == e.player:
                        self.poses[p] = self.picked_from.get(p, self.poses[p])
                        del self.hands[h]
            elif isinstance(e, play.Seat):
                self.seat = e.player
            else:
                raise AssertionError(f"an effect the still table does not know: {e!r}")

    def last(self, kind: str | None = None) -> str:
        """The last thing said (of ``kind``)."""
        return next(t for k, t in reversed(self.said) if kind is None or k == kind)


class LoadedDie:
    """A die that shows the given numbers (a ``numpy.random.Generator`` as far as the die asks of one)."""

    def __init__(self, rolls):
        self.rolls = list(rolls)

    def integers(self, lo, hi):
        return self.rolls.pop(0)


def step_actions(steps, place, pick=lambda piece: [{"action": "pick", "piece": piece}]) -> list[dict]:
    """The steps a planned game took on a still table as the viewer's actions: a game action as it is, a pick as
    ``pick(piece)``'s actions, a drop as ``place(piece, pose)``'s (turn it, carry it over its place, set it down).

    Args:
        steps: ``("act", name, args)``, ``("pick", piece)`` and ``("drop", piece, pose)``, in the order played.
    """
    out = []
    for step in steps:
        if step[0] == "act":
            out.append({"action": step[1], **step[2]})
        elif step[0] == "pick":
            out += pick(step[1])
        else:
            out += place(step[1], step[2])
    return out
