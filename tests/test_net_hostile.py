"""Every message a server receives is hostile: oversized, binary, not JSON, nested too deep, of no known type, with
bad fields, numbers out of range, a flood, and a fuzz of malformed messages. Each gets an error reply, changes
nothing, and the connection stays open (but for a flood); the table never stops."""

from __future__ import annotations

import asyncio
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from net_table import joined, on_table, run, served

from sim.net.client import Client
from sim.net.protocol import BURST, FLOOD, MAX_MESSAGE
from sim.net.table import Setup

TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)


BAD = [
    ("x" * (MAX_MESSAGE + 1), "too-large"),
    (b"\x00\x01binary", "binary"),
    ("{not json", "malformed"),
    ("[" * 200 + "]" * 200, "malformed"),
    ('{"type": "teleport"}', "malformed"),
    ('{"type": "act", "action": {"action": "swap"}}', "malformed"),
    ('{"type": "act", "seq": "1", "action": {"action": "swap"}}', "malformed"),
    ('{"type": "act", "seq": 1, "action": [1, 2]}', "malformed"),
    ('{"type": "act", "seq": 1, "action": {"action": "swap"}, "extra": 1}', "malformed"),
    ('{"type": "hello", "protocol": "towerlab-net/1"}', "hello"),
    ('"just a string"', "malformed"),
]


def test_each_malformed_message_gets_its_error_and_changes_nothing_and_the_connection_stays_open():
    with served(TOHU) as server:
        async def scenario():
            red, = await joined(server, "red")
            log = await on_table(server, lambda t: list(t.log))
            for raw, code in BAD:
                before = len(red.errors)
                await red.raw(raw)
                await red.wait_for(lambda c, before=before: len(c.errors) > before)
                assert red.errors[-1]["code"] == code, (raw[:40], red.errors[-1])
                await red.ping()
            far = await red.act({"action": "move-to", "at": [1e300, 0.0]})  # a number out of range: the action's
            assert far["rule"] == "malformed" and "within" in far["reason"]  # field, checked as a file's
            assert await on_table(server, lambda t: list(t.log)) == log
            assert red.connected and server.runner.failed is None
            await red.close()
        run(scenario())


def test_a_flood_is_refused_for_its_rate_then_closed():
    with served(TOHU) as server:
        async def scenario():
            red, blue = await joined(server, "red", "blue")
            red.reconnect = False
            for _ in range(int(BURST) + 20):  # beyond the burst: refused for the rate, the connection stays
                await red.raw('{"type": "ping"}')
            await red.wait_for(lambda c: any(e["code"] == "rate" for e in c.errors))
            await asyncio.sleep(0.5)  # the rate's bucket fills again with time: that is what is checked
            await red.ping()
            for _ in range(int(BURST) + FLOOD + 50):  # a flood: closed
                try:
                    await red.raw('{"type": "sync"}')
                except Exception:  # noqa: BLE001 - closed under our feet: that is the point
                    break
            await red.wait_for(lambda c: not c.connected, timeout=20)
            assert red.errors[-1]["code"] == "flood"
            assert red._ws.close_code == 4008
            await blue.ping()  # the table and the other seats go on
            await blue.close()
        run(scenario())


_json = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) |
                     st.text(max_size=20), lambda inner: st.lists(inner, max_size=4) |
                     st.dictionaries(st.sampled_from(["type", "seq", "action", "piece", "at", "id", "protocol",
                                                      "hand", "x"]) | st.text(max_size=5), inner, max_size=4),
                     max_leaves=12)
_actions = st.fixed_dictionaries({"action": st.sampled_from(["pick", "move-to", "drop", "rotate", "swap", "stop",
                                                             "poke", "pull", "pick-group", "seat", "nope"])},
                                 optional={"piece": _json, "at": _json, "hand": _json, "degrees": _json,
                                           "player": _json, "pieces": _json, "extra": _json})
_messages = st.one_of(
    _json.map(lambda v: json.dumps(v, allow_nan=True)),
    st.builds(lambda seq, a: json.dumps({"type": "act", "seq": seq, "action": a}, allow_nan=True),
              st.integers(-5, 2**60), _actions),
    st.binary(max_size=50),
    st.text(max_size=60),
)


def test_a_fuzz_of_malformed_messages_never_stops_the_table_nor_closes_the_connection():
    with served(TOHU) as server:
        links = server.links()

        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
        @given(st.lists(_messages, min_size=1, max_size=12))
        def fuzz(messages):
            async def scenario():
                c = Client(links["blue"], reconnect=False)
                await c.join()
                for m in messages:
                    await c.raw(m)
                await c.ping()
                assert c.connected
                await c.close()
            run(scenario(), timeout=60)

        fuzz()

        async def alive():
            frame = server.latest.frame
            async with asyncio.timeout(30):
                while server.latest.frame <= frame:
                    await asyncio.sleep(0.02)  # (a polling pause)
            assert server.runner.failed is None
        run(alive())
