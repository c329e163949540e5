"""The student edition (make student): the chapters without their exercise solutions, outputs cleared.

The fast tests check what `make student` writes; the slow one runs every English student notebook to the end
with every stub unfilled, as a student who has not started would (about a minute on 2 cores; `make
test-student` runs it, `make test` does not)."""

from __future__ import annotations

import ast
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from conftest import REPO, notebook_client, notebook_paths, once_per_session, without_magics

sys.path.insert(0, str(REPO / "scripts"))
import student_edition

from i18n_notebooks import COLAB_TITLES

SOLUTION_TITLE = "# @title Solution"


@pytest.fixture(scope="module")
def written(tmp_path_factory, request) -> list:
    """The student edition, written once per test session: under pytest-xdist (`make test-student`), a second
    worker rewriting it deleted the notebooks the first was reading. The first worker writes it, as conftest's
    `build_log` builds the site; the others read its list."""

    def write() -> list[str]:
        return [str(path) for path in student_edition.write_student_edition()]

    return [Path(path) for path in once_per_session(request, tmp_path_factory, "student-edition", write)]


def parts(nb: dict, part: str) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["metadata"].get("exercise", {}).get("part") == part]


def test_every_chapter_in_both_languages_without_solutions_or_outputs(written):
    names = sorted(path.name for path in notebook_paths())
    assert sorted(path.name for path in written if path.parent.name == "student") == names
    assert sorted(path.name for path in written if path.parent.name == "zh") == names
    for path in written:
        nb = json.loads(path.read_text(encoding="utf-8"))
        original = json.loads(
            (
                student_edition.REPO / ("i18n/zh_CN/notebooks" if path.parent.name == "zh" else "notebooks") / path.name
            ).read_text(encoding="utf-8")
        )
        assert not parts(nb, "solution"), f"{path}: a solution survived"
        title = COLAB_TITLES[SOLUTION_TITLE] if path.parent.name == "zh" else SOLUTION_TITLE
        assert not any(title in "".join(cell["source"]) for cell in nb["cells"]), f"{path}: solution code"
        assert len(parts(nb, "stub")) == len(parts(original, "stub")), f"{path}: a stub went missing"
        assert len(parts(nb, "check")) == len(parts(original, "check")), f"{path}: a check went missing"
        assert all(not cell.get("outputs") for cell in nb["cells"] if cell["cell_type"] == "code"), path
        assert "widgets" not in nb["metadata"], f"{path}: stored widget state of a run the student has not made"


def stripped_lines(cells: list[dict]) -> set[str]:
    return {line.strip() for cell in cells for line in "".join(cell["source"]).splitlines()}


def solution_lines(nb: dict) -> set[str]:
    """The lines that only the solutions hold (not the stub's signature, nor code the page shows elsewhere)
    and that say something (not a title, a comment, a short line or a call of the check), stripped."""
    others = stripped_lines([cell for cell in nb["cells"] if cell not in parts(nb, "solution")])
    return {
        line
        for line in stripped_lines(parts(nb, "solution")) - others
        if len(line) > 12 and not line.startswith(("#", "check_"))
    }


def package_messages() -> set[str]:
    """Every message of the exercise checks, in English and in Chinese: the mistakes' sentences (which spell out
    the fixes) and the hints, from the package's catalogues."""
    from babel.messages.pofile import read_po

    messages = set()
    for po in (REPO / "src" / "padpack" / "locale" / "zh_CN" / "LC_MESSAGES").glob("ch*.po"):
        with po.open("rb") as file:
            for message in read_po(file):
                messages |= {text for text in (message.id, message.string) if text and len(text) > 30}
    return messages


def test_the_student_edition_gives_nothing_away(written):
    """No solution's code, and no mistake message or hint: those live in the installed package, not in the
    notebook a student is handed (where the setup cell once spelled them out)."""
    messages = package_messages()
    assert len(messages) > 300, "the package's catalogues hold the checks' messages"
    found = []
    for path in written:
        student = json.loads(path.read_text(encoding="utf-8"))
        flat = json.dumps(student, ensure_ascii=False)
        original = json.loads((REPO / "notebooks" / path.name).read_text(encoding="utf-8"))
        found += [
            f"{path.parent.name}/{path.name}: solution line {line!r}"
            for line in solution_lines(original) & stripped_lines(student["cells"])
        ]
        found += [
            f"{path.parent.name}/{path.name}: message {message[:60]!r}"
            for message in messages
            if json.dumps(message, ensure_ascii=False)[1:-1] in flat
        ]
    shown = sum(len(solution_lines(json.loads(path.read_text()))) for path in notebook_paths())
    assert shown > 200, f"only {shown} solution lines to look for"
    assert not found, "\n".join(found[:20])


def parsed(cell: dict) -> ast.Module:
    return ast.parse(without_magics("".join(cell["source"])))


def assigned_names(cell: dict) -> set[str]:
    tree = parsed(cell)
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return names | {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def loaded_names(cell: dict) -> set[str]:
    return {node.id for node in ast.walk(parsed(cell)) if isinstance(node, ast.Name)}


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda path: path.name)
def test_no_later_cell_needs_what_only_a_solution_defines(path):
    """Without its solutions a chapter must still run: no later cell may use a name that only a solution sets
    (the exercise's function itself is also defined by its stub)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    problems = []
    for index, cell in enumerate(code):
        if cell["metadata"].get("exercise", {}).get("part") != "solution":
            continue
        elsewhere = set().union(*(assigned_names(other) for other in code if other is not cell))
        only_here = assigned_names(cell) - elsewhere
        for later in code[index + 1 :]:
            if used := only_here & loaded_names(later):
                problems.append(f"a cell after the solution of {cell['metadata']['exercise']['name']} uses {used}")
    assert not problems, f"{path.name}: " + "; ".join(problems)


@pytest.mark.skipif(os.environ.get("PPT_STUDENT_RUN") != "1", reason="slow: make test-student runs it")
@pytest.mark.parametrize("name", [path.name for path in notebook_paths()])
def test_student_notebook_runs_to_the_end_with_every_stub_unfilled(written, name, monkeypatch):
    monkeypatch.setenv("CI", "true")
    path = REPO / "_build" / "student" / name
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as folder:
        notebook_client(nb, timeout=300).execute(cwd=folder)
    todo = [cell for cell in nb.cells if cell.metadata.get("exercise", {}).get("part") == "check"]
    for cell in todo:
        text = "".join(output.get("text", "") for output in cell.outputs)
        assert text.startswith("Not attempted yet"), f"{name}: {cell.source.splitlines()[0]} printed {text!r}"
