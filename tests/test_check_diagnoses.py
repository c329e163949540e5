"""The exercise checks name the right mistake (issue #47): each wrong answer of tests/check_wrong_answers.py is
rejected with the mistake it makes, none with another's, and correct answers written the ways those mistakes
almost are still pass."""

from __future__ import annotations

import copy

import pytest
from check_wrong_answers import HELD_OUT, WRONG_ANSWERS, measure
from exercise_harness import Chapter, printed
from test_exercises import EXERCISES, IDS

from padpack.checks import TEXT, _outcome, _raised, same
from padpack.i18n import use_language


@pytest.fixture(autouse=True)
def english():
    use_language("en")
    yield
    use_language("en")


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    "number, name, text, expected",
    WRONG_ANSWERS + HELD_OUT,
    ids=[f"{number}-{name}-{index}" for index, (number, name, _, _) in enumerate(WRONG_ANSWERS + HELD_OUT)],
)
def test_a_wrong_answer_is_rejected_with_its_own_mistake(number, name, text, expected):
    chapter = Chapter.load(number)
    check = chapter.check(name)
    output = printed(check, chapter.define(text, name))
    assert output.startswith(f"✗ {name} is wrong"), output
    named = [mistake.message for mistake in check.mistakes if flat(mistake.message) in flat(output)]
    if expected is None:
        assert not named, output
    elif expected.startswith("@"):
        start = flat(TEXT[expected[1:]]).split("{")[0]
        assert not named and start in flat(output), output
    else:
        assert len(named) == 1 and named[0].startswith(expected), output


@pytest.mark.parametrize("answers", [WRONG_ANSWERS, HELD_OUT], ids=["seen", "held out"])
def test_most_rejected_wrong_answers_get_a_named_mistake_and_none_a_wrong_one(answers):
    counts = measure(answers)
    assert counts["named wrongly"] == 0 and counts["accepted"] == 0, counts
    assert counts["named"] >= 0.6 * counts["rejected"], counts


# Correct answers that come close to the new diagnoses: a transpose where a view would glue, a NumPy computation
# turned into a tensor, a list of tensors stacked, an out-of-place division, a sort applied to the whole pair.
CORRECT = [
    (
        "06",
        "bidirectional_summary",
        "def bidirectional_summary(h_n):\n    return h_n[-2:].transpose(0, 1).reshape(h_n.size(1), -1)\n",
    ),
    (
        "04",
        "wide_hand_over",
        (
            "def wide_hand_over(h_n, num_layers):\n"
            "    B, H = h_n.shape[1:]\n"
            "    return h_n.view(num_layers, 2, B, H).permute(0, 2, 1, 3).reshape(num_layers, B, 2 * H)\n"
        ),
    ),
    (
        "02",
        "batch_sizes_from_lengths",
        (
            "def batch_sizes_from_lengths(lengths):\n"
            "    import numpy as np\n"
            "    n = lengths.numpy()\n"
            "    return torch.as_tensor(np.array([(n > t).sum() for t in range(n.max())]), dtype=torch.int64)\n"
        ),
    ),
    (
        "04",
        "sentence_vector",
        (
            "def sentence_vector(rnn, padded, lengths):\n"
            "    packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)\n"
            "    _, h = rnn(packed)\n"
            "    h_n = h[0] if isinstance(h, tuple) else h\n"
            "    return torch.stack([torch.cat([h_n[-2, b], h_n[-1, b]]) for b in range(len(lengths))])\n"
        ),
    ),
    (
        "10",
        "scaled_losses",
        (
            "def scaled_losses(sums, counts):\n"
            "    scaled = sums / counts.sum()\n"
            "    scaled = scaled * len(counts)\n"
            "    return scaled\n"
        ),
    ),
    (
        "17",
        "global_mean_loss",
        (
            "def global_mean_loss(loss_sums, counts):\n"
            "    total = loss_sums.clone()\n"
            "    total /= counts.sum()\n"
            "    return total.sum()\n"
        ),
    ),
    (
        "05",
        "sorted_collate",
        (
            "def sorted_collate(batch, pad_id):\n"
            "    lengths = torch.tensor([len(ids) for ids, _ in batch])\n"
            "    order = lengths.argsort(descending=True)\n"
            "    padded = pad_sequence([ids for ids, _ in batch], batch_first=True, padding_value=pad_id)\n"
            "    labels = torch.tensor([label for _, label in batch])\n"
            "    return padded[order], lengths[order], labels[order]\n"
        ),
    ),
    (
        "07",
        "gather_last_step",
        (
            "def gather_last_step(output, lengths):\n"
            "    idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))\n"
            "    return output.gather(1, idx).squeeze(1)\n"
        ),
    ),
    (
        "10",
        "step_counts",
        (
            "def step_counts(batches, world_size):\n"
            "    sizes = torch.tensor([len(b) for b in batches])\n"
            "    return sizes.view(-1, world_size).sum(1).tolist()\n"
        ),
    ),
]


@pytest.mark.parametrize("number, name, text", CORRECT, ids=[f"{n}-{name}" for n, name, _ in CORRECT])
def test_a_correct_answer_close_to_a_new_mistake_passes(number, name, text):
    chapter = Chapter.load(number)
    output = printed(chapter.check(name), chapter.define(text, name))
    assert output.startswith(f"✓ {name} is right"), output


@pytest.mark.parametrize("path, nb, name, parts", EXERCISES, ids=IDS)
def test_the_first_case_that_two_mistakes_get_wrong_tells_them_apart(path, nb, name, parts):
    """The ✗ line shows the first failing case: two mistakes of the table that give other answers somewhere give
    other answers there (a sort that is not its own inverse comes first, a last batch that is not full)."""
    check = Chapter.load(path.stem[:2]).check(name)
    cases = check.make_cases()
    answers = [
        [check._normalized(_outcome(mistake.wrong, copy.deepcopy(case.args))) for case in cases]
        for mistake in check.mistakes
    ]

    def alike(one, other):
        return _raised(one) == _raised(other) and same(one, other)

    problems = []
    for first in range(len(answers)):
        for second in range(first + 1, len(answers)):
            pair = list(zip(answers[first], answers[second], strict=True))
            if all(alike(*answers_on_case) for answers_on_case in pair):
                continue
            failing = next(
                index
                for index, (one, other) in enumerate(pair)
                if not (same(one, cases[index].want) and same(other, cases[index].want))
            )
            if alike(*pair[failing]):
                problems.append(f"mistakes {first} and {second} give the same answer on case {failing}")
    assert not problems, problems
