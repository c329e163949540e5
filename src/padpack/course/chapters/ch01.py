"""What chapter 1's setup cell needs besides its imports: the standard-library and torch names its cells use, the
figure style of the book (sharp on high-density screens, opaque in dark mode), and the words of its slider."""

import itertools

from IPython.display import display
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.course.helpers import sharp_white_figures
from padpack.i18n import N_, translate

__all__ = [
    "FRAME",
    "display",
    "itertools",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "sharp_white_figures",
    "translate",
]

# The words of the slider's frames and controls, one catalogue message each: `translate` gives them in the
# notebook's language, so that the Chinese edition's frames are Chinese (the placeholders hold numbers). A message
# fills a whole text run of a frame's HTML, its spaces included: the runs end at the key's swatches.
FRAME = {
    "lengths": N_("length distribution"),
    # the length distributions' names are the data's keys: only the menu shows them translated
    "uniform": N_("uniform"),
    "long-tailed": N_("long-tailed"),
    "all equal": N_("all equal"),
    "batch size": N_("batch size"),
    "heading": N_("batch size {batch_size}"),
    "longest": N_("{heading}, longest sequence {longest} steps: "),
    "real tokens": N_(" {real_tokens} real tokens, "),
    "pad tokens": N_(" {pad_tokens} pad tokens."),
    "efficiency": N_(
        "Padding efficiency of this batch: {real_tokens} / {padded_tokens} = {batch_efficiency}; over the whole "
        "dataset at this batch size: {dataset_efficiency}"
    ),
    "grid": N_(
        "Padded batch of {batch_size} sequences, one row each: solid blue bars of real tokens, then striped orange "
        "pads up to the longest sequence, {longest} steps"
    ),
    "scale": N_("time steps 0 to {scale_length} (same scale for all batch sizes of this distribution)"),
}
