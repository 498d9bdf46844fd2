"""The physics world's settings, in one documented object, each value with its reason.

The pieces are small (1.5 mm walls, 0.65 g nobles) and the questions sharp (a
20-block harmonic stack 2 % inside its critical offsets must stand, 2 % outside
must fall). pybullet's defaults assume metre-sized bodies and answer wrongly;
docs/physics.md shows how each value below was found on the analytic cases of
:mod:`sim.cases`. All lengths here are SI; the world converts them to
Bullet units with ``length_scale``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sim.tol import tol


@dataclass(frozen=True)
class PhysicsSettings:
    """How the pybullet world is built and stepped.

    Attributes:
        length_scale: Bullet length units per metre. pybullet gives every convex
            part of a compound a collision margin of 0.001 units that cannot be
            changed per part; counting in millimetres shrinks it from 1 mm
            (which would lift every piece 2 mm off its support and swallow a
            1.5 mm wall) to 1 µm. Gravity, inertia and velocities are scaled
            along, so the dynamics are unchanged.
        dt: time step (s). 1/480 s resolves the fastest tipping of the pieces
            (a knife-edge 2-block tips with a rate of about 20 /s) and the
            solver holds the harmonic stacks with it; 1/240 s needs twice the
            iterations per step for the same stacks.
        solver_iterations: upper bound on the sequential-impulse iterations
            per step and island. A stack of n levers needs of the order of n²
            of them (the 20-block harmonic stack falls with 3000 and stands
            with 3500; 4000 leaves room); resting islands stop long before, at
            ``residual_velocity``.
        residual_velocity: the solver stops iterating on an island once no
            contact's velocity changes by more than this (m/s) in one
            iteration (pybullet's default, 1e-7 in squared Bullet units, means
            nothing in particular here). 0.1 mm/s suits structures with a
            margin of 0.1 g and more; ``check`` tightens it for thinner margins.
        residual_per_margin: the tolerance ``check`` uses for a structure the
            statics give a margin m (in g): this times m (m/s), kept between
            ``residual_floor`` and ``residual_ceiling``. A structure with a thin
            margin needs its contact forces resolved finely, or solver noise
            tips it: the 20-block harmonic stack (margin 0.01 g) stands with
            1e-5 m/s and falls with 1e-4 m/s, while game structures (0.1-0.5 g)
            stand with coarser tolerances at a fraction of the iterations.
        residual_per_level: a stack of d pieces (one on another) gets at most
            this divided by d² times its margin (m/s per g): Gauss-Seidel
            needs of the order of d² iterations to carry a change through d
            levels, so stopping at the same per-iteration change leaves a d²
            times larger error. A 10-cube tower (margin 0.1 g) still rocks by
            0.1 mm at 12 Hz with 1e-4 m/s and rests with 3e-5; below 6 levels
            ``residual_per_margin`` is the smaller and decides alone.
        residual_floor: the finest tolerance (m/s).
        residual_ceiling: the coarsest tolerance (m/s).
        iterations_per_margin: ``check`` also bounds the iterations by this
            divided by the margin (in g), kept between ``min_iterations`` and
            ``max_iterations``: 40 gives a 0.01 g structure 4000, a 0.002 g one
            the ceiling, and a game structure with 0.4 g of margin 100, which cuts
            the solver's occasional long runs on piles of thin-walled parts.
        iterations_per_level: ``check`` also allows at least this times d²
            iterations to a stack d pieces deep (up to ``max_iterations``, margin or
            not): the 10-cube tower needs about 2000 (it rocks with 1000), the
            20-block harmonic stack 0.01 g from tipping more than 4000 (it fell with
            them); and as many to a bridge of d pieces between grounded ones (an
            arch's span) while its margin is thin (``span_margin``).
        span_margin: a bridge (:func:`sim.physics.precision.span_length`) gets
            ``iterations_per_level`` times its length squared up to this margin (g),
            and that times (span_margin / margin)² beyond: an arch of 21 voussoirs on
            two abutment blocks (a chain of 23) 0.0106 g from collapse collapsed
            with the 3765 iterations its margin asks for and with 7000, and stands
            with 10 000 (it gets 10 580); compas_cra's vault (0.49 g, a span of 29)
            rests as still with 980 iterations (12-35 µm in 0.2 s) as with 2000
            (10 µm), so it gets no more than its downward chains give.
        min_iterations: the fewest iterations ``check`` allows per step.
        collapse_pieces, collapse_dt, collapse_iterations: a structure the statics cannot hold with at least
            ``collapse_pieces`` pieces unheld is a collapse, and ``check``'s witness of it runs with whole hulls
            (no ``exact_hulls``: micrometre-flat faces decide nothing in a falling pile), steps of
            ``collapse_dt`` and at most ``collapse_iterations`` a step. compas_cra's vault without its supports
            (366 blocks falling 0.5-4 m onto the table): 2 s witnessed in 598 s with the tuned settings (254 ms
            a step of its face pyramids alone, 4000 iterations), 272 s with 100 iterations, 28 s with whole
            hulls at 1/240 s as well (load ~7, niced); every block still falls. At 1/120 s and 30 iterations its
            run took 23 s against 48 s at 1/240 s and 100 (load ~12, the same hour), every block knocked down
            (separating-axis contacts off instead were no cheaper). 50: every case of the agreement suites (at
            most 27 pieces) keeps the tuned witness.
        max_iterations: the most iterations ``check`` allows per step: 15000.
            Harmonic stacks of 20 blocks 0.002-0.005 g from tipping (150 × 40 × 30,
            300 × 60 × 40 mm) fell with 4000 and 6000 and stand with 10000,
            and cost less so (5-10 s instead of 9-15 s: they stand and sleep); the
            arch of 21 voussoirs on blocks 0.002 g from collapse collapsed with
            10 000 and stands with 15 000. Not more: 300 × 60 × 40 mm at 0.002 g
            stands with 10 000-17 500 and fell with 20 000 (Gauss-Seidel at the
            edge of what it resolves is not monotone in its iterations).
        stable_sleep_margin, stable_sleep_window: ``check`` lets an island of a
            structure the statics hold with at least ``stable_sleep_margin``
            (g, five times the probe) sleep once it has been still for
            ``stable_sleep_window`` (s) instead of ``tol.sleep_window``: the probe
            cannot tip it, so it needs no time to show a knife edge, and where
            the simulation drops such a structure (its limit) it moved within
            0.04 s in the agreement suite. 0.005 g and 0.1 s: the Babylon
            bench's witness run costs a third, the 20-block stack's a quarter.
            A wider margin waits less, as its square root, down to 0.02 s
            (:func:`sim.physics.verdict.stable_window`): compas_cra's vault
            (0.49 g) settles by 25 µm in its first 0.02 s and sleeps whole at 0.05 s.
        stable_freeze: in ``check`` of such a structure, a piece still for ``stable_sleep_window`` amid
            neighbours all still too is made static before its island sleeps (:mod:`sim.physics.sleep`), and let go
            when a neighbour moves: compas_cra's vault is one island of 366 blocks, of which a dozen still settle
            after 0.1 s and kept all 366 simulated (docs/physics.md, the vault).
        erp: error reduction of joint constraints (no joints here; Bullet's 0.2).
        contact_erp: fraction of a contact's penetration removed per step
            (split-impulse position correction; Bullet's 0.2).
        friction_erp: fraction of a friction anchor's drift removed per step.
        split_impulse: remove penetration with a separate position impulse that
            adds no kinetic energy, so resting pieces never pop apart.
        split_impulse_threshold: penetration (m, negative) deeper than which the
            correction is a split impulse (a position change without velocity);
            shallower ones are pushed out through the velocity (Bullet's Baumgarte
            term). -40 µm: split impulses for every overlap (0) made the thin
            harmonic stacks fall and ran 5-10 times slower.
        contact_slop: penetration (m) tolerated without correction; 10 nm, so
            that pieces rest on their faces, not sunk into each other.
        contact_breaking_threshold: Bullet's contact breaking threshold (m, given
            as 0.005 units in millimetres). Bullet takes it relative to the bodies'
            size (its dispatcher's default, which pybullet keeps): a contact point
            leaves its manifold, and the face clipping makes new points, up to this
            times the smaller body's bounding radius in units, so 0.04 mm for a
            10 mm cube, 0.4 mm for a 100 mm one and 2 mm for a vault block of
            400 mm (tests/test_physics_exact.py). Four times this (0.02 units) made
            the face pyramids of a voussoir's neighbouring faces touch the next
            voussoir's face near their edges (24-30 points on a joint instead of
            4); 40 times (0.2 units) made the face clipping keep only two diagonal
            corners of a long block on a board, which then rocked.
        warm_starting: fraction of the last step's impulses each step starts
            from. Bullet's 0.85: a factor of 1 makes tall stacks rock with a
            growing amplitude.
        cone_friction: Coulomb friction as a cone rather than a pyramid along
            world-fixed tangents, so that no direction slides more easily
            (rotating a scene must not change its verdict).
        sat: contacts between convex hulls by separating axes and face
            clipping, which yields the full contact polygon every step; GJK
            alone yields one new point per step.
        sat_corners: parts whose faces have at most this many corners get
            separating-axis contacts; rounder parts (the 24-sided bases of
            pawns, nobles and figures) get GJK contacts. Face clipping hands
            Bullet every corner of the touching face, each step, and its
            manifold keeps 4 points: of a 24-sided base it keeps a different 4
            each step, every new point without the impulse and the friction
            anchor of the one it replaced, and a noble on a board rocks at up to
            0.6 rad/s. GJK adds one point per step to a manifold that keeps
            its points, and the same noble rests (below 0.001 rad/s after 0.4 s).
        shrink: relative amount by which each part's hull is narrowed
            horizontally, differently for each piece (between 1 and 2 times
            this): the piece axes more than 45° from the vertical narrow, the
            others keep their length (narrowing every axis by its share of the
            horizontal made a block tilted 20° on a plank 36 nm shorter, a gap
            under it at the first step). Pieces of equal width stacked flush have collinear edges,
            where face clipping produces contact points at random places along
            the edge and the stack rocks; 1e-5 (0.2 µm on a 20 mm block) makes
            every edge distinct. Heights are untouched, so nothing sinks.
        exact_hulls: give Bullet hulls it holds where the scene puts them (:mod:`sim.physics.exact`):
            Bullet rounds every hull's points onto a grid of 10216 steps across its extent, which moved the
            faces of a voussoir by 15-35 µm and those of compas_cra's vault blocks by 60-120 µm out of their
            planes (their joints gapped and tilted: arches 1 % thicker than critical fell, the vault crept by
            2 mm in 2 s), and a box's end by a whole step where the grid's arithmetic fell short (a 140 mm box
            was 27 µm short). With it, each axis's mesh scale is moved by a few units in the last place so that
            the ends of every axis are held exactly (boxes are exact), and other parts are cut into one
            pyramid per face (:mod:`sim.physics.children`).
        face_gap: each face pyramid's face is inset by this (m) from its edges, so that the pyramids of two
            faces of one body meeting at an edge do not reach past it into a neighbour's face there (with none,
            a voussoir's joint had 24-30 contact points instead of 4, some off its faces and pressed in, and thin
            arches broke).
        exact_faces: a part of more faces than this keeps its hull whole (rounds: a cylinder's 50 faces move
            by 2.5 µm at most, and a pyramid per face would multiply its contacts).
        exact_parts: a piece of more parts than this keeps its parts whole (decomposed meshes).
        array_parts: a piece of at most this many convex parts gets its compound
            shape from ``createCollisionShapeArray``; pybullet's buffer for
            that call holds 16 and is overrun beyond (a Babylon tower has 22
            parts, a bridge 33), so larger pieces are loaded as a URDF link
            with one collision element per part.
        swell: hulls loaded from a URDF file find no separating-axis contact
            when they overlap by less than about 0.5 µm (pybullet's importer
            handles their margin differently), so they would lose a resting
            contact every few steps; each of their parts reaches this much
            (m) farther up and down (along the piece axes near the vertical),
            1 µm, which keeps those contacts alive.
        prime_depth: before the first step every piece is pressed this far (m)
            into what holds it, Bullet makes the contacts, and the pieces go
            back to their exact poses (:mod:`sim.physics.seating`): 10 µm.
            Bullet makes a new contact only between overlapping hulls, for some
            pairs only beyond 4 µm, and keeps a contact it has made within its
            breaking threshold (see ``contact_breaking_threshold``); without priming, exactly touching
            pieces missed contacts at the first step, fell freely for a step and
            landed with an impact (a block 0.002 g from tipping on a slope
            turned over; 16 of 28 random towers at 0.002-0.01 g fell).
        table_size: the table is a static convex slab this wide (m), top at the
            board's underside: against Bullet's infinite plane a box gets one
            new contact point a step (its deepest corner) and rocks on it
            for its first steps; against a hull it gets its face at once.
        top_down: create the bodies from the highest to the lowest, so that
            each Gauss-Seidel sweep of the solver carries the weights downwards
            through a stack in one pass (the other order needs many times the
            iterations).
        friction_anchors: hold static friction at the point where a contact
            began, so resting pieces do not creep.
        damping: linear and angular velocity damping (1/s); none, as wood in
            air has none worth modelling (pybullet's default is 0.04).
        sleeping: put islands of pieces at rest to sleep (:mod:`sim.physics.sleep`):
            a resting Babylon city then costs nothing per step instead of 40 ms.
            Not Bullet's own deactivation, which waits 2 s, judges by speeds of
            0.8 mm/s and 1 rad/s here, and leaves sleeping bodies deaf to a
            turning probe; with ``configure_engine`` off, pybullet's own applies.
        restitution_velocity_threshold: impacts slower than this (m/s) do not
            bounce.
        probe_g: the tiny horizontal acceleration (fraction of g) every run
            applies, so that no unstable balance (a knife edge) survives by
            symmetry; equal to ``tol.stable_margin_g``, the margin a stable
            structure must have, so that statics and dynamics judge alike.
        probe_period: when no direction is given, the probe turns once around
            in this time (s), pushing every structure its weakest way once.
        probe_update: a turning probe is re-aimed this often (s): 1/60 s, 3° of
            its turn, so the world adds one call per frame, not per step.
        max_seconds: bound on a settle run (s).
        watch_seconds: simulated time between blow-up checks (NaN poses,
            energy gained from nowhere; see ``World.watch``).
        deterministic_pairs: sort Bullet's contact pairs every step, so the same
            scene gives the same timeline whatever the memory layout.
        configure_engine: set Bullet's parameters from these settings; False
            leaves pybullet's defaults (only the time step is set), for the
            comparison in tools/bench_physics.py.
    """

    length_scale: float = 1000.0
    dt: float = 1.0 / 480.0
    solver_iterations: int = 4000
    residual_velocity: float = 1e-4
    residual_per_margin: float = 1e-3
    residual_per_level: float = 3e-2
    residual_floor: float = 1e-5
    residual_ceiling: float = 5e-4
    iterations_per_margin: float = 40.0
    iterations_per_level: float = 20.0
    min_iterations: int = 100
    collapse_pieces: int = 50
    collapse_dt: float = 1.0 / 120.0
    collapse_iterations: int = 30
    max_iterations: int = 15000
    span_margin: float = 0.05
    stable_sleep_margin: float = 0.005
    stable_sleep_window: float = 0.1
    stable_freeze: bool = True
    erp: float = 0.2
    contact_erp: float = 0.2
    friction_erp: float = 0.2
    split_impulse: bool = True
    split_impulse_threshold: float = -4e-5
    contact_slop: float = 1e-8
    contact_breaking_threshold: float = 5e-6
    warm_starting: float = 0.85
    cone_friction: bool = True
    sat: bool = True
    sat_corners: int = 4
    shrink: float = 1e-5
    exact_hulls: bool = True
    exact_faces: int = 16
    face_gap: float = 6e-6
    exact_parts: int = 4
    array_parts: int = 16
    swell: float = 1e-6
    prime_depth: float = 3e-6
    table_size: float = 220.0
    top_down: bool = True
    friction_anchors: bool = True
    damping: float = 0.0
    sleeping: bool = True
    restitution_velocity_threshold: float = 0.2
    probe_g: float = tol.stable_margin_g
    probe_period: float = 2.0
    probe_update: float = 1.0 / 60.0
    max_seconds: float = 10.0
    watch_seconds: float = 0.1
    deterministic_pairs: bool = True
    configure_engine: bool = True

    def with_(self, **changes) -> PhysicsSettings:
        """A copy with some values changed."""
        return replace(self, **changes)


TUNED = PhysicsSettings()
"""The tuned settings every command uses."""

BULLET_DEFAULTS = PhysicsSettings(
    length_scale=1.0, dt=1.0 / 240.0, solver_iterations=50, sat=False, shrink=0.0, swell=0.0, top_down=False,
    exact_hulls=False,
    sleeping=True, probe_g=0.0, configure_engine=False)
"""pybullet as it comes (metres, 1/240 s, 50 iterations, GJK contacts, sleeping): fast but wrong."""
