"""What deep dive 17's setup cell imports: chapter 10's data, batches, sampler and model (the data also saved for
the training processes by `save_data`), the gradient helper, and the process plumbing.

The training processes import chapter 10's sampler and model from the package (`padpack.bucket_sampler`,
`padpack.review_model`), the same code that chapter 10 writes into its work folder.
"""

import platform
import random
import shutil
from pathlib import Path

import torch
from torch import nn

from padpack.bucket_sampler import DistributedBucketBatchSampler
from padpack.processes import free_port, new_workdir, nobody_listens_on, processes_using, run_and_wait
from padpack.review_model import SequenceClassifier, make_batch, summed_loss
from padpack.reviews import LABEL_NAMES, Vocabulary
from padpack.simple_reviews import make_simple_review

__all__ = [
    "CONFIG",
    "EPOCHS",
    "LR",
    "MAX_TOKENS",
    "DistributedBucketBatchSampler",
    "Path",
    "SequenceClassifier",
    "batches",
    "free_port",
    "gradients",
    "make_batch",
    "new_workdir",
    "nobody_listens_on",
    "platform",
    "processes_using",
    "run_and_wait",
    "save_data",
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
