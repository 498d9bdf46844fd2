"""Reference structures with known answers, as scenes (pure: importing this loads no engine).

:mod:`sim.cases.reference`: the cases both methods are tuned, tested and
benchmarked on (harmonic stacks of any proportions, a block on a slope,
Talo's balance rule, a Tohuwabohu level on a brick, a cube tower, all 55 Talo
blocks). :mod:`sim.cases.thin`: the thin-margin suite
(margins of 0.002–0.01 g on both sides of the boundary) on which the
simulation is held to the statics. :mod:`sim.cases.arches`: the masonry suite
(voussoir arches about their critical thickness and friction, whose reference
comes from the thrust lines of :mod:`sim.cases.thrust`, written apart from the
statics).
"""

from sim.cases.reference import (
    FORMAT,
    HARMONIC_BLOCK,
    TABLE_BOX,
    block_on_slope,
    cube_tower,
    friction_angle,
    harmonic_margin,
    harmonic_offsets,
    harmonic_stack,
    talo_all_blocks,
    talo_balance,
    talo_counterweight,
    tohu_plate,
)

__all__ = [
    "FORMAT", "HARMONIC_BLOCK", "TABLE_BOX", "block_on_slope", "cube_tower", "friction_angle",
    "harmonic_margin", "harmonic_offsets", "harmonic_stack", "talo_all_blocks", "talo_balance",
    "talo_counterweight", "tohu_plate",
]
