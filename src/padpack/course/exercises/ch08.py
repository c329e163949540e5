"""The exercise checks of chapter 08: token accuracy from lengths, the per-sequence loss, the cropped loss.

The two losses are checked with scores that require grad, so an answer must carry the gradients as well as the
value: a loss computed under torch.no_grad, or rebuilt from plain numbers, has the right values and no
gradient, and the engine names the table's `detached(...)` mistake for it (deep dive 15 uses it too).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from padpack.checks import Case, Exercise, Mistake
from padpack.course.tagging import LABEL_PAD, SLOPE, TAG_NAMES
from padpack.i18n import N_

__all__ = ["check_accuracy_from_lengths", "check_cropped_loss", "check_per_sequence_loss"]

CHAPTER = "08_sequence_labelling_and_loss_masking"


def detached(loss: Callable) -> Callable:
    """`loss` computed under torch.no_grad: the right values, no gradient."""

    def wrong(*args):
        with torch.no_grad():
            return loss(*args)

    return wrong


def _without_gradient(loss: Callable) -> Mistake:
    """The mistake both losses name: `loss` with the right value and no gradient."""
    return Mistake(
        detached(loss),
        N_(
            "The value is right but the loss has no gradient: it was computed "
            "under torch.no_grad() or rebuilt from numbers (torch.tensor, "
            ".item()), so backward() cannot train the model. Keep every step "
            "in tensor operations on the scores."
        ),
        f"{CHAPTER}#three-correct-losses",
    )


# 1. accuracy_from_lengths


def _slope_padded_batch(lengths: list[int], width: int | None = None) -> tuple:
    """Random predictions and tags (B, width), the tags padded with SLOPE (0) after each length."""
    lengths = torch.tensor(lengths)
    shape = (len(lengths), width or int(lengths.max()))
    predictions = torch.randint(0, len(TAG_NAMES), shape)
    tags = torch.randint(0, len(TAG_NAMES), shape)
    for row, length in enumerate(lengths.tolist()):
        tags[row, length:] = SLOPE
    return predictions, tags, lengths


def _hits_counted_slowly(predictions, tags, lengths) -> float:
    hits = 0
    for row, length in enumerate(lengths.tolist()):
        for t in range(length):
            hits += int(predictions[row, t] == tags[row, t])
    return hits / int(lengths.sum())


def accuracy_from_lengths_cases() -> list[Case]:
    """Predictions, tags padded with 0 and lengths; hits counted slowly."""
    toy = (  # the metrics section's toy batch, its tags padded with SLOPE
        torch.tensor([[0, 1, 0, 0], [1, 2, 0, 0]]),
        torch.tensor([[0, 1, 2, 0], [1, 2, 0, 0]]),
        torch.tensor([3, 2]),
    )
    cases = [Case(N_("the toy batch, tags padded with 0 (SLOPE)"), toy, 4 / 5)]
    for label, lengths, width, shown in [
        (N_("lengths 4, 2, 6 (the longest not first)"), [4, 2, 6], None, True),
        (N_("a length of 1"), [1, 5, 3], None, True),
        (N_("a batch of one"), [5], None, True),
        (N_("a last batch of 3, tags wider than its longest"), [3, 1, 2], 6, True),
        (N_("another batch: five rows, all padded"), [7, 3, 3, 1, 8], 8, False),
        (N_("another batch: one row with pads"), [2], 4, False),
        (N_("another batch: two equal lengths, wide"), [9, 9, 2], 12, False),
    ]:
        batch = _slope_padded_batch(lengths, width)
        cases.append(Case(label, batch, _hits_counted_slowly(*batch), shown))
    return cases


def _real(tags, lengths, inclusive=False, shift=0):
    steps = torch.arange(tags.size(1))[None, :]
    ends = lengths[:, None] - shift
    return steps <= ends if inclusive else steps < ends


def _masked_hits(predictions, tags, lengths):
    return (predictions == tags) & _real(tags, lengths)


check_accuracy_from_lengths = Exercise(
    accuracy_from_lengths_cases,
    [
        Mistake(
            lambda predictions, tags, lengths: (predictions == tags).float().mean().item(),
            N_(
                "This counts every position, pads too (and tags != -100 is all "
                "True here, as the pads are 0): build the mask from lengths."
            ),
            f"{CHAPTER}#metrics-that-ignore-the-pads",
        ),
        Mistake(
            lambda predictions, tags, lengths: (
                ((predictions == tags) & _real(tags, lengths, True)).sum().item()
                / _real(tags, lengths, True).sum().item()
            ),
            N_(
                "A mask built with <= keeps the first pad after every shorter "
                "sequence: step t is real only when t < length."
            ),
            "03_lstm_hidden_state_extraction#pooling-over-time-needs-a-mask",
        ),
        Mistake(
            lambda predictions, tags, lengths: (
                ((predictions == tags) & _real(tags, lengths, shift=1)).sum().item()
                / _real(tags, lengths, shift=1).sum().item()
            ),
            N_(
                "A mask built with t < length - 1 drops each sequence's last real "
                "step: length - 1 is the last real index, so keep t < length."
            ),
            "03_lstm_hidden_state_extraction#pooling-over-time-needs-a-mask",
        ),
        Mistake(
            lambda predictions, tags, lengths: (
                ((predictions == tags) & (tags != SLOPE)).sum().item() / (tags != SLOPE).sum().item()
            ),
            N_(
                "tags != 0 drops every real slope tag along with the pads: 0 is "
                "a real class, which is why labels are padded with -100."
            ),
            f"{CHAPTER}#padding-the-labels-with-an-ignore-value",
        ),
        Mistake(
            lambda predictions, tags, lengths: (
                _masked_hits(predictions, tags, lengths).sum(dim=1).div(lengths).mean().item()
            ),
            N_(
                "This is the mean of per-sequence accuracies, where a short "
                "sequence counts as much as a long one: divide all hits by all "
                "real tokens."
            ),
            f"{CHAPTER}#metrics-that-ignore-the-pads",
        ),
        Mistake(
            lambda predictions, tags, lengths: _masked_hits(predictions, tags, lengths).sum().item() / tags.numel(),
            N_(
                "The hits are masked but the count is not: tags.numel() counts the "
                "pads too. Divide by the number of real tokens, mask.sum() or "
                "lengths.sum()."
            ),
            f"{CHAPTER}#metrics-that-ignore-the-pads",
        ),
        Mistake(
            lambda predictions, tags, lengths: (
                _masked_hits(predictions, tags, lengths).sum() / _real(tags, lengths).sum()
            ),
            N_(
                "It returns a tensor: the question asks for a Python float, as "
                "token_accuracy returns. Call .item() on the sums (or on the "
                "result)."
            ),
            f"{CHAPTER}#metrics-that-ignore-the-pads",
        ),
    ],
    N_(
        "Build a (B, T) mask that is True where the step index is "
        "smaller than the sequence's length, then count the hits inside it and "
        "divide by the number of True entries."
    ),
    answer=N_(
        "A forward model must tag digit t before it reads digit t + 1. It sees whether the digits rose or fell "
        'into t, so it guesses "peak" after a rise and "valley" after a fall. Those guesses fail whenever the '
        "sequence keeps rising or falling: the slopes suffer most."
    ),
)


# 2. per_sequence_loss and 3. cropped_loss: scores that require grad


def _random_tagging_batch(lengths, width=None, dtype=torch.float32):
    """Random scores (B, T, 3) that require grad, and tags padded with -100 to the width."""
    width = width or max(lengths)
    logits = torch.randn(len(lengths), width, len(TAG_NAMES), dtype=dtype, requires_grad=True)
    tags = torch.full((len(lengths), width), LABEL_PAD)
    for row, length in enumerate(lengths):
        tags[row, :length] = torch.randint(0, len(TAG_NAMES), (length,))
    return logits, tags


def per_sequence_loss_cases() -> list[Case]:
    """Each sequence's mean loss, one sequence at a time."""
    cases = []
    for label, lengths, width, dtype, shown in [
        (N_("lengths 3, 1, 4"), [3, 1, 4], None, torch.float32, True),
        (N_("lengths 2, 6, 5"), [2, 6, 5], None, torch.float32, True),
        (N_("a batch of one"), [4], None, torch.float32, True),
        (N_("a last batch of 3, tags wider than its longest"), [3, 2, 1], 5, torch.float32, True),
        (N_("float64 scores"), [4, 2, 3], None, torch.float64, True),
        (N_("another batch: four rows, wide"), [5, 5, 1, 7], 9, torch.float32, False),
        (N_("another batch: one row with pads"), [1], 3, torch.float32, False),
        (N_("another batch: two rows, float64"), [8, 2], None, torch.float64, False),
    ]:
        logits, tags = _random_tagging_batch(lengths, width, dtype)
        means = [
            nn.functional.cross_entropy(logits[row, :length], tags[row, :length]) for row, length in enumerate(lengths)
        ]
        cases.append(Case(label, (logits, tags), torch.stack(means).mean(), shown))
    return cases


