"""What chapter 7's setup cell needs: chapter 5's data, batches and loaders (`padpack.course.reviews`), chapter 6's
classifier and training loop (`padpack.course.classifier`), the names its cells use for files, arrays and figures,
the sentences they print in the reader's language (`say`, `gettext`), and sharp, opaque inline figures."""

import tempfile
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
from padpack.doctor import CHECK_NAMES
from padpack.i18n import N_, gettext, say

__all__ = [
    "EPOCHS",
    "LABEL_NAMES",
    "PAD_QUANTILES",
    "REVIEW",
    "RUN_VERDICT",
    "VAL_LOADER",
    "VERDICTS",
    "DataLoader",
    "Path",
    "SequenceClassifier",
    "Vocabulary",
    "bucketed_loader",
    "check_names",
    "collate_batch",
    "device",
    "fit",
    "gettext",
    "new_model",
    "np",
    "pad_batch",
    "plt",
    "say",
    "sharp_white_figures",
    "shuffled_loader",
    "tempfile",
    "train_set",
    "val_set",
    "vocab",
]

# The loaders whose pads the ablation counts after each review, as its cell names them (printed with gettext), and
# the sentence it prints for each; chapter 7's catalogue, ch07.po, holds their Chinese.
LOADER_NAMES = (N_("bucketed training"), N_("shuffled training"), N_("validation"))
PAD_QUANTILES = N_("{name}: {quantiles} pads (median, 90th percentile, max)")
# The headings and model names of the chapter's tables: print_table prints them in the reader's language.
TABLE_WORDS = (
    N_("model"),
    N_("seed"),
    N_("best accuracy"),
    N_("labels changed"),
    N_("largest change"),
    N_("packed LSTM"),
    N_("alone"),
    N_("next to the longest"),
)
# The review whose label the bug flips, as the ablation prints it
REVIEW = N_("review: {review}")
# What the batch-independence test prints for each trained model (its name printed with gettext)
RUN_VERDICT = N_("{name}, seed {seed}: batch independent {independent}")
# What the padding doctor's section prints for each model: our test's verdict, and the checks the doctor failed it on,
# joined by CHECK_SEPARATOR ("、" in Chinese)
VERDICTS = N_("{name}: ours {ours}, doctor: {checks}.")
CHECK_SEPARATOR = N_("; ")


def check_names(checks: list[str]) -> str:
    """The doctor's names of `checks` (its findings' `check`) in the current language, joined by CHECK_SEPARATOR;
    "none" when there are none.

    >>> check_names(["pad values", "the end is read"]), check_names([])
    ('pad values; the end is read', 'none')
    """
    return gettext(CHECK_SEPARATOR).join(gettext(CHECK_NAMES[check]) for check in checks) or gettext(N_("none"))
