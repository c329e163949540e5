"""What chapter 3's setup cell gives its visible cells besides torch and the checks: the helpers `fmt` and
`same`, the device it runs on, torch's padding and packing functions, and the widget names of its slider."""

import ipywidgets as widgets
from IPython.display import display
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.course.hidden_state import fmt, pick_device, same

__all__ = [
    "device",
    "display",
    "fmt",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "same",
    "widgets",
]

device = pick_device()
