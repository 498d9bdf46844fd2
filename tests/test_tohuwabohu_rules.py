"""Tohuwabohu building rules: each rule broken by a small scene, and named with its pieces."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from sim.games.tohuwabohu import RULES, Verdict, analyze, check_rules, judgement
from sim.games.tohuwabohu.construct import Construction, pillar
from sim.games.tohuwabohu.examples import rails
from sim.geometry.transforms import euler_to_quat, transform_points
from sim.pieces import shape
from sim.scene.io import from_dict


def _violations(scene):
    return check_rules(analyze(scene))


def _only(scene, rule):
    """The scene breaks exactly ``rule`` (possibly several times); returns those violations."""
    found = _violations(scene)
    assert found, f"no violation, expected {rule}"
    assert {v.rule for v in found} == {rule}, [v.to_json() for v in found]
    return found


def _legal_level() -> Construction:
    c = Construction()
    c.storey("quad", rails("quad", "large", ("red", "red")), id="L")
    return c


def _add(c: Construction, *pieces) -> object:
    d = c.to_dict()
    d["pieces"].extend(pieces)
    return from_dict(d)


def test_a_legal_construction_breaks_no_rule():
    c = _legal_level()
    c.figures("L")
    assert _violations(c.scene()) == []


def test_rules_have_one_line_descriptions():
    assert set(RULES) == {"box", "on-area", "level-on-bricks", "level-horizontal", "pillars-equal-height",
                          "join-only-arches", "join-equal-height", "figure-on-point", "figure-one-per-colour",
                          "figure-not-brick"}


def test_more_pieces_than_the_box_holds():
    c = Construction()
    for k, x in enumerate((-100, 0, 100)):
        c.arch((x, 0), id=f"arch{k}")
    (v,) = _only(c.scene(), "box")
    assert v.pieces == ("arch0", "arch1", "arch2") and "the box holds 2" in v.reason


def test_a_piece_of_no_tohuwabohu_box():
    scene = _add(_legal_level(), {"id": "crate", "kind": "box", "size": [20, 20, 20], "pos": [100, 100, 10]})
    (v,) = _only(scene, "box")
    assert v.pieces == ("crate",)


def test_building_off_the_playing_area():
    c = _legal_level()
    c.brick("large", "blue", "x", (110, 110), id="edge")  # reaches x = 150 > 140
    (v,) = _only(c.scene(), "on-area")
    assert v.pieces == ("edge",)


def test_a_level_on_the_board_or_on_another_level():
    on_board = _add(Construction(), {"id": "flat", "kind": "tohuwabohu.level", "shape": "quad", "pos": [0, 0, 1.5]})
    (v,) = _only(on_board, "level-on-bricks")
    assert v.pieces == ("flat",) and "the board" in v.reason
    c = _legal_level()
    on_level = _add(c, {"id": "L2", "kind": "tohuwabohu.level", "shape": "tri", "pos": [0, 0, c.top("L") + 1.5]})
    (v,) = _only(on_level, "level-on-bricks")
    assert v.pieces == ("L2", "L")


def _plate_on_edge(theta_deg: float):
    """A quad plate turned about y by theta, resting on one edge of a small brick on end (top at 40 mm)."""
    c = Construction()
    c.brick("small", "red", "up", (0, 0), id="post")
    corners = np.array([[-60, -60, -1.5], [60, -60, -1.5], [60, 60, -1.5]]) / 1000  # on the bottom face
    bottom = transform_points(corners, [0, 0, 0], euler_to_quat([0, theta_deg, 0])) * 1000
    # height of the bottom face over the brick's top square, at its two edges x = ±10
    a, b, cz = np.linalg.solve(np.c_[bottom[:3, :2], np.ones(3)], bottom[:3, 2])
    lift = max(40.0 - (a * x + cz) for x in (-10.0, 10.0))
    return _add(c, {"id": "tilted", "kind": "tohuwabohu.level", "shape": "quad", "pos": [0, 0, lift],
                    "rot": [0, theta_deg, 0]})


def test_a_tilted_level():
    scene = _plate_on_edge(4.0)
    assert analyze(scene).pieces["tilted"].rests_on == ("post",)
    (v,) = _only(scene, "level-horizontal")
    assert v.pieces == ("tilted",) and "4.0°" in v.reason


def test_pillars_of_unequal_height_even_with_level_tops():
    """A small brick on end (40 mm) beside two lying bricks stacked (20 mm each): tops level, heights not."""
    c = Construction()
    post = c.brick("small", "red", "up", (-35, 0), id="post")
    low = c.brick("small", "blue", "y", (35, 0))
    top = c.brick("small", "blue", "y", (35, 0), on=low, id="short")
    c.level("quad", (0, 0), [post, top], id="L")
    (v,) = _only(c.scene(), "pillars-equal-height")
    assert set(v.pieces) == {"L", "post", "short"} and "20 mm" in v.reason and "40 mm" in v.reason


def _two_levels(right_pillars: str = "y") -> Construction:
    c = Construction()
    c.storey("quad", [pillar("large", "red", "y", -35, 0), pillar("large", "red", "y", 35, 0)], at=(-70, 0),
             id="A")
    size = "large" if right_pillars == "y" else "small"
    c.storey("quad", [pillar(size, "blue", right_pillars, -35, 0), pillar(size, "blue", right_pillars, 35, 0)],
             at=(70, 0), id="B")
    return c


def test_only_arches_join_levels():
    c = _two_levels()
    c.brick("large", "green", "x", (0, 0), on=["A", "B"], id="plank")
    (v,) = _only(c.scene(), "join-only-arches")
    assert v.pieces == ("plank", "A", "B")
    legal = _two_levels()
    legal.arch((0, 0), on=["A", "B"], id="bridge")
    assert _violations(legal.scene()) == []


def test_an_arch_joins_levels_of_equal_height_only():
    c = _two_levels(right_pillars="up")  # level B is 20 mm higher than A
    arch = shape("tohuwabohu.arch")

    def lowest(theta: float, foot: str) -> np.ndarray:
        part = next(p for p in arch.parts if p.name == foot)
        v = transform_points(part.vertices, [0, 0, 0], euler_to_quat([0, theta, 0])) * 1000
        return v[np.argmin(v[:, 2])]

    rise = c.top("B") - c.top("A")
    theta = brentq(lambda t: lowest(t, "foot-right")[2] - lowest(t, "foot-left")[2] - rise, -40.0, 0.0)
    scene = _add(c, {"id": "bridge", "kind": "tohuwabohu.arch", "rot": [0, theta, 0],
                     "pos": [0, 0, c.top("A") - lowest(theta, "foot-left")[2]]})
    assert set(analyze(scene).pieces["bridge"].rests_on) == {"A", "B"}
    (v,) = _only(scene, "join-equal-height")
    assert v.pieces == ("bridge", "A", "B") and "23" in v.reason and "43" in v.reason


def _figure_at(c: Construction, fid: str, color: str, xy, z: float):
    return {"id": fid, "kind": "tohuwabohu.figure", "color": color, "pos": [xy[0], xy[1], z + 11.0]}


def test_figures_only_on_their_own_colours_point():
    c = _legal_level()
    top = c.top("L")
    cases = {
        "on-board": _figure_at(c, "on-board", "red", (110, 110), 0.0),
        "no-point": _figure_at(c, "no-point", "red", (0, 0), top),
        "wrong-point": _figure_at(c, "wrong-point", "blue", (0, 36), top),  # the red point
    }
    for fid, fig in cases.items():
        (v,) = _only(_add(c, fig), "figure-on-point")
        assert v.pieces[0] == fid, v.reason
    lying = {"id": "lying", "kind": "tohuwabohu.figure", "color": "red", "pos": [0, 36, top + 6.0345],
             "rot": [90, 0, 0]}
    (v,) = _only(_add(c, lying), "figure-on-point")
    assert "lies on its side" in v.reason


def test_at_most_one_figure_of_a_colour_per_level():
    c = _legal_level()
    top = c.top("L")
    both = [_figure_at(c, f"red{k}", "red", (dx, 36), top) for k, dx in enumerate((-6.5, 6.5))]  # both touch it
    (v,) = _only(_add(c, *both), "figure-one-per-colour")
    assert v.pieces == ("L", "red0", "red1")


def test_figures_are_never_bricks():
    c = _legal_level()
    fig = c.figure("red", "L", id="fig")
    head = c.top(fig)
    scene = _add(c, {"id": "lintel", "kind": "tohuwabohu.brick", "size": "small", "color": "green",
                     "pos": [0, 36, head + 10]})
    found = _violations(scene)
    assert [v.rule for v in found] == ["figure-not-brick"]
    assert found[0].pieces == ("fig", "lintel")


def test_a_broken_rule_spoils_only_its_structure():
    c = Construction()
    c.storey("quad", rails("quad", "large", ("red", "red")), at=(-70, 0), id="good")
    c.storey("quad", rails("quad", "large", ("blue", "blue")), at=(70, 0), id="bad")
    c.figure("red", "bad", id="f")
    d = c.to_dict()
    next(p for p in d["pieces"] if p["id"] == "f")["pos"][:2] = [70, 0]  # on no point
    j = judgement(from_dict(d), Verdict.standing())
    assert [v.rule for v in j.violations] == ["figure-on-point"]
    assert [lv.id for s in j.position.structures for lv in s.levels] == ["good"]


# --- the supply beside the playing area ------------------------------------------------

TABLE_Z = -4.0  # mm: the table top around the 4 mm playing area


def _on_table(pid, x, y, size="small", color="red", z=None):
    """A brick lying flat on the table beside the area (or at height ``z`` of its bottom)."""
    bottom = TABLE_Z if z is None else z
    return {"id": pid, "kind": "tohuwabohu.brick", "size": size, "color": color, "pos": [x, y, bottom + 10]}


def test_a_piece_lying_loose_beside_the_area_is_supply_not_a_structure():
    from sim.games.tohuwabohu.examples import two_structures

    c = two_structures()
    scene = _add(c, _on_table("spare", 200, 0), _on_table("spare2", 200, 60, "small", "blue"),
                 {"id": "fig", "kind": "tohuwabohu.figure", "color": "green", "pos": [-200, 0, TABLE_Z + 11]})
    a = analyze(scene)
    assert a.supply == ("spare", "spare2", "fig") and a.pieces["spare"].supply
    assert len(a.structures) == 2 and all(a.structure_of(p) is None for p in a.supply)
    j = judgement(scene, Verdict.standing())
    assert j.violations == () and "two-structures" in j.fulfilled
    assert j.to_json()["supply"] == ["spare", "spare2", "fig"]


def test_pieces_off_the_area_are_in_play_when_they_stand_on_something_or_touch_a_structure():
    stacked = _add(_legal_level(), _on_table("low", 200, 0), _on_table("high", 200, 0, z=TABLE_Z + 20))
    (v,) = _only(stacked, "on-area")
    assert v.pieces == ("low", "high") and analyze(stacked).supply == ()
    c = _legal_level()
    c.brick("large", "blue", "x", (110, 0), id="over")  # on the board, reaching 10 mm past its edge at 140
    touching = _add(c, _on_table("beside", 170.0, 0))  # on the table, end to end with it
    assert analyze(touching).supply == ()
    (v,) = _only(touching, "on-area")
    assert v.pieces == ("over", "beside")


def test_the_supply_is_not_asked_of_the_physics():
    from sim.games.tohuwabohu import physics_scene

    scene = _add(_legal_level(), _on_table("spare", 200, 0))
    assert physics_scene(scene).ids == [i for i in scene.ids if i != "spare"]
