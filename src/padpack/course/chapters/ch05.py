"""What chapter 5's setup cell needs besides the standard library, torch and the checks: NumPy, and the widget
names of its batch viewer. The chapter builds its data, tokenizer, batches and sampler itself, in visible cells;
the later pages import the same code from `padpack.course.reviews`."""

import ipywidgets as widgets
import numpy as np
from IPython.display import display

__all__ = ["display", "np", "widgets"]
