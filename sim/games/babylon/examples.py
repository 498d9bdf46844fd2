"""The rulebook's worked examples, and a first turn, built as Babylon scenes.

Each function returns a standing, correctly placed building whose score the
rulebook states; the scene files under ``scenes/babylon/`` are these scenes,
saved.
"""

from __future__ import annotations

from sim.games.babylon.construct import babylon_scene, bridge, nobles_on, tower
from sim.scene import Scene


def tactical_example() -> Scene:
    """The tactical game's example: green scores 3 + 5 + 0 − 1 = 7.

    A lattice of four tower columns 50 mm apart, tied by bridges at levels 1,
    3 and 5. Green has a small noble alone on level 3, two of the four nobles
    on level 5 (one yellow, one red), and one large and two small nobles on
    level 7, where red also has three and yellow one (a tie). Green placed 5
    of its 6 bridges.
    """
    owners = ("green", "yellow", "red")
    pieces = []

    def t(x, y, level):
        p = tower(f"t{len(pieces)}", x, y, level, owner=owners[len(pieces) % 3])
        pieces.append(p)
        return p

    corners = ((0, 0), (50, 0), (0, 50), (50, 50))
    for x, y in corners:
        t(x, y, 0)
    b_owner = iter(("green", "green", "green", "green", "green", "red"))
    pieces += [bridge("b1-south", 25, 0, 1, owner=next(b_owner)), bridge("b1-north", 25, 50, 1, owner=next(b_owner))]
    for x, y in corners:
        t(x, y, 2)
    low = t(25, 0, 2)
    pieces += [bridge("b3-west", 0, 25, 3, along="y", owner=next(b_owner)),
               bridge("b3-east", 50, 25, 3, along="y", owner=next(b_owner))]
    for x, y in corners:
        t(x, y, 4)
    mid_w, mid_e = t(0, 25, 4), t(50, 25, 4)
    pieces += [bridge("b5-south", 25, 0, 5, owner=next(b_owner)), bridge("b5-north", 25, 50, 5, owner=next(b_owner))]
    top = [t(x, y, 6) for x, y in ((0, 0), (25, 0), (50, 0), (0, 50), (25, 50), (50, 50))]
    pieces += nobles_on(low, [("green-3", "small", "green")])
    pieces += nobles_on(mid_w, [("green-5a", "small", "green"), ("yellow-5", "small", "yellow")])
    pieces += nobles_on(mid_e, [("green-5b", "small", "green"), ("red-5", "small", "red")])
    pieces += nobles_on(top[0], [("green-7L", "large", "green")])
    pieces += nobles_on(top[1], [("green-7a", "small", "green"), ("red-7a", "small", "red")])
    pieces += nobles_on(top[2], [("green-7b", "small", "green"), ("red-7b", "small", "red")])
    pieces += nobles_on(top[3], [("red-7c", "small", "red"), ("yellow-7", "small", "yellow")])
    return babylon_scene(pieces, owners, "Tactical scoring example: green scores 3 + 5 - 1 = 7",
                         "The rulebook's example: green alone on level 3, a majority on level 5, a tie on "
                         "level 7, one bridge left over.")


def _beam(prefix: str, x: float, y: float, towers: tuple, owner: str) -> list:
    """A bridge on the table at (x, y) mm along x with towers on the given spots (-1, 0, 1)."""
    out = [bridge(f"{prefix}-beam", x, y, 0, owner=owner)]
    out += [tower(f"{prefix}-s{k + 2}", x + 25 * k, y, 1, owner=owner) for k in towers]
    return out


def fast_example() -> Scene:
    """The fast game's example: green scores 2 + 0 + 3 + 5 = 10 with red and 2 + 4 = 6 with blue.

    Seats: green, red, blue (clockwise from the edge at -y). In the area
    green shares with red, green has small nobles on levels 2, 3 and 4 and a
    large one on level 5; red's large noble shares the level-4 tower, so that
    green noble scores nothing. With blue, green has small nobles on levels 2
    and 4. Green's round score is min(10, 6) = 6.
    """
    players = ("green", "red", "blue")
    p: list = []
    # green and red build in the wedge at the south-west (x < 0, y < 0)
    ox, oy = -260.0, -150.0
    p += _beam("gr-a", ox + 25, oy, (-1, 0, 1), "green")
    p += _beam("gr-b", ox + 100, oy, (0, 1), "red")
    p.append(bridge("gr-link", ox + 75, oy, 2, owner="red"))  # on the towers at +50 and +100
    p.append(tower("gr-c2", ox, oy, 2, owner="green"))
    p += [tower("gr-e2", ox + 125, oy, 2, owner="red"), tower("gr-e3", ox + 125, oy, 3, owner="red")]
    p += [tower("gr-m3", ox + 75, oy, 3, owner="green"), tower("gr-m4", ox + 75, oy, 4, owner="green")]
    by_id = {q.id: q for q in p}
    p += nobles_on(by_id["gr-a-s2"], [("green-2", "small", "green")])
    p += nobles_on(by_id["gr-c2"], [("green-3", "small", "green")])
    p += nobles_on(by_id["gr-e3"], [("green-4", "small", "green"), ("red-4L", "large", "red")])
    p += nobles_on(by_id["gr-m4"], [("green-5L", "large", "green")])
    # green and blue build in the wedge at the south-east
    bx, by = 200.0, -200.0
    p += _beam("gb", bx, by, (-1, 0, 1), "blue")
    p += [tower("gb-c2", bx - 25, by, 2, owner="green"), tower("gb-c3", bx - 25, by, 3, owner="green")]
    by_id = {q.id: q for q in p}
    p += nobles_on(by_id["gb-s2"], [("green-2b", "small", "green")])
    p += nobles_on(by_id["gb-c3"], [("green-4b", "small", "green")])
    p += nobles_on(by_id["gb-s3"], [("blue-2", "small", "blue")])
    # red and blue build in the wedge at the north
    p += _beam("rb", 0.0, 250.0, (-1, 1), "red")
    by_id = {q.id: q for q in p}
    p += nobles_on(by_id["rb-s1"], [("red-2", "small", "red")])
    p += nobles_on(by_id["rb-s3"], [("blue-2b", "small", "blue")])
    return babylon_scene(p, players, "Fast scoring example: green scores min(10, 6) = 6",
                         "The rulebook's example: with red, green scores 2 + 0 + 3 + 5 = 10 (its level-4 noble "
                         "shares a tower with red's large noble); with blue, 2 + 4 = 6.")


