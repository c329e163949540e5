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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, Union

import numpy as np
import torch

from padpack.i18n import N_, gettext, language, table_lines, wrap

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

#: The recommendation's rules (see `plan_batches`). A heuristic, not a measured effect on accuracy: a strategy keeps
#: enough randomness when at most this share of the pairs of sequences that share a batch in one epoch share one
#: again in the next (the default of `max_pairs_again`) ...
MAX_PAIRS_AGAIN = 0.25
#: ... and values within this of that limit, or efficiencies within this of each other, make a close call, which the
#: planner reports with both options.
CLOSE = 0.02
#: A fixed batch size's memory varies a lot when its largest batch holds more than this many times the padded
#: tokens of the token budget's largest.
MEMORY_RATIO = 2.0
#: The chunk sizes, in batches, that the planner tries for sorted chunks (50: Hugging Face's `group_by_length`).
CHUNK_BATCHES = (4, 8, 16, 32, 50, 64, 128, 256)
#: The longest sequence the planner and the strategies take, in tokens.
MAX_LENGTH = 2**31 - 1

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
def _as_lengths(lengths: Lengths, name: str = "lengths", dtype: type = np.int64) -> np.ndarray:
    """The lengths as a 1-D NumPy array of `dtype` (int64, or int32, which holds every length and half the
    memory), each from 1 to MAX_LENGTH; otherwise one sentence naming the argument and the first length at
    fault."""
    if isinstance(lengths, torch.Tensor):
        array = lengths.detach().cpu().numpy()
    else:
        try:
            array = np.asarray(lengths)
        except (TypeError, ValueError, OverflowError) as error:
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
    if array.dtype.kind == "b" or array.dtype.kind not in "iuf":  # bools, strings, and Python ints beyond 64 bits
        bad = _first_non_integer(array)
        if bad is not None:
            raise BatchPlanError(
                gettext(N_("{name}[{index}] is {value!r}, not a whole number: a length counts tokens.")).format(
                    name=name, index=bad, value=_item(array[bad])
                )
            )
    elif array.dtype.kind == "f" and not (np.all(np.isfinite(array)) and np.all(array == np.round(array))):
        bad = _first_non_integer(array)
        raise BatchPlanError(
            gettext(N_("{name}[{index}] is {value!r}, not a whole number: a length counts tokens.")).format(
                name=name, index=bad, value=_item(array[bad])
            )
        )
    # compare before converting: a uint64, a float or a Python int beyond int64 would wrap around in int64
    too_short = array < 1
    too_long = array > MAX_LENGTH
    if too_short.any() or too_long.any():
        bad = int(np.argmax(too_short | too_long))
        value = _item(array[bad])
        if value < 1:
            message = N_(
                "{name}[{index}] is {value}: every length must be at least 1 (a sequence of no tokens cannot be "
                "packed; drop it first)."
            )
        else:
            message = N_(
                "{name}[{index}] is {value}: the planner takes lengths of at most {limit:,} tokens (2^31 - 1): "
                "check that these numbers are lengths."
            )
        raise BatchPlanError(gettext(message).format(name=name, index=bad, value=value, limit=MAX_LENGTH))
    return array.astype(dtype, copy=False)


def _item(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value


def _first_non_integer(array: np.ndarray) -> int | None:
    for index, value in enumerate(array.tolist()):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and (not math.isfinite(value) or value != round(value)))
        ):
            return index
    return None


