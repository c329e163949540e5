"""What chapter 2's setup cell needs besides torch and the checks: torch's functional `F`, the widget and
plotting names its figure cells use, the device it runs on, and sharp, opaque inline figures."""

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import display
from matplotlib.patches import Rectangle

__all__ = ["F", "Rectangle", "device", "display", "plt", "sharp_white_figures", "widgets"]

device = "cuda" if torch.cuda.is_available() else "cpu"


def sharp_white_figures() -> None:
    """Draw inline figures at retina resolution on an opaque white background (readable in dark mode too): what
    `%config InlineBackend.figure_formats = ["retina"]` and `plt.rcParams["figure.facecolor"] = "white"` do."""
    plt.rcParams["figure.facecolor"] = "white"
    try:
        from IPython import get_ipython
    except ImportError:  # no IPython: no inline figures to configure
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "kernel"):  # a Jupyter or Colab kernel, not a plain shell
        shell.run_line_magic("config", 'InlineBackend.figure_formats = ["retina"]')
