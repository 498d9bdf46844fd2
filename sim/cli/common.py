"""What every command shares: the app, error exits, JSON output and the console."""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import typer
from rich.console import Console

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

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one line to stderr and exit with ``code``."""
    print(f"towerlab: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def emit_json(data) -> None:
    """Print data as JSON on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
