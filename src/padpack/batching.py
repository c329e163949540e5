"""Batching strategies for variable-length sequences, written once, and a planner that compares them on your lengths.

Each strategy is a function of the sequences' lengths, a batch size (or a token budget) and a `torch.Generator`,
and returns one epoch's batches: a list of int64 tensors of indices into the lengths. The same generator gives
the same batches; calling again with the same generator gives the next epoch's.

- `random_batches`: shuffle, cut (what `DataLoader(shuffle=True)` does; chapter 5's `shuffled_loader`);
- `bucket_batches`: shuffle, sort each chunk by length, cut, shuffle the batch order (chapter 5's
  `BucketBatchSampler`; with `chunk_size=None`, buckets over the whole epoch; the benchmarks' bucketing is the
  same function sorted longest first, its small batch where it saves most padding);
- `token_budget_batches`: sort the epoch longest first, cut batches of at most `max_tokens` padded tokens.

`plan_batches(lengths, batch_size=32)` runs the four on your lengths for a few epochs and prints a table (padding
efficiency, batches per epoch, the largest batch in padded tokens, how often pairs of sequences meet again) and a
recommendation with its reason; `.plot()` draws the length histogram and each strategy's pads.

>>> import torch
>>> lengths = torch.tensor([5, 1, 4, 2, 8, 3])
>>> batches = bucket_batches(lengths, 2, torch.Generator().manual_seed(0))
>>> [lengths[batch].tolist() for batch in batches]
[[1, 2], [5, 8], [3, 4]]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Union

import numpy as np
import torch

from padpack.i18n import N_, display_width, gettext, wrap

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "BatchPlan",
    "BatchPlanError",
    "StrategyResult",
    "bucket_batches",
    "plan_batches",
    "random_batches",
    "token_budget_batches",
]

# Union, not |: the book's API page imports this module with stand-ins for NumPy and torch, which | refuses.
Lengths = Union[Sequence[int], np.ndarray, torch.Tensor]  # noqa: UP007

#: The recommendation's rules (see `plan_batches`): a strategy keeps enough randomness when at most this share
#: of the pairs of sequences that share a batch in one epoch share one again in the next ...
MAX_PAIRS_AGAIN = 0.25
#: ... and a fixed batch size's memory varies a lot when its largest batch holds more than this many times the
#: padded tokens of the token budget's largest.
MEMORY_RATIO = 2.0

STRATEGIES = {  # the English name (a key of BatchPlan.strategies) -> the name marked for translation
    "random batches": N_("random batches"),
    "sorted chunks": N_("sorted chunks"),
    "whole-epoch buckets": N_("whole-epoch buckets"),
    "token budget": N_("token budget"),
}


class BatchPlanError(ValueError):
    """Input that the planner or a batching strategy cannot use; the message names the argument.

    >>> plan_batches([3, 0, 5], batch_size=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    padpack.batching.BatchPlanError: lengths[1] is 0: every length must be ...
    """


# ------------------------------------------------------------------------------------------- checking input
def _as_lengths(lengths: Lengths, name: str = "lengths") -> np.ndarray:
    """The lengths as a 1-D int64 NumPy array, each at least 1; otherwise one sentence naming the argument."""
    if isinstance(lengths, torch.Tensor):
        array = lengths.detach().cpu().numpy()
    else:
        try:
            array = np.asarray(lengths)
        except (TypeError, ValueError) as error:
            raise BatchPlanError(
                gettext(N_("{name} must be a list of whole numbers, one length per sequence ({error}).")).format(
                    name=name, error=error
                )
            ) from None
    if array.ndim != 1 or array.size == 0:
        raise BatchPlanError(
            gettext(N_("{name} is empty: give at least one sequence length.")).format(name=name)
            if array.size == 0
            else gettext(N_("{name} must be a flat list of lengths, one per sequence, not of shape {shape}.")).format(
                name=name, shape=tuple(array.shape)
            )
        )
    if array.dtype.kind not in "iu":
        whole = array.dtype.kind == "f" and bool(np.all(np.isfinite(array))) and bool(np.all(array == np.round(array)))
        if not whole:
            bad = _first_non_integer(array)
            raise BatchPlanError(
                gettext(N_("{name}[{index}] is {value!r}, not a whole number: a length counts tokens.")).format(
                    name=name, index=bad, value=array[bad].item() if hasattr(array[bad], "item") else array[bad]
                )
            )
    array = array.astype(np.int64, copy=False)
    if array.min() < 1:
        bad = int(np.argmax(array < 1))
        raise BatchPlanError(
            gettext(
                N_(
                    "{name}[{index}] is {value}: every length must be at least 1 (a sequence of no tokens cannot "
                    "be packed; drop it first)."
                )
            ).format(name=name, index=bad, value=int(array[bad]))
        )
    return array


def _first_non_integer(array: np.ndarray) -> int:
    for index, value in enumerate(array.tolist()):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value != round(value)
        ):
            return index
    return 0


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise BatchPlanError(
            gettext(N_("{name} must be a whole number of at least 1, not {value!r}.")).format(name=name, value=value)
        )
    return int(value)


def _count(lengths: Lengths | int) -> int:
    if isinstance(lengths, int | np.integer) and not isinstance(lengths, bool):
        if lengths < 0:
            raise BatchPlanError(
                gettext(N_("lengths is {value}: a number of sequences cannot be negative.")).format(value=lengths)
            )
        return int(lengths)
    return len(lengths)


def _int_lengths(lengths: Lengths) -> np.ndarray:
    """The lengths as int64 NumPy, without the checks (the strategies take what the benchmarks give them)."""
    if isinstance(lengths, torch.Tensor):
        return lengths.detach().cpu().numpy().astype(np.int64, copy=False)
    return np.asarray(lengths, dtype=np.int64)


# ------------------------------------------------------------------------------------------- the strategies
# Each strategy draws from the generator what its batches need, in a fixed order, and is computed in a flat form:
# an order of all the indices, cut batch after batch into `sizes`, and the permutation that shuffles the batch
# order. The planner measures that form; the public functions return the batches.
@dataclass
class _Epoch:
    order: np.ndarray  # every index once, batch after batch
    sizes: np.ndarray  # the batches' sizes, in that order
    shuffle: np.ndarray | None  # the batch order: batch shuffle[0] first, then shuffle[1], ...

    def batches(self) -> list[torch.Tensor]:
        cut = torch.from_numpy(self.order).split(self.sizes.tolist())
        return list(cut) if self.shuffle is None else [cut[i] for i in self.shuffle.tolist()]


def _stable_argsort(keys: np.ndarray) -> np.ndarray:
    """A stable argsort; NumPy radix-sorts integers of 16 bits, so keys that fit go down to them."""
    if keys.size and 0 <= keys.min() and keys.max() < 2**16:
        keys = keys.astype(np.uint16)
    return np.argsort(keys, kind="stable")


def _random_epoch(n: int, batch_size: int, generator: torch.Generator, like_dataloader: bool = False) -> _Epoch:
    if like_dataloader:  # a DataLoader's iterator first draws its workers' base seed
        torch.empty((), dtype=torch.int64).random_(generator=generator)
    order = torch.randperm(n, generator=generator).numpy()
    if like_dataloader:  # and its RandomSampler draws a permutation for the rest of n samples, here none
        torch.randperm(n, generator=generator)
    full, small = divmod(n, batch_size)
    sizes = np.full(full + (small > 0), batch_size, dtype=np.int64)
    if small:
        sizes[-1] = small
    return _Epoch(order, sizes, None)


def _chunk_sizes(ordered: np.ndarray, batch_size: int, descending: bool, small_batch: str) -> np.ndarray:
    """The batch sizes of equal chunks, one chunk a row of `ordered` (its lengths in sorted order), flattened.

    With a small batch (the chunk is not a multiple of the batch size) it goes last, or, with small_batch
    "cheapest", where the chunk's padded tokens are fewest: the first such place.
    """
    chunks, size = ordered.shape
    full, small = divmod(size, batch_size)
    if not small:
        return np.full(chunks * full, batch_size, dtype=np.int64)
    position = np.full(chunks, full)
    if small_batch == "cheapest" and full:
        # cost(p) = B·(longest of the p full batches before the small one) + s·(longest of the small one)
        #         + B·(longest of the full batches after it); the longest is a batch's first or last element
        first = 0 if descending else batch_size - 1
        before = ordered[:, first : full * batch_size : batch_size]  # full batches that start at i·B
        at = ordered[:, (0 if descending else small - 1) :: batch_size][:, : full + 1]  # the small one at p·B
        after = ordered[:, small + first :: batch_size][:, :full]  # full batches that start at s + i·B
        cost = batch_size * np.concatenate([np.zeros((chunks, 1), np.int64), before.cumsum(1)], axis=1)
        cost += small * at
        cost += batch_size * np.concatenate([after[:, ::-1].cumsum(1)[:, ::-1], np.zeros((chunks, 1), np.int64)], 1)
        position = cost.argmin(axis=1)  # the first of equal costs, as min() over the positions
    sizes = np.full((chunks, full + 1), batch_size, dtype=np.int64)
    sizes[np.arange(chunks), position] = small
    return sizes.ravel()


def _bucket_epoch(
    lengths: np.ndarray,
    batch_size: int,
    generator: torch.Generator,
    chunk_size: int | None,
    descending: bool,
    small_batch: str,
) -> _Epoch:
    n = len(lengths)
    order = torch.randperm(n, generator=generator).numpy()
    chunk = n if chunk_size is None or chunk_size >= n else chunk_size
    if n:
        drawn = lengths[order]
        by_length = _stable_argsort(int(drawn.max()) - drawn if descending else drawn)
        if chunk < n:  # then by chunk, stably: sorted by length within each chunk, ties in drawn order
            by_length = by_length[_stable_argsort(by_length // chunk)]
        order = order[by_length]
    ordered = lengths[order]
    whole = n // chunk * chunk if n else 0
    sizes = [_chunk_sizes(ordered[:whole].reshape(-1, chunk), batch_size, descending, small_batch)] if n else []
    if whole < n:  # the last chunk, shorter
        sizes.append(_chunk_sizes(ordered[whole:].reshape(1, -1), batch_size, descending, small_batch))
    sizes = np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int64)
    shuffle = torch.randperm(len(sizes), generator=generator).numpy()
    return _Epoch(order, sizes, shuffle)


def _token_budget_epoch(lengths: np.ndarray, max_tokens: int, generator: torch.Generator) -> _Epoch:
    n = len(lengths)
    order = torch.randperm(n, generator=generator).numpy()
    if n:
        drawn = lengths[order]
        order = order[_stable_argsort(int(drawn.max()) - drawn)]
    ordered = lengths[order]  # longest first
    run_ends = np.append(np.flatnonzero(ordered[1:] != ordered[:-1]) + 1, n)  # where each run of one length ends
    starts: list[np.ndarray] = []
    start = 0
    while start < n:  # greedy, a run of equal lengths at a time: a batch of k sequences of length l, k = T // l
        length = int(ordered[start])
        size = max(1, max_tokens // length)
        run_end = int(run_ends[np.searchsorted(run_ends, start, side="right")])
        whole = (run_end - start) // size
        starts.append(np.arange(start, start + whole * size, size))
        start += whole * size
        if start < run_end:  # a batch that begins in this run and takes shorter sequences after it
            starts.append(np.array([start]))
            start += size
    begins = np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)
    sizes = np.diff(np.append(begins, n)).astype(np.int64)
    shuffle = torch.randperm(len(sizes), generator=generator).numpy()
    return _Epoch(order, sizes, shuffle)


def random_batches(
    lengths: Lengths | int, batch_size: int, generator: torch.Generator, *, like_dataloader: bool = False
) -> list[torch.Tensor]:
    """Shuffle the sequences and cut them into batches of `batch_size` (the last one smaller).

    Only the number of sequences matters: pass the lengths or that number. `DataLoader(dataset, batch_size,
    shuffle=True, generator=generator)` batches the same way but draws more from its generator each epoch (a
    base seed for its workers, and an unused permutation); with `like_dataloader=True` this draws the same, so
    that it gives that loader's batches epoch after epoch: chapter 5's `shuffled_loader`.

    Args:
        lengths: the sequences' lengths, or their number.
        batch_size: sequences per batch.
        generator: the random generator the shuffle draws from.
        like_dataloader: draw what a `DataLoader` draws, to give its batches.

    Returns:
        One epoch's batches, each an int64 tensor of indices into the lengths.

    >>> import torch
    >>> generator = torch.Generator().manual_seed(0)
    >>> [b.tolist() for b in random_batches([5, 1, 4, 2, 8], 2, generator)]
    [[4, 0], [1, 3], [2]]
    """
    batch_size = _positive(batch_size, "batch_size")
    return _random_epoch(_count(lengths), batch_size, generator, like_dataloader).batches()


def bucket_batches(
    lengths: Lengths,
    batch_size: int,
    generator: torch.Generator,
    *,
    chunk_size: int | None = None,
    descending: bool = False,
    small_batch: Literal["last", "cheapest"] = "last",
) -> list[torch.Tensor]:
    """Length buckets: shuffle, sort each chunk of `chunk_size` sequences by length, cut, shuffle the batches.

    Args:
        lengths: one length per sequence.
        batch_size: sequences per batch.
        generator: the random generator the shuffles draw from.
        chunk_size: sequences sorted together; None sorts the whole epoch at once (least padding, but then
            the same sequences share a batch every epoch but for ties). Chapter 5's
            `BucketBatchSampler(lengths, batch_size, chunk_size, generator)` is
            `bucket_batches(lengths, batch_size, generator, chunk_size=chunk_size)`, batch for batch.
        descending: sort longest first (the benchmarks) instead of shortest first (chapter 5). Ties keep the
            shuffled order either way.
        small_batch: where a chunk's smaller batch goes when the chunk is not a multiple of `batch_size`:
            "last" (the plain cut, chapter 5), or "cheapest", where it saves most padding (the benchmarks;
            usually among the longest sequences).

    Returns:
        One epoch's batches, each an int64 tensor of indices into the lengths.

    >>> import torch
    >>> lengths = torch.tensor([5, 1, 4, 2, 8, 3, 7])
    >>> batches = bucket_batches(lengths, 3, torch.Generator().manual_seed(0))
    >>> [b.tolist() for b in batches]
    [[2, 0, 6], [4], [1, 3, 5]]
    >>> [lengths[b].tolist() for b in batches]
    [[4, 5, 7], [8], [1, 2, 3]]
    >>> batches = bucket_batches(lengths, 3, torch.Generator().manual_seed(0),
    ...                          descending=True, small_batch="cheapest")
    >>> [lengths[b].tolist() for b in batches]
    [[4], [3, 2, 1], [8, 7, 5]]
    """
    batch_size = _positive(batch_size, "batch_size")
    if chunk_size is not None:
        chunk_size = _positive(chunk_size, "chunk_size")
    if small_batch not in ("last", "cheapest"):
        raise BatchPlanError(
            gettext(N_('small_batch must be "last" or "cheapest", not {value!r}.')).format(value=small_batch)
        )
    epoch = _bucket_epoch(_int_lengths(lengths), batch_size, generator, chunk_size, descending, small_batch)
    return epoch.batches()


def token_budget_batches(lengths: Lengths, max_tokens: int, generator: torch.Generator) -> list[torch.Tensor]:
    """Token budget: sort the epoch longest first, cut batches of at most `max_tokens` padded tokens.

    A batch whose longest sequence has `l` tokens holds `max_tokens // l` sequences (at least one), so short
    sequences travel in large batches and long ones in small batches, and every batch needs about the same
    memory (fairseq's `--max-tokens`). The number of batches follows the lengths. Ties are broken at random and
    the batch order is shuffled.

    Args:
        lengths: one length per sequence.
        max_tokens: the most padded tokens a batch may hold (batch size × its longest length).
        generator: the random generator the shuffles draw from.

    Returns:
        One epoch's batches, each an int64 tensor of indices into the lengths.

    >>> import torch
    >>> lengths = torch.tensor([5, 1, 4, 2, 8, 3, 7])
    >>> generator = torch.Generator().manual_seed(0)
    >>> [lengths[b].tolist() for b in token_budget_batches(lengths, 10, generator)]
    [[3, 2, 1], [5, 4], [8], [7]]
    """
    max_tokens = _positive(max_tokens, "max_tokens")
    return _token_budget_epoch(_int_lengths(lengths), max_tokens, generator).batches()


# ------------------------------------------------------------------------------------------- the planner
@dataclass(frozen=True)
class StrategyResult:
    """One strategy's numbers on the lengths, over the planner's epochs: `plan[name]` of a BatchPlan.

    >>> plan = plan_batches([3, 1, 4, 1, 5, 9, 2, 6], batch_size=2)
    >>> result = plan["token budget"]
    >>> result.name, result.real_tokens, result.batches, result.largest_batch
    ('token budget', 31, 5, 9)
    """

    name: str  # the English name, a key of BatchPlan.strategies
    real_tokens: int  # per epoch
    padded_tokens: tuple[int, ...]  # per epoch: each batch's size × its longest length, summed
    batches: int  # per epoch (the first)
    largest_batch: int  # padded tokens of the largest batch of all the epochs
    pairs_again: float  # of the pairs of sequences that share a batch in an epoch, the share that do in the next
    pads_by_length: np.ndarray = field(repr=False, compare=False)  # first epoch: pad positions per length

    @property
    def efficiency(self) -> float:
        """Padding efficiency of the first epoch, real tokens / padded tokens (1.0 when there are no pads).

        >>> plan = plan_batches([2, 2, 4, 4], batch_size=2)
        >>> plan["whole-epoch buckets"].efficiency
        1.0
        """
        return self.real_tokens / self.padded_tokens[0]

    @property
    def label(self) -> str:
        """The strategy's name in the current language.

        >>> plan_batches([2, 2, 4, 4], batch_size=2)["token budget"].label
        'token budget'
        """
        return gettext(STRATEGIES[self.name])


@dataclass(frozen=True)
class BatchPlan:
    """What plan_batches found: the strategies' numbers, printed as a table, and the recommended one.

    `plan[name]` is a strategy's StrategyResult, by its English name; `print(plan)` shows the table, what
    its columns mean, and the recommendation with its reason.

    >>> lengths = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3] * 4
    >>> plan = plan_batches(lengths, batch_size=4, chunk_batches=2)
    >>> list(plan.strategies)
    ['random batches', 'sorted chunks', 'whole-epoch buckets', 'token budget']
    >>> plan.recommended, plan.batch_size, plan.max_tokens
    ('sorted chunks', 4, 20)
    """

    lengths: np.ndarray = field(repr=False)
    batch_size: int
    max_tokens: int
    chunk_batches: int
    seed: int
    epochs: int
    strategies: dict[str, StrategyResult]
    recommended: str  # the English name of the recommended strategy
    rule: str = field(repr=False)  # which rule chose it: "random", "memory" or "efficiency"

    def __getitem__(self, name: str) -> StrategyResult:
        return self.strategies[name]

    @property
    def reason(self) -> str:
        """Why the recommended strategy, in the current language, as printed after "Recommended" and its name.

        >>> lengths = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3] * 4
        >>> plan = plan_batches(lengths, batch_size=4, chunk_batches=2)
        >>> import textwrap
        >>> print(textwrap.fill(plan.reason, 79))
        the highest efficiency (0.777) of the strategies whose batches still change
        between epochs; whole-epoch buckets reaches 1.000 but keeps 51% of the pairs of
        sequences that share a batch together in the next epoch.
        """
        chosen = self.strategies[self.recommended]
        if self.rule == "random":
            return gettext(
                N_(
                    "they already reach an efficiency of {efficiency:.3f}, so sorting gains little, and they are "
                    "the simplest and the most random."
                )
            ).format(efficiency=chosen.efficiency)
        if self.rule == "memory":
            fixed = self.strategies[self._best_fixed()]
            return gettext(
                N_(
                    "with a batch size of {batch_size}, the largest batch holds {ratio:.1f} times the padded "
                    "tokens of the budget's largest ({fixed} against {budget}), so a budget of {max_tokens} "
                    "tokens caps the memory a batch needs, at an efficiency of {efficiency:.3f}."
                )
            ).format(
                batch_size=self.batch_size,
                ratio=fixed.largest_batch / chosen.largest_batch,
                fixed=fixed.largest_batch,
                budget=chosen.largest_batch,
                max_tokens=self.max_tokens,
                efficiency=chosen.efficiency,
            )
        best = max(self.strategies.values(), key=lambda result: result.efficiency)
        if best.efficiency > chosen.efficiency:
            return gettext(
                N_(
                    "the highest efficiency ({efficiency:.3f}) of the strategies whose batches still change "
                    "between epochs; {other} reaches {other_efficiency:.3f} but keeps {share:.0%} of the pairs of "
                    "sequences that share a batch together in the next epoch."
                )
            ).format(
                efficiency=chosen.efficiency,
                other=best.label,
                other_efficiency=best.efficiency,
                share=best.pairs_again,
            )
        return gettext(
            N_(
                "the highest efficiency ({efficiency:.3f}), and batches that still change between epochs (only "
                "{share:.0%} of the pairs of sequences that share a batch share one again in the next)."
            )
        ).format(efficiency=chosen.efficiency, share=chosen.pairs_again)

    def _random_enough(self) -> list[StrategyResult]:
        """The strategies that keep enough randomness: pairs again at most MAX_PAIRS_AGAIN, or at most random
        batches' own (with few sequences, even random batches put the same pairs together often)."""
        limit = max(MAX_PAIRS_AGAIN, self.strategies["random batches"].pairs_again)
        return [result for result in self.strategies.values() if result.pairs_again <= limit]

    def _best_fixed(self) -> str:
        """The fixed-batch-size strategy with enough randomness that pads least."""
        fixed = [result for result in self._random_enough() if result.name != "token budget"]
        return min(fixed, key=lambda result: (-result.efficiency, result.pairs_again)).name

    def table(self) -> str:
        """The comparison as a table of at most 79 columns, one strategy a row.

        >>> print(plan_batches([2, 2, 4, 4], batch_size=2).table())
        strategy             efficiency  batches  largest batch  pairs again
        random batches            1.000        2              8        0.000
        sorted chunks             1.000        2              8        1.000
        whole-epoch buckets       1.000        2              8        1.000
        token budget              1.000        3              4        1.000
        """
        header = [gettext(word) for word in HEADER]
        rows = [
            [
                result.label,
                f"{result.efficiency:.3f}",
                str(result.batches),
                str(result.largest_batch),
                f"{result.pairs_again:.3f}",
            ]
            for result in self.strategies.values()
        ]
        widths = [max(display_width(row[i]) for row in [header, *rows]) for i in range(len(header))]
        lines = []
        for row in [header, *rows]:
            cells = [row[0] + " " * (widths[0] - display_width(row[0]))]
            cells += [" " * (width - display_width(cell)) + cell for cell, width in zip(row[1:], widths[1:])]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)

    def __str__(self) -> str:
        lengths = self.lengths
        notes = gettext(
            N_(
                "{n} sequences of {low} to {high} tokens (mean {mean:.1f}); batch size {batch_size}, token budget "
                "{max_tokens}, chunks of {chunk_batches} batches; {epochs} epochs from seed {seed}. Efficiency: "
                "real tokens / padded tokens. Batches: per epoch. Largest batch: its padded tokens (batch size × "
                "longest length). Pairs again: of the pairs of sequences that share a batch in one epoch, the share "
                "that share one in the next (about 0 for random batches, 1 for the same batches every epoch)."
            )
        ).format(
            n=len(lengths),
            low=int(lengths.min()),
            high=int(lengths.max()),
            mean=float(lengths.mean()),
            batch_size=self.batch_size,
            max_tokens=self.max_tokens,
            chunk_batches=self.chunk_batches,
            epochs=self.epochs,
            seed=self.seed,
        )
        advice = gettext(N_("Recommended: {strategy}: {reason}")).format(
            strategy=self.strategies[self.recommended].label, reason=self.reason
        )
        return "\n\n".join([self.table(), wrap(notes, 79), wrap(advice, 79)])

    def _repr_pretty_(self, printer, cycle) -> None:  # how IPython and Jupyter show it
        printer.text(str(self))

    def plot(self, bins: int = 100) -> Figure:
        """The length histogram, and under it the pad positions each strategy adds to sequences of each length.

        A sequence's pads are its batch's longest length minus its own, in the first epoch; the pads' axis is
        logarithmic above 10. At most `bins` bins of equal width. Returns the matplotlib Figure (white
        background), one strategy a line, its efficiency in the legend.

        >>> import matplotlib; matplotlib.use("Agg")
        >>> figure = plan_batches([3, 1, 4, 1, 5, 9, 2, 6] * 8, batch_size=4).plot()
        >>> [axes.get_ylabel() for axes in figure.axes]
        ['sequences', 'pad positions, first epoch']
        """
        import matplotlib.pyplot as plt

        high = int(self.lengths.max())
        width = -(-high // bins)  # whole lengths per bin, the same for every bin
        edges = np.arange(0.5, high + width + 0.5, width)
        per_bin = np.clip(np.digitize(np.arange(high + 1), edges) - 1, 0, None)  # each length's bin
        counts = np.bincount(per_bin, weights=np.bincount(self.lengths, minlength=high + 1), minlength=len(edges))
        centres = (edges[:-1] + edges[1:]) / 2
        figure, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7.5, 6.5), facecolor="white")
        for axes in (top, bottom):
            axes.set_facecolor("white")
        top.bar(centres, counts[: len(centres)], width=np.diff(edges), color=REAL_COLOUR, edgecolor="white")
        top.set_ylabel(gettext(N_("sequences")))
        top.set_title(gettext(N_("Your lengths, and the pads each strategy adds to them")))
        for (name, result), colour, style in zip(self.strategies.items(), COLOURS, STYLES):
            pads = np.bincount(per_bin, weights=result.pads_by_length, minlength=len(edges))[: len(centres)]
            label = f"{result.label} ({result.efficiency:.3f})"
            bottom.step(centres, pads, where="mid", color=colour, linestyle=style, linewidth=1.8, label=label)
        bottom.set_yscale("symlog", linthresh=10)  # random batches' pads would hide the others'
        bottom.set_xlabel(gettext(N_("sequence length (tokens)")))
        bottom.set_ylabel(gettext(N_("pad positions, first epoch")))
        figure.legend(
            *bottom.get_legend_handles_labels(),
            title=gettext(N_("strategy (efficiency)")),
            loc="lower center",
            ncol=2,
            frameon=False,
        )
        figure.tight_layout(rect=(0, 0.14, 1, 1))  # the legend below the axes, off the lines
        return figure


