"""Write the Tohuwabohu card scenes and example scenes from their constructions.

    .venv/bin/python tools/build_tohuwabohu_cards.py           # (re)write them
    .venv/bin/python tools/build_tohuwabohu_cards.py --check   # exit 1 if a file is out of date

Card scenes (``sim/data/cards/tohuwabohu/<card id>.json``, package data: the
``cards`` command reads them from an installed package) come from
:data:`sim.games.tohuwabohu.examples.EXAMPLES`; the few other example scenes
of the game (``scenes/tohuwabohu/``) are built here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.atomic import write_text
from sim.games.tohuwabohu import CARDS
from sim.games.tohuwabohu.construct import Construction, pillar
from sim.games.tohuwabohu.examples import EXAMPLES, rails
from sim.scene import dumps

ROOT = Path(__file__).resolve().parents[1]
CARDS_DIR = "sim/data/cards/tohuwabohu"  # what sim.games.tohuwabohu.illustrate.CARD_SCENES reads in a checkout
EXAMPLES_DIR = "scenes/tohuwabohu"


def card_scene(card_id: str) -> str:
    """The card's example construction as scene file text."""
    card = CARDS[card_id]
    c = EXAMPLES[card_id]()
    c.title = card.title
    c.notes = f"Example construction for the {card.color} order card {card_id}; built by tools/{Path(__file__).name}."
    return dumps(c.scene())


def bridge_between_towers() -> Construction:
    """Two structures joined by an arch, figures on both: fulfils several cards at once."""
    c = Construction("Two towers and a bridge", "Two structures of two levels; an arch joins their second levels.")
    a1 = c.storey("quad", [pillar("large", "red", "y", -35, 0), pillar("large", "red", "y", 35, 0)], at=(-70, 0))
    b1 = c.storey("quad", [pillar("large", "blue", "y", -35, 0), pillar("large", "blue", "y", 35, 0)], at=(70, 0))
    c.figures(a1)
    c.figures(b1, "red", "green")
    a2 = c.storey("quad", [pillar("small", col, "up", dx, dy) for col, (dx, dy)
                           in zip(("neutral", "neutral", "red"), ((-35, 25), (35, 25), (0, -35)))], on=a1, at=(-70, 0))
    b2 = c.storey("quad", [pillar("small", col, "up", dx, dy) for col, (dx, dy)
                           in zip(("neutral", "neutral", "green"), ((-35, 25), (35, 25), (0, -35)))], on=b1, at=(70, 0))
    c.arch((0, 0), on=[a2, b2])
    c.figure("blue", a2)
    return c


def broken_rules() -> Construction:
    """A structure that breaks two building rules: a figure on the wrong point, a brick across two levels."""
    c = Construction("Against the rules", "A blue figure on the red point, and a lying brick joining two levels.")
    a = c.storey("quad", rails("quad", "large", ("red", "red")), at=(-70, 0))
    b = c.storey("quad", rails("quad", "large", ("green", "green")), at=(70, 0))
    c.brick("large", "blue", "x", (0, 0), on=[a, b])
    c.figure("blue", a, point="red")
    c.figure("green", b)
    return c


def overhang() -> Construction:
    """A level on one brick near its edge: built by the rules, but it tips over."""
    c = Construction("Too far out", "Level 2 rests on a single brick 25 mm off its centre; it tips over.")
    l1 = c.storey("quad", rails("quad", "large", ("red", "red")))
    post = c.brick("large", "blue", "y", (45, 0), on=l1)
    c.level("quad", (70, 0), [post])
    return c


def example_scenes() -> dict[str, str]:
    """Path relative to the repository -> scene text, for every file this tool writes."""
    files = {f"{CARDS_DIR}/{cid}.json": card_scene(cid) for cid in CARDS}
    files[f"{EXAMPLES_DIR}/bridge-between-towers.json"] = dumps(bridge_between_towers().scene())
    files[f"{EXAMPLES_DIR}/against-the-rules.json"] = dumps(broken_rules().scene())
    files[f"{EXAMPLES_DIR}/too-far-out.json"] = dumps(overhang().scene())
    return files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report files that differ; write nothing")
    args = ap.parse_args(argv)
    stale = []
    for rel, text in example_scenes().items():
        path = ROOT / rel
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(rel)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path, text)
    verb = "out of date" if args.check else "written"
    print(f"{len(stale)} file(s) {verb}" + (": " + ", ".join(stale) if stale else ""))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
