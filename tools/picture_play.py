"""The README's pictures of the viewer and of the three games in play: ``towerlab view`` / ``towerlab play`` in a
window under an Xvfb of its own, a scripted position, the window (panels and all) grabbed from the X server.

    python tools/picture_play.py [OUT_DIR [NAME ...]]   # docs/images by default: viewer.png, play-talo.png,
                                               # play-tohuwabohu.png, play-babylon.png, play-babylon-fast.png,
                                               # play-legal.png (Babylon: a carried tower's legal places),
                                               # play-bot.png (Tohuwabohu against a computer player)

Needs Xvfb and xdotool. Each runs its script; the window's probe (``sim.viewer.window.probe``) says when the script is
done and the picture is the one to keep (idle at full quality; steady with a piece in hand and its legal moves
worked out), then the window is
grabbed and closed.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "play"
SIZE = (1280, 800)


def _talo() -> list:
    actions = json.loads((DATA / "talo-seed7.json").read_text())
    k = [i for i, a in enumerate(actions) if a["action"] == "end-turn"][6]  # seven turns in
    return actions[:k + 1] + [{"action": "throw"}, {"action": "select-pawn", "player": "red"}]


def _tohuwabohu() -> list:
    return [{"action": "pick", "piece": "large-green-1"}, {"action": "move-to", "at": [-35, 0]}, {"action": "drop"},
            {"action": "pick", "piece": "large-green-2"}, {"action": "move-to", "at": [35, 0]}, {"action": "drop"},
            {"action": "pick", "piece": "level-quad-1"}, {"action": "move-to", "at": [0, 0]}, {"action": "drop"},
            {"action": "wait", "seconds": 4.0}]


def _babylon() -> list:
    return json.loads((DATA / "babylon-first-turn.json").read_text()) + [
        {"action": "pick", "piece": "blue-tower-1"}, {"action": "move-to", "at": [60, -40]}]


def _legal() -> list:
    """Blue's turn after red's first: a tower carried over red's building, onto a bridge off its spots (refused:
    the ghost red, the rule written over it), every place it may go ringed: tower tops, bridge spots, the table
    beside the building."""
    return json.loads((DATA / "babylon-first-turn.json").read_text()) + [
        {"action": "follow", "piece": "red-bridge-3"}, {"action": "zoom", "factor": 0.5},
        {"action": "orbit", "degrees": [-25.0, 10.0]},
        {"action": "pick", "piece": "blue-tower-1"}, {"action": "move-to", "at": [-40, 60]}]


def _put(piece: str, x: float, y: float, free: bool = False, turn: float = 0.0) -> list:
    return ([{"action": "pick", "piece": piece}] + ([{"action": "rotate", "degrees": turn}] if turn else [])
            + [{"action": "move-to", "at": [x, y], "free": free}, {"action": "drop", "free": free}])


def _babylon_fast() -> list:
    """Round 1 of the fast game under way: in red and blue's area a bridge with a tower at each end and a noble of
    each on them; in green and red's a tower on a tower with two nobles; in blue and green's a bridge on two towers
    and a tower on it; green's hands at work, a tower in hand."""
    red, blue, green = ({"action": "seat", "player": p} for p in ("red", "blue", "green"))
    return (_put("red-bridge-1", -150, -80) + _put("red-tower-1", -175, -80) + _put("red-tower-2", 150, -80)
            + [blue] + _put("blue-tower-1", -125, -80) + _put("blue-small-1", -125, -80)
            + _put("blue-tower-2", -25, 150) + _put("blue-tower-3", 25, 150) + _put("blue-bridge-1", 0, 150)
            + [green] + _put("green-tower-1", 150, -80) + _put("green-small-1", 156.2, -80, free=True)
            + _put("green-tower-2", 0, 150)
            + [red] + _put("red-small-1", -175, -80) + _put("red-small-2", 143.8, -80, free=True)
            + [green, {"action": "pick", "piece": "green-tower-3"}, {"action": "move-to", "at": [60, 130]}])


def _viewer() -> list:
    """Talo's set-up in the viewer: a bridge of a 7 on two 3s, a cube beside it, a 3 carried over the board."""
    return (_put("b3-1", -40, 0) + _put("b3-2", 40, 0) + _put("b7-1", 0, 0) + _put("b1-1", -64, 0)
            + [{"action": "pick", "piece": "b3-3"}, {"action": "move-to", "at": [70, 60]},
               {"action": "zoom", "factor": 0.7}])


def _bot() -> list:
    """Tohuwabohu against the computer: ann's turn made by a person (the script: three pieces set), then bob, a
    computer player of level 3, at work: its hand carrying a piece, its reasoning open (the anchors it weighed,
    their scores and risks of collapse)."""
    return _tohuwabohu()[:-1] + [{"action": "bot-reasoning", "show": True}]


