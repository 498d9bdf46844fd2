"""Every text on screen readable and apart, in real windows under Xvfb at 1280×800 and at 900×600: its contrast
measured from the grabbed pixels (WCAG AA, 4.5:1 against what is behind it), no text over another or over
another panel, none cut off by the window's edge — in the viewer (the three verdicts, the hover panel, a
message, the help), in the three games' play mode (Tohuwabohu with both hands full) and in the replay side by
side; and, while a text box has focus, no shortcut fires.

Each window is waited for through its probe (:mod:`sim.viewer.window.probe`), never slept on; one window is opened a
case and resized from the one size to the other.

Skipped where Xvfb or xdotool is missing (``make test`` installs them where apt is available).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from desktop import Desktop, camera_of, contrast, launch, overlaps

from sim.scene import from_dict, save_scene

SIZE = (1280, 800)
SMALL = (900, 600)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]

AA = 4.5
"""WCAG AA: the least contrast ratio of a text against what is behind it."""


# --- what the screen shows -------------------------------------------------------------------------------


def _inside(inner, outer, slack: float = 1.0) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack and inner[2] <= outer[2] + slack
            and inner[3] <= outer[3] + slack)


def _crossing(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def clashes(state: dict) -> list:
    """Texts over one another, texts over a panel they are not part of, texts cut off by the window's edge,
    and texts across a split between two panes (``state["splits"]``: [x0, x1] pixel columns; the help and the
    dialogs cover the split with their own card)."""
    texts, panels = state["texts"], state["panels"]
    out = [("text over text", a, b) for a, b in overlaps(texts)]
    for t in texts:
        for p in panels:
            if _crossing(t["box"], p["box"]) and not _inside(t["box"], p["box"]):
                out.append(("text over a panel", t["text"][:40], p["name"]))
    w, h = state["size"]
    out += [("cut off", t["text"][:40], t["box"]) for t in texts if not _inside(t["box"], [0, 0, w, h])]
    modal = [p["box"] for p in panels if p["name"] in ("help", "dialog")]
    for x0, x1 in state.get("splits", []):
        out += [("across the split", t["text"][:40], t["box"]) for t in texts if t["box"][0] < x1 and t["box"][2] > x0
                and not any(_inside(t["box"], box) for box in modal)]
    return out


def unreadable(picture, state: dict) -> list[tuple[str, float]]:
    """The texts whose contrast, measured from the picture, is below :data:`AA` (an empty text box has nothing to
    read: only its blinking cursor, there or not when the picture is taken)."""
    low = []
    for t in state["texts"]:
        if not t["text"].strip():
            continue
        ratio = contrast(picture, t["box"])
        if ratio < AA:
            low.append((t["text"][:40], round(ratio, 2)))
    return low


def _dialog(state: dict) -> bool:
    return any(p["name"] == "dialog" for p in state["panels"])


def _shown(state: dict) -> str:
    return "\n".join(t["text"] for t in state["texts"])


def look(d: Desktop, path: Path, state: dict) -> dict:
    """Grab the window; every text on it readable and apart."""
    picture = d.picture(path)
    after = d.state()  # a text that came or went (a message fading out) while the picture was taken is not judged
    kept = {(x["text"], tuple(x["box"])) for x in after["texts"]}
    shown = dict(state, texts=[x for x in state["texts"] if (x["text"], tuple(x["box"])) in kept])
    assert not unreadable(picture, shown), (path.name, unreadable(picture, shown))
    assert not clashes(state), (path.name, clashes(state))
    return state


def resize(d: Desktop, size: tuple[int, int], ready=None) -> dict:
    """Make the window ``size`` pixels; the state once it is drawn at that size and idle (or steady with a piece in
    a hand)."""
    before = d.state()
    d.xdotool("windowsize", d.window, str(size[0]), str(size[1]))
    d.size = size
    at = lambda s: s["size"] == list(size) and (ready is None or ready(s))  # noqa: E731
    d.wait(at, what=f"the window at {size}")
    return d.steady(before, at) if before["hands"] else d.idle(before, ready=at)


def at_both_sizes(d: Desktop, tmp_path: Path, name: str, ready=None) -> None:
    """Look at the window as it opened (:data:`SIZE`), then at :data:`SMALL`."""
    first = d.state()
    state = d.steady(ready=ready) if first["hands"] else d.idle(ready=ready)
    look(d, tmp_path / f"{name}-{SIZE[0]}.png", state)
    look(d, tmp_path / f"{name}-{SMALL[0]}.png", resize(d, SMALL, ready))


def _open(display: str, tmp_path: Path, *args: str, title: str) -> Desktop:
    return Desktop(display, tmp_path, launch(display, tmp_path, *args, "--size", f"{SIZE[0]}x{SIZE[1]}"), title, SIZE,
                   settle=0)


def _close(d: Desktop) -> None:
    if d.proc.poll() is None:
        d.proc.kill()
        d.proc.wait(timeout=30)


# --- the viewer ------------------------------------------------------------------------------------------


VERDICTS = {
    "stands": [{"id": "slab", "kind": "box", "size": [60, 60, 20], "pos": [0, 0, 10]}],
    "weak": [{"id": "post", "kind": "box", "size": [10, 10, 60], "pos": [0, 0, 30]}],  # margin 1/6 g < 0.2
    "falls": [{"id": "foot", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
              {"id": "plank", "kind": "box", "size": [80, 20, 10], "pos": [35, 0, 25]}],  # far over its edge
}


def _verdict_scene(folder: Path, name: str) -> Path:
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": VERDICTS[name]})
    path = folder / f"{name}.json"
    save_scene(scene, path)
    return path


def open_typed(d: Desktop, path: Path) -> dict:
    """Ctrl+O, the path typed into the file list, Enter; the state once the scene is loaded and judged."""
    d.keys("ctrl+o")
    d.xdotool("type", "--window", d.window, "--delay", "20", str(path))
    before = d.keys("Return", idle=False)
    return d.idle(before, ready=lambda s: not _dialog(s) and s["messages"][-1:] == [f"loaded {path}"]
                  and s["verdict"] is not None and not s["verdict"]["partial"])


def test_the_viewer_texts_are_readable_and_apart_at_both_sizes(display, tmp_path):
    """The stability panel of each verdict (green stands, orange weak, red falls: the plank held still by a pause,
    so that its verdict stays), with the status line, the hover panel and a message; then the help."""
    scenes = {name: _verdict_scene(tmp_path, name) for name in VERDICTS}
    actions = tmp_path / "pause.json"
    actions.write_text('[{"action": "pause"}]\n')
    d = _open(display, tmp_path, "view", str(scenes["falls"]), "--no-record", "--actions", str(actions),
              title="towerlab view")
    expect = {"stands": lambda v: v["stands"] and v["margin_g"] >= 0.2,
              "weak": lambda v: v["stands"] and v["margin_g"] < 0.2, "falls": lambda v: not v["feasible"]}
    try:
        d.idle(ready=lambda s: s["verdict"] is not None and not s["verdict"]["partial"])
        sizes = [SIZE, SMALL]
        for verdict in ("falls", "weak", "stands"):
            if verdict != "falls":
                open_typed(d, scenes[verdict])
            assert expect[verdict](d.state()["verdict"]), d.state()["verdict"]
            for size in sizes:
                if d.state()["size"] != list(size):
                    resize(d, size)
                state = d.state()
                piece = state["poses"][state["ids"].index(VERDICTS[verdict][0]["id"])]
                d.point(*camera_of(state).project([piece[:3]])[0])
                before = d.keys("h", idle=False)  # a message: "the left hand" (or "the right hand")
                state = d.idle(before, ready=lambda s: s["hovered"] is not None and s["messages"][-1].endswith(" hand")
                               and s["messages"][-1] in _shown(s) and "mass" in _shown(s))
                look(d, tmp_path / f"{verdict}-{size[0]}.png", state)
            sizes.reverse()  # the next verdict begins at the size this one ended at
        before = d.keys("F1", idle=False)
        help_ = d.idle(before, ready=lambda s: "this help" in _shown(s))
        look(d, tmp_path / f"help-{help_['size'][0]}.png", help_)
        look(d, tmp_path / "help-other.png", resize(d, sizes[-1]))
        assert d.quit() == 0
    finally:
        _close(d)


# --- the play mode -------------------------------------------------------------------------------------


def _both_hands(tmp_path: Path) -> Path:
    """A Tohuwabohu script that takes a brick in the right hand and a level in the left."""
    from sim.viewer.play.games import new_game

    scene = new_game("tohuwabohu", ("ann", "bob"), "pro", 3).scene
    brick = next(p.id for p in scene.pieces if p.kind == "tohuwabohu.brick")
    level = next(p.id for p in scene.pieces if p.kind == "tohuwabohu.level")
    path = tmp_path / "hands.json"
    path.write_text(json.dumps([{"action": "pick", "piece": brick, "hand": "right"},
                                {"action": "pick", "piece": level, "hand": "left"}]))
    return path


GAMES = {
    "talo": ("talo", "--players", "red,blue,green"),
    "babylon": ("babylon", "--players", "red,blue,green,white"),
    "tohuwabohu": ("tohuwabohu", "--variant", "pro", "--players", "ann,bob", "--seed", "3"),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_play_mode_texts_are_readable_and_apart_at_both_sizes(display, tmp_path, game):
    """The game panel beside the status line and the stability panel, the card tray; Tohuwabohu with a piece in
    each hand (the status line at its longest; the professional variant's clock leaves the time to look)."""
    args = list(GAMES[game])
    full = None
    if game == "tohuwabohu":
        args += ["--actions", str(_both_hands(tmp_path))]
        full = lambda s: len(s["hands"]) == 2  # noqa: E731
    d = _open(display, tmp_path, "play", *args, "--no-record", title="towerlab play")
    try:
        ready = lambda s: s["verdict"] is not None and (full is None or full(s))  # noqa: E731
        first = d.wait(ready, what="the game's first verdict")
        if full is None:
            d.idle(first)
        at_both_sizes(d, tmp_path, game, ready=ready)
        assert d.quit() == 0
    finally:
        _close(d)


# --- the file list; a text box has the keys ---------------------------------------------------------------


def _row(state: dict, name: str) -> list[float]:
    """The middle of the file list's row showing exactly ``name`` (pixels)."""
    box = next(t["box"] for t in state["texts"] if t["text"] == name)
    return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]


