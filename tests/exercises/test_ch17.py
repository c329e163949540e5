"""Deep dive 17's exercise check under the attack of ../shared/reviews/exercise_checks_attack.md: the mean loss
is a loss, so the check compares gradients and names a detached answer; each known mistake is named (in English
and Chinese), hidden cases catch an answer written for the listed ones, and correct answers written another way
pass."""

from __future__ import annotations

import pytest
import torch
from exercise_harness import each_is_told, each_passes, printed, squeezed

from padpack.i18n import gettext, use_language

NAME = "global_mean_loss"


def test_the_solution_passes_and_the_stub_is_not_attempted(chapter):
    check = chapter.check(NAME)
    assert printed(check, chapter.solution(NAME)).startswith(f"✓ {NAME} is right")
    assert printed(check, chapter.stub(NAME)).startswith("Not attempted yet")
    assert sum(not case.shown for case in check.make_cases()) >= 2
    assert len(check.mistakes) >= 3


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_known_mistake_is_named(chapter, language):
    check = chapter.check(NAME)
    use_language(language)
    try:
        for mistake in check.mistakes:

            def global_mean_loss(*args, _wrong=mistake.wrong):
                return _wrong(*args)

            shown = printed(check, global_mean_loss)
            assert "✗" in shown and squeezed(gettext(mistake.message)) in squeezed(shown), shown
    finally:
        use_language("en")


def test_the_cases_require_grad(chapter):
    for case in chapter.check(NAME).make_cases():
        assert case.args[0].requires_grad and case.want.requires_grad


DETACHED = {
    "rebuilt": """
def global_mean_loss(loss_sums, counts):
    return torch.tensor(sum(loss_sums.tolist()) / int(counts.sum()), dtype=loss_sums.dtype)
""",
    "no_grad": """
@torch.no_grad()
def global_mean_loss(loss_sums, counts):
    return loss_sums.sum() / counts.sum()
""",
}


def test_an_answer_hard_coded_to_the_listed_cases_fails(chapter):
    check = chapter.check(NAME)
    listed = [(case.args[0].detach(), case.want.detach()) for case in check.make_cases() if case.shown]

    def global_mean_loss(loss_sums, counts):
        for sums, want in listed:
            if sums.shape == loss_sums.shape and torch.equal(sums, loss_sums.detach()):
                return want + 0 * loss_sums.sum()
        return loss_sums.sum()

    assert printed(check, global_mean_loss).startswith("✗")


# Correct answers written differently from the solution, which the check must accept.
CORRECT = {
    NAME: [
        # a mean over a mean
        "def global_mean_loss(loss_sums, counts):\n    return loss_sums.mean() / counts.float().mean()\n",
        # the shares summed
        "def global_mean_loss(loss_sums, counts):\n    return (loss_sums / counts.sum()).sum()\n",
        # a Python int for the count
        "def global_mean_loss(loss_sums, counts):\n    return torch.sum(loss_sums) / int(torch.sum(counts))\n",
    ],
}
test_correct_answers_pass = each_passes(CORRECT)


# Wrong answers, each with words the check's rejection must say.
SAID = {
    NAME: [
        *[(source, "no gradient: it was detached") for source in DETACHED.values()],
        (
            "def global_mean_loss(loss_sums, counts):\n    return (loss_sums.sum() / counts.sum()).item()\n",
            ".item() turns the loss into a Python number",
        ),
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)
