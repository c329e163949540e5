"""The performance page's figures, drawn from the findings."""

from __future__ import annotations

import textwrap
from pathlib import Path

from . import grid
from .findings import COLOURS, DIST_LABELS, PASS_LABELS, findings, fmt, label, packing_finding, select

#: The page's column on a 1280 px wide screen is about 690-740 px; figures are shown at its full width.
COLUMN_PX = 690
#: Figures are this wide, saved at twice the column's pixels (sharp on high-density screens).
WIDTH_IN = 7.0
DPI = 2 * COLUMN_PX / WIDTH_IN
#: The smallest text, in pixels as displayed in the column, that ``_save`` accepts.
MIN_TEXT_PX = 11.0
FONT_PT = 10


def write_figures(rows: list[dict], machine: dict, out_dir: Path, prefix: str = "") -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Applied to these figures only: a global rcParams change would restyle every later figure of the process.
    with plt.rc_context(
        {
            "font.size": FONT_PT,
            "axes.titlesize": FONT_PT + 1,
            "axes.labelsize": FONT_PT,
            "xtick.labelsize": FONT_PT,
            "ytick.labelsize": FONT_PT,
            "legend.fontsize": FONT_PT - 1,
            "figure.titlesize": FONT_PT + 1,
            "figure.facecolor": "white",
            "savefig.facecolor": "white",
        }
    ):
        return _draw_figures(plt, rows, machine, out_dir, prefix)


def _draw_figures(plt, rows: list[dict], machine: dict, out_dir: Path, prefix: str) -> list[Path]:
    f = findings(rows, machine)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    device = machine["device"].upper()

    # 1. The recipe against the ideal: one panel per cell, stacked, the spread over rounds as error bars.
    cells = list(f["recipe"])
    names = f["recipe_names"]
    fig, axes = plt.subplots(
        len(cells), 1, figsize=(WIDTH_IN, 0.45 * len(names) * len(cells) + 1.4), sharex=True, squeeze=False
    )
    largest = max(by[n]["ratio_hi"] or by[n]["ratio"] for by in f["recipe_by_cell"].values() for n in names)
    for ax, cell in zip(axes[:, 0], cells, strict=True):
        by = f["recipe_by_cell"][cell]
        values = [by[n]["ratio"] for n in names]
        errors = [
            [v - (by[n]["ratio_lo"] or v) for n, v in zip(names, values, strict=True)],
            [(by[n]["ratio_hi"] or v) - v for n, v in zip(names, values, strict=True)],
        ]
        ax.barh(range(len(names)), values, color=[COLOURS[n] for n in names], xerr=errors, capsize=3)
        ax.set_yticks(range(len(names)), [label(n, f) for n in names])
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_title(f"{cell} classifier, one training epoch", loc="left")
        for index, (value, above) in enumerate(zip(values, errors[1], strict=True)):
            # beside the whisker's end, so that the spread never hides the number
            ax.text(value + above + 0.02 * largest, index, f"{value:.2f}x", va="center")
        ax.set_xlim(0, largest * 1.3)
    axes[-1, 0].set_xlabel("epoch time / ideal epoch time (lower is better)")
    fig.suptitle(
        f"{device}: the recipe trains at {fmt(f['recipe_headline'])}x the zero-padding ideal",
        fontweight="bold",
    )
    fig.tight_layout()
    paths.append(_save(fig, out_dir / f"{prefix}recipe.png"))

    # 2. Packing: measured time ratio against the ratio of time steps, one panel per pass.
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH_IN, 8.6), sharex=True)
    cell_colours = {"LSTM": "#0072B2", "GRU": "#E69F00"}
    dist_markers = {"uniform": "o", "lognormal": "^", "equal": "s"}
    packed = select(f["rel"], strategy="packed")
    for ax, pass_ in zip(axes, grid.PASSES, strict=True):
        for cell, colour in cell_colours.items():
            for dist, marker in dist_markers.items():
                chosen = select(packed, cell=cell, dist=dist, **{"pass": pass_})
                _scatter_ratios(
                    ax, chosen, s=30, alpha=0.85, marker=marker, color=colour, label=f"{cell}, {DIST_LABELS[dist]}"
                )
        _reference_line(ax, 0.05, "time falls with the pad steps skipped")
        ax.set_yscale("log")
        ax.set_xlim(0, 1.05)
        ax.set_ylabel("packed / padded time (log)")
        summary = f[("packed", pass_)]
        ax.set_title(
            f"{PASS_LABELS[pass_]}: median {fmt(summary['median'])}x, faster in {summary['faster']} of {summary['n']}",
            loc="left",
        )
    axes[1].set_xlabel("real tokens / padded tokens")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    fig.suptitle(textwrap.fill(f"{device}: {packing_finding(f)}", 70), fontweight="bold")
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    paths.append(_save(fig, out_dir / f"{prefix}packing.png"))

    # 3. Bucketing: measured time ratio against the ratio of padded tokens.
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 5.0))
    colours = {"fwd": "#0072B2", "fwdbwd": "#D55E00"}
    for pass_ in grid.PASSES:
        for dist in ("uniform", "lognormal"):
            marker = dist_markers[dist]
            chosen = select(f["rel"], strategy="bucketed", dist=dist, **{"pass": pass_})
            _scatter_ratios(
                ax,
                chosen,
                s=24,
                alpha=0.8,
                marker=marker,
                color=colours[pass_],
                label=f"{PASS_LABELS[pass_]}, {DIST_LABELS[dist]}",
            )
    _reference_line(ax, 0, "time proportional to padded tokens")
    ax.set_xlim(0, 1.05)
    ax.set_ylim(0, None)
    ax.set_xlabel("padded tokens, bucketed / random batches")
    ax.set_ylabel("bucketed time / random-batch time")
    bucketed = f[("bucketed", "fwdbwd")]
    ax.set_title(
        f"{device}: bucketing cuts time with the padding it removes\n(forward + backward: "
        f"median {fmt(bucketed['median'])}x, faster in {bucketed['faster']} of "
        f"{bucketed['n']} configurations)",
        fontweight="bold",
    )
    ax.legend(loc="upper left")
    fig.tight_layout()
    paths.append(_save(fig, out_dir / f"{prefix}bucketing.png"))
    plt.close("all")
    return paths


