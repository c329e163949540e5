"""Deep dive 14's check under the classes of ../shared/reviews/exercise_checks_attack.md: an answer that flips its
input in place is caught, one hard-coded to the listed cases fails, the off-by-one mask is named, and correct
answers written differently pass."""

from exercise_harness import printed


def verdict(chapter, source):
    return printed(chapter.check("repair_backward"), chapter.define(source, "repair_backward"))


HEAD = "def repair_backward(output, reversed_output, lengths):\n"
# each row's first lengths[b] steps flipped back, in a loop
BACK = (
    "    rows = zip(reversed_output, lengths.tolist())\n"
    "    back = torch.stack([torch.cat([r[:n].flip(0), r[n:]]) for r, n in rows])\n"
)


def test_flipping_reversed_output_in_place_is_rejected(chapter):
    output = verdict(
        chapter,
        HEAD + "    for b, n in enumerate(lengths.tolist()):\n"
        "        reversed_output[b, :n] = reversed_output[b, :n].flip(0).clone()\n"
        "    H = reversed_output.size(-1)\n"
        "    valid = torch.arange(output.size(1))[None] < lengths[:, None]\n"
        "    return torch.cat([output[..., :H], reversed_output], -1) * valid[..., None]\n",
    )
    assert output.startswith("✗") and "changed its argument `reversed_output` in place" in output


def test_the_off_by_one_mask_is_named(chapter):
    output = verdict(
        chapter,
        HEAD
        + "    H = reversed_output.size(-1)\n"
        + BACK
        + "    valid = torch.arange(output.size(1))[None] <= lengths[:, None]\n"
        "    return torch.cat([output[..., :H], back], -1) * valid[..., None]\n",
    )
    assert "A mask built with <= keeps step lengths[b]" in output


def test_an_answer_for_the_listed_steps_only_fails_on_a_hidden_case(chapter):
    output = verdict(
        chapter,
        HEAD + "    if output.size(0) == 5:  # only the hidden case has 5 sequences\n"
        "        return output\n"
        "    H = reversed_output.size(-1)\n"
        + BACK
        + "    valid = torch.arange(output.size(1))[None] < lengths[:, None]\n"
        "    return torch.cat([output[..., :H], back], -1) * valid[..., None]\n",
    )
    assert output.startswith("✗ repair_backward is wrong on a case that is not listed"), output
    assert "6, 2, 6, 1, 3" not in output, "a hidden case's inputs are not printed"


def test_a_loop_answer_passes(chapter):
    output = verdict(
        chapter,
        HEAD + "    H = reversed_output.size(-1)\n"
        "    repaired = torch.zeros_like(output)\n"
        "    for b, n in enumerate(lengths.tolist()):\n"
        "        repaired[b, :n, :H] = output[b, :n, :H]\n"
        "        repaired[b, :n, H:] = reversed_output[b, :n].flip(0)\n"
        "    return repaired\n",
    )
    assert output.startswith("✓"), output
