"""Result files: where they live, their CSV format, and the checks a result must pass to be written.

The measuring side (``cli``) writes with this module and the report side (``findings``, ``figures``,
``page``, ``report``) reads with it; neither imports the other's module.
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

from .recipe import FIXED_BATCH_WORK_ORDER

RESULTS_DIR = Path(__file__).resolve().parent / "results"
#: Where a recipe epoch's time goes (``python -m benchmarks.gap``): the file, the stages of a training step and
#: the variants of the recipe it times against the ideal, in the order the page shows them.
GAP_FILE = "gap.json"
STAGES = (
    "collate",
    "embedding",
    "rnn_forward",
    "head_forward",
    "head_backward",
    "rnn_backward",
    "embedding_backward",
    "optimizer",
)
GAP_VARIANTS = ("recipe", "ideal_again", "pieces_64", "one_call", "shortest_first", "multiple_of_8")
#: Recorded runs (``--record``), one CSV and machine JSON each: the page's headline on each CPU reads them.
HEADLINES_DIR = RESULTS_DIR / "headlines"
CSV_COLUMNS = (
    "suite",
    "device",
    "threads",
    "cell",
    "bidirectional",
    "num_layers",
    "batch_size",
    "hidden_size",
    "input_size",
    "dist",
    "strategy",
    "pass",
    "n_sequences",
    "n_batches",
    "real_tokens",
    "padded_tokens",
    "rnn_steps",
    "ideal",
    "median_s",
    "iqr_s",
    "ratio",
    "ratio_lo",
    "ratio_hi",
    "reference",
    "runs",
    "load_1min",
)
#: Columns that results written before the interleaved rounds lack; ``read_csv`` fills them in.
ROUND_COLUMNS = ("rnn_steps", "ratio", "ratio_lo", "ratio_hi", "reference")
#: The largest spread a recipe ratio may have, (max - min) / median over rounds, for its file to be written.
#: Five back-to-back quick runs on a quiet 2-core AMD EPYC gave headlines of 1.02-1.04 (all within 0.01 of
#: their median) while one run's min-max over its 5 rounds spanned 8-18 % of its median: at 10 %, three of
#: those five steady runs were refused. 15 % refuses the run whose single slow round reached 0.92.
MAX_SPREAD = 0.15
#: How long ``python -m benchmarks --quick`` takes on 2 cores, said once for the page and the command's help:
#: 93, 98 and 97 s for three runs back to back on an AMD EPYC (AVX512), 111 s held to AVX2 and 172 s to the
#: baseline instruction set (2026-12-03, issue #40; their machine JSONs in results/headlines record wall_s).
#: Measure it again when the quick grid or recipe changes.
QUICK_RUN_TIME = "about 1.5 minutes"
#: The fewest timed rounds per ratio that the page reports without a caveat (issue #38): a part of the page
#: timed in fewer rounds says so next to its numbers.
MIN_ROUNDS = 5
INTS = (
    "threads",
    "num_layers",
    "batch_size",
    "hidden_size",
    "input_size",
    "n_sequences",
    "n_batches",
    "real_tokens",
    "padded_tokens",
    "runs",
)
FLOATS = ("ideal", "median_s", "iqr_s", "load_1min")


def result_stem(device: str, quick: bool) -> str:
    """'cpu' for the full grid, 'cpu_quick' for --quick: a quick run never overwrites full results."""
    return f"{device}_quick" if quick else device


def format_row(row: dict) -> dict:
    """Fix the float formats so that files diff cleanly."""
    out = dict(row)
    out["ideal"] = f"{row['real_tokens'] / row['padded_tokens']:.4f}"
    for key in ("median_s", "iqr_s"):
        out[key] = f"{row[key]:.6g}"
    for key in ("ratio", "ratio_lo", "ratio_hi"):
        out[key] = "" if row.get(key) is None else f"{row[key]:.4f}"
    out["load_1min"] = f"{row['load_1min']:.2f}"
    return out


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(format_row(row))


def read_csv(path: Path) -> list[dict]:
    """Rows with numbers parsed back.

    Files written before the interleaved rounds have no ratio columns: their ratio is then the ratio
    of medians (to the ideal for the recipe, to padded random batches for the grid) and their spread
    ``ratio_lo`` / ``ratio_hi`` is None (not recorded).
    """
    rows = []
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            for key in INTS:
                row[key] = int(row[key])
            for key in FLOATS:
                row[key] = float(row[key])
            for key in ("ratio", "ratio_lo", "ratio_hi"):
                row[key] = float(row[key]) if row.get(key) else None
            row["rnn_steps"] = int(row["rnn_steps"]) if row.get("rnn_steps") else None
            row["bidirectional"] = row["bidirectional"] == "True"
            row.setdefault("reference", None)
            row["reference"] = row["reference"] or ("ideal" if row["suite"] == "recipe" else "padded")
            rows.append(row)
    _fill_ratios_of_medians(rows)
    return rows


def _fill_ratios_of_medians(rows: list[dict]) -> None:
    base = {reference_key(r): r["median_s"] for r in rows if r["strategy"] == r["reference"]}
    for row in rows:
        if row["ratio"] is None:
            row["ratio"] = row["median_s"] / base[reference_key(row)]


def reference_key(row: dict) -> tuple:
    """Rows that share a reference (the ideal of a recipe cell, the padded row of a grid configuration)."""
    return (row["suite"], row["device"], *config_key(row)) if row["suite"] == "grid" else ("recipe", row["cell"])


def config_key(row: dict) -> tuple:
    """What identifies one grid configuration; strategies of the same configuration share it."""
    return (
        row["cell"],
        row["bidirectional"],
        row["num_layers"],
        row["batch_size"],
        row["hidden_size"],
        row["dist"],
        row["pass"],
    )


def load(results_dir: Path, device: str) -> tuple[list[dict], dict] | None:
    """Rows and machine of the full run for ``device``, or None when it was never measured."""
    csv_path = results_dir / f"{device}.csv"
    if not csv_path.exists():
        return None
    machine = json.loads((results_dir / f"{device}_machine.json").read_text())
    return read_csv(csv_path), machine


def record_stem(machine: dict, existing: list[str]) -> str:
    """'2026-12-03_amd-epyc_avx512_quick_2': date, CPU, torch's capability, run, and a number that makes it new."""
    cpu = "-".join("".join(c if c.isalnum() else " " for c in machine["cpu_model"].lower()).split())
    base = f"{machine['date']}_{cpu}_{machine['cpu_capability'].lower()}_{machine['mode']}"
    number = 1
    while f"{base}_{number}" in existing:
        number += 1
    return f"{base}_{number}"


