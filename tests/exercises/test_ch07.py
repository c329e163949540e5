"""Chapter 7's checks under the attack of exercise_checks_attack.md: `squeeze()` with a batch of one, a
`left_pad` that rewrites the caller's batch, a partly right message for rolling the wrong way, the batch-first
index on a time-major reading, and correct answers written differently from the solutions."""

import pytest
from exercise_harness import attempt, named

RIGHT = "✓"
WRONG = "✗"


# Correct answers written differently from the solutions, which the checks must accept: exercise -> answers.
CORRECT = {
    "gather_last_step": [
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
    "left_pad": [
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
    "pad_shift": [
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
}


@pytest.mark.parametrize("name, text", [(name, text) for name, texts in CORRECT.items() for text in texts])
def test_correct_answers_pass(chapter, name, text):
    assert attempt(chapter, name, text).startswith(RIGHT)


ROLLED_THE_WRONG_WAY = (
    "def left_pad(padded, lengths):\n"
    "    width = padded.shape[1]\n"
    "    return torch.stack([r.roll(-(width - n)) for r, n in zip(padded, lengths.tolist())])\n"
)

# Wrong answers, each with the start of the mistake the check must name: test id -> (exercise, answer, start).
NAMED_MISTAKES = {
    "squeeze_without_a_dimension_fails_on_a_batch_of_one": (
        "gather_last_step",
        (
            "def gather_last_step(output, lengths):\n"
            "    idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.shape[2])\n"
            "    return output.gather(1, idx).squeeze()\n"
        ),
        "squeeze() drops",
    ),
    "a_time_major_index_on_the_batch_first_output_is_named": (
        "gather_last_step",
        "def gather_last_step(output, lengths):\n    return output[lengths - 1, torch.arange(len(lengths))]\n",
        "This indexes a time-major",
    ),
    "off_by_one_is_named_even_where_it_does_not_run_off_the_end": (
        "gather_last_step",
        "def gather_last_step(output, lengths):\n    return output[torch.arange(len(lengths)), lengths]\n",
        "Off by one",
    ),
    "shifting_by_the_longest_length_fails_on_a_wider_batch": (
        "left_pad",
        (
            "def left_pad(padded, lengths):\n"
            "    longest = int(lengths.max())\n"
            "    return torch.stack([r.roll(longest - n) for r, n in zip(padded, lengths.tolist())])\n"
        ),
        "Each row is rolled by the longest",
    ),
    "rolling_left_by_the_pads_is_told_the_direction": ("left_pad", ROLLED_THE_WRONG_WAY, "Each row went the wrong way"),
    "returning_the_probabilities_change_is_named": (
        "pad_shift",
        (
            "@torch.no_grad()\n"
            "def pad_shift(model, padded, lengths, extra):\n"
            "    longer = nn.functional.pad(padded, (0, extra))\n"
            "    return model(longer, lengths).softmax(1) - model(padded, lengths).softmax(1)\n"
        ),
        "This is the change of the probabilities",
    ),
}


@pytest.mark.parametrize("name, text, start", NAMED_MISTAKES.values(), ids=NAMED_MISTAKES)
def test_wrong_answers_are_named(chapter, name, text, start):
    output = attempt(chapter, name, text)
    assert output.startswith(WRONG) and named(chapter, name, output, start), output


# Wrong answers, each with words the check's rejection must say: test id -> (exercise, answer, words).
SAID = {
    "rewriting_the_callers_batch_in_place_is_caught": (
        "left_pad",
        (
            "def left_pad(padded, lengths):\n"
            "    width = padded.shape[1]\n"
            "    for i, n in enumerate(lengths.tolist()):\n"
            "        padded[i] = padded[i].roll(width - n)\n"
            "    return padded\n"
        ),
        "`padded` in place",
    ),
}


@pytest.mark.parametrize("name, text, words", SAID.values(), ids=SAID)
def test_wrong_answers_are_told_why(chapter, name, text, words):
    output = attempt(chapter, name, text)
    assert output.startswith(WRONG) and words in output, output


def test_rolling_left_by_the_pads_is_told_which_way_is_right(chapter):
    assert "left by its length" in attempt(chapter, "left_pad", ROLLED_THE_WRONG_WAY)
