"""A pytest plugin for the nbval runs (`-p tests.nbval_checks`): a fresh run must write nothing to stderr.

nbval compares a cell's fresh outputs with the stored ones, but not in cells tagged `nbval-ignore-output`
(timings): there a new warning would pass unseen. This checks the fresh outputs of every cell, ignored or
not, and fails the cell that wrote to stderr, with what it wrote.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    fresh_outputs = getattr(item, "test_outputs", None) or []  # set by nbval's IPyNbCell.runtest
    stderr = "".join(
        output.get("text", "")
        for output in fresh_outputs
        if output.get("output_type") == "stream" and output.get("name") == "stderr"
    )
    if stderr:
        pytest.fail(f"the cell wrote to stderr (a warning or a progress bar?):\n{stderr[:2000]}", pytrace=False)
    return result
