"""The live world's actions as data: what :meth:`~sim.physics.live.world.LiveWorld.apply` calls for each kind of
:class:`~sim.physics.live.records.WorldAction` (a recording's world actions are replayed through it)."""

from __future__ import annotations

from collections.abc import Callable

from sim.physics.live.hands import DEFAULT_STRENGTH
from sim.physics.live.records import WorldAction


def _add(world, a: WorldAction, args: dict) -> None:
    """An ``add``: the piece of the action's spec, at its pose (and velocity)."""
    from sim.scene import from_dict

    s = world.world.scene
    piece = from_dict({"format": "towerlab-scene/1", "game": s.game, "board": s.board,
                       "pieces": [args["spec"]]}, "<action>").pieces[0]
    world.add(piece.moved(args["pose"][:3], args["pose"][3:]), player=a.player, velocity=args.get("velocity"))


APPLY: dict[str, Callable[..., None]] = {
    "add": _add,
    "remove": lambda w, a, args: w.remove(a.piece, player=a.player),
    "set_pose": lambda w, a, args: w.set_pose(a.piece, args["pose"], player=a.player),
    "push": lambda w, a, args: w.push(a.piece, args["impulse"], args.get("point"), player=a.player),
    "grab": lambda w, a, args: w.grab(a.piece, a.hand or "right", args.get("target"),
                                      args.get("strength", DEFAULT_STRENGTH), player=a.player),
    "move_hand": lambda w, a, args: w.move_hand(a.hand, args["target"]),
    "release": lambda w, a, args: w.release(a.hand),
    "shake": lambda w, a, args: w.shake(args["amplitude"], args["frequency"], args.get("direction_deg", 0.0),
                                        args["seconds"], player=a.player),
    "pull": lambda w, a, args: w.pull(a.piece, args["point"], args["target"], args["stiffness"], args["limit"],
                                      player=a.player),
    "release_pull": lambda w, a, args: w.release_pull(a.piece, player=a.player),
}
"""What :meth:`LiveWorld.apply` does for each kind of :class:`WorldAction`: the method it calls with the action's
fields (a recording's world actions are replayed through it)."""
