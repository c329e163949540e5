"""What chapter 8's setup cell provides: the digit-tagging task (its tags and data set, from `padpack.course.tagging`),
the training loop `train_tagger`, the chapter's own table printer, the device, and the figures' settings."""

from __future__ import annotations

import functools
import os

import torch
from torch import nn
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

from padpack.course import helpers
from padpack.course.helpers import sharp_white_figures
from padpack.course.tagging import (
    PEAK,
    SLOPE,
    TAG_NAMES,
    VALLEY,
    DigitTaggingDataset,
    SortedBucketBatchSampler,
    collate_tagging,
    exact_match,
    tag_digits,
    token_accuracy,
    train_step,
)
from padpack.i18n import N_

__all__ = [
    "PEAK",
    "SLOPE",
    "TAG_NAMES",
    "VALLEY",
    "DigitTaggingDataset",
    "device",
    "print_table",
    "sharp_white_figures",
    "tag_digits",
    "train_tagger",
]

# The headings of the chapter's tables (its print_table prints them in the reader's language)
TABLE_WORDS = (
    N_("width T"),
    N_("real share"),
    N_("correct loss"),
    N_("correct grad"),
    N_("wrong loss"),
    N_("wrong grad"),
    N_("token accuracy"),
    N_("all positions"),
    N_("pads as slope"),
    N_("exact match"),
)

device = "cuda" if torch.cuda.is_available() else "cpu"


def print_table(rows: list[dict]) -> None:
    """Print dicts that share their keys as a table, the keys as its header; floats with 4 digits."""
    helpers.print_table(list(rows[0]), [list(row.values()) for row in rows], digits=4)


@functools.cache
def digit_sets() -> tuple[DigitTaggingDataset, DigitTaggingDataset]:
    """The chapter's training and validation sets (the same seeds as its `train_set` and `val_set`)."""
    return DigitTaggingDataset(2000, seed=1), DigitTaggingDataset(500, seed=2)


def train_tagger(model: nn.Module, epochs: int, lr: float = 1e-2, seed: int = 0) -> dict[str, list[float]]:
    """Chapter 6's loop on this chapter's data: bucketed batches (a whole-set
    sort, see `SortedBucketBatchSampler`), Adam, and the validation metrics
    after each epoch. Each update is `train_step`, shown in the chapter, with
    chapter 6's gradient clipping. Return the per-epoch loss and metrics."""
    train_set, val_set = digit_sets()
    sampler = SortedBucketBatchSampler(train_set.lengths, 32, seed)
    loader = DataLoader(train_set, batch_sampler=sampler, collate_fn=collate_tagging)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    # real tokens per batch, on average: one constant for every batch
    fixed_count = sum(train_set.lengths) / len(loader)
    val_tokens, val_lengths, val_tags = collate_tagging(list(val_set))
    history = {
        "train loss": [],
        "val token accuracy": [],
        "val exact match": [],
    }
    for _ in tqdm(range(epochs), disable=bool(os.environ.get("CI"))):
        model.train()
        loss_sum = 0.0
        for tokens, lengths, tags in loader:
            loss_sum += train_step(
                model,
                optimizer,
                tokens.to(device),
                lengths,
                tags.to(device),
                fixed_count,
            )
        model.eval()
        with torch.no_grad():
            scores = model(val_tokens.to(device), val_lengths)
        predictions = scores.argmax(dim=-1).cpu()
        history["train loss"].append(loss_sum / sum(train_set.lengths))
        history["val token accuracy"].append(token_accuracy(predictions, val_tags))
        history["val exact match"].append(exact_match(predictions, val_tags))
    return history
