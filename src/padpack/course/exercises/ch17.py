"""The exercise check of deep dive 17: the mean loss over all ranks (or micro-batches), from their sums and
counts, as a loss that backward() goes through."""

import torch

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

GRADIENTS = "10_distributed_variable_length_training#gradients-that-equal-one-process-s"
ACCUMULATION = "17_deep_dive_distributed_gpu_and_speed#gradient-accumulation-the-same-rule-in-one-process"
OWN_COUNT = "15_deep_dive_loss_normalisation#divide-by-a-fixed-or-global-token-count-not-by-each-batch-s-own"


def global_mean_loss_cases() -> list[Case]:
    """Per-item losses of each rank; the right answer is the mean of all of them at once, as one process would
    compute it. The sums require grad: the answer must carry their gradient, 1 / N each."""
    cases = []
    for label, counts, dtype, shown in [
        (N_("three micro-batches of 36, 12 and 23 reviews"), [36, 12, 23], torch.float32, True),
        (N_("two ranks, equal counts"), [10, 10], torch.float32, True),
        (N_("one rank"), [5], torch.float32, True),
        (N_("a rank with a single token, float64"), [1, 40, 7], torch.float64, True),
        (N_("four ranks of 3, 17, 2 and 9 items"), [3, 17, 2, 9], torch.float32, False),
        (N_("two ranks, float64, 25 and 6 items"), [25, 6], torch.float64, False),
    ]:
        losses = [3 * torch.rand(n, dtype=dtype) for n in counts]
        loss_sums = torch.stack([loss.sum() for loss in losses]).requires_grad_()
        mean = torch.cat(losses).mean()  # all the items at once, as one process
        want = mean * loss_sums.sum() / loss_sums.detach().sum()  # that value, and a gradient of 1 / N
        cases.append(Case(label, (loss_sums, torch.tensor(counts)), want, shown))
    return cases


check_global_mean_loss = Exercise(
    global_mean_loss_cases,
    [
        Mistake(
            lambda loss_sums, counts: (loss_sums / counts).mean(),
            N_(
                "This averages the per-rank means: every rank weighs the same, so the items of a small batch "
                "weigh more than those of a big one."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda loss_sums, counts: loss_sums.sum(),
            N_("This is the global sum, not the mean: divide it by the global count."),
            ACCUMULATION,
        ),
        Mistake(
            lambda loss_sums, counts: loss_sums.sum() / len(loss_sums),
            N_("This divides by the number of ranks (the world size), not by the number of items they hold."),
            GRADIENTS,
        ),
        Mistake(
            lambda loss_sums, counts: (loss_sums / counts).sum(),
            N_("This adds up each rank's own mean: each sum must be divided by the global count, not by its own."),
            OWN_COUNT,
        ),
        Mistake(
            lambda loss_sums, counts: (loss_sums * counts).sum() / counts.sum(),
            N_(
                "loss_sums are sums already: weighting them by the counts counts every item that many times. Add "
                "the sums up as they are, then divide by the global count."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda loss_sums, counts: (loss_sums.sum() / counts.sum()).item(),
            N_(".item() turns the loss into a Python number, which backward() cannot go through: return the tensor."),
            ACCUMULATION,
        ),
        Mistake(
            lambda loss_sums, counts: loss_sums / counts.sum(),
            N_(
                "This is each rank's share of the mean, one number per rank: add the shares up (or divide the "
                "sum of the sums) to get the one mean loss."
            ),
            GRADIENTS,
        ),
    ],
    N_(
        "One process would add up all the losses and divide by how many there are: do the same with the ranks' "
        "sums and counts, with tensor operations, so that backward() reaches the sums."
    ),
)
