"""The ``towerlab`` command line.

Each module of this package (other than ``common``) adds its commands in a
``register(app)`` function, so that capabilities plug in without touching a
central list. Every way a run can go wrong for the user ends in one line on
stderr: bad input and usage mistakes exit 2 (a usage mistake also prints the
command's usage line), Ctrl-C exits 130.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import pkgutil
import signal
import sys
import threading
from contextlib import contextmanager

import typer

from sim.cli.common import INTERRUPTED, app, error_line
from sim.errors import TowerlabError

_SKIP = {"common"}

# The click that typer parses with: the separately installed ``click`` up to typer 0.2x, its own
# copy (``typer._click``) since. ``typer.BadParameter`` is that click's class in either layout, so
# its module holds the exception classes typer raises.
_CLICK_ERRORS = sys.modules[typer.BadParameter.__module__]
ClickException = _CLICK_ERRORS.ClickException
UsageError = _CLICK_ERRORS.UsageError
NoArgsIsHelpError = getattr(_CLICK_ERRORS, "NoArgsIsHelpError", ())  # click >= 8.2 raises it for bare groups


def _register_all() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name not in _SKIP:
            importlib.import_module(f"{__name__}.{info.name}").register(app)


_register_all()


@contextmanager
def held_interrupts():
    """Hold a Ctrl-C that comes during the block, and raise it as the block ends (in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = []
    previous = signal.signal(signal.SIGINT, lambda *_: held.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


class _HeldLoader(importlib.abc.Loader):
    """A module's loader that runs the module with Ctrl-C held (everything else is the loader's own)."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        with held_interrupts():
            self.loader.exec_module(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


class _HoldDuringImport(importlib.abc.MetaPathFinder):
    """Imports trimesh with Ctrl-C held: trimesh imports its optional parts inside ``except BaseException``,
    so a Ctrl-C landing there (its import takes half a second) was swallowed, the run went on to exit 0 and
    the part was left broken."""

    PACKAGES = ("trimesh",)

    def find_spec(self, name, path=None, target=None):
        if name not in self.PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _HeldLoader(spec.loader)
        return spec


def main(argv=None) -> int:
    """Run the CLI; returns the exit code (0 done, 2 bad input or usage, 130 interrupted)."""
    finder = _HoldDuringImport()
    sys.meta_path.insert(0, finder)
    try:
        code = _invoke(argv)
    except KeyboardInterrupt:  # before or after typer's own handling of it
        code = INTERRUPTED
    finally:
        sys.meta_path.remove(finder)
    if code == INTERRUPTED:
        print("towerlab: interrupted", file=sys.stderr)
    return code


def _invoke(argv) -> int:
    try:
        returned = app(args=argv, prog_name="towerlab", standalone_mode=False)
    except TowerlabError as e:
        error_line(str(e))
        return 2
    except typer.Exit as e:  # click < 8.2 and typer < 0.2x raise it instead of returning the code
        return e.exit_code
    except typer.Abort:  # click < 8.2 turns Ctrl-C into Abort
        return INTERRUPTED
    except NoArgsIsHelpError as e:  # a bare group (click >= 8.2): its help, exit 0 as with older click
        if e.format_message():  # the rich help is already printed
            print(e.format_message())
        return 0
    except ClickException as e:
        _usage_error(e)
        return 2
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    # without standalone mode typer returns the code of an Exit (typer >= 0.2x, also Ctrl-C's 130)
    return returned if isinstance(returned, int) else 0


def _usage_error(e) -> None:
    """A usage mistake: the command's usage on one line, then one error line with the help hint."""
    ctx = getattr(e, "ctx", None) if isinstance(e, UsageError) else None
    hint = ""
    if ctx is not None:
        print(" ".join(ctx.get_usage().split()), file=sys.stderr)
        if ctx.command.get_help_option(ctx) is not None:
            hint = f". Try '{ctx.command_path} {ctx.help_option_names[0]}' for help."
    error_line(" ".join(e.format_message().split()).rstrip(".") + hint)


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
