"""What deep dive 14's setup cell gives its visible cells besides torch and the checks: chapter 4's sizes,
`pack`, and the function that rebuilds its padded batch and two encoders, and the modules its cells use (the
widget, HTML and dispatch names of the slider)."""

import contextlib
import html

import ipywidgets as widgets
from IPython.display import display
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence
from torch.utils._python_dispatch import TorchDispatchMode

from padpack.course.hidden_state import chapter_4_encoders, pack

__all__ = [
    "H",
    "PackedSequence",
    "TorchDispatchMode",
    "batch_size",
    "chapter_4_encoders",
    "contextlib",
    "display",
    "hidden_size",
    "html",
    "input_size",
    "max_len",
    "num_layers",
    "pack",
    "pad_packed_sequence",
    "widgets",
]

# From chapter 4: the sizes of its batch (lengths 5, 7, 2) and of its two encoders.
input_size, hidden_size, num_layers = 5, 6, 2
batch_size, max_len = 3, 7
H = hidden_size
