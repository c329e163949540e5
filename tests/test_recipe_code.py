"""The recipe's CPU steps that book/performance.md shows to copy: the page holds the code, and it runs with its
checks (pieces of at most 128 steps give the gradients of one call; flushing denormals changes no gradient
beyond `torch.testing.assert_close`'s tolerance)."""

from __future__ import annotations

import sys

import pytest
import torch

from benchmarks.page import RECIPE_CODE
from conftest import REPO


def test_the_performance_page_shows_the_recipe_code():
    page = (REPO / "book" / "performance.md").read_text(encoding="utf-8")
    assert "```python\n" + RECIPE_CODE.rstrip("\n") + "\n```" in page


@pytest.mark.skipif(sys.platform != "linux", reason="the code calls glibc's mallopt")
def test_the_recipe_code_runs_and_its_checks_hold():
    try:
        exec(compile(RECIPE_CODE, "book/performance.md", "exec"), {"__name__": "recipe_code"})
    finally:
        torch.set_flush_denormal(False)  # the process-wide default again, for the other tests


def test_the_recipe_code_sets_every_malloc_setting_the_benchmark_applies():
    """The block to copy calls mallopt with exactly the benchmark's settings (M_TOP_PAD included), which the
    page's machine table lists."""
    import re

    from benchmarks.cli import GLIBC_MALLOC

    calls = re.findall(r"^libc\.mallopt\((-\d+), (\d+) << (\d+)\)  # (\w+):", RECIPE_CODE, flags=re.MULTILINE)
    shown = {name: (int(code), int(value) << int(shift)) for code, value, shift, name in calls}
    assert shown == GLIBC_MALLOC