def test_the_file_list_opens_and_saves_and_no_shortcut_fires_while_it_has_the_keys(display, tmp_path):
    """Ctrl+O lists the folder's sub-folders and regular scene files (not a FIFO named like one, nor a text file);
    keys typed into its name line are letters only (N, H, 1-4, F, Space, R, Delete: no message, no camera move,
    no pause); the keyboard opens a file, Ctrl+Shift+S saves under a typed name (the suffix added), both go to the
    recent files ($XDG_STATE_HOME/towerlab/recent.json) that the list shows first; a double click opens a row;
    Esc closes it and the shortcuts are back."""
    import os

    folder = tmp_path / "scenes"
    folder.mkdir()
    weak, stands = _verdict_scene(folder, "weak"), _verdict_scene(folder, "stands")
    (folder / "more.json").mkdir()
    (folder / "notes.txt").write_text("not a scene\n")
    os.mkfifo(folder / "pipe.json")
    d = _open(display, tmp_path, "view", str(weak), "--no-record", title="towerlab view")
    try:
        d.idle(ready=lambda s: s["verdict"] is not None)
        d.point(5, 5)
        before = d.keys("ctrl+o")
        assert _dialog(before), "Ctrl+O opened no dialog"
        rows = [t["text"] for t in before["texts"]]
        assert {"../", "more.json/", "stands.json", "weak.json"} <= set(rows), rows
        assert not {"pipe.json", "notes.txt"} & set(rows), rows
        look(d, tmp_path / "open.png", before)
        typed = d.keys("n", "h", "4", "f", "space", "r", "Delete", "1", "Home")
        assert typed["messages"] == before["messages"], typed["messages"][len(before["messages"]):]
        assert typed["view"] == before["view"] and typed["hands"] == before["hands"]
        assert typed["paused"] == before["paused"] and typed["ids"] == before["ids"]
        said = d.keys("End", "Return", idle=False)  # the name typed is no file: the dialog says so, and stays
        said = d.idle(said, ready=lambda s: "no file nh4f r1 here" in _shown(s))
        assert _dialog(said) and said["messages"] == before["messages"]
        d.keys("Down", "Down", "Down")  # ../, more.json/, stands.json: its name into the name line
        loaded = d.keys("Return", idle=False)
        loaded = d.idle(loaded, ready=lambda s: not _dialog(s) and s["ids"] == ["slab"])
        assert loaded["messages"][-1] == f"loaded {stands}"
        d.keys("ctrl+shift+s")
        d.keys(*["BackSpace"] * len("stands.json"))
        d.xdotool("type", "--window", d.window, "--delay", "20", "copy")
        saved = d.keys("Return", idle=False)
        saved = d.idle(saved, ready=lambda s: not _dialog(s) and s["messages"][-1] == f"saved {folder / 'copy.json'}")
        assert [p["id"] for p in json.loads((folder / "copy.json").read_text())["pieces"]] == ["slab"]
        recent = json.loads((tmp_path / "state" / "towerlab" / "recent.json").read_text())
        assert recent["files"] == [str(folder / "copy.json"), str(stands)]
        again = d.keys("ctrl+o")
        shown = [t["text"] for t in again["texts"]]
        assert _row(again, "RECENT FILES")[1] < _row(again, "THIS FOLDER")[1], shown  # the recent files first
        assert any(t.startswith("copy.json   (") for t in shown), shown
        d.point(*_row(again, "weak.json"), idle=False)
        # a click chooses the row, a second opens it (a DirectGUI button takes the clicks: the probe counts none)
        d.xdotool("click", "--window", d.window, "--repeat", "2", "--delay", "300", "1")
        d.idle(again, ready=lambda s: not _dialog(s) and s["ids"] == ["post"])
        d.keys("ctrl+o")
        closed = d.keys("Escape")
        assert not _dialog(closed)
        after = d.keys("h", idle=False)  # the shortcuts are back once the box is gone
        d.idle(after, ready=lambda s: s["messages"][-1:] == ["the left hand"])
        assert d.quit() == 0
    finally:
        _close(d)


