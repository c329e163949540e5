"""The exercise checks of chapter 3: the last valid step of a time-major output, left padding, and an LSTMCell
loop that freezes the state at the pads."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

PAGE = "03_lstm_hidden_state_extraction"
LAST_STEP = f"{PAGE}#index-the-padded-output-at-lengths-1"
LEFT_PAD = "04_bidirectional_pitfalls#pitfall-5-left-padding-does-not-rescue-an-unpacked-bidirectional-rnn"


# Exercise 1: last_valid_time_major


def last_valid_time_major_cases() -> list:
    """Time-major LSTM outputs, each with the packed run's h_n[-1]."""
    cases = []
    for label, lengths, steps, layers, dtype, shown in [
        (N_("the chapter's lengths 5, 2, 7, 3"), [5, 2, 7, 3], 7, 1, torch.float32, True),
        (N_("a length of 1"), [3, 1, 4], 4, 1, torch.float32, True),
        (N_("two layers"), [2, 6, 4], 6, 2, torch.float32, True),
        (N_("float64"), [4, 2, 5], 5, 1, torch.float64, True),
        (N_("a batch of one, padded to 5 steps"), [3], 5, 1, torch.float32, True),
        (N_("a last batch of two, padded to 6 steps"), [2, 4], 6, 2, torch.float32, False),
        (N_("lengths 6, 1, 3, 6, 2, two layers"), [6, 1, 3, 6, 2], 6, 2, torch.float32, False),
    ]:
        lstm = nn.LSTM(3, 4, num_layers=layers, dtype=dtype)
        lengths = torch.tensor(lengths)
        padded = torch.randn(steps, len(lengths), 3, dtype=dtype)
        with torch.no_grad():
            output, _ = lstm(padded)
            packed = pack_padded_sequence(padded, lengths, enforce_sorted=False)
            _, (h_n, _) = lstm(packed)
        cases.append(Case(label, (output, lengths), h_n[-1], shown))
    return cases


def _gather_time_major(output, lengths):
    index = (lengths - 1).view(1, -1, 1).expand(1, -1, output.shape[2])
    return output.gather(0, index)


check_last_valid_time_major = Exercise(
    last_valid_time_major_cases,
    [
        Mistake(
            lambda output, lengths: output[-1],
            N_("output[-1] is the last padded step: for every sequence shorter than the longest, that step is a pad."),
            f"{PAGE}#why-output-1-is-wrong",
        ),
        Mistake(
            lambda output, lengths: output[:, -1],
            N_(
                "output[:, -1] indexes as if the batch came first; with batch_first=False the output is "
                "(time, batch, hidden)."
            ),
            f"{PAGE}#what-an-lstm-returns",
        ),
        Mistake(
            lambda output, lengths: output[torch.arange(len(lengths)), lengths - 1],
            N_(
                "This is the batch-first gather, output[torch.arange(B), lengths - 1], on a time-major output: "
                "here the time index comes first, output[lengths - 1, torch.arange(B)]."
            ),
            f"{PAGE}#what-an-lstm-returns",
            raises=True,
        ),
        Mistake(
            lambda output, lengths: output[lengths, torch.arange(output.shape[1])],
            N_(
                "Off by one: the last real step of a sequence of length L is at index L - 1, so index with lengths - 1."
            ),
            LAST_STEP,
            raises=True,
        ),
        Mistake(
            lambda output, lengths: output[lengths - 1],
            N_(
                "output[lengths - 1] takes whole time steps, one per sequence: pair each step with its "
                "sequence's batch index."
            ),
            LAST_STEP,
        ),
        Mistake(
            lambda output, lengths: _gather_time_major(output, lengths).squeeze(),
            N_(
                "squeeze() drops every axis of size 1, the batch axis too when the batch holds one sequence: "
                "squeeze(0) drops the time axis alone."
            ),
            LAST_STEP,
        ),
        Mistake(
            lambda output, lengths: output.gather(0, (lengths - 1).view(1, -1, 1)).squeeze(0),
            N_(
                "gather's index must cover every hidden feature: expand it to (1, batch, hidden) before gathering, "
                "or gather keeps feature 0 alone."
            ),
            LAST_STEP,
        ),
    ],
    N_(
        "The time index comes first now. Build one time index per sequence (lengths - 1) and one batch index "
        "(torch.arange), and index output with both at once."
    ),
)


# Exercise 2: left_pad


