"""Deep dive 11's exercise checks under the attack of ../shared/reviews/exercise_checks_attack.md: a learner's own
NotImplementedError is reported as what it is (not "Not attempted yet"), hard-coded answers fail on hidden cases,
and correct answers written another way pass (tests/test_exercises.py names each known mistake, in both languages)."""

from __future__ import annotations

from exercise_harness import attempt, each_fails, each_is_told, each_passes

# ---- wasted_flops: the learner's own NotImplementedError read as "Not attempted yet" (attack finding 3) ----
OWN_ERROR = """
def wasted_flops(cell, input_size, hidden_size, lengths):
    if cell == "GRU":
        gates = 3
    elif cell == "LSTM":
        gates = 4
    else:
        raise NotImplementedError(cell)
    pads = len(lengths) * int(lengths.max()) - int(lengths.sum())
    return pads * 2 * gates * hidden_size * (input_size + hidden_size)
"""


def test_a_learners_own_not_implemented_error_is_reported_as_such(chapter):
    shown = attempt(chapter, "wasted_flops", OWN_ERROR)
    assert not shown.startswith("Not attempted yet"), shown
    assert "✗ wasted_flops is wrong on an RNN 16 → 8, lengths 3, 1, 5" in shown
    assert "It raised NotImplementedError: RNN (your code raised it" in " ".join(shown.split())


def test_none_on_the_case_without_pads_is_reported_as_none(chapter):
    source = """
def wasted_flops(cell, input_size, hidden_size, lengths):
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell]
    pads = len(lengths) * int(lengths.max()) - int(lengths.sum())
    if pads:
        return pads * 2 * gates * hidden_size * (input_size + hidden_size)
"""
    shown = attempt(chapter, "wasted_flops", source)
    assert "wrong on no pads" in shown and "It returned None" in shown, shown


def test_a_gate_table_without_the_rnn_is_named(chapter):
    source = """
def wasted_flops(cell, input_size, hidden_size, lengths):
    gates = {"GRU": 3, "LSTM": 4}[cell]
    pads = len(lengths) * int(lengths.max()) - int(lengths.sum())
    return pads * 2 * gates * hidden_size * (input_size + hidden_size)
"""
    assert "The plain RNN is missing from the gates" in " ".join(attempt(chapter, "wasted_flops", source).split())


# ---- answers hard-coded to the printed cases fail on the hidden ones ----
HARD_CODED = {
    "epoch_padded_tokens": [
        """
def epoch_padded_tokens(lengths, batch_size, bucketed):
    if len(lengths) == 256:
        ordered = lengths.sort().values
        return sum(len(b) * int(b.max()) for b in ordered.split(16))
    return {(8, False): 55, (8, True): 49, (1, True): 9}.get((len(lengths), bucketed), 0)
""",
    ],
    "wasted_flops": [
        """
def wasted_flops(cell, input_size, hidden_size, lengths):
    return {"GRU": 3 * 2 * 512 * 812 * 75, "RNN": 2 * 8 * 24 * 6}.get(cell, 0) if hidden_size != 4 else 0
""",
    ],
}
test_an_answer_hard_coded_to_the_printed_cases_fails = each_fails(HARD_CODED)


# ---- what learners write on this topic, named ----
SAID = {
    "epoch_padded_tokens": [
        (
            (
                "def epoch_padded_tokens(lengths, batch_size, bucketed):\n"
                "    return sum(len(b) * int(b.max()) for b in lengths.sort().values.split(batch_size))\n"
            ),
            "The lengths were sorted when bucketed is False",
        ),
        (
            (
                "def epoch_padded_tokens(lengths, batch_size, bucketed):\n"
                "    ordered = lengths.sort(descending=True).values if bucketed else lengths\n"
                "    return sum(len(b) * int(b.max()) for b in ordered.split(batch_size))\n"
            ),
            "Sorted longest first",
        ),
        (
            (
                "def epoch_padded_tokens(lengths, batch_size, bucketed):\n"
                "    ordered = lengths.sort().values if bucketed else lengths\n"
                "    return sum(batch_size * int(b.max()) for b in ordered.split(batch_size))\n"
            ),
            "The last batch was counted with batch_size rows",
        ),
    ],
    "wasted_flops": [
        (
            (
                "def wasted_flops(cell, input_size, hidden_size, lengths):\n"
                "    gates = {'RNN': 1, 'GRU': 3, 'LSTM': 4}[cell]\n"
                "    return 2 * gates * hidden_size * (input_size + hidden_size) * int(lengths.max() - lengths.min())\n"
            ),
            "That counts the pads of the shortest sequence only",
        ),
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)


# ---- correct answers written differently pass ----
CORRECT = {
    "epoch_padded_tokens": [
        # chapter 1's own numpy helper: the count is a NumPy integer
        (
            "from padpack.course.lengths import split_into_batches\n\n\n"
            "def epoch_padded_tokens(lengths, batch_size, bucketed):\n"
            "    batches = split_into_batches(lengths.numpy(), batch_size, bucketed)\n"
            "    return sum(len(b) * b.max() for b in batches)\n"
        ),
        (
            "def epoch_padded_tokens(lengths, batch_size, bucketed):\n"
            "    order = sorted(lengths.tolist()) if bucketed else lengths.tolist()\n"
            "    return sum(len(order[i : i + batch_size]) * max(order[i : i + batch_size])\n"
            "               for i in range(0, len(order), batch_size))\n"
        ),
    ],
    "wasted_flops": [
        # the weights of the layer itself, one multiply-add each
        (
            "def wasted_flops(cell, input_size, hidden_size, lengths):\n"
            "    layer = getattr(nn, cell)(input_size, hidden_size)\n"
            "    per_step = 2 * (layer.weight_ih_l0.numel() + layer.weight_hh_l0.numel())\n"
            "    return per_step * int(len(lengths) * lengths.max() - lengths.sum())\n"
        ),
        # counted by PyTorch
        (
            "def wasted_flops(cell, input_size, hidden_size, lengths):\n"
            "    pads = int(len(lengths) * lengths.max() - lengths.sum())\n"
            "    with FlopCounterMode(display=False) as counter:\n"
            "        getattr(nn, cell + 'Cell')(input_size, hidden_size)(torch.zeros(pads, input_size))\n"
            "    return counter.get_total_flops()\n"
        ),
    ],
}
test_correct_answers_pass = each_passes(CORRECT)
