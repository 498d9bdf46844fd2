"""``python -m sim``: the ``towerlab`` command (for a checkout without the console script)."""

from sim.cli import run

if __name__ == "__main__":  # not again in a worker process that imports the main module (multiprocessing's spawn)
    run()
