"""What the game panel says, as text: each game's view (its session's ``view()``) in lines, no Panda3D.

One function a game: :func:`talo_lines` (the die, the throw's choices, the
hand, the stock boards' counts, the pawns and their levels), :func:`fantasy_lines`
(the same without pawns, and how many blocks each player built),
:func:`tohuwabohu_lines` (each player's pile, set-aside cards and open card,
the clock), :func:`babylon_lines` (the live count, each player's supply, the
level-majority table, the final score). :func:`panel_lines` picks one and adds
the last refusal with its reason and the game's keys.
"""

from __future__ import annotations

from collections.abc import Mapping

from sim.viewer.play import panels_fast

KEYS = {
    "talo": "X throw  |  pick a block: take  |  G two together  |  V your pawn's routes  |  M pawn to the field "
            "under the cursor  |  Enter end turn",
    "talo-fantasy": "X throw  |  pick a block: take  |  G two together  |  Enter end turn  |  End the goal is "
                    "reached: finish",
    "tohuwabohu": "O swap the card (once a turn)  |  H the other hand",
    "tohuwabohu-pro": "Tab next player's hands  |  Enter stop!  |  C continue  |  X punish",
    "babylon": "Enter end turn  |  M on two nobles: the special move  |  U turn the tower under the cursor (expert)  "
               "|  B take this turn's pieces back",
}


def _stock_lines(v: Mapping) -> list[str]:
    """A Talo game's die, what the throw allows, the hand and the stock boards' counts."""
    out = []
    if v["rolls"]:
        throws = " then ".join(str(r) for r in v["rolls"])
        out.append(f"die: {v['rolls'][-1]}" + (f"   (throws: {throws})" if len(v["rolls"]) > 1 else ""))
    if v["phase"] == "take":
        out.append("take: " + "  |  ".join(" + ".join(map(str, o)) for o in v["options"]))
    if v["hand"]:
        held = f"   held: {v['pending']}" if v["pending"] else ""
        together = "   (placing two together)" if v["together"] else ""
        out.append(f"in hand: {' + '.join(map(str, v['hand']))}{together}{held}")
    stock = v["stock"]
    out.append("stock: " + "  ".join(f"{n}:{stock[n] if n in stock else stock.get(str(n), 0)}"
                                     for n in range(1, 11)))
    return out


def _outcome_line(v: Mapping) -> list[str]:
    if not v["outcome"]:
        return []
    o = v["outcome"]
    lost = f", {o['loser']} loses" if o["loser"] else ""
    return [f"GAME OVER ({o['reason']}): {' and '.join(o['winners']) or 'nobody'} wins{lost}"]


def talo_lines(v: Mapping) -> list[str]:
    """The Talo panel: whose turn, the die, what the throw allows, the hand, the stock, the pawns."""
    out = [f"TALO ({v['variant']})  |  {v['current']}"
           + {"start": ": put your pawn on a start field", "throw": ": throw the die",
              "take": ": take blocks", "build": ": build and walk", "over": ""}[v["phase"]]]
    out += _stock_lines(v)
    pawns = []
    for p in v["players"]:
        where = "off the board" if p["cell"] is None else f"level {p['level']} on {p['cell']}"
        pawns.append(f"{'> ' if p['active'] else '  '}{p['color']}: {where}")
    out += pawns
    if v["selected"]:
        n = len(v["selected"]["destinations"])
        out.append(f"{v['selected']['pawn']} can reach {n} spot(s): click one (routes drawn)")
    if v["blocked"]:
        out.append("blockaded: restart on a free start field (click one)")
    return out + _outcome_line(v)


def fantasy_lines(v: Mapping) -> list[str]:
    """The Talo-Fantasy panel: whose turn, the die, what the throw allows, the hand, the stock, who placed what."""
    out = [f"TALO-FANTASY  |  {v['current']}" + {"throw": ": throw the die", "take": ": take blocks",
                                                 "build": ": build anywhere", "over": ""}[v["phase"]]]
    out += _stock_lines(v)
    out.append("built: " + "  ".join(f"{'> ' if p['active'] else ''}{p['name']} {p['placed']}"
                                     for p in v["players"]) + f"   ({v['built']} blocks)")
    return out + _outcome_line(v)


