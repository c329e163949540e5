"""What chapter 2's setup cell needs besides torch and the checks: torch's functional `F`, the widget and
plotting names its figure cells use, the words of its slider's frames, the device it runs on, and sharp, opaque
inline figures."""

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import display
from matplotlib.patches import Rectangle

from padpack.course.helpers import sharp_white_figures
from padpack.i18n import N_, translate

__all__ = [
    "FRAME",
    "F",
    "Rectangle",
    "device",
    "display",
    "plt",
    "sharp_white_figures",
    "translate",
    "widgets",
]

device = "cuda" if torch.cuda.is_available() else "cpu"

# The words of the time-step slider's frames, one catalogue message each: `translate` gives them in the notebook's
# language, so that the Chinese edition's frames are Chinese (the placeholders hold numbers and code).
FRAME = {
    "slider": N_("time step"),
    "heading": N_("Time step {step}"),
    "all running": N_("{heading}: all {size} sequences have a step 0, so batch_sizes[0] = {size}."),
    "none ended": N_("{heading}: no sequence ended after step {previous}, so batch_sizes[{step}] stays at {size}."),
    "one ended": N_(
        "{heading}: sequence {sequence} (length {length}) ended after step {previous}, so batch_sizes[{step}] "
        "drops from {before} to {size}."
    ),
    "several ended": N_(
        "{heading}: sequences {sequences} (length {length}) ended after step {previous}, so batch_sizes[{step}] "
        "drops from {before} to {size}."
    ),
    "running": N_(
        "The sequences still running are {rows} of the sorted batch; their step-{step} elements fill {data}."
    ),
    "separator": N_(", "),  # between the numbers of the sequences that ended together
    "row 0": N_("row 0"),
    "rows": N_("rows 0 to {last}"),
    "grid": N_("The padded batch"),
    "strip": N_("{data} (position in brackets)"),
    "key": N_(
        "Outlined: step {step}, packed in this frame. Pale: earlier steps. Dashed: later steps. Grey: pads, "
        "never packed."
    ),
    "sequence": N_("sequence"),
    "row": N_("seq {sequence}"),
    "pad": N_("pad"),
}
