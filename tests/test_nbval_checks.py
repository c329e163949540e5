"""The stderr check of tests/notebook_checks.py and the expect_error helper: they fail when they should."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import json
import shutil
import subprocess
import tempfile
import textwrap
import traceback
from pathlib import Path

import nbformat
import pytest
import torch
from nbformat import v4

from conftest import REPO, nbval_command, notebook_paths, without_magics


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
    # one cell each, plus the plugin's three checks per notebook: only the warning cell fails
    assert "1 failed, 7 passed" in result.stdout, result.stdout[-2000:]
    assert "warns.ipynb::Cell 0" in result.stdout and "a new warning" in result.stdout


def helper_sources() -> dict[str, str]:
    """The source of `expect_error` (with its decorator) in each chapter's setup cell."""
    found = {}
    for path in notebook_paths():
        setup = "".join(json.loads(path.read_text())["cells"][1]["source"])
        lines = setup.splitlines()
        for node in ast.parse(without_magics(setup)).body:
            if isinstance(node, ast.FunctionDef) and node.name == "expect_error":
                start = (
                    min(decorator.lineno for decorator in node.decorator_list) if node.decorator_list else node.lineno
                )
                found[path.name] = "\n".join(lines[start - 1 : node.end_lineno])
    return found


HELPERS = helper_sources()


def test_every_chapter_that_teaches_an_error_defines_the_same_expect_error():
    """A page that shows an error live defines the helper in its setup cell, the same everywhere; a page that
    shows none (the quick start, chapter 1, ...) carries no unused copy."""
    using = {
        path.name
        for path in notebook_paths()
        if any("expect_error(" in "".join(cell["source"]) for cell in json.loads(path.read_text())["cells"][2:])
    }
    assert len(using) >= 10, f"only {sorted(using)} show errors live"
    missing = sorted(using - set(HELPERS))
    assert not missing, f"chapters that use expect_error without it in their setup cell: {missing}"
    assert len(set(HELPERS.values())) == 1, f"expect_error differs between {sorted(HELPERS)}: keep one copy"


@pytest.fixture
def expect_error():
    namespace = {"contextlib": contextlib, "textwrap": textwrap, "traceback": traceback}
    exec(next(iter(HELPERS.values())), namespace)
    return namespace["expect_error"]


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
