"""padpack: the companion package of the course book *Pad, Pack, Train*.

It holds what several chapters use, written once: the helpers every page calls (`set_seed`, `print_table`,
`expect_error`), the review data, tokenizer, batches and classifier that chapters 5 to 8 build and later pages
reuse, and the exercise checks (`padpack.exercises`), with their messages in English and Chinese
(`use_language`). Each chapter's setup cell imports what that page needs; in Colab it installs this package
first, pinned to the chapter's edition of the book.
"""

from padpack.i18n import use_language

__version__ = "2026.12"
__all__ = ["expect_error", "print_table", "set_seed", "sharp_white_figures", "use_language"]
_HELPERS = {"expect_error", "print_table", "set_seed", "sharp_white_figures"}


def __getattr__(name: str):
    # The helpers import torch; the book's scripts read padpack.i18n without it (make translations installs no torch).
    if name in _HELPERS:
        from padpack import helpers

        return getattr(helpers, name)
    raise AttributeError(f"module 'padpack' has no attribute {name!r}")
