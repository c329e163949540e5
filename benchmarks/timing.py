"""Timing with torch.utils.benchmark, and the statistics the CSV stores."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

import torch
from torch.utils.benchmark import Timer


def timed_runs(
    fn: Callable[[], None],
    runs: int,
    threads: int,
    label: str,
    min_run_time: float = 0.0,
    expected: float | None = None,
) -> list[float]:
    """Seconds per call of ``fn``, from ``Timer.blocked_autorange``, about ``runs`` of them.

    ``blocked_autorange`` always makes one untimed call first (to size its blocks), which is the
    warm-up (allocator, oneDNN primitive cache). For more than one run, one more untimed call tells
    how long a call takes, so that ``min_run_time`` can be set to fit ``runs`` timed calls; pass
    ``expected`` (seconds per call, e.g. from an earlier measurement) to skip that call.
    """
    timer = Timer("fn()", globals={"fn": fn}, num_threads=threads, label=label)
    if runs > 1:
        if expected is None:
            start = time.perf_counter()
            fn()
            if torch.cuda.is_available():
                torch.cuda.synchronize()  # a GPU runs asynchronously: wait for the call to finish
            expected = time.perf_counter() - start
        min_run_time = max(min_run_time, (runs - 0.5) * expected)
    return list(timer.blocked_autorange(min_run_time=min_run_time).times)


def median(times: list[float]) -> float:
    return statistics.median(times)


def iqr(times: list[float]) -> float:
    """Interquartile range (0 for fewer than two runs)."""
    if len(times) < 2:
        return 0.0
    quartiles = statistics.quantiles(times, n=4, method="inclusive")
    return quartiles[2] - quartiles[0]


def load_1min() -> float:
    """The 1-minute load average: how busy the machine was (other processes included)."""
    return os.getloadavg()[0]
