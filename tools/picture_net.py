"""The README's picture of two windows on one served game (docs/images/network-two-windows.png).

    python tools/picture_net.py [OUT]      # docs/images/network-two-windows.png by default

What two players on two machines see at one moment: ``towerlab serve babylon --variant fast`` (red, blue, green)
in a process of its own; the round built so far by the three seats through the server (headless clients, each
action answered before the next); then red's and blue's seats taken by two windows (``towerlab play --join``)
side by side on an Xvfb of this tool's own, green staying at the table headless. Blue's window picks up one of
its towers and carries it over the table; red's window shows it carried. The tool waits on the two windows'
probes (``sim.viewer.window.probe``, never a fixed time) until both show the server's table — every piece at the same
pose bit for bit in both, but the carried one, which blue's window holds where its hand is and red's shows
where the server has it (within a millimetre) — and then grabs the whole screen at once: both windows in one
picture of one instant, not two grabs put together.

Needs Xvfb and xdotool.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bench_net import _serve  # noqa: E402
from desktop import Desktop, launch  # noqa: E402
from picture_play import _put, own_display  # noqa: E402

from sim.net.client import Client  # noqa: E402

SIZE = (760, 560)
"""Each window's size (pixels); the two stand side by side."""
SEATS = ("red", "blue", "green")
CARRIED = "blue-tower-4"


def _build() -> list[tuple[str, dict]]:
    """Round 1 of the fast game under way (tools/picture_play.py's, seat by seat): a bridge with a tower at each
    end in red and blue's area, a noble of each on them; towers and a noble in green and red's; a bridge on two
    towers and a tower on it in blue and green's."""
    steps = [("red", _put("red-bridge-1", -150, -80) + _put("red-tower-1", -175, -80) + _put("red-tower-2", 150, -80)),
             ("blue", _put("blue-tower-1", -125, -80) + _put("blue-small-1", -125, -80)
              + _put("blue-tower-2", -25, 150) + _put("blue-tower-3", 25, 150) + _put("blue-bridge-1", 0, 150)),
             ("green", _put("green-tower-1", 150, -80) + _put("green-small-1", 156.2, -80, free=True)
              + _put("green-tower-2", 0, 150)),
             ("red", _put("red-small-1", -175, -80) + _put("red-small-2", 143.8, -80, free=True))]
    return [(seat, a) for seat, actions in steps for a in actions]


async def _play(links: dict, build: list[tuple[str, dict]]) -> Client:
    """The round built through the server; red's and blue's clients leave (their windows take the seats), green's
    stays: its client."""
    clients = {s: Client(links[s], name="picture_net") for s in SEATS}
    for c in clients.values():
        await c.join()
    for c in clients.values():
        await c.wait_for(lambda c: bool(c.state) and c.state.get("stands") is None, 60)
    for seat, a in build:
        answer = await clients[seat].act(a, timeout=60)
        if not answer["ok"]:
            raise SystemExit(f"{seat}: {a}: refused ({answer.get('rule')}): {answer.get('reason')}")
        if a["action"] == "drop":  # the hands free again before the next seat's pick
            done = answer["frame"]
            await clients[seat].wait_for(lambda c, done=done: c.state["frame"] > done and not c.state["hands"], 60)
    for s in ("red", "blue"):
        await clients[s].close()
    return clients["green"]


def _game(state: dict) -> dict:
    return next(g for g in state["game"] if "seat" in g)


def _differences(red: dict, blue: dict) -> tuple[int, float, float] | None:
    """How far apart two windows' pictures of the table are: the server frames they show, the largest difference
    of a piece's pose between them (m or quaternion components) but the carried piece's, the carried piece's
    (m); None when they show different pieces."""
    if red["ids"] != blue["ids"]:
        return None
    rest, carried = 0.0, 0.0
    for pid, a, b in zip(red["ids"], red["poses"], blue["poses"]):
        d = max(abs(x - y) for x, y in zip(a, b))
        if pid == CARRIED:
            carried = max(abs(x - y) for x, y in zip(a[:3], b[:3]))
        else:
            rest = max(rest, d)
    return abs(_game(red)["frame"] - _game(blue)["frame"]), rest, carried