def _token_mean_loss(logits, tags):
    """The chapter's per-token mean over every slot, the scores and tags flattened as they are: the wrong answer
    that both losses name (one for weighting long sequences more, one for the uncropped tags)."""
    return nn.CrossEntropyLoss()(logits.flatten(0, 1), tags.flatten())


def _token_losses(logits, tags, ignore_index=LABEL_PAD):
    return nn.CrossEntropyLoss(reduction="none", ignore_index=ignore_index)(logits.transpose(1, 2), tags)


def _row_sums_and_counts(logits, tags):
    return _token_losses(logits, tags).sum(dim=1), (tags != LABEL_PAD).sum(dim=1)


def _per_sequence_loss(logits, tags):
    sums, counts = _row_sums_and_counts(logits, tags)
    return (sums / counts).mean()


check_per_sequence_loss = Exercise(
    per_sequence_loss_cases,
    [
        Mistake(
            _token_mean_loss,
            N_(
                "This is the per-token mean of the chapter, in which a long "
                "sequence counts more: average each sequence's own mean instead."
            ),
            f"{CHAPTER}#three-correct-losses",
        ),
        Mistake(
            lambda logits, tags: _token_losses(logits, tags).mean(),
            N_("This averages over the pads too: the ignored pads come out as 0 and .mean() still counts them."),
            f"{CHAPTER}#the-wrong-loss-averaging-over-the-pads-too",
        ),
        Mistake(
            lambda logits, tags: _token_losses(logits, tags).sum(dim=1).mean(),
            N_("This sums each sequence's token losses without dividing by its number of real tokens."),
            f"{CHAPTER}#three-correct-losses",
        ),
        Mistake(
            lambda logits, tags: (_row_sums_and_counts(logits, tags)[0] / (tags != LABEL_PAD).sum()).mean(),
            N_(
                "Each sequence's sum is divided by the real tokens of the whole "
                "batch, mask.sum(): divide it by its own row's count, "
                "mask.sum(dim=1)."
            ),
            f"{CHAPTER}#three-correct-losses",
        ),
        Mistake(
            lambda logits, tags: (_row_sums_and_counts(logits, tags)[0] / _row_sums_and_counts(logits, tags)[1]).sum(),
            N_(
                "This adds up the sequences' mean losses: take their mean, so that "
                "the loss does not grow with the batch size."
            ),
            f"{CHAPTER}#three-correct-losses",
        ),
        Mistake(
            lambda logits, tags: _token_losses(logits, tags, 0).mean(),
            N_(
                "ignore_index=0 ignores the slope tags, not the pads: the pads "
                "of the tags are -100, the default ignore_index."
            ),
            f"{CHAPTER}#padding-the-labels-with-an-ignore-value",
            raises=True,
        ),
        _without_gradient(_per_sequence_loss),
    ],
    N_(
        "Take the token losses with reduction='none', a mask of the real "
        "tokens, each row's sum divided by its own count, then the mean."
    ),
    answer=N_(
        "The two losses agree when every sequence has the same length, as in a batch of sequences of 10 tokens "
        "each: then each sequence has the same number of tokens."
    ),
)


