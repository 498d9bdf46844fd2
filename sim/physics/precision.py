"""How finely the free simulation's solver must resolve a structure: its tolerance and iteration bound.

Bullet solves contacts by Gauss-Seidel sweeps, stopping at an iteration bound
or once no contact's velocity changes by more than a tolerance in a sweep. A
structure with a thin margin needs its forces resolved finely, or solver noise
tips it; a long chain of pieces needs many sweeps, because each carries a
change one piece further: of the order of its length squared, down a stack as
across an arch, whose thrust crosses its whole span. :func:`precision_for`
turns the statics' margin and these lengths (:func:`support_depth`,
:func:`span_length`) into the two numbers (``PhysicsSettings`` says how each
rule was found).
"""

from __future__ import annotations

from sim.physics.settings import TUNED, PhysicsSettings
from sim.scene import Scene
from sim.tol import tol


def precision_for(margin_g: float | None, settings: PhysicsSettings = TUNED, depth: int = 1,
                  span: int = 0) -> tuple[float, int]:
    """The solver tolerance (m/s) and iteration bound for a structure of statics margin ``margin_g`` (g).

    Thin margins need finely resolved contact forces and many iterations;
    wide ones do with less (see ``PhysicsSettings.residual_per_margin`` and
    ``iterations_per_margin``). Deep stacks need more of both: Gauss-Seidel
    carries a change through a chain of ``depth`` pieces in the order of
    depth² iterations (``residual_per_level`` and ``iterations_per_level``).
    A bridge needs them for its span, in full while its margin is thin
    (``span_margin``). Without a stable margin (None, a knife edge or no
    equilibrium) the settings' own values are used.

    Args:
        margin_g: the statics margin (fraction of g), or None.
        settings: the settings to start from.
        depth: the most pieces any weight passes through on its way down
            (:func:`support_depth`); 1 leaves the margin alone to decide.
        span: the most pieces of a bridge between grounded pieces (:func:`span_length`); 0 for none.
    """
    s = settings
    if margin_g is None or not margin_g > tol.stable_margin_g:
        return s.residual_velocity, s.solver_iterations
    per_g = min(s.residual_per_margin, s.residual_per_level / depth**2)
    residual = min(max(per_g * margin_g, s.residual_floor), s.residual_ceiling)
    by_margin = min(s.iterations_per_margin / margin_g, s.max_iterations)
    by_depth = min(s.iterations_per_level * depth**2, s.max_iterations)
    by_span = min(s.iterations_per_level * span**2 * min(1.0, (s.span_margin / margin_g) ** 2), s.max_iterations)
    iterations = int(round(max(by_margin, by_depth, by_span, s.min_iterations)))
    return residual, iterations


def tuned_for(margin_g: float | None, settings: PhysicsSettings = TUNED, depth: int = 1,
              span: int = 0) -> PhysicsSettings:
    """``settings`` with the solver tolerance and iteration bound of :func:`precision_for`."""
    residual, iterations = precision_for(margin_g, settings, depth, span)
    return settings.with_(residual_velocity=residual, solver_iterations=iterations)


def support_depth(scene: Scene, interfaces) -> int:
    """The most movable pieces any weight passes through on its way down to the board, the table
    or a fixed piece (1 for pieces lying on the board, 10 for a tower of 10 blocks).

    Args:
        scene: the scene.
        interfaces: its contact interfaces (``StaticsResult.interfaces``).
    """
    from sim.analysis import support_graph

    graph = support_graph(scene, interfaces)
    movable = {p.id for p in scene.pieces if not p.fixed}
    depth: dict[str, int] = {}
    for start in movable:  # longest chain downwards, iteratively; a cycle of side-by-side supports counts once
        stack, on_path = [start], {start}
        while stack:
            i = stack[-1]
            below = [j for j in graph.rests_on(i) if j in movable and j not in depth and j not in on_path]
            if below:
                stack.append(below[0])
                on_path.add(below[0])
                continue
            depth[i] = 1 + max((depth[j] for j in graph.rests_on(i) if j in depth), default=0)
            stack.pop()
            on_path.discard(i)
    return max(depth.values(), default=1)


def span_length(scene: Scene, interfaces) -> int:
    """The most pieces on the shortest path between two grounded pieces through pieces that are not: an arch's
    span (9 for 9 voussoirs on fixed abutments, 11 on abutment blocks), a lintel's three; 0 without such a path.
    A piece is grounded when it touches the board, the table or a fixed piece; grounded pieces side by side make
    no bridge.

    Args:
        scene: the scene.
        interfaces: its contact interfaces (``StaticsResult.interfaces``).
    """
    from sim.analysis import support_graph

    graph = support_graph(scene, interfaces)
    movable = {p.id for p in scene.pieces if not p.fixed}
    grounded = {i for i in movable if any(j not in movable for j in graph.touching(i))}
    longest = 0
    for start in grounded:  # breadth first from each grounded piece, on through the ungrounded ones only
        seen, frontier, steps = {start}, [start], 1
        while frontier:
            steps += 1
            ahead = []
            for i in frontier:
                if i != start and i in grounded:
                    continue
                for j in graph.touching(i):
                    if j in movable and j not in seen and not (i == start and j in grounded):
                        seen.add(j)
                        ahead.append(j)
                        if j in grounded:
                            longest = max(longest, steps)
            frontier = ahead
    return longest
