"""The exercise checks of chapter 05: a sorted collate_fn, the core of the bucketing sampler, padding efficiency."""

import torch
from torch.nn.utils.rnn import pad_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

_COLLATE_SECTION = "05_batches_and_bucketing#a-collate-fn-that-returns-padded-lengths-labels"
_BUCKETING = "05_batches_and_bucketing#a-length-bucketing-batch-sampler"
_ENFORCE_SORTED = "02_pack_and_unpack_internals#pitfall-1-unsorted-lengths-with-enforce-sorted-true"


def sorted_collate_cases() -> list:
    """Hand-built batches (distinct lengths, so that longest first is one order); the answer built slot by slot."""
    cases = []
    for label, lengths, pad_id, shown in [
        (N_("four reviews, the longest not first, pad id 0"), [3, 1, 5, 2], 0, True),
        (N_("pad id 7"), [2, 4, 1], 7, True),
        (N_("a single review"), [3], 0, True),
        (N_("five reviews, shortest first, pad id 3"), [1, 2, 4, 5, 6], 3, False),
        (N_("two reviews, already sorted"), [6, 2], 0, False),
    ]:
        batch = [(torch.randint(2, 7, (n,)), index) for index, n in enumerate(lengths)]
        order = torch.argsort(torch.tensor(lengths), descending=True)
        want = torch.full((len(lengths), max(lengths)), pad_id)
        for row, i in enumerate(order.tolist()):
            want[row, : lengths[i]] = batch[i][0]
        want_lengths = torch.tensor(lengths)[order]
        # each review's label is its position, so the sorted labels are the order
        cases.append(Case(label, (batch, pad_id), (want, want_lengths, order), shown))
    return cases


def _collate(batch, pad_id, by=None, sort=True, reverse=True, first=True, sort_labels=True):
    """Wrong answers of the table: a collate with one thing changed."""
    ordered = sorted(batch, key=lambda pair: len(pair[0]), reverse=reverse) if sort else batch
    sequences = [ids for ids, _ in ordered]
    labels = [label for _, label in (ordered if sort_labels else batch)]
    padded = pad_sequence(sequences, batch_first=first, padding_value=pad_id)
    lengths = [len(ids) for ids in sequences]
    if by == "int32":
        lengths = torch.tensor(lengths, dtype=torch.int32)
    elif by != "list":
        lengths = torch.tensor(lengths)
    return padded, lengths, (labels if by == "labels" else torch.tensor(labels))


check_sorted_collate = Exercise(
    sorted_collate_cases,
    [
        Mistake(
            lambda batch, pad_id: _collate(batch, pad_id, by="list"),
            N_(
                "The lengths are a Python list: collate_batch's contract is an int64 tensor on the CPU "
                "(packing would accept a list; .sum() and .to() would not)."
            ),
            _COLLATE_SECTION,
        ),
        Mistake(
            lambda batch, pad_id: _collate(batch, pad_id, by="int32"),
            N_(
                "The lengths are an int32 tensor: collate_batch's contract is int64 on the CPU; "
                "build them with torch.tensor(..., dtype=torch.int64) or leave the default."
            ),
            _COLLATE_SECTION,
        ),
        Mistake(
            lambda batch, pad_id: _collate(batch, pad_id, by="labels"),
            N_("The labels are a Python list: return them as a tensor, torch.tensor(labels), as collate_batch does."),
            _COLLATE_SECTION,
        ),
        Mistake(
            lambda batch, pad_id: _collate(batch, 0),
            N_("The pads are 0, not pad_id: pad_sequence pads with 0 unless you pass padding_value."),
            _COLLATE_SECTION,
        ),
        Mistake(
            lambda batch, pad_id: _collate(batch, pad_id, first=False),
            N_("The padded batch is (longest, batch): pad_sequence puts time first unless you pass batch_first=True."),
            _COLLATE_SECTION,
        ),
        Mistake(
            lambda batch, pad_id: _collate(batch, pad_id, sort_labels=False),
            N_(
                "The sequences and lengths are sorted but the labels are not: each label now belongs to another review."
            ),
            _COLLATE_SECTION,
        ),
        Mistake(
            lambda batch, pad_id: _collate(batch, pad_id, sort=False),
            N_(
                "The batch is in its original order: sort the (token_ids, label) pairs by length, longest first, "
                "as enforce_sorted=True wants."
            ),
            _ENFORCE_SORTED,
        ),
        Mistake(
            lambda batch, pad_id: _collate(batch, pad_id, reverse=False),
            N_("Sorted shortest first: enforce_sorted=True wants the lengths in decreasing order."),
            _ENFORCE_SORTED,
        ),
    ],
    N_(
        "Sort the (token_ids, label) pairs together, longest first, "
        "before you split them; then pad_sequence with batch_first=True and "
        "padding_value=pad_id."
    ),
)