def _same_table(red: dict, blue: dict) -> bool:
    """Both windows show the same moment: server frames at most 3 apart (a twentieth of a second), the pieces at
    rest at the same poses (a piece resting on others moves by a bit or two now and then), the carried one within
    3 mm (blue's window holds it where its hand is, red's shows the server's)."""
    d = _differences(red, blue)
    return d is not None and d[0] <= 3 and d[1] <= 1e-6 and d[2] <= 3e-3


def _window(display: str, work: Path, link: str, seat: str, actions: list, x: int) -> Desktop:
    cwd = work / seat
    cwd.mkdir()
    script = cwd / "actions.json"
    script.write_text(json.dumps(actions))
    proc = launch(display, cwd, "play", "--join", link, "--actions", str(script), "--size", f"{SIZE[0]}x{SIZE[1]}")
    window = Desktop(display, cwd, proc, f"towerlab play: .*, {seat}$", SIZE, 0.0, 180.0)
    window.xdotool("windowmove", window.window, str(x), "0")
    window.origin = (x, 0)
    return window


def picture(out: Path, display: str, work: Path) -> None:
    server, links = _serve(["babylon", "--variant", "fast", "--players", ",".join(SEATS), "--port", "0",
                            "--no-record", "--autosave", str(work / "table.json")], work)
    loop = asyncio.new_event_loop()  # green's client goes on talking to the table while the windows play
    thread = threading.Thread(target=loop.run_forever, name="picture-net", daemon=True)
    thread.start()
    windows = []
    try:
        green = asyncio.run_coroutine_threadsafe(_play(links, _build()), loop).result(600)
        red = _window(display, work, links["red"], "red", [], 0)
        windows.append(red)
        blue = _window(display, work, links["blue"], "blue", [{"action": "pick", "piece": CARRIED},
                                                             {"action": "move-to", "at": [-250, 40]},
                                                             {"action": "lift", "mm": 20}], SIZE[0] + 10)
        windows.append(blue)

        def carrying(s: dict) -> bool:
            g = _game(s)
            return not s["scripted"] and g["answered"] == g["sent"] >= 3 and bool(g["server_hands"]) and \
                bool(s["hands"]) and s["steady"] >= 3
        blue.wait(carrying, 300.0, "blue's window carrying its tower")
        deadline = time.monotonic() + 120.0
        while True:
            r = red.wait(lambda s: s["steady"] >= 3 and bool(_game(s)["server_hands"]), 120.0, "red's window")
            b = blue.state()
            if _same_table(r, b):
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"the two windows never showed the same table: {_differences(r, b)}")
            time.sleep(0.1)
        red.xdotool("mousemove", str(2 * SIZE[0] + 40), str(SIZE[1] + 40))  # the pointer off both windows
        import imageio_ffmpeg

        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-f", "x11grab", "-video_size",
                        f"{2 * SIZE[0] + 10}x{SIZE[1]}", "-i", f"{display}+0,0", "-frames:v", "1", "-y", str(out)],
                       check=True, timeout=60)
        after = _differences(red.state(), blue.state())
        print(f"{out}: red's window at server frame {_game(r)['frame']}, blue's at {_game(b)['frame']}; before the "
              f"grab: {_differences(r, b)}, after it: {after} (frames apart, largest pose difference at rest, the "
              "carried piece's, m)")
        for w in windows:
            w.quit()
        asyncio.run_coroutine_threadsafe(green.close(), loop).result(30)
    finally:
        for w in windows:
            if w.proc.poll() is None:
                w.proc.kill()
        server.send_signal(2)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "images" / "network-two-windows.png"
    with own_display(2 * SIZE[0] + 60, SIZE[1] + 60) as display, tempfile.TemporaryDirectory() as work:
        picture(out, display, Path(work))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
