"""Chapter 2's checks under the attack of exercise_checks_attack.md: wrong answers it accepted or misnamed, and
correct answers written differently from the solutions."""

from exercise_harness import WRONG, attempt, each_is_named, each_is_told, each_passes, named

# Correct answers written differently from the solutions, which the checks must accept.
CORRECT = {
    "batch_sizes_from_lengths": [
        # reversed cumulative sum of a histogram, entry 0 dropped
        (
            "def batch_sizes_from_lengths(lengths):\n"
            "    counts = torch.bincount(lengths).flip(0).cumsum(0).flip(0)\n"
            "    return counts[1:]\n"
        ),
        # a loop over the steps
        (
            "def batch_sizes_from_lengths(lengths):\n"
            "    return torch.tensor([int((lengths > t).sum()) for t in range(int(lengths.max()))])\n"
        ),
        # sort, then count the sorted lengths still running
        (
            "def batch_sizes_from_lengths(lengths):\n"
            "    ordered = sorted(lengths.tolist(), reverse=True)\n"
            "    return torch.tensor([sum(n > t for n in ordered) for t in range(ordered[0])])\n"
        ),
    ],
    "packed_data": [
        # a loop over the steps of the sorted sequences
        (
            "def packed_data(sequences):\n"
            "    ordered = sorted(sequences, key=len, reverse=True)\n"
            "    rows = [s[t] for t in range(len(ordered[0])) for s in ordered if len(s) > t]\n"
            "    return torch.stack(rows)\n"
        ),
        # a batch-first mask, transposed to read step by step
        (
            "def packed_data(sequences):\n"
            "    lengths = torch.tensor([len(s) for s in sequences])\n"
            "    order = lengths.argsort(descending=True, stable=True)\n"
            "    padded = pad_sequence([sequences[i] for i in order], batch_first=True)\n"
            "    valid = torch.arange(padded.shape[1])[None, :] < lengths[order][:, None]\n"
            "    return padded.transpose(0, 1)[valid.T]\n"
        ),
    ],
    "last_rows": [
        # the solution's arithmetic, with the sort undone through a guard written differently
        (
            "def last_rows(packed):\n"
            "    starts = torch.cumsum(packed.batch_sizes, 0) - packed.batch_sizes\n"
            "    B = int(packed.batch_sizes[0])\n"
            "    L = (packed.batch_sizes[None, :] > torch.arange(B)[:, None]).sum(dim=1)\n"
            "    rows = starts[L - 1] + torch.arange(B)\n"
            "    order = packed.unsorted_indices\n"
            "    return rows if order is None else rows.index_select(0, order)\n"
        ),
        # unpack the lengths (allowed as a reference here) and walk the steps
        (
            "def last_rows(packed):\n"
            "    sizes = packed.batch_sizes.tolist()\n"
            "    rows, start = [0] * sizes[0], 0\n"
            "    for size in sizes:\n"
            "        for slot in range(size):\n"
            "            rows[slot] = start + slot\n"
            "        start += size\n"
            "    rows = torch.tensor(rows)\n"
            "    if packed.unsorted_indices is not None:\n"
            "        rows = rows[packed.unsorted_indices]\n"
            "    return rows\n"
        ),
    ],
}
test_correct_answers_pass = each_passes(CORRECT)


# The attack's finding 6: indexing with unsorted_indices, which is None after enforce_sorted=True.
UNSORTED_INDICES_OF_A_SORTED_PACK = (
    "def last_rows(packed):\n"
    "    starts = torch.cumsum(packed.batch_sizes, 0) - packed.batch_sizes\n"
    "    B = int(packed.batch_sizes[0])\n"
    "    L = (packed.batch_sizes[None, :] > torch.arange(B)[:, None]).sum(dim=1)\n"
    "    return (starts[L - 1] + torch.arange(B))[packed.unsorted_indices]\n"
)

