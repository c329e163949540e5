"""What chapter 1's setup cell needs besides its imports: the standard-library and torch names its cells use, and
the figure style of the book (sharp on high-density screens, opaque in dark mode)."""

import itertools

from IPython.display import display
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.course.helpers import sharp_white_figures

__all__ = [
    "display",
    "itertools",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "sharp_white_figures",
]
