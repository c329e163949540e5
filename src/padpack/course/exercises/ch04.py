"""The exercise checks of chapter 4: a bidirectional sentence vector, a hand-over for a 2H decoder, and turning a
left-padded batch into a right-padded one."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

PAGE = "04_bidirectional_pitfalls"
LAYOUT = f"{PAGE}#the-layout-output-is-b-t-2h-h-n-is-num-layers2-b-h"
ORDER = f"{PAGE}#pitfall-3-the-order-of-the-final-states"
HAND_OVER = f"{PAGE}#pitfall-4-handing-a-two-layer-bidirectional-state-to-a-decoder"
LEFT_PAD = f"{PAGE}#pitfall-5-left-padding-does-not-rescue-an-unpacked-bidirectional-rnn"


def final_h_n(rnn, inputs):
    """h_n of rnn on inputs (an LSTM's h_n, not c_n), without gradients."""
    with torch.no_grad():
        _, hidden = rnn(inputs)
    return hidden[0] if isinstance(hidden, tuple) else hidden


# Exercise 1: sentence_vector


def sentence_vector_cases() -> list:
    """Bidirectional RNNs and padded batches; the answer from each sequence run alone: forward half at its last
    step, backward half at step 0, with gradients (a model calls the function in its forward)."""
    cases = []
    for label, rnn_class, lengths, layers, size, dtype, shown in [
        # first a batch whose sort is not its own inverse: a double unsort differs there from no unsort at all
        (N_("a three-layer GRU with hidden_size=4"), nn.GRU, [2, 6, 4], 3, 4, torch.float32, True),
        (N_("a two-layer LSTM, the chapter's lengths 5, 7, 2"), nn.LSTM, [5, 7, 2], 2, 6, torch.float32, True),
        (N_("a one-layer GRU, a length of 1"), nn.GRU, [3, 1, 4], 1, 3, torch.float32, True),
        (N_("float64"), nn.LSTM, [4, 2, 5], 2, 3, torch.float64, True),
        (N_("an LSTM, a batch of one"), nn.LSTM, [4], 2, 3, torch.float32, True),
        (N_("a one-layer LSTM, lengths 3, 6, 1, 6, 2"), nn.LSTM, [3, 6, 1, 6, 2], 1, 5, torch.float32, False),
        (N_("a two-layer GRU, lengths 2, 2, 5"), nn.GRU, [2, 2, 5], 2, 3, torch.float32, False),
    ]:
        rnn = rnn_class(2, size, layers, bidirectional=True, batch_first=True, dtype=dtype)
        sequences = [torch.randn(n, 2, dtype=dtype) for n in lengths]
        want = []
        for sequence in sequences:  # with gradients: the answer must carry them to the RNN's weights
            alone, _ = rnn(sequence.unsqueeze(0))
            want.append(torch.cat([alone[0, -1, :size], alone[0, 0, size:]]))
        padded = pad_sequence(sequences, batch_first=True)
        args = (rnn, padded, torch.tensor(lengths))
        cases.append(Case(label, args, torch.stack(want), shown))
    return cases


def packed_h_n(rnn, padded, lengths, enforce_sorted=False):
    packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    return final_h_n(rnn, packed)


def packed_output(rnn, padded, lengths):
    """The packed run's output, padded back (zeros at the pads)."""
    with torch.no_grad():
        output, _ = rnn(pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False))
    return pad_packed_sequence(output, batch_first=True)[0]


def unpacked_last_output(rnn, padded, lengths):
    with torch.no_grad():
        output, _ = rnn(padded)
    return output[:, -1]


def _top_pair(h_n):
    return torch.cat([h_n[-2], h_n[-1]], dim=-1)


def _sorted_not_unsorted(rnn, padded, lengths):
    """Sorted longest first to pack with enforce_sorted=True, and never put back in the caller's order."""
    order = lengths.argsort(descending=True)
    return _top_pair(packed_h_n(rnn, padded[order], lengths[order], enforce_sorted=True))


def _unsorted_indices(lengths):
    """The unsorted_indices that packing these lengths with enforce_sorted=False records."""
    return lengths.argsort(descending=True).argsort()


def _backward_from_padded_run(rnn, padded, lengths):
    """The forward half from the packed run, the backward half from the padded one."""
    return torch.cat([packed_h_n(rnn, padded, lengths)[-2], final_h_n(rnn, padded)[-1]], dim=-1)


def _packed_output_at_last_step(rnn, padded, lengths):
    output = packed_output(rnn, padded, lengths)
    return output[torch.arange(len(lengths)), lengths - 1]


