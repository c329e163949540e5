"""The exercise checks of chapter 01: the efficiency of one padded batch, the mask of its real steps, and the pads
left after bucketing.

Each check tries the listed cases and hidden ones (other lengths, unsorted, a batch of one, a last batch that is
smaller and holds pads), so that an answer written for the printed cases fails.
"""

import numpy as np
import torch

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

PAGE = "01_why_padding_wastes_compute#"  # where the mistakes are taught


def _python_int(answer: object) -> object:
    """A NumPy integer (what chapter 1's split_into_batches gives) read as the Python int it stands for."""
    return int(answer) if isinstance(answer, np.integer) else answer


def batch_efficiency_cases() -> list:
    """Lengths of one batch, with hand-checked real / padded tokens."""
    return [
        Case(N_("the chapter's lengths 4, 6, 8, 5, 4, 3, 7, 8"), (torch.tensor([4, 6, 8, 5, 4, 3, 7, 8]),), 45 / 64),
        Case(N_("lengths 12, 3, 7, 7, 30, 5 (the longest not first)"), (torch.tensor([12, 3, 7, 7, 30, 5]),), 64 / 180),
        Case(N_("a batch of one"), (torch.tensor([5]),), 1.0),
        # 2 + 9 + 9 + 1 = 21 real of 4 × 9 = 36
        Case(N_("lengths 2, 9, 9, 1"), (torch.tensor([2, 9, 9, 1]),), 21 / 36, shown=False),
        Case(N_("lengths 100, 1"), (torch.tensor([100, 1]),), 101 / 200, shown=False),
        Case(N_("equal lengths"), (torch.tensor([7, 7, 7]),), 1.0, shown=False),
    ]