def _bot_at_work(state: dict) -> bool:
    """The computer players' picture: their second move or later, a piece in a computer's hand on the way."""
    bots = next((g for g in state.get("game") or [] if "seats" in g), {})
    weighed = any("\n  3. " in t["text"] for t in state.get("texts") or [])  # its candidates listed
    return bots.get("made", 0) >= 2 and bots.get("moving") is not None and bool(state.get("hands")) and weighed


VIEWER = ["view", "--game", "talo", "--no-recovery"]
"""The viewer's picture: ``towerlab view`` (every other name is ``towerlab play`` of that game)."""
GAMES = {"viewer": (_viewer, VIEWER), "talo": (_talo, ["--seed", "7"]),
         "tohuwabohu": (_tohuwabohu, ["--players", "ann,bob", "--seed", "3"]),
         "babylon": (_babylon, ["--players", "red,blue,green"]),
         "babylon-fast": (_babylon_fast, ["--players", "red,blue,green", "--variant", "fast"]),
         "legal": (_legal, ["--players", "red,blue,green"]),
         "bot": (_bot, ["--players", "ann,bob", "--seed", "3", "--bot", "bob:3"])}
"""Each picture: its script and the command's arguments (``towerlab play`` of the game that is the name's first
word; ``legal`` is Babylon's, ``bot`` Tohuwabohu's)."""
READY = {"bot": _bot_at_work}
"""Pictures taken at a moment of their own (else: idle, or steady with a piece in hand)."""


def _run(env, *args, **kw):
    return subprocess.run(list(args), env=env, capture_output=True, text=True, timeout=60, **kw).stdout


def _wait_for_picture(probe: Path, proc, ready=None) -> None:
    """Until the window's script has run and its picture is the one to keep: idle (the full-quality still), or
    steady for a while with a piece in hand (a carried piece keeps the live picture) and nothing left to work out
    (its legal moves); then a second more (the panels are written four times a second)."""
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the window closed: {proc.stderr.read()[-1500:]}")
        try:
            state = json.loads(probe.read_text())
        except (OSError, ValueError):
            state = {}
        if ready is not None and state and not state.get("scripted", True) and ready(state):
            return  # (a moment: taken at once)
        if ready is None and state and not state.get("scripted", True) and (state.get("idle") or (
                state.get("hands") and state.get("steady", 0) > 30 and not state.get("busy", True))):
            time.sleep(1.0)
            return
        time.sleep(0.2)
    raise SystemExit(f"{probe}: the script did not finish")


def picture(name: str, out: Path, display: str, work: Path) -> None:
    make, args = GAMES[name]
    script = work / f"{name}.json"
    script.write_text(json.dumps(make()))
    probe = work / f"{name}.probe.json"
    env = dict(os.environ, DISPLAY=display, TOWERLAB_RECORDINGS=str(work / "recordings"), TOWERLAB_PROBE=str(probe),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    game = {"legal": "babylon", "bot": "tohuwabohu"}.get(name, name.split("-")[0])
    command = args if args is VIEWER else ["play", game, *args, "--record", str(work / f"{name}.tlrec")]
    proc = subprocess.Popen([sys.executable, "-m", "sim", *command, "--actions", str(script),
                             "--size", f"{SIZE[0]}x{SIZE[1]}"], env=env, cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    title = "towerlab view" if args is VIEWER else "towerlab play"
    try:
        window = None
        while window is None:
            if proc.poll() is not None:
                raise SystemExit(f"{name}: the window closed: {proc.stderr.read()[-1500:]}")
            found = _run(env, "xdotool", "search", "--name", title).split()
            window = found[0] if found else None
            time.sleep(0.5)
        _wait_for_picture(probe, proc, READY.get(name))
        geometry = _run(env, "xdotool", "getwindowgeometry", window)
        x, y = next(line for line in geometry.splitlines() if "Position" in line).split()[1].split(",")
        import imageio_ffmpeg

        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-f", "x11grab", "-video_size",
                        f"{SIZE[0]}x{SIZE[1]}", "-i", f"{display}+{x},{y}", "-frames:v", "1", "-y", str(out)],
                       check=True, timeout=60)
        print(f"{out}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextlib.contextmanager
def own_display(width: int, height: int):
    """An Xvfb server of this tool's own, ``width`` x ``height`` pixels, on a free display number: its DISPLAY."""
    number = next(n for n in range(700, 900) if not Path(f"/tmp/.X11-unix/X{n}").exists()
                  and not Path(f"/tmp/.X{n}-lock").exists())
    display = f":{number}"
    server = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp", "-noreset"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            time.sleep(0.1)
        yield display
    finally:
        server.terminate()
        server.wait(timeout=10)


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]) if argv else ROOT / "docs" / "images"
    with own_display(SIZE[0] + 100, SIZE[1] + 100) as display, tempfile.TemporaryDirectory() as work:
        for name in (argv[1:] or GAMES):
            picture(name, out_dir / ("viewer.png" if name == "viewer" else f"play-{name}.png"), display,
                    Path(work))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
