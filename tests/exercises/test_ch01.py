"""Chapter 1's exercise checks under the attack of ../shared/reviews/exercise_checks_attack.md: the wrong answers
it found accepted now fail, and correct answers written another way pass. That each known mistake is named, in
English and Chinese, tests/test_exercises.py checks for every chapter."""

from __future__ import annotations

from exercise_harness import Chapter, attempt, each_fails, each_is_told, each_passes

# ---- bucketed_pad_tokens: dropping the last partial batch passed (attack finding 2) ----
DROP_LAST = """
def bucketed_pad_tokens(lengths, batch_size):
    s = lengths.sort().values
    k = len(s) // batch_size
    b = s[: k * batch_size].view(k, batch_size)
    return int((b.max(1).values[:, None] - b).sum())
"""


def test_dropping_the_last_partial_batch_fails_and_is_named(chapter):
    shown = attempt(chapter, "bucketed_pad_tokens", DROP_LAST)
    assert "✗ bucketed_pad_tokens is wrong on lengths 5, 1, 9, 3, 2, batches of 3" in shown
    assert "The last, smaller batch was dropped" in shown


def test_the_partial_batch_case_is_the_attacks():
    cases = Chapter.load("01").check("bucketed_pad_tokens").make_cases()
    (case,) = [case for case in cases if case.args[0].tolist() == [5, 1, 9, 3, 2] and case.args[1] == 3]
    assert case.want == 7


# ---- answers hard-coded to the printed cases fail on the hidden ones ----
HARD_CODED = {
    "bucketed_pad_tokens": [
        """
def bucketed_pad_tokens(lengths, batch_size):
    known = {((4, 6, 8, 5, 4, 3, 7, 8), 3): 4, ((12, 3, 7, 7, 30, 5), 2): 20,
             ((5, 1, 9), 1): 0, ((5, 1, 9, 3, 2), 3): 7, ((7,), 4): 0}
    return known.get((tuple(lengths.tolist()), batch_size), 0)
""",
    ],
    "batch_efficiency": [
        """
def batch_efficiency(lengths):
    known = {(4, 6, 8, 5, 4, 3, 7, 8): 45 / 64, (12, 3, 7, 7, 30, 5): 64 / 180, (5,): 1.0}
    return known.get(tuple(lengths.tolist()), 0.5)
""",
    ],
    "real_step_mask": [
        """
def real_step_mask(lengths, steps):
    if lengths.tolist() == [2]:
        return torch.tensor([[True, True, False, False]])
    if lengths.tolist() == [3, 1, 5]:
        return torch.arange(7) < lengths[:, None]
    return torch.arange(8) < torch.tensor([4, 6, 8, 5, 4, 3, 7, 8])[:, None]
""",
    ],
}
test_an_answer_hard_coded_to_the_printed_cases_fails = each_fails(HARD_CODED)


# ---- what learners write on this topic, named ----
SAID = {
    "batch_efficiency": [
        (
            "def batch_efficiency(lengths):\n    return lengths.sum().item() / (len(lengths) * lengths[0].item())\n",
            "The first length was taken as the longest",
        ),
        (
            "def batch_efficiency(lengths):\n    return len(lengths) * lengths.max().item() / lengths.sum().item()\n",
            "The share is upside down",
        ),
    ],
    "real_step_mask": [
        (
            "def real_step_mask(lengths, steps):\n    return torch.arange(steps) < lengths\n",
            "make them a column, lengths[:, None]",
        ),
    ],
    "bucketed_pad_tokens": [
        (
            (
                "def bucketed_pad_tokens(lengths, batch_size):\n"
                "    return sum(len(b) * b.max() - b.sum() for b in lengths.sort().values.split(batch_size))\n"
            ),
            "It returned a 0-d tensor",
        ),
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)


def test_sorting_the_callers_lengths_in_place_is_caught(chapter):
    source = """
def bucketed_pad_tokens(lengths, batch_size):
    lengths.copy_(lengths.sort().values)
    return sum(len(b) * int(b.max()) - int(b.sum()) for b in lengths.split(batch_size))
"""
    shown = attempt(chapter, "bucketed_pad_tokens", source)
    assert "✗" in shown and "changed its argument `lengths` in place" in shown, shown


def test_a_none_on_one_case_is_reported_as_none(chapter):
    source = """
def batch_efficiency(lengths):
    if len(lengths) > 1:
        return lengths.sum().item() / (len(lengths) * lengths.max().item())
"""
    shown = attempt(chapter, "batch_efficiency", source)
    assert "wrong on a batch of one" in shown and "It returned None" in shown, shown


# ---- correct answers written differently pass ----
CORRECT = {
    "batch_efficiency": [
        "def batch_efficiency(lengths):\n    return lengths.float().mean().item() / lengths.max().item()\n",
        "def batch_efficiency(lengths):\n    n = lengths.numpy()\n    return n.sum() / (n.size * n.max())\n",
    ],
    "real_step_mask": [
        "def real_step_mask(lengths, steps):\n    return lengths[:, None] > torch.arange(steps)\n",
        (
            "def real_step_mask(lengths, steps):\n"
            "    return torch.tensor([[t < n for t in range(steps)] for n in lengths.tolist()])\n"
        ),
    ],
    "bucketed_pad_tokens": [
        # chapter 1's own numpy helpers: the count is a NumPy integer
        (
            "def bucketed_pad_tokens(lengths, batch_size):\n"
            "    from padpack.course.lengths import split_into_batches\n\n"
            "    batches = split_into_batches(lengths.numpy(), batch_size, bucketed=True)\n"
            "    return sum(len(b) * b.max() - b.sum() for b in batches)\n"
        ),
        (
            "def bucketed_pad_tokens(lengths, batch_size):\n"
            "    s = sorted(lengths.tolist())\n"
            "    batches = [s[i : i + batch_size] for i in range(0, len(s), batch_size)]\n"
            "    return sum(len(b) * max(b) - sum(b) for b in batches)\n"
        ),
    ],
}
test_correct_answers_pass = each_passes(CORRECT)