def chunk_batches_cases() -> list:
    """Random orders of distinct lengths; each chunk sorted with torch's sort, shortest first."""
    cases = []
    for label, size, batch_size, chunk_size, shown in [
        (N_("10 reviews, batches of 3, chunks of 6"), 10, 3, 6, True),
        (N_("40 reviews, batches of 4, chunks of 16"), 40, 4, 16, True),
        (N_("one chunk that is one batch"), 5, 5, 5, True),
        (N_("23 reviews, batches of 4, chunks of 10"), 23, 4, 10, False),
        (N_("7 reviews, batches of 1, chunks of 3"), 7, 1, 3, False),
    ]:
        lengths = torch.randperm(size).add(1).tolist()
        order = torch.randperm(size).tolist()
        want = []
        for chunk in torch.tensor(order).split(chunk_size):
            keys = torch.tensor(lengths)[chunk]
            chunk = chunk[torch.sort(keys, stable=True).indices]
            want += [batch.tolist() for batch in chunk.split(batch_size)]
        args = (order, lengths, batch_size, chunk_size)
        cases.append(Case(label, args, want, shown))
    return cases


def _batches(items, batch_size, drop_last=False):
    stop = len(items) - batch_size + 1 if drop_last else len(items)
    return [items[i : i + batch_size] for i in range(0, stop, batch_size)]


def _chunk_batches(order, lengths, batch_size, chunk_size, how):
    """Wrong answers of the table: the chunked sort with one thing changed."""
    if how == "global":
        return _batches(sorted(order, key=lengths.__getitem__), batch_size)
    stop = len(order) - chunk_size + 1 if how == "whole chunks" else len(order)
    batches, flat = [], []
    for start in range(0, stop, chunk_size):
        chunk = order[start : start + chunk_size]
        if how == "batch":
            batches += [sorted(b, key=lengths.__getitem__) for b in _batches(chunk, batch_size)]
            continue
        key = None if how == "index" else lengths.__getitem__
        chunk = sorted(chunk, key=key, reverse=how == "longest")
        flat += chunk
        batches += _batches(chunk, batch_size, how == "drop")
    return _batches(flat, batch_size) if how == "across" else batches


def _chunking_mistake(how: str, message: str) -> Mistake:
    """The mistake of chunking the `how` way (see _chunk_batches), told in `message`."""
    return Mistake(lambda *args: _chunk_batches(*args, how), message, _BUCKETING)


check_chunk_batches = Exercise(
    chunk_batches_cases,
    [
        _chunking_mistake(
            "global",
            N_(
                "This sorts the whole order at once: every review then meets reviews of nearly its own length "
                "in every epoch, and many pairs share a batch again; sort inside each chunk only."
            ),
        ),
        _chunking_mistake(
            "drop", N_("The last, shorter batch of a chunk is dropped: every index must appear once per epoch.")
        ),
        _chunking_mistake(
            "whole chunks",
            N_(
                "The last, shorter chunk is skipped: range(0, len(order), chunk_size) visits it too, "
                "and every index must appear once per epoch."
            ),
        ),
        _chunking_mistake(
            "index", N_("This sorts the indices themselves, not their lengths: pass the lengths as the sort key.")
        ),
        _chunking_mistake(
            "batch",
            N_(
                "This cuts the batches first and sorts inside each one: who "
                "shares a batch is still random, so nothing is saved."
            ),
        ),
        _chunking_mistake(
            "longest",
            N_(
                "Each chunk is sorted longest first: it buckets as well, but the question (and "
                "BucketBatchSampler) sorts shortest first, the default of sorted() and list.sort()."
            ),
        ),
        _chunking_mistake(
            "across",
            N_(
                "The sorted chunks are joined, then cut into batches, so a batch can straddle two "
                "chunks: cut each chunk into batches on its own, keeping its shorter last batch."
            ),
        ),
    ],
    N_(
        "Walk through order in steps of chunk_size; sort each chunk with "
        "key=lengths.__getitem__ (a stable sort), then cut it into pieces of "
        "batch_size, keeping the shorter last piece."
    ),
)


