"""Benchmark of a networked table on loopback: its pace under load, what the clients see, and a soak.

    .venv/bin/python tools/bench_net.py [--players 4] [--spectators 20] [--soak-minutes 1] [--full] [--json OUT]

Prints a Markdown report (docs/network.md's figures come from it):

1. **a game with a collapse**: ``towerlab serve babylon --variant fast`` in a process of its own (the clients
   are other machines: they share no interpreter with the server), four seats and twenty spectators joined from
   this process. Each seat stacks three of its towers in its construction area, in turn (each action sent and
   its answer awaited); then the first seat pulls the second piece of its stack out with the spring, and the
   stack comes down. Measured: the answers' times (send to answer, at the seat), the server's pace during the
   collapse (table frames per wall second, read by the spectators from the frame numbers of the poses they
   get: 1.00 is real time), the pose updates a second each spectator gets while pieces move, and the bytes each
   client receives per minute.
2. **a soak**: a table in this process (its log read at the end), four seats playing Babylon's fast game from
   a script (pick one of its towers, carry it, set it down, now and then cancel), all at once (each seat has
   hands of its own: how often two or more carry at once is counted), each dropping its connection
   every few seconds (often mid-carry) and coming back by itself, two spectators, for ``--soak-minutes``
   (``--full``: the issue's 30 minutes). Checked: every action sent was answered (none lost), every action
   answered as done or refused by the game is in the table's log in the order it was sent, and the
   recording equals the recording of a local replay of the log (:func:`sim.net.table.replay`: no network, no
   wall clock) frame for frame, bit for bit, with the same actions and events.

Bounded in time: the collapse phase a minute or two; the soak its minutes (1 by default, 30 with ``--full``) plus
the local replay (some 130 table frames a second on a loaded two-core machine: 2 minutes for a 5-minute soak).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sim.net.client import Client  # noqa: E402
from sim.net.table import Setup, replay  # noqa: E402

COLOURS = ("red", "blue", "green", "yellow", "black")
AREA = {"red": (-200.0, -200.0), "blue": (-200.0, 200.0), "green": (200.0, 200.0), "yellow": (200.0, -200.0)}
"""A spot (mm) in each seat's construction area on Babylon's table for four."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(args, cwd, root: Path = ROOT) -> tuple[subprocess.Popen, dict]:
    p = subprocess.Popen([sys.executable, "-m", "sim", "serve", *args], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONPATH": str(root)})
    links = {}
    for line in p.stdout:
        m = re.match(r"\s+(\w+):\s+towerlab play --(join|watch) '(\S+)'", line)
        if m:
            links[None if m[2] == "watch" else m[1]] = m[3]
            if m[2] == "watch":
                return p, links
    raise SystemExit("the server printed no links")


def _process_cpu(pid: int, tid: int | None = None) -> float:
    """CPU seconds (user and system) a process has spent so far: every thread, or thread ``tid`` alone (the
    server's event loop is its main thread, ``tid == pid``: the network's side)."""
    stat = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    fields = Path(stat).read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _threads_cpu(pid: int) -> dict[int, float]:
    """Thread id -> the CPU seconds it has spent so far, for every thread of the process."""
    return {int(t.name): _process_cpu(pid, int(t.name)) for t in Path(f"/proc/{pid}/task").iterdir()}


def _percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


async def _collapse(players: int, spectators: int, root: Path = ROOT) -> dict:
    seats = COLOURS[:players]
    work = Path(tempfile.mkdtemp(prefix="bench-net-"))
    port = _free_port()
    proc, links = _serve(["babylon", "--variant", "fast", "--players", ",".join(seats), "--port", str(port),
                          "--autosave", str(work / "table.json"), "--record", str(work / "game.tlrec")], work, root)
    try:
        clients = {s: Client(links[s]) for s in seats}
        watchers = [Client(links[None]) for _ in range(spectators)]
        for c in [*clients.values(), *watchers]:
            await c.join()
        for c in [*clients.values(), *watchers]:
            await c.wait_for(lambda c: bool(c.state) and c.state.get("stands") is None, 60)
        t0 = time.monotonic()
        latencies = []
        for k in range(1, 4):
            for s in seats:
                for a in ({"action": "pick", "piece": f"{s}-tower-{k}"},
                          {"action": "move-to", "at": list(AREA[s])}, {"action": "drop"}):
                    start = time.monotonic()
                    answer = await clients[s].act(a)
                    latencies.append(time.monotonic() - start)
                    if not answer["ok"]:
                        print(f"  ({s}: {a['action']} refused: {answer.get('rule')}: {answer.get('reason')})")
                done = answer["frame"]  # the table's state after the drop: its hands free again
                await clients[s].wait_for(lambda c, done=done: c.state["frame"] > done and not c.state["hands"], 30)
        first = seats[0]
        me = clients[first]
        stream = await _stream(proc.pid, me, [*clients.values(), *watchers], f"{first}-tower-4", AREA[first])
        ids, poses = me.pose_array()
        at = [1000.0 * x for x in poses[ids.index(f"{first}-tower-2")][:3]]
        marks = [len(c.pose_times) for c in [*clients.values(), *watchers]]
        cpu_start, net_start = _process_cpu(proc.pid), _process_cpu(proc.pid, proc.pid)
        threads_start = _threads_cpu(proc.pid)
        collapse_start = time.monotonic()
        start_frame = me.frame
        loads = []

        async def sample():
            while True:
                await asyncio.sleep(1.0)
                await me.ping()
                loads.append(me.server_load)
        sampling = asyncio.create_task(sample())
        await me.act({"action": "pull", "piece": f"{first}-tower-2", "at": at, "to": [at[0] + 300.0, at[1], at[2]]})
        await asyncio.sleep(2.0)
        await me.act({"action": "release-pull"})
        knocked = lambda c: any(g["kind"] == "knocked" for g in c.game)  # noqa: E731
        await watchers[0].wait_for(knocked, 60)
        await watchers[0].wait_for(lambda c: any(e["kind"] == "settled" for e in c.events
                                                 if e["t"] > me.time - 30), 60)
        collapse_wall = time.monotonic() - collapse_start
        process_cpu = _process_cpu(proc.pid) - cpu_start
        network_cpu = _process_cpu(proc.pid, proc.pid) - net_start
        threads = {tid: cpu - threads_start.get(tid, 0.0) for tid, cpu in _threads_cpu(proc.pid).items()}
        collapse_frames = me.frame - start_frame
        sampling.cancel()
        hz, rtf = {"seats": [], "spectators": []}, []
        for k, (c, m) in enumerate(zip([*clients.values(), *watchers], marks)):
            times = list(c.pose_times)[m:]
            if len(times) > 2:
                span = times[-1][0] - times[0][0]
                hz["seats" if k < len(clients) else "spectators"].append((len(times) - 1) / span)
                rtf.append((times[-1][1] - times[0][1]) / 60.0 / span)
        minutes = (time.monotonic() - t0) / 60.0
        traffic_in = [c.received["bytes"] / minutes for c in [*clients.values(), *watchers]]
        out = {"answer_ms": {"median": 1000 * statistics.median(latencies), "p95": 1000 * _percentile(latencies, .95),
                             "p99": 1000 * _percentile(latencies, .99), "max": 1000 * max(latencies),
                             "n": len(latencies)},
               "collapse": {"wall_s": collapse_wall, "frames": collapse_frames,
                            "knocked": next(g for g in watchers[0].game if g["kind"] == "knocked")["data"]["pieces"],
                            "process_cpu_per_table_s": process_cpu / (collapse_frames / 60.0),
                            "network_cpu_per_table_s": network_cpu / (collapse_frames / 60.0),
                            "network_cpu_per_wall_s": network_cpu / collapse_wall,
                            "threads_cpu_s": {("main" if tid == proc.pid else str(tid)): round(cpu, 3)
                                              for tid, cpu in sorted(threads.items(), key=lambda x: -x[1])[:6]}},
               "pose_hz": {who: {"min": min(v), "median": statistics.median(v)} for who, v in hz.items() if v},
               "rtf": {"min": min(rtf), "median": statistics.median(rtf)},
               "traffic_kb_per_min": {"median": statistics.median(traffic_in) / 1024,
                                      "max": max(traffic_in) / 1024},
               "stream": stream, "minutes": minutes,
               "server_cpu_per_table_s": max((x["cpu"] for x in loads if x), default=None),
               "server_frame_ms_max": max((x["frame_ms_max"] for x in loads if x), default=None)}
        for c in [*clients.values(), *watchers]:
            await c.close()
        return out
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


DROPS = 0.1
"""The share of the soak's carries set down (the rest are cancelled: the piece goes back to the stock, so that a
round lasts; a seat whose towers are all placed says it is done, and a round that ends is followed by the next)."""
STREAM_SECONDS = 20.0
"""Wall seconds a seat's hand carries a piece to and fro while the network's cost is measured."""


async def _stream(pid: int, me: Client, everyone: list[Client], piece: str, near) -> dict:
    """The network's cost alone: one piece carried to and fro for :data:`STREAM_SECONDS` (its row changes every
    frame, nothing else moves: the table's frames cost little) while every client is sent it. Measured: the
    server's event loop's CPU (its main thread: reading, admission, sending) per second and per pose message
    delivered, and the pose rate at the clients."""
    await me.act({"action": "pick", "piece": piece})
    before = [c.received["messages"] for c in everyone]
    frames, marks = [c.frame for c in everyone], [len(c.pose_times) for c in everyone]
    net, start = _process_cpu(pid, pid), time.monotonic()
    k = 0
    while time.monotonic() - start < STREAM_SECONDS:
        k += 1
        await me.act({"action": "move-to", "at": [near[0] + (60.0 if k % 2 else -60.0), near[1]]})
        await asyncio.sleep(0.4)
    wall, net = time.monotonic() - start, _process_cpu(pid, pid) - net
    await me.act({"action": "cancel"})
    messages = sum(c.received["messages"] - b for c, b in zip(everyone, before))
    return {"wall_s": wall, "network_cpu_per_wall_s": net / wall, "messages": messages,
            "network_us_per_message": 1e6 * net / max(messages, 1),
            "pose_hz": statistics.median((len(c.pose_times) - m) / wall for c, m in zip(everyone, marks)),
            "rtf": (me.frame - frames[0]) / 60.0 / wall}


async def _soak(minutes: float, seed: int) -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    from net_table import served

    setup = Setup("babylon", "fast", ("red", "blue", "green", "yellow"), seed)
    work = Path(tempfile.mkdtemp(prefix="bench-net-soak-"))
    rng = random.Random(seed)
    sent: dict[str, list] = {s: [] for s in setup.players}
    stats = {"actions": 0, "drops": 0, "lost": 0, "unanswered": 0}
    with served(setup, record=work / "net.tlrec") as server:
        links = server.links()
        clients = {s: Client(links[s]) for s in setup.players}
        watchers = [Client(links[None]) for _ in range(2)]
        for c in [*clients.values(), *watchers]:
            await c.join()
        carrying: list[int] = []  # how many hands hold a piece, at each state a spectator is sent
        watchers[0].on_message = lambda c, m: carrying.append(len(m.get("hands") or {})) \
            if m["type"] == "state" else None
        end = time.monotonic() + 60.0 * minutes
        drop_every = max(3.0, 60.0 * minutes / 10.0)

        async def seat(s: str) -> None:
            c = clients[s]
            next_drop = time.monotonic() + rng.uniform(1.0, drop_every)
            gone: set[int] = set()  # its towers the game will not let it take again this round
            k = 0
            while time.monotonic() < end:
                view = c.state.get("view") or {}
                if c.state.get("over"):
                    stats["over"] = True
                    return
                if view.get("stopped"):  # the round is over: anyone may begin the next
                    plan = [{"action": "next-round"}]
                elif len(gone) == 20:
                    plan = [{"action": "done"}]  # it can build no further: the round ends once all are done
                else:
                    k = rng.choice([n for n in range(1, 21) if n not in gone])
                    plan = [{"action": "pick", "piece": f"{s}-tower-{k}"},
                            {"action": "move-to", "at": [AREA[s][0] + rng.uniform(-80, 80),
                                                         AREA[s][1] + rng.uniform(-80, 80)]},
                            {"action": "drop"} if rng.random() < DROPS else {"action": "cancel"}]
                for a in plan:
                    if time.monotonic() > next_drop:
                        await c.drop()
                        stats["drops"] += 1
                        next_drop = time.monotonic() + rng.uniform(1.0, drop_every)
                    try:
                        answer = await c.act(a, timeout=60)
                    except TimeoutError:
                        stats["unanswered"] += 1
                        continue
                    stats["actions"] += 1
                    stats["lost"] += answer.get("rule") == "lost"
                    sent[s].append((a, answer))
                    if answer["ok"]:
                        stats[a["action"]] = stats.get(a["action"], 0) + 1
                        if a["action"] == "next-round":
                            gone.clear()
                    if not answer["ok"]:
                        if a["action"] == "pick" and answer.get("rule") in ("placed", "knocked-down"):
                            gone.add(k)
                        elif a["action"] == "done":  # done already: the others are still building
                            with contextlib.suppress(TimeoutError):
                                await c.wait_for(lambda c: (c.state.get("view") or {}).get("stopped")
                                                 or c.state.get("over"), max(1.0, end - time.monotonic()))
                        await asyncio.sleep(rng.uniform(0.1, 0.5))  # refused: a moment, then another move
                        break
                    await asyncio.sleep(rng.uniform(0.05, 0.3))
        await asyncio.gather(*(seat(s) for s in setup.players))
        for c in [*clients.values(), *watchers]:
            await c.close()
    frames, log = server.table.frame_no, server.table.log  # the table stopped and closed: all it played
    in_log = {s: [e["action"] for e in log if e.get("seat") == s and e["action"]["action"] != "seat"]
              for s in setup.players}
    from sim.viewer.control.actions import action as checked

    def as_logged(seat: str, a: dict) -> dict:  # as the table logs it: the seat's player, its own hands
        return server.table.as_seats(seat, checked(a, "", server.table.specs)).to_json()
    expected = {s: [as_logged(s, a) for a, ans in sent[s] if ans.get("played")] for s in setup.players}
    t = time.monotonic()
    replay(setup, log, frames, record=work / "again.tlrec")
    replay_s = time.monotonic() - t
    from sim.replay import load_recording

    a, b = load_recording(work / "net.tlrec"), load_recording(work / "again.tlrec")

    def recorded(r):
        return (tuple((float(x), tuple(r.frame(g)[0]), r.frame(g)[1].tobytes()) for g, x in enumerate(r.times)),
                r.actions, r.events)
    (work / "actions.json").write_text(json.dumps({"answered": expected, "logged": in_log}))  # to read a mismatch
    mismatch = None
    for s in setup.players:  # the first action of a seat's whose log differs from what it was answered
        k = next((k for k, (x, y) in enumerate(zip(expected[s], in_log[s])) if x != y),
                 None if len(expected[s]) == len(in_log[s]) else min(len(expected[s]), len(in_log[s])))
        if k is not None and mismatch is None:
            mismatch = {"seat": s, "at": k, "answered": expected[s][k] if k < len(expected[s]) else None,
                        "logged": in_log[s][k] if k < len(in_log[s]) else None,
                        "answered_n": len(expected[s]), "logged_n": len(in_log[s])}
    return {"minutes": minutes, "frames": frames, **stats, "log_entries": len(log), "mismatch": mismatch,
            "files": str(work),
            "puts_back": sum(1 for e in log if e.get("control") == "put-back"),
            "every_action_in_the_log": in_log == expected, "recording_equal": recorded(a) == recorded(b),
            "recorded_frames": len(a.times), "replay_s": replay_s,
            "states": len(carrying), "states_two_carrying": sum(n >= 2 for n in carrying),
            "most_carrying": max(carrying, default=0)}


def _collapse_rows(c: dict) -> list[tuple[str, str]]:
    """The collapse phase's figures, as (figure, value) rows."""
    a, k = c["answer_ms"], c["collapse"]
    rows = [("an action's answer (send to answer)", f"median {a['median']:.1f} ms, p95 {a['p95']:.1f} ms, "
             f"p99 {a['p99']:.1f} ms, max {a['max']:.1f} ms ({a['n']} actions)"),
            ("the server's pace during the collapse (table s / wall s)",
             f"median {c['rtf']['median']:.2f}, lowest {c['rtf']['min']:.2f}"),
            ("the table's CPU per table second during the collapse (its thread; below 1: real time on a core of "
             "its own)", f"worst second {c['server_cpu_per_table_s']:.2f}, longest frame "
             f"{c['server_frame_ms_max']:.0f} ms"),
            ("the server process's CPU per table second during the collapse (every thread)",
             f"{k['process_cpu_per_table_s']:.2f}"),
            ("the network's CPU during the collapse (the server's event loop: admission, reading, sending)",
             f"{k['network_cpu_per_table_s']:.3f} per table s, {k['network_cpu_per_wall_s']:.3f} of a core")]
    for who, hz in c["pose_hz"].items():
        rows.append((f"pose updates at each of the {who} while pieces move",
                     f"median {hz['median']:.1f} Hz, lowest {hz['min']:.1f} Hz"))
    st = c["stream"]
    rows.append((f"the network's CPU while a carried piece streams to every client ({st['wall_s']:.0f} s)",
                 f"{st['network_cpu_per_wall_s']:.3f} of a core, {st['network_us_per_message']:.0f} µs a message "
                 f"delivered ({st['messages']} messages; {st['pose_hz']:.1f} pose messages a second at each client, "
                 f"the table at {st['rtf']:.2f}x real time)"))
    rows.append(("traffic received per client per minute", f"median {c['traffic_kb_per_min']['median']:.0f} kB, "
                 f"most {c['traffic_kb_per_min']['max']:.0f} kB"))
    rows.append(("the collapse", f"{len(k['knocked'])} pieces knocked down, {k['wall_s']:.1f} s of wall time to "
                 "the last piece at rest"))
    return rows


CARRIES = r"""
import json, sys, time
from sim.net.table import ServedTable, Setup
n, seats = int(sys.argv[1]), ("red", "blue", "green", "yellow")
area = {"red": (-150, -150), "blue": (150, -150), "green": (150, 150), "yellow": (-150, 150)}
t = ServedTable(Setup("babylon", "fast", seats, 1))
for s in seats:
    t.joined(s)
for _ in range(30):
    t.step()
for i, s in enumerate(seats[:n]):
    assert t.submit(s, {"action": "pick", "piece": f"{s}-tower-{i + 3}"})["ok"]
def run(frames):
    for f in range(frames):
        if f % 20 == 0:  # each hand to and fro, 80 mm, three times a second
            for s in seats[:n]:
                t.submit(s, {"action": "move-to", "at": [area[s][0] + (40 if f % 40 else -40), area[s][1]]})
        t.step()
run(60)
c = time.process_time()
run(240)
print(json.dumps({"carries": n, "cpu_ms_per_frame": 1000 * (time.process_time() - c) / 240}))
"""
"""The table's CPU a frame (the hands' planning, the live world's steps) with ``n`` seats carrying at once, each
hand going to and fro: run in a fresh interpreter of a checkout."""


def _carries(root: Path, n: int) -> float:
    p = subprocess.run([sys.executable, "-c", CARRIES, str(n)], cwd=root, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(root)}, timeout=600, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])["cpu_ms_per_frame"]