# --- the replay ----------------------------------------------------------------------------------------


def test_the_replay_side_by_side_keeps_every_text_to_a_pane_at_both_sizes(display, tmp_path):
    """A recorded collapse, at its first knock-down, before and now side by side: the status line, the panes'
    labels, the caption and the messages each within one pane (none across the split), readable."""
    from test_replay_live import CARRY_INTO_THE_TOWER, tower_scene

    from sim.physics.live import LiveWorld
    from sim.replay import Recorder
    from sim.replay.script import play_script

    path = tmp_path / "tower.tlrec"
    with LiveWorld(tower_scene()) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw, seed=5, players=["ana"])
        play_script(lw, CARRY_INTO_THE_TOWER, rec)
    d = _open(display, tmp_path, "replay", str(path), title="towerlab replay")
    try:
        d.idle()
        d.keys("k")
        split = d.keys("b", idle=False)
        split = d.idle(split, ready=lambda s: len(s["panes"]) == 2 and len(_shown(s).split("\n")) > 2)
        assert split["splits"], split["panes"]
        at_both_sizes(d, tmp_path, "replay", ready=lambda s: bool(s["splits"]) and "knocked down" in _shown(s))
        before = d.keys("F1", idle=False)
        look(d, tmp_path / "replay-help.png", d.idle(before, ready=lambda s: "this help" in _shown(s)))
        assert d.quit() == 0
    finally:
        _close(d)
