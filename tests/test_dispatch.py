"""Actions dispatch through one table (sim.dispatch): every action an interface declares has its method, and
every method of the kind has its declared action, checked for the viewer's and the replay's controllers, every
registered game's play session and the live world's data actions."""

from __future__ import annotations

import pytest

from sim.dispatch import handler_table


class _Doer:
    def _do_pick(self, a):
        return ("picked", a)

    def _do_end_turn(self, a):
        return ("ended", a)


def test_a_table_maps_each_declared_action_to_its_method_and_refuses_gaps_both_ways():
    table = handler_table(_Doer, ("pick", "end-turn"), "_do_")
    doer = _Doer()
    assert table["end-turn"](doer, 1) == ("ended", 1) and table["pick"](doer, 2) == ("picked", 2)
    with pytest.raises(TypeError, match="declares drop without"):
        handler_table(_Doer, ("pick", "end-turn", "drop"), "_do_")
    with pytest.raises(TypeError, match="_do_end_turn that no action declares"):
        handler_table(_Doer, ("pick",), "_do_")
    assert list(handler_table(_Doer, ("pick",), "_do_", complete=False)) == ["pick"]


def test_the_controllers_declare_exactly_the_actions_they_do():
    from sim.viewer.control.actions import SPECS
    from sim.viewer.control.controller import PARTS, dispatch_table
    from sim.viewer.replay.actions import SPECS as REPLAY_SPECS
    from sim.viewer.replay.controller import ReplayController

    assert set(dispatch_table(PARTS)) == set(SPECS)
    assert all(part.ACTIONS for part in PARTS if part.__name__ not in ("Saving", "Port"))
    assert set(handler_table(ReplayController, REPLAY_SPECS, "_do_")) == set(REPLAY_SPECS)


@pytest.mark.parametrize("variant", [pytest.param(v, id=f"{v.game}-{v.name}") for v in __import__(
    "sim.games.registry", fromlist=["variants"]).variants()])
def test_every_games_session_declares_exactly_the_actions_it_answers(variant):
    session = variant.start().session
    assert set(handler_table(type(session), session.ACTIONS, "_act_")) == set(session.ACTIONS)


def test_the_live_world_applies_every_kind_a_recording_replays():
    from sim.physics.live.actions import APPLY
    from sim.replay.records import WORLD_ACTIONS

    assert set(APPLY) == set(WORLD_ACTIONS)


def test_the_viewers_actions_are_each_done_by_one_part():
    from sim.viewer.control.controller import PARTS, dispatch_table
    from sim.viewer.control.state import Part

    class Twice(Part):
        ACTIONS = ("pick",)

        def _do_pick(self, a):
            pass

    with pytest.raises(TypeError, match="pick is done by both"):
        dispatch_table((*PARTS, Twice))
    with pytest.raises(TypeError, match="actions without a part: .*'pull'"):
        dispatch_table(tuple(p for p in PARTS if p.__name__ != "Pulling"))
