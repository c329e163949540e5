"""What chapter 7's setup cell needs: chapter 5's data, batches and loaders (`padpack.course.reviews`), chapter 6's
classifier and training loop (`padpack.course.classifier`), the names its cells use for files, arrays, figures and
text, and sharp, opaque inline figures."""

import tempfile
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from torch.utils.data import DataLoader

from padpack.course.classifier import EPOCHS, VAL_LOADER, SequenceClassifier, device, fit, new_model
from padpack.course.helpers import sharp_white_figures
from padpack.course.reviews import (
    LABEL_NAMES,
    Vocabulary,
    bucketed_loader,
    collate_batch,
    pad_batch,
    shuffled_loader,
    train_set,
    val_set,
    vocab,
)

__all__ = [
    "EPOCHS",
    "LABEL_NAMES",
    "VAL_LOADER",
    "DataLoader",
    "Path",
    "SequenceClassifier",
    "Vocabulary",
    "bucketed_loader",
    "collate_batch",
    "device",
    "fit",
    "new_model",
    "np",
    "pad_batch",
    "plt",
    "sharp_white_figures",
    "shuffled_loader",
    "tempfile",
    "textwrap",
    "train_set",
    "val_set",
    "vocab",
]
