"""What deep dive 13's setup cell gives its visible cells besides torch and the checks: chapter 3's helpers
(`fmt`, `same`), sizes and classic batch, the function that rebuilds its four random sequences, the device, the
figure setup, and the modules its cells use."""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from padpack.course.helpers import sharp_white_figures
from padpack.course.hidden_state import classic_batch, fmt, four_sequences, pick_device, same

__all__ = [
    "batch_size",
    "device",
    "fmt",
    "four_sequences",
    "hidden_size",
    "input_size",
    "long_sequence",
    "max_len",
    "np",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "plt",
    "same",
    "sharp_white_figures",
    "short_sequence",
    "warnings",
]

device = pick_device()
# From chapter 3: the sizes, and the classic batch of two sequences.
batch_size, max_len, input_size, hidden_size = 4, 7, 2, 3
long_sequence, short_sequence = classic_batch()
