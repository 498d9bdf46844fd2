"""``python -m sim``: the ``towerlab`` command (for a checkout without the console script)."""

import sys


def run() -> None:
    """The command, with a Ctrl-C during its start (the imports) ending as one later does: one line, exit 130."""
    try:
        from sim.cli import run as cli
    except KeyboardInterrupt:
        print("towerlab: interrupted", file=sys.stderr)
        sys.exit(130)
    cli()


if __name__ == "__main__":  # not again in a worker process that imports the main module (multiprocessing's spawn)
    run()
