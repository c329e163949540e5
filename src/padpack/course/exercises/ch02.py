"""The exercise checks of chapter 2: batch_sizes from lengths, the order of packed.data, and the last rows."""

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

__all__ = ["check_batch_sizes_from_lengths", "check_last_rows", "check_packed_data"]

PAGE = "02_pack_and_unpack_internals"
CLASSIC = f"{PAGE}#packing-the-classic-examples"
PICTURE = f"{PAGE}#a-picture-of-the-interleaving"
SORTING = f"{PAGE}#enforce-sorted-who-sorts-and-who-unsorts"
FROM_SCRATCH = f"{PAGE}#packing-from-scratch"
PITFALL_UNSORTED = f"{PAGE}#pitfall-1-unsorted-lengths-with-enforce-sorted-true"
PITFALL_LAYOUT = f"{PAGE}#pitfall-3-lengths-that-do-not-match-the-batch"


# 1. batch_sizes from lengths


def batch_sizes_from_lengths_cases() -> list[Case]:
    """Lengths, each with torch's own batch_sizes for them."""
    cases = []
    for label, lengths, shown in [
        (N_("the lengths 2, 5, 3"), [2, 5, 3], True),
        (N_("lengths 4, 1, 3, 3 (a tie)"), [4, 1, 3, 3], True),
        (N_("the picture's lengths 5, 4, 2, 1"), [5, 4, 2, 1], True),
        (N_("one sequence of length 1"), [1], True),
        (N_("one sequence of length 4"), [4], False),
        (N_("lengths 1, 6, 2, 6, 3, 1"), [1, 6, 2, 6, 3, 1], False),
        (N_("lengths 3, 3, 3"), [3, 3, 3], False),
    ]:
        packed = pack_sequence([torch.zeros(n) for n in lengths], enforce_sorted=False)
        cases.append(Case(label, (torch.tensor(lengths),), packed.batch_sizes, shown))
    return cases


def _count_running(lengths, steps, running):
    return torch.stack([running(lengths, t).sum() for t in steps])


def _longest(lengths):
    return range(int(lengths.max()))


check_batch_sizes_from_lengths = Exercise(
    batch_sizes_from_lengths_cases,
    [
        Mistake(
            lambda lengths: lengths,
            N_(
                "These are the lengths, one entry per sequence; batch_sizes has one entry per time step: how many "
                "sequences are still running."
            ),
            CLASSIC,
        ),
        Mistake(
            lambda lengths: lengths.sort(descending=True).values,
            N_(
                "These are the lengths sorted longest first, still one entry per sequence; batch_sizes has one "
                "entry per time step t: the number of lengths greater than t."
            ),
            CLASSIC,
        ),
        Mistake(
            lambda lengths: _count_running(lengths, range(len(lengths)), lambda n, t: n > t),
            N_("One count per sequence: batch_sizes has one entry per time step, as many as the longest length."),
            CLASSIC,
        ),
        Mistake(
            lambda lengths: _count_running(lengths, _longest(lengths), lambda n, t: n >= t),
            N_(
                "Counting lengths >= t: a sequence of length t has steps 0 to t - 1 only, so it has no element at "
                "step t."
            ),
            PICTURE,
        ),
        Mistake(
            lambda lengths: _count_running(lengths, range(1, int(lengths.max()) + 1), lambda n, t: n > t),
            N_(
                "The steps start at 1: time steps run from 0 to the longest length minus 1, and at step 0 every "
                "sequence is running."
            ),
            PICTURE,
        ),
        Mistake(
            lambda lengths: _count_running(lengths, _longest(lengths), lambda n, t: (n > t).cumprod(0)),
            N_(
                "Only the leading running sequences were counted: they form a prefix after the sort, not in your "
                "order; count every length greater than t."
            ),
            PICTURE,
        ),
        Mistake(
            lambda lengths: torch.bincount(lengths).flip(0).cumsum(0).flip(0),
            N_(
                "One entry too many: the reversed cumulative sum of bincount(lengths) counts the lengths >= t for t "
                "from 0 to the longest length; drop its entry 0 (every length is >= 0) to count the lengths > t."
            ),
            PICTURE,
        ),
        Mistake(
            lambda lengths: [int((lengths > t).sum()) for t in _longest(lengths)],
            N_(
                "The counts are right, but in a Python list: batch_sizes is an int64 tensor, so return "
                "torch.tensor(counts) or build the counts with tensor operations."
            ),
            CLASSIC,
        ),
    ],
    N_(
        "Make one entry per time step t, from 0 to the longest length minus 1: the number of sequences that have "
        "an element at step t."
    ),
)


# 2. The order of packed.data


