"""The command line's own mistakes: usage errors, --version, Ctrl-C, unwritable output, odd options."""

from __future__ import annotations

import json
import os

import pytest

import sim
from sim.cli import main
from tests.helpers import SCENES

TALO = SCENES / "talo" / "bridge.json"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def error_lines(err: str) -> list[str]:
    """The lines of stderr other than click's usage line."""
    return [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("Usage: ")]


USAGE_MISTAKES = {
    "unknown-option": (["check", "--bogus", "x", TALO], "No such option: --bogus"),
    "unknown-command": (["nosuchcmd"], "No such command 'nosuchcmd'"),
    "missing-required-option": (["talo", "moves", TALO], "Missing option '--pawn'"),
    "not-a-number": (["check", "--seconds", "abc", TALO], "Invalid value for '--seconds'"),
    "max-turns-0": (["talo", "auto", "--max-turns", "0"], "Invalid value for '--max-turns'"),
    "dpi-10": (["cards", "tohuwabohu", "--dpi", "10"], "Invalid value for '--dpi'"),
    "negative-seed": (["talo", "auto", "--seed", "-1", "--no-physics"], "Invalid value for '--seed'"),
    "missing-argument": (["validate"], "Missing argument"),
    "option-without-value": (["talo", "auto", "--players"], "Option '--players' requires an argument"),
}


@pytest.mark.parametrize("name", sorted(USAGE_MISTAKES))
def test_a_usage_mistake_is_one_error_line_and_exit_2(name, capsys):
    args, expected = USAGE_MISTAKES[name]
    code, out, err = run(capsys, *args)
    assert code == 2, err
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("towerlab: error: ") and expected in lines[0], err
    assert len(err.strip().splitlines()) <= 2  # the error and, at most, the command's usage
    assert "Traceback" not in out + err


@pytest.mark.parametrize("args", [[], ["talo"], ["tohuwabohu"], ["babylon"], ["cards"]],
                         ids=["no-arguments", "talo", "tohuwabohu", "babylon", "cards"])
def test_no_arguments_prints_help_and_never_a_traceback(args, capsys):
    code, out, err = run(capsys, *args)
    assert code in (0, 2)
    assert "Usage" in out + err and "Traceback" not in out + err


def test_version_prints_the_package_version(capsys):
    code, out, err = run(capsys, "--version")
    assert code == 0 and out == f"towerlab {sim.__version__}\n" and not err
    assert sim.__version__ == "0.1.0"


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "talo", "auto", "-h")
    assert code == 0 and "--out" in out and "-o" in out


def test_help_reads_plainly_a_flag_takes_no_value_an_argument_is_named(capsys):
    # typer 0.29 writes "<bool>" after every flag, as though "--exit" wanted a value, and 0.27 writes an
    # argument as "{R}", like a set of choices: pinned below 0.27
    code, out, _ = run(capsys, "view", "-h")
    assert code == 0 and "--exit" in out and "--offscreen" in out
    assert "<bool>" not in out and "BOOLEAN" not in out
    assert "PATH" in out  # an option that takes a value still says what
    code, out, _ = run(capsys, "replay", "-h")
    usage = next(line for line in out.splitlines() if "Usage:" in line)
    assert code == 0 and usage.split() == ["Usage:", "towerlab", "replay", "[OPTIONS]", "R"]


def test_every_command_s_summary_is_one_line_in_the_list_of_commands():
    # the list of commands shows a docstring's first paragraph with its line breaks: one broken mid-sentence
    # ("times the turns and" / "referees ...") read as two entries
    import typer.main

    import sim.cli  # noqa: F401 - registers the commands
    from sim.cli.common import app

    def summaries(group, path=()):
        for info in group.registered_commands:
            doc = (info.help or info.callback.__doc__ or "").strip()
            yield (*path, info.name or info.callback.__name__), doc.split("\n\n")[0]
        for sub in group.registered_groups:
            yield from summaries(sub.typer_instance, (*path, sub.name))

    found = dict(summaries(app))
    assert ("play",) in found and ("view",) in found and len(found) > 15
    assert {name: text for name, text in found.items() if "\n" in text} == {}
    assert typer.main.get_command(app)  # the app builds
    # --help keeps a paragraph's line breaks: a line longer than the terminal wraps, then breaks again
    # ("F1 in the window lists every" / "control (docs/viewer.md).")
    long = [(name, line) for name, line in _help_lines(app) if len(line) > 78]
    assert long == []


def _help_lines(group, path=()):
    """(command, line) of every paragraph of more than one line in every command's help."""
    import inspect

    for info in group.registered_commands:
        doc = inspect.cleandoc(info.help or info.callback.__doc__ or "")
        for paragraph in doc.split("\n\n"):
            lines = paragraph.splitlines()
            if len(lines) > 1:
                yield from (((*path, info.name or info.callback.__name__), line) for line in lines)
    for sub in group.registered_groups:
        yield from _help_lines(sub.typer_instance, (*path, sub.name))


def test_the_console_script_exits_with_main_s_code(monkeypatch):
    import sim.cli as cli

    monkeypatch.setattr("sys.argv", ["towerlab", "nosuchcmd"])
    with pytest.raises(SystemExit) as e:
        cli.run()
    assert e.value.code == 2


