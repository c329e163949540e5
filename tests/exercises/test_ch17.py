"""Deep dive 17's exercise check under the attack of ../shared/reviews/exercise_checks_attack.md: the mean loss
is a loss, so the check compares gradients and names a detached answer; each known mistake is named (in English
and Chinese), hidden cases catch an answer written for the listed ones, and correct answers written another way
pass."""

from __future__ import annotations

import pytest
import torch
from exercise_harness import Chapter, printed, squeezed

from padpack.i18n import gettext, use_language

NAME = "global_mean_loss"


def verdict(chapter: Chapter, source: str) -> str:
    return printed(chapter.check(NAME), chapter.define(source, NAME))


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


@pytest.mark.parametrize("source", DETACHED.values(), ids=DETACHED.keys())
def test_a_detached_mean_loss_is_named_detached(chapter, source):
    shown = verdict(chapter, source)
    assert shown.startswith("✗") and "no gradient: it was detached" in shown, shown


def test_item_is_named(chapter):
    source = "def global_mean_loss(loss_sums, counts):\n    return (loss_sums.sum() / counts.sum()).item()\n"
    assert ".item() turns the loss into a Python number" in verdict(chapter, source)


@pytest.mark.parametrize(
    "source",
    [
        "def global_mean_loss(loss_sums, counts):\n    return loss_sums.mean() / counts.float().mean()\n",
        "def global_mean_loss(loss_sums, counts):\n    return (loss_sums / counts.sum()).sum()\n",
        "def global_mean_loss(loss_sums, counts):\n    return torch.sum(loss_sums) / int(torch.sum(counts))\n",
    ],
    ids=["mean-over-mean", "shares-summed", "python-int-count"],
)
def test_correct_alternatives_pass(chapter, source):
    assert verdict(chapter, source).startswith("✓")


def test_an_answer_hard_coded_to_the_listed_cases_fails(chapter):
    check = chapter.check(NAME)
    listed = [(case.args[0].detach(), case.want.detach()) for case in check.make_cases() if case.shown]

    def global_mean_loss(loss_sums, counts):
        for sums, want in listed:
            if sums.shape == loss_sums.shape and torch.equal(sums, loss_sums.detach()):
                return want + 0 * loss_sums.sum()
        return loss_sums.sum()

    assert printed(check, global_mean_loss).startswith("✗")
