"""``python -m benchmarks.planner``: the batching planner at corpus scale, and whether its advice holds over seeds.

Three parts, all printed (``make bench-planner`` runs it):

- stability: on the five corpora of issue #46 (CORPORA), the recommendation (strategy and chunk size) of
  ``plan_batches(lengths, batch_size=32, seed=s)`` for seeds 0 to 9, and, where they differ, whether every plan
  prints a close call; ``--quick`` leaves out the million (tests/test_batching.py runs the quick part as a test);
- epochs: on the million, how much two epochs (what ``plan_batches`` draws at that size) vary over seeds 0-4: the
  standard deviation of random batches' and sorted chunks' efficiency and pairs again;
- speed: ``plan_batches`` on 1,000,000 lengths, and ``python -m padpack plan`` on 1,000,000 and 10,000,000 lengths
  in a file (a fresh process: start-up, parsing and planning), each ``--repeats`` times (the median), in CPU
  seconds (user + sys) and wall seconds, with the command line's peak memory (its maximum resident set, from
  ``getrusage``). Other load on the machine inflates the wall time more than the CPU time: read the load average
  printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def log_normal(n: int, mu: float, sigma: float, cap: int, seed: int) -> np.ndarray:
    """n lengths of a rounded log-normal, from 1 to `cap` tokens."""
    draws = np.random.default_rng(seed).lognormal(mu, sigma, n)
    return np.clip(np.round(draws), 1, cap).astype(np.int64)


def two_clusters(seed: int = 0) -> np.ndarray:
    """Short texts and long documents: 4,500 of 5-10 tokens and 500 of 400-500 (review round 4, R4.2.6)."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.integers(5, 11, 4500), rng.integers(400, 501, 500)])


#: The corpora of issue #46: name -> a function that makes the lengths (always the same lengths).
CORPORA: dict[str, Callable[[], np.ndarray]] = {
    "sentences, 5k": lambda: log_normal(5_000, 3.1, 0.9, 400, 0),
    "sentences, 100k": lambda: log_normal(100_000, 3.1, 0.9, 400, 0),
    "sentences, 1M": lambda: log_normal(1_000_000, 3.1, 0.9, 400, 0),
    "documents, 50k, cap 4096": lambda: log_normal(50_000, 6.0, 1.2, 4096, 0),
    "two clusters": two_clusters,
}


def advice(lengths: np.ndarray, seeds: range = range(10), **options) -> dict[int, tuple[str, int, str | None]]:
    """seed -> (recommended strategy, sorted chunks' batches per chunk, the other option of a close call)."""
    from padpack.batching import plan_batches

    plans = {seed: plan_batches(lengths, batch_size=32, seed=seed, **options) for seed in seeds}
    return {
        seed: (plan.recommended, plan.chunk_batches, plan.close or plan.chunk_close and plan.chunk_close.chunk_batches)
        for seed, plan in plans.items()
    }


def holds(advice_by_seed: dict[int, tuple[str, int, str | None]]) -> bool:
    """The advice holds when every seed recommends the same, or else when every seed prints a close call.

    >>> holds({0: ("token budget", 16, None), 1: ("token budget", 16, None)})
    True
    >>> holds({0: ("token budget", 16, None), 1: ("sorted chunks", 16, None)})
    False
    """
    picks = {(strategy, chunks) for strategy, chunks, _ in advice_by_seed.values()}
    return len(picks) == 1 or all(close is not None for _, _, close in advice_by_seed.values())


def _median_time(function: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median CPU seconds (this process's, all its threads) and wall seconds of `function()`."""
    cpu, wall = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(cpu), statistics.median(wall)


# Runs a command and prints its status, CPU seconds (user + sys), wall seconds and peak memory (kB). A child's peak
# starts at the peak of the process it was started from (Linux carries it over exec), so the command line is
# started from this small process, not from the benchmark, which holds the million's plans.
LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(status, usage.ru_utime + usage.ru_stime, time.perf_counter() - start, usage.ru_maxrss)
"""


def _command_line(path: Path, repeats: int) -> tuple[float, float, float]:
    """Median CPU seconds (user + sys), median wall seconds and the largest peak memory (MB) of
    `python -m padpack plan path --batch-size 32`."""
    cpu, wall, peaks = [], [], []
    for _ in range(repeats):
        command = [sys.executable, "-m", "padpack", "plan", str(path), "--batch-size", "32"]
        report = subprocess.run([sys.executable, "-c", LAUNCHER, *command], capture_output=True, text=True, check=True)
        status, seconds, elapsed, peak = report.stdout.split()
        if int(status):
            raise SystemExit(f"python -m padpack plan failed on {path} with status {status}")
        cpu.append(float(seconds))
        wall.append(float(elapsed))
        peaks.append(int(peak) / 1024)  # kilobytes on Linux
    return statistics.median(cpu), statistics.median(wall), max(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.planner", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the million and the speed part")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each (the median is printed)")
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    for name, make in CORPORA.items():
        if args.quick and "1M" in name:
            continue
        found = advice(make())
        picks = sorted({(strategy, chunks) for strategy, chunks, _ in found.values()})
        closes = sum(close is not None for *_, close in found.values())
        print(f"{name}: {picks}, close calls {closes}/10, holds: {holds(found)}")
    if args.quick:
        return
    from padpack.batching import plan_batches

    million = CORPORA["sentences, 1M"]()
    plans = [plan_batches(million, batch_size=32, seed=seed) for seed in range(5)]
    for name in ("random batches", "sorted chunks"):
        efficiency = statistics.stdev(plan[name].efficiency for plan in plans)
        pairs = statistics.stdev(plan[name].pairs_again for plan in plans)
        print(
            f"{plans[0].epochs} epochs of 1M lengths, seeds 0-4, {name}: standard deviation of the efficiency "
            f"{efficiency:.5f}, of pairs again {pairs:.5f}"
        )
    cpu, wall = _median_time(lambda: plan_batches(million, batch_size=32), args.repeats)
    print(f"plan_batches, 1,000,000 lengths: {cpu:.2f} s CPU, {wall:.2f} s wall")
    with tempfile.TemporaryDirectory() as folder:
        for n in (1_000_000, 10_000_000):
            path = Path(folder) / f"{n}.txt"
            path.write_text("\n".join(map(str, log_normal(n, 3.1, 0.9, 400, 0).tolist())) + "\n")
            cpu, wall, peak = _command_line(path, args.repeats)
            print(f"python -m padpack plan, {n:,} lengths: {cpu:.2f} s CPU, {wall:.2f} s wall, peak {peak:.0f} MB")
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