def packed_data_cases() -> list[Case]:
    """Lists of sequences, each with torch's own packed.data. The first case is not square (B != T), so that a
    batch-first tensor packed as time-major shows there."""
    tokens = [10 * b + torch.arange(n) for b, n in enumerate([2, 5, 3])]
    words = [torch.tensor([ord(c) for c in w]) for w in ["go", "pack", "a", "rnn"]]
    rows = [
        torch.tensor([[10.0, 10.0], [20.0, 20.0]]),
        torch.arange(1.0, 6.0).repeat_interleave(2).view(5, 2),
    ]
    cases = []
    for label, sequences, shown in [
        (N_("the tokens 10 * b + t, lengths 2, 5, 3"), tokens, True),
        (N_("the words go, pack, a, rnn"), words, True),
        (N_("two-feature rows, shorter first"), rows, True),
        (N_("one sequence of length 1"), [torch.tensor([7])], True),
        (N_("one sequence of length 3"), [torch.tensor([4, 5, 6])], False),
        (
            N_("float rows of three features, lengths 1, 4, 2, 6, 3"),
            [torch.randn(n, 3) for n in [1, 4, 2, 6, 3]],
            False,
        ),
        (
            N_("the tokens 10 * b + t, lengths 3, 1, 7, 2"),
            [10 * b + torch.arange(n) for b, n in enumerate([3, 1, 7, 2])],
            False,
        ),
    ]:
        packed = pack_sequence(sequences, enforce_sorted=False)
        cases.append(Case(label, (sequences,), packed.data, shown))
    return cases


def _lengths(sequences):
    return torch.tensor([len(s) for s in sequences])


def _time_major(sequences, order):
    sequences = [sequences[i] for i in order]
    lengths = _lengths(sequences)
    valid = torch.arange(int(lengths.max()))[:, None] < lengths[None, :]
    return pad_sequence(sequences)[valid]


def _longest_first(sequences):
    return _lengths(sequences).sort(descending=True).indices.tolist()


def _batch_major(sequences):
    """Sorted right, but a batch-first tensor indexed with a B x T mask: each sequence whole."""
    sequences = [sequences[i] for i in _longest_first(sequences)]
    lengths = _lengths(sequences)
    valid = lengths[:, None] > torch.arange(int(lengths.max()))[None, :]
    return pad_sequence(sequences, batch_first=True)[valid]


def _with_pads(sequences):
    """Sorted and time-major, but every position kept, pads included."""
    padded = pad_sequence([sequences[i] for i in _longest_first(sequences)])
    return padded.flatten(0, 1)


def _packed_batch_first_as_time_major(sequences):
    padded = pad_sequence(sequences, batch_first=True)
    return pack_padded_sequence(padded, _lengths(sequences), enforce_sorted=False).data


def _sorted_batch_first_as_time_major(sequences):
    sequences = [sequences[i] for i in _longest_first(sequences)]
    padded = pad_sequence(sequences, batch_first=True)
    return pack_padded_sequence(padded, _lengths(sequences)).data


check_packed_data = Exercise(
    packed_data_cases,
    [
        Mistake(
            lambda sequences: torch.cat(sequences),
            N_(
                "This lists each sequence whole, one after the other; data is time-major: step 0 of every "
                "sequence, then step 1, and so on."
            ),
            CLASSIC,
        ),
        Mistake(
            _batch_major,
            N_(
                "Sorted right, but batch-major: a mask on a batch-first (B x T) tensor reads it sequence by "
                "sequence. Pad time-major (T x B) and index it with a T x B mask, which reads step by step."
            ),
            FROM_SCRATCH,
        ),
        Mistake(
            _with_pads,
            N_(
                "The pads are in it: data holds only the real elements. Keep them with a T x B mask, "
                "steps[:, None] < lengths[None, :], instead of flattening the padded tensor."
            ),
            FROM_SCRATCH,
        ),
        Mistake(
            lambda sequences: pack_sequence(sequences).data,
            N_(
                "pack_sequence with the default enforce_sorted=True refuses lengths that are not in decreasing "
                "order: pass enforce_sorted=False."
            ),
            PITFALL_UNSORTED,
            raises=True,
        ),
        Mistake(
            lambda sequences: _time_major(sequences, range(len(sequences))),
            N_(
                "Time-major, but in your order: packing first sorts the sequences longest first, so each step "
                "starts with the longest."
            ),
            SORTING,
        ),
        Mistake(
            lambda sequences: _time_major(sequences, _lengths(sequences).sort().indices.tolist()),
            N_("Sorted shortest first: packing sorts the sequences longest first (in decreasing order of length)."),
            SORTING,
        ),
        Mistake(
            _packed_batch_first_as_time_major,
            N_(
                "A batch-first (B x T) tensor packed without batch_first=True is read as time-major, so the data "
                "comes from the wrong axis and nothing is raised. Pass batch_first=True (or pad time-major)."
            ),
            PITFALL_LAYOUT,
        ),
        Mistake(
            _sorted_batch_first_as_time_major,
            N_(
                "This error comes from packing a batch-first (B x T) tensor without batch_first=True: torch reads "
                "T as the batch size. Pass batch_first=True (or pad time-major)."
            ),
            PITFALL_LAYOUT,
            raises=True,
        ),
    ],
    N_(
        "Sort the sequences longest first, pad them time-major, and index the padded tensor with a T x B mask of "
        "the real elements."
    ),
)


