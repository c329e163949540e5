"""Chapter 3's checks under the attack of ../shared/reviews/exercise_checks_attack.md: the wrong answers it found
accepted now fail, the mistakes it found unnamed are named, and correct answers written differently pass."""

import inspect

import pytest
from exercise_harness import attempt, each_is_named, each_is_told, each_passes
from torch.nn.utils.rnn import pad_sequence

SQUEEZED = """
def last_valid_time_major(output, lengths):
    idx = (lengths - 1).view(1, -1, 1).expand(1, -1, output.shape[2])
    return output.gather(0, idx).squeeze()
"""

# Correct answers written differently from the solutions, which the checks must accept.
CORRECT = {
    "last_valid_time_major": [
        f"def last_valid_time_major(output, lengths):\n    {body}\n"
        for body in [
            "return output.transpose(0, 1)[torch.arange(len(lengths)), lengths - 1]",
            (
                "idx = (lengths - 1).view(1, -1, 1).expand(1, -1, output.shape[2])\n"
                "    return output.gather(0, idx).squeeze(0)"
            ),
            (
                "mask = torch.arange(output.shape[0])[:, None] == (lengths - 1)[None]\n"
                "    return (output * mask[..., None]).sum(0)"
            ),
            "return torch.stack([output[n - 1, b] for b, n in enumerate(lengths.tolist())])",
        ]
    ],
    "masked_cell_loop": [
        # a float mask instead of torch.where
        """
def masked_cell_loop(cell, padded, lengths):
    state = None
    for t in range(padded.shape[1]):
        h_new, c_new = cell(padded[:, t], state)
        keep = (t < lengths).to(padded.dtype)[:, None]
        if state is None:
            state = (h_new * keep, c_new * keep)
        else:
            state = (keep * h_new + (1 - keep) * state[0], keep * c_new + (1 - keep) * state[1])
    return state
""",
    ],
}
test_correct_answers_pass = each_passes(CORRECT)


# Wrong answers, each with the start of the mistake the check must name.
NAMED_MISTAKES = {
    "last_valid_time_major": [
        # squeeze with a batch of one is rejected and named
        (SQUEEZED, "squeeze() drops"),
        # the batch-first gather on a time-major output is named
        (
            """
def last_valid_time_major(output, lengths):
    B = output.shape[1]
    return output[torch.arange(B), lengths - 1]
""",
            "This is the batch-first gather",
        ),
    ],
    "left_pad": [
        # a float32 batch for float64 sequences is named (written otherwise than the check's own version of it)
        (
            """
def left_pad(sequences):
    batch = torch.zeros(len(sequences), max(map(len, sequences)), sequences[0].shape[-1])
    for row, s in zip(batch, sequences):
        row[-len(s):] = s
    return batch
""",
            "The batch is float32",
        ),
    ],
    "masked_cell_loop": [
        # returning c then h is named
        (
            """
def masked_cell_loop(cell, padded, lengths):
    valid = torch.arange(padded.shape[1])[None] < lengths[:, None]
    h = c = padded.new_zeros(len(padded), cell.hidden_size)
    for t in range(padded.shape[1]):
        h_new, c_new = cell(padded[:, t], (h, c))
        h, c = torch.where(valid[:, t, None], h_new, h), torch.where(valid[:, t, None], c_new, c)
    return c, h
""",
            "The pair is in the order (c, h)",
        ),
    ],
}
test_wrong_answers_are_named = each_is_named(NAMED_MISTAKES)


# Wrong answers, each with words the check's rejection must say.
SAID = {
    "last_valid_time_major": [
        # an answer written for the listed cases fails on a hidden one
        (
            """
def last_valid_time_major(output, lengths):
    if len(lengths) == 5:  # hard-coded: skip the odd one out
        return output[-1]
    return output[(lengths - 1), torch.arange(output.shape[1])]
""",
            "output[-1] is the last padded step",
        ),
    ],
    "left_pad": [
        # left_pad that changes the caller's list is rejected
        (
            """
def left_pad(sequences):
    for i, sequence in enumerate(sequences):
        sequences[i] = sequence.flip(0)  # the caller's list, changed in place
    return pad_sequence(sequences, batch_first=True).flip(1)
""",
            "changed its argument `sequences` in place",
        ),
    ],
    "masked_cell_loop": [
        # h right and c wrong names element 1
        (
            """
def masked_cell_loop(cell, padded, lengths):
    valid = torch.arange(padded.shape[1])[None] < lengths[:, None]
    h = padded.new_zeros(len(padded), cell.hidden_size)
    c = padded.new_zeros(len(padded), cell.hidden_size)
    for t in range(padded.shape[1]):
        h_new, c_new = cell(padded[:, t], (h, c))
        h = torch.where(valid[:, t, None], h_new, h)
        c = torch.where(valid[:, t, None], c_new, c)
    return h, c_new  # the last step's unmasked c: a pad's for every shorter sequence
""",
            "What it returned[1] has other values",
        ),
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)


def test_squeeze_with_a_batch_of_one_is_caught_on_that_batch(chapter):
    assert "a batch of one" in attempt(chapter, "last_valid_time_major", SQUEEZED).splitlines()[0]


@pytest.mark.parametrize(
    "body",
    [
        "return pad_sequence(sequences, batch_first=True, padding_side='left')",
        (
            "steps = max(len(s) for s in sequences)\n"
            "    return torch.stack([torch.nn.functional.pad(s, (0, 0, steps - len(s), 0)) for s in sequences])"
        ),
    ],
)
def test_left_pad_alternatives_pass(chapter, body):
    if "padding_side" in body and "padding_side" not in inspect.signature(pad_sequence).parameters:
        pytest.skip("torch < 2.5 has no padding_side")
    assert attempt(chapter, "left_pad", f"def left_pad(sequences):\n    {body}\n").startswith("✓")
