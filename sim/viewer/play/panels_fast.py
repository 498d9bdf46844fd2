"""What the game panel says for Babylon's fast game, as text (no Panda3D): the round, whose hands, each player's
nobles and parts placed, their points per construction area, what they knocked down, the last round's result."""

from __future__ import annotations

from collections.abc import Mapping

KEYS = ("Tab next player's hands  |  Enter stop! (all nobles placed)  |  End done: can build no further  |  "
        "G the next round")


def _player(p: Mapping, seat: str) -> str:
    mark = "> " if p["color"] == seat else "  "
    aside = f", {p['set_aside']} large aside" if p["set_aside"] else ""
    parts = "1 part" if p["parts"] == 1 else f"{p['parts']} parts"
    line = f"{mark}{p['color']} ({p['wins']} won{aside}): {p['nobles']} of {p['to_place']} nobles placed, {parts}"
    if p["areas"]:
        areas = ", ".join(f"with {n} {v}" for n, v in p["areas"].items())
        line += f"  |  {areas}"
    if p["knocked"]:
        line += f"  |  knocked down -{len(p['knocked'])}"
    if p["out"]:
        line += "  |  OUT of the round"
    elif p["score"] is not None:
        line += f"  |  score {p['score']}"
    if p["done"]:
        line += "  |  done"
    return line


def babylon_fast_lines(v: Mapping) -> list[str]:
    """The fast game's panel: the round and whose hands, each player, who may call stop, the last round, the end."""
    out = [f"BABYLON ({v['variant']})  |  round {v['round']}  |  {v['seat']}'s hands"]
    out += [_player(p, v["seat"]) for p in v["players"]]
    ready = [p["color"] for p in v["players"] if p["nobles"] >= p["to_place"] and not p["out"]]
    if ready and not v["stopped"]:
        out.append(f"{' and '.join(ready)} placed every noble: Enter calls stop")
    last = v["last"]
    if last is not None:
        scores = ", ".join(f"{c} {'out' if s is None else s}" for c, s in last["scores"].items())
        won = " and ".join(last["winners"]) or "nobody"
        out.append(f"ROUND {last['round']} ({last['reason']}): {won} won  |  {scores}")
    if v["stopped"] and not v["over"]:
        out.append("the round is over: G begins the next")
    if v["over"]:
        out.append(f"GAME OVER: {' and '.join(v['winners'])} won three rounds")
    return out
