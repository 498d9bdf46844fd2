"""What every command shares: the app, error exits, JSON output, the console and output checks."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

import sim
from sim.atomic import can_create
from sim.errors import TowerlabError, printable

app = typer.Typer(
    name="towerlab",
    help="Physics simulator and visualizer for Tohuwabohu, Talo and Babylon Tower Builders.\n\n"
         "Scenes are JSON files (format towerlab-scene/1, see docs/scene-format.md). Every command "
         "that analyses takes --json for scripting; exit code 0 means the analysis ran (whatever its "
         "verdict), 2 means bad input.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

INTERRUPTED = 130
"""The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


def _version(value: bool) -> None:
    if value:
        print(f"towerlab {sim.__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Physics simulator and visualizer for Tohuwabohu, Talo and Babylon Tower Builders."""


console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def safe(text) -> str:
    """User text (a file name, an id, a title) ready for ``console.print``: printable, no markup."""
    return escape(printable(str(text)))


def error_line(message: str) -> None:
    """Print ``towerlab: error: message`` to stderr as one line of printable characters."""
    print(f"towerlab: error: {printable(message)}", file=sys.stderr)


def note_line(message: str, kind: str = "note") -> None:
    """Print ``towerlab: note: message`` (or another ``kind``: ``warning``) to stderr as one line of printable
    characters: a file's strings in it (a recording's software version) cannot act on the terminal."""
    print(f"towerlab: {kind}: {printable(message)}", file=sys.stderr)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one error line to stderr and exit with ``code``."""
    error_line(message)
    raise SystemExit(code)


def out_option(help: str):
    """The type of an output option, ``-o/--out FILE``, the same on every command."""
    return Annotated[Path | None, typer.Option("-o", "--out", help=help, show_default=False)]


def emit_json(data) -> None:
    """Print data as JSON on stdout: readable text, with anything a terminal would act on (or could not
    encode, such as a lone surrogate in a file name) written as a JSON escape."""
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    if not text.replace("\n", "").isprintable():
        text = "".join(c if c.isprintable() or c == "\n" else _json_escape(c) for c in text)
    sys.stdout.write(text + "\n")


def _json_escape(c: str) -> str:
    """One character as JSON writes it with ``ensure_ascii`` (beyond the BMP: a surrogate pair)."""
    return json.dumps(c)[1:-1]


Progress = Callable[[float, float], None]
"""A progress callback: ``update(done, total)`` in any unit (seconds simulated, trials, pieces)."""


@contextmanager
def progress(label: str, *, quiet: bool = False, unit: str = "") -> Iterator[Progress | None]:
    """A progress bar on stderr for work that can run over a second, shown only on a terminal.

    Args:
        label: what is being done, e.g. ``"checking bench.json"``.
        quiet: show nothing (``--json`` runs keep stderr for errors alone).
        unit: printed after the counts, e.g. ``"s simulated"`` or ``"trials"``.

    Yields:
        ``update(done, total)`` to call as the work goes, or None when nothing is shown
        (callers pass it on as an optional callback).
    """
    if quiet or not err_console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[done]}"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=err_console, transient=True) as bar:
        task = bar.add_task(label, total=1.0, done="")

        def update(done: float, total: float) -> None:
            counts = f"{done:.3g}/{total:.3g}" if isinstance(done, float) and not float(done).is_integer() \
                else f"{int(done)}/{int(total)}"
            bar.update(task, completed=done / total if total else 1.0, done=f"{counts} {unit}".rstrip())

        yield update


class OptionError(TowerlabError):
    """An option's value that cannot be used (a duration, a count)."""


MAX_SECONDS = 600.0
"""The longest simulated duration an option may ask for (s): a longer run is a typo, not an experiment."""


def seconds_option(value: float | None, option: str = "--seconds") -> float | None:
    """A simulated duration from the command line, checked: None (the default) or 0 < S <= 600.

    Raises:
        OptionError: one line naming the option, what it takes and what came.
    """
    if value is not None and not (math.isfinite(value) and 0.0 < value <= MAX_SECONDS):
        raise OptionError(f"{option}: expected a duration in seconds, 0 < S <= {MAX_SECONDS:g}, got {value:g}")
    return value


class OutputError(TowerlabError):
    """An output path that cannot be written."""


def writable_output(path: Path, option: str = "-o", *, directory: bool = False) -> Path:
    """Check, before any work, that ``path`` can be written: its temporary file is made (and any folder it
    needs) and removed again; return it.

    Args:
        path: the file (or, with ``directory``, the folder) the command will write.
        option: the option that named it, for the message (``-o``, ``--record``, ...).
        directory: the output is a folder (created if missing) rather than a file.

    Raises:
        OutputError: one line naming the option, the path and what is wrong: an existing
            folder where a file is wanted (or the reverse), a parent that is a file, a place
            this user cannot write.
    """
    path = Path(path)
    if directory:
        if path.exists() and not path.is_dir():
            raise OutputError(f"{option} {path}: is a file; give a folder")
    elif path.is_dir():
        raise OutputError(f"{option} {path}: is a folder; give a file name")
    parent = path if directory and path.is_dir() else path.parent
    while not parent.exists() and parent != parent.parent:  # the first folder that exists will hold the new ones
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(f"{option} {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {path}: cannot write in {parent} (permission denied)")
    try:  # the file (and its folders) made and removed again: what access() cannot tell (/proc, a full disk)
        can_create(path / ".probe" if directory else path)
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot create files in {e.filename or path.parent} "
                          f"({e.strerror or e})") from None
    return path


def distinct_files(*named: tuple[str, Path | None]) -> None:
    """Refuse two of a command's files that are one file: an output over an input (the input would be lost
    under it) or two outputs over each other.

    Args:
        named: (how the command line names the file: ``SCENE``, ``-o``, ``--record``; its path or None).

    Raises:
        OptionError: ``A and B: both name PATH; give two files``.
    """
    seen: dict[str, str] = {}
    for name, path in named:
        if path is None:
            continue
        key = os.path.realpath(path)
        if key in seen:
            raise OptionError(f"{seen[key]} and {name}: both name {path}; give two files")
        seen[key] = name


def one_output(out: Path | None, old: Path | None, old_name: str = "--output", what: str = "a file",
               required: bool = True) -> Path | None:
    """The one output path given by ``-o/--out`` or by its old spelling (a hidden alias).

    Raises:
        OptionError: both given, or (when ``required``) neither; ``what`` says what ``-o`` takes.
    """
    if out is not None and old is not None:
        raise OptionError(f"give -o/--out once ({old_name} is its old name)")
    if out is None and old is None and required:
        raise OptionError(f"-o/--out is required: {what}")
    return out if out is not None else old
