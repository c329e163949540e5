"""What chapter 9's setup cell needs besides torch and the checks: the modules its later cells use (the widget of
its figure, text wrapping, warnings), the device it runs on, and quiet torch notes.

Importing it silences two notes that torch 2.13 prints about itself, not about the reader's code: a "prototype"
warning when its own CPU code builds an older kind of nested tensor, and log lines that list why each SDPA
kernel refused jagged inputs.
"""

import textwrap
import warnings

import ipywidgets as widgets
from IPython.display import display

from padpack.course.attention import quiet_torch_notes

__all__ = ["device", "display", "textwrap", "warnings", "widgets"]

device = "cpu"  # the findings of this chapter are about PyTorch's CPU kernels
quiet_torch_notes()