def _hidden_tuple_as_h_n(rnn, padded, lengths):
    """`_, h_n = rnn(packed)`: for an LSTM, h_n is then the pair (h_n, c_n)."""
    with torch.no_grad():
        _, h_n = rnn(pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False))
    return torch.cat([h_n[-2], h_n[-1]], dim=-1)


def _packed_time_major(rnn, padded, lengths):
    """Packed without batch_first=True: the batch-first tensor read as (time, batch, features)."""
    return _top_pair(final_h_n(rnn, pack_padded_sequence(padded, lengths, enforce_sorted=False)))


check_sentence_vector = Exercise(
    sentence_vector_cases,
    [
        Mistake(
            lambda rnn, padded, lengths: _top_pair(packed_h_n(rnn, padded, lengths)),
            N_(
                "The values are right, but the summary was computed without gradients (torch.no_grad, "
                "inference_mode or .detach()): a model that calls it in forward would never train its encoder. "
                "Keep gradients on inside; the caller turns them off for evaluation."
            ),
            f"{PAGE}#exercises",
        ),
        Mistake(
            lambda rnn, padded, lengths: packed_h_n(rnn, padded, lengths, enforce_sorted=True),
            N_(
                "By default pack_padded_sequence wants lengths sorted longest first; for lengths in any order, "
                "pass enforce_sorted=False."
            ),
            "02_pack_and_unpack_internals#pitfall-1-unsorted-lengths-with-enforce-sorted-true",
            raises=True,
        ),
        Mistake(
            _packed_time_major,
            N_(
                "The batch was packed without batch_first=True, so pack_padded_sequence read it as (time, batch, "
                "features): pass batch_first=True for a (batch, time, features) batch."
            ),
            "02_pack_and_unpack_internals#packing-the-classic-examples",
            raises=True,
        ),
        Mistake(
            _hidden_tuple_as_h_n,
            N_(
                "An LSTM returns output, (h_n, c_n): the second value is a pair, so h_n[-2] and h_n[-1] were h_n "
                "and c_n. Unpack it as _, (h_n, c_n) (a GRU returns h_n alone)."
            ),
            "03_lstm_hidden_state_extraction#gru-and-vanilla-rnn-h-n-only",
        ),
        Mistake(
            unpacked_last_output,
            N_(
                "output[:, -1] of the padded run: for every shorter sequence its backward half has read only pads, "
                "and for the longest only its last token."
            ),
            f"{PAGE}#pitfall-1-output-1-is-not-a-summary-of-a-bidirectional-rnn",
        ),
        Mistake(
            lambda rnn, padded, lengths: packed_output(rnn, padded, lengths)[:, -1],
            N_(
                "output[:, -1] after unpacking is a pad (zeros) for every shorter sequence, and its backward half "
                "has read only the last token: take the final states from h_n."
            ),
            f"{PAGE}#pitfall-1-output-1-is-not-a-summary-of-a-bidirectional-rnn",
        ),
        Mistake(
            _packed_output_at_last_step,
            N_(
                "At lengths - 1 the forward half is final, but the backward half has read only the last token: the "
                "backward direction ends at step 0, so take h_n[-1] (or output[:, 0] for that half)."
            ),
            ORDER,
        ),
        Mistake(
            lambda rnn, padded, lengths: _top_pair(final_h_n(rnn, padded)),
            N_(
                "Without packing, the final states come from the padded run: the forward state has read the pads "
                "after each shorter sequence."
            ),
            f"{PAGE}#the-fix-pack-the-batch",
        ),
        Mistake(
            _backward_from_padded_run,
            N_(
                "The backward half comes from the padded run: it read the pads before the real tokens of every "
                "shorter sequence. Take both halves from the packed run's h_n."
            ),
            f"{PAGE}#pitfall-2-padding-without-packing-poisons-the-backward-direction",
        ),
        Mistake(
            _sorted_not_unsorted,
            N_(
                "The batch was sorted longest first to pack it, and the rows were never put back: undo the sort "
                "(index with order.argsort()), or pack with enforce_sorted=False, which does both."
            ),
            "02_pack_and_unpack_internals#enforce-sorted-who-sorts-and-who-unsorts",
        ),
        Mistake(
            lambda rnn, padded, lengths: _top_pair(packed_h_n(rnn, padded, lengths))[_unsorted_indices(lengths)],
            N_(
                "The rows were put back twice: with enforce_sorted=False, h_n is already in the batch's order, so "
                "indexing it with unsorted_indices moves the rows again. Use h_n as it is."
            ),
            "02_pack_and_unpack_internals#enforce-sorted-who-sorts-and-who-unsorts",
        ),
        Mistake(
            lambda rnn, padded, lengths: packed_h_n(rnn, padded, lengths)[-1],
            N_(
                "h_n[-1] alone is only the top layer's backward state; the summary needs its forward state h_n[-2] too."
            ),
            ORDER,
        ),
        Mistake(
            lambda rnn, padded, lengths: torch.cat(list(packed_h_n(rnn, padded, lengths)[[-1, -2]]), dim=-1),
            N_("The order is (backward, forward); output's halves, and this chapter, put the forward state first."),
            ORDER,
        ),
        Mistake(
            lambda rnn, padded, lengths: torch.cat(list(packed_h_n(rnn, padded, lengths)[:2]), dim=-1),
            N_(
                "h_n[0] and h_n[1] are layer 0's states: h_n is ordered layer by layer, so the top layer's are the "
                "last two rows."
            ),
            LAYOUT,
        ),
    ],
    N_(
        "Pack the batch (lengths in any order), run it, and take h_n (an LSTM returns (h_n, c_n)). Its last two "
        "rows are the top layer's forward and backward states: concatenate them in that order."
    ),
)


