"""Deep dive 15's check under the attack of exercise_checks_attack.md (finding 1): the question is about
gradients, so the cases' scores require grad; a loss computed under torch.no_grad or rebuilt with torch.tensor,
which passed, is now rejected and named as detached. The cases hold a micro-batch of one sequence, a last
partial micro-batch, rows all padded and hidden steps; correct alternatives pass."""

import pytest
from exercise_harness import printed

RIGHT = "✓ step_losses is right"
WRONG = "✗ step_losses is wrong"


def verdict(chapter, source):
    return printed(chapter.check("step_losses"), chapter.define(source, "step_losses"))


# Finding 1, as the attack wrote it: ✓ before, yet the result had no grad_fn.
NO_GRAD = """
@torch.no_grad()
def step_losses(scores, tags):
    count = sum(int((t != -100).sum()) for t in tags)
    f = nn.CrossEntropyLoss(ignore_index=-100, reduction="sum")
    return torch.stack([f(s.flatten(0, 1), t.flatten()) / count for s, t in zip(scores, tags)])
"""
REBUILT = """
def step_losses(scores, tags):
    count = sum(int((t != -100).sum()) for t in tags)
    f = nn.CrossEntropyLoss(reduction="sum")
    sums = [f(s.flatten(0, 1), t.flatten()).item() for s, t in zip(scores, tags)]
    return torch.tensor([s / count for s in sums], dtype=scores[0].dtype)
"""


@pytest.mark.parametrize("source", [NO_GRAD, REBUILT])
def test_a_detached_loss_is_rejected_and_named(chapter, source):
    output = verdict(chapter, source)
    assert output.startswith(WRONG), output
    assert "no gradient" in output and "divide-by-a-fixed-or-global-token-count" in output


CORRECT = [
    """
def step_losses(scores, tags):
    count = sum(int((t != -100).sum()) for t in tags)  # a Python int
    f = nn.CrossEntropyLoss(reduction="sum")
    return torch.stack([f(s.flatten(0, 1), t.flatten()) / count for s, t in zip(scores, tags)])
""",
    """
def step_losses(scores, tags):
    count = sum((t != -100).sum() for t in tags)
    losses = []
    for s, t in zip(scores, tags):
        keep = t != -100
        mean = nn.functional.cross_entropy(s[keep], t[keep])  # the micro-batch mean ...
        losses.append(mean * keep.sum() / count)  # ... times its share of the step
    return torch.stack(losses)
""",
    """
def step_losses(scores, tags):
    count = sum((t != -100).sum() for t in tags)
    out = []
    for s, t in zip(scores, tags):
        log_p = s.double().log_softmax(-1).gather(-1, t.clamp(min=0)[..., None])[..., 0]
        out.append((-(log_p * (t != -100)).sum() / count).to(s.dtype))
    return torch.stack(out)
""",
]


@pytest.mark.parametrize("source", CORRECT)
def test_correct_alternatives_pass(chapter, source):
    assert verdict(chapter, source).startswith(RIGHT)


@pytest.mark.parametrize(
    "source, named",
    [
        (
            (
                "def step_losses(scores, tags):\n"
                "    f = nn.CrossEntropyLoss(reduction='sum', ignore_index=-1)\n"
                "    return torch.stack([f(s.flatten(0, 1), t.flatten()) for s, t in zip(scores, tags)])"
            ),
            "Without ignore_index=-100",
        ),
        (
            (
                "def step_losses(scores, tags):\n"
                "    f = nn.CrossEntropyLoss(reduction='sum')\n"
                "    return torch.stack([f(s.flatten(0, 1), t.flatten()) for s, t in zip(scores, tags)])"
            ),
            "not divided by any count",
        ),
        (
            (
                "def step_losses(scores, tags):\n"
                "    f = nn.CrossEntropyLoss()\n"
                "    return torch.stack([f(s.flatten(0, 1), t.flatten()) for s, t in zip(scores, tags)])"
            ),
            "divided by its own token count",
        ),
    ],
)
def test_what_learners_write_is_named(chapter, source, named):
    output = verdict(chapter, source)
    assert output.startswith(WRONG) and named in output, output


def test_the_whole_step_as_one_scalar_is_told_by_its_shape(chapter):
    source = """
def step_losses(scores, tags):
    f = nn.CrossEntropyLoss(reduction="sum")
    count = sum((t != -100).sum() for t in tags)
    return sum(f(s.flatten(0, 1), t.flatten()) for s, t in zip(scores, tags)) / count
"""
    assert "has shape ()" in verdict(chapter, source)


def test_the_cases_require_grad_and_hold_the_classes(chapter):
    cases = chapter.check("step_losses").make_cases()
    assert all(score.requires_grad for case in cases for score in case.args[0])
    assert all(case.want.requires_grad for case in cases)
    assert any(len(case.args[0]) == 1 and case.args[0][0].size(0) == 1 for case in cases), "one sequence"
    assert any(tag.size(0) == 1 for case in cases for tag in case.args[1][1:]), "a last micro-batch of one row"
    assert any((tag[:, -1] == -100).all() for case in cases for tag in case.args[1]), "rows all padded"
    assert any(not case.shown for case in cases), "hidden cases"