def test_the_click_that_typer_uses_is_the_one_caught():
    """Both layouts: typer < 0.2x parses with the installed click, later ones with their own copy."""
    import typer

    import sim.cli as cli

    assert issubclass(typer.BadParameter, cli.UsageError) and issubclass(cli.UsageError, cli.ClickException)


# --- Ctrl-C --------------------------------------------------------------------------------

def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys):
    import sim.scene

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(sim.scene, "load_scene", interrupted)
    code, out, err = run(capsys, "validate", TALO)
    # (click < 8.2 first ends the terminal's "^C" line with a newline)
    assert code == 130 and err.strip() == "towerlab: interrupted" and "Traceback" not in out + err


def test_ctrl_c_while_writing_leaves_no_partial_file(monkeypatch, tmp_path, capsys):
    import sim.atomic

    def interrupted(_fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(sim.atomic.os, "fsync", interrupted)
    code, _, err = run(capsys, "talo", "auto", "--no-physics", "--max-turns", "2", "-o", tmp_path / "game.json")
    assert code == 130 and err.strip() == "towerlab: interrupted"
    assert list(tmp_path.iterdir()) == []  # neither the scene nor a temporary file


def test_ctrl_c_keeps_an_existing_output_file(monkeypatch, tmp_path, capsys):
    import sim.atomic

    target = tmp_path / "game.json"
    target.write_text("precious")
    monkeypatch.setattr(sim.atomic.os, "fsync", lambda _fd: (_ for _ in ()).throw(KeyboardInterrupt))
    code, _, _ = run(capsys, "talo", "auto", "--no-physics", "--max-turns", "2", "-o", target)
    assert code == 130 and target.read_text() == "precious" and list(tmp_path.iterdir()) == [target]


# --- output options ------------------------------------------------------------------------

OUTPUT_COMMANDS = {
    "auto-out": ["talo", "auto", "--no-physics", "--max-turns", "2", "-o", "{bad}"],
    "auto-out-long": ["talo", "auto", "--no-physics", "--max-turns", "2", "--out", "{bad}"],
    "auto-script": ["talo", "auto", "--no-physics", "--max-turns", "2", "--script", "{bad}"],
    "play-out": ["talo", "play", str(SCENES / "talo/games/first-climb.talo-game"), "--no-physics", "-o", "{bad}"],
}


@pytest.mark.parametrize("name", sorted(OUTPUT_COMMANDS))
def test_output_under_a_file_is_refused_before_any_work(name, tmp_path, capsys, monkeypatch):
    import sim.games.talo.auto
    import sim.games.talo.script

    def no_work(*_a, **_k):
        raise AssertionError("the game ran before the output was checked")

    monkeypatch.setattr(sim.games.talo.auto, "auto_game", no_work)
    monkeypatch.setattr(sim.games.talo.script, "play_script", no_work)
    (tmp_path / "file").write_text("x")
    bad = tmp_path / "file" / "out.json"
    code, out, err = run(capsys, *[a.format(bad=bad) for a in OUTPUT_COMMANDS[name]])
    assert code == 2 and len(error_lines(err)) == 1, err
    assert "is a file, not a folder" in err and str(bad) in err and "Traceback" not in err


def test_output_that_is_a_folder_is_refused(tmp_path, capsys):
    code, _, err = run(capsys, "talo", "auto", "--no-physics", "-o", tmp_path)
    assert code == 2 and "is a folder; give a file name" in err


def test_scene_and_script_to_one_file_is_refused(tmp_path, capsys):
    target = tmp_path / "x.json"
    code, _, err = run(capsys, "talo", "auto", "--no-physics", "-o", target, "--script", target)
    assert code == 2 and "give two files" in err and not target.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_output_in_a_read_only_folder_is_refused(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, _, err = run(capsys, "talo", "auto", "--no-physics", "-o", ro / "x.json")
        assert code == 2 and "permission denied" in err
    finally:
        ro.chmod(0o700)


def test_auto_writes_scene_and_script_with_o(tmp_path, capsys):
    code, _, _ = run(capsys, "talo", "auto", "--no-physics", "--max-turns", "3", "-o", tmp_path / "g.json",
                     "--script", tmp_path / "g.talo-game", "--json")
    assert code == 0
    assert main(["validate", str(tmp_path / "g.json")]) == 0
    assert main(["talo", "play", str(tmp_path / "g.talo-game"), "--no-physics", "--json"]) == 0


# --- other options -----------------------------------------------------------------------

@pytest.mark.parametrize("seconds", ["-1", "0", "nan", "inf", "601"])
def test_tohuwabohu_check_refuses_a_duration_out_of_range(seconds, capsys):
    code, _, err = run(capsys, "tohuwabohu", "check", SCENES / "tohuwabohu/too-far-out.json", "--seconds", seconds)
    assert code == 2 and len(error_lines(err)) == 1 and "--seconds: expected a duration in seconds" in err


@pytest.mark.parametrize("flag", ["--physics", "--no-physics"])
def test_every_game_check_takes_physics_and_no_physics(flag, capsys):
    help_texts = []
    for args in (["tohuwabohu", "check"], ["talo", "check"], ["talo", "play"], ["talo", "auto"],
                 ["babylon", "score"], ["babylon", "check-turn"]):
        code, out, _ = run(capsys, *args, "-h")
        help_texts.append(out)
        assert code == 0 and flag in out, args


def test_tohuwabohu_check_without_physics(capsys):
    code, out, _ = run(capsys, "tohuwabohu", "check", SCENES / "tohuwabohu/too-far-out.json", "--no-physics", "--json")
    assert code == 0 and json.loads(out)["stable"] is None


def test_pieces_in_80_columns_shows_every_kind_whole(capsys, monkeypatch):
    from sim.cli import common
    from sim.pieces import KINDS

    monkeypatch.setattr(common.console, "width", 80)
    code, out, _ = run(capsys, "pieces")
    assert code == 0
    lines = out.splitlines()
    assert max(len(ln) for ln in lines[:-2]) <= 80  # the table (the two notes below it may wrap)
    words = {w for ln in lines for w in ln.split()}
    assert set(KINDS) <= words, set(KINDS) - words


# --- progress bars: on stderr, on a terminal, never with --json ----------------------------

LONG_COMMANDS = {
    "validate": (["validate", SCENES / "talo/bridge.json", SCENES / "talo/counterweight.json"], "validating"),
    "tohuwabohu-check": (["tohuwabohu", "check", SCENES / "tohuwabohu/too-far-out.json", "--seconds", "0.1"],
                         "checking too-far-out.json"),
    "talo-check": (["talo", "check", SCENES / "talo/counterweight.json"], "balance of counterweight.json"),
    "talo-auto": (["talo", "auto", "--max-turns", "1", "--seed", "3"], "playing"),
    "babylon-score": (["babylon", "score", SCENES / "babylon/first-turn.json"], "settling first-turn.json"),
    "babylon-check-turn": (["babylon", "check-turn", SCENES / "babylon/first-turn.json",
                            SCENES / "babylon/second-turn.json", "--player", "blue"], "checking second-turn.json"),
}


@pytest.fixture
def terminal(monkeypatch):
    """stderr as a terminal: what the progress bars draw there."""
    import io

    from rich.console import Console

    from sim.cli import common

    screen = io.StringIO()
    monkeypatch.setattr(common, "err_console", Console(file=screen, force_terminal=True, width=100))
    return screen


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LONG_COMMANDS))
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_long_commands_show_a_progress_bar_on_a_terminal_only_without_json(name, as_json, terminal, capsys):
    args, label = LONG_COMMANDS[name]
    code, out, err = run(capsys, *args, *(["--json"] if as_json else []))
    assert code == 0, err
    assert (label in terminal.getvalue()) != as_json, terminal.getvalue()[:200]
    assert label not in out + err  # nothing of the bar on the real stdout and stderr (not terminals here)
    if as_json:
        json.loads(out)


