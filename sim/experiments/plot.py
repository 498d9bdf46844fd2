"""The sweep's figure: P(collapse) with its 95% band against the value, and the statics margins' spread."""

from __future__ import annotations

import io
from pathlib import Path

from sim.atomic import write_bytes
from sim.experiments.models import MODELS
from sim.experiments.output import sweep_rows


def _label(sweep_name: str) -> str:
    model, key = sweep_name.split(".")
    help_text = MODELS[model].key(key).help
    unit = help_text[help_text.rfind("(") + 1:help_text.rfind(")")].split(";")[0] if "(" in help_text else ""
    return f"{sweep_name} ({unit})" if unit else sweep_name


def sweep_figure(path: Path, results, sweep_name: str, title: str) -> Path:
    """Draw the sweep and write it as a PNG (atomically).

    The upper panel is P(collapse) at each value, its 95% interval as a band; when the
    statics found margins, the lower panel shows their median, 25–75% and 5–95% bands.

    Args:
        path: the PNG.
        results: one :class:`~sim.experiments.campaign.Result` per value.
        sweep_name: ``model.key``.
        title: the figure's title (the scene, the trials).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sweep_rows(results, sweep_name)
    x = [r["value"] for r in rows]
    margins = all(r["margin_q50"] is not None for r in rows)
    interval = results[0].summary["interval"].replace("-", "–").title() if results else "Wilson"
    fig, axes = plt.subplots(2 if margins else 1, 1, figsize=(7.0, 6.4 if margins else 4.0), sharex=True,
                             squeeze=False, dpi=120)
    ax = axes[0][0]
    ax.fill_between(x, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], color="tab:red", alpha=0.25,
                    linewidth=0, label=f"95% interval ({interval})")
    ax.plot(x, [r["p_collapse"] for r in rows], "o-", color="tab:red", markersize=4, label="P(collapse)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("P(collapse)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", frameon=False)
    ax.set_title(title, fontsize=10)
    if margins:
        mx = axes[1][0]
        mx.fill_between(x, [r["margin_q05"] for r in rows], [r["margin_q95"] for r in rows], color="tab:blue",
                        alpha=0.15, linewidth=0, label="5–95%")
        mx.fill_between(x, [r["margin_q25"] for r in rows], [r["margin_q75"] for r in rows], color="tab:blue",
                        alpha=0.3, linewidth=0, label="25–75%")
        mx.plot(x, [r["margin_q50"] for r in rows], "-", color="tab:blue", label="median")
        mx.set_ylabel("statics margin (g)")
        mx.set_ylim(bottom=0.0)
        mx.grid(alpha=0.3)
        mx.legend(loc="upper right", frameon=False)
    axes[-1][0].set_xlabel(_label(sweep_name))
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return write_bytes(path, buffer.getvalue())