def left_pad_cases() -> list:
    """Sequences, each batch filled in by hand, pads first."""
    cases = []
    for label, lengths, features, dtype, shown in [
        (N_("the chapter's lengths 5, 2, 7, 3"), [5, 2, 7, 3], 2, torch.float32, True),
        (N_("a length of 1"), [1, 3], 2, torch.float32, True),
        (N_("the longest first, 3 features, float64"), [4, 2, 3], 3, torch.float64, True),
        (N_("a batch of one sequence"), [3], 2, torch.float32, True),
        (N_("lengths 2, 6, 6, 1, 4 features"), [2, 6, 6, 1], 4, torch.float32, False),
        (N_("lengths 3, 5, float64"), [3, 5], 1, torch.float64, False),
    ]:
        sequences = [torch.randn(n, features, dtype=dtype) for n in lengths]
        want = torch.zeros(len(lengths), max(lengths), features, dtype=dtype)
        for i, sequence in enumerate(sequences):
            for t in range(len(sequence)):
                want[i, max(lengths) - len(sequence) + t] = sequence[t]
        cases.append(Case(label, (sequences,), want, shown))
    return cases


def _pad_features(sequences):
    steps = max(len(sequence) for sequence in sequences)
    return torch.stack([F.pad(sequence, (steps - len(sequence), 0)) for sequence in sequences])


def _float32_batch(sequences):
    steps = max(len(sequence) for sequence in sequences)
    batch = torch.zeros(len(sequences), steps, sequences[0].shape[-1])
    for i, sequence in enumerate(sequences):
        batch[i, steps - len(sequence) :] = sequence
    return batch


check_left_pad = Exercise(
    left_pad_cases,
    [
        Mistake(
            lambda sequences: pad_sequence(sequences, batch_first=True),
            N_("pad_sequence pads on the right, after each sequence; here the pads must come before it."),
            f"{PAGE}#the-classic-experiment-padded-vs-packed",
        ),
        Mistake(
            lambda sequences: pad_sequence(sequences, batch_first=True).flip(1),
            N_(
                "Flipping the right-padded batch puts the pads first but also reverses every sequence: flip each "
                "sequence, pad, then flip back."
            ),
            LEFT_PAD,
        ),
        Mistake(
            lambda sequences: pad_sequence([sequence.flip(0) for sequence in sequences], batch_first=True),
            N_(
                "The sequences were flipped but the padded batch was not flipped back, so the pads still come last "
                "and every sequence runs backwards."
            ),
            LEFT_PAD,
        ),
        Mistake(
            lambda sequences: pad_sequence([sequence.flip(0) for sequence in sequences]).flip(0),
            N_("pad_sequence returns (time, batch, features) unless batch_first=True."),
            f"{PAGE}#what-an-lstm-returns",
        ),
        Mistake(
            _pad_features,
            N_(
                "F.pad reads its pairs from the last axis: (T - n, 0) pads the features. Pad the time axis with "
                "(0, 0, T - n, 0)."
            ),
            f"{PAGE}#the-classic-experiment-padded-vs-packed",
            raises=True,
        ),
        Mistake(
            _float32_batch,
            N_(
                "The batch is float32 whatever the sequences are: build it with the sequences' dtype "
                "(sequences[0].new_zeros(...) or dtype=sequences[0].dtype)."
            ),
            f"{PAGE}#the-classic-experiment-padded-vs-packed",
        ),
    ],
    N_(
        "Reverse each sequence in time, pad the reversed sequences as usual (batch first), then reverse the time "
        "axis of the batch."
    ),
    answer=N_(
        "Only the longest sequence matches. The last column is now a real step, but the pads ran first and "
        "moved the state away from zero before the sequence started, so every later step is off too."
    ),
)


# Exercise 3: masked_cell_loop


def _cell_steps(cell, padded, take_new_h, take_new_c) -> tuple:
    """Step an LSTMCell over a batch-first batch; where take_new_h (or take_new_c), a (batch, time) mask, is
    False, keep the old h (or c)."""
    h = padded.new_zeros(len(padded), cell.hidden_size)
    c = padded.new_zeros(len(padded), cell.hidden_size)
    with torch.no_grad():
        for t in range(padded.shape[1]):
            h_new, c_new = cell(padded[:, t], (h, c))
            h = torch.where(take_new_h[:, t, None], h_new, h)
            c = torch.where(take_new_c[:, t, None], c_new, c)
    return h, c


def _steps(padded, lengths, compare) -> torch.Tensor:
    """(batch, time) mask: compare(step index, each sequence's length)."""
    time_steps = torch.arange(padded.shape[1], device=padded.device)
    return compare(time_steps[None], lengths.to(padded.device)[:, None])