def _positive(value: object, name: str, limit: int = 2**62) -> int:
    """`value` as an int; the error names `limit` only to a value above it (a bound no one can use otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise BatchPlanError(
            gettext(N_("{name} must be a whole number of at least {minimum}, not {text!r}.")).format(
                name=name, minimum=1, text=value
            )
        )
    if value > limit:
        raise BatchPlanError(
            gettext(N_("{name} must be a whole number from 1 to {limit:,}, not {value!r}.")).format(
                name=name, limit=limit, value=value
            )
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


# ------------------------------------------------------------------------------------------- the strategies
# Each strategy draws from the generator what its batches need, in a fixed order, and is computed in a flat form:
# an order of all the indices, cut batch after batch into `sizes`, and the permutation that shuffles the batch
# order. The planner measures that form; the public functions return the batches.
@dataclass
class _Epoch:
    order: np.ndarray  # every index once, batch after batch (int32 below 2^31 sequences: half the memory)
    sizes: np.ndarray  # the batches' sizes, in that order
    shuffle: np.ndarray | None  # the batch order: batch shuffle[0] first, then shuffle[1], ...

    def batches(self) -> list[torch.Tensor]:
        cut = torch.from_numpy(self.order).to(torch.int64).split(self.sizes.tolist())
        return list(cut) if self.shuffle is None else [cut[i] for i in self.shuffle.tolist()]


def _stable_argsort(keys: np.ndarray, axis: int = -1) -> np.ndarray:
    """A stable argsort; NumPy radix-sorts integers of 16 bits, so keys that fit go down to them."""
    if keys.size and 0 <= keys.min() and keys.max() < 2**16:
        keys = keys.astype(np.uint16)
    return np.argsort(keys, axis=axis, kind="stable")


def _sort_chunks(order: np.ndarray, lengths: np.ndarray, chunk: int, descending: bool) -> None:
    """Sort `order` in place by length within each consecutive chunk of `chunk` indices, ties in drawn order.

    A few chunks at a time, so that the sort's temporaries stay small however long the epoch.
    """
    rows = max(1, 2**20 // chunk)
    for start in range(0, len(order), rows * chunk):
        block = order[start : start + rows * chunk]
        whole = len(block) // chunk * chunk
        for part in (block[:whole].reshape(-1, chunk), block[whole:].reshape(1, -1)):
            if part.size:
                drawn = lengths[part]
                keys = drawn.max() - drawn if descending else drawn
                part[...] = np.take_along_axis(part, _stable_argsort(keys, axis=1), axis=1)


def _permutation(n: int, generator: torch.Generator) -> np.ndarray:
    """torch.randperm(n), as int32 when n fits: the same permutation (its draws do not depend on the dtype)."""
    return torch.randperm(n, generator=generator, dtype=torch.int32 if n < 2**31 else torch.int64).numpy()


def _random_epoch(
    n: int, batch_size: int, generator: torch.Generator, like_dataloader: bool = False, last: bool = False
) -> _Epoch:
    if like_dataloader:  # a DataLoader's iterator first draws its workers' base seed
        torch.empty((), dtype=torch.int64).random_(generator=generator)
    order = _permutation(n, generator)
    if like_dataloader and not last:  # and its RandomSampler draws a permutation for the rest of n samples, here
        torch.randperm(n, generator=generator)  # none: only the next epoch's draws depend on it
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
    order = _permutation(n, generator)
    chunk = n if chunk_size is None or chunk_size >= n else chunk_size
    if n:
        _sort_chunks(order, lengths, chunk, descending)
    ordered = lengths[order]
    whole = n // chunk * chunk if n else 0
    sizes = [_chunk_sizes(ordered[:whole].reshape(-1, chunk), batch_size, descending, small_batch)] if n else []
    if whole < n:  # the last chunk, shorter
        sizes.append(_chunk_sizes(ordered[whole:].reshape(1, -1), batch_size, descending, small_batch))
    sizes = np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int64)
    shuffle = torch.randperm(len(sizes), generator=generator).numpy()
    return _Epoch(order, sizes, shuffle)


def _budget_starts(values: np.ndarray, counts: np.ndarray, max_tokens: int) -> np.ndarray:
    """Where each token-budget batch starts in the lengths sorted longest first, given as runs: `counts[i]`
    sequences of length `values[i]`, longest first. Greedy, a run at a time: a batch whose longest sequence has
    `l` tokens takes `max_tokens // l` sequences (at least one)."""
    run_ends = np.cumsum(counts)
    n = int(run_ends[-1]) if len(run_ends) else 0
    starts: list[np.ndarray] = []
    start = run = 0
    while start < n:
        while run_ends[run] <= start:
            run += 1
        size = max(1, max_tokens // int(values[run]))
        whole = (int(run_ends[run]) - start) // size
        starts.append(np.arange(start, start + whole * size, size))
        start += whole * size
        if start < run_ends[run]:  # a batch that begins in this run and takes shorter sequences after it
            starts.append(np.array([start]))
            start += size
    return np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)


def _token_budget_epoch(lengths: np.ndarray, max_tokens: int, generator: torch.Generator) -> _Epoch:
    n = len(lengths)
    order = _permutation(n, generator)
    if n:
        drawn = lengths[order]
        order = order[_stable_argsort(int(drawn.max()) - drawn)]
    ordered = lengths[order]  # longest first
    run_starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]])) if n else np.zeros(0, int)
    counts = np.diff(np.append(run_starts, n))
    begins = _budget_starts(ordered[run_starts], counts, max_tokens)
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
            `"last"` (the plain cut, chapter 5), or `"cheapest"`, where it saves most padding (the benchmarks;
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
    epoch = _bucket_epoch(_as_lengths(lengths), batch_size, generator, chunk_size, descending, small_batch)
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
    return _token_budget_epoch(_as_lengths(lengths), max_tokens, generator).batches()


# ------------------------------------------------------------------------------------------- the planner
@dataclass(frozen=True)
class StrategyResult:
    """One strategy's numbers on the lengths: `plan[name]` of a BatchPlan.

    >>> plan = plan_batches([3, 1, 4, 1, 5, 9, 2, 6], batch_size=2)
    >>> result = plan["token budget"]
    >>> result.name, result.real_tokens, result.batches, result.largest_batch
    ('token budget', 31, 5, 9)
    """

    name: str  # the English name, a key of BatchPlan.strategies
    real_tokens: int  # per epoch
    padded_tokens: tuple[int, ...]  # per epoch drawn: each batch's size × its longest length, summed
    batches: int  # per epoch (the first)
    largest_batch: int  # padded tokens of the largest batch of all the epochs
    pairs_again: float  # of the pairs of sequences that share a batch in an epoch, the share that do in the next
    pads_by_length: tuple[np.ndarray, np.ndarray] = field(repr=False, compare=False)  # first epoch: lengths, pads
    chance: float = 0.0  # pairs again of random batches of the same sizes: (s - 1) / (n - 1) for batches of s
    chunk_batches: int | None = None  # sorted chunks: batches per chunk

    @property
    def efficiency(self) -> float:
        """Padding efficiency, real tokens / padded tokens, over all the epochs drawn (1.0 without pads).

        >>> plan = plan_batches([2, 2, 4, 4], batch_size=2)
        >>> plan["whole-epoch buckets"].efficiency
        1.0
        """
        return self.real_tokens * len(self.padded_tokens) / sum(self.padded_tokens)

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
    budget_given: bool  # max_tokens is the reader's: no recommended strategy may exceed it
    chunk_batches: int  # sorted chunks' batches per chunk, searched or given
    chunk_search: tuple[int, ...]  # the chunk sizes tried, in batches; () when chunk_batches was given
    seed: int
    epochs: int
    max_pairs_again: float
    strategies: dict[str, StrategyResult]
    recommended: str  # the English name of the recommended strategy
    rule: str = field(repr=False)  # which rule chose it: "random", "memory", "efficiency" or "budget"
    # the plans at max_pairs_again ± CLOSE (chunk sizes searched again) that recommend another strategy
    shifted: tuple[BatchPlan, ...] = field(default=(), repr=False)
    chunk_close: StrategyResult | None = field(default=None, repr=False)  # a chunk size on the limit's edge

    @property
    def close(self) -> str | None:
        """The other option of a close call: what a limit on pairs again CLOSE lower or higher recommends, if
        that is another strategy."""
        return self.shifted[0].recommended if self.shifted else None

    def __getitem__(self, name: str) -> StrategyResult:
        return self.strategies[name]

    def limit(self, result: StrategyResult) -> float:
        """The most pairs again a strategy may keep to be recommended: max_pairs_again, or what random batches of
        its sizes keep when that is more (with few sequences, or large batches, even random batches put the same
        pairs together often).

        >>> plan = plan_batches([5] * 200 + [1000], batch_size=32)
        >>> round(plan.limit(plan["random batches"]), 3), round(plan.limit(plan["token budget"]), 3)
        (0.25, 0.302)
        """
        return max(self.max_pairs_again, result.chance)

    def within_budget(self, result: StrategyResult) -> bool:
        """Whether a strategy's largest batch fits the reader's budget (always, when no budget was given).

        >>> plan = plan_batches([3, 30, 4, 5], max_tokens=40)
        >>> [name for name, result in plan.strategies.items() if not plan.within_budget(result)]
        ['random batches']
        """
        return not self.budget_given or result.largest_batch <= self.max_tokens

    @property
    def reason(self) -> str:
        """Why the recommended strategy, in the current language, as printed after "Recommended" and its name.

        >>> lengths = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3] * 4
        >>> plan = plan_batches(lengths, batch_size=4, chunk_batches=2)
        >>> import textwrap
        >>> print(textwrap.fill(plan.reason, 79))
        the highest efficiency (0.770) of the strategies whose batches still change
        between epochs; whole-epoch buckets reaches 1.000 but its pairs again, 0.519,
        is above the limit of 0.250.
        """
        chosen = self.strategies[self.recommended]

        def sentence(message: str, /, **values: object) -> str:
            return gettext(message).format(**values)

        if self.rule == "random":
            return sentence(
                N_(
                    "they already reach an efficiency of {efficiency:.3f}, so sorting gains little, and they are "
                    "the simplest and the most random."
                ),
                efficiency=chosen.efficiency,
            )
        if self.rule == "memory":
            fixed = self.strategies[self._best_fixed()]
            return sentence(
                N_(
                    "with a batch size of {batch_size}, the largest batch holds {ratio:.1f} times the padded "
                    "tokens of the budget's largest ({fixed} against {budget}), so a budget of {max_tokens} "
                    "tokens caps the memory a batch needs, at an efficiency of {efficiency:.3f}."
                ),
                batch_size=self.batch_size,
                ratio=fixed.largest_batch / chosen.largest_batch,
                fixed=fixed.largest_batch,
                budget=chosen.largest_batch,
                max_tokens=self.max_tokens,
                efficiency=chosen.efficiency,
            )
        if self.rule == "budget":
            if sum(self.within_budget(result) for result in self.strategies.values()) == 1:
                message = N_(
                    "the only strategy whose batches fit your budget of {max_tokens} padded tokens, at an "
                    "efficiency of {efficiency:.3f}; but its pairs again, {share:.3f}, is above the limit of "
                    "{limit:.3f}: batches change little between epochs."
                )
            else:
                message = N_(
                    "no strategy whose batches fit your budget of {max_tokens} padded tokens keeps its pairs "
                    "again within the limit, and of those this one keeps the fewest, at an efficiency of "
                    "{efficiency:.3f}; but its pairs again, {share:.3f}, is above the limit of {limit:.3f}: "
                    "batches change little between epochs."
                )
            return sentence(
                message,
                max_tokens=self.max_tokens,
                efficiency=chosen.efficiency,
                share=chosen.pairs_again,
                limit=self.limit(chosen),
            )
        best = max(
            (result for result in self.strategies.values() if self.within_budget(result)),
            key=lambda result: result.efficiency,
        )
        if best.efficiency > chosen.efficiency and best.pairs_again > self.limit(best):
            return sentence(
                N_(
                    "the highest efficiency ({efficiency:.3f}) of the strategies whose batches still change "
                    "between epochs; {other} reaches {other_efficiency:.3f} but its pairs again, {share:.3f}, is "
                    "above the limit of {limit:.3f}."
                ),
                efficiency=chosen.efficiency,
                other=best.label,
                other_efficiency=best.efficiency,
                share=best.pairs_again,
                limit=self.limit(best),
            )
        return sentence(
            N_(
                "the highest efficiency ({efficiency:.3f}) within {close} of the best, and batches that still "
                "change between epochs (pairs again {share:.3f}, within the limit of {limit:.3f})."
            ),
            efficiency=chosen.efficiency,
            close=CLOSE,
            share=chosen.pairs_again,
            limit=self.limit(chosen),
        )

    def _choose(self) -> tuple[str, str]:
        """The recommended strategy and its rule (plan_batches lists the rules)."""
        results = self.strategies
        fits = [result for result in results.values() if self.within_budget(result)]
        random = results["random batches"]
        if random in fits and random.efficiency >= 0.9:
            return "random batches", "random"
        passing = [result for result in fits if result.pairs_again <= self.limit(result)]
        if not passing:  # only with the reader's budget (random batches always keep enough randomness)
            # of the strategies that fit (the token budget always does), the one with the fewest pairs again
            return min(fits, key=lambda result: (result.pairs_again, -result.efficiency)).name, "budget"
        budget = results["token budget"]
        fixed = [result for result in passing if result is not budget]
        if budget in passing and fixed and budget.largest_batch <= self.max_tokens:  # then the budget caps it
            best_fixed = max(fixed, key=lambda result: (result.efficiency, -result.pairs_again))
            if best_fixed.largest_batch > MEMORY_RATIO * budget.largest_batch:
                return "token budget", "memory"
        # the fewest pairs again among the strategies within CLOSE of the best efficiency
        best = max(result.efficiency for result in passing)
        tied = [result for result in passing if result.efficiency >= best - CLOSE]
        return min(tied, key=lambda result: (result.pairs_again, -result.efficiency)).name, "efficiency"

    def _best_fixed(self) -> str:
        """The fixed-batch-size strategy with enough randomness that pads least."""
        fixed = [
            result
            for result in self.strategies.values()
            if result.name != "token budget" and result.pairs_again <= self.limit(result) and self.within_budget(result)
        ]
        return max(fixed, key=lambda result: (result.efficiency, -result.pairs_again)).name

    def table(self) -> str:
        """The comparison as a table of at most 79 columns, one strategy a row.

        >>> print(plan_batches([2, 2, 4, 4], batch_size=2).table())
        strategy             efficiency  batches  largest batch  pairs again
        random batches            0.769        2              8        0.333
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
        return "\n".join(table_lines([header, *rows]))

    def notes(self) -> list[str]:
        """What the table's numbers are, and the rules' limits, as printed under the table: one paragraph each.

        >>> for note in plan_batches([2, 2, 4, 4], batch_size=2).notes()[2:]:
        ...     print(note)  # doctest: +NORMALIZE_WHITESPACE
        The limit of 0.250 on pairs again is a heuristic: how much batches that repeat
        cost in accuracy was not measured. Change it with max_pairs_again (--max-pairs-again).
        Where random batches of a strategy's batch sizes keep more pairs again than 0.250
        (batches large against the epoch), their pairs again is that strategy's limit:
        random batches (0.333), sorted chunks (0.333), whole-epoch buckets (0.333).
        """
        lengths = self.lengths
        notes = [
            gettext(
                N_(
                    "{n} sequences of {low} to {high} tokens (mean {mean:.1f}); batch size {batch_size}, token "
                    "budget {max_tokens}; {epochs} epochs from seed {seed}. Efficiency: real tokens / padded "
                    "tokens, over the epochs. Batches: per epoch. Largest batch: its padded tokens (batch size × "
                    "longest length). Pairs again: of the pairs of sequences that share a batch in one epoch, the "
                    "share that share one in the next (about 0 for random batches, 1 for the same batches every "
                    "epoch): the expected value for random batches, whole-epoch buckets and the token budget, the "
                    "mean over the epochs for sorted chunks."
                )
            ).format(
                n=len(lengths),
                low=int(lengths.min()),
                high=int(lengths.max()),
                mean=float(lengths.mean()),
                batch_size=self.batch_size,
                max_tokens=self.max_tokens,
                epochs=self.epochs,
                seed=self.seed,
            )
        ]
        chunks = self.strategies["sorted chunks"]
        tried = gettext(N_(", ")).join(map(str, self.chunk_search))
        if self.chunk_search and chunks.pairs_again > self.limit(chunks):  # no size within the limit: the smallest
            notes.append(
                gettext(
                    N_(
                        "Sorted chunks: {chunk_batches} batches a chunk, the smallest size tried ({tried} batches a "
                        "chunk); even so, its pairs again ({share:.3f}) is above the limit of {limit:.3f}."
                    )
                ).format(
                    chunk_batches=self.chunk_batches, tried=tried, share=chunks.pairs_again, limit=self.limit(chunks)
                )
            )
        elif self.chunk_search:
            notes.append(
                gettext(
                    N_(
                        "Sorted chunks: {chunk_batches} batches a chunk, the most efficient of {tried} batches a "
                        "chunk whose pairs again stays within the limit."
                    )
                ).format(chunk_batches=self.chunk_batches, tried=tried)
            )
        else:
            notes.append(
                gettext(N_("Sorted chunks: {chunk_batches} batches a chunk.")).format(chunk_batches=self.chunk_batches)
            )
        notes.append(
            gettext(
                N_(
                    "The limit of {limit:.3f} on pairs again is a heuristic: how much batches that repeat cost in "
                    "accuracy was not measured. Change it with max_pairs_again (--max-pairs-again)."
                )
            ).format(limit=self.max_pairs_again)
        )
        raised = [result for result in self.strategies.values() if self.limit(result) > self.max_pairs_again]
        if raised:
            notes.append(
                gettext(
                    N_(
                        "Where random batches of a strategy's batch sizes keep more pairs again than {limit:.3f} "
                        "(batches large against the epoch), their pairs again is that strategy's limit: {limits}."
                    )
                ).format(
                    limit=self.max_pairs_again,
                    limits=gettext(N_(", ")).join(
                        gettext(N_("{strategy} ({limit:.3f})")).format(strategy=result.label, limit=self.limit(result))
                        for result in raised
                    ),
                )
            )
        over = [result.label for result in self.strategies.values() if not self.within_budget(result)]
        if over:
            notes.append(
                gettext(
                    N_("Over your budget of {max_tokens} padded tokens a batch, so not recommended: {names}.")
                ).format(max_tokens=self.max_tokens, names=gettext(N_(", ")).join(over))
            )
        return notes

    def __str__(self) -> str:
        advice = gettext(N_("Recommended: {strategy}: {reason}")).format(
            strategy=self.strategies[self.recommended].label, reason=self.reason
        )
        paragraphs = [self.table(), *(wrap(note, 79) for note in self.notes()), wrap(advice, 79)]
        chosen = self.strategies[self.recommended]
        for shifted in self.shifted:
            other = shifted.strategies[shifted.recommended]
            padding = other if other.efficiency > chosen.efficiency else chosen
            changing = other if other.pairs_again < chosen.pairs_again else chosen
            if shifted.max_pairs_again < self.max_pairs_again:
                message = N_(
                    "A close call: with the limit on pairs again {close} lower, the recommendation is {other}: "
                    "efficiency {other_efficiency:.3f} against {efficiency:.3f}, pairs again {other_share:.3f} "
                    "against {share:.3f}. Take {padding} for less padding, {changing} for batches that change more."
                )
            else:
                message = N_(
                    "A close call: with the limit on pairs again {close} higher, the recommendation is {other}: "
                    "efficiency {other_efficiency:.3f} against {efficiency:.3f}, pairs again {other_share:.3f} "
                    "against {share:.3f}. Take {padding} for less padding, {changing} for batches that change more."
                )
            paragraphs.append(
                wrap(
                    gettext(message).format(
                        other=other.label,
                        padding=padding.label,
                        changing=changing.label,
                        close=CLOSE,
                        other_efficiency=other.efficiency,
                        efficiency=chosen.efficiency,
                        other_share=other.pairs_again,
                        share=chosen.pairs_again,
                    ),
                    79,
                )
            )
        if self.chunk_close is not None and self.within_budget(self.strategies["sorted chunks"]):
            # a close call on the chunk size matters only where sorted chunks may be recommended
            chosen, other = self.strategies["sorted chunks"], self.chunk_close
            if other.chunk_batches > chosen.chunk_batches:  # the larger size pads less but is just over the limit
                message = N_(
                    "A close call on the chunk size: chunks of {other_chunks} batches keep pairs again "
                    "{other_share:.3f}, within {close} of the limit of {limit:.3f}, at an efficiency of "
                    "{other_efficiency:.3f}; chunks of {chunks} batches keep {share:.3f} at {efficiency:.3f}."
                )
                limit = self.limit(other)
            else:  # the chosen size is just under the limit, the smaller one further from it
                message = N_(
                    "A close call on the chunk size: chunks of {chunks} batches keep pairs again {share:.3f}, "
                    "within {close} of the limit of {limit:.3f}, at an efficiency of {efficiency:.3f}; chunks of "
                    "{other_chunks} batches keep {other_share:.3f}, further from it, at {other_efficiency:.3f}."
                )
                limit = self.limit(chosen)
            paragraphs.append(
                wrap(
                    gettext(message).format(
                        other_chunks=other.chunk_batches,
                        other_share=other.pairs_again,
                        close=CLOSE,
                        limit=limit,
                        other_efficiency=other.efficiency,
                        chunks=chosen.chunk_batches,
                        share=chosen.pairs_again,
                        efficiency=chosen.efficiency,
                    ),
                    79,
                )
            )
        return "\n\n".join(paragraphs)

    def _repr_pretty_(self, printer, cycle) -> None:  # how IPython and Jupyter show it
        printer.text(str(self))

    def plot(self, bins: int = 100) -> Figure:
        """The length histogram, and under it the pad positions each strategy adds to sequences of each length.

        A sequence's pads are its batch's longest length minus its own, in the first epoch; the pads' axis is
        logarithmic above 10. At most `bins` bins of equal width, however long the longest sequence. Returns the
        matplotlib Figure (white background), one strategy a line, its efficiency in the legend. In Chinese the
        labels are Chinese where matplotlib finds a font with Chinese characters; where it finds none (as on
        Colab), they stay in English, and the figure says so under its legend.

        >>> import matplotlib; matplotlib.use("Agg")
        >>> figure = plan_batches([3, 1, 4, 1, 5, 9, 2, 6] * 8, batch_size=4).plot()
        >>> [axes.get_ylabel() for axes in figure.axes]
        ['sequences', 'pad positions, first epoch']
        """
        import matplotlib.pyplot as plt
        from matplotlib.text import Text

        chinese = language() != "en"
        font = _cjk_font() if chinese else None
        speak = gettext if font or not chinese else (lambda message: message)
        values, counts = np.unique(self.lengths, return_counts=True)
        high = int(values[-1])
        width = -(-high // bins)  # whole lengths per bin, the same for every bin
        edges = np.arange(0.5, high + width + 0.5, width)
        per_bin = (values - 1) // width  # each distinct length's bin
        centres = (edges[:-1] + edges[1:]) / 2
        figure, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7.5, 6.5), facecolor="white")
        for axes in (top, bottom):
            axes.set_facecolor("white")
        sequences = np.bincount(per_bin, weights=counts, minlength=len(centres))
        top.bar(centres, sequences, width=np.diff(edges), color=REAL_COLOUR, edgecolor="white")
        top.set_ylabel(speak(N_("sequences")))
        top.set_title(speak(N_("Your lengths, and the pads each strategy adds to them")))
        for (name, result), colour, line_style in zip(self.strategies.items(), COLOURS, STYLES):
            lengths, pads = result.pads_by_length
            pads = np.bincount((lengths - 1) // width, weights=pads, minlength=len(centres))
            label = speak(N_("{strategy} ({efficiency:.3f})")).format(
                strategy=speak(STRATEGIES[name]), efficiency=result.efficiency
            )
            bottom.step(centres, pads, where="mid", color=colour, linestyle=line_style, linewidth=1.8, label=label)
        bottom.set_yscale("symlog", linthresh=10)  # random batches' pads would hide the others'
        bottom.set_xlabel(speak(N_("sequence length (tokens)")))
        bottom.set_ylabel(speak(N_("pad positions, first epoch")))
        note = chinese and not font  # under the legend, which then stands higher
        figure.legend(
            *bottom.get_legend_handles_labels(),
            title=speak(N_("strategy (efficiency)")),
            loc="lower center",
            bbox_to_anchor=(0.5, 0.03 if note else 0.0),
            ncol=2,
            frameon=False,
        )
        if note:
            figure.text(0.5, 0.005, NO_CJK_FONT, ha="center", va="bottom", fontsize=8)
        if font:  # on each text, not in rcParams: the figure draws so wherever and whenever it is saved
            for text in figure.findobj(Text):
                text.set_fontfamily([font, "DejaVu Sans"])
        figure.tight_layout(rect=(0, 0.17 if note else 0.14, 1, 1))  # the legend below the axes, off the lines
        return figure


HEADER = (N_("strategy"), N_("efficiency"), N_("batches"), N_("largest batch"), N_("pairs again"))
REAL_COLOUR = "#002F4B"  # chapter 5's colour of real tokens
COLOURS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7")  # Okabe-Ito: told apart with colour-blindness too
STYLES = ("-", "--", "-.", ":")
# In English on purpose: it is drawn where no font can draw Chinese
NO_CJK_FONT = (
    "Labels in English: matplotlib finds no font with Chinese characters here (install one, e.g. Noto Sans CJK)."
)


@functools.cache
def _cjk_font() -> str | None:
    """The family name of a font that matplotlib can use for Chinese, or None: the first of its fonts (and of the
    system's, if its cache predates them) that has the planner's Chinese characters. Not matplotlib's own Last
    Resort font: it maps every character, to a box."""
    from matplotlib import font_manager, ft2font

    needed = [ord(char) for char in "填充序列长度词元策略效率"]
    known = {entry.fname for entry in font_manager.fontManager.ttflist}
    for path in [*sorted(known), *sorted(set(font_manager.findSystemFonts()) - known)]:
        try:
            font = ft2font.FT2Font(path)
        except (OSError, RuntimeError, ValueError):
            continue
        charmap = font.get_charmap()
        if all(code in charmap for code in needed) and not font.family_name.startswith("Last Resort"):
            if path not in known:
                font_manager.fontManager.addfont(path)
            return font.family_name
    return None


# ------------------------------------------------------------------------------------------- measuring
@dataclass
class _Runs:
    """The lengths as runs of equal lengths: `counts[i]` sequences of length `values[i]`, ascending."""

    values: np.ndarray
    counts: np.ndarray
    counted: bool  # the lengths are short enough for a histogram, which is cheaper than a sort

    @classmethod
    def of(cls, lengths: np.ndarray) -> _Runs:
        if int(lengths.max()) <= 4 * len(lengths) + 2**16:
            counts = np.bincount(lengths)
            values = np.flatnonzero(counts)
            return cls(values, counts[values], True)
        values, counts = np.unique(lengths, return_counts=True)
        return cls(values, counts, False)

    def pads_by_length(
        self, ordered: np.ndarray, sizes: np.ndarray, longest: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The pads of the sequences of each length (`values`), for lengths `ordered` cut into batches of `sizes`
        whose longest are `longest`; a block of sequences at a time, so that the temporaries stay small (the
        sums are of whole numbers, exact in any order)."""
        bins = int(self.values[-1]) + 1 if self.counted else len(self.values)
        pads = np.zeros(bins)
        ends = np.cumsum(sizes)
        block = 2**20
        for start in range(0, len(ordered), block):
            lengths = ordered[start : start + block]
            first = np.searchsorted(ends, start, side="right")  # the batch of the block's first sequence
            last = np.searchsorted(ends, start + len(lengths) - 1, side="right")
            counts = np.minimum(ends[first : last + 1], start + len(lengths)) - np.maximum(
                ends[first : last + 1] - sizes[first : last + 1], start
            )
            where = lengths if self.counted else np.searchsorted(self.values, lengths)
            pads += np.bincount(where, weights=np.repeat(longest[first : last + 1], counts) - lengths, minlength=bins)
        return self.values, pads[self.values] if self.counted else pads


def _fixed_result(name: str, runs: _Runs, sizes: np.ndarray, descending: bool, epochs: int) -> StrategyResult:
    """A strategy whose batches, in lengths, are the same every epoch (the sorted lengths cut into `sizes`; only
    ties and the batch order are random): its numbers and the exact expected pairs again."""
    values, counts = (runs.values[::-1], runs.counts[::-1]) if descending else (runs.values, runs.counts)
    run_bounds = np.concatenate([[0], np.cumsum(counts)])
    batch_bounds = np.concatenate([[0], np.cumsum(sizes)])
    # segments: the sequences of one length in one batch
    bounds = np.union1d(run_bounds, batch_bounds)
    seg = np.diff(bounds)
    run = np.searchsorted(run_bounds, bounds[:-1], side="right") - 1
    batch = np.searchsorted(batch_bounds, bounds[:-1], side="right") - 1
    ends = batch_bounds[1:] - 1
    longest = values[np.searchsorted(run_bounds, batch_bounds[:-1] if descending else ends, side="right") - 1]
    padded = int((sizes * longest).sum())
    pads = seg * (longest[batch] - values[run])
    pads_by_length = np.bincount(run, weights=pads, minlength=len(values))
    if descending:
        pads_by_length = pads_by_length[::-1]
    return StrategyResult(
        name,
        int((runs.values * runs.counts).sum()),
        (padded,) * epochs,
        len(sizes),
        int((sizes * longest).max()),
        _expected_pairs_again(counts, sizes, seg, run, batch),
        (runs.values, pads_by_length),
        _chance(sizes),
    )


def _expected_pairs_again(
    counts: np.ndarray, sizes: np.ndarray, seg: np.ndarray, run: np.ndarray, batch: np.ndarray
) -> float:
    """Pairs again, exactly in expectation, of batches fixed in lengths whose ties are shuffled every epoch.

    Segment k holds `seg[k]` sequences of length `run[k]` in batch `batch[k]`. Two sequences of one length meet
    in the next epoch with probability Σ_batches c(c - 1) / (m(m - 1)) (c of the m sequences of that length in
    each batch); two of different lengths, which share at most one batch (the sorted order puts every length in
    consecutive places), with probability c·c' / (m·m').
    """
    pairs = float((sizes * (sizes - 1)).sum()) / 2
    if pairs == 0:
        return 0.0
    c = seg.astype(np.float64)
    m = counts.astype(np.float64)[run]
    same = np.bincount(run, weights=c * (c - 1) / 2, minlength=len(counts))  # pairs of one length, per length
    total = counts.astype(np.float64)
    many = total > 1
    again = float((same[many] ** 2 * 2 / (total[many] * (total[many] - 1))).sum())
    weight = c * c / m
    by_batch = np.bincount(batch, weights=weight)
    again += float(((by_batch**2 - np.bincount(batch, weights=weight**2)) / 2).sum())
    return min(1.0, again / pairs)


@dataclass
class _Measured:
    order: np.ndarray  # the epoch's indices, batch after batch
    padded: int
    largest: int
    batch_of: np.ndarray  # each sequence's batch
    sizes: np.ndarray
    pads_by_length: tuple[np.ndarray, np.ndarray] | None  # with runs: the pads of each length, as in StrategyResult


def _measure(lengths: np.ndarray, epoch: _Epoch, pairs: bool, runs: _Runs | None = None) -> _Measured:
    """An epoch's padded tokens and largest batch; with `pairs` each sequence's batch, with `runs` (the first
    epoch's) the pads of each length."""
    ordered = lengths[epoch.order]
    starts = np.concatenate([[0], np.cumsum(epoch.sizes)[:-1]])
    longest = np.maximum.reduceat(ordered, starts)
    padded = epoch.sizes * longest
    batch_of = np.zeros(0, dtype=np.int32)
    if pairs:
        batch_of = np.empty(len(lengths), dtype=np.int32 if len(epoch.sizes) < 2**31 else np.int64)
        batch_of[epoch.order] = np.repeat(np.arange(len(epoch.sizes), dtype=batch_of.dtype), epoch.sizes)
    pads = None if runs is None else runs.pads_by_length(ordered, epoch.sizes, longest)
    return _Measured(epoch.order, int(padded.sum()), int(padded.max()), batch_of, epoch.sizes, pads)


def _pairs_again(first: _Measured, second: _Measured) -> float:
    """Of the pairs of sequences that share a batch in `first`, the share that share one in `second`.

    Counted in a table of first's batches, as wide as its largest (for batches of about equal sizes), a block
    of rows at a time, so that the temporaries stay small.
    """
    sizes = first.sizes
    pairs = int((sizes * (sizes - 1) // 2).sum())
    if pairs == 0:
        return 0.0
    width = int(sizes.max())
    column = np.arange(1, width, dtype=np.int32)
    ends = np.cumsum(sizes)
    rows = max(1, 2**20 // width)
    again = 0
    for row in range(0, len(sizes), rows):
        block = sizes[row : row + rows]
        # first's batches as the rows of a table, each sequence's batch in second in its cell, the cells past a
        # batch's end negative and all different; sorted by row, equal neighbours are pairs that meet again
        filled = np.arange(width) < block[:, None]
        table = np.empty(filled.shape, dtype=second.batch_of.dtype)
        table[~filled] = -1 - np.arange(filled.size - int(block.sum()), dtype=table.dtype)
        table[filled] = second.batch_of[first.order[ends[row] - block[0] : ends[row + len(block) - 1]]]
        table.sort(axis=1)
        # a run of equal cells holds a pair for each of its cells and each cell before it in the run
        run_start = np.where(table[:, 1:] == table[:, :-1], 0, column)
        np.maximum.accumulate(run_start, axis=1, out=run_start)
        again += int((column - run_start).sum(dtype=np.int64))
    return again / pairs


def _drawn_result(
    name: str, lengths: np.ndarray, runs: _Runs, draw, seed: int, epochs: int, pairs: float | None, **extra
) -> StrategyResult:
    """A strategy whose batches are drawn at random: `epochs` epochs from `seed`, each `draw(generator, last)`
    (`last`: the last epoch drawn, so the draws after its batches can be left out); pairs again measured between
    consecutive epochs, unless `pairs` gives its exact expectation."""
    generator = torch.Generator().manual_seed(seed)
    padded, largest, again = [], 0, []
    previous = first = None
    for epoch in range(epochs):  # one epoch at a time, and the one before: a corpus's epochs need not fit at once
        measured = _measure(lengths, draw(generator, epoch == epochs - 1), pairs is None, runs if epoch == 0 else None)
        if first is None:
            first, pads_by_length = measured.sizes, measured.pads_by_length
        if previous is not None:
            again.append(_pairs_again(previous, measured))
        previous = measured if pairs is None else None
        padded.append(measured.padded)
        largest = max(largest, measured.largest)
    return StrategyResult(
        name,
        int(lengths.sum()),
        tuple(padded),
        len(first),
        largest,
        sum(again) / len(again) if pairs is None else pairs,
        pads_by_length,
        _chance(first),
        **extra,
    )


def _chance(sizes: np.ndarray) -> float:
    """Pairs again of random batches of these sizes, exactly in expectation: of the pairs that share a batch, the
    share that a new random cut into the same sizes puts together again, Σ s(s - 1) / (n(n - 1))."""
    n = int(sizes.sum())
    return float((sizes * (sizes - 1)).sum()) / (n * (n - 1)) if n > 1 else 0.0


def _chunk_sizes_of(n: int, chunk_size: int) -> np.ndarray:
    """The sizes of the chunks of `chunk_size` that an epoch of n sequences is cut into."""
    full, rest = divmod(n, chunk_size)
    return np.array([chunk_size] * full + [rest] * (rest > 0), dtype=np.int64)


def _auto_epochs(n: int) -> int:
    """Enough epochs for averages that hold, two million sequences drawn, but at least 2 and at most 10: at a
    million lengths, two epochs' efficiency and pairs again vary over seeds by standard deviations under 0.001
    (benchmarks/planner.py measures it)."""
    return max(2, min(10, -(-2_000_000 // n)))


def plan_batches(
    lengths: Lengths,
    *,
    batch_size: int | None = None,
    max_tokens: int | None = None,
    chunk_batches: int | None = None,
    seed: int = 0,
    epochs: int | None = None,
    max_pairs_again: float = MAX_PAIRS_AGAIN,
) -> BatchPlan:
    """Compare four ways to batch your sequences, on their lengths; print the result for a table and advice.

    The strategies: random batches (`random_batches`); sorted chunks (`bucket_batches` with
    `chunk_size=chunk_batches * batch_size`, chapter 5's sampler); whole-epoch buckets (`bucket_batches` sorting
    the whole epoch); token budget (`token_budget_batches`). For each: padding efficiency (real / padded
    tokens, over the epochs), batches per epoch, the largest batch in padded tokens (batch size × its longest
    length: what sets the memory), and "pairs again": of the pairs of sequences that share a batch in one
    epoch, the share that share a batch again in the next. For random batches, whole-epoch buckets and the
    token budget it is the exact expected value (whole-epoch buckets and the token budget make the same batches,
    in lengths, every epoch, and only ties are drawn; random batches give (batch_size - 1) / (n - 1)); for
    sorted chunks, the mean over consecutive epochs. Whole-epoch buckets and the token budget pad the same every epoch.

    Sorted chunks try chunks of 4, 8, 16, 32, 50 (Hugging Face's `group_by_length`), 64, 128 and 256 batches
    (CHUNK_BATCHES, as long as a chunk is shorter than the epoch) and keep the most efficient whose pairs again
    stays within the limit (the smallest, when none does); give `chunk_batches` to fix it.

    The recommendation, by these rules in order, among the strategies whose largest batch fits your budget
    when you give `max_tokens` (all of them otherwise):

    1. random batches, when they already reach an efficiency of 0.9: sorting would gain little;
    2. the token budget, when it keeps enough randomness (below) and the largest batch of the best fixed batch
       size holds more than twice (MEMORY_RATIO) the padded tokens of the budget's largest: the memory a batch
       needs varies a lot, and the budget caps it;
    3. otherwise, of the strategies that keep enough randomness, the one with the fewest pairs again among those
       within 0.02 (CLOSE) of the best efficiency;
    4. with your budget, when no strategy that fits it keeps enough randomness: of those that fit, the one with
       the fewest pairs again (the token budget, when it alone fits), saying so.

    "Enough randomness" is pairs again at most `max_pairs_again` (0.25), or at most random batches' own. That
    limit is a heuristic: the book has not measured what batches that repeat cost in accuracy. When moving the
    limit 0.02 lower or higher (and searching the chunk size again) changes the recommended strategy, the plan
    prints a close call that says which way, with both options and their trade-off: a choice on the edge, not a
    verdict. (Efficiencies within 0.02 of the best count as tied, as the rules above say.)

    Args:
        lengths: one length per sequence (a list, NumPy array or tensor of whole numbers from 1 to 2^31 - 1).
        batch_size: sequences per batch, for random batches, sorted chunks and whole-epoch buckets.
        max_tokens: your budget of padded tokens per batch. The token budget batches by it, and no
            recommended strategy exceeds it; a sequence longer than it is an error. Give `batch_size`,
            `max_tokens` or both: without `max_tokens`, the token budget uses batch_size × the mean length
            rounded up (the benchmarks' rule), or the longest length if that is more, and recommends nothing
            by it; without `batch_size`, it is max_tokens // that mean (at least 1).
        chunk_batches: batches per sorted chunk (chapter 5: 16); None searches CHUNK_BATCHES.
        seed: each strategy draws its epochs from its own `torch.Generator().manual_seed(seed)`; with seed 0,
            the first epoch of random batches and of sorted chunks is chapter 5's `shuffled_loader` and
            `bucketed_loader` (with `chunk_batches=16`).
        epochs: how many epochs random batches and sorted chunks draw (at least 2); None draws enough for
            stable averages: 2,000,000 / the number of sequences, from 2 to 10.
        max_pairs_again: the limit on pairs again for "enough randomness" (a heuristic; 0 to 1).

    Returns:
        The plan, which prints its table and recommendation (`print(plan)`) and draws them (`plan.plot()`).

    Raises:
        BatchPlanError: input it cannot use, in one sentence that names the argument.

    >>> lengths = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3] * 4
    >>> plan = plan_batches(lengths, batch_size=4, chunk_batches=2)
    >>> print(plan.table())
    strategy             efficiency  batches  largest batch  pairs again
    random batches            0.636       16             36        0.048
    sorted chunks             0.770       16             36        0.057
    whole-epoch buckets       1.000       16             36        0.519
    token budget              0.947       19             20        0.437
    >>> print(plan.recommended, plan.rule)
    sorted chunks efficiency
    >>> chunks = plan["sorted chunks"]
    >>> chunks.efficiency == 64 * 5 * 10 / sum(chunks.padded_tokens)
    True
    """
    array = _as_lengths(lengths, dtype=np.int32)  # half the memory to gather
    if batch_size is None and max_tokens is None:
        raise BatchPlanError(
            gettext(
                N_(
                    "batch_size and max_tokens are both missing: pass batch_size=... (sequences per batch) or "
                    "max_tokens=... (padded tokens per batch)."
                )
            )
        )
    n = len(array)
    runs = _Runs.of(array)
    real = int((runs.values * runs.counts).sum())
    mean = -(-real // n)
    longest = int(runs.values[-1])
    budget_given = max_tokens is not None
    if batch_size is not None:
        batch_size = _positive(batch_size, "batch_size")
    if max_tokens is not None:
        max_tokens = _positive(max_tokens, "max_tokens")
        if longest > max_tokens:
            index = int(np.argmax(array > max_tokens))
            raise BatchPlanError(
                gettext(
                    N_(
                        "lengths[{index}] is {length}, longer than max_tokens ({max_tokens}): a batch of that "
                        "sequence alone exceeds the budget. Raise max_tokens, or cut or drop the {count} "
                        "sequences longer than it."
                    )
                ).format(
                    index=index, length=int(array[index]), max_tokens=max_tokens, count=int((array > max_tokens).sum())
                )
            )
    batch_size = batch_size if batch_size is not None else max(1, max_tokens // mean)
    max_tokens = max_tokens if max_tokens is not None else batch_size * mean
    if chunk_batches is not None:
        chunk_batches = _positive(chunk_batches, "chunk_batches")
    if epochs is None:
        epochs = _auto_epochs(n)
    elif isinstance(epochs, bool) or not isinstance(epochs, int | np.integer) or not 2 <= epochs <= 1000:
        raise BatchPlanError(
            gettext(
                N_("epochs must be a whole number from 2 to 1,000, not {value!r}: pairs again compares two.")
            ).format(value=epochs)
        )
    if (
        isinstance(max_pairs_again, bool)
        or not isinstance(max_pairs_again, int | float)
        or not 0 <= max_pairs_again <= 1
    ):
        raise BatchPlanError(
            gettext(N_("max_pairs_again must be a number from 0 to 1, not {value!r}.")).format(value=max_pairs_again)
        )

    full, small = divmod(n, batch_size)
    epoch_sizes = np.full(full + (small > 0), batch_size, dtype=np.int64)
    if small:
        epoch_sizes[-1] = small
    results = {
        "random batches": _drawn_result(
            "random batches",
            array,
            runs,
            lambda g, last: _random_epoch(n, batch_size, g, like_dataloader=True, last=last),
            seed,
            epochs,
            _chance(epoch_sizes),
        )
    }

    def chunks(k: int) -> StrategyResult:
        return _drawn_result(
            "sorted chunks",
            array,
            runs,
            lambda g, last: _bucket_epoch(array, batch_size, g, k * batch_size, False, "last"),
            seed,
            epochs,
            None,  # pairs again is measured: sorted chunks differ from epoch to epoch
            chunk_batches=k,
        )

    measured: dict[int, StrategyResult] = {}

    def chunks_of(k: int) -> StrategyResult:  # each size drawn once, whatever limit it is tried against
        if k not in measured:
            measured[k] = chunks(k)
        return measured[k]

    def search_chunks(max_pairs_again: float) -> tuple[StrategyResult, StrategyResult | None]:
        """The most efficient chunk size within the limit, and a size on the limit's edge (a close call)."""
        # a pair meets again only in a chunk it shares again: chunks whose chance of that is under the limit pass
        # unmeasured, and the largest of them pads least
        sure = [k for k in search if _chance(_chunk_sizes_of(n, k * batch_size)) <= max_pairs_again - CLOSE]
        start = search.index(sure[-1]) if sure else 0
        chosen, chunk_close, previous = chunks_of(search[start]), None, None
        for k in search[start + 1 :]:  # larger chunks pad less and keep more pairs: the largest within the limit
            candidate = chunks_of(k)
            limit = max(max_pairs_again, candidate.chance)
            if candidate.pairs_again > limit or candidate.efficiency < chosen.efficiency:
                if candidate.pairs_again <= limit + CLOSE and candidate.efficiency >= chosen.efficiency:
                    chunk_close = candidate
                break
            previous, chosen = chosen, candidate
        edge = max(max_pairs_again, chosen.chance) - CLOSE  # the chosen size within a close call of its limit ...
        if chunk_close is None and previous is not None and chosen.pairs_again > edge:  # ... against the size before
            chunk_close = previous
        return chosen, chunk_close

    search: tuple[int, ...] = ()
    chunk_close = None
    if chunk_batches is None:
        search = tuple(k for k in CHUNK_BATCHES if k * batch_size < n) or (CHUNK_BATCHES[0],)
        results["sorted chunks"], chunk_close = search_chunks(max_pairs_again)
        chunk_batches = results["sorted chunks"].chunk_batches
    else:
        results["sorted chunks"] = chunks_of(chunk_batches)
    results["whole-epoch buckets"] = _fixed_result("whole-epoch buckets", runs, epoch_sizes, False, epochs)
    budget_sizes = np.diff(np.append(_budget_starts(runs.values[::-1], runs.counts[::-1], max_tokens), n))
    results["token budget"] = _fixed_result("token budget", runs, budget_sizes, True, epochs)
    plan = BatchPlan(
        array,
        batch_size,
        max_tokens,
        budget_given,
        chunk_batches,
        search,
        seed,
        epochs,
        max_pairs_again,
        results,
        "",
        "",
    )
    recommended, rule = plan._choose()
    shifted = []
    for limit in sorted({max(0.0, max_pairs_again - CLOSE), min(1.0, max_pairs_again + CLOSE)} - {max_pairs_again}):
        # the recommendation at the moved limit, computed as at the real one: the chunk size searched again
        strategies = dict(results, **({"sorted chunks": search_chunks(limit)[0]} if search else {}))
        moved = replace(plan, max_pairs_again=limit, strategies=strategies)
        moved = replace(moved, recommended=moved._choose()[0])
        if moved.recommended != recommended:
            shifted.append(moved)
    return replace(plan, recommended=recommended, rule=rule, shifted=tuple(shifted), chunk_close=chunk_close)
