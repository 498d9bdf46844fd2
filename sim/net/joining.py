"""``towerlab play --join URL`` / ``--watch URL``: a seat or a spectator at a served table.

With a display, the viewer's window on the table (:mod:`sim.net.window`). Without one (or with ``--offscreen``),
a seat plays an action file through the server (each action sent, its answer awaited; a ``wait`` waits that long
of wall time) and a spectator watches for ``--watch-seconds``; the run ends with one line: what the seat did and
how the game stands. Every way joining can fail is one line and exit 2 (a link that is not one, a server out of
reach, a wrong secret, a seat taken, another protocol version).
"""

from __future__ import annotations

import asyncio

from sim.errors import TowerlabError, printable
from sim.net.client import Client, JoinError
from sim.net.links import Link


class JoinArgumentError(TowerlabError):
    """A play option that cannot go with ``--join`` / ``--watch``."""


def play_at_table(join: str | None, watch: str | None, actions, screenshot, exit_after: bool, offscreen: bool,
                  size: tuple[int, int]) -> int:
    """``towerlab play --join URL`` / ``--watch URL`` (see the module docstring): the exit code.

    Raises:
        LinkError, JoinError, JoinArgumentError, ActionError: one line, exit 2.
    """
    import os

    from sim.net.links import parse_link

    option = "--join" if join is not None else "--watch"
    link = parse_link(join if join is not None else watch, option)
    if join is not None and link.seat is None:
        raise JoinArgumentError("--join: this is the spectators' link (/watch): --watch it")
    if watch is not None and link.seat is not None:
        raise JoinArgumentError(f"--watch: this is {link.seat}'s seat's link: --join plays it")
    if offscreen or not os.environ.get("DISPLAY"):
        if screenshot is not None:
            raise JoinArgumentError("--screenshot: a served table's picture is its window's (give a display)")
        print(printable(play_headless(link, actions, 0.0)))
        return 0
    from sim.net.window import run_client_window

    return run_client_window(link, actions, screenshot, exit_after, size)


def game_specs(welcome: dict):
    """The actions a seat of the welcome's game may send (the viewer's and the game's own), as an action file is
    checked for that game."""
    from sim.viewer.control.actions import specs_with
    from sim.viewer.play.actions import specs_of
    from sim.viewer.play.games import new_game

    game = new_game(welcome["game"], welcome["players"], welcome["variant"], welcome["seed"],
                    welcome["turn_seconds"])

    class _Game:
        name = "referee"
        actions = specs_of(game.session)
    return specs_with([_Game()]), game


def play_headless(link: Link, actions_path, watch_seconds: float) -> str:
    """Join, play the actions (a seat) or watch (a spectator), leave: the run's one line.

    Raises:
        JoinError: the table could not be joined.
        ActionError: the action file is not one for this game.
    """
    return asyncio.run(_headless(link, actions_path, watch_seconds))


async def _headless(link: Link, actions_path, watch_seconds: float) -> str:
    from sim.viewer.control.actions import load_actions

    client = Client(link, reconnect=True, name="towerlab play --join")
    welcome = await client.join()
    try:
        await client.wait_for(lambda c: bool(c.state), 30)
        done = refused = 0
        if actions_path is not None:
            if welcome["role"] != "seat":
                raise JoinArgumentError("--actions: a spectator watches; a seat's link (--join) acts")
            specs, _ = game_specs(welcome)
            for a in load_actions(actions_path, specs):
                if a.name == "wait":
                    await asyncio.sleep(a["seconds"])
                    continue
                answer = await client.act(a.to_json())
                done += 1
                if not answer["ok"]:
                    refused += 1
                    print(printable(f"{a.where}: refused ({answer.get('rule')}): {answer.get('reason')}"))
        else:
            await asyncio.sleep(watch_seconds)
    finally:
        await client.close()
    who = f"{welcome['seat']}'s seat" if welcome["role"] == "seat" else "watched"
    acted = f"; {done} action(s) sent, {refused} refused" if actions_path is not None else ""
    return f"{who} at {link.address}{acted}; {client.state.get('summary', 'the game goes on')}"


__all__ = ["JoinArgumentError", "JoinError", "game_specs", "play_at_table", "play_headless"]