# Exercise 2: wide_hand_over


def wide_hand_over_cases() -> list:
    """h_n of packed bidirectional runs; the answer by a slow loop."""
    cases = []
    for label, rnn_class, lengths, layers, dtype, shown in [
        (N_("a two-layer GRU, the chapter's lengths 5, 7, 2"), nn.GRU, [5, 7, 2], 2, torch.float32, True),
        (N_("three layers"), nn.GRU, [2, 6, 4, 1], 3, torch.float32, True),
        (N_("one layer"), nn.GRU, [3, 1, 4], 1, torch.float32, True),
        (N_("an LSTM, float64"), nn.LSTM, [4, 5], 2, torch.float64, True),
        (N_("a batch of one, two layers"), nn.GRU, [3], 2, torch.float32, True),
        (N_("four layers, lengths 2, 5, 5, 1, 3"), nn.LSTM, [2, 5, 5, 1, 3], 4, torch.float32, False),
    ]:
        rnn = rnn_class(2, 3, layers, bidirectional=True, batch_first=True, dtype=dtype)
        padded = torch.randn(len(lengths), max(lengths), 2, dtype=dtype)
        h_n = packed_h_n(rnn, padded, torch.tensor(lengths))
        want = torch.stack([torch.cat([h_n[2 * layer], h_n[2 * layer + 1]], dim=-1) for layer in range(layers)])
        cases.append(Case(label, (h_n, layers), want, shown))
    return cases


check_wide_hand_over = Exercise(
    wide_hand_over_cases,
    [
        Mistake(
            lambda h_n, layers: h_n.view(layers, h_n.size(1), -1),
            N_("h_n.view(num_layers, B, 2 * H) has the right shape but glues together rows of different sequences."),
            HAND_OVER,
        ),
        Mistake(
            lambda h_n, layers: h_n[:layers],
            N_("h_n[:num_layers] is the chatbot slice: layer 0's forward and backward states, each only H wide."),
            HAND_OVER,
        ),
        Mistake(
            lambda h_n, layers: torch.cat([h_n[1::2], h_n[0::2]], dim=-1),
            N_(
                "Each layer's pair is in the order (backward, forward); the halves of output, and this exercise, "
                "put forward first."
            ),
            ORDER,
        ),
        Mistake(
            lambda h_n, layers: torch.cat(list(h_n.view(2, layers, *h_n.shape[1:])), dim=-1),
            N_(
                "This reads h_n as (directions, layers); it is (layers, directions): layer 0 forward, layer 0 "
                "backward, layer 1 forward, ..."
            ),
            LAYOUT,
        ),
        Mistake(
            lambda h_n, layers: h_n.view(layers, 2, *h_n.shape[1:]).sum(dim=1),
            N_(
                "Summing the two directions is the hand-over for a decoder of size H; this decoder is 2H wide: "
                "concatenate each layer's (forward, backward) pair instead."
            ),
            HAND_OVER,
        ),
        Mistake(
            lambda h_n, layers: torch.cat([h_n[-2], h_n[-1]], dim=-1).expand(layers, -1, -1),
            N_(
                "Every decoder layer got the top layer's pair: give decoder layer l the pair of encoder layer l, "
                "h_n[2 * l] and h_n[2 * l + 1]."
            ),
            HAND_OVER,
        ),
    ],
    N_(
        "Split h_n into (layers, directions, B, H) with view, then concatenate the two directions of each layer "
        "along the last dimension."
    ),
)


