"""What deep dive 15's setup cell provides: chapter 8's tagging data, batches and tagger (`padpack.course.tagging`, the
same code as chapter 8's cells), its training set, the device, and chapter 8's figure settings."""

from __future__ import annotations

import torch

from padpack.course import tagging
from padpack.course.helpers import sharp_white_figures
from padpack.course.tagging import *  # chapter 8's names, as tagging.__all__ lists them
from padpack.i18n import N_, gettext, say

__all__ = tagging.__all__ + [
    "REAL_TOKENS",
    "SAME_GRADIENT",
    "device",
    "gettext",
    "say",
    "sharp_white_figures",
    "train_set",
]

device = "cuda" if torch.cuda.is_available() else "cpu"
train_set = tagging.DigitTaggingDataset(2000, seed=1)  # chapter 8's training set

# The sentences the cells print through padpack.i18n (deep dive 15's catalogue, ch15.po, holds their Chinese): the
# batches whose token weights are compared, as the cell names them (printed with gettext), and how many real tokens
# their batches hold; then, by the name of each normalisation of the accumulated loss, whether its gradient is the
# whole batch's (the two names right-aligned, as the catalogue aligns them in each language).
BATCH_NAMES = (N_("bucketed batches"), N_("random batches"))
REAL_TOKENS = N_("{name}: {low} to {high} real tokens")
SAME_GRADIENT = {
    "sum / step count": N_("sum / step count: same gradient as the whole batch: {same}"),
    "mean of means": N_("   mean of means: same gradient as the whole batch: {same}"),
}
