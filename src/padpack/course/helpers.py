"""What every page uses: seeding, a table printer, and the helper that shows an error without stopping Run all."""

from __future__ import annotations

import contextlib
import random
import traceback
from collections.abc import Iterator, Sequence

import numpy as np
import torch

from padpack.i18n import gettext, table_lines, wrap


def set_seed(seed: int = 0) -> None:
    """Seed Python's, NumPy's and torch's global random generators, so that reruns print the same numbers.

    >>> set_seed(3); a = torch.rand(2); set_seed(3); torch.equal(a, torch.rand(2))
    True
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def print_table(header: Sequence[object], rows: Sequence[Sequence[object]], digits: int = 3) -> None:
    """Print rows under a one-line header, in right-aligned columns (the first one left-aligned). Text cells are
    printed in the reader's language (`padpack.i18n.gettext`: a heading or a row's name marked with `N_` in the
    chapter's module), and columns are aligned by display width, where a Chinese character takes two.

    >>> print_table(["batch", "efficiency"], [["random", 0.5], ["sorted", 0.875]])
    batch   efficiency
    random       0.500
    sorted       0.875
    """
    text = [
        [f"{x:.{digits}f}" if isinstance(x, float) else gettext(x) if isinstance(x, str) else str(x) for x in row]
        for row in [header, *rows]
    ]
    for line in table_lines(text):
        print(line)


def sharp_white_figures() -> None:
    """Draw inline figures at twice the pixels, on an opaque white background (readable in dark mode too): what
    `%config InlineBackend.figure_formats = ["retina"]` and `plt.rcParams["figure.facecolor"] = "white"` do, the
    first through IPython's API when IPython runs this (a plain Python process draws no inline figures)."""
    import matplotlib.pyplot as plt

    plt.rcParams["figure.facecolor"] = "white"
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.run_line_magic("config", 'InlineBackend.figure_formats = ["retina"]')


@contextlib.contextmanager
def expect_error(expected: type[Exception]) -> Iterator[None]:
    """Run a block that must raise `expected`, and print the error's last line instead of stopping.

    Colab's Run all ignores cell tags, so an error the book teaches must not stop the notebook. This prints what
    Python's traceback would end with, and fails loudly if the block raises nothing or another type.

    >>> with expect_error(ZeroDivisionError):
    ...     1 / 0
    ZeroDivisionError: division by zero
    """
    try:
        yield
    except expected as error:
        last_line = "".join(traceback.format_exception_only(error)).strip()
        for line in last_line.splitlines():
            print(wrap(line, 79, indent="    "))
    except Exception as error:
        raise AssertionError(f"expected {expected.__name__}, got {type(error).__name__}: {error}") from error
    else:
        raise AssertionError(f"expected {expected.__name__}, nothing raised")
