"""The exercise check of deep dive 14: repair the backward half of an unpacked bidirectional run with the reverse
weights' run over the per-length-flipped batch."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

FROM_SCRATCH = (
    "14_deep_dive_bidirectional_from_scratch"
    "#from-scratch-the-backward-direction-is-a-forward-pass-over-the-reversed-sequence"
)


def repair_backward_cases() -> list:
    """One-layer bidirectional RNNs run unpacked, and their reverse weights run over each row reversed by a slow
    loop; the answer: a packed run."""
    cases = []
    for label, rnn_class, lengths, steps, size, dtype, shown in [
        (N_("a GRU, the page's lengths 5, 7, 2"), nn.GRU, [5, 7, 2], 7, 3, torch.float32, True),
        (
            N_("an LSTM, the longest sequence not first, a length of 1"),
            nn.LSTM,
            [1, 3, 4, 2],
            4,
            3,
            torch.float32,
            True,
        ),
        (N_("float64"), nn.GRU, [3, 2, 4], 4, 3, torch.float64, True),
        (N_("an LSTM, a batch of one padded to 5 steps"), nn.LSTM, [3], 5, 3, torch.float32, True),
        (N_("a GRU, lengths 6, 2, 6, 1, 3, hidden_size=4"), nn.GRU, [6, 2, 6, 1, 3], 6, 4, torch.float32, False),
        (N_("an LSTM, lengths 2, 4, padded to 6 steps"), nn.LSTM, [2, 4], 6, 2, torch.float32, False),
    ]:
        options = {"batch_first": True, "dtype": dtype}
        birnn = rnn_class(2, size, bidirectional=True, **options)
        reverse = rnn_class(2, size, **options)
        with torch.no_grad():
            for name, parameter in reverse.named_parameters():
                parameter.copy_(getattr(birnn, name + "_reverse"))
        padded = torch.randn(len(lengths), steps, 2, dtype=dtype)
        for row, n in zip(padded, lengths, strict=True):
            row[n:] = 0
        flipped = padded.clone()
        for row, n in zip(flipped, lengths, strict=True):
            row[:n] = row[:n].flip(0)
        with torch.no_grad():
            output, _ = birnn(padded)
            reversed_output, _ = reverse(flipped)
            packed_output, _ = birnn(pack_padded_sequence(padded, torch.tensor(lengths), True, enforce_sorted=False))
        want, _ = pad_packed_sequence(packed_output, batch_first=True, total_length=steps)
        args = (output, reversed_output, torch.tensor(lengths))
        cases.append(Case(label, args, want, shown))
    return cases


def flip_rows(batch, lengths):
    """Reverse the first lengths[b] steps of each row, in a loop."""
    batch = batch.clone()
    for row, n in zip(batch, lengths.tolist(), strict=True):
        row[:n] = row[:n].flip(0)
    return batch


def join_halves(forward, backward, lengths, compare=torch.lt):
    """Concatenate the halves and zero the pad positions (where compare(step, length) is False)."""
    valid = compare(torch.arange(forward.size(1)), lengths[:, None])
    return torch.cat([forward, backward], dim=-1) * valid[..., None]


def forward_half(output):
    return output[..., : output.size(-1) // 2]


check_repair_backward = Exercise(
    repair_backward_cases,
    [
        Mistake(
            lambda output, reversed_output, lengths: join_halves(
                forward_half(output), reversed_output.flip(1), lengths
            ),
            N_(
                "flip(1) reverses the whole padded row: a short sequence's states land on the pad positions. Flip "
                "each row within its own length."
            ),
            FROM_SCRATCH,
        ),
        Mistake(
            lambda output, reversed_output, lengths: join_halves(forward_half(output), reversed_output, lengths),
            N_(
                "reversed_output is still in reversed order: its step t belongs to token lengths[b] - 1 - t, so flip "
                "it back within each length."
            ),
            FROM_SCRATCH,
        ),
        Mistake(
            lambda output, reversed_output, lengths: join_halves(
                forward_half(output), output[..., output.size(-1) // 2 :], lengths
            ),
            N_(
                "This backward half is the padded run's: it read the pads before the real tokens of every shorter "
                "sequence."
            ),
            "04_bidirectional_pitfalls#pitfall-2-padding-without-packing-poisons-the-backward-direction",
        ),
        Mistake(
            lambda output, reversed_output, lengths: torch.cat(
                [forward_half(output), flip_rows(reversed_output, lengths)], dim=-1
            ),
            N_(
                "Right at the real tokens, but the pads still hold states: a packed run's padded output has zeros "
                "there."
            ),
            "04_bidirectional_pitfalls#the-fix-pack-the-batch",
        ),
        Mistake(
            lambda output, reversed_output, lengths: join_halves(
                forward_half(output), flip_rows(reversed_output, lengths), lengths, torch.le
            ),
            N_(
                "A mask built with <= keeps step lengths[b], the first pad, which still holds a state: real steps "
                "are those with step < lengths[b]."
            ),
            "04_bidirectional_pitfalls#the-fix-pack-the-batch",
        ),
        Mistake(
            lambda output, reversed_output, lengths: join_halves(
                flip_rows(reversed_output, lengths), forward_half(output), lengths
            ),
            N_("The halves are in the order (backward, forward); output puts the forward half first."),
            "04_bidirectional_pitfalls#the-layout-output-is-b-t-2h-h-n-is-num-layers2-b-h",
        ),
    ],
    N_(
        "Keep the forward half of output. Flip reversed_output back within each sequence's length (as flip_valid "
        "does), put it after the forward half, and set every pad position to zero."
    ),
    answer=N_(
        "This repairs one layer. With two layers, layer 1 must read layer 0's repaired output, so you have to "
        "repeat the trick layer by layer (that is bidirectional_by_hand without packing), and the final forward"
        " states still need gathering at lengths - 1."
    ),
)