# Wrong answers, each with the start of the mistake the check must name.
NAMED_MISTAKES = {
    "batch_sizes_from_lengths": [
        (
            "def batch_sizes_from_lengths(lengths):\n    return torch.bincount(lengths).flip(0).cumsum(0).flip(0)\n",
            "One entry too many",
        ),
        (
            (
                "def batch_sizes_from_lengths(lengths):\n"
                "    return [int((lengths > t).sum()) for t in range(int(lengths.max()))]\n"
            ),
            "The counts are right, but in a Python list",
        ),
        (
            (
                "def batch_sizes_from_lengths(lengths):\n"
                "    return torch.stack([(lengths > t).sum() for t in range(1, int(lengths.max()) + 1)])\n"
            ),
            "The steps start at 1",
        ),
        (
            "def batch_sizes_from_lengths(lengths):\n    return torch.sort(lengths, descending=True)[0]\n",
            "These are the lengths sorted longest first",
        ),
    ],
    "packed_data": [
        # the attack's finding: packing without batch_first=True, silently wrong
        (
            (
                "def packed_data(sequences):\n"
                "    lengths = torch.tensor([len(s) for s in sequences])\n"
                "    padded = pad_sequence(sequences, batch_first=True)\n"
                "    return pack_padded_sequence(padded, lengths, enforce_sorted=False).data\n"
            ),
            "A batch-first (B x T) tensor packed without batch_first=True",
        ),
        # and the same with the sort done by hand, which raises torch's count error
        (
            (
                "def packed_data(sequences):\n"
                "    ordered = sorted(sequences, key=len, reverse=True)\n"
                "    lengths = [len(s) for s in ordered]\n"
                "    return pack_padded_sequence(pad_sequence(ordered, batch_first=True), lengths).data\n"
            ),
            "This error comes from packing a batch-first",
        ),
        (
            (
                "def packed_data(sequences):\n"
                "    ordered = sorted(sequences, key=len, reverse=True)\n"
                "    return pad_sequence(ordered).flatten(0, 1)\n"
            ),
            "The pads are in it",
        ),
        (
            (
                "def packed_data(sequences):\n"
                "    ordered = sorted(sequences, key=len, reverse=True)\n"
                "    lengths = torch.tensor([len(s) for s in ordered])\n"
                "    valid = torch.arange(int(lengths[0]))[None, :] < lengths[:, None]\n"
                "    return pad_sequence(ordered, batch_first=True)[valid]\n"
            ),
            "Sorted right, but batch-major",
        ),
        (
            "def packed_data(sequences):\n    return pack_sequence(sequences).data\n",
            "pack_sequence with the default enforce_sorted=True",
        ),
    ],
    "last_rows": [
        (UNSORTED_INDICES_OF_A_SORTED_PACK, "unsorted_indices is None"),
        (
            (
                "def last_rows(packed):\n"
                "    starts = torch.cumsum(packed.batch_sizes, 0) - packed.batch_sizes\n"
                "    B = int(packed.batch_sizes[0])\n"
                "    L = (packed.batch_sizes[None, :] > torch.arange(B)[:, None]).sum(dim=1)\n"
                "    rows = starts[L] + torch.arange(B)\n"
                "    return rows if packed.unsorted_indices is None else rows[packed.unsorted_indices]\n"
            ),
            "Off by one past the end",
        ),
        (
            (
                "def last_rows(packed):\n"
                "    starts = torch.cumsum(packed.batch_sizes, 0) - packed.batch_sizes\n"
                "    _, lengths = pad_packed_sequence(packed)\n"
                "    return starts[lengths - 1] + torch.arange(len(lengths))\n"
            ),
            "The lengths of pad_packed_sequence are in your order",
        ),
        (
            (
                "def last_rows(packed):\n"
                "    starts = torch.cumsum(packed.batch_sizes, 0) - packed.batch_sizes\n"
                "    B = int(packed.batch_sizes[0])\n"
                "    L = (packed.batch_sizes[None, :] > torch.arange(B)[:, None]).sum(dim=1)\n"
                "    rows = starts[L - 1]\n"
                "    return rows if packed.unsorted_indices is None else rows[packed.unsorted_indices]\n"
            ),
            "This is the first row of each sequence's last step",
        ),
    ],
}
test_wrong_answers_are_named = each_is_named(NAMED_MISTAKES)


def test_unsorted_indices_none_is_not_named_as_the_sorted_indices_mistake(chapter):
    output = attempt(chapter, "last_rows", UNSORTED_INDICES_OF_A_SORTED_PACK)
    assert not named(chapter, "last_rows", output, "sorted_indices goes from"), output


# Wrong answers, each with words the check's rejection must say.
SAID = {
    "batch_sizes_from_lengths": [
        # batch sizes hard coded to the listed cases fails
        (
            (
                "def batch_sizes_from_lengths(lengths):\n"
                "    known = {(2, 5, 3): [3, 3, 2, 1, 1], (4, 1, 3, 3): [4, 3, 3, 1],\n"
                "             (5, 4, 2, 1): [4, 3, 2, 2, 1], (1,): [1]}\n"
                "    return torch.tensor(known.get(tuple(lengths.tolist()), [0]))\n"
            ),
            "is wrong on a case that is not listed (its inputs stay hidden)",
        ),
        # batch sizes sorting the callers lengths in place is caught
        (
            (
                "def batch_sizes_from_lengths(lengths):\n"
                "    lengths[:] = lengths.sort(descending=True).values\n"
                "    return (lengths[None, :] > torch.arange(int(lengths[0]))[:, None]).sum(1)\n"
            ),
            "in place",
        ),
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)


def test_last_rows_hard_coded_to_the_listed_cases_fails(chapter):
    text = (
        "def last_rows(packed):\n"
        "    known = {(3, 3, 2, 1, 1): [6, 9, 8], (5, 4, 4, 3, 3, 1, 1): [19, 21, 2, 17, 18],\n"
        "             (3, 2, 1, 1): [6, 4, 2], (1,): [0]}\n"
        "    return torch.tensor(known[tuple(packed.batch_sizes.tolist())])\n"
    )
    assert attempt(chapter, "last_rows", text).startswith(WRONG)
