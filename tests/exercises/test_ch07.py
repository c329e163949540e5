"""Chapter 7's checks under the attack of exercise_checks_attack.md: `squeeze()` with a batch of one, a
`left_pad` that rewrites the caller's batch, a partly right message for rolling the wrong way, the batch-first
index on a time-major reading, and correct answers written differently from the solutions."""

from exercise_harness import attempt, each_is_named, each_is_told, each_passes

# Correct answers written differently from the solutions, which the checks must accept.
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
test_correct_answers_pass = each_passes(CORRECT)


ROLLED_THE_WRONG_WAY = (
    "def left_pad(padded, lengths):\n"
    "    width = padded.shape[1]\n"
    "    return torch.stack([r.roll(-(width - n)) for r, n in zip(padded, lengths.tolist())])\n"
)

# Wrong answers, each with the start of the mistake the check must name.
NAMED_MISTAKES = {
    "gather_last_step": [
        # squeeze without a dimension fails on a batch of one
        (
            (
                "def gather_last_step(output, lengths):\n"
                "    idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.shape[2])\n"
                "    return output.gather(1, idx).squeeze()\n"
            ),
            "squeeze() drops",
        ),
        # a time major index on the batch first output is named
        (
            "def gather_last_step(output, lengths):\n    return output[lengths - 1, torch.arange(len(lengths))]\n",
            "This indexes a time-major",
        ),
        # off by one is named even where it does not run off the end
        (
            "def gather_last_step(output, lengths):\n    return output[torch.arange(len(lengths)), lengths]\n",
            "Off by one",
        ),
    ],
    "left_pad": [
        # shifting by the longest length fails on a wider batch
        (
            (
                "def left_pad(padded, lengths):\n"
                "    longest = int(lengths.max())\n"
                "    return torch.stack([r.roll(longest - n) for r, n in zip(padded, lengths.tolist())])\n"
            ),
            "Each row is rolled by the longest",
        ),
        # rolling left by the pads is told the direction
        (ROLLED_THE_WRONG_WAY, "Each row went the wrong way"),
    ],
    "pad_shift": [
        # returning the probabilities change is named
        (
            (
                "@torch.no_grad()\n"
                "def pad_shift(model, padded, lengths, extra):\n"
                "    longer = nn.functional.pad(padded, (0, extra))\n"
                "    return model(longer, lengths).softmax(1) - model(padded, lengths).softmax(1)\n"
            ),
            "This is the change of the probabilities",
        ),
    ],
}
test_wrong_answers_are_named = each_is_named(NAMED_MISTAKES)


# Wrong answers, each with words the check's rejection must say.
SAID = {
    "left_pad": [
        # rewriting the callers batch in place is caught
        (
            (
                "def left_pad(padded, lengths):\n"
                "    width = padded.shape[1]\n"
                "    for i, n in enumerate(lengths.tolist()):\n"
                "        padded[i] = padded[i].roll(width - n)\n"
                "    return padded\n"
            ),
            "`padded` in place",
        ),
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)


def test_rolling_left_by_the_pads_is_told_which_way_is_right(chapter):
    assert "left by its length" in attempt(chapter, "left_pad", ROLLED_THE_WRONG_WAY)
