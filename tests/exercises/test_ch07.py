"""Chapter 7's checks under the attack of exercise_checks_attack.md: `squeeze()` with a batch of one, a
`left_pad` that rewrites the caller's batch, a partly right message for rolling the wrong way, the batch-first
index on a time-major reading, and correct answers written differently from the solutions."""

import pytest
from exercise_harness import attempt, named

RIGHT = "✓"
WRONG = "✗"


# 1. gather_last_step


def test_squeeze_without_a_dimension_fails_on_a_batch_of_one(chapter):
    text = (
        "def gather_last_step(output, lengths):\n"
        "    idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.shape[2])\n"
        "    return output.gather(1, idx).squeeze()\n"
    )
    output = attempt(chapter, "gather_last_step", text)
    assert output.startswith(WRONG) and named(chapter, "gather_last_step", output, "squeeze() drops")


def test_a_time_major_index_on_the_batch_first_output_is_named(chapter):
    text = "def gather_last_step(output, lengths):\n    return output[lengths - 1, torch.arange(len(lengths))]\n"
    output = attempt(chapter, "gather_last_step", text)
    assert output.startswith(WRONG) and named(chapter, "gather_last_step", output, "This indexes a time-major")


def test_off_by_one_is_named_even_where_it_does_not_run_off_the_end(chapter):
    text = "def gather_last_step(output, lengths):\n    return output[torch.arange(len(lengths)), lengths]\n"
    output = attempt(chapter, "gather_last_step", text)
    assert output.startswith(WRONG) and named(chapter, "gather_last_step", output, "Off by one")


@pytest.mark.parametrize(
    "text",
    [
        # advanced indexing, as chapter 3 teaches
        "def gather_last_step(output, lengths):\n    return output[torch.arange(len(lengths)), lengths - 1]\n",
        # a loop over the rows
        (
            "def gather_last_step(output, lengths):\n"
            "    return torch.stack([output[i, n - 1] for i, n in enumerate(lengths.tolist())])\n"
        ),
        # a one-hot mask over time, summed
        (
            "def gather_last_step(output, lengths):\n"
            "    steps = torch.arange(output.shape[1])\n"
            "    mask = (steps == (lengths - 1)[:, None]).to(output.dtype)\n"
            "    return (output * mask[:, :, None]).sum(dim=1)\n"
        ),
    ],
)
def test_correct_gather_alternatives_pass(chapter, text):
    assert attempt(chapter, "gather_last_step", text).startswith(RIGHT)


# 2. left_pad


def test_rewriting_the_callers_batch_in_place_is_caught(chapter):
    text = (
        "def left_pad(padded, lengths):\n"
        "    width = padded.shape[1]\n"
        "    for i, n in enumerate(lengths.tolist()):\n"
        "        padded[i] = padded[i].roll(width - n)\n"
        "    return padded\n"
    )
    output = attempt(chapter, "left_pad", text)
    assert output.startswith(WRONG) and "`padded` in place" in output


def test_rolling_left_by_the_pads_is_told_the_direction(chapter):
    text = (
        "def left_pad(padded, lengths):\n"
        "    width = padded.shape[1]\n"
        "    return torch.stack([r.roll(-(width - n)) for r, n in zip(padded, lengths.tolist())])\n"
    )
    output = attempt(chapter, "left_pad", text)
    assert output.startswith(WRONG) and named(chapter, "left_pad", output, "Each row went the wrong way")
    assert "left by its length" in output


def test_shifting_by_the_longest_length_fails_on_a_wider_batch(chapter):
    text = (
        "def left_pad(padded, lengths):\n"
        "    longest = int(lengths.max())\n"
        "    return torch.stack([r.roll(longest - n) for r, n in zip(padded, lengths.tolist())])\n"
    )
    output = attempt(chapter, "left_pad", text)
    assert output.startswith(WRONG) and named(chapter, "left_pad", output, "Each row is rolled by the longest")


@pytest.mark.parametrize(
    "text",
    [
        # rolling left by the length is the same as right by the pads
        (
            "def left_pad(padded, lengths):\n"
            "    return torch.stack([r.roll(-n) for r, n in zip(padded, lengths.tolist())])\n"
        ),
        # a new tensor of pads, the tokens copied to the right end
        (
            "def left_pad(padded, lengths):\n"
            "    result = torch.zeros_like(padded)\n"
            "    width = padded.shape[1]\n"
            "    for i, n in enumerate(lengths.tolist()):\n"
            "        result[i, width - n :] = padded[i, :n]\n"
            "    return result\n"
        ),
        # a clone, then rolled in place
        (
            "def left_pad(padded, lengths):\n"
            "    padded = padded.clone()\n"
            "    for i, n in enumerate(lengths.tolist()):\n"
            "        padded[i] = padded[i].roll(padded.shape[1] - n)\n"
            "    return padded\n"
        ),
    ],
)
def test_correct_left_pad_alternatives_pass(chapter, text):
    assert attempt(chapter, "left_pad", text).startswith(RIGHT)


# 3. pad_shift


@pytest.mark.parametrize(
    "text",
    [
        (
            "@torch.no_grad()\n"
            "def pad_shift(model, padded, lengths, extra):\n"
            "    pads = torch.zeros(len(padded), extra, dtype=padded.dtype)\n"
            "    longer = torch.cat([padded, pads], dim=1)\n"
            "    return model(longer, lengths) - model(padded, lengths)\n"
        ),
        (
            "def pad_shift(model, padded, lengths, extra):\n"
            "    model.eval()\n"
            "    with torch.inference_mode():\n"
            "        longer = nn.functional.pad(padded, (0, extra))\n"
            "        return model(longer, lengths) - model(padded, lengths)\n"
        ),
    ],
)
def test_correct_pad_shift_alternatives_pass(chapter, text):
    assert attempt(chapter, "pad_shift", text).startswith(RIGHT)


def test_returning_the_probabilities_change_is_named(chapter):
    text = (
        "@torch.no_grad()\n"
        "def pad_shift(model, padded, lengths, extra):\n"
        "    longer = nn.functional.pad(padded, (0, extra))\n"
        "    return model(longer, lengths).softmax(1) - model(padded, lengths).softmax(1)\n"
    )
    output = attempt(chapter, "pad_shift", text)
    assert output.startswith(WRONG) and named(chapter, "pad_shift", output, "This is the change of the probabilities")
