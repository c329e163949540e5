"""Run a chapter's exercises without a notebook kernel: its setup cell, then a stub's or a solution's code, in a
namespace of this process, as the cells would run in the notebook.

    chapter = Chapter.load("07")                 # runs the setup cell of notebooks/07_*.ipynb
    chapter.check("gather_last_step")            # the check object, e.g. check_gather_last_step
    chapter.solution("gather_last_step")         # the function the folded solution cell defines
    chapter.stub("gather_last_step")             # the unfilled stub
    chapter.define(source, name)                 # a learner's attempt, given as source text
    printed(check, function)                     # what calling the check prints, in the current language
    attempt(chapter, name, source)               # what the check prints for a learner's attempt

A chapter's test file keeps its learners' answers in tables, exercise -> answers, and makes one test of each table:

    test_correct_answers_pass = each_passes(CORRECT)                    # answer
    test_answers_hard_coded_to_the_cases_fail = each_fails(HARD_CODED)  # answer, wrong on some case
    test_wrong_answers_are_named = each_is_named(NAMED_MISTAKES)        # (answer, start of the mistake's message)
    test_wrong_answers_are_told_why = each_is_told(SAID)                # (answer, words the rejection says)
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import itertools
import json
import linecache
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import without_magics
from padpack.i18n import gettext as _gettext

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
_counter = itertools.count()
RIGHT = "✓"
WRONG = "✗"


def source(cell: dict) -> str:
    return "".join(cell["source"])


def exercise_cells(nb: dict) -> dict[str, dict[str, tuple[int, dict]]]:
    """name -> part ("stub", "check", "solution") -> (cell index, cell)."""
    found: dict[str, dict[str, tuple[int, dict]]] = {}
    for index, cell in enumerate(nb["cells"]):
        meta = cell["metadata"].get("exercise")
        if meta:
            found.setdefault(meta["name"], {})[meta["part"]] = (index, cell)
    return found


def check_name(cell: dict) -> str:
    """The check a check cell calls: `check_x(x)` -> "check_x"."""
    return ast.parse(source(cell)).body[0].value.func.id


def notebook_path(number: str) -> Path:
    (path,) = NOTEBOOKS.glob(f"{number}_*.ipynb")
    return path


class Chapter:
    """A chapter's setup cell run in a fresh namespace, and its exercises' cells."""

    def __init__(self, path: Path):
        self.path = path
        self.nb = json.loads(path.read_text(encoding="utf-8"))
        self.exercises = exercise_cells(self.nb)
        self.namespace: dict = {"__name__": "__main__"}
        # An empty folder of its own, as in Colab: some setup cells write files where they run. It lives as long
        # as the process, since what the cell defines may keep its path.
        self.folder = tempfile.mkdtemp(prefix=f"ppt-{path.stem[:2]}-")
        here = os.getcwd()
        os.chdir(self.folder)
        try:
            self.run(source(self.nb["cells"][1]))
        finally:
            os.chdir(here)

    @classmethod
    @functools.cache
    def load(cls, number: str) -> Chapter:
        return cls(notebook_path(number))

    def run(self, text: str) -> None:
        """Run code in the chapter's namespace, its source registered so that inspect.getsource finds it."""
        filename = f"<cell-{next(_counter)}>"
        text = without_magics(text)
        linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
        exec(compile(text, filename, "exec"), self.namespace)

    def define(self, text: str, name: str) -> Callable:
        """The function `name` that `text` defines, defined in a copy of the chapter's namespace."""
        saved = dict(self.namespace)
        try:
            self.run(text)
            return self.namespace[name]
        finally:
            self.namespace.clear()
            self.namespace.update(saved)

    def check(self, name: str):
        return self.namespace[check_name(self.exercises[name]["check"][1])]

    def stub(self, name: str) -> Callable:
        return self.define(source(self.exercises[name]["stub"][1]), name)

    def solution(self, name: str) -> Callable:
        """The solution cell's imports and definitions, without its demonstration and its check call."""
        text = source(self.exercises[name]["solution"][1])
        tree = ast.parse(without_magics(text))
        keep = (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
        definitions = "\n\n".join(
            ast.get_source_segment(without_magics(text), node) for node in tree.body if isinstance(node, keep)
        )
        return self.define(definitions, name)


def printed(call: Callable, *args) -> str:
    """What `call(*args)` prints on stdout."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        call(*args)
    return buffer.getvalue()


def attempt(chapter, name, text):
    """What the check prints for the learner's `text`, which defines `name`."""
    return printed(chapter.check(name), chapter.define(text, name))


def named(chapter, name, output, start):
    """Whether `output` names the check's mistake whose message starts with `start`."""
    (mistake,) = [m for m in chapter.check(name).mistakes if m.message.startswith(start)]
    return " ".join(_gettext(mistake.message).split()) in " ".join(output.split())


def rejected_and_named(chapter, name, output, start):
    """Whether `output` rejects the answer to `name` (in English) and names the mistake that starts with `start`."""
    return output.startswith(f"✗ {name} is wrong") and named(chapter, name, output, start)


def squeezed(text: str) -> str:
    """`text` without any white space: a message compared however the check wrapped it."""
    return re.sub(r"\s+", "", text)


def _cases(table: dict[str, list]) -> list:
    """pytest's cases for `table` (exercise -> rows), one a row, named by the exercise and the row's place."""
    return [
        pytest.param(name, *(row if isinstance(row, tuple) else (row,)), id=f"{name}-{index}")
        for name, rows in table.items()
        for index, row in enumerate(rows)
    ]


def each_passes(table: dict[str, list[str]]) -> Callable:
    """A test that the check of each exercise in `table` accepts each of its answers."""

    @pytest.mark.parametrize("name, text", _cases(table))
    def test(chapter, name, text):
        assert attempt(chapter, name, text).startswith(f"{RIGHT} {name} is right")

    return test


def each_fails(table: dict[str, list[str]]) -> Callable:
    """A test that the check of each exercise in `table` finds a case each of its answers gets wrong."""

    @pytest.mark.parametrize("name, text", _cases(table))
    def test(chapter, name, text):
        output = attempt(chapter, name, text)
        assert output.startswith(f"{WRONG} {name} is wrong on"), output

    return test


def each_is_named(table: dict[str, list[tuple[str, str]]]) -> Callable:
    """A test that each wrong answer in `table` is rejected (in English) with the mistake whose message starts as
    given."""

    @pytest.mark.parametrize("name, text, start", _cases(table))
    def test(chapter, name, text, start):
        output = attempt(chapter, name, text)
        assert rejected_and_named(chapter, name, output, start), output

    return test


def each_is_told(table: dict[str, list[tuple[str, str]]]) -> Callable:
    """A test that each wrong answer in `table` is rejected in a message that says the words given, however the
    message wraps them."""

    @pytest.mark.parametrize("name, text, words", _cases(table))
    def test(chapter, name, text, words):
        output = attempt(chapter, name, text)
        assert output.startswith(WRONG) and " ".join(words.split()) in " ".join(output.split()), output

    return test
