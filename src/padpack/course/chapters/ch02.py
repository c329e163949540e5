"""What chapter 2's setup cell needs besides torch and the checks: torch's functional `F`, the widget and
plotting names its figure cells use, the device it runs on, and sharp, opaque inline figures."""

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import display
from matplotlib.patches import Rectangle

from padpack.course.helpers import sharp_white_figures

__all__ = ["F", "Rectangle", "device", "display", "plt", "sharp_white_figures", "widgets"]

device = "cuda" if torch.cuda.is_available() else "cpu"