# 3. The last rows in packed.data


def last_rows_cases() -> list[Case]:
    """Packed batches whose elements are their own address, each with the rows that hold the last element of every
    sequence."""
    cases = []
    for label, lengths, enforce_sorted, shown in [
        (N_("the lengths 2, 5, 3"), [2, 5, 3], False, True),
        (N_("lengths 3, 7, 1, 5, 5"), [3, 7, 1, 5, 5], False, True),
        (N_("lengths 4, 2, 1 with enforce_sorted=True (no index fields)"), [4, 2, 1], True, True),
        (N_("one sequence of length 1"), [1], False, True),
        (N_("one sequence of length 4, enforce_sorted=True"), [4], True, False),
        (N_("lengths 6, 6, 3, 1 with enforce_sorted=True"), [6, 6, 3, 1], True, False),
        (N_("lengths 1, 4, 6, 2, 4, 3"), [1, 4, 6, 2, 4, 3], False, False),
    ]:
        tokens = [100 * b + torch.arange(n) for b, n in enumerate(lengths)]
        packed = pack_sequence(tokens, enforce_sorted=enforce_sorted)
        last = torch.tensor([100 * b + n - 1 for b, n in enumerate(lengths)])
        rows = (packed.data[:, None] == last[None, :]).int().argmax(dim=0)
        cases.append(Case(label, (packed,), rows, shown))
    return cases


def _step_starts(packed):
    return packed.batch_sizes.cumsum(0) - packed.batch_sizes


def _slots(packed):
    return torch.arange(int(packed.batch_sizes[0]))


def _sorted_lengths(packed):
    return (packed.batch_sizes[None, :] > _slots(packed)[:, None]).sum(dim=1)


def _sorted_rows(packed):
    return _step_starts(packed)[_sorted_lengths(packed) - 1] + _slots(packed)


def _in_your_order(packed, rows):
    return rows if packed.unsorted_indices is None else rows[packed.unsorted_indices]


check_last_rows = Exercise(
    last_rows_cases,
    [
        Mistake(
            lambda packed: _sorted_rows(packed)[packed.unsorted_indices],
            N_(
                "unsorted_indices is None when nothing was sorted (a batch packed with enforce_sorted=True), and "
                "rows[None] adds a dimension instead of reordering: index with it only when it is not None."
            ),
            SORTING,
        ),
        Mistake(
            lambda packed: pad_packed_sequence(packed)[1].cumsum(0) - 1,
            N_(
                "cumsum(lengths) - 1 is where each sequence would end if data held the sequences one after the "
                "other; data is time-major."
            ),
            PICTURE,
        ),
        Mistake(
            _sorted_rows,
            N_("These rows are in sorted order (longest first): put them back in your order with unsorted_indices."),
            SORTING,
        ),
        Mistake(
            lambda packed: _sorted_rows(packed)[packed.sorted_indices],
            N_(
                "sorted_indices goes from your order to the sorted one; to come back to your order, index with "
                "unsorted_indices."
            ),
            SORTING,
        ),
        Mistake(
            lambda packed: _in_your_order(packed, _step_starts(packed)[_sorted_lengths(packed) - 1]),
            N_(
                "This is the first row of each sequence's last step, not the sequence's own row: within a step, "
                "sorted slot b is row b, so add the slot."
            ),
            PICTURE,
        ),
        Mistake(
            lambda packed: _in_your_order(packed, _step_starts(packed)[_sorted_lengths(packed)] + _slots(packed)),
            N_(
                "Off by one past the end: a sequence of length n has its last element at step n - 1, so use "
                "lengths - 1 to index the step starts."
            ),
            PICTURE,
            raises=True,
        ),
        Mistake(
            lambda packed: _step_starts(packed)[pad_packed_sequence(packed)[1] - 1] + _slots(packed),
            N_(
                "The lengths of pad_packed_sequence are in your order, but the row within a step is the sorted "
                "slot: work with the sorted lengths (read them off batch_sizes), then undo the sort."
            ),
            SORTING,
        ),
    ],
    N_(
        "Step t starts at batch_sizes[:t].sum(), and sorted slot b is row b within the step; sorted slot b is as "
        "long as the number of steps with more than b sequences. Then undo the sort."
    ),
)