def padding_efficiency_cases() -> list:
    """Hand-counted literals, and a slow count slot by slot."""
    cases = [
        Case(
            N_("lengths [5, 1] and [2, 2, 2]: 12 real tokens in 16 slots"),
            ([torch.tensor([5, 1]), torch.tensor([2, 2, 2])],),
            0.75,
        ),
        Case(N_("one batch with no pads"), ([torch.tensor([3, 3])],), 1.0),
    ]
    for label, sizes, shown in [
        (N_("four random batches of 8, 3, 8 and 1 reviews"), (8, 3, 8, 1), True),
        (N_("a batch of one review, then two of 5"), (1, 5, 5), False),
    ]:
        batches = [torch.randint(1, 30, (n,)) for n in sizes]
        real = slots = 0
        for lengths in batches:
            for length in lengths.tolist():
                for step in range(int(lengths.max())):
                    real, slots = real + (step < length), slots + 1
        cases.append(Case(label, (batches,), real / slots, shown))
    return cases


def _efficiencies(batch_lengths):
    return [n.sum().item() / (len(n) * n.max().item()) for n in batch_lengths]


def _global_slots(batch_lengths):
    longest = max(n.max().item() for n in batch_lengths)
    return sum(map(len, batch_lengths)) * longest


def _totals(batch_lengths):
    real = sum(n.sum().item() for n in batch_lengths)
    slots = sum(len(n) * n.max().item() for n in batch_lengths)
    return real, slots


check_padding_efficiency = Exercise(
    padding_efficiency_cases,
    [
        Mistake(
            lambda b: sum(_efficiencies(b)) / len(b),
            N_(
                "This is the mean of the batches' efficiencies: a small batch "
                "counts as much as a large one; divide total real tokens by "
                "total slots."
            ),
            _BUCKETING,
        ),
        Mistake(
            lambda b: _totals(b)[0] / _global_slots(b),
            N_("The slots use the longest review of all batches: each batch is padded only to its own longest review."),
            "01_why_padding_wastes_compute#padding-efficiency",
        ),
        Mistake(
            lambda b: 1 - _totals(b)[0] / _totals(b)[1],
            N_("This is the fraction of slots that are pads: padding efficiency is the fraction that are real tokens."),
            _BUCKETING,
        ),
        Mistake(
            lambda b: _totals(b)[1] / _totals(b)[0],
            N_(
                "This is slots divided by real tokens, upside down: padding "
                "efficiency is real tokens divided by slots, at most 1."
            ),
            _BUCKETING,
        ),
        Mistake(
            lambda b: torch.tensor(_totals(b)[0] / _totals(b)[1]),
            N_("It returned a 0-dim tensor: return a Python float (.item() or float())."),
            _BUCKETING,
        ),
        Mistake(
            lambda b: _totals(b)[0] // _totals(b)[1],
            N_("Floor division // rounds the ratio down to 0 (or 1): divide with /, which gives a float."),
            _BUCKETING,
        ),
    ],
    N_(
        "Add up the real tokens (the lengths) and the slots (batch size "
        "times the longest length) over all batches, then divide once."
    ),
    answer=N_(
        "A chunk of one batch only sorts inside a batch drawn at random: which reviews share a batch does not "
        "change, so it pads as much as shuffling. Larger chunks pad less. One global sort pads least, but then "
        "every review meets reviews of nearly its own length in every epoch: with ties broken at random, about a "
        "third of the pairs share a batch again in the next epoch, against about one in eight with chunks of 16 "
        "batches (the planner's pairs again)."
    ),
)
