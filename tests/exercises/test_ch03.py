"""Chapter 3's checks under the attack of ../shared/reviews/exercise_checks_attack.md: the wrong answers it found
accepted now fail, the mistakes it found unnamed are named, and correct answers written differently pass."""

import pytest
from exercise_harness import attempt, rejected_and_named

# last_valid_time_major


def test_squeeze_with_a_batch_of_one_is_rejected_and_named(chapter):
    output = attempt(
        chapter,
        "last_valid_time_major",
        """
def last_valid_time_major(output, lengths):
    idx = (lengths - 1).view(1, -1, 1).expand(1, -1, output.shape[2])
    return output.gather(0, idx).squeeze()
""",
    )
    assert "a batch of one" in output.splitlines()[0]
    assert rejected_and_named(chapter, "last_valid_time_major", output, "squeeze() drops")


def test_the_batch_first_gather_on_a_time_major_output_is_named(chapter):
    output = attempt(
        chapter,
        "last_valid_time_major",
        """
def last_valid_time_major(output, lengths):
    B = output.shape[1]
    return output[torch.arange(B), lengths - 1]
""",
    )
    assert rejected_and_named(chapter, "last_valid_time_major", output, "This is the batch-first gather")


def test_an_answer_written_for_the_listed_cases_fails_on_a_hidden_one(chapter):
    output = attempt(
        chapter,
        "last_valid_time_major",
        """
def last_valid_time_major(output, lengths):
    if len(lengths) == 5:  # hard-coded: skip the odd one out
        return output[-1]
    return output[(lengths - 1), torch.arange(output.shape[1])]
""",
    )
    assert output.startswith("✗") and "lengths 6, 1, 3, 6, 2" in output


@pytest.mark.parametrize(
    "body",
    [
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
    ],
)
def test_correct_alternatives_pass(chapter, body):
    output = attempt(chapter, "last_valid_time_major", f"def last_valid_time_major(output, lengths):\n    {body}\n")
    assert output.startswith("✓"), output


# left_pad


def test_left_pad_that_changes_the_callers_list_is_rejected(chapter):
    output = attempt(
        chapter,
        "left_pad",
        """
def left_pad(sequences):
    for i, sequence in enumerate(sequences):
        sequences[i] = sequence.flip(0)  # the caller's list, changed in place
    return pad_sequence(sequences, batch_first=True).flip(1)
""",
    )
    assert output.startswith("✗") and "changed its argument `sequences` in place" in output


def test_a_float32_batch_for_float64_sequences_is_named(chapter):
    output = attempt(
        chapter,
        "left_pad",
        """
def left_pad(sequences):
    steps = max(len(s) for s in sequences)
    batch = torch.zeros(len(sequences), steps, sequences[0].shape[-1])
    for i, s in enumerate(sequences):
        batch[i, steps - len(s):] = s
    return batch
""",
    )
    assert rejected_and_named(chapter, "left_pad", output, "The batch is float32")


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
    if "padding_side" in body and "padding_side" not in pad_sequence_parameters():
        pytest.skip("torch < 2.5 has no padding_side")
    assert attempt(chapter, "left_pad", f"def left_pad(sequences):\n    {body}\n").startswith("✓")


def pad_sequence_parameters():
    import inspect

    from torch.nn.utils.rnn import pad_sequence

    return inspect.signature(pad_sequence).parameters


# masked_cell_loop


def test_h_right_and_c_wrong_names_element_1(chapter):
    output = attempt(
        chapter,
        "masked_cell_loop",
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
    )
    assert output.startswith("✗")
    assert "Element 1 of what it returned has other values" in output


def test_masked_cell_loop_with_float_mask_passes(chapter):
    output = attempt(
        chapter,
        "masked_cell_loop",
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
    )
    assert output.startswith("✓"), output


def test_returning_c_then_h_is_named(chapter):
    output = attempt(
        chapter,
        "masked_cell_loop",
        """
def masked_cell_loop(cell, padded, lengths):
    valid = torch.arange(padded.shape[1])[None] < lengths[:, None]
    h = c = padded.new_zeros(len(padded), cell.hidden_size)
    for t in range(padded.shape[1]):
        h_new, c_new = cell(padded[:, t], (h, c))
        h, c = torch.where(valid[:, t, None], h_new, h), torch.where(valid[:, t, None], c_new, c)
    return c, h
""",
    )
    assert rejected_and_named(chapter, "masked_cell_loop", output, "The pair is in the order (c, h)")
