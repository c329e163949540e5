"""The exercise check of deep dive 13: the top layer's final state, both directions, from h_n."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

LAYERS_AND_DIRECTIONS = "13_deep_dive_hidden_state_details#the-layers-and-directions-of-h-n"


def top_layer_state_cases() -> list:
    """Packed runs; the right answer read from output, not h_n: the forward half at step lengths - 1, the
    backward half at step 0."""
    cases = []
    for label, rnn_class, lengths, layers, bidirectional, dtype, shown in [
        (N_("one layer, the chapter's lengths"), nn.LSTM, [5, 2, 7, 3], 1, False, torch.float32, True),
        (N_("two layers"), nn.LSTM, [5, 2, 7, 3], 2, False, torch.float32, True),
        (N_("bidirectional, one layer"), nn.LSTM, [5, 2, 7, 3], 1, True, torch.float32, True),
        (N_("bidirectional, two layers"), nn.LSTM, [5, 2, 7, 3], 2, True, torch.float32, True),
        (N_("bidirectional, three layers, float64"), nn.LSTM, [5, 2, 7, 3], 3, True, torch.float64, True),
        (N_("a batch of one, bidirectional, two layers"), nn.LSTM, [4], 2, True, torch.float32, True),
        (
            N_("a GRU, bidirectional, four layers, lengths 2, 6, 1, 6, 3"),
            nn.GRU,
            [2, 6, 1, 6, 3],
            4,
            True,
            torch.float32,
            False,
        ),
        (N_("a GRU, three layers, lengths 3, 1"), nn.GRU, [3, 1], 3, False, torch.float32, False),
    ]:
        rnn = rnn_class(3, 4, layers, bidirectional=bidirectional, dtype=dtype)
        lengths = torch.tensor(lengths)
        padded = torch.randn(int(lengths.max()), len(lengths), 3, dtype=dtype)
        packed = pack_padded_sequence(padded, lengths, enforce_sorted=False)
        with torch.no_grad():
            output, hidden = rnn(packed)
        h_n = hidden[0] if isinstance(hidden, tuple) else hidden
        output, _ = pad_packed_sequence(output)
        rows = torch.arange(len(lengths))
        want = output[lengths - 1, rows, :4]
        if bidirectional:
            want = torch.cat([want, output[0, rows, 4:]], dim=-1)
        cases.append(Case(label, (h_n, layers, bidirectional), want, shown))
    return cases


check_top_layer_state = Exercise(
    top_layer_state_cases,
    [
        # Each wrong answer picks its rows inside the lambda, only on the branch it takes: a row that exists in one
        # branch alone (h_n[-2] of a one-layer, one-direction run) must not raise on the other.
        Mistake(
            lambda h_n, num_layers, bidirectional: h_n[0],
            N_("h_n[0] is the bottom layer; the top layer comes last."),
            "03_lstm_hidden_state_extraction#several-layers-h-n-1-is-the-top-layer",
        ),
        Mistake(
            lambda h_n, num_layers, bidirectional: torch.cat([h_n[-2], h_n[-1]], -1),
            N_(
                "torch.cat([h_n[-2], h_n[-1]]) assumes two directions: for a one-directional RNN the top layer's "
                "state is h_n[-1] alone. Look at `bidirectional`."
            ),
            LAYERS_AND_DIRECTIONS,
            raises=True,
        ),
        Mistake(
            lambda h_n, num_layers, bidirectional: h_n[-1],
            N_("h_n[-1] of a bidirectional RNN is only the top layer's backward half."),
            LAYERS_AND_DIRECTIONS,
        ),
        Mistake(
            lambda h_n, num_layers, bidirectional: torch.cat([h_n[-1], h_n[-2]], -1) if bidirectional else h_n[-1],
            N_(
                "The directions are in the wrong order: h_n[-2] is the top layer's forward half and comes first, "
                "as in output."
            ),
            "04_bidirectional_pitfalls#pitfall-3-the-order-of-the-final-states",
        ),
        Mistake(
            lambda h_n, num_layers, bidirectional: torch.cat([h_n[0], h_n[1]], -1) if bidirectional else h_n[-1],
            N_("h_n[0] and h_n[1] are the bottom layer's two directions once there is more than one layer."),
            "04_bidirectional_pitfalls#pitfall-4-handing-a-two-layer-bidirectional-state-to-a-decoder",
        ),
        Mistake(
            lambda h_n, num_layers, bidirectional: torch.cat(list(h_n.view(-1, num_layers, *h_n.shape[1:])[:, -1]), -1),
            N_(
                "The view has its axes swapped: h_n stores each layer with its directions, so view it as "
                "(num_layers, num_directions, batch, hidden)."
            ),
            LAYERS_AND_DIRECTIONS,
        ),
    ],
    N_(
        "View h_n as (num_layers, num_directions, batch, hidden), take the last layer, and for two directions put "
        "the forward half first."
    ),
)
