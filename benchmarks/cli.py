"""Command line: ``python -m benchmarks [--quick] [--device cpu|cuda] [--threads N] [--out-dir DIR]``."""

from __future__ import annotations

import argparse
import csv
import ctypes
import dataclasses
import datetime
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
from tqdm.auto import tqdm

from . import grid, recipe, timing

RESULTS_DIR = Path(__file__).resolve().parent / "results"
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
    "ideal",
    "median_s",
    "iqr_s",
    "runs",
    "load_1min",
)


def result_stem(device: str, quick: bool) -> str:
    """'cpu' for the full grid, 'cpu_quick' for --quick: a quick run never overwrites full results."""
    return f"{device}_quick" if quick else device


def cpu_model() -> str:
    """The CPU's name from /proc/cpuinfo (Linux), else what platform reports."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info(device: str, threads: int) -> dict:
    """What the numbers were measured on."""
    parallel = [
        line.strip()
        for line in torch.__config__.parallel_info().splitlines()
        if line.startswith(("ATen parallel backend", "MKL-DNN", "MKL version"))
    ]
    info = {
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "threads": threads,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "device": device,
        "device_name": torch.cuda.get_device_name() if device == "cuda" else cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "parallel_info": parallel,
    }
    if device == "cuda":
        info["cudnn"] = torch.backends.cudnn.version()
    return info


#: glibc malloc settings that keep freed memory in the process for reuse (mallopt codes -3, -1, -2).
GLIBC_MALLOC = {
    "M_MMAP_THRESHOLD": (-3, 32 << 20),
    "M_TRIM_THRESHOLD": (-1, 1 << 30),
    "M_TOP_PAD": (-2, 64 << 20),
}


def keep_freed_memory() -> dict[str, int] | None:
    """Ask glibc's malloc to reuse freed memory instead of returning it to the system.

    A length-bucketed epoch allocates tensors of ever-changing sizes; by default glibc maps large
    blocks fresh from the system and unmaps them when freed, so the next batch page-faults them in
    again (on a virtual machine this costs several percent of an epoch; a batch of constant shape
    reuses its blocks and does not pay). jemalloc or tcmalloc, which PyTorch's CPU tuning guide
    recommends, avoid the same cost. Returns the settings applied, or None where glibc is absent.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        applied = {name: value for name, (code, value) in GLIBC_MALLOC.items() if libc.mallopt(code, value) == 1}
    except (OSError, AttributeError):
        return None
    return applied or None


def format_row(row: dict) -> dict:
    """Fix the float formats so that files diff cleanly."""
    out = dict(row)
    out["ideal"] = f"{row['real_tokens'] / row['padded_tokens']:.4f}"
    for key in ("median_s", "iqr_s"):
        out[key] = f"{row[key]:.6g}"
    out["load_1min"] = f"{row['load_1min']:.2f}"
    return out


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(format_row(row))


