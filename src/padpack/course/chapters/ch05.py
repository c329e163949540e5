"""What chapter 5's setup cell needs besides torch and the checks: NumPy, the widget names and words of its batch
viewer, `pickle` and `subprocess` for its check of what a spawned worker can unpickle, and the sentence of its
chunk-size search. The chapter builds its data, tokenizer, batches and sampler itself, in visible cells; the later
pages import the same code from `padpack.course.reviews`."""

import pickle
import subprocess

import ipywidgets as widgets
import numpy as np
from IPython.display import display

from padpack.i18n import N_, gettext, translate

__all__ = ["CHUNK_SEARCH", "FRAME", "display", "gettext", "np", "pickle", "subprocess", "translate", "widgets"]

# The sentence the planner's chunk-size search writes from its numbers: printed in the notebook's language (the
# Chinese in ch05.po), and stored translated in the Chinese notebook.
CHUNK_SEARCH = N_("{chunk} batches a chunk: efficiency {efficiency:.3f}, pairs again {pairs:.3f} (16: {sixteen:.3f})")

# The words of the batch viewer's frames and controls, one catalogue message each: `translate` gives them in the
# notebook's language, so that the Chinese edition's frames are Chinese (the placeholders hold numbers). The
# loaders' names ("shuffled", "bucketed") are keys too: the cells use the English names, and show the translation.
FRAME = {
    "loader": N_("loader"),
    "shuffled": N_("shuffled"),
    "bucketed": N_("bucketed"),
    "batch": N_("batch"),
    "option": N_("batch {number:d}"),  # :d matches digits only, not "batch independence"
    "title": N_("{loader} batch {number}: longest {longest} tokens, padding efficiency {efficiency:.2f}"),
    "real tokens": N_("real tokens"),
    "pads": N_("pads"),
}