def _carries_table(servers, rounds: int) -> dict:
    """CPU a frame with one and four carries, the checkouts taking turns."""
    loads, runs = [], {name: {1: [], 4: []} for name, _ in servers}
    for _ in range(rounds):
        for n in (1, 4):
            for name, root in servers:
                loads.append(os.getloadavg()[0])
                runs[name][n].append(_carries(root, n))
    print(f"## The table's CPU a frame, seats carrying at once (load {min(loads):.1f}-{max(loads):.1f}, "
          f"{rounds} round(s), median)\n")
    print("| carries | " + " | ".join(name for name, _ in servers) + " |\n|---|" + "---|" * len(servers))
    for n in (1, 4):
        print(f"| {n} | " + " | ".join(f"{statistics.median(runs[name][n]):.2f} ms" for name, _ in servers) + " |")
    print()
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--spectators", type=int, default=20)
    ap.add_argument("--soak-minutes", type=float, default=1.0, help="0: no soak")
    ap.add_argument("--full", action="store_true", help="the issue's 30-minute soak")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-collapse", action="store_true")
    ap.add_argument("--baseline", type=Path, help="another checkout of towerlab whose server plays the collapse "
                                                  "phase too, in turn with this one's (before/after in one run)")
    ap.add_argument("--rounds", type=int, default=1, help="collapse phases per server (with --baseline: in turn)")
    ap.add_argument("--carries", action="store_true", help="the table's CPU a frame with one and four seats "
                                                          "carrying at once (with --baseline: in turn)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    minutes = 30.0 if args.full else args.soak_minutes
    out = {"load": os.getloadavg()[0]}
    servers = ([("baseline", args.baseline.resolve())] if args.baseline else []) + [("this", ROOT)]
    if args.carries:
        out["carries"] = _carries_table(servers, args.rounds)
    if not args.skip_collapse:
        runs: dict[str, list] = {name: [] for name, _ in servers}
        loads = []
        for _ in range(args.rounds):
            for name, root in servers:
                loads.append(os.getloadavg()[0])
                runs[name].append(asyncio.run(_collapse(args.players, args.spectators, root)))
        out["collapse"] = runs
        print(f"## A Babylon game with a collapse: {args.players} seats, {args.spectators} spectators (load "
              f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores)\n")
        columns = [(f"{name} #{k + 1}", c) for name, _ in servers for k, c in enumerate(runs[name])]
        print("| figure | " + " | ".join(h for h, _ in columns) + " |")
        print("|---|" + "---|" * len(columns))
        tables = [_collapse_rows(c) for _, c in columns]
        for r, (figure, _) in enumerate(tables[0]):
            print(f"| {figure} | " + " | ".join(t[r][1] for t in tables) + " |")
        print()
    if minutes <= 0:
        if args.json:
            args.json.write_text(json.dumps(out, indent=1))
        return
    s = asyncio.run(_soak(minutes, args.seed))
    out["soak"] = s
    print(f"## Soak: {minutes:g} minute(s) of Babylon's fast game, four seats dropping and coming back\n")
    print("| figure | value |\n|---|---|")
    print(f"| actions sent and answered | {s['actions']} ({s['unanswered']} unanswered, {s['lost']} lost) |")
    print(f"| what was played (answered done) | {s.get('pick', 0)} pieces taken, {s.get('drop', 0)} set down, "
          f"{s.get('cancel', 0)} put back by the hand, {s.get('done', 0)} 'done', {s.get('next-round', 0)} "
          f"rounds begun{'; the game ended' if s.get('over') else ''} |")
    print(f"| seats carrying at once (the states a spectator was sent) | two or more in {s['states_two_carrying']} of "
          f"{s['states']}, at most {s['most_carrying']} |")
    print(f"| connections dropped (and made again by the clients) | {s['drops']}, {s['puts_back']} mid-carry "
          "(the piece put back) |")
    print(f"| every action done or refused by the game in the table's log, in order | {s['every_action_in_the_log']} |")
    print(f"| the recording equals a local replay of the log, bit for bit | {s['recording_equal']} "
          f"({s['recorded_frames']} frames; the replay took {s['replay_s']:.1f} s) |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
