"""Chapter 1's sequence lengths and padding efficiency, for the pages that reuse them.

The three length distributions (`sample_lengths`), consecutive batches cut from them, sorted first for length
buckets (`split_into_batches`), and the padding efficiency of an epoch of batches (`padding_efficiency`): each
function is the code that chapter 1 teaches, cell for cell (tests/test_one_source.py keeps it so).

The data of chapter 1's figure is built when the module is imported, as chapter 1 builds it: 8,192 lengths per
distribution (`dataset_lengths`), drawn with a generator of its own (`np.random.default_rng(0)`), and their padding
efficiency (`efficiency`) at each batch size of `batch_sizes`, for random and for bucketed batches. Importing the
module draws nothing from the global random generators.

>>> padding_efficiency(split_into_batches(np.array([4, 6, 8, 5]), 2))
0.8214285714285714
>>> efficiency["all equal", 32, False]
1.0
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "batch_sizes",
    "dataset_lengths",
    "distributions",
    "efficiency",
    "padding_efficiency",
    "sample_lengths",
    "split_into_batches",
]


def sample_lengths(distribution: str, count: int, rng: np.random.Generator) -> np.ndarray:
    """Draw `count` lengths from one of the three distributions."""
    if distribution == "uniform":
        return rng.integers(1, 201, size=count)
    if distribution == "long-tailed":
        return np.clip(np.rint(rng.lognormal(mean=3.1, sigma=0.9, size=count)), 1, 400).astype(int)
    if distribution == "all equal":
        return np.full(count, 100)
    raise ValueError(f"unknown distribution {distribution!r}")


def split_into_batches(lengths: np.ndarray, batch_size: int, bucketed: bool = False) -> list:
    """Cut the lengths into consecutive batches, sorted first if asked."""
    ordered = np.sort(lengths) if bucketed else lengths
    return [ordered[start : start + batch_size] for start in range(0, len(ordered), batch_size)]


def padding_efficiency(batches: list) -> float:
    """Real tokens / padded tokens over all batches."""
    real_tokens = sum(int(batch.sum()) for batch in batches)
    padded_tokens = sum(len(batch) * int(batch.max()) for batch in batches)
    return real_tokens / padded_tokens


# ---- Chapter 1's data: 8,192 lengths per distribution, in random order, and their efficiency ----
distributions = ["uniform", "long-tailed", "all equal"]
_rng = np.random.default_rng(0)
# independent draws, so the lengths are already in random order
dataset_lengths = {name: sample_lengths(name, 8192, _rng) for name in distributions}
batch_sizes = [1, 2, 4, 8, 16, 32, 64, 128, 256]
# (distribution, batch size, bucketed?) -> efficiency over the dataset
efficiency = {
    (name, batch_size, bucketed): padding_efficiency(split_into_batches(dataset_lengths[name], batch_size, bucketed))
    for name in distributions
    for batch_size in batch_sizes
    for bucketed in (False, True)
}
