"""Every dimension, density and friction of the pieces, in one place.

Lengths in millimetres, densities in g/cm³, as in ../shared/PIECES.md. A user
with a ruler corrects a number here, runs ``tools/build_meshes.py`` and
everything (collision shapes, masses, meshes, rules) follows. Numbers marked
(s) are sourced; the rest are assumptions chosen to agree with the rulebooks.
"""

from __future__ import annotations

# --- tessellation -----------------------------------------------------------
ROUND_SEGMENTS = 24  # sides of a tessellated circle (exact-area, see sim.geometry.solids)
ARC_SEGMENTS = 6  # segments per quarter circle of an arched opening
SPHERE_RINGS = 4  # latitude rings of a pawn's head

# --- Talo (beech) ------------------------------------------------------------
TALO_UNIT = 20.0  # (s) one grid field and one level
TALO_MAX_LENGTH = 10
TALO_COUNT = {n: 11 - n for n in range(1, 11)}  # (s) 55 blocks in all
TALO_DENSITY = 0.70
TALO_FRICTION = 0.45
TALO_GRID = 10  # fields per side
TALO_BOARD_THICKNESS = 6.0
TALO_PAWN = {"base_radius": 7.0, "height": 32.0}
TALO_PAWN_COLORS = ("yellow", "red", "blue", "green", "pink", "orange")
TALO_MAX_LEVEL = 10

# --- Tohuwabohu (wooden bricks and arches, cardboard levels) -----------------
TOHU_WOOD_DENSITY = 0.70
TOHU_CARDBOARD_DENSITY = 0.80
TOHU_FRICTION = 0.5
TOHU_BRICK = {"small": (40.0, 20.0, 20.0), "large": (80.0, 20.0, 20.0)}
TOHU_BRICK_COLORS = ("neutral", "red", "blue", "green")
TOHU_ARCH = {"length": 80.0, "depth": 20.0, "height": 40.0, "opening_radius": 20.0}
TOHU_LEVEL_THICKNESS = 3.0
TOHU_QUAD_SIDE = 120.0
TOHU_TRI_SIDE = 140.0
TOHU_POINT_DIAMETER = 15.0
TOHU_POINT_DISTANCE = 0.6  # figure point from the plate's centre, as a fraction of the way to its area's rim
TOHU_FIGURE = {"base_radius": 6.0, "height": 22.0}
TOHU_FIGURE_COLORS = ("red", "blue", "green")
TOHU_AREA_SIZE = 280.0
TOHU_AREA_THICKNESS = 4.0
# the box (s): name -> count
TOHU_BOX = {
    ("brick", "small", "neutral"): 4,
    ("brick", "small", "red"): 2,
    ("brick", "small", "blue"): 2,
    ("brick", "small", "green"): 2,
    ("brick", "large", "neutral"): 1,
    ("brick", "large", "red"): 2,
    ("brick", "large", "blue"): 2,
    ("brick", "large", "green"): 2,
    ("arch",): 2,
    ("level", "quad"): 5,
    ("level", "tri"): 3,
    ("figure", "red"): 5,
    ("figure", "blue"): 5,
    ("figure", "green"): 5,
}

# --- Babylon Tower Builders (plastic; Alcazar's pieces) ----------------------
BABYLON_DENSITY = 1.05
BABYLON_FRICTION = 0.35
BABYLON_LEVEL = 20.0  # (s)
BABYLON_WALL = 1.5
BABYLON_TOWER = {"size": (25.0, 25.0, 20.0), "opening_width": 10.0, "opening_height": 12.0,
                 "slit": (2.0, 12.0)}  # (s) outer size
BABYLON_BRIDGE = {"size": (75.0, 25.0, 20.0), "opening_width": 20.0, "opening_height": 12.0,
                  "spot": 25.0}  # (s) outer size, spans three towers
BABYLON_NOBLE = {"small": {"base_radius": 5.5, "height": 18.0}, "large": {"base_radius": 7.5, "height": 28.0}}
BABYLON_NOBLE_COLORS = ("blue", "yellow", "green", "red", "white")
BABYLON_NOBLES_PER_COLOR = {"large": 2, "small": 6}  # (s)
BABYLON_TABLE_SIZE = 900.0
BABYLON_TABLE_THICKNESS = 20.0

# --- boards and tables --------------------------------------------------------
BOARD_DENSITY = 0.80  # printed cardboard: Talo's boards, Tohuwabohu's playing area
BOARD_FRICTION = 0.5
TABLE_DENSITY = 0.70  # a wooden tabletop: Babylon's table, the table around a board
TABLE_FRICTION = 0.5
TALO_GRID_LINE = 0.6  # width of a printed grid line (every fifth, around a quadrant, twice that)
TALO_START_MARK_RADIUS = 4.0  # the dot printed at the centre of each quadrant
TOHU_AREA_BORDER = 6.0  # the printed border around Tohuwabohu's playing area

# --- generic pieces (free scenes) --------------------------------------------
BOX_DENSITY = 0.70
BOX_FRICTION = 0.5
MIN_SIZE = 1.0  # mm: the thinnest a generic piece may be (a box side, a radius, a hull's or mesh's width)
MAX_SIZE = 10_000.0  # mm: the largest side of a generic piece, a tenth of the 100 m a position may reach

# --- colours (sRGB-encoded display values 0..1, with alpha) --------------------
COLORS = {
    "neutral": (0.86, 0.72, 0.52, 1.0),
    "beech": (0.91, 0.76, 0.56, 1.0),
    "red": (0.80, 0.12, 0.10, 1.0),
    "blue": (0.10, 0.30, 0.75, 1.0),
    "green": (0.15, 0.58, 0.22, 1.0),
    "yellow": (0.96, 0.82, 0.10, 1.0),
    "pink": (0.95, 0.45, 0.70, 1.0),
    "orange": (0.98, 0.50, 0.08, 1.0),
    "white": (0.95, 0.95, 0.93, 1.0),
    "cardboard": (0.93, 0.90, 0.82, 1.0),
    "babylon": (0.84, 0.78, 0.62, 1.0),
    "grey": (0.60, 0.60, 0.60, 1.0),
    "board-green": (0.36, 0.62, 0.30, 1.0),
    "board-water": (0.22, 0.45, 0.78, 1.0),
    "board-line": (0.20, 0.32, 0.18, 1.0),
    "board-start": (0.55, 0.78, 0.40, 1.0),
    "tohu-area": (0.95, 0.89, 0.70, 1.0),
    "table": (0.55, 0.40, 0.28, 1.0),
    "area-red": (0.93, 0.55, 0.50, 1.0),
    "area-blue": (0.55, 0.68, 0.92, 1.0),
    "area-green": (0.60, 0.85, 0.58, 1.0),
}