def cropped_loss_cases() -> list[Case]:
    """Scores as wide as the longest sequence, tags wider: the loss of the
    real tokens, gathered one sequence at a time."""
    cases = []
    for label, lengths, width, dtype, shown in [
        (N_("lengths 3, 5, 2, tags 7 wide"), [3, 5, 2], 7, torch.float32, True),
        (N_("nothing to crop"), [4, 1, 2], 4, torch.float32, True),
        (N_("a batch of one, tags 5 wide"), [3], 5, torch.float32, True),
        (N_("float64 scores"), [2, 3], 6, torch.float64, True),
        (N_("another batch: four rows"), [6, 2, 6, 1], 9, torch.float32, False),
        (N_("another batch: one row, nothing to crop"), [2], 2, torch.float32, False),
        (N_("another batch: float64, wide"), [5, 3], 8, torch.float64, False),
    ]:
        logits, tags = _random_tagging_batch(lengths, width, dtype)
        logits = logits[:, : max(lengths)].detach().requires_grad_()  # what unpacking gives
        real_logits = torch.cat([logits[r, :n] for r, n in enumerate(lengths)])
        real_tags = torch.cat([tags[r, :n] for r, n in enumerate(lengths)])
        want = nn.functional.cross_entropy(real_logits, real_tags)
        cases.append(Case(label, (logits, tags), want, shown))
    return cases


