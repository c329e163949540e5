"""The stderr check of tests/notebook_checks.py and the expect_error helper: they fail when they should."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest
import torch
from nbformat import v4

from conftest import REPO, nbval_command, notebook_paths


def run_nbval(folder, *notebooks) -> subprocess.CompletedProcess:
    for name, cells in notebooks:
        nb = v4.new_notebook()
        nb.cells = cells
        nbformat.write(nb, folder / name)
    return subprocess.run(
        nbval_command(*(str(folder / name) for name, _ in notebooks), plugin="tests.notebook_checks"),
        cwd=REPO,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_stderr_fails_even_in_a_cell_whose_output_is_ignored(tmp_path):
    warning = "import warnings\nwarnings.warn('a new warning')"
    ignored = {"tags": ["nbval-ignore-output"]}
    result = run_nbval(
        tmp_path,
        ("warns.ipynb", [v4.new_code_cell(warning, metadata=ignored, execution_count=1)]),
        ("quiet.ipynb", [v4.new_code_cell("print('timing: 1 s')", metadata=ignored, execution_count=1)]),
    )
    # one cell each, plus the plugin's four checks per notebook: only the warning cell fails
    assert "1 failed, 9 passed" in result.stdout, result.stdout[-2000:]
    assert "warns.ipynb::Cell 0" in result.stdout and "a new warning" in result.stdout


SETUP_IMPORT = re.compile(r"^from padpack\.course import [^\n]*\bexpect_error\b", re.MULTILINE)


def test_every_chapter_that_teaches_an_error_imports_the_one_expect_error():
    """A page that shows an error live imports the helper from the book's package (one copy, tested below); a
    page that shows none (the quick start, chapter 1, ...) does not import it."""
    using, importing = set(), set()
    for path in notebook_paths():
        cells = json.loads(path.read_text())["cells"]
        if any("expect_error(" in "".join(cell["source"]) for cell in cells[2:]):
            using.add(path.name)
        if SETUP_IMPORT.search("".join(cells[1]["source"])):
            importing.add(path.name)
    assert len(using) >= 10, f"only {sorted(using)} show errors live"
    assert using == importing, (
        f"use it without importing: {sorted(using - importing)}; unused: {sorted(importing - using)}"
    )


@pytest.fixture
def expect_error():
    from padpack.course import expect_error

    return expect_error


def test_expect_error_prints_the_last_traceback_line(expect_error, capsys):
    with expect_error(RuntimeError):
        torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(2, 3, 1), torch.tensor([2, 3]), batch_first=True)
    printed = capsys.readouterr().out
    assert printed.startswith("RuntimeError: `lengths` array must be sorted in decreasing order")
    assert max(len(line) for line in printed.splitlines()) <= 79, "the message must fit the page"
    assert "File " not in printed, "no traceback frames"


def test_expect_error_fails_when_nothing_or_something_else_is_raised(expect_error):
    with pytest.raises(AssertionError, match="nothing raised"), expect_error(ValueError):
        pass
    with pytest.raises(AssertionError, match="got KeyError"), expect_error(ValueError):
        {}.pop("missing")


def test_chapters_are_tested_alone_outside_the_repository():
    """As in Colab: a chapter that reads a file of the repository (say Path.cwd().parents[2] / "README.md") or
    imports one of its modules must fail under make test, so its folder must not be inside the repository."""
    spec = importlib.util.spec_from_file_location("run_tests", REPO / "scripts" / "run_tests.py")
    run_tests = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_tests)
    scratch = Path(tempfile.mkdtemp(prefix="ppt-nbval-"))  # where run_tests.py puts its copies
    try:
        copies = run_tests.copy_alone(scratch)
        assert REPO not in scratch.resolve().parents, f"{scratch} is inside the repository"
        assert sorted(copy.name for copy in copies) == sorted(path.name for path in notebook_paths())
        assert all(sorted(p.name for p in copy.parent.iterdir()) == [copy.name] for copy in copies), "not alone"
    finally:
        shutil.rmtree(scratch)
