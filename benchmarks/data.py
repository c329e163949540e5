"""Sequence lengths, batching strategies and the padding ideal.

Everything here is deterministic given a ``torch.Generator``, so two runs of the benchmark batch the
same sequences the same way.
"""

from __future__ import annotations

import torch

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


def random_batches(n: int, batch_size: int, generator: torch.Generator) -> list[torch.Tensor]:
    """Shuffle ``n`` sequence indices and cut them into batches: the usual DataLoader(shuffle=True)."""
    return list(torch.randperm(n, generator=generator).split(batch_size))


def bucketed_batches(
    lengths: torch.Tensor,
    batch_size: int,
    generator: torch.Generator,
    pool_batches: int | None = None,
) -> list[torch.Tensor]:
    """Length bucketing: shuffle, sort each pool of ``pool_batches`` batches by length, cut, shuffle batches.

    ``pool_batches=None`` sorts the whole dataset at once (least padding). A smaller pool keeps more
    randomness in which sequences meet in a batch ("sortish" sampling) at the cost of more padding.
    The batch order is shuffled, so an epoch does not run from short to long sequences.
    """
    n = len(lengths)
    order = torch.randperm(n, generator=generator)
    pool = n if pool_batches is None else pool_batches * batch_size
    batches: list[torch.Tensor] = []
    for start in range(0, n, pool):
        chunk = order[start : start + pool]
        by_length = chunk[torch.argsort(lengths[chunk], descending=True, stable=True)]
        batches.extend(cut_sorted(by_length, lengths, batch_size))
    shuffled = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in shuffled]


def cut_sorted(by_length: torch.Tensor, lengths: torch.Tensor, batch_size: int) -> list[torch.Tensor]:
    """Cut indices sorted longest first into batches of ``batch_size``, in order, padding least.

    When the count is not a multiple of ``batch_size``, one batch is smaller; it goes where it saves the
    most padding (usually first, with the longest sequences: a short batch of long sequences pads the
    fewest steps). With every batch full, this is the plain cut in order.
    """
    n, small = len(by_length), len(by_length) % batch_size
    if small == 0:
        return list(by_length.split(batch_size))
    longest = lengths[by_length].tolist()
    full = n // batch_size

    def cost(position: int) -> int:
        sizes = [batch_size] * position + [small] + [batch_size] * (full - position)
        total, start = 0, 0
        for size in sizes:
            total += size * longest[start]
            start += size
        return total

    position = min(range(full + 1), key=cost)
    sizes = [batch_size] * position + [small] + [batch_size] * (full - position)
    return list(by_length.split(sizes))


def token_budget_batches(lengths: torch.Tensor, max_tokens: int, generator: torch.Generator) -> list[torch.Tensor]:
    """Token-budget batching: sort the epoch by length, cut batches of at most ``max_tokens`` padded tokens.

    A batch of sequences of up to ``m`` steps costs ``len(batch) * m`` padded tokens, so short sequences
    travel in large batches and long ones in small batches (a batch holds at least one sequence). This is
    how large-scale sequence trainers form batches (fairseq's ``--max-tokens``). The batch size, and with
    it the number of optimizer steps per epoch, follows the lengths. Ties are broken at random and the
    batch order is shuffled, as in ``bucketed_batches``.
    """
    order = torch.randperm(len(lengths), generator=generator)
    order = order[torch.argsort(lengths[order], descending=True, stable=True)]
    batches: list[torch.Tensor] = []
    start = 0
    while start < len(order):
        size = max(1, max_tokens // int(lengths[order[start]]))  # the first sequence is the batch's longest
        batches.append(order[start : start + size])
        start += size
    shuffled = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in shuffled]


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