HEADER = (N_("strategy"), N_("efficiency"), N_("batches"), N_("largest batch"), N_("pairs again"))
REAL_COLOUR = "#002F4B"  # chapter 5's colour of real tokens
COLOURS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7")  # Okabe-Ito: told apart with colour-blindness too
STYLES = ("-", "--", "-.", ":")


@dataclass
class _Measured:
    order: np.ndarray  # the epoch's indices, batch after batch
    padded: int
    largest: int
    batch_of: np.ndarray  # each sequence's batch
    sizes: np.ndarray
    pads_by_length: np.ndarray


def _measure(lengths: np.ndarray, epoch: _Epoch, first: bool) -> _Measured:
    ordered = lengths[epoch.order]
    starts = np.concatenate([[0], np.cumsum(epoch.sizes)[:-1]])
    longest = np.maximum.reduceat(ordered, starts)
    padded = epoch.sizes * longest
    batch_of = np.empty(len(lengths), dtype=np.int64)
    batch_of[epoch.order] = np.repeat(np.arange(len(epoch.sizes)), epoch.sizes)
    pads_by_length = np.zeros(0)
    if first:  # for the plot
        pads = np.repeat(longest, epoch.sizes) - ordered
        pads_by_length = np.bincount(ordered, weights=pads, minlength=int(lengths.max()) + 1)
    return _Measured(epoch.order, int(padded.sum()), int(padded.max()), batch_of, epoch.sizes, pads_by_length)