def _everywhere(padded) -> torch.Tensor:
    return torch.ones(padded.shape[:2], dtype=torch.bool, device=padded.device)


def _zeroed_at_pads(cell, padded, lengths) -> tuple:
    """The state multiplied by the validity mask: zero at the pads instead of kept."""
    valid = _steps(padded, lengths, torch.lt)
    h = padded.new_zeros(len(padded), cell.hidden_size)
    c = padded.new_zeros(len(padded), cell.hidden_size)
    with torch.no_grad():
        for t in range(padded.shape[1]):
            h, c = cell(padded[:, t], (h, c))
            h, c = h * valid[:, t, None], c * valid[:, t, None]
    return h, c


def masked_cell_loop_cases() -> list:
    """An LSTMCell with an LSTM's weights; the LSTM's packed h_n and c_n."""
    cases = []
    for label, lengths, steps, dtype, shown in [
        (N_("the chapter's lengths 5, 2, 7, 3"), [5, 2, 7, 3], 7, torch.float32, True),
        (N_("a length of 1"), [3, 1, 4], 4, torch.float32, True),
        (N_("float64"), [2, 5, 4], 5, torch.float64, True),
        (N_("a batch of one, padded to 6 steps"), [4], 6, torch.float32, True),
        (N_("a last batch of two, padded to 5 steps"), [3, 2], 5, torch.float32, False),
        (N_("lengths 1, 6, 6, 2, 4"), [1, 6, 6, 2, 4], 6, torch.float32, False),
    ]:
        lstm = nn.LSTM(3, 4, batch_first=True, dtype=dtype)
        cell = nn.LSTMCell(3, 4, dtype=dtype)
        cell.load_state_dict({name[:-3]: value for name, value in lstm.state_dict().items()})
        lengths = torch.tensor(lengths)
        padded = torch.zeros(len(lengths), steps, 3, dtype=dtype)
        for row, n in zip(padded, lengths.tolist(), strict=True):
            row[:n] = torch.randn(n, 3, dtype=dtype)
        packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
        with torch.no_grad():
            _, (h_n, c_n) = lstm(packed)
        cases.append(Case(label, (cell, padded, lengths), (h_n[0], c_n[0]), shown))
    return cases


check_masked_cell_loop = Exercise(
    masked_cell_loop_cases,
    [
        Mistake(
            lambda cell, padded, lengths: _cell_steps(cell, padded, *[_everywhere(padded)] * 2),
            N_("Without a mask the cell steps through the pads too, and pad steps after real data move the state."),
            f"{PAGE}#zeros-do-change-the-state",
        ),
        Mistake(
            lambda cell, padded, lengths: _cell_steps(
                cell, padded, _steps(padded, lengths, torch.lt), _everywhere(padded)
            ),
            N_("Only h was frozen: the pads still change c, so c_n is wrong."),
            f"{PAGE}#the-classic-experiment-padded-vs-packed",
        ),
        Mistake(
            lambda cell, padded, lengths: _cell_steps(cell, padded, *[_steps(padded, lengths, torch.le)] * 2),
            N_("A mask built with <= counts step lengths[i] as real: that is the first pad, one step too many."),
            f"{PAGE}#pooling-over-time-needs-a-mask",
        ),
        Mistake(
            lambda cell, padded, lengths: _cell_steps(cell, padded, *[_steps(padded, lengths, torch.ge)] * 2),
            N_("The state is kept at real steps and taken new at pads: the two branches of torch.where are swapped."),
            f"{PAGE}#pooling-over-time-needs-a-mask",
        ),
        Mistake(
            lambda cell, padded, lengths: _cell_steps(cell, padded, *[_steps(padded, lengths, torch.lt)] * 2)[::-1],
            N_("The pair is in the order (c, h): return (h, c), as an LSTM returns (h_n, c_n)."),
            f"{PAGE}#what-an-lstm-returns",
        ),
        Mistake(
            _zeroed_at_pads,
            N_(
                "Multiplying by the mask sets the state to zero at a pad instead of keeping it, and the next pad "
                "step starts again from zero: keep the old state with torch.where(valid, new, old)."
            ),
            f"{PAGE}#pooling-over-time-needs-a-mask",
        ),
    ],
    N_(
        "Start from zero h and c. At step t, run the cell on column t, then use torch.where with column t of a "
        "validity mask to keep the old h and the old c wherever the step is a pad."
    ),
)
