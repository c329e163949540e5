"""The exercise checks of deep dive 15: the loss of each micro-batch of one optimizer step.

The question is about gradients (the losses' gradients must add up to the whole step's), so the cases' scores
require grad and the engine compares gradients; a detached loss is named (chapter 8's `detached` mistake).
"""

from __future__ import annotations

import torch
from torch import nn

from padpack.checks import Case, Exercise, Mistake
from padpack.course.exercises.ch08 import detached
from padpack.course.tagging import LABEL_PAD, NUM_TAGS
from padpack.i18n import N_

__all__ = ["check_step_losses"]

PAGE = "15_deep_dive_loss_normalisation"
GLOBAL_COUNT = f"{PAGE}#divide-by-a-fixed-or-global-token-count-not-by-each-batch-s-own"


def _micro_batches(micro_lengths: list[list[int]], dtype: torch.dtype, width: int | None) -> tuple[list, list]:
    """Random scores that require grad and tags with -100 after each length, one pair per micro-batch."""
    scores, tags = [], []
    for lengths in micro_lengths:
        columns = width or max(lengths)
        scores.append(torch.randn(len(lengths), columns, NUM_TAGS, dtype=dtype, requires_grad=True))
        tag = torch.randint(0, NUM_TAGS, (len(lengths), columns))
        for row, length in enumerate(lengths):
            tag[row, length:] = LABEL_PAD
        tags.append(tag)
    return scores, tags


def step_losses_cases() -> list[Case]:
    """Micro-batches with -100 at the pads; the answer by a slow loop."""
    cases = []
    for label, micro_lengths, dtype, width, shown in [
        (N_("two micro-batches of 9 and 4 real tokens"), [[5, 2, 2], [3, 1]], torch.float32, None, True),
        (N_("three micro-batches, a length of 1"), [[1, 4], [2, 6, 3], [4]], torch.float32, None, True),
        (N_("one micro-batch of one sequence"), [[6]], torch.float32, None, True),
        (N_("micro-batches as wide as the step, every row padded"), [[2, 3], [5, 1]], torch.float32, 7, True),
        (N_("float64 scores"), [[3, 5], [2, 2]], torch.float64, None, True),
        (N_("another step: a last micro-batch of one row"), [[7, 1, 3], [2, 2], [1]], torch.float32, None, False),
        (N_("another step: three micro-batches of one row"), [[3], [5], [2]], torch.float32, 6, False),
        (N_("another step: float64, one micro-batch"), [[4, 4]], torch.float64, None, False),
    ]:
        scores, tags = _micro_batches(micro_lengths, dtype, width)
        step_count = sum(map(sum, micro_lengths))
        want = []
        for score, tag in zip(scores, tags, strict=True):
            total = torch.zeros((), dtype=dtype)
            for row, column in (tag != LABEL_PAD).nonzero().tolist():
                log_p = score[row, column].log_softmax(dim=0)
                total = total - log_p[tag[row, column]]
            want.append(total / step_count)
        cases.append(Case(label, (scores, tags), torch.stack(want), shown))
    return cases


def _summed_losses(scores, tags, ignore_index=LABEL_PAD) -> list:
    return [
        nn.functional.cross_entropy(score.flatten(0, 1), tag.flatten(), ignore_index=ignore_index, reduction="sum")
        for score, tag in zip(scores, tags, strict=True)
    ]


def _own_counts(scores, tags) -> torch.Tensor:
    counts = [(tag != LABEL_PAD).sum() for tag in tags]
    return torch.stack(_summed_losses(scores, tags)) / torch.stack(counts)


def _step_losses(scores, tags) -> torch.Tensor:
    step_count = sum((tag != LABEL_PAD).sum() for tag in tags)
    return torch.stack(_summed_losses(scores, tags)) / step_count


check_step_losses = Exercise(
    step_losses_cases,
    [
        Mistake(
            lambda scores, tags: _own_counts(scores, tags) / len(tags),
            N_(
                "This is the mean of the micro-batch means: a token of a "
                "micro-batch with few real tokens weighs more. Divide every sum "
                "by the real-token count of the whole step."
            ),
            GLOBAL_COUNT,
        ),
        Mistake(
            _own_counts,
            N_(
                "Each micro-batch is divided by its own token count, so the "
                "accumulated gradient is about k times the whole batch's and "
                "weighs tokens unequally."
            ),
            GLOBAL_COUNT,
        ),
        Mistake(
            lambda scores, tags: torch.stack(_summed_losses(scores, tags)) / sum(tag.numel() for tag in tags),
            N_(
                "The count includes the pads: divide by the real tokens only "
                "(tags != -100), not by every padded position."
            ),
            "08_sequence_labelling_and_loss_masking#the-wrong-loss-averaging-over-the-pads-too",
        ),
        Mistake(
            lambda scores, tags: torch.stack(_summed_losses(scores, tags)),
            N_(
                "These are the summed losses, not divided by any count: their "
                "gradient grows with the number of tokens. Divide each sum by the "
                "real-token count of the whole step."
            ),
            GLOBAL_COUNT,
        ),
        Mistake(
            lambda scores, tags: torch.stack(_summed_losses(scores, tags, ignore_index=-1)),
            N_("Without ignore_index=-100 the loss reads the pad label -100 as a class, which does not exist."),
            "08_sequence_labelling_and_loss_masking#padding-the-labels-with-an-ignore-value",
            raises=True,
        ),
        Mistake(
            detached(_step_losses),
            N_(
                "The values are right but the losses have no gradient: they were "
                "computed under torch.no_grad() or rebuilt with torch.tensor from "
                "numbers, so backward() adds nothing to the step. Keep them tensors "
                "of the scores' graph."
            ),
            GLOBAL_COUNT,
        ),
    ],
    N_(
        "First count the real tokens (tags != -100) of all the "
        "micro-batches together. Then take each micro-batch's summed token loss "
        "(reduction='sum', ignore_index=-100) and divide it by that one count."
    ),
)
