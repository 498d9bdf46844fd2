"""Before/after proof for the games: every game command on every bundled scene, its output recorded.

Runs the ``towerlab tohuwabohu|talo|babylon`` commands in-process on every
scene under ``scenes/`` (JSON and text, with and without the physics) and
compares their exit codes and output with ``tests/golden/games.json``::

    python -m tests.games_golden --check            # the quick cases (no physics), as the test does
    python -m tests.games_golden --check --physics  # every case, the physics too (a few minutes)
    python -m tests.games_golden --write --physics  # record the current output as the reference

A change of output is either a bug or a rule fix; a rule fix records the new
output and says so in its commit.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "scenes"
GOLDEN = ROOT / "tests" / "golden" / "games.json"


@dataclass(frozen=True)
class Case:
    """One command line, and whether it runs the physics."""

    args: tuple[str, ...]
    physics: bool

    @property
    def key(self) -> str:
        return " ".join(self.args)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def cases() -> list[Case]:
    """Every recorded command, in a fixed order."""
    out: list[Case] = []

    def both(args, physics_flag_off=("--no-physics",)):
        out.append(Case((*args, *physics_flag_off), False))
        out.append(Case(tuple(args), True))

    for f in sorted((SCENES / "tohuwabohu").rglob("*.json")):
        both(("tohuwabohu", "check", _rel(f), "--json"))
    for f in sorted((SCENES / "tohuwabohu").glob("*.json")):
        out.append(Case(("tohuwabohu", "check", _rel(f), "--no-physics"), False))
    for f in sorted((SCENES / "talo").glob("*.json")):
        both(("talo", "check", _rel(f), "--json"))
        out.append(Case(("talo", "check", _rel(f), "--no-physics"), False))
        colours = [p.get("color") for p in json.loads(f.read_text())["pieces"] if p["kind"] == "talo.pawn"]
        for c in colours:
            out.append(Case(("talo", "moves", _rel(f), "--pawn", c, "--json"), False))
            out.append(Case(("talo", "moves", _rel(f), "--pawn", c), False))
    for g in sorted((SCENES / "talo" / "games").glob("*.talo-game")):
        both(("talo", "play", _rel(g), "--json"))
        out.append(Case(("talo", "play", _rel(g), "--no-physics"), False))
    for seed in ("0", "1", "2"):
        out.append(Case(("talo", "auto", "--seed", seed, "--no-physics", "--json"), False))
    out.append(Case(("talo", "auto", "--seed", "3", "--players", "red,blue,green", "--board", "talo-island",
                     "--no-physics"), False))
    out.append(Case(("talo", "auto", "--seed", "0", "--max-turns", "4", "--json"), True))
    for f in sorted((SCENES / "babylon").glob("*.json")):
        for mode in ("tactical", "fast"):
            both(("babylon", "score", _rel(f), "--mode", mode, "--json"))
            out.append(Case(("babylon", "score", _rel(f), "--mode", mode, "--no-physics"), False))
    fast = _rel(SCENES / "babylon" / "fast-example.json")
    for knocks in (("--knock", "blue:rb-s1,rb-s3", "--knock", "red:green-2b"), ("--knock", "green:gr-c2")):
        out.append(Case(("babylon", "score", fast, "--mode", "fast", *knocks, "--no-physics", "--json"), False))
        out.append(Case(("babylon", "score", fast, "--mode", "fast", *knocks, "--expert", "--no-physics"), False))
    first, second = _rel(SCENES / "babylon" / "first-turn.json"), _rel(SCENES / "babylon" / "second-turn.json")
    tactical = _rel(SCENES / "babylon" / "tactical-example.json")
    for before, after, player in ((first, second, "blue"), (first, second, "green"), (second, first, "blue"),
                                  (first, first, "blue"), (tactical, tactical, "green")):
        both(("babylon", "check-turn", before, after, "--player", player, "--json"))
        out.append(Case(("babylon", "check-turn", before, after, "--player", player, "--no-physics"), False))
    out.append(Case(("babylon", "check-turn", first, second, "--player", "blue", "--expert", "--later-round",
                     "--no-physics", "--json"), False))
    return out


def run(case: Case) -> dict:
    """Run one command in-process: ``{code, out}`` (stdout; stderr's first line on an error)."""
    from sim.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(list(case.args))
    result = {"code": code, "out": stdout.getvalue()}
    if code:
        result["err"] = stderr.getvalue().strip().splitlines()[:1]
    return result


def load() -> dict:
    """The recorded reference: command line -> ``{code, out}``."""
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def differences(physics: bool) -> list[str]:
    """The cases whose output differs from the reference (with the physics cases when asked)."""
    golden = load()
    bad = []
    for case in cases():
        if case.physics and not physics:
            continue
        if case.key not in golden:
            bad.append(f"{case.key}: not recorded")
        elif run(case) != golden[case.key]:
            bad.append(case.key)
    return bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="record the current output")
    ap.add_argument("--check", action="store_true", help="compare with the record")
    ap.add_argument("--physics", action="store_true", help="include the cases that run the physics")
    args = ap.parse_args(argv)
    if args.write:
        old = load() if GOLDEN.exists() else {}
        new = {c.key: run(c) if c.physics <= args.physics else old.get(c.key) for c in cases()}
        changed = sorted(k for k, v in new.items() if old.get(k) != v)
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps({k: v for k, v in new.items() if v is not None}, indent=1,
                                     ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{len(new)} cases recorded, {len(changed)} changed" + "".join(f"\n  {k}" for k in changed))
        return 0
    bad = differences(args.physics)
    for k in bad:
        print(f"differs: {k}")
    print(f"{len(bad)} of {len([c for c in cases() if args.physics or not c.physics])} cases differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
