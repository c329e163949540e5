"""What deep dive 17's setup cell imports: chapter 10's data, batches, sampler and model (the data also saved for
the training processes by `save_data`), the gradient helper, and the process plumbing.

The training processes import chapter 10's sampler and model from the package (`padpack.course.bucket_sampler`,
`padpack.course.review_model`), the same code that chapter 10 writes into its work folder.
"""

import platform
import random
import shutil
from pathlib import Path

import torch
from torch import nn

from padpack.course.bucket_sampler import DistributedBucketBatchSampler
from padpack.course.processes import new_workdir, nobody_listens_on, processes_using, run_and_wait
from padpack.course.review_model import SequenceClassifier, make_batch, summed_loss
from padpack.course.reviews import LABEL_NAMES, Vocabulary
from padpack.course.simple_reviews import make_simple_review
from padpack.i18n import N_, say

__all__ = [
    "AMORTISE",
    "COMPETE",
    "CONFIG",
    "COUNT_WAIT",
    "DUO_THROUGHPUT",
    "EPOCHS",
    "EVERY_CORE",
    "IDEAL_SPEEDUP",
    "LOGITS_ROW",
    "LR",
    "MAX_TOKENS",
    "SOLO_THROUGHPUT",
    "START_UP",
    "START_UP_COST",
    "STEP_TIMES",
    "WAITING",
    "DistributedBucketBatchSampler",
    "Path",
    "SequenceClassifier",
    "batches",
    "gradients",
    "make_batch",
    "new_workdir",
    "nobody_listens_on",
    "platform",
    "processes_using",
    "run_and_wait",
    "save_data",
    "say",
    "shutil",
    "summed_loss",
    "train_labels",
    "train_lengths",
    "train_tokens",
]

# Chapter 10's data and batches (its own random generators: nothing is drawn from the global ones)
rng = random.Random(0)
reviews = [(make_simple_review(rng, i % 4), i % 4) for i in range(1200)]
train_reviews, val_reviews = reviews[:1000], reviews[1000:]
vocab = Vocabulary.build([text for text, _ in train_reviews])
train_tokens = [torch.tensor(vocab.encode(t)) for t, _ in train_reviews]
train_labels = torch.tensor([label for _, label in train_reviews])
train_lengths = [len(ids) for ids in train_tokens]
MAX_TOKENS, EPOCHS, LR = 512, 3, 5e-3
CONFIG = {"vocab_size": len(vocab.itos), "num_classes": len(LABEL_NAMES)}
batches = list(DistributedBucketBatchSampler(train_lengths, MAX_TOKENS))


def save_data(path: Path) -> None:
    """Save what the training processes read: the token ids, labels, vocabulary, model settings and budget."""
    data = {"train_tokens": train_tokens, "train_labels": train_labels}
    data |= {"vocab": vocab.itos, "config": CONFIG}
    data |= {"max_tokens": MAX_TOKENS, "epochs": EPOCHS, "lr": LR}
    torch.save(data, path)


def gradients(model: nn.Module, loss: torch.Tensor) -> torch.Tensor:
    """All parameter gradients of the loss, flattened into one vector."""
    model.zero_grad()
    loss.backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


# What the speed section says about the reader's run: `say` prints it in the notebook's language (the Chinese in
# ch17.po), and the Chinese notebook stores it translated. Each sentence is one catalogue entry with only numbers to
# fill in (the throughputs come right-aligned, so that the two lines line up).
# The headings and row names of the deep dive's tables: print_table prints them in the reader's language.
TABLE_WORDS = (
    N_("LSTM input"),
    N_("runs"),
    N_("matrix products in"),
    N_("packed, lengths vary"),
    N_("packed, equal lengths"),
    N_("oneDNN kernel"),
    N_("step by step"),
    N_("model"),
    N_("graphs"),
    N_("LSTM in a graph"),
    N_("skipped"),
    N_("packed model"),
    N_("padded + gather"),
)

LOGITS_ROW = {  # which loss kernel cross_entropy runs, by the shape of the logits
    "classifier": N_("classifier logits {shape} -> {ops}"),
    "tagger": N_("tagger logits {shape} -> {ops}"),
}
SOLO_THROUGHPUT = N_("1 process:   {tokens} real tokens/s")
DUO_THROUGHPUT = N_("2 processes: {tokens} real tokens/s, {speedup}x")
STEP_TIMES = N_("a step: {solo} ms with 1 process, {duo} ms with 2, of which all-reduces {comm} ms")
COUNT_WAIT = N_("in the count all-reduce: {first} and {second} ms a step in training, {in_step} ms in step")
IDEAL_SPEEDUP = N_(
    "reachable with these batches: {ideal}x, not 2x, as each 2-process step lasts as long as the slower of its two "
    "batches (their one-process times)"
)
START_UP = N_(
    "start-up until both ranks were ready to train: {start_up} s, shutdown: {shutdown} s, the whole run: {launch} s; "
    "one 2-process epoch: {epoch} s"
)
EVERY_CORE = N_(
    "Two processes take every core here, so anything else running (this notebook too) slows a rank, and every "
    "step waits for the slower rank."
)
COMPETE = N_(
    "A 2-process step took much longer than the slower of its two batches takes in 1 process: the processes "
    "compete for the cores (or other programs do)."
)
WAITING = N_(
    "During training a rank spent longer in the count all-reduce than the all-reduce takes with both ranks in "
    "step: that is waiting for the slower rank, neither compute nor the wire."
)
AMORTISE = N_(
    "The all-reduces alone are a large part of a step here: fewer, bigger steps (a larger token budget) amortise them."
)
START_UP_COST = N_(
    "Starting the processes took as long as {epochs} 2-process epochs of this run: a job pays it once, so it weighs "
    "on jobs of few epochs only."
)
