"""The exercise checks of chapter 10: dealing padded batches out to ranks, the global-count loss of each rank,
and every step's global count computed without communication."""

import torch

from padpack.checks import Case, Exercise, Mistake
from padpack.i18n import N_

PAGE = "10_distributed_variable_length_training"
SAMPLER = f"{PAGE}#a-distributed-length-bucketing-batch-sampler"
SIMULATING = f"{PAGE}#simulating-the-ranks-in-one-process"
UNEVEN = f"{PAGE}#uneven-inputs-the-hang-and-two-ways-out"
GRADIENTS = f"{PAGE}#gradients-that-equal-one-process-s"


def _batch_list(sizes: list[int]) -> list[list[int]]:
    """Batches of distinct indices with these sizes, in a shuffled order (as a sampler's list is)."""
    order = torch.randperm(sum(sizes)).tolist()
    batches, start = [], 0
    for size in sizes:
        batches.append(order[start : start + size])
        start += size
    return batches


# ---- 1. deal_batches: pad the list by repeating batches from its start, then deal it out ----
def deal_batches_cases() -> list[Case]:
    """Batch lists and every rank's share, padded position by position."""
    cases = []
    for label, sizes, world, shown in [
        (N_("7 batches over 3 ranks"), [2, 1, 3, 1, 2, 1, 2], 3, True),
        (N_("6 batches over 3 ranks"), [1, 2, 2, 3, 1, 1], 3, True),
        (N_("1 batch over 3 ranks"), [2], 3, True),
        (N_("2 batches over 5 ranks"), [3, 1], 5, True),
        (N_("a world size of 1"), [3, 1, 2], 1, True),
        (N_("5 batches over 4 ranks"), [1, 4, 2, 2, 3], 4, False),
        (N_("10 batches over 4 ranks"), [2, 3, 1, 1, 2, 4, 1, 3, 2, 1], 4, False),
        (N_("8 batches over 2 ranks"), [1, 1, 2, 3, 2, 1, 1, 2], 2, False),
    ]:
        batches = _batch_list(sizes)
        total = -(-len(batches) // world) * world  # rounded up to W
        want = [[] for _ in range(world)]
        for position in range(total):
            want[position % world].append(batches[position % len(batches)])
        cases.append(Case(label, (batches, world), want, shown))
    return cases


def _padded_by(batches, extra):
    return batches + [batches[i % len(batches)] for i in range(extra)]


def _contiguous(batches, world):
    padded = _padded_by(batches, -len(batches) % world)
    per_rank = len(padded) // world
    return [padded[r * per_rank : (r + 1) * per_rank] for r in range(world)]


check_deal_batches = Exercise(
    deal_batches_cases,
    [
        Mistake(
            lambda batches, world: [batches[r::world] for r in range(world)],
            N_(
                "Without padding, the ranks get different numbers of batches, and a rank with one more waits in an "
                "all-reduce that the others never join. Pad the list first."
            ),
            UNEVEN,
        ),
        Mistake(
            lambda batches, world: [batches[: len(batches) - len(batches) % world][r::world] for r in range(world)],
            N_(
                "This drops the last len % W batches (drop_last=True); drop_last=False pads the list by repeating "
                "batches from its start."
            ),
            SAMPLER,
        ),
        Mistake(
            lambda batches, world: [_padded_by(batches, world - len(batches) % world)[r::world] for r in range(world)],
            N_("W - len % W repeats W batches when the count already divides by W: pad -len % W batches."),
            SAMPLER,
        ),
        Mistake(
            lambda batches, world: [_padded_by(batches, -len(batches) % world)[::world] for _ in range(world)],
            N_("Every rank takes the same batches: rank r must start at position r, or the shards overlap."),
            SAMPLER,
        ),
        Mistake(
            _contiguous,
            N_(
                "This gives each rank a block of neighbouring batches; the sampler deals them out instead: rank r "
                "takes positions r, r + W, r + 2W, ... of the padded list."
            ),
            SAMPLER,
        ),
        Mistake(
            lambda batches, world: [(batches + batches[-1:] * (-len(batches) % world))[r::world] for r in range(world)],
            N_(
                "This repeats the last batch; pad by repeating batches from the start of the list, as "
                "DistributedSampler does, so that the repeats are spread over the list's first batches."
            ),
            SAMPLER,
        ),
        Mistake(
            lambda batches, world: [(batches + batches[: -len(batches) % world])[r::world] for r in range(world)],
            N_(
                "batches[:extra] holds fewer than extra batches when the list is shorter than the world size: "
                "cycle through it, with batches[i % len(batches)]."
            ),
            SAMPLER,
        ),
        Mistake(
            lambda batches, world: [_padded_by(batches, len(batches) % world)[r::world] for r in range(world)],
            N_(
                "This pads len % W batches, which leaves the count uneven: pad -len % W batches (as many as "
                "are missing to the next multiple of W)."
            ),
            SAMPLER,
        ),
        Mistake(
            lambda batches, world: [(batches + [[]] * (-len(batches) % world))[r::world] for r in range(world)],
            N_(
                "Empty batches make the counts equal, but a step without examples has nothing to backpropagate "
                "(and a zero count to divide by): repeat real batches from the start of the list."
            ),
            SAMPLER,
        ),
    ],
    N_(
        "Repeat batches from the start of the list until its length divides by world_size (the remainder operator "
        "helps), then give rank r every world_size-th batch from position r. Build a new list: the caller's stays "
        "as it was."
    ),
    answer=N_(
        "{total} batches: each of {ranks} ranks gets {each}, with {repeats} batch(es) repeated, so {twice} "
        "examples are seen twice this epoch."
    ),
)


# ---- 2. scaled_losses: each rank's summed loss times W over the global count ----
def scaled_losses_cases() -> list[Case]:
    """Per-token losses of every rank: the mean over all of them, shared out in proportion to each rank's sum,
    times W for DDP's average. The sums require grad: the answer must carry their gradient, W / N each."""
    cases = []
    for label, counts, dtype, shown in [
        (N_("token counts 15 and 4"), [15, 4], torch.float32, True),
        (N_("three ranks"), [3, 9, 5], torch.float32, True),
        (N_("equal counts"), [6, 6], torch.float32, True),
        (N_("one rank"), [7], torch.float32, True),
        (N_("float64"), [2, 7], torch.float64, True),
        (N_("four ranks, one with a single token"), [12, 1, 30, 8], torch.float32, False),
        (N_("two ranks, float64, long and short"), [40, 3], torch.float64, False),
    ]:
        token_losses = [torch.rand(n, dtype=dtype) + 0.1 for n in counts]
        sums = torch.stack([losses.sum() for losses in token_losses]).requires_grad_()
        mean = torch.cat(token_losses).mean()  # what one process would backpropagate
        want = mean * len(counts) * sums / sums.detach().sum()
        cases.append(Case(label, (sums, torch.tensor(counts)), want, shown))
    return cases


check_scaled_losses = Exercise(
    scaled_losses_cases,
    [
        Mistake(
            lambda sums, counts: sums / counts,
            N_(
                "A per-rank mean lets DDP average the ranks' means: a token of a rank with few tokens weighs more "
                "than one of a rank with many."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda sums, counts: sums * len(sums) / counts,
            N_(
                "Each rank divides by its own count: divide every rank's sum by the global count (the sum of all "
                "the counts), then multiply by W."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda sums, counts: sums / counts.sum(),
            N_(
                "Dividing by the global count alone forgets that DDP divides the gradients by W: multiply by the "
                "world size too."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda sums, counts: sums / len(sums) / counts.sum(),
            N_(
                "DDP already divides the gradients by W; dividing by W again makes them W² times too small: "
                "multiply by W to undo DDP's average."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda sums, counts: (sums / counts).mean(),
            N_(
                "The mean of the per-rank means is not the mean over all tokens, and each rank needs its own loss, "
                "one per rank."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda sums, counts: sums.sum() / counts.sum(),
            N_(
                "Each rank needs its own loss, one per rank: a rank can only backpropagate through its own summed loss."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda sums, counts: sums * len(sums) // counts.sum(),
            N_("// rounds the losses down to whole numbers: divide with /."),
            GRADIENTS,
        ),
    ],
    N_(
        "One process would divide the sum of all the sums by the total count. DDP then averages over the W ranks: "
        "undo that division. Compute with the tensors you are given, so that backward() reaches the sums."
    ),
)


# ---- 3. step_counts: every step's global count from the shared batch list ----
def step_counts_cases() -> list[Case]:
    """Each step's examples, added up rank by rank, from batch lists whose length divides by W (as a sampler's
    global_batches() is)."""
    cases = []
    for label, sizes, world, shown in [
        (N_("6 batches over 2 ranks"), [5, 3, 8, 1, 4, 6], 2, True),
        (N_("9 batches over 3 ranks"), [2, 7, 1, 4, 4, 3, 9, 2, 5], 3, True),
        (N_("one step of 4 ranks, batches of one"), [1, 1, 1, 1], 4, True),
        (N_("a world size of 1"), [3, 1, 2], 1, True),
        (N_("8 batches over 4 ranks"), [6, 2, 2, 9, 1, 3, 7, 5], 4, False),
        (N_("10 batches over 2 ranks"), [4, 1, 6, 6, 2, 8, 3, 3, 1, 5], 2, False),
    ]:
        batches = _batch_list(sizes)
        ranks = [batches[rank::world] for rank in range(world)]
        want = [0] * (len(batches) // world)
        for shard in ranks:
            for step, batch in enumerate(shard):
                want[step] += len(batch)
        cases.append(Case(label, (batches, world), want, shown))
    return cases


def _plain_ints(answer):
    """A list of NumPy or 0-d tensor integers is fine: compared as a list of Python ints, as the chapter's next
    cell compares it with == [...]. A tensor, an array or a tuple is not a list, and that comparison fails."""
    if isinstance(answer, list):
        return [int(x) if hasattr(x, "__index__") and not isinstance(x, bool) else x for x in answer]
    return answer


check_step_counts = Exercise(
    step_counts_cases,
    [
        Mistake(
            lambda batches, world: [len(batches[s : s + world]) for s in range(0, len(batches), world)],
            N_("This counts the batches of a step, not the examples in them."),
            GRADIENTS,
        ),
        Mistake(
            lambda batches, world: [len(b) for b in batches[::world]],
            N_("This is rank 0's own count: the global count of a step adds the batch of every rank."),
            GRADIENTS,
        ),
        Mistake(
            lambda batches, world: [
                sum(len(b) for b in batches[s :: len(batches) // world]) for s in range(len(batches) // world)
            ],
            N_(
                "Step s holds batches s·W to s·W + W - 1, since rank r takes batches r, r + W, ...; not batches "
                "s, s + steps, ..."
            ),
            SAMPLER,
        ),
        Mistake(
            lambda batches, world: [sum(len(b) for b in batches[r::world]) for r in range(world)],
            N_(
                "This is each rank's total over the epoch, one number per rank: the count of a step adds up the "
                "W neighbouring batches of that step, one number per step."
            ),
            SIMULATING,
        ),
        Mistake(
            lambda batches, world: [sum(sum(b) for b in batches[s : s + world]) for s in range(0, len(batches), world)],
            N_(
                "This adds up the indices inside the batches, not how many there are: count each batch's examples "
                "with len(batch)."
            ),
            GRADIENTS,
        ),
        Mistake(
            lambda batches, world: [
                sum(map(len, batches[s : s + world])) for s in range(0, len(batches) - world, world)
            ],
            N_(
                "The last step is missing: range(0, len(batches) - world_size, world_size) stops one step early; "
                "range(0, len(batches), world_size) reaches it."
            ),
            SAMPLER,
        ),
    ],
    N_("Rank r takes batches r, r + W, ..., so step s is made of W neighbours in the shared list. Add up their sizes."),
    normalize=_plain_ints,
    answer=N_(
        "It would be wrong as soon as the count depends on the data and not only on the batch list: tokens "
        "masked out by a rule, examples filtered on the fly."
    ),
)