def tohuwabohu_lines(v: Mapping) -> list[str]:
    """The Tohuwabohu panel: the clock, each player's pile, set-aside cards and open card(s)."""
    pro = v["variant"] == "pro"
    head = f"TOHUWABOHU ({v['variant']})  |  {v['clock']}"
    head += f"  |  round {v['round']}" if pro else f"  |  {v['seat']}'s turn"
    out = [head]
    for p in v["players"]:
        cards = "; ".join(c["title"] + (" (fulfilled)" if c["fulfilled"] else "") for c in p["open"])
        mark = "> " if p["active"] else "  "
        out.append(f"{mark}{p['name']}: {p['pile']} in pile, {p['done']} done" + (f"  |  {cards}" if cards else ""))
    if not pro and v.get("swapped"):
        out.append("swapped this turn")
    if v["prompt"]:
        out.append(v["prompt"]["question"] + "  " + " / ".join(c[0] for c in v["prompt"]["choices"]))
    if v["winner"]:
        out.append(f"GAME OVER: {v['winner']} wins")
    return out


def babylon_lines(v: Mapping) -> list[str]:
    """The Babylon panel: whose turn and the live count, each supply, the majority table, the score."""
    first = "  |  first round" if v["first_round"] else ""
    out = [f"BABYLON ({v['variant']})  |  turn {v['turn']}  |  {v['current']}: {v['count']}{first}"]
    if v["special"]:
        out.append("special move: " + " ".join(v["special"]))
    for c, h in v["hands"].items():
        mark = "> " if c == v["current"] else "  "
        total = v["totals"].get(c)
        score = "" if total is None else f"  |  {total:+d} points"
        out.append(f"{mark}{c}: {h['towers']} towers, {h['bridges']} bridges, {h['small']} small, "
                   f"{h['large']} large{score}")
    if v["majority"]:
        out.append("level  " + "  ".join(f"{c[:6]:>6}" for c in v["hands"]) + "   majority")
        for row in v["majority"][::-1]:
            counts = "  ".join(f"{row['counts'].get(c, 0):>6}" for c in v["hands"])
            who = f"{row['winner']} +{row['points']}" if row["winner"] else "tie: nobody"
            out.append(f"{row['level']:>5}  {counts}   {who}")
    if v["over"]:
        final = v["final"]
        won = " and ".join(final["winners"]) or "nobody (" + " and ".join(final["tied"]) + " tie)"
        out.append(f"GAME OVER ({v['over']}): {won} wins")
    return out


def tohuwabohu_cards(v: Mapping) -> list[dict]:
    """What the card tray shows of a Tohuwabohu view: each player's group of cards, seat order.

    Returns:
        ``[{name, active, caption, pile, cards: [{id, title, color, fulfilled}]}]``: the face-up cards (one in
        the basic game, up to three in the professional variant) and, when the pile still holds cards, their
        count (drawn as the pile's back).
    """
    out = []
    for p in v["players"]:
        caption = f"{'> ' if p['active'] else ''}{p['name']}: {p['pile']} in pile, {p['done']} done"
        out.append({"name": p["name"], "active": p["active"], "caption": caption, "pile": p["pile"],
                    "cards": [dict(c) for c in p["open"]]})
    return out


LINES = {"talo": talo_lines, "talo-fantasy": fantasy_lines, "tohuwabohu": tohuwabohu_lines, "babylon": babylon_lines,
         "babylon-fast": panels_fast.babylon_fast_lines}
KEYS["babylon-fast"] = panels_fast.KEYS


def panel_lines(view: Mapping, refusal: Mapping | None = None) -> list[str]:
    """The game panel: the game's lines, the last refusal and its reason, the keys."""
    own = f"{view['game']}-{view['variant']}"  # a variant with a panel or keys of its own (Talo-Fantasy, ...)
    panel = view.get("panel") or (own if own in LINES else view["game"])  # or one the game's view names
    out = LINES[panel](view)
    if refusal is not None:
        out.append(f"REFUSED ({refusal['rule']}): {refusal['reason']}")
    out.append(KEYS.get(own, KEYS[panel]))
    return out
