"""``towerlab pieces``: the catalogue, with dimensions (mm) and masses (g)."""

from __future__ import annotations

from typing import Annotated

import typer

from sim.cli.common import console, emit_json


def register(app: typer.Typer) -> None:
    app.command()(pieces)


def _variant_report(shape) -> dict:
    return {
        "params": {k: list(v) if isinstance(v, tuple) else v for k, v in shape.params.items()},
        "dimensions_mm": [round(float(x) * 1000.0, 2) for x in shape.extent],
        "mass_g": round(shape.mass * 1000.0, 3),
        "volume_cm3": round(shape.volume * 1e6, 3),
        "material": shape.material.name,
        "density_g_cm3": round(shape.material.density / 1000.0, 3),
        "friction": shape.material.friction,
        "convex_parts": len(shape.parts),
        "anchors": [a.name for a in shape.anchors],
    }


def catalogue_report() -> dict:
    """Every kind and board as plain data (the ``--json`` output)."""
    from sim.pieces import KINDS, board, shape
    from sim.pieces.boards import BOARDS

    kinds = []
    for spec in KINDS.values():
        kinds.append({
            "kind": spec.kind, "game": spec.game, "summary": spec.summary,
            "params": {p.name: {"description": p.description, "choices": list(p.choices)} for p in spec.params},
            "variants": [_variant_report(shape(spec.kind, **v)) for v in spec.variants()],
        })
    boards = []
    for name in BOARDS:
        b = board(name)
        entry = {"board": name, "endless": b.shape is None}
        if b.shape is not None:
            entry["dimensions_mm"] = [round(float(x) * 1000.0, 2) for x in b.shape.extent]
        if b.grid is not None:
            entry["grid"] = {"fields": b.grid.n, "field_mm": b.grid.cell * 1000.0}
        if b.buildable is not None:
            entry["buildable_fields"] = len(b.buildable)
        boards.append(entry)
    return {"kinds": kinds, "boards": boards}


def _shown(name: str, value) -> str:
    """A parameter's value in the table: sizes joined by x, a hull's points counted."""
    if isinstance(value, list) and value and isinstance(value[0], (list, tuple)):
        return f"{len(value)} points"
    if isinstance(value, list):
        return "x".join(f"{x:g}" for x in value)
    return f"{name}={value}" if name in ("radius", "height", "length") else str(value)


def pieces(
    as_json: Annotated[bool, typer.Option("--json", help="Print the catalogue as JSON.")] = False,
) -> None:
    """List every piece kind with its parameters, dimensions in mm and mass in g."""
    from rich import box
    from rich.table import Table

    report = catalogue_report()
    if as_json:
        emit_json(report)
        return
    # the kind is what users type: never cut or wrapped; the other columns fold in a narrow terminal
    table = Table(title="towerlab piece catalogue", show_lines=False, box=box.SIMPLE_HEAD)
    table.add_column("kind", no_wrap=True, min_width=max(len(k["kind"]) for k in report["kinds"]))
    table.add_column("parameters", overflow="fold")
    table.add_column("size x × y × z (mm)", overflow="fold")
    table.add_column("mass (g)", justify="right", overflow="fold")
    table.add_column("parts", justify="right", overflow="fold")
    for k in report["kinds"]:
        for i, v in enumerate(k["variants"]):
            params = " ".join(_shown(n, val) for n, val in v["params"].items())
            table.add_row(k["kind"] if i == 0 else "", params or "—",
                          " × ".join(f"{x:g}" for x in v["dimensions_mm"]), f"{v['mass_g']:.2f}",
                          str(v["convex_parts"]))
        if not k["variants"]:  # a kind read from a file (mesh): nothing to show but its parameters
            table.add_row(k["kind"], " ".join(k["params"]), "from the file", "—", "—")
        table.add_section()
    console.print(table)
    console.print("Boards: " + "; ".join(
        f"{b['board']} " + ("(endless)" if b["endless"] else " × ".join(f"{x:g}" for x in b["dimensions_mm"][:2]))
        for b in report["boards"]))
    console.print("box, cylinder and hull take any size; the rows above are examples.")
