"""What chapter 6's setup cell needs: chapter 5's data and batches (`padpack.course.reviews`), the device, the quiet
switch of the progress bars, the names its cells use for files, figures and progress bars, and sharp, opaque
inline figures. The chapter builds its model and training loop itself, in visible cells; the later pages import
the same code from `padpack.course.classifier`."""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

from padpack.course.classifier import QUIET, device
from padpack.course.helpers import sharp_white_figures
from padpack.course.reviews import (
    LABEL_NAMES,
    Vocabulary,
    bucketed_loader,
    collate_batch,
    label_of,
    pad_batch,
    test_set,
    tokenize,
    train_set,
    val_set,
    vocab,
)

__all__ = [
    "LABEL_NAMES",
    "QUIET",
    "DataLoader",
    "Path",
    "Vocabulary",
    "bucketed_loader",
    "collate_batch",
    "device",
    "label_of",
    "pad_batch",
    "plt",
    "sharp_white_figures",
    "tempfile",
    "test_set",
    "tokenize",
    "tqdm",
    "train_set",
    "val_set",
    "vocab",
]
