"""The collapse verdict of a recording, by the rules of its game (``towerlab penalty``).

Which pieces were knocked down and when, who caused it (the player whose
action came last before the first knocked-down event, with the action and the
piece: :mod:`sim.replay.collapse`), and what the game's rule makes of it, each
through the games' library (``sim.games``):

* **Tohuwabohu, professional variant** (``tohuwabohu.pro.collapse``): the
  players choose between going on unpunished and a new round in which the
  culprit puts one fulfilled order card back under the pile. The choice is read
  from the recording (a ``collapse_choice`` event, or a ``punish`` / ``continue``
  action, after the collapse); without one the verdict says what each choice
  would cost. The cards come from the last ``game_state`` event before the
  collapse, else from the ``card_fulfilled`` events; the card is the
  culprit's choice, by default the one fulfilled last.
* **Tohuwabohu, basic game**: no penalty; the player whose turn it is may
  rebuild or destroy as they like.
* **Talo** (``talo.game.collapse``): the game ends, the culprit loses, the
  pawn that stood highest before the collapse wins; pawns tied on the highest
  level all win (the rulebook names no tie-break). The rulebook lets players
  rebuild it as it was first: the verdict lists where each piece stood.
* **Talo-Fantasy**: the game ends; the player who brought it down loses and
  nobody wins (``talo.fantasy.place``'s reading).
* **Babylon, fast game** (``babylon.fast.tally_knocks``): each building part a
  player knocks down is a minus point and leaves the round, everything standing
  on a knocked-down piece falls with it, and knocking down another player's
  noble puts the player out of the round. A played game's recording marks its
  rounds (``round_ended``): the verdict is then given round by round.
* **Babylon, tactical game**: the knocked-down pieces go back where they were:
  the verdict lists where, from the recording.

A recording without a collapse gets a verdict too: nothing was knocked down.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation

from sim.games import registry
from sim.names import listing
from sim.replay.collapse import Collapse, collapses, rest_poses
from sim.replay.errors import ReplayError

UNRECORDED = {"tohuwabohu": "pro", "talo": "talo", "babylon": "tactical"}
"""The collapse rule a recording that names no variant is judged by (Tohuwabohu's professional variant: the
basic game's collapse costs nothing)."""


def rules_of(game: str) -> tuple[str | None, ...]:
    """The collapse rules of ``game``'s registered variants (each variant's ``penalty``: Talo's two boards follow
    the base game's, Tohuwabohu's advanced game the basic one's, Babylon's expert games those of the game they
    add to), the one for an unrecorded variant first; ``(None,)`` for a game without rules."""
    found = [v.penalty for v in registry.variants(game)]
    if not found:
        return (None,)
    return tuple(dict.fromkeys([UNRECORDED.get(game, found[0]), *found]))


def _rule(game: str, name: str | None) -> str | None:
    """The collapse rule a recorded or asked ``name`` means: a registered variant's, else the name itself."""
    return next((v.penalty for v in registry.variants(game) if v.name == name), name)


@dataclass(frozen=True)
class Penalty:
    """A recording's collapse verdict.

    Attributes:
        recording: the file.
        game, variant: the rules applied (``variant_note`` says when the variant was not recorded).
        collapses: every collapse, in time order.
        rule: the rule applied, in one sentence.
        consequence: what it makes of the collapse, JSON data (game-specific keys).
        lines: the consequence in words, one line each.
    """

    recording: str
    game: str
    variant: str | None
    collapses: tuple[Collapse, ...]
    rule: str
    consequence: dict
    lines: tuple[str, ...]
    variant_note: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def collapsed(self) -> bool:
        """Something was knocked down."""
        return bool(self.collapses)

    def to_json(self) -> dict:
        """``towerlab penalty --json``."""
        first = self.collapses[0] if self.collapses else None
        return {"recording": self.recording, "game": self.game, "variant": self.variant,
                "variant_note": self.variant_note, "collapse": self.collapsed,
                "culprit": None if first is None else first.culprit,
                "collapses": [c.to_json() for c in self.collapses], "rule": self.rule,
                "consequence": self.consequence, "verdict": list(self.lines), "notes": list(self.notes)}


def settle(recording, variant: str | None = None) -> Penalty:
    """The collapse verdict of a :class:`~sim.replay.recording.Recording` by its game's rules.

    Args:
        recording: the recording.
        variant: the variant to judge by, when the recording does not say (or to judge it otherwise).

    Raises:
        ReplayError: a variant the game does not have, or recorded game data the rules refuse.
    """
    game = recording.game if recording.game in registry.games() else "free"
    known = rules_of(game)
    note = None
    chosen = _rule(game, variant or recording.variant)
    if chosen is None:
        chosen = known[0]
        if game != "free":
            note = f"the recording names no variant: judged as {chosen} (give --variant {'|'.join(known)})"
    elif variant is not None and recording.variant not in (None, variant):
        note = f"recorded as {recording.variant}, judged as {variant} as asked"
    if chosen not in known:
        where = "--variant" if variant is not None else "header.json: variant"  # asked, or recorded
        has = f"has {', '.join(v for v in known if v)}" if any(known) else "has no variants"  # free: none
        raise ReplayError(f"{recording.path}: {where}: {game} {has}, got {chosen!r}")
    found = tuple(collapses(recording))
    judge = _JUDGES[(game, chosen)]
    rule, consequence, lines = judge(recording, found)
    if not found:
        lines = ["nothing was knocked down: no penalty", *lines]
    return Penalty(str(recording.path), game, chosen, found, rule, consequence, tuple(lines), note,
                   tuple(recording.notes))


# --- Tohuwabohu ------------------------------------------------------------------------------------

def _tohuwabohu_basic(recording, found):
    rule = ("Tohuwabohu, basic game: the player whose turn it is may extend, rebuild or destroy the structures "
            "as they wish; a collapse costs nothing (only wantonly demolishing a whole structure at the end of a "
            "turn is frowned upon)")
    lines = [f"collapse at {c.time:.2f} s caused by {c.culprit or 'no one recorded'}: no penalty" for c in found]
    return rule, {"penalty": None}, lines


def _tohuwabohu_pro(recording, found):
    from sim.games.tohuwabohu import pro
    from sim.games.tohuwabohu.state import GameError

    rule = ("Tohuwabohu, professional variant: after a collapse the players choose together to go on with the "
            "round unpunished, or to begin a new round in which whoever caused it puts one fulfilled order card "
            "back under their draw pile")
    if not found:
        return rule, {"penalty": None}, []
    c = found[0]
    culprit = c.culprit
    if culprit is None:
        return rule, {"culprit": None, "penalty": None}, [
            "no player's action came before it: the recording names no culprit, so no one is punished "
            "(the players may still begin a new round)"]
    state = _pro_state(recording, c, culprit)
    choice, card = _choice(recording, c)
    done = list(state.hand(culprit).done)
    out = {"culprit": culprit, "choice": choice, "fulfilled_before": done}
    try:
        if choice == "continue":
            pro.collapse(state, culprit, False)
            out["penalty"] = None
            return rule, out, [f"the players chose to go on: the round continues, {culprit} is not punished"]
        punished = pro.collapse(state, culprit, True, card)
    except GameError as e:
        raise ReplayError(f"{recording.path}: the recorded game refuses the penalty: {e}") from None
    back = next((e.card for e in reversed(punished.log) if e.action == "penalty"), None)
    out["card_back"] = back
    out["fulfilled_after"] = list(punished.hand(culprit).done)
    if choice == "punish":
        out["penalty"] = "card_back" if back else None
        what = f"puts {back} back under their draw pile" if back else "had fulfilled no card: nothing goes back"
        return rule, out, [f"the players chose to punish: a new round begins and {culprit} {what}"]
    out["penalty"] = "players_choose"
    what = (f"{culprit} puts one fulfilled card back under their pile ({back} by default, the one fulfilled last; "
            f"{culprit} chooses)" if back else f"{culprit} has fulfilled no card: nothing would go back")
    return rule, out, ["the choice is the players': go on with the round unpunished, or begin a new round in "
                       f"which {what}"]


def _pro_state(recording, c: Collapse, culprit: str):
    """The professional game just before the collapse: its last recorded state, or its fulfilled cards."""
    from sim.games.tohuwabohu.pro import ProState
    from sim.games.tohuwabohu.state import Hand

    state = _last_state(recording, c, ProState)
    if state is not None:
        return state
    players = list(recording.players)
    done: dict[str, list[str]] = {}
    for e in recording.timeline_events:
        if e.kind == "card_fulfilled" and e.time <= c.time + 1e-9:
            p, card = e.data.get("player"), e.data.get("card")
            if isinstance(p, str) and isinstance(card, str):
                done.setdefault(p, []).append(card)
                if p not in players:
                    players.append(p)
    if culprit not in players:
        players.append(culprit)
    hands = tuple(Hand(p, (), (), tuple(done.get(p, ()))) for p in players)
    return ProState(tuple(players), hands, round=1, running=True)


def _last_state(recording, c: Collapse, cls):
    """The game state of the last ``game_state`` event before the collapse, if it is a ``cls``."""
    from sim.errors import TowerlabError
    from sim.games.suite import state_from_json

    states = [e for e in recording.timeline_events if e.kind == "game_state" and e.time <= c.time + 1e-9]
    if not states:
        return None
    try:
        state = state_from_json(states[-1].data["state"])
    except (KeyError, TypeError, ValueError, TowerlabError) as e:
        raise ReplayError(f"{recording.path}: event {states[-1].index}: game_state: {e}") from None
    return state if isinstance(state, cls) else None


def _choice(recording, c: Collapse) -> tuple[str | None, str | None]:
    """What the players chose after the collapse (``punish``, ``continue`` or None) and the card named."""
    for e in recording.timeline_events:
        if e.time >= c.time - 1e-9 and e.kind == "collapse_choice":
            choice = e.data.get("choice")
            if choice in ("punish", "continue"):
                card = e.data.get("card")
                return choice, card if isinstance(card, str) else None
    for a in recording.actions:
        if a.time >= c.time - 1e-9 and a.kind in ("punish", "continue"):
            card = a.args.get("card")
            return a.kind, card if isinstance(card, str) else None
    return None, None


# --- Talo ------------------------------------------------------------------------------------------

def _talo(recording, found):
    from sim.games.talo import TaloError
    from sim.games.talo import game as talo

    rule = ("Talo: bringing the construction down (unless it can be rebuilt as it was) ends the game; whoever "
            "brought it down loses, the pawn that stood highest before the collapse wins (pawns tied on the "
            "highest level all win)")
    if not found:
        return rule, {"game_over": False}, []
    c = found[0]
    state = _talo_state(recording, c)
    levels = state.levels()
    out = {"culprit": c.culprit, "levels_before": levels, "stood_before": _stood(recording, c)}
    culprit = c.culprit
    if culprit is None:
        top = max(levels.values(), default=None)
        winners = [p for p in state.players if levels.get(p) == top] if top is not None else []
        out.update(game_over=True, loser=None, winners=winners)
        return rule, out, ["no player's action came before it: the recording names no one who brought it down",
                           f"the game ends; the highest pawn before it: {_names(winners)}"]
    try:
        over = talo.collapse(state, culprit, c.pieces)
    except TaloError as e:
        raise ReplayError(f"{recording.path}: the recorded game refuses the collapse: {e}") from None
    o = over.outcome
    out.update(game_over=True, loser=o.loser, winners=list(o.winners))
    won = (f"{_names(o.winners)} win{'s' if len(o.winners) == 1 else ''} (level "
           f"{levels[o.winners[0]]} before the collapse)" if o.winners else "no other pawn: nobody wins")
    return rule, out, [f"the game is over: {o.loser} brought it down and loses; {won}",
                       "if the players can rebuild it as it was, the game goes on (where each piece stood: "
                       "stood_before)"]


def _talo_state(recording, c: Collapse):
    """The Talo game just before the collapse: its last recorded state, or one read from the scene then."""
    from sim.games.talo import Stock
    from sim.games.talo.game import TaloState
    from sim.games.talo.layout import layout_of

    state = _last_state(recording, c, TaloState)
    if state is not None:
        return state
    scene = recording.scene_of_frame(c.before_frame)
    colors = [p.color for p in layout_of(scene).pawns]
    players = tuple(recording.players) or tuple(colors)
    if c.culprit is not None and c.culprit not in players:
        raise ReplayError(f"{recording.path}: the culprit {c.culprit!r} is none of the players "
                          f"({', '.join(players) or 'none recorded'})")
    return TaloState(scene, players, Stock.full())


def _fantasy(recording, found):
    rule = ("Talo-Fantasy: everyone builds together until the blocks run out, unless the construction collapses: "
            "then the game ends, whoever brought it down loses and nobody wins")
    if not found:
        return rule, {"game_over": False}, []
    c = found[0]
    out = {"culprit": c.culprit, "game_over": True, "loser": c.culprit, "winners": []}
    who = c.culprit or "no one recorded"
    return rule, out, [f"the game is over: it collapsed at {c.time:.2f} s, brought down by {who}; nobody wins"]


# --- Babylon ---------------------------------------------------------------------------------------

def _babylon_fast(recording, found):
    from sim.games.babylon import read_layout
    from sim.games.babylon.fast import Knock, tally_knocks
    from sim.games.babylon.supply import BabylonError

    rule = ("Babylon, fast game: each building part a player knocks down (with everything standing on it) is a "
            "minus point for that player and leaves the round; a player who knocks down another player's noble "
            "is out of the round")
    rounds: dict[int | None, dict[str, dict]] = {}  # round (None: not recorded) -> player -> what they knocked down
    lines = []
    for c in found:
        if c.culprit is None:
            lines.append(f"{_names(c.pieces)} fell at {c.time:.2f} s with no player's action before: no one pays")
            continue
        layout = read_layout(recording.scene_of_frame(c.before_frame))
        try:
            tally = tally_knocks(layout, [Knock(c.culprit, c.pieces)])
        except BabylonError as e:
            raise ReplayError(f"{recording.path}: {e}") from None
        p = rounds.setdefault(_round_at(recording, c.time), {}).setdefault(c.culprit, {"parts": [],
                                                                                        "nobles_of_others": []})
        p["parts"] += [i for i in tally.parts.get(c.culprit, ()) if i not in p["parts"]]
        p["nobles_of_others"] += [i for i in tally.nobles_of_others.get(c.culprit, ())
                                  if i not in p["nobles_of_others"]]
    total: dict[str, dict] = {}
    by_round = []
    for rnd, players in rounds.items():
        now = {}
        for who, p in players.items():
            now[who] = {"minus_points": len(p["parts"]), "parts_out_of_round": p["parts"],
                        "nobles_of_others": p["nobles_of_others"], "out_of_round": bool(p["nobles_of_others"])}
            t = total.setdefault(who, {"minus_points": 0, "parts_out_of_round": [], "nobles_of_others": [],
                                       "out_of_round": False})
            t["minus_points"] += now[who]["minus_points"]
            t["parts_out_of_round"] += p["parts"]
            t["nobles_of_others"] += p["nobles_of_others"]
            t["out_of_round"] = t["out_of_round"] or now[who]["out_of_round"]
            n = len(p["parts"])
            parts = (f"-{n} (knocked down {_names(p['parts'])}: {'it leaves' if n == 1 else 'they leave'} the "
                     "round)" if n else "no building part knocked down")
            out_line = (f"; out of the round for knocking down {_names(p['nobles_of_others'])} of another player"
                        if p["nobles_of_others"] else "")
            lines.append(("" if rnd is None else f"round {rnd}: ") + f"{who}: {parts}{out_line}")
        if rnd is not None:
            by_round.append({"round": rnd, "players": now})
    out = {"players": total}
    if by_round:
        out["rounds"] = by_round
    return rule, out, lines


def _round_at(recording, t: float) -> int | None:
    """The fast game's round at time ``t`` of a played game (the one after the last ``round_ended`` before it),
    None when the recording marks no rounds."""
    ended = [e for e in recording.timeline_events if e.kind == "round_ended"]
    if not ended:
        return None
    before = [e.data.get("round") for e in ended if e.time <= t and isinstance(e.data.get("round"), int)]
    return (max(before) if before else 0) + 1


def _babylon_tactical(recording, found):
    rule = ("Babylon, tactical game: knocked-down pieces must be put back as they were before the game goes on "
            "(no penalty)")
    back = []
    lines = []
    for c in found:
        stood = _stood(recording, c)
        back += stood
        lines += [f"put {s['piece']} back at ({s['pos_mm'][0]:.1f}, {s['pos_mm'][1]:.1f}, {s['pos_mm'][2]:.1f}) mm, "
                  f"turned {s['yaw_deg']:.1f} deg, on {_names(s['on'])}"
                  for s in stood]
    return rule, {"put_back": back}, lines


def _stood(recording, c: Collapse) -> list[dict]:
    """Where each piece the collapse knocked down stood before it, and on what."""
    from sim.analysis import support_graph

    poses = rest_poses(recording, c)
    scene = recording.scene_of_frame(c.before_frame).with_poses(poses)
    graph = support_graph(scene)
    ids = set(scene.ids)
    out = []
    for p in c.pieces:
        if p not in poses:
            continue
        pose = poses[p]
        on = list(graph.rests_on(p)) if p in ids else []
        out.append({"piece": p, "pos_mm": [round(float(x) * 1000.0, 3) for x in pose[:3]],
                    "quat": [float(x) for x in pose[3:]], "yaw_deg": round(_heading(pose[3:]), 3), "on": on,
                    "time_s": float(recording.times[c.rest_frames[p]])})
    return out


def _heading(quat) -> float:
    """Which way a piece is turned about the vertical (degrees, 0..360): the heading of its x axis, or of its y
    axis when the x axis stands up (a block on end)."""
    m = Rotation.from_quat(quat).as_matrix()
    axis = m[:, 0] if abs(m[2, 0]) < 0.9 else m[:, 1]
    return float(np.degrees(np.arctan2(axis[1], axis[0]))) % 360.0


def _names(ids) -> str:
    return listing(ids, 8, none="nobody")


def _free(recording, found):
    return "a free scene has no game rules: no penalty", {"penalty": None}, [
        f"{_names(c.pieces)} knocked down at {c.time:.2f} s" + (f", caused by {c.culprit}" if c.culprit else "")
        for c in found]


_JUDGES = {("tohuwabohu", "pro"): _tohuwabohu_pro, ("tohuwabohu", "basic"): _tohuwabohu_basic,
           ("talo", "talo"): _talo, ("talo", "fantasy"): _fantasy, ("babylon", "fast"): _babylon_fast,
           ("babylon", "tactical"): _babylon_tactical, ("free", None): _free}

__all__ = ["UNRECORDED", "Penalty", "rules_of", "settle"]
