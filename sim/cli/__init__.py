"""The ``towerlab`` command line.

Each module of this package (other than ``common``) adds its commands in a
``register(app)`` function, so that capabilities plug in without touching a
central list. Bad input ends in one line on stderr and exit code 2.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from sim.cli.common import app
from sim.errors import TowerlabError

_SKIP = {"common"}


def _register_all() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name not in _SKIP:
            importlib.import_module(f"{__name__}.{info.name}").register(app)


_register_all()


def main(argv=None) -> int:
    """Run the CLI; returns the exit code (0 done, 2 bad input)."""
    try:
        code = app(args=argv, prog_name="towerlab", standalone_mode=False)
    except TowerlabError as e:
        print(f"towerlab: error: {e}", file=sys.stderr)
        return 2
    except typer.Exit as e:
        return e.exit_code
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except Exception as e:  # click's usage errors arrive here without standalone mode
        import click

        if isinstance(e, click.exceptions.ClickException):
            e.show()
            return e.exit_code
        if isinstance(e, click.exceptions.Abort):
            print("towerlab: aborted", file=sys.stderr)
            return 130
        raise
    return code if isinstance(code, int) else 0  # typer turns Ctrl-C into exit code 130, returned here


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
