"""Named tolerances, in one place (SI units: metres, radians, seconds).

Every threshold the project compares against lives here, with the reason for
its value, so that no literal is scattered through the code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerances:
    """Geometric and numerical tolerances.

    Attributes:
        merge: distance below which two vertices are the same point (m).
        merge_rel: the part of the merge distance that grows with a convex part's
            size (fraction of its largest extent): coplanar hull facets are one
            face when their planes lie within ``merge`` plus this of each other,
            since rounding in the hull's plane equations grows with the coordinates.
        parallel: two unit normals point the same way when their dot product
            exceeds 1 minus this (1e-9: 45 µrad apart): a convex part's hull facets
            of one face, the contact planes the statics give one friction direction.
        precision: how precisely (m) a scene's geometry is known: 1 µm, the last digit of a
            file written in millimetres to three decimals (its corners are off by up to 0.87 µm
            from where they were drawn) and a thousandth of the contact gap (``coplanar``). A
            convex part's hull triangles whose corners lie within this of one plane are one face
            (the mid-plane: their spread across it at most twice this), and a corner of a face or
            contact polygon within this of the line through its neighbours is no corner (points
            added on edges); so neither rounding nor added points change the contacts, and the
            statics' verdict and margin do not hang on the last nanometre.
        coplanar: distance below which two faces touch (m); contact interfaces
            are found between faces closer than this.
        coplanar_angle: angle below which two face normals count as opposite (rad).
        area_recheck_rel: a clipped contact polygon whose area lies within this
            fraction of the least area that counts (``coplanar`` times its longest
            edge) is decided again from its edge lengths one by one (``math.dist``),
            so that the batched contact finder decides it as one polygon at a time does.
        polygon_edge: a point this close outside an edge of a convex outline (m²,
            the cross product of the edge and the point's offset) still lies inside:
            rounding only (construction areas, whose edges are shared).
        overlap: interpenetration depth tolerated between pieces at load (m);
            more is reported as overlapping pieces.
        volume_rel: relative tolerance of volume comparisons between a mesh and
            the parts it was built from.
        convex: how far (m) the faces of a mesh may fold inwards at an edge, seen from
            either face's plane, and the edge still count as flat (the body convex):
            1 µm, fifty times below the contact gap (``coplanar``), so a convex
            part taken over such a fold touches exactly what the mesh touches; the
            rounding of a mesh written in millimetres or metres with eight digits
            and of a nearly planar quad split in two triangles lies below it. Cuts
            of a convex decomposition are laid a tenth of it off their face.
        unit_quat: a quaternion read from a scene file whose squared length is
            within this of 1 is taken as it is, so that a saved quaternion (17
            significant digits) loads back bit for bit; any other is normalised.
            1e-12: ten thousand times the rounding of a unit quaternion's
            squared length, far below any rotation one could see (1e-6 rad).
        talo_snap: how far (m) a Talo piece may sit from the grid (its corner from
            a grid line, its bottom from a level) and still count as on the grid:
            3 mm, 15 % of a field, well above the sub-millimetre drift of a
            settled block and well below a placement visibly between fields.
        talo_snap_angle: how far (rad) a Talo piece may be turned from lying or
            standing square and still count as on the grid: 5°, beyond the
            settling wobble, well short of a diagonal or a leaning block.
        tohu_level_tilt: how far (rad) a Tohuwabohu level plate may tilt and still
            lie horizontally: 1°, beyond the settling wobble of a plate on bricks,
            far short of a plate propped on bricks of different heights (20 mm
            over at most 120 mm: at least 9°).
        tohu_height: how far (m) apart two heights may be and still be equal
            (the tops of a level's pillars, two levels joined by an arch): 1 mm,
            far below the 20 mm steps in which brick heights come.
        tohu_point_touch: slack (m) when judging whether a figure's base touches
            its figure point: 0.5 mm, the settling drift of a light figure.
        tohu_upright: how far (rad) a figure or brick may lean and still stand
            upright (or lie flat): 5°.
        tohu_area_overhang: how far (m) a piece may reach past the edge of the
            playing area and still be on it: 0.5 mm, rounding only.
        babylon_upright: how far (rad) a Babylon tower, bridge or noble may lean
            and still stand upright: 10°, beyond any settling wobble, far short
            of a toppled piece (90°) or one propped on a neighbour's edge.
        babylon_square: how far (rad) a Babylon building part may be turned from
            a right angle to the part it stands on (or a special move's tower
            from a quarter turn): 5°, beyond settling drift, far short of a
            visibly skewed piece.
        babylon_cell: how far (m) a tower or bridge end may sit from a tower top
            or one of a bridge's three spots and still stand on it: 3 mm, 12 % of
            the 25 mm cell, well above settling drift, well below the 12.5 mm of a
            piece set half over a spot.
        babylon_cover: the fraction of a 25 mm cell that must lie over a piece
            before that cell counts as standing on it: 5 %, so that a slip of
            contact along an edge is not a placement.
        babylon_moved: how far (m) a piece may differ between two scenes of a turn
            and still be the same placement: 1 mm (angles: babylon_square).
        babylon_area: growth (m²) of the base area seen from above that counts as
            extending it: 10 mm², 1.6 % of a tower's 625 mm² footprint.
        stable_margin_g: the smallest margin (fraction of g) of a stable
            structure: 1e-3, so a knife-edge balance (margin 0) is unstable while
            the harmonic stacks 2 % inside their critical offsets (margin 0.01 g
            for 20 blocks) stand; the dynamics probe every structure with a
            horizontal acceleration of this size (sim.physics.settings).
        rest_speed: a piece whose every point moves slower than this (m/s) is
            at rest: 2 mm/s, far below a falling or sliding piece, above the
            solver's jitter. Judged at the farthest corner of its bounding box
            (linear speed plus spin times that distance), so a long plank turning
            at 0.05 rad/s moves while a noble rocking at that rate rests.
        rest_window: time (s) every piece must stay at rest for a run to count
            as settled.
        sleep_distance: a piece whose bounding-box corners all stay within this
            (m) of where they were for ``sleep_window`` is still, and an island of
            still pieces may sleep (sim.physics.sleep): 20 µm, 50 times below
            ``moved_distance``, above the solver's noise at rest (below 8 µm in
            half a second on the example scenes), far below what the probe does
            to a knife edge (balanced on an edge, in its first 0.25 s a Talo
            10-block moves 0.41 mm, a Tohuwabohu level plate 0.08 mm).
        sleep_window: how long (s) an island must be still before it sleeps:
            0.5 s, twice the time the probe takes to move the slowest knife edge
            above (the level plate) past ``sleep_distance``; with the probe
            turning, a whole turn instead.
        moved_distance: displacement (m) beyond which a piece has moved: 1 mm,
            twice the 60 s drift allowed to the solver, well below any slip.
        moved_angle: tilt (rad) beyond which a piece has moved: 1°.
        knocked_distance: displacement (m) beyond which a piece is knocked down:
            10 mm, half a Talo field.
        knocked_angle: tilt (rad) beyond which a piece is knocked down: 15°.
        knocked_drop: fall (m) of a piece's position beyond which it dropped a
            level: 5 mm, a quarter of the 20 mm levels of Talo and Babylon.
        touch_gap: two bodies closer than this (m) touch (contact bookkeeping).
        clock: two simulated times closer than this (s) are the same instant: 1 ns, far
            below the 2 ms step, far above the rounding of a sum of steps.
        blowup_height: a run whose mechanical energy rose by more than lifting
            every piece this high (m) would take has blown up: 0.1 m, far above
            the solver's position corrections, far below any explosion.
        support_angle: an interface whose normal is within this angle (rad) of
            vertical is a support (the upper piece rests on the lower); steeper
            ones are side contacts: 45°, halfway between lying on and leaning
            against.
        lp_feasibility: primal and dual feasibility tolerance of the statics
            linear programs (HiGHS), in units of the mean piece weight and its
            moment over the scene's length scale: 1e-9.
        margin_precision: the statics stops refining the weakest horizontal
            direction once the margin is known to within this (fraction of g):
            1e-6, a thousandth of ``stable_margin_g``.
        margin_precision_rel: the statics also stops once the margin is known to
            within this fraction of itself (whichever is larger): 0.5 %. Where
            the weakest mode is sliding on a (round) friction cone, proving the
            margin to better takes ever more directions; where it is tipping,
            the search ends exact anyway.
        fall_line: a contact plane whose slope (its sine) is below this has no
            fall line: the statics give it no first friction directions along one
            (1e-6: level to rounding).
        level_normal: a contact normal whose z component falls short of 1 by less
            than this is vertical (1e-12: a slope of 1.4 µrad, rounding only).
        bound_tie: closed-form margin bounds this close (relative) are equal; of
            equal tipping bounds, the direction first counter-clockwise from +x is
            reported (1e-9).
        block_admit: slack an otherwise admissible contact of a closed-form
            tipping mechanism may lack (per unit of motion, relative to the block's
            size) and still count as admissible: 1e-9, rounding.
        slide_admit: slack a sliding mechanism's rounded least rise may lack at a
            support (per unit of motion) and still count as admissible; the bound
            returned lies this far (relative) on the admissible side: 1e-12.
        quadratic_zero: a coefficient of a sliding bound's quadratic in the rise
            below this (in absolute value) is zero, so that a degenerate quadratic
            is solved as the linear (or constant) equation it is: 1e-14.
        direction_apart: two load directions (rad) closer than this are the same
            direction: the margin search tests each once (1e-6).
        friction_cone_rel: the statics refines the friction pyramid towards
            the circular Coulomb cone until no contact could raise the margin
            by more than this (fraction of g, relative to the weights): 1e-7.
        unheld_slack: a piece needs help (cannot be held) when the least external
            force and moment that keep it in equilibrium exceed this, in units of
            the mean piece weight (and that weight times the scene's length
            scale): 1e-6, a thousand times the LP tolerance, far below the help
            a structure 1 % past its tipping point needs.
    """

    merge: float = 1e-9
    merge_rel: float = 1e-9
    parallel: float = 1e-9
    precision: float = 1e-6
    coplanar: float = 5e-5
    coplanar_angle: float = 1e-3
    area_recheck_rel: float = 1e-6
    polygon_edge: float = 1e-12
    overlap: float = 2e-4
    volume_rel: float = 1e-6
    convex: float = 1e-6
    unit_quat: float = 1e-12
    talo_snap: float = 3e-3
    talo_snap_angle: float = 0.0873
    tohu_level_tilt: float = 0.01745
    tohu_height: float = 1e-3
    tohu_point_touch: float = 5e-4
    tohu_upright: float = 0.0873
    tohu_area_overhang: float = 5e-4
    babylon_upright: float = 0.1745
    babylon_square: float = 0.0873
    babylon_cell: float = 3e-3
    babylon_cover: float = 0.05
    babylon_moved: float = 1e-3
    babylon_area: float = 1e-5

    stable_margin_g: float = 1e-3
    rest_speed: float = 2e-3
    rest_window: float = 0.25
    sleep_distance: float = 2e-5
    sleep_window: float = 0.5
    moved_distance: float = 1e-3
    moved_angle: float = 0.01745
    knocked_distance: float = 1e-2
    knocked_angle: float = 0.2618
    knocked_drop: float = 5e-3
    touch_gap: float = 1e-4
    clock: float = 1e-9
    blowup_height: float = 0.1
    support_angle: float = 0.7854
    lp_feasibility: float = 1e-9
    margin_precision: float = 1e-6
    margin_precision_rel: float = 5e-3
    fall_line: float = 1e-6
    level_normal: float = 1e-12
    bound_tie: float = 1e-9
    block_admit: float = 1e-9
    slide_admit: float = 1e-12
    quadratic_zero: float = 1e-14
    direction_apart: float = 1e-6
    friction_cone_rel: float = 1e-7
    unheld_slack: float = 1e-6


tol = Tolerances()
