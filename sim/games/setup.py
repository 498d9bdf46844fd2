"""A game set up on the table as its rulebook says: the board and, beside it, the supply.

Rulebook readings (../shared/rules):

- **Talo**: the board in the middle, a stock board on its left and one on its
  right, each length's blocks together on them. Here the short blocks (1–5)
  lie on the left, each length in a row of its own, lengthwise front to back
  and sorted from the front; the long ones (6–10) on the right, lying
  crosswise, one length a row, shortest in front. The six pawns wait in front
  of the board (each player puts one on a start field).
- **Tohuwabohu**: the playing area in the middle, every brick, arch, level and
  figure spread around it, evenly and at random: round the four sides in turn,
  with a seeded shuffle, the big level plates outside the smaller pieces.
- **Babylon**: each player takes their colour's nobles and their share of
  towers and bridges (the allotment of the game played, tactical or fast, for
  the number of players; they differ with five); each
  player's supply lies in front of their seat, towers, then bridges, then
  nobles, from the table's edge inwards.
- **free**: the endless table, nothing on it (pieces come from ``add``).

Pure: scenes only, no engine. The same game and seed give the same scene.
"""

from __future__ import annotations

import numpy as np

from sim.errors import TowerlabError
from sim.geometry.transforms import euler_to_quat
from sim.pieces import board as catalogue_board
from sim.pieces import dimensions as dim
from sim.scene import Piece, Scene

GAMES = ("tohuwabohu", "talo", "babylon", "free")
GAP = 0.004
"""Space (m) between neighbouring supply pieces."""
DEFAULT_PLAYERS = {"babylon": ("blue", "yellow", "green")}
MM = 1e-3


class SetupError(TowerlabError):
    """A game or player list the set-up does not know."""


def setup(game: str, players=None, seed: int = 0, mode: str = "tactical") -> Scene:
    """The board of ``game`` and its supply beside it, as the rulebook sets the game up.

    Args:
        game: ``tohuwabohu``, ``talo``, ``babylon`` or ``free``.
        players: player colours (Babylon; default three players), in seat order.
        seed: the shuffle of Tohuwabohu's pieces around the area.
        mode: Babylon's game, ``tactical`` or ``fast`` (the pieces each player gets).

    Raises:
        SetupError: an unknown game, or players the game does not allow.
    """
    if game == "talo":
        return _talo()
    if game == "tohuwabohu":
        return _tohuwabohu(np.random.default_rng(seed))
    if game == "babylon":
        return _babylon(tuple(players or DEFAULT_PLAYERS["babylon"]), mode)
    if game == "free":
        return Scene("free", "table", (), title="The table")
    raise SetupError(f"--game: expected one of {', '.join(GAMES)}, got {game!r}")


def _on(kind: str, params: dict, pid: str, x: float, y: float, floor: float, rot=(0.0, 0.0, 0.0), **extra) -> Piece:
    """A piece resting on the surface at height ``floor`` (m), its centre over (x, y), turned by ``rot`` (deg)."""
    from scipy.spatial.transform import Rotation

    probe = Piece(pid, kind, params)
    quat = tuple(float(q) for q in euler_to_quat(rot))
    low = Rotation.from_quat(quat).apply(probe.shape.vertices)[:, 2].min()
    return Piece(pid, kind, params, (float(x), float(y), float(floor - low)), quat, **extra)


def _talo() -> Scene:
    board = catalogue_board("talo-green")
    floor = -board.thickness  # the table around the board
    half = board.shape.extent[0] / 2
    u = dim.TALO_UNIT * MM
    pieces = []
    y = -0.17
    for n in range(1, 6):  # left: lengthwise, one length a row
        count = dim.TALO_COUNT[n]
        for k in range(count):
            x = -half - 0.03 - (count - 1 - k) * (u + GAP) - u / 2
            pieces.append(_on("talo.block", {"length": n}, f"b{n}-{k + 1}", x, y + n * u / 2, floor, (0, 0, 90)))
        y += n * u + 0.012
    y = -0.17
    for n in range(6, 11):  # right: crosswise, one length a row
        count = dim.TALO_COUNT[n]
        for k in range(count):
            pieces.append(_on("talo.block", {"length": n}, f"b{n}-{k + 1}", half + 0.03 + n * u / 2,
                              y + k * (u + GAP) + u / 2, floor))
        y += count * (u + GAP) + 0.012
    for k, color in enumerate(dim.TALO_PAWN_COLORS):
        pieces.append(_on("talo.pawn", {"color": color}, f"pawn-{color}", (k - 2.5) * 0.03, -half - 0.035, floor))
    return Scene("talo", "talo-green", tuple(pieces), title="Talo: the board and the stock")


