"""What deep dive 15's setup cell provides: chapter 8's tagging data, batches and tagger (`padpack.course.tagging`, the
same code as chapter 8's cells), its training set, the device, and chapter 8's figure settings."""

from __future__ import annotations

import torch

from padpack.course import tagging
from padpack.course.helpers import sharp_white_figures
from padpack.course.tagging import *  # chapter 8's names, as tagging.__all__ lists them

__all__ = tagging.__all__ + ["device", "sharp_white_figures", "train_set"]

device = "cuda" if torch.cuda.is_available() else "cpu"
train_set = tagging.DigitTaggingDataset(2000, seed=1)  # chapter 8's training set
