"""Deep dive 12's check under the attack of exercise_checks_attack.md: wrong answers it left unnamed, and correct
answers written differently from the solution."""

import pytest
from exercise_harness import printed

from padpack.i18n import gettext


def attempt(chapter, text):
    return printed(chapter.check("unpack_left"), chapter.define(text, "unpack_left"))


def named(chapter, output, start):
    (mistake,) = [m for m in chapter.check("unpack_left").mistakes if m.message.startswith(start)]
    return " ".join(gettext(mistake.message).split()) in " ".join(output.split())


@pytest.mark.parametrize(
    "text",
    [
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
        # from data and batch_sizes by hand, unsorting only when there is something to unsort
        (
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
            "    if packed.unsorted_indices is not None:\n"
            "        out = out[packed.unsorted_indices]\n"
            "    return out\n"
        ),
    ],
)
def test_correct_alternatives_pass(chapter, text):
    assert attempt(chapter, text).startswith("✓")


@pytest.mark.parametrize(
    "text, start",
    [
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
            (
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
                "    return out[packed.unsorted_indices]\n"
            ),
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
)
def test_mistakes_are_named(chapter, text, start):
    output = attempt(chapter, text)
    assert output.startswith("✗") and named(chapter, output, start), output


def test_an_answer_hard_coded_to_the_listed_cases_fails(chapter):
    """The listed cases have float data; a hidden case has int64 tokens, another a batch of one at full length."""
    text = (
        "def unpack_left(packed, total_length):\n"
        "    padded, lengths = pad_packed_sequence(packed, batch_first=True, total_length=total_length)\n"
        "    if total_length == 4 and len(lengths) == 1:\n"
        "        return padded * 0\n"
        "    return torch.stack([row.roll(total_length - int(n), 0) for row, n in zip(padded, lengths)])\n"
    )
    assert attempt(chapter, text).startswith("✗")
