"""The exercise checks of deep dive 11: the padded tokens of an epoch, and the FLOPs a padded batch wastes.

Each check tries the listed cases and hidden ones (other lengths, unsorted, a batch of one, a last batch that is
smaller), so that an answer written for the printed cases fails.
"""

import functools

import numpy as np
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from padpack.checks import Case, Exercise, Mistake
from padpack.course.lengths import sample_lengths, split_into_batches
from padpack.i18n import N_

PAGE = "11_deep_dive_cost_of_padding#"  # where the mistakes are taught


def _python_int(answer: object) -> object:
    """A NumPy integer (what chapter 1's split_into_batches gives) read as the Python int it stands for."""
    return int(answer) if isinstance(answer, np.integer) else answer


def epoch_padded_tokens_cases() -> list:
    """Lengths, batch size and sorting, with padded tokens counted by hand or with chapter 1's split_into_batches."""
    chapter = torch.tensor([4, 6, 8, 5, 4, 3, 7, 8])
    long_tailed = sample_lengths("long-tailed", 256, np.random.default_rng(1))
    batches = split_into_batches(long_tailed, 16, bucketed=True)
    uneven = sample_lengths("uniform", 50, np.random.default_rng(2))
    uneven_batches = split_into_batches(uneven, 8, bucketed=False)
    return [
        # 4 6 8 | 5 4 3 | 7 8: 3 × 8 + 3 × 5 + 2 × 8
        Case(N_("chapter 1's lengths, random batches of 3"), (chapter, 3, False), 55),
        # 3 4 4 | 5 6 7 | 8 8: 3 × 4 + 3 × 7 + 2 × 8
        Case(N_("chapter 1's lengths, bucketed batches of 3"), (chapter, 3, True), 49),
        Case(
            N_("256 long-tailed lengths, bucketed batches of 16"),
            (torch.as_tensor(long_tailed), 16, True),
            sum(len(batch) * int(batch.max()) for batch in batches),
        ),
        Case(N_("a batch of one sequence"), (torch.tensor([9]), 4, True), 9),
        # 1 2 3 | 5 9 (sorted), 5 1 9 | 3 2 (not): 3 × 3 + 2 × 9 and 3 × 9 + 2 × 3
        Case(N_("lengths 5, 1, 9, 3, 2, bucketed batches of 3"), (torch.tensor([5, 1, 9, 3, 2]), 3, True), 27, False),
        Case(N_("lengths 5, 1, 9, 3, 2, random batches of 3"), (torch.tensor([5, 1, 9, 3, 2]), 3, False), 33, False),
        Case(
            N_("50 uniform lengths, random batches of 8"),
            (torch.as_tensor(uneven), 8, False),
            sum(len(batch) * int(batch.max()) for batch in uneven_batches),
            False,
        ),
    ]


def _padded(lengths: torch.Tensor, size: int, bucketed: bool) -> list:
    ordered = lengths.sort().values if bucketed else lengths
    return ordered.split(size)


check_epoch_padded_tokens = Exercise(
    epoch_padded_tokens_cases,
    [
        Mistake(
            lambda lengths, size, bucketed: sum(len(b) * int(b.max()) for b in lengths.split(size)),
            N_("The lengths were not sorted when bucketed is True: bucketed batches are cut after sorting by length."),
            PAGE + "measure-it-on-your-machine",
        ),
        Mistake(
            lambda lengths, size, bucketed: sum(len(b) * int(b.max()) for b in lengths.sort().values.split(size)),
            N_(
                "The lengths were sorted when bucketed is False: random batches keep the order they are given, "
                "so sort only if bucketed."
            ),
            PAGE + "measure-it-on-your-machine",
        ),
        Mistake(
            lambda lengths, size, bucketed: int(lengths.sum()),
            N_("That is the real tokens only: a padded batch computes batch size × longest length steps."),
            PAGE + "multiplications-against-a-weight-matrix",
        ),
        Mistake(
            lambda lengths, size, bucketed: sum(
                len(b) * int(b.max()) - int(b.sum()) for b in _padded(lengths, size, bucketed)
            ),
            N_("That counts the pads only: the padded tokens are the real tokens and the pads together."),
            PAGE + "multiplications-against-a-weight-matrix",
        ),
        Mistake(
            lambda lengths, size, bucketed: len(lengths) * int(lengths.max()),
            N_(
                "Every batch was padded to the longest sequence of the whole epoch: a batch pads only to its own "
                "longest sequence."
            ),
            PAGE + "measure-it-on-your-machine",
        ),
        Mistake(
            lambda lengths, size, bucketed: sum(size * int(b.max()) for b in _padded(lengths, size, bucketed)),
            N_("The last batch was counted with batch_size rows: when the lengths do not divide evenly it is smaller."),
            PAGE + "measure-it-on-your-machine",
        ),
        Mistake(
            lambda lengths, size, bucketed: sum(
                len(b) * int(b.max())
                for b in (lengths.sort(descending=True).values if bucketed else lengths).split(size)
            ),
            N_(
                "Sorted longest first: then the last, smaller batch holds the shortest sequences and the full "
                "batches the longest. Sort shortest first, as split_into_batches does."
            ),
            PAGE + "measure-it-on-your-machine",
        ),
        Mistake(
            lambda lengths, size, bucketed: sum(len(b) * b.max() for b in _padded(lengths, size, bucketed)),
            N_("It returned a 0-d tensor: turn the count into a Python int with int() or .item()."),
            PAGE + "measure-it-on-your-machine",
        ),
    ],
    N_("Sort only if bucketed, cut into consecutive batches, and add up rows × longest length of each batch."),
    normalize=_python_int,
)

