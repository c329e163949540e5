"""What every chapter's exercise tests share: the chapter, its setup cell run once per test file (test_ch07.py:
notebooks/07_*.ipynb), and English before and after each test, so that a test that switches to Chinese cannot
leave it to the next."""

from __future__ import annotations

from pathlib import Path

import pytest
from exercise_harness import Chapter

from padpack.i18n import use_language


@pytest.fixture(scope="module")
def chapter(request) -> Chapter:
    return Chapter.load(Path(request.module.__file__).stem.removeprefix("test_ch"))


@pytest.fixture(autouse=True)
def english():
    use_language("en")
    yield
    use_language("en")