def read_csv(path: Path) -> list[dict]:
    """Rows with numbers parsed back."""
    ints = (
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
    floats = ("ideal", "median_s", "iqr_s", "load_1min")
    rows = []
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            for key in ints:
                row[key] = int(row[key])
            for key in floats:
                row[key] = float(row[key])
            row["bidirectional"] = row["bidirectional"] == "True"
            rows.append(row)
    return rows


def recipe_ratios(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Per cell: epoch time of each recipe strategy divided by the ideal's."""
    ratios: dict[str, dict[str, float]] = {}
    for row in rows:
        if row["suite"] == "recipe":
            ratios.setdefault(row["cell"], {})[row["strategy"]] = row["median_s"]
    return {cell: {name: t / times["ideal"] for name, t in times.items()} for cell, times in ratios.items()}


def headline(rows: list[dict]) -> tuple[float, float]:
    """(recipe/ideal, naive/ideal), each the worse over the cells measured."""
    ratios = recipe_ratios(rows)
    return (max(r["recipe"] for r in ratios.values()), max(r["naive"] for r in ratios.values()))


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
            base = padded[config_key(row)]
            times.append(row["median_s"] / base["median_s"])
            ideals.append(work_tokens(row) / base["padded_tokens"])
    if not times:
        return None
    return statistics.median(times), statistics.median(ideals), len(times)


def work_tokens(row: dict) -> int:
    """Time steps the strategy runs: real tokens when packed, padded tokens when padded."""
    return row["real_tokens"] if row["strategy"].endswith("packed") else row["padded_tokens"]


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


def summary_lines(rows: list[dict], machine: dict, files: list[Path]) -> list[str]:
    """The text printed at the end; the last line is exactly 'recipe/ideal = X.XX'."""
    lines = [
        (
            f"machine: {machine['device_name']}, {machine['threads']} threads, "
            f"torch {machine['torch']}, device {machine['device']}"
        )
    ]
    if any(row["suite"] == "grid" for row in rows):
        lines.append(
            "grid, median over configurations of time / padded time "
            "(token ideal in brackets; uniform and lognormal lengths):"
        )
        for strategy in grid.GRID_STRATEGIES[1:]:
            parts = []
            for pass_ in grid.PASSES:
                found = grid_ratio(rows, strategy, pass_)
                if found:
                    parts.append(f"{pass_} {found[0]:.2f} ({found[1]:.2f})")
            lines.append(f"  {strategy + ' / padded':<26}" + "   ".join(parts))
    ratios = recipe_ratios(rows)
    by_key = {(r["cell"], r["strategy"]): r for r in rows if r["suite"] == "recipe"}
    for cell, cell_ratios in ratios.items():
        ideal_row = by_key[(cell, "ideal")]
        lines.append(
            f"recipe: one training epoch, {cell}, {ideal_row['n_sequences']} sequences, batch {ideal_row['batch_size']}"
        )
        for name, ratio in cell_ratios.items():
            row = by_key[(cell, name)]
            lines.append(
                f"  {name:<16} {row['median_s']:8.3f} s  /ideal {ratio:5.2f}  "
                f"real/padded tokens {row['real_tokens']}/{row['padded_tokens']}"
            )
    lines.append("results: " + ", ".join(str(path) for path in files))
    recipe_ideal, naive_ideal = headline(rows)
    lines.append(f"naive/ideal = {naive_ideal:.2f}")
    lines.append(f"recipe/ideal = {recipe_ideal:.2f}")
    return lines


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=(
            "Time padded, packed and length-bucketed RNN batches, and the book's training recipe "
            "against the zero-padding ideal."
        ),
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a small grid (about 2 min on 2 cores); writes <device>_quick.csv",
    )
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument(
        "--threads",
        type=int,
        default=torch.get_num_threads(),
        help="CPU threads for torch (default: %(default)s)",
    )
    parser.add_argument(
        "--no-flush-denormal",
        dest="flush_denormal",
        action="store_false",
        help="keep denormal floats (by default torch.set_flush_denormal(True) is on)",
    )
    parser.add_argument(
        "--no-malloc-tuning",
        dest="malloc_tuning",
        action="store_false",
        help="leave glibc's malloc at its defaults (by default freed memory is kept for reuse)",
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=RESULTS_DIR,
        help="where the CSV and machine JSON go (default: benchmarks/results)",
    )
    parser.add_argument(
        "--no-report",
        action="store_true",
        help="do not regenerate the figures and book/performance.md after a full run",
    )
    args = parser.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error(
            f"--device cuda needs a CUDA GPU, but torch {torch.__version__} sees none "
            f"(torch.cuda.is_available() is False)"
        )
    return args


class LogProgress:
    """Progress for a log: one plain line per finished measurement on stdout.

    A tqdm bar redraws itself with carriage returns, which a log file or a CI page shows as one long line.
    """

    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.done, self.postfix = total, desc, 0, ""
        self.start = time.perf_counter()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        return None

    def set_postfix_str(self, text: str) -> None:
        self.postfix = text

    def update(self, n: int = 1) -> None:
        self.done += n
        elapsed = time.perf_counter() - self.start
        print(f"{self.desc} {self.done}/{self.total} {elapsed:6.1f} s  {self.postfix}", flush=True)


def progress_bar(total: int):
    """A tqdm bar when a person watches a terminal; one line per measurement when the output goes to a log."""
    if sys.stdout.isatty() and sys.stderr.isatty():
        return tqdm(total=total, desc="benchmarks", unit="measurement", file=sys.stderr)
    return LogProgress(total, "benchmarks")


def run(
    quick: bool,
    device: str,
    threads: int,
    out_dir: Path,
    flush_denormal: bool = True,
    malloc_tuning: bool = True,
    command: str = "python -m benchmarks",
    grid_spec: grid.GridSpec | None = None,
    recipe_spec: recipe.RecipeSpec | None = None,
):
    """Measure, write the CSV and the machine JSON; return (rows, machine, files)."""
    grid_spec = grid_spec or (grid.QUICK if quick else grid.FULL)
    recipe_spec = recipe_spec or (recipe.QUICK if quick else recipe.FULL)
    torch.set_num_threads(threads)
    # Vanishing gradients through long sequences become denormal floats, which x86 CPUs process
    # many times slower; flushing them to zero is part of the recipe. Set it before any worker
    # thread starts: new threads inherit the setting.
    flushing = torch.set_flush_denormal(flush_denormal) and flush_denormal
    machine = machine_info(device, threads)
    machine["flush_denormal"] = flushing
    machine["malloc_tuning"] = keep_freed_memory() if malloc_tuning else None
    machine["mode"] = "quick" if quick else "full"
    machine["command"] = command
    machine["date"] = datetime.date.today().isoformat()
    machine["load_1min_start"] = round(timing.load_1min(), 2)
    started, cpu_started = time.perf_counter(), time.process_time()
    points = grid_spec.points()
    total = len(points) + recipe_spec.measurements()
    with progress_bar(total) as progress:
        rows, checks = recipe.measure_recipe(recipe_spec, device, threads, progress)
        rows += list(grid.measure_grid(grid_spec, device, threads, progress))
    for row in rows:
        row["device"], row["threads"] = device, threads
    machine["load_1min_end"] = round(timing.load_1min(), 2)
    machine["wall_s"] = round(time.perf_counter() - started, 1)
    machine["process_cpu_s"] = round(time.process_time() - cpu_started, 1)
    machine["recipe_checks"] = checks
    machine["recipe_spec"] = dataclasses.asdict(recipe_spec)
    machine["grid_spec"] = dataclasses.asdict(grid_spec)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = result_stem(device, quick)
    csv_path, json_path = out_dir / f"{stem}.csv", out_dir / f"{stem}_machine.json"
    write_csv(csv_path, rows)
    json_path.write_text(json.dumps(machine, indent=2, sort_keys=True) + "\n")
    return rows, machine, [csv_path, json_path]


def main(argv=None) -> None:
    args = parse_args(argv)
    command = " ".join(["python -m benchmarks", *(sys.argv[1:] if argv is None else argv)])
    rows, machine, files = run(
        args.quick,
        args.device,
        args.threads,
        args.out_dir,
        args.flush_denormal,
        args.malloc_tuning,
        command,
    )
    if not args.quick and not args.no_report and args.out_dir.resolve() == RESULTS_DIR:
        from . import report

        files += report.write_report(RESULTS_DIR)
    print("\n".join(summary_lines(rows, machine, files)))
