"""``python -m sim``: the ``towerlab`` command (for a checkout without the console script)."""

from sim.cli import run

run()