def _scatter_ratios(ax, rows: list[dict], **style) -> None:
    """Measured time ratio (y) against the ratio the token counts predict (x)."""
    ax.scatter([r["expected"] for r in rows], [r["ratio"] for r in rows], **style)


def _reference_line(ax, start: float, label: str) -> None:
    """The diagonal where time follows the token count exactly, and the line of no change."""
    ax.plot([start, 1.05], [start, 1.05], color="black", linewidth=0.8, linestyle="--", label=label)
    ax.axhline(1.0, color="grey", linewidth=0.8)


def displayed_text_px(fig) -> float:
    """The smallest text of ``fig`` in pixels, as shown at the column's width (``COLUMN_PX``)."""
    from matplotlib.text import Text

    width_in = fig.get_figwidth()
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) / 72 * COLUMN_PX / width_in


def clipped_texts(fig) -> list[str]:
    """The edges of ``fig`` that its drawn text and artists reach past (cut off in the saved image)."""
    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches, everything that is drawn
    width, height = fig.get_size_inches()
    margin = 0.01
    edges = {"left": box.x0 < -margin, "bottom": box.y0 < -margin}
    edges |= {"right": box.x1 > width + margin, "top": box.y1 > height + margin}
    return [edge for edge, out in edges.items() if out]


def _save(fig, path: Path) -> Path:
    """Save at twice the column's pixels, opaque white (readable in dark mode), after checking the text."""
    smallest = displayed_text_px(fig)
    if smallest < MIN_TEXT_PX:
        raise ValueError(
            f"{path.name}: text shown at {smallest:.1f} px in a {COLUMN_PX} px column, under {MIN_TEXT_PX}"
        )
    clipped = clipped_texts(fig)
    if clipped:
        raise ValueError(f"{path.name}: cut off at the figure's {' and '.join(clipped)} edge")
    fig.savefig(path, dpi=DPI, facecolor="white", transparent=False, metadata={"Software": None})
    return path
