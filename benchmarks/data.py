"""Sequence lengths, batching strategies and the padding ideal.

Everything here is deterministic given a ``torch.Generator``, so two runs of the benchmark batch the
same sequences the same way.
"""

from __future__ import annotations

import torch

# The batching strategies live in the book's package, written once: random_batches (the usual
# DataLoader(shuffle=True): shuffle, cut) and token_budget_batches (sort the epoch longest first, cut batches of
# at most max_tokens padded tokens; fairseq's --max-tokens) are re-exported from there as they are.
from padpack.batching import bucket_batches, random_batches, token_budget_batches

__all__ = [
    "DISTRIBUTIONS",
    "bucketed_batches",
    "ideal_lengths",
    "ideal_ratio",
    "padded_tokens",
    "random_batches",
    "real_tokens",
    "sample_lengths",
    "sequential_batches",
    "sequential_steps",
    "token_budget_batches",
]

#: Length distributions. ``uniform``: 1..100. ``lognormal``: exp(N(3.1, 0.9)) rounded and clipped to
#: 1..400, a long tail like real text (median 22, mean about 33). ``equal``: every sequence has 50 steps.
DISTRIBUTIONS = ("uniform", "lognormal", "equal")
UNIFORM_MAX = 100
LOGNORMAL_MU, LOGNORMAL_SIGMA, LOGNORMAL_MAX = 3.1, 0.9, 400
EQUAL_LENGTH = 50


def sample_lengths(dist: str, n: int, generator: torch.Generator) -> torch.Tensor:
    """Draw ``n`` sequence lengths (CPU int64, as ``pack_padded_sequence`` wants them)."""
    if dist == "uniform":
        return torch.randint(1, UNIFORM_MAX + 1, (n,), generator=generator)
    if dist == "lognormal":
        normal = torch.randn(n, generator=generator, dtype=torch.float64)
        lengths = torch.exp(LOGNORMAL_MU + LOGNORMAL_SIGMA * normal).round()
        return lengths.clamp(1, LOGNORMAL_MAX).long()
    if dist == "equal":
        return torch.full((n,), EQUAL_LENGTH, dtype=torch.long)
    raise ValueError(f"unknown length distribution {dist!r}; expected one of {DISTRIBUTIONS}")


def bucketed_batches(
    lengths: torch.Tensor,
    batch_size: int,
    generator: torch.Generator,
    pool_batches: int | None = None,
) -> list[torch.Tensor]:
    """Length bucketing: shuffle, sort each pool of ``pool_batches`` batches longest first, cut, shuffle batches.

    ``pool_batches=None`` sorts the whole dataset at once (least padding). A smaller pool keeps more
    randomness in which sequences meet in a batch ("sortish" sampling) at the cost of more padding.
    When a pool is not a multiple of ``batch_size``, its one smaller batch goes where it saves the most
    padding (usually first, with the longest sequences). The batch order is shuffled, so an epoch does not
    run from short to long sequences. This is padpack.batching's ``bucket_batches``, which the batching
    planner uses too, sorted longest first; chapter 5's sampler gives the same batches (tests/test_batching.py).
    """
    chunk_size = None if pool_batches is None else pool_batches * batch_size
    return bucket_batches(
        lengths, batch_size, generator, chunk_size=chunk_size, descending=True, small_batch="cheapest"
    )


def ideal_lengths(lengths: torch.Tensor, batch_size: int) -> torch.Tensor:
    """Lengths of the zero-padding ideal: as many sequences, each of the mean length, no padding.

    Every batch holds sequences of one length, ``floor(mean)`` or ``ceil(mean)``, chosen batch by batch
    so that the total number of tokens matches the real data as closely as whole batches allow (within
    half a batch of tokens). Cut it into batches in order (``sequential_batches``): then no batch pads.
    """
    n = len(lengths)
    total = int(lengths.sum())
    low = total // n
    sizes = [min(batch_size, n - start) for start in range(0, n, batch_size)]
    out = torch.full((n,), low, dtype=torch.long)
    missing = total - low * n  # tokens still to place: 0 <= missing < n
    start = 0
    for size in sizes:
        if missing >= size / 2 and missing > 0:  # giving this batch one more step brings us closer
            out[start : start + size] += 1
            missing -= size
        start += size
    return out


def sequential_batches(n: int, batch_size: int) -> list[torch.Tensor]:
    """Indices 0..n-1 cut into batches in order (for the ideal, whose batches are built uniform)."""
    return list(torch.arange(n).split(batch_size))


def real_tokens(lengths: torch.Tensor) -> int:
    """Number of real (non-pad) time steps."""
    return int(lengths.sum())


def padded_tokens(lengths: torch.Tensor, batches: list[torch.Tensor]) -> int:
    """Time steps an RNN runs when every batch is padded to its longest sequence."""
    return sum(len(batch) * int(lengths[batch].max()) for batch in batches)


def sequential_steps(lengths: torch.Tensor, batches: list[torch.Tensor]) -> int:
    """Time steps an RNN takes one after another over the epoch: each batch's longest sequence, summed.

    An RNN cannot compute step t before step t-1, so a batch costs at least its longest sequence's
    steps, however few sequences it holds: small batches of long sequences are slow per token.
    """
    return sum(int(lengths[batch].max()) for batch in batches)


def ideal_ratio(lengths: torch.Tensor, batches: list[torch.Tensor]) -> float:
    """Real tokens / padded tokens: the fraction of padded work that is real.

    With time proportional to padded tokens, skipping every pad step would cost this fraction of the
    padded time; 1.0 means no padding at all.
    """
    used = torch.cat(batches)
    return real_tokens(lengths[used]) / padded_tokens(lengths, batches)
