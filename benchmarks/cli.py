"""Command line: ``python -m benchmarks [--quick] [--device cpu|cuda] [--threads N] [--allow-noisy] [--out-dir DIR]``.

Measures, prints a summary whose last line is the headline with its spread, and writes the CSV and the
machine JSON, unless the headline is too noisy to trust (recipe/ideal spread more than ``--max-spread``
of its median over its rounds): then it writes nothing and exits with status 3, unless ``--allow-noisy``.
A variant doing strictly more work reported faster than one doing less beyond the spread is warned about.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch
from tqdm.auto import tqdm

from . import grid, recipe, results, timing
from .results import RESULTS_DIR


def cpu_model() -> str:
    """The CPU's name from /proc/cpuinfo (Linux), else what platform reports."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


#: Environment variables that hold torch's kernels and oneDNN to a lower instruction set than the CPU has.
FORCED_ISA = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR")


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
        # The instruction set held down for a run (issue #40 measures one CPU at several).
        "forced_isa": {name: os.environ[name] for name in FORCED_ISA if name in os.environ},
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


def process_settings(threads: int, flush_denormal: bool = True, malloc_tuning: bool = True) -> dict:
    """Set the process-wide state once, before anything is timed, the same for every variant: threads,
    denormal flushing and malloc's settings. Returns what was set, for the machine JSON.

    Vanishing gradients through long sequences become denormal floats, which x86 CPUs process many times
    slower; flushing them to zero is part of the recipe. It is set before any worker thread starts: new
    threads inherit the setting.
    """
    torch.set_num_threads(threads)
    flushing = torch.set_flush_denormal(flush_denormal) and flush_denormal
    return {"flush_denormal": flushing, "malloc_tuning": keep_freed_memory() if malloc_tuning else None}


