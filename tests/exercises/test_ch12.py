"""Deep dive 12's check under the attack of exercise_checks_attack.md: wrong answers it left unnamed, and correct
answers written differently from the solution."""

from exercise_harness import WRONG, attempt, each_is_named, each_passes

# From data and batch_sizes by hand: each sequence's steps written at the right end of its row. Right with the rows
# unsorted where there is something to unsort, wrong with unsorted_indices taken as always there.
BY_HAND = (
    "def unpack_left(packed, total_length):\n"
    "    sizes = packed.batch_sizes\n"
    "    B = int(sizes[0])\n"
    "    lengths = (sizes[None, :] > torch.arange(B)[:, None]).sum(1)\n"
    "    out = packed.data.new_zeros(B, total_length, *packed.data.shape[1:])\n"
    "    start = 0\n"
    "    for t, size in enumerate(sizes.tolist()):\n"
    "        for b in range(size):\n"
    "            out[b, total_length - int(lengths[b]) + t] = packed.data[start + b]\n"
    "        start += size\n"
)

# Correct answers written differently from the solution, which the check must accept.
CORRECT = {
    "unpack_left": [
        # roll each right-padded row by its number of pads
        (
            "def unpack_left(packed, total_length):\n"
            "    padded, lengths = pad_packed_sequence(packed, batch_first=True, total_length=total_length)\n"
            "    return torch.stack([row.roll(total_length - int(n), 0) for row, n in zip(padded, lengths)])\n"
        ),
        # torch's own left padding, then pad the time axis up to total_length
        (
            "def unpack_left(packed, total_length):\n"
            "    rows = unpack_sequence(packed)\n"
            "    left = pad_sequence(rows, batch_first=True, padding_side='left')\n"
            "    extra = left.new_zeros(len(rows), total_length - left.shape[1], *left.shape[2:])\n"
            "    return torch.cat([extra, left], dim=1)\n"
        ),
        # by hand, unsorting only when there is something to unsort
        BY_HAND
        + "    if packed.unsorted_indices is not None:\n        out = out[packed.unsorted_indices]\n    return out\n",
    ],
}
test_correct_answers_pass = each_passes(CORRECT)


# Wrong answers, each with the start of the mistake the check must name.
NAMED_MISTAKES = {
    "unpack_left": [
        (
            (
                "def unpack_left(packed, total_length):\n"
                "    padded, lengths = pad_packed_sequence(packed, batch_first=True)\n"
                "    out = torch.zeros(len(lengths), total_length, *padded.shape[2:])\n"
                "    for b, n in enumerate(lengths.tolist()):\n"
                "        out[b, total_length - n:] = padded[b, :n]\n"
                "    return out\n"
            ),
            "torch.zeros(...) makes float32 zeros",
        ),
        (
            BY_HAND + "    return out[packed.unsorted_indices]\n",
            "unsorted_indices is None when the batch was packed",
        ),
        (
            (
                "def unpack_left(packed, total_length):\n"
                "    padded, lengths = pad_packed_sequence(packed, total_length=total_length)\n"
                "    out = torch.zeros_like(padded)\n"
                "    for b, n in enumerate(lengths.tolist()):\n"
                "        out[total_length - n:, b] = padded[:n, b]\n"
                "    return out\n"
            ),
            "It is time-major",
        ),
        (
            (
                "def unpack_left(packed, total_length):\n"
                "    rows = unpack_sequence(packed)\n"
                "    return pad_sequence(rows, batch_first=True, padding_side='left')\n"
            ),
            "total_length was ignored",
        ),
    ],
}
test_wrong_answers_are_named = each_is_named(NAMED_MISTAKES)


def test_an_answer_hard_coded_to_the_listed_cases_fails(chapter):
    """The listed cases have float data; a hidden case has int64 tokens, another a batch of one at full length."""
    text = (
        "def unpack_left(packed, total_length):\n"
        "    padded, lengths = pad_packed_sequence(packed, batch_first=True, total_length=total_length)\n"
        "    if total_length == 4 and len(lengths) == 1:\n"
        "        return padded * 0\n"
        "    return torch.stack([row.roll(total_length - int(n), 0) for row, n in zip(padded, lengths)])\n"
    )
    assert attempt(chapter, "unpack_left", text).startswith(WRONG)