# --- nothing raw reaches the terminal --------------------------------------------------------

@pytest.mark.parametrize("name", ["esc\x1b[2Jape.json", "c1\x9bcsi.json", "bell\x07.json", "[bold]markup.json"])
def test_odd_file_names_are_printed_escaped(name, tmp_path, capsys):
    path = tmp_path / name
    path.write_text(json.dumps({"format": "towerlab-scene/1", "game": "tohuwabohu", "pieces": [
        {"id": "a", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [0, 0, 10]}]}))
    shown = path.name.replace("\x1b", "\\x1b").replace("\x9b", "\\x9b").replace("\x07", "\\x07")
    for args in (["validate", path], ["validate", "--json", path], ["tohuwabohu", "check", path, "--no-physics"],
                 ["validate", tmp_path / ("missing-" + name)]):
        code, out, err = run(capsys, *args)
        assert code in (0, 2) and all(ln.isprintable() for ln in (out + err).splitlines()), args
        if "--json" in args:
            assert json.loads(out)[0]["file"] == str(path)  # JSON escapes give the name back exactly
        else:
            assert shown in out + err, args


def test_ctrl_c_in_an_offscreen_session_exits_130_and_closes_its_recording(monkeypatch, tmp_path, capsys):
    import sim.viewer.control.script
    from sim.replay.recording import load_recording

    real = sim.viewer.control.script.ScriptRunner.step
    steps = []

    def step_then_interrupt(self):
        steps.append(1)
        if len(steps) > 40:  # some frames in: the action is under way
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(sim.viewer.control.script.ScriptRunner, "step", step_then_interrupt)
    actions = tmp_path / "a.json"
    actions.write_text('[{"action": "pick", "piece": "b3-1"}, {"action": "move-to", "at": [0, 0]},'
                       ' {"action": "drop"}, {"action": "wait", "seconds": 2}]')
    record = tmp_path / "s.tlrec"
    code, _, err = run(capsys, "view", "--game", "talo", "--actions", actions, "--offscreen", "--no-recovery",
                       "--record", record)
    assert code == 130 and err.strip() == "towerlab: interrupted"
    assert load_recording(record).complete  # the session was closed: its recording was closed too