# Exercise 3: right_pad


def right_pad_cases() -> list:
    """Left-padded batches; the answer rebuilt row by row by pad_sequence."""
    cases = []
    for label, lengths, steps, dtype, zero_token, shown in [
        (N_("the chapter's lengths 5, 7, 2"), [5, 7, 2], 7, torch.float32, False, True),
        (N_("the longest sequence not first, a length of 1"), [1, 3, 4, 2], 4, torch.float32, False, True),
        (N_("float64"), [3, 2, 3], 3, torch.float64, False, True),
        (N_("a batch of one, padded to 5 steps"), [3], 5, torch.float32, False, True),
        (N_("a real token that is all zeros"), [4, 2], 4, torch.float32, True, True),
        (N_("lengths 2, 6, 6, 3, padded to 7 steps"), [2, 6, 6, 3], 7, torch.float32, False, False),
    ]:
        sequences = [torch.randn(n, 2, dtype=dtype) for n in lengths]
        if zero_token:
            sequences[0][1] = 0
        left_padded = torch.stack([torch.cat([torch.zeros(steps - len(s), 2, dtype=dtype), s]) for s in sequences])
        want = torch.zeros_like(left_padded)
        want[:, : max(lengths)] = pad_sequence(sequences, batch_first=True)
        cases.append(Case(label, (left_padded, torch.tensor(lengths)), want, shown))
    return cases


def roll_each_row(batch, lengths, sign):
    """Roll row b by sign * its number of pads."""
    pads = batch.size(1) - lengths
    return torch.stack([row.roll(sign * int(n), dims=0) for row, n in zip(batch, pads, strict=True)])


def _first_steps(batch, lengths):
    """Each row's first lengths[b] steps, where its pads are."""
    right = torch.zeros_like(batch)
    for b, length in enumerate(lengths.tolist()):
        right[b, :length] = batch[b, :length]
    return right


def _nonzero_steps(batch, lengths):
    """The real tokens found as the steps that are not all zeros."""
    right = torch.zeros_like(batch)
    for b, row in enumerate(batch):
        real = row[row.abs().sum(dim=-1) != 0]
        right[b, : len(real)] = real
    return right


def _float32_right_pad(batch, lengths):
    right = torch.zeros(batch.shape)
    steps = batch.size(1)
    for b, length in enumerate(lengths.tolist()):
        right[b, :length] = batch[b, steps - length :]
    return right


check_right_pad = Exercise(
    right_pad_cases,
    [
        Mistake(
            lambda batch, lengths: batch,
            N_(
                "The batch is unchanged: packed as it is, each row keeps its first lengths[b] steps, the pads, and "
                "drops real tokens."
            ),
            LEFT_PAD,
        ),
        Mistake(
            lambda batch, lengths: batch.flip(1),
            N_("flip(1) moves the pads to the end but also reverses the order of the real tokens."),
            "14_deep_dive_bidirectional_from_scratch"
            "#from-scratch-the-backward-direction-is-a-forward-pass-over-the-reversed-sequence",
        ),
        Mistake(
            lambda batch, lengths: roll_each_row(batch, lengths, 1),
            N_(
                "Each row is rolled the wrong way: roll it left (a negative shift) by its number of pads, so the "
                "real tokens come first."
            ),
            LEFT_PAD,
        ),
        Mistake(
            _first_steps,
            N_(
                "batch[b, :lengths[b]] is the start of the row, where the pads are: the real tokens are its last "
                "lengths[b] steps, batch[b, T - lengths[b]:]."
            ),
            LEFT_PAD,
        ),
        Mistake(
            _nonzero_steps,
            N_(
                "Finding the real tokens as the steps that are not zero drops a real token that happens to be all "
                "zeros: use lengths, which says how many steps of each row are real."
            ),
            LEFT_PAD,
        ),
        Mistake(
            _float32_right_pad,
            N_(
                "The new batch is float32 whatever the input is: build it with torch.zeros_like(batch), which keeps "
                "the dtype and the device."
            ),
            LEFT_PAD,
        ),
    ],
    N_(
        "Row b has T - lengths[b] pads at its start: move its last lengths[b] steps to the front and put zeros "
        "after them."
    ),
)
