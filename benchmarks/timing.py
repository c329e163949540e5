"""Timing in interleaved rounds, and the statistics the CSV stores.

A machine's speed drifts: other programs start, the CPU's clock changes, caches and allocators warm
up. Timing variant A for a minute and then variant B for a minute lets that drift land on one of them.
Here every variant is timed once per round, the rounds run one after another (ABCD BCDA CDAB ...,
after an untimed warm-up round), and each round gives one ratio per variant to a reference variant
measured in the same round. The reported ratio is the median of these per-round ratios, and its
spread is their minimum and maximum: a slow minute slows both sides of the ratios of its round.
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable

import torch


def time_call(fn: Callable[[], None], device: str = "cpu") -> float:
    """Seconds for one call of ``fn``, garbage collection paused (as ``timeit`` does)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()  # a GPU runs asynchronously: wait for the call to finish
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def round_orders(names: list[str], rounds: int) -> list[list[str]]:
    """The order of the variants in each timed round: rotated by one per round (ABCD, BCDA, CDAB, ...).

    Every variant takes every position equally often over ``len(names)`` rounds, so no variant always
    runs right after the same neighbour or first in a round.
    """
    return [names[r % len(names) :] + names[: r % len(names)] for r in range(rounds)]


def interleaved_rounds(
    fns: dict[str, Callable[[], None] | list[Callable[[], None]]],
    rounds: int,
    warmup: int = 1,
    device: str = "cpu",
    on_round: Callable[[int], None] | None = None,
) -> dict[str, list[float]]:
    """Seconds per call of each function, one call per round, in ``rounds`` interleaved rounds.

    A function may come as a list of parts (e.g. slices of a training epoch's batches), the same number
    for every name: then a round runs part 1 of every variant, part 2 of every variant, ... (the order
    reversed every other part: ABBA), and a variant's time in the round is the sum of its parts. A machine
    that drifts over the seconds a long call takes then slows every variant alike.
    ``warmup`` untimed rounds come first (allocator, oneDNN primitive caches, lazy initialisation).
    Returns, for each name, its ``rounds`` times in round order.
    """
    names = list(fns)
    parts = {name: fn if isinstance(fn, list) else [fn] for name, fn in fns.items()}
    count = len(parts[names[0]])
    if any(len(p) != count for p in parts.values()):
        raise ValueError("every variant needs the same number of parts")
    for _ in range(warmup):
        for index in range(count):
            for name in names:
                parts[name][index]()
    times: dict[str, list[float]] = {name: [0.0] * rounds for name in names}
    for round_index, order in enumerate(round_orders(names, rounds)):
        for index in range(count):
            for name in order if index % 2 == 0 else order[::-1]:
                times[name][round_index] += time_call(parts[name][index], device)
        if on_round is not None:
            on_round(round_index)
    return times


def round_ratios(times: dict[str, list[float]], reference: str) -> dict[str, list[float]]:
    """Per round, each variant's time divided by the reference's time in the same round."""
    base = times[reference]
    return {name: [t / b for t, b in zip(series, base, strict=True)] for name, series in times.items()}


def spread(ratios: list[float]) -> tuple[float, float, float]:
    """(median, minimum, maximum) of per-round ratios."""
    return statistics.median(ratios), min(ratios), max(ratios)


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
