"""The game's keys that point at the table: Talo's pawn sent to the field under the cursor, Babylon's nobles
marked and towers turned under it. One behaviour for the play window and a served table's window: each says how
it reads the game (:meth:`PointingKeys.pawn_view`, :meth:`PointingKeys.grid`) and how it acts (``_act``)."""

from __future__ import annotations


class PointingKeys:
    """Mixed into a window plug-in that has ``window`` (the viewer's window, once attached) and
    ``_act(name, **fields)`` (the game's action, done or sent)."""

    window = None
    marked: list[str]

    def pawn_view(self) -> dict | None:
        """The game's view (the session's ``view()``) a pawn's move is chosen from (None: not known yet)."""
        raise NotImplementedError

    def grid(self):
        """Talo's board grid."""
        raise NotImplementedError

    def _pixel(self):
        w = self.window
        if w is None or not w.mouseWatcherNode.has_mouse():
            return None
        m = w.mouseWatcherNode.get_mouse()
        width, height = w.controller.camera.size
        return (float(m.x) + 1.0) * width / 2.0, (1.0 - float(m.y)) * height / 2.0

    def _walk(self) -> None:
        """Talo's M: the pawn to the field under the cursor (its start, a walk, a restart)."""
        from sim.viewer.play.mode import pawn_move, talo_spot

        px = self._pixel()
        spot = None if px is None else talo_spot(self.grid(), self.window.controller.surface_at(*px))
        view = self.pawn_view()
        if spot is None or not view:
            self.window.controller.say("point at a field of the board", "error")
            return
        name, fields = pawn_move(view, spot)
        self._act(name, **fields)

    def _under_cursor(self) -> str | None:
        px = self._pixel()
        return None if px is None else self.window.controller.piece_at(*px)

    def _mark_noble(self) -> None:
        """Babylon's M: mark a noble; the second one marked makes the special move (the two swapped)."""
        c = self.window.controller
        piece = self._under_cursor()
        if piece is None or "noble" not in c.world.piece(piece).kind:
            c.say("point at a noble to mark it for the special move", "error")
            return
        self.marked = [p for p in self.marked if p != piece][-1:] + [piece]
        if len(self.marked) == 2:
            nobles, self.marked = self.marked, []
            self._act("swap-nobles", nobles=nobles)
        else:
            c.say(f"{piece} marked: mark the noble it swaps with (M)")

    def _turn_tower(self) -> None:
        """Babylon's U (the expert game's special move): turn the tower under the cursor."""
        piece = self._under_cursor()
        if piece is None:
            self.window.controller.say("point at a tower to turn it", "error")
            return
        self._act("turn-tower", piece=piece)