def first_turn() -> Scene:
    """The first player's first turn: five pieces, two levels high, no nobles.

    Two bridges on the table, a third across their western ends (its arch
    over the gap between them), towers on their eastern ends.
    """
    owner = "red"
    pieces = [bridge("b-south", 0, 0, 0, owner=owner), bridge("b-north", 0, 50, 0, owner=owner),
              bridge("b-west", -25, 25, 1, along="y", owner=owner),
              tower("t-south", 25, 0, 1, owner=owner), tower("t-north", 25, 50, 1, owner=owner)]
    return babylon_scene(pieces, ("red", "blue", "green", "yellow"), "The first player's first turn",
                         "Five pieces, not higher than two levels, no nobles: the first turn of a 4-player "
                         "tactical game.")


def second_turn() -> Scene:
    """Blue's first turn after :func:`first_turn`: a column beside it and a bridge onto it widen the base."""
    first = first_turn()
    owner = "blue"
    pieces = [tower("u-foot", 75, 0, 0, owner=owner), tower("u-post", 75, 0, 1, owner=owner),
              bridge("u-bridge", 50, 0, 2, owner=owner), tower("u-top", 75, 0, 3, owner=owner)]
    return babylon_scene([*first.pieces, *pieces], first.players, "Blue's first turn",
                         "After the first player's turn, blue widens the building's base with a column to the "
                         "east joined by a bridge: four pieces, no nobles.")


def bench_city() -> Scene:
    """The end of a 5-player tactical game: all 80 towers, 20 bridges and 40 nobles (140 pieces).

    A 4 × 4 lattice of tower columns 50 mm apart, tied by bridges along x at
    level 1 (column pairs), along y at level 3 (row pairs) and across the
    quarters at level 5, with towers on the bridges' centre spots. Nobles
    stand on the 36 free tower tops at levels 3 to 7: a large one alone,
    small ones alone or in twos of different colours.
    """
    players = ("blue", "yellow", "green", "red", "white")
    columns = [(50 * i, 50 * j) for j in range(4) for i in range(4)]
    parts, tops = [], []
    turn = iter(range(10 ** 6))

    def t(x, y, level, free=False):
        k = next(turn)
        p = tower(f"t{level}-{x}-{y}", x, y, level, facing=90 * (k % 4), owner=players[k % 5])
        parts.append(p)
        if free:
            tops.append(p)

    def b(x, y, level, along):
        k = len([p for p in parts if p.kind == "babylon.bridge"])
        parts.append(bridge(f"b{level}-{x}-{y}", x, y, level, along=along, owner=players[k % 5]))

    for x, y in columns:
        t(x, y, 0)
    for j in range(4):
        for x in (25, 125):
            b(x, 50 * j, 1, "x")
    for x, y in columns:
        t(x, y, 2)
    for j in range(4):
        for x in (25, 125):
            t(x, 50 * j, 2, free=True)
    for i in range(4):
        for y in (25, 125):
            b(50 * i, y, 3, "y")
    for x, y in columns:
        t(x, y, 4)
    for i in range(4):
        for y in (25, 125):
            t(50 * i, y, 4, free=True)
    for x, y, along in ((75, 0, "x"), (75, 150, "x"), (0, 75, "y"), (150, 75, "y")):
        b(x, y, 5, along)
    for x, y in columns:
        if x in (0, 150) and y in (0, 150):
            t(x, y, 5, free=True)
        elif x in (50, 100) and y in (50, 100):
            tops.append(next(p for p in parts if p.id == f"t4-{x}-{y}"))
    for x, y in ((50, 0), (75, 0), (100, 0), (50, 150), (75, 150), (100, 150),
                 (0, 50), (0, 75), (0, 100), (150, 50), (150, 75), (150, 100)):
        t(x, y, 6, free=True)
    nobles = []
    large = [(c, "large") for _ in range(2) for c in players]
    small = [(c, "small") for _ in range(6) for c in players]
    small = [small[(7 * k) % len(small)] for k in range(len(small))]  # mix the colours over the levels
    for k, top in enumerate(tops):
        if k < len(large):
            group = [large[k]]
        else:
            r = k - len(large)
            group = [small[r]] + ([small[len(tops) - len(large) + r]] if r < len(small) - (len(tops) - len(large))
                                  else [])
        nobles += nobles_on(top, [(f"n-{c}-{s}-{len(nobles) + m}", s, c) for m, (c, s) in enumerate(group)])
    return babylon_scene([*parts, *nobles], players, "Babylon city: the end of a 5-player tactical game",
                         "140 pieces, every piece of five players: the physics benchmark's Babylon scene.")
