"""The exercise check of deep dive 12: unpack a packed batch with the pads on the left."""

import torch
from torch.nn.utils.rnn import pack_sequence, pad_packed_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

__all__ = ["check_unpack_left"]

PAGE = "12_deep_dive_packing_from_scratch"
LEFT = f"{PAGE}#left-padding-a-silent-pitfall"
PIECES = f"{PAGE}#pieces-of-a-split-batch-that-do-not-fit-back-together"
BY_HAND = f"{PAGE}#sorting-by-hand-the-old-way"
FROM_SCRATCH = f"{PAGE}#packing-from-scratch-refusing-what-torch-refuses"


def _left_by_loop(packed, total_length):
    padded, lengths = pad_packed_sequence(packed, batch_first=True)
    left = padded.new_zeros(len(lengths), total_length, *padded.shape[2:])
    for b, n in enumerate(lengths.tolist()):
        left[b, total_length - n :] = padded[b, :n]
    return left


def unpack_left_cases() -> list[Case]:
    """Packed batches, each with its left-padded batch built by a loop."""
    cases = []
    for label, lengths, total_length, features, dtype, enforce_sorted, shown in [
        (N_("lengths 2, 5, 3, total_length 7, two features"), [2, 5, 3], 7, (2,), torch.float32, False, True),
        (N_("lengths 3, 1, 4, total_length 4 (the longest)"), [3, 1, 4], 4, (), torch.float32, False, True),
        (N_("lengths 4, 2, 1 packed with enforce_sorted=True"), [4, 2, 1], 6, (), torch.float32, True, True),
        (N_("float64, lengths 1, 3"), [1, 3], 5, (3,), torch.float64, False, True),
        (N_("one sequence of length 2, total_length 5"), [2], 5, (), torch.float32, False, True),
        (N_("int64 tokens, lengths 3, 5, 2, 5, total_length 6"), [3, 5, 2, 5], 6, (), torch.int64, False, False),
        (
            N_("lengths 3, 3, 1 packed with enforce_sorted=True, total_length 5"),
            [3, 3, 1],
            5,
            (2,),
            torch.float32,
            True,
            False,
        ),
        (N_("one sequence of length 4, total_length 4"), [4], 4, (3,), torch.float64, True, False),
    ]:
        if dtype == torch.int64:
            sequences = [torch.randint(1, 100, (n, *features)) for n in lengths]
        else:
            sequences = [torch.randn(n, *features, dtype=dtype) for n in lengths]
        packed = pack_sequence(sequences, enforce_sorted=enforce_sorted)
        cases.append(Case(label, (packed, total_length), _left_by_loop(packed, total_length), shown))
    return cases


def _right_padded(packed, total_length):
    return pad_packed_sequence(packed, batch_first=True, total_length=total_length)[0]


def _from_scratch(packed, total_length, unsort):
    """Left-padded rows built from data and batch_sizes by hand, in sorted order; `unsort` puts them back."""
    sorted_rows = _left_by_loop(packed, total_length)
    if packed.sorted_indices is not None:
        sorted_rows = sorted_rows[packed.sorted_indices]
    return unsort(sorted_rows, packed.unsorted_indices)


check_unpack_left = Exercise(
    unpack_left_cases,
    [
        Mistake(
            _right_padded,
            N_(
                "The pads are on the right, where pad_packed_sequence puts them; here every sequence must end in "
                "the last column."
            ),
            LEFT,
        ),
        Mistake(
            lambda packed, total_length: _right_padded(packed, total_length).flip(1),
            N_(
                "Flipping the row moves the pads to the left but also reverses the sequence: its steps come out "
                "last to first."
            ),
            LEFT,
        ),
        Mistake(
            lambda packed, total_length: _left_by_loop(packed, len(packed.batch_sizes)),
            N_(
                "total_length was ignored: the batch is padded only to its longest sequence, so it no longer fits "
                "a batch of that length."
            ),
            PIECES,
        ),
        Mistake(
            lambda packed, total_length: _from_scratch(packed, total_length, lambda rows, unsorted: rows),
            N_(
                "The rows are in sorted order (longest first): undo the sort with unsorted_indices to give them "
                "back in your order."
            ),
            BY_HAND,
        ),
        Mistake(
            lambda packed, total_length: _from_scratch(packed, total_length, lambda rows, unsorted: rows[unsorted]),
            N_(
                "unsorted_indices is None when the batch was packed with enforce_sorted=True, and rows[None] adds "
                "a dimension: undo the sort only when unsorted_indices is not None."
            ),
            FROM_SCRATCH,
        ),
        Mistake(
            lambda packed, total_length: _left_by_loop(packed, total_length).transpose(0, 1),
            N_(
                "It is time-major (total_length x B): pad_packed_sequence gives T x B unless you pass "
                "batch_first=True, and the question asks for B x total_length."
            ),
            LEFT,
        ),
        Mistake(
            lambda packed, total_length: _left_by_loop(packed, total_length).float(),
            N_(
                "torch.zeros(...) makes float32 zeros whatever the data's dtype: build the result with "
                "packed.data.new_zeros(...) (or pass dtype=packed.data.dtype) so it keeps the data's dtype."
            ),
            LEFT,
        ),
    ],
    N_(
        "Unpack with total_length as usual, then move each row's real steps to its end: a sequence of length n "
        "starts at column total_length - n."
    ),
)