def _tohuwabohu(rng: np.random.Generator) -> Scene:
    board = catalogue_board("tohuwabohu-area")
    floor = -board.thickness
    half = board.shape.extent[0] / 2
    small, levels = [], []
    for key, count in dim.TOHU_BOX.items():
        for k in range(count):
            if key[0] == "brick":
                small.append(("tohuwabohu.brick", {"size": key[1], "color": key[2]}, f"{key[1]}-{key[2]}-{k + 1}"))
            elif key[0] == "arch":
                small.append(("tohuwabohu.arch", {}, f"arch-{k + 1}"))
            elif key[0] == "figure":
                small.append(("tohuwabohu.figure", {"color": key[1]}, f"figure-{key[1]}-{k + 1}"))
            else:
                levels.append(("tohuwabohu.level", {"shape": key[1]}, f"level-{key[1]}-{k + 1}"))
    pieces = []
    for ring, items, span in ((half + 0.05, small, 2 * half), (half + 0.17, levels, 2 * half + 0.12)):
        order = rng.permutation(len(items))
        sides: list[list] = [[] for _ in range(4)]
        for k, i in enumerate(order):
            sides[k % 4].append(items[i])
        for s, row in enumerate(sides):
            angle = 90.0 * s - 90.0  # the front side first, then anticlockwise
            for k, (kind, params, pid) in enumerate(row):
                along = -span / 2 + (k + 0.5) * span / len(row) + rng.uniform(-0.002, 0.002)
                a = np.radians(angle)
                x = ring * np.cos(a) - along * np.sin(a)
                y = ring * np.sin(a) + along * np.cos(a)
                spin = angle + (0.0 if kind == "tohuwabohu.level" else rng.uniform(-5.0, 5.0))  # pointing outwards
                pieces.append(_on(kind, params, pid, x, y, floor, (0.0, 0.0, spin)))
    return Scene("tohuwabohu", "tohuwabohu-area", tuple(pieces), title="Tohuwabohu: the area and the pieces")


def _babylon(players: tuple[str, ...], mode: str = "tactical") -> Scene:
    from sim.games.babylon.supply import ALLOTMENT

    if len(players) not in ALLOTMENT["tactical"]:
        raise SetupError(f"--players: Babylon takes {min(ALLOTMENT['tactical'])} to "
                         f"{max(ALLOTMENT['tactical'])} players, got {len(players)}")
    for i, p in enumerate(players):
        if p not in dim.BABYLON_NOBLE_COLORS:
            raise SetupError(f"--players[{i}]: expected a noble colour ({', '.join(dim.BABYLON_NOBLE_COLORS)}), "
                             f"got {p!r}")
    board = catalogue_board("babylon-table")
    seating = board.seating
    half = board.shape.extent[0] / 2
    towers, bridges = ALLOTMENT[mode][len(players)]
    t = dim.BABYLON_TOWER["size"][0] * MM
    pieces = []
    for k, player in enumerate(players):
        seat = seating.seat_angle(k, len(players))
        out = np.array([np.cos(np.radians(seat)), np.sin(np.radians(seat))])  # towards the seat
        side = np.array([-out[1], out[0]])
        spin = seat + 90.0

        def put(kind, params, pid, depth, along, _out=out, _side=side, _spin=spin, _player=player):
            x, y = (half - depth) * _out + along * _side
            extra = {} if kind == "babylon.noble" else {"owner": _player}
            pieces.append(_on(kind, params, pid, x, y, 0.0, (0.0, 0.0, _spin), **extra))

        per_row = 9
        for i in range(towers):
            r, c = divmod(i, per_row)
            put("babylon.tower", {}, f"{player}-tower-{i + 1}", 0.03 + r * (t + GAP),
                (c - (per_row - 1) / 2) * (t + GAP))
        rows = -(-towers // per_row)
        depth = 0.03 + rows * (t + GAP) + 0.01
        for i in range(bridges):
            put("babylon.bridge", {}, f"{player}-bridge-{i + 1}", depth + t / 2,
                (i - (bridges - 1) / 2) * (3 * t + GAP))
        depth += t + 0.012
        nobles = [("large", i) for i in range(dim.BABYLON_NOBLES_PER_COLOR["large"])]
        nobles += [("small", i) for i in range(dim.BABYLON_NOBLES_PER_COLOR["small"])]
        for i, (size, n) in enumerate(nobles):
            put("babylon.noble", {"size": size, "color": player}, f"{player}-{size}-{n + 1}", depth + 0.01,
                (i - (len(nobles) - 1) / 2) * 0.022)
    return Scene("babylon", "babylon-table", tuple(pieces), players=players,
                 title="Babylon: each player's pieces in front of their seat")
