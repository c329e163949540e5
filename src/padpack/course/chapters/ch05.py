"""What chapter 5's setup cell needs besides torch and the checks: NumPy, the widget names of its batch viewer,
`pickle` and `subprocess` for its check of what a spawned worker can unpickle, and the sentence of its chunk-size
search. The chapter builds its data, tokenizer, batches and sampler itself, in visible cells; the later pages
import the same code from `padpack.course.reviews`."""

import pickle
import subprocess

import ipywidgets as widgets
import numpy as np
from IPython.display import display

from padpack.i18n import N_, gettext

__all__ = ["CHUNK_SEARCH", "display", "gettext", "np", "pickle", "subprocess", "widgets"]

# The sentence the planner's chunk-size search writes from its numbers: printed in the notebook's language (the
# Chinese in ch05.po), and stored translated in the Chinese notebook.
CHUNK_SEARCH = N_("{chunk} batches a chunk: efficiency {efficiency:.3f}, pairs again {pairs:.3f} (16: {sixteen:.3f})")