def summary_lines(rows: list[dict], machine: dict, files: list[Path]) -> list[str]:
    """The text printed at the end; the last line is exactly 'recipe/ideal = X.XX (LO–HI)'."""
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
                found = results.grid_ratio(rows, strategy, pass_)
                if found:
                    parts.append(f"{pass_} {found[0]:.2f} ({found[1]:.2f})")
            lines.append(f"  {strategy + ' / padded':<26}" + "   ".join(parts))
    for cell, by in results.recipe_rows(rows).items():
        ideal_row = by["ideal"]
        lines.append(
            f"recipe: one training epoch, {cell}, {ideal_row['n_sequences']} sequences, batch {ideal_row['batch_size']}"
            f", {ideal_row['runs']} interleaved rounds: time / ideal, median (min–max over rounds)"
        )
        for name, row in by.items():
            lines.append(
                f"  {name:<16} {row['median_s']:7.3f} s  /ideal {results.with_spread(row):<18} "
                f"padded/real tokens {row['padded_tokens'] / row['real_tokens']:.3f}  steps {row['n_batches']}"
            )
    lines.append("results: " + (", ".join(str(path) for path in files) or "not written"))
    naive = results.headline(rows, "naive")
    if naive is not None:
        lines.append(f"naive/ideal = {results.with_spread(naive)}")
    recipe_row = results.headline(rows)
    overhead = recipe_row["padded_tokens"] / recipe_row["real_tokens"]
    lines.append(f"recipe padded/real tokens = {overhead:.3f} ({recipe_row['cell']})")
    lines.append(f"recipe/ideal = {results.with_spread(recipe_row)}")
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
        help=(
            "fewer configurations (a small grid; of the recipe comparison, the recipe and the ideal only), "
            f"the same data and rounds ({results.QUICK_RUN_TIME} on 2 cores); writes <device>_quick.csv"
        ),
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default="cpu",
        help="cuda: measure on a CUDA GPU (cuDNN) and write cuda.csv (default: %(default)s)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help=(
            "CPU threads for torch (default: %(default)s: the book's small models gain little from more, "
            "and a single thread is not stalled when another program takes a core)"
        ),
    )
    parser.add_argument(
        "--max-spread",
        type=float,
        default=results.MAX_SPREAD,
        help="largest (max - min) / median of recipe/ideal over its rounds (default: %(default)s)",
    )
    parser.add_argument(
        "--allow-noisy",
        action="store_true",
        help="write the result files even when recipe/ideal spreads more than --max-spread",
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
        "--record",
        action="store_true",
        help=(
            "also keep this run's results under benchmarks/results/headlines/, named by date, CPU and "
            "torch's capability: the performance page's headline on each CPU reads them (commit them)"
        ),
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
    max_spread: float = results.MAX_SPREAD,
    allow_noisy: bool = False,
):
    """Measure, then write the CSV and the machine JSON if the result holds; return (rows, machine, files).

    ``machine["problems"]`` lists why the result does not hold (the headline recipe/ideal spread more than
    ``max_spread`` over its rounds); with problems, nothing is written (``files`` is empty) unless
    ``allow_noisy``. ``machine["warnings"]`` lists the rivals' ratios spread more than ``max_spread`` and
    every variant doing strictly more work that timed faster than one doing less beyond the spread:
    printed, recorded and shown on the page, not refused (a real effect must not block the results).
    """
    grid_spec = grid_spec or (grid.QUICK if quick else grid.FULL)
    recipe_spec = recipe_spec or (recipe.QUICK if quick else recipe.FULL)
    settings = process_settings(threads, flush_denormal, malloc_tuning)
    machine = machine_info(device, threads) | settings
    machine["mode"] = "quick" if quick else "full"
    machine["command"] = command
    machine["date"] = datetime.date.today().isoformat()
    machine["load_1min_start"] = round(timing.load_1min(), 2)
    started, cpu_started = time.perf_counter(), time.process_time()
    total = len(grid_spec.configurations()) + recipe_spec.measurements()
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
    machine["max_spread"] = max_spread
    machine["problems"] = results.noisy_rows(rows, max_spread, results.HEADLINE)
    machine["warnings"] = results.run_warnings(rows, machine)  # what the page recomputes from the rows
    if machine["problems"] and not allow_noisy:
        return rows, machine, []
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = results.result_stem(device, quick)
    csv_path, json_path = out_dir / f"{stem}.csv", out_dir / f"{stem}_machine.json"
    results.write_csv(csv_path, rows)
    json_path.write_text(json.dumps(machine, indent=2, sort_keys=True) + "\n")
    return rows, machine, [csv_path, json_path]


def record(files: list[Path], machine: dict, folder: Path = results.HEADLINES_DIR) -> list[Path]:
    """Copy a written run's CSV and machine JSON into ``folder`` under a new name; return the copies."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = results.record_stem(machine, [path.stem for path in folder.glob("*.csv")])
    csv_path, json_path = files
    copies = [folder / f"{stem}.csv", folder / f"{stem}_machine.json"]
    copies[0].write_text(csv_path.read_text())
    copies[1].write_text(json_path.read_text())
    return copies


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
        max_spread=args.max_spread,
        allow_noisy=args.allow_noisy,
    )
    if files and args.record:
        files += record(files, machine)
    if files and not args.quick and not args.no_report and args.out_dir.resolve() == RESULTS_DIR:
        from . import report

        files += report.write_report(RESULTS_DIR)
    lines = summary_lines(rows, machine, files)
    notes = [f"warning (not refused): {text}" for text in machine["warnings"]]
    if machine["problems"]:
        verdict = (
            "written anyway (--allow-noisy)" if files else "NOT WRITTEN (rerun on a quiet machine, or --allow-noisy)"
        )
        notes += [f"noisy, {verdict}: {text}" for text in machine["problems"]]
    print("\n".join(lines[:-1] + notes + lines[-1:]), flush=True)
    if not files:
        print(
            "benchmarks: result not written: " + "; ".join(machine["problems"]),
            file=sys.stderr,
        )
        raise SystemExit(3)