check_batch_efficiency = Exercise(
    batch_efficiency_cases,
    [
        Mistake(
            lambda lengths: (lengths.sum() / lengths.max()).item(),
            N_("Divided by the longest length alone: the padded batch holds batch size × longest length steps."),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths: 1 - (lengths.sum() / lengths.max()).item() / len(lengths),
            N_("That is the share of pads: efficiency counts the real tokens."),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
        Mistake(
            lambda lengths: int(lengths.sum()) // (len(lengths) * int(lengths.max())),
            N_("Integer division (//) rounds the share down to 0: divide with /."),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths: lengths.sum() / (len(lengths) * lengths.max()),
            N_("It returned a 0-d tensor: turn it into a Python float with .item() or float()."),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths: int(lengths.sum()) / (len(lengths) * int(lengths[0])),
            N_(
                "The first length was taken as the longest: the lengths are not sorted, so find the longest with "
                "lengths.max()."
            ),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
        Mistake(
            lambda lengths: len(lengths) * int(lengths.max()) / int(lengths.sum()),
            N_(
                "The share is upside down: that is padded tokens / real tokens, which is at least 1. Efficiency is "
                "real tokens / padded tokens."
            ),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths: (len(lengths) * int(lengths.max()) - int(lengths.sum())) / int(lengths.sum()),
            N_(
                "That is pads per real token: efficiency is real tokens / padded tokens, where padded tokens "
                "count the real ones and the pads."
            ),
            PAGE + "padding-efficiency",
        ),
    ],
    N_(
        "Real tokens are the sum of the lengths; the padded batch has one row per sequence, "
        "each as long as the longest."
    ),
)


def real_step_mask_cases() -> list:
    """Lengths and a number of steps, with a mask built by a slow loop."""
    cases = []
    for label, lengths, steps, shown in [
        (N_("the chapter's lengths, 8 steps"), [4, 6, 8, 5, 4, 3, 7, 8], 8, True),
        (N_("lengths 3, 1, 5 padded to 7 steps"), [3, 1, 5], 7, True),
        (N_("a batch of one"), [2], 4, True),
        (N_("lengths 6, 2, 2, 4 padded to 6 steps"), [6, 2, 2, 4], 6, False),
        (N_("lengths 1, 1 padded to 3 steps"), [1, 1], 3, False),
        (N_("a batch of one without pads"), [5], 5, False),
    ]:
        loop = [[t < n for t in range(steps)] for n in lengths]
        cases.append(Case(label, (torch.tensor(lengths), steps), torch.tensor(loop), shown))
    return cases


check_real_step_mask = Exercise(
    real_step_mask_cases,
    [
        Mistake(
            lambda lengths, steps: torch.arange(steps) <= lengths[:, None],
            N_(
                "With <= each row gets one step too many: the steps of a sequence of length L are 0 to L - 1, so "
                "compare with <."
            ),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
        Mistake(
            lambda lengths, steps: torch.arange(steps)[:, None] < lengths,
            N_("The mask is transposed: rows are sequences and columns are time steps, (batch, steps)."),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
        Mistake(
            lambda lengths, steps: torch.arange(steps) >= lengths[:, None],
            N_("The mask is inverted: True must mark the real steps, not the pads."),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
        Mistake(
            lambda lengths, steps: (torch.arange(steps) < lengths[:, None]).long(),
            N_(
                "A mask of 0s and 1s is not a boolean mask: indexing with it picks rows 0 and 1 instead of "
                "selecting, so keep dtype bool."
            ),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
        Mistake(
            lambda lengths, steps: torch.arange(int(lengths.max())) < lengths[:, None],
            N_("The mask stops at the longest length: it must have `steps` columns, as many as the padded tensor."),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
        Mistake(
            lambda lengths, steps: torch.arange(steps) < lengths,
            N_(
                "The lengths were compared as a row, element by element: make them a column, lengths[:, None], so "
                "that broadcasting gives one row of steps per sequence."
            ),
            PAGE + "count-1-time-steps-in-a-padded-batch",
        ),
    ],
    N_("Compare a row of time indices (torch.arange) with a column of lengths; broadcasting gives the whole grid."),
)


def bucketed_pad_tokens_cases() -> list:
    """Lengths and a batch size, with pads counted by hand."""
    return [
        # sorted 3 4 4 | 5 6 7 | 8 8: pads 1 + 3 + 0
        Case(N_("the chapter's lengths, batches of 3"), (torch.tensor([4, 6, 8, 5, 4, 3, 7, 8]), 3), 4),
        # sorted 3 5 | 7 7 | 12 30: pads 2 + 0 + 18
        Case(N_("lengths 12, 3, 7, 7, 30, 5, batches of 2"), (torch.tensor([12, 3, 7, 7, 30, 5]), 2), 20),
        Case(N_("batches of one"), (torch.tensor([5, 1, 9]), 1), 0),
        # sorted 1 2 3 | 5 9: pads 2 + 1 + 0, then 4 in the last, smaller batch
        Case(
            N_("lengths 5, 1, 9, 3, 2, batches of 3 (the last batch smaller, with pads)"),
            (torch.tensor([5, 1, 9, 3, 2]), 3),
            7,
        ),
        Case(N_("a batch of one sequence"), (torch.tensor([7]), 4), 0),
        # sorted 2 2 6 | 6 8 10 | 11: pads 4 + 4 + 0, 4 + 2 + 0, 0
        Case(
            N_("lengths 6, 2, 11, 8, 2, 10, 6, batches of 3"),
            (torch.tensor([6, 2, 11, 8, 2, 10, 6]), 3),
            14,
            shown=False,
        ),
        # sorted 1 4 4 20 | 21 33: pads 19 + 16 + 16 + 0, then 12
        Case(
            N_("lengths 20, 4, 33, 1, 21, 4, batches of 4"), (torch.tensor([20, 4, 33, 1, 21, 4]), 4), 63, shown=False
        ),
        Case(N_("all in one batch"), (torch.tensor([3, 8, 5]), 10), 8, shown=False),
    ]


def _pads(batches: list) -> int:
    return sum(len(b) * int(b.max()) - int(b.sum()) for b in batches)


def _full_batches(lengths: torch.Tensor, size: int) -> list:
    """The sorted batches without the last one when it is smaller (what drop_last=True keeps)."""
    ordered = lengths.sort().values
    return list(ordered[: len(ordered) // size * size].split(size))


check_bucketed_pad_tokens = Exercise(
    bucketed_pad_tokens_cases,
    [
        Mistake(
            lambda lengths, size: _pads(lengths.split(size)),
            N_(
                "The batches were cut without sorting first: these are the pads of random batches, not of "
                "length buckets."
            ),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths, size: _pads(lengths.sort(descending=True).values.split(size)),
            N_(
                "Sorted longest first: sort shortest first, as split_into_batches does, so the last, smaller "
                "batch holds the longest sequences."
            ),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths, size: len(lengths) * int(lengths.max()) - int(lengths.sum()),
            N_(
                "Every batch was padded to the longest sequence of the whole dataset: a batch pads only to its "
                "own longest sequence."
            ),
            PAGE + "why-long-tails-and-large-batches-waste-the-most",
        ),
        Mistake(
            lambda lengths, size: sum(len(b) * int(b.max()) for b in lengths.sort().values.split(size)),
            N_("That counts every padded slot, real tokens included: subtract the real tokens to get the pads."),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths, size: sum(size * int(b.max()) - int(b.sum()) for b in lengths.sort().values.split(size)),
            N_("The last batch was counted with batch_size rows: when the lengths do not divide evenly it is smaller."),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths, size: _pads(_full_batches(lengths, size)),
            N_(
                "The last, smaller batch was dropped: it is padded too, so count its pads (split() and "
                "split_into_batches keep it)."
            ),
            PAGE + "padding-efficiency",
        ),
        Mistake(
            lambda lengths, size: sum(len(b) * b.max() - b.sum() for b in lengths.sort().values.split(size)),
            N_("It returned a 0-d tensor: turn the count into a Python int with int() or .item()."),
            PAGE + "padding-efficiency",
        ),
    ],
    N_("Sort first, cut into consecutive batches, and count each batch's pads against its own longest sequence."),
    normalize=_python_int,
)