def _cropped_loss(logits, tags):
    return nn.CrossEntropyLoss()(logits.flatten(0, 1), tags[:, : logits.size(1)].flatten())


check_cropped_loss = Exercise(
    cropped_loss_cases,
    [
        Mistake(
            _token_mean_loss,
            N_(
                "Without cropping, the flattened scores and tags have different "
                "numbers of rows, and the loss refuses them."
            ),
            f"{CHAPTER}#pitfall-unpacking-without-total-length",
            raises=True,
        ),
        Mistake(
            lambda logits, tags: nn.CrossEntropyLoss()(logits.flatten(0, 1), tags[:, : logits.size(1)].view(-1)),
            N_(
                "tags[:, :T] is a view that keeps the rows' stride, so .view(-1) "
                "refuses it: flatten it with .flatten() or .reshape(-1), which "
                "copy when they must."
            ),
            f"{CHAPTER}#pitfall-unpacking-without-total-length",
            raises=True,
        ),
        Mistake(
            lambda logits, tags: nn.CrossEntropyLoss()(logits.flatten(0, 1), tags[:, -logits.size(1) :].flatten()),
            N_(
                "tags[:, -T:] keeps the last columns: the real tags sit at the "
                "start of each row, so keep the first columns."
            ),
            f"{CHAPTER}#padding-the-labels-with-an-ignore-value",
        ),
        Mistake(
            lambda logits, tags: _token_losses(logits, tags[:, : logits.size(1)]).mean(),
            N_("This averages over the pads too: the ignored pads come out as 0 and .mean() still counts them."),
            f"{CHAPTER}#the-wrong-loss-averaging-over-the-pads-too",
        ),
        Mistake(
            lambda logits, tags: _per_sequence_loss(logits, tags[:, : logits.size(1)]),
            N_(
                "This is the mean over sequences of each sequence's mean, in which "
                "a short sequence counts as much as a long one: the question asks "
                "for the mean over all real tokens."
            ),
            f"{CHAPTER}#three-correct-losses",
        ),
        Mistake(
            lambda logits, tags: nn.CrossEntropyLoss(ignore_index=0)(
                logits.flatten(0, 1), tags[:, : logits.size(1)].flatten()
            ),
            N_(
                "ignore_index=0 is the pad id of the tokens, not of the tags: the "
                "tags are padded with -100, the default ignore_index, which the "
                "loss must skip."
            ),
            f"{CHAPTER}#padding-the-labels-with-an-ignore-value",
            raises=True,
        ),
        _without_gradient(_cropped_loss),
    ],
    N_(
        "Keep as many label columns as the scores have, from the start "
        "of each row, then use the ignore_index loss as before."
    ),
    answer=N_(
        "It is safe because every dropped column lies beyond the longest sequence of the slice, so it holds only -100."
    ),
)
