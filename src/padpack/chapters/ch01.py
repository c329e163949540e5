"""What chapter 1's setup cell needs besides its imports: the standard-library and torch names its cells use, and
the figure style of the book (sharp on high-density screens, opaque in dark mode)."""

import itertools

import matplotlib.pyplot as plt
from IPython import get_ipython
from IPython.display import display
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

__all__ = [
    "display",
    "itertools",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "sharp_white_figures",
]


def sharp_white_figures() -> None:
    """Draw inline figures at twice the resolution (`%config InlineBackend.figure_formats = ["retina"]`) and on
    white, so that they stay readable in a dark theme. Outside IPython only the background is set."""
    shell = get_ipython()
    if shell is not None:
        shell.run_line_magic("config", 'InlineBackend.figure_formats = ["retina"]')
    plt.rcParams["figure.facecolor"] = "white"  # opaque figures in dark mode
