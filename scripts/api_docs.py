"""A small Sphinx extension (loaded by _config.yml): the book's API page (book/api.md) documents the package
`padpack` from its docstrings with sphinx.ext.autodoc, so src/ goes on the import path here.

The book toolchain installs no torch, NumPy or matplotlib (requirements-book.txt): _config.yml's
`autodoc_mock_imports` stands in for them, so the page shows the same signatures whether they are installed or not.
The docstrings' examples run in tests/test_api_page.py (doctest), not here.
"""

from __future__ import annotations

import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def setup(app) -> dict:
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
