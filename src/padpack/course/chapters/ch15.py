"""What deep dive 15's setup cell provides: chapter 8's tagging data, batches and tagger (`padpack.course.tagging`, the
same code as chapter 8's cells), its training set, the device, and chapter 8's figure settings."""

from __future__ import annotations

import torch

from padpack.course.helpers import sharp_white_figures
from padpack.course.tagging import (
    LABEL_PAD,
    NUM_TAGS,
    NUM_TOKENS,
    PEAK,
    SLOPE,
    TAG_NAMES,
    TOKEN_PAD,
    VALLEY,
    BiLSTMTagger,
    DigitTaggingDataset,
    SortedBucketBatchSampler,
    collate_tagging,
    tag_digits,
)

__all__ = [
    "LABEL_PAD",
    "NUM_TAGS",
    "NUM_TOKENS",
    "PEAK",
    "SLOPE",
    "TAG_NAMES",
    "TOKEN_PAD",
    "VALLEY",
    "BiLSTMTagger",
    "DigitTaggingDataset",
    "SortedBucketBatchSampler",
    "collate_tagging",
    "device",
    "sharp_white_figures",
    "tag_digits",
    "train_set",
]

device = "cuda" if torch.cuda.is_available() else "cpu"
train_set = DigitTaggingDataset(2000, seed=1)  # chapter 8's training set