_CELLS = {"RNN": nn.RNNCell, "GRU": nn.GRUCell, "LSTM": nn.LSTMCell}
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def wasted_flops_cases() -> list:
    """Cells and batches, with the FLOPs that FlopCounterMode counts when a one-step cell runs one row per pad
    token."""
    cases = []
    for label, cell, sizes, lengths, shown in [
        (N_("a GRU 300 → 512, lengths 40, 12, 25, 8"), "GRU", (300, 512), [40, 12, 25, 8], True),
        (N_("an LSTM 32 → 64, chapter 1's lengths"), "LSTM", (32, 64), [4, 6, 8, 5, 4, 3, 7, 8], True),
        (N_("an RNN 16 → 8, lengths 3, 1, 5"), "RNN", (16, 8), [3, 1, 5], True),
        (N_("no pads"), "LSTM", (8, 4), [5, 5], True),
        (N_("a batch of one sequence"), "GRU", (8, 4), [6], True),
        (N_("an LSTM 20 → 10, lengths 2, 7, 7, 1"), "LSTM", (20, 10), [2, 7, 7, 1], False),
        (N_("a GRU 5 → 6, lengths 9, 4, 1"), "GRU", (5, 6), [9, 4, 1], False),
        (N_("an RNN 12 → 30, lengths 2, 11"), "RNN", (12, 30), [2, 11], False),
    ]:
        pads = len(lengths) * max(lengths) - sum(lengths)
        cases.append(Case(label, (cell, *sizes, torch.tensor(lengths)), _counted_flops(cell, *sizes, pads), shown))
    return cases


@functools.cache
def _counted_flops(cell: str, input_size: int, hidden_size: int, pads: int) -> int:
    """The FLOPs that FlopCounterMode counts for a one-step cell on `pads` rows (counted once, then remembered)."""
    if not pads:
        return 0
    with torch.random.fork_rng(devices=[]), FlopCounterMode(display=False) as counter:
        _CELLS[cell](input_size, hidden_size)(torch.zeros(pads, input_size))
    return counter.get_total_flops()


def _pad_tokens(lengths: torch.Tensor) -> int:
    return len(lengths) * int(lengths.max()) - int(lengths.sum())


check_wasted_flops = Exercise(
    wasted_flops_cases,
    [
        Mistake(
            lambda cell, i, h, lengths: 2 * h * (i + h) * _pad_tokens(lengths),
            N_("The gates are missing: each step multiplies by W_ih and W_hh once per gate (GRU 3, LSTM 4)."),
            PAGE + "from-tokens-to-flops",
        ),
        Mistake(
            lambda cell, i, h, lengths: 8 * h * (i + h) * _pad_tokens(lengths),
            N_("Four gates are the LSTM's: the GRU has 3 and the plain RNN 1."),
            PAGE + "from-tokens-to-flops",
        ),
        Mistake(
            lambda cell, i, h, lengths: 2 * _GATES[cell] * h * (i + h) * len(lengths) * int(lengths.max()),
            N_("That counts every padded step, real ones included: only the pad steps are wasted."),
            PAGE + "from-tokens-to-flops",
        ),
        Mistake(
            lambda cell, i, h, lengths: _GATES[cell] * h * (i + h) * _pad_tokens(lengths),
            N_("That is multiply-adds: each multiply-add is 2 FLOPs."),
            PAGE + "from-tokens-to-flops",
        ),
        Mistake(
            lambda cell, i, h, lengths: 2 * _GATES[cell] * h * i * _pad_tokens(lengths),
            N_(
                "The recurrent term is missing: a pad step still multiplies the previous state by W_hh, H × H per gate."
            ),
            PAGE + "multiplications-against-a-weight-matrix",
        ),
        Mistake(
            lambda cell, i, h, lengths: 2 * _GATES[cell] * h * (i + h) * (len(lengths) * lengths.max() - lengths.sum()),
            N_("It returned a 0-d tensor: turn the count into a Python int with int() or .item()."),
            PAGE + "from-tokens-to-flops",
        ),
        Mistake(
            lambda cell, i, h, lengths: 2 * {"GRU": 3, "LSTM": 4}[cell] * h * (i + h) * _pad_tokens(lengths),
            N_(
                "The plain RNN is missing from the gates: it has one, a single tanh(W_ih x + W_hh h), so its "
                "gates are 1 (GRU 3, LSTM 4)."
            ),
            PAGE + "from-tokens-to-flops",
            raises=True,
        ),
        Mistake(
            lambda cell, i, h, lengths: 2 * _GATES[cell] * h * (i + h) * int(lengths.max() - lengths.min()),
            N_(
                "That counts the pads of the shortest sequence only: every sequence shorter than the longest "
                "has pads; add them all, batch size × longest length − the sum of the lengths."
            ),
            PAGE + "from-tokens-to-flops",
        ),
    ],
    N_(
        "Count the pad tokens first, then multiply by the matrix-product FLOPs of one step: one multiply-add per "
        "weight of weight_ih_l0 and weight_hh_l0."
    ),
    normalize=_python_int,
)
