"""The README's pictures of the three games in play: ``towerlab play`` in a window under an Xvfb of its own, a
scripted position, the window (panels and all) grabbed from the X server.

    python tools/picture_play.py [OUT_DIR [GAME ...]]   # docs/images by default: play-talo.png,
                                               # play-tohuwabohu.png, play-babylon.png, play-babylon-fast.png,
                                               # play-legal.png (Babylon: a carried tower's legal places)

Needs Xvfb and xdotool. Each game runs its script, then waits until the window's probe says its picture is
complete (the full quality, or a piece in hand held still with its legal moves worked out), then the window is
grabbed and closed.
"""

from __future__ import annotations

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


GAMES = {"talo": (_talo, ["--seed", "7"]), "tohuwabohu": (_tohuwabohu, ["--players", "ann,bob", "--seed", "3"]),
         "babylon": (_babylon, ["--players", "red,blue,green"]),
         "babylon-fast": (_babylon_fast, ["--players", "red,blue,green", "--variant", "fast"]),
         "legal": (_legal, ["--players", "red,blue,green"])}
"""Each picture: its script and ``towerlab play``'s arguments (the game is the name's first word; ``legal`` is
Babylon's)."""


def _run(env, *args, **kw):
    return subprocess.run(list(args), env=env, capture_output=True, text=True, timeout=60, **kw).stdout


def _wait_for_script(rec: Path, n: int, proc) -> None:
    """Until the recording (written a chunk a second as the game goes) holds the script's ``n`` actions."""
    from sim.replay import RecordingError, load_recording

    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the window closed: {proc.stderr.read()[-1500:]}")
        try:
            if len(load_recording(rec).actions) >= n:
                return
        except RecordingError:
            pass
        time.sleep(2.0)
    raise SystemExit(f"{rec}: the script did not finish")


def _wait_for_picture(probe: Path, proc) -> None:
    """Until the window's probe says its picture is complete: idle (the full quality), or with a piece in hand
    steady and its legal moves worked out; then a second more (the panels are written four times a second)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the window closed: {proc.stderr.read()[-1500:]}")
        try:
            s = json.loads(probe.read_text())
        except (OSError, ValueError):
            s = None
        if s is not None and not s.get("scripted") and (s["idle"] or (s["hands"] and s["steady"] >= 3
                                                                       and not s["busy"])):
            time.sleep(1.0)
            return
        time.sleep(0.2)
    raise SystemExit(f"{probe}: the window's picture did not settle")


def picture(game: str, out: Path, display: str, work: Path) -> None:
    make, args = GAMES[game]
    script = work / f"{game}.json"
    script.write_text(json.dumps(make()))
    env = dict(os.environ, DISPLAY=display, TOWERLAB_RECORDINGS=str(work / "recordings"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    rec = work / f"{game}.tlrec"
    env["TOWERLAB_PROBE"] = str(work / "probe.json")
    name = "babylon" if game == "legal" else game.split("-")[0]
    proc = subprocess.Popen([sys.executable, "-m", "sim", "play", name, *args, "--actions", str(script),
                             "--size", f"{SIZE[0]}x{SIZE[1]}", "--record", str(rec)], env=env, cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        window = None
        while window is None:
            if proc.poll() is not None:
                raise SystemExit(f"{game}: the window closed: {proc.stderr.read()[-1500:]}")
            found = _run(env, "xdotool", "search", "--name", "towerlab play").split()
            window = found[0] if found else None
            time.sleep(0.5)
        _wait_for_script(rec, len(make()), proc)
        _wait_for_picture(work / "probe.json", proc)
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


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]) if argv else ROOT / "docs" / "images"
    number = next(n for n in range(700, 900) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    display = f":{number}"
    server = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{SIZE[0] + 100}x{SIZE[1] + 100}x24", "-nolisten",
                               "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            time.sleep(0.1)
        with tempfile.TemporaryDirectory() as work:
            for game in (argv[1:] or GAMES):
                picture(game, out_dir / f"play-{game}.png", display, Path(work))
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