def recorded_runs(results_dir: Path = RESULTS_DIR) -> list[tuple[list[dict], dict]]:
    """(rows, machine) of the full run and of every recorded run, in the order of their names; each machine
    dict also names its CSV (``result_file``, relative to ``results_dir``)."""
    full = load(results_dir, "cpu")
    runs = [] if full is None else [(full[0], {**full[1], "result_file": "cpu.csv"})]
    folder = results_dir / HEADLINES_DIR.name
    for csv_path in sorted(folder.glob("*.csv")) if folder.is_dir() else []:
        machine = json.loads(csv_path.with_name(f"{csv_path.stem}_machine.json").read_text())
        runs.append((read_csv(csv_path), {**machine, "result_file": f"{HEADLINES_DIR.name}/{csv_path.name}"}))
    return runs


def recipe_rows(rows: list[dict]) -> dict[str, dict[str, dict]]:
    """Per cell, per strategy: the recipe row."""
    out: dict[str, dict[str, dict]] = {}
    for row in rows:
        if row["suite"] == "recipe":
            out.setdefault(row["cell"], {})[row["strategy"]] = row
    return out


def recipe_ratios(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Per cell: each recipe strategy's epoch time over the ideal's (median of per-round ratios)."""
    return {cell: {name: row["ratio"] for name, row in by.items()} for cell, by in recipe_rows(rows).items()}


def headline(rows: list[dict], strategy: str = "recipe") -> dict | None:
    """The row of ``strategy``/ideal in the cell where it is worst (highest ratio), or None if not measured."""
    found = [by[strategy] for by in recipe_rows(rows).values() if strategy in by]
    return max(found, key=lambda row: row["ratio"]) if found else None


def with_spread(row: dict, digits: int = 2, unit: str = "") -> str:
    """'1.07 (1.05–1.09)': the median ratio and its minimum and maximum over rounds, when recorded.

    ``unit`` follows the median: '1.07x (1.05–1.09)'.
    """
    text = f"{row['ratio']:.{digits}f}{unit}"
    if row.get("ratio_lo") is None:
        return text
    return f"{text} ({row['ratio_lo']:.{digits}f}–{row['ratio_hi']:.{digits}f})"


def relative_spread(row: dict) -> float | None:
    """(max - min) / median of the per-round ratios; None when not recorded."""
    if row.get("ratio_lo") is None:
        return None
    return (row["ratio_hi"] - row["ratio_lo"]) / row["ratio"]


#: The headline: its spread decides whether a result is written. The rivals' spreads are shown and warned about.
HEADLINE = ("recipe",)


def noisy_rows(rows: list[dict], max_spread: float = MAX_SPREAD, strategies=None) -> list[str]:
    """One line per recipe ratio (of ``strategies``; all but the ideal by default) spread more than ``max_spread``."""
    out = []
    for row in rows:
        chosen = row["suite"] == "recipe" and row["strategy"] != "ideal"
        chosen = chosen and (strategies is None or row["strategy"] in strategies)
        spread = relative_spread(row) if chosen else None
        if spread is not None and spread > max_spread:
            out.append(
                f"{row['cell']} {row['strategy']}/ideal = {with_spread(row)}: spread {spread:.1%} of the median, "
                f"more than {max_spread:.0%}"
            )
    return out


def rounds_by_suite(rows: list[dict]) -> dict[str, tuple[int, int]]:
    """Per suite ('recipe', 'grid'): the fewest and the most timed rounds of its rows (the CSV's ``runs``)."""
    out: dict[str, tuple[int, int]] = {}
    for row in rows:
        low, high = out.get(row["suite"], (row["runs"], row["runs"]))
        out[row["suite"]] = (min(low, row["runs"]), max(high, row["runs"]))
    return out


def run_warnings(rows: list[dict], machine: dict) -> list[str]:
    """The run's warnings, recomputed from the rows with the run's ``max_spread`` (the JSON's stored text may
    predate a change of wording); the stored list when the run recorded no ``max_spread``."""
    if "max_spread" not in machine:
        return list(machine.get("warnings", []))
    rivals = sorted({r["strategy"] for r in rows if r["suite"] == "recipe"} - set(HEADLINE) - {"ideal"})
    return noisy_rows(rows, machine["max_spread"], rivals) + [v["message"] for v in work_violations(rows)]


def work_pairs(rows: list[dict]) -> list[tuple[dict, dict]]:
    """(more, less): pairs of rows where the first does strictly more work than the second.

    Recipe: strategies of ``FIXED_BATCH_WORK_ORDER`` (padded batches of the same sizes, the same number of
    batches), the one with more padded tokens doing more. Grid: padded random batches against bucketed
    batches of the same configuration and batch sizes, when bucketing removed padded tokens.
    """
    pairs = []
    for by in recipe_rows(rows).values():
        chain = [by[name] for name in FIXED_BATCH_WORK_ORDER if name in by]
        for i, more in enumerate(chain):
            for less in chain[i + 1 :]:
                if more["n_batches"] == less["n_batches"] and more["padded_tokens"] > less["padded_tokens"]:
                    pairs.append((more, less))
    grid = {(config_key(r), r["strategy"]): r for r in rows if r["suite"] == "grid"}
    for (key, strategy), more in grid.items():
        less = grid.get((key, "bucketed"))
        if (
            strategy == "padded"
            and less is not None
            and more["n_batches"] == less["n_batches"]
            and more["padded_tokens"] > less["padded_tokens"]
        ):
            pairs.append((more, less))
    return pairs


def work_violations(rows: list[dict]) -> list[dict]:
    """Pairs where the variant doing strictly more work is reported faster beyond the spread.

    Both ratios share a reference measured in the same rounds, so the more-work variant is reported
    faster beyond the spread when its highest ratio is below the other's lowest (with no spread
    recorded: when its ratio is lower). Returns one dict per violation: suite, more, less, message.
    """
    out = []
    for more, less in work_pairs(rows):
        high = more["ratio_hi"] if more.get("ratio_hi") is not None else more["ratio"]
        low = less["ratio_lo"] if less.get("ratio_lo") is not None else less["ratio"]
        if high < low:
            where = more["cell"] if more["suite"] == "recipe" else " ".join(map(str, config_key(more)))
            out.append(
                {
                    "suite": more["suite"],
                    "more": more,
                    "less": less,
                    "message": (
                        f"{more['suite']} {where}: {more['strategy']} ({more['padded_tokens']} padded tokens) "
                        f"timed {with_spread(more)} of the {more['reference']}, faster than {less['strategy']} "
                        f"({less['padded_tokens']} padded tokens) at {with_spread(less)}"
                    ),
                }
            )
    return out


def grid_ratio(rows: list[dict], strategy: str, pass_: str, dists=("uniform", "lognormal")):
    """Median over grid configurations of time(strategy) / time(padded), and of the token ideal."""
    padded = {
        config_key(r): r for r in rows if r["suite"] == "grid" and r["strategy"] == "padded" and r["pass"] == pass_
    }
    times, ideals = [], []
    for row in rows:
        if (
            row["suite"] == "grid"
            and row["strategy"] == strategy
            and row["pass"] == pass_
            and row["dist"] in dists
            and config_key(row) in padded
        ):
            times.append(row["ratio"])
            ideals.append(work_tokens(row) / padded[config_key(row)]["padded_tokens"])
    if not times:
        return None
    return statistics.median(times), statistics.median(ideals), len(times)


def work_tokens(row: dict) -> int:
    """Time steps the strategy runs: real tokens when packed, padded tokens when padded."""
    return row["real_tokens"] if row["strategy"].endswith("packed") else row["padded_tokens"]