def _pairs_again(first: _Measured, second: _Measured) -> float:
    """Of the pairs of sequences that share a batch in `first`, the share that share one in `second`."""
    pairs = int((first.sizes * (first.sizes - 1) // 2).sum())
    if pairs == 0:
        return 0.0
    # one key per sequence, (batch in first, batch in second), in first's order: already sorted by the first part,
    # so a stable sort (runs of one batch each) is quick; equal keys are sequences that meet in both epochs
    batches = len(second.sizes)
    keys = np.repeat(np.arange(len(first.sizes), dtype=np.int64) * batches, first.sizes)
    keys += second.batch_of[first.order]
    keys.sort(kind="stable")
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    together = np.diff(np.append(starts, len(keys)))
    return int((together * (together - 1) // 2).sum()) / pairs


def plan_batches(
    lengths: Lengths,
    *,
    batch_size: int | None = None,
    max_tokens: int | None = None,
    chunk_batches: int = 16,
    seed: int = 0,
    epochs: int = 2,
) -> BatchPlan:
    """Compare four ways to batch your sequences, on their lengths; print the result for a table and advice.

    The strategies: random batches (`random_batches`); sorted chunks (`bucket_batches` with
    `chunk_size=chunk_batches * batch_size`, chapter 5's sampler); whole-epoch buckets (`bucket_batches` sorting
    the whole epoch); token budget (`token_budget_batches`). For each: padding efficiency (real / padded
    tokens), batches per epoch, the largest batch in padded tokens (batch size × its longest length: what sets
    the memory), and "pairs again": of the pairs of sequences that share a batch in one epoch, the share that
    share a batch again in the next (averaged over consecutive epochs; random batches give about
    (batch_size - 1) / (n - 1), the same batches every epoch give 1).

    Efficiency is the first epoch's, as chapter 5 measures it (on the book's reviews, batch size 32 and chunks
    of 16 batches: 0.291 for random batches, 0.826 for sorted chunks, 0.966 for whole-epoch buckets).

    The recommendation, by these rules in order:

    1. random batches, when they already reach an efficiency of 0.9: sorting would gain little;
    2. the token budget, when it keeps enough randomness (below) and the largest batch of the best fixed batch
       size holds more than twice (MEMORY_RATIO) the padded tokens of the budget's largest: the memory a batch
       needs varies a lot, and the budget caps it;
    3. otherwise the most efficient strategy of those that keep enough randomness: pairs again at most 0.25
       (MAX_PAIRS_AGAIN), or at most random batches' own (random batches always qualify).

    Ties go to the strategy with fewer pairs again.

    Args:
        lengths: one length per sequence (a list, NumPy array or tensor of whole numbers, each at least 1).
        batch_size: sequences per batch, for random batches, sorted chunks and whole-epoch buckets.
        max_tokens: padded tokens per batch, for the token budget. Give `batch_size`, `max_tokens` or both:
            the one you leave out is derived so that a batch holds about as many tokens:
            max_tokens = batch_size × the mean length rounded up (the benchmarks' rule),
            batch_size = max_tokens // that mean.
        chunk_batches: sorted chunks sort `chunk_batches` batches' worth of sequences together (chapter 5:
            16).
        seed: each strategy draws its epochs from its own `torch.Generator().manual_seed(seed)`; with seed 0,
            the first epoch of random batches and of sorted chunks is chapter 5's `shuffled_loader` and
            `bucketed_loader`.
        epochs: how many epochs each strategy draws (at least 2: pairs again compares consecutive ones).

    Returns:
        The plan, which prints its table and recommendation (`print(plan)`) and draws them (`plan.plot()`).

    Raises:
        BatchPlanError: input it cannot use, in one sentence that names the argument.

    >>> lengths = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3] * 4
    >>> plan = plan_batches(lengths, batch_size=4, chunk_batches=2)
    >>> print(plan)
    strategy             efficiency  batches  largest batch  pairs again
    random batches            0.611       16             36        0.031
    sorted chunks             0.777       16             36        0.042
    whole-epoch buckets       1.000       16             36        0.510
    token budget              0.947       19             20        0.355
    <BLANKLINE>
    64 sequences of 1 to 9 tokens (mean 5.0); batch size 4, token budget 20, chunks
    of 2 batches; 2 epochs from seed 0. Efficiency: real tokens / padded tokens.
    Batches: per epoch. Largest batch: its padded tokens (batch size × longest
    length). Pairs again: of the pairs of sequences that share a batch in one
    epoch, the share that share one in the next (about 0 for random batches, 1 for
    the same batches every epoch).
    <BLANKLINE>
    Recommended: sorted chunks: the highest efficiency (0.777) of the strategies
    whose batches still change between epochs; whole-epoch buckets reaches 1.000
    but keeps 51% of the pairs of sequences that share a batch together in the next
    epoch.
    >>> chunks = plan["sorted chunks"]
    >>> chunks.efficiency == 64 * 5 / chunks.padded_tokens[0]
    True
    """
    array = _as_lengths(lengths)
    if batch_size is None and max_tokens is None:
        raise BatchPlanError(
            gettext(
                N_(
                    "batch_size and max_tokens are both missing: pass batch_size=... (sequences per batch) or "
                    "max_tokens=... (padded tokens per batch)."
                )
            )
        )
    mean = -(-int(array.sum()) // len(array))
    if batch_size is not None:
        batch_size = _positive(batch_size, "batch_size")
    if max_tokens is not None:
        max_tokens = _positive(max_tokens, "max_tokens")
    batch_size = batch_size if batch_size is not None else max(1, max_tokens // mean)
    max_tokens = max_tokens if max_tokens is not None else batch_size * mean
    chunk_batches = _positive(chunk_batches, "chunk_batches")
    if isinstance(epochs, bool) or not isinstance(epochs, int | np.integer) or epochs < 2:
        raise BatchPlanError(
            gettext(N_("epochs must be a whole number of at least 2, not {value!r}: pairs again compares two.")).format(
                value=epochs
            )
        )
    n = len(array)
    draw = {
        "random batches": lambda g: _random_epoch(n, batch_size, g, like_dataloader=True),
        "sorted chunks": lambda g: _bucket_epoch(array, batch_size, g, chunk_batches * batch_size, False, "last"),
        "whole-epoch buckets": lambda g: _bucket_epoch(array, batch_size, g, None, False, "last"),
        "token budget": lambda g: _token_budget_epoch(array, max_tokens, g),
    }
    real = int(array.sum())
    results = {}
    for name, make in draw.items():
        generator = torch.Generator().manual_seed(seed)
        measured = [_measure(array, make(generator), epoch == 0) for epoch in range(epochs)]
        again = [_pairs_again(a, b) for a, b in itertools.pairwise(measured)]
        results[name] = StrategyResult(
            name,
            real,
            tuple(m.padded for m in measured),
            len(measured[0].sizes),
            max(m.largest for m in measured),
            sum(again) / len(again),
            measured[0].pads_by_length,
        )
    plan = BatchPlan(array, batch_size, max_tokens, chunk_batches, seed, epochs, results, "", "")
    recommended, rule = _recommend(plan)
    return BatchPlan(array, batch_size, max_tokens, chunk_batches, seed, epochs, results, recommended, rule)


def _recommend(plan: BatchPlan) -> tuple[str, str]:
    """The recommended strategy and the rule that chose it (plan_batches's docstring lists the rules)."""
    results = plan.strategies
    if results["random batches"].efficiency >= 0.9:
        return "random batches", "random"
    budget = results["token budget"]
    random_enough = plan._random_enough()
    fixed = results[plan._best_fixed()]
    if budget in random_enough and fixed.largest_batch > MEMORY_RATIO * budget.largest_batch:
        return "token budget", "memory"
    return min(random_enough, key=lambda result: (-result.efficiency, result.pairs_again)).name, "efficiency"
