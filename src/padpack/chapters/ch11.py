"""What deep dive 11's setup cell needs besides its imports: chapter 1's lengths and padding efficiency
(`padpack.lengths`), chapter 5's reviews and loaders (`padpack.reviews`), chapter 6's model, device and training
loop (`padpack.classifier`), and the standard-library and torch names the page's cells use."""

import functools
import itertools
import os
import platform
import textwrap
import warnings

from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.classifier import VAL_LOADER, SequenceClassifier, device, new_model, train_one_epoch
from padpack.lengths import dataset_lengths, distributions, efficiency, sample_lengths, split_into_batches
from padpack.reviews import bucketed_loader, shuffled_loader, train_set

# chapter 1's lengths, chapters 5 and 6's data and model, the standard library and torch's names
__all__ = [
    "VAL_LOADER",
    "SequenceClassifier",
    "bucketed_loader",
    "dataset_lengths",
    "device",
    "distributions",
    "efficiency",
    "functools",
    "itertools",
    "new_model",
    "os",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "platform",
    "sample_lengths",
    "shuffled_loader",
    "split_into_batches",
    "textwrap",
    "train_one_epoch",
    "train_set",
    "warnings",
]
