"""Visible code stands alone: the setup cell plus the cells the site shows unfolded, copied into a fresh
notebook, run from top to bottom without a name that only a folded cell (a figure's drawing code, an exercise's
solution) defines.

`make test` checks it statically, in milliseconds: each visible cell's free names (those it reads at the top level
or from inside its functions, classes and comprehensions, found with `symtable`) must be bound by the setup cell
(its star imports resolved by importing their modules), by an earlier visible cell or by the cell itself, unless
no cell binds them at all (builtins, IPython's names). `make test-visible` also runs each visible notebook in a
kernel (PPT_VISIBLE_RUN=1; 75 s on 2 cores, 130 s of CPU for the 18 pages: a fourth run of every chapter, which
`make test` ran until 2026-12-05): that run also sees what no name shows, a folded cell that changes an object a
visible cell then uses."""

from __future__ import annotations

import ast
import builtins
import importlib
import os
import symtable
import tempfile

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from conftest import notebook_client, notebook_paths, without_magics

FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}


def visible_notebook(path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    setup, *rest = [cell for cell in nb.cells if cell.cell_type == "code"]
    nb.cells = [setup] + [cell for cell in rest if not FOLDED & set(cell.metadata.get("tags", []))]
    return nb


def star_imported(source: str) -> set[str]:
    """The names `from module import *` lines of `source` bind, read from the modules themselves."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            module = importlib.import_module(node.module)
            names |= set(getattr(module, "__all__", [name for name in vars(module) if not name.startswith("_")]))
    return names


def bound_and_read(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds at the top level, and the names it reads there or as globals of its inner scopes."""
    code = without_magics(source)
    table = symtable.symtable(code, "<cell>", "exec")
    bound = star_imported(code) | {
        symbol.get_name() for symbol in table.get_symbols() if symbol.is_assigned() or symbol.is_imported()
    }
    read = {symbol.get_name() for symbol in table.get_symbols() if symbol.is_referenced()}
    inner = list(table.get_children())
    while inner:
        scope = inner.pop()
        inner += scope.get_children()
        for symbol in scope.get_symbols():
            if symbol.is_declared_global() and symbol.is_assigned():
                bound.add(symbol.get_name())
            if symbol.is_global() and symbol.is_referenced():
                read.add(symbol.get_name())
    return bound, read


def names_only_folded_cells_define(nb) -> list[str]:
    """Each visible cell's reads of a name that, before it, only folded cells bound."""
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    visible_bound, folded_bound, problems = set(dir(builtins)), set(), []
    for index, cell in enumerate(code):
        bound, read = bound_and_read(cell.source)
        if index and FOLDED & set(cell.metadata.get("tags", [])):
            folded_bound |= bound
            continue
        for name in sorted((read - bound - visible_bound) & folded_bound):
            problems.append(f"code cell {index} reads {name!r}, which only a folded cell before it defines")
        visible_bound |= bound
    return problems


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda path: path.name)
def test_setup_and_visible_cells_need_no_name_of_a_folded_cell(path):
    problems = names_only_folded_cells_define(nbformat.read(path, as_version=4))
    assert not problems, f"{path.name}: its visible code does not run alone: " + "; ".join(problems)


@pytest.mark.skipif(os.environ.get("PPT_VISIBLE_RUN") != "1", reason="slow: make test-visible runs it")
@pytest.mark.parametrize("path", notebook_paths(), ids=lambda path: path.name)
def test_setup_and_visible_cells_run_alone(path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    nb = visible_notebook(path)
    with tempfile.TemporaryDirectory() as folder:
        client = notebook_client(nb, timeout=300, resources={"metadata": {"path": folder}})
        try:
            client.execute(cwd=folder)
        except CellExecutionError as error:
            last = str(error).strip().splitlines()[-1]
            pytest.fail(f"{path.name}: its visible code does not run alone: {last}", pytrace=False)


def example(*cells: tuple[str, list[str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source, metadata={"tags": tags}) for source, tags in cells]
    return nb


def test_the_check_catches_a_name_defined_only_in_a_folded_cell(tmp_path):
    nb = example(
        ("import math\nfrom os.path import *\nx = 1", []),
        ("helper = 2\ndef drawn():\n    pass", ["hide-input"]),
        ("print(x + helper)", []),
        ("def f():\n    return drawn()", []),
        ("print([helper for _ in range(2)])", []),
    )
    assert names_only_folded_cells_define(nb) == [
        "code cell 2 reads 'helper', which only a folded cell before it defines",
        "code cell 3 reads 'drawn', which only a folded cell before it defines",
        "code cell 4 reads 'helper', which only a folded cell before it defines",
    ]
    path = tmp_path / "00_example.ipynb"
    nbformat.write(nb, path)
    assert [cell.source for cell in visible_notebook(path).cells][1] == "print(x + helper)"
    with pytest.raises(CellExecutionError, match="NameError"):
        notebook_client(visible_notebook(path), timeout=60).execute(cwd=str(tmp_path))


def test_the_check_passes_what_visible_code_defines_itself_or_imports():
    nb = example(
        ("from os.path import *\nimport math", []),
        ("plot = 1", ["hide-input"]),
        ("plot = 2\nprint(plot, join('a', 'b'), math.pi)", []),
        ("def g(plot):\n    return plot + 1\nprint(g(plot), len([1]), display)", []),
        ("global_name = 3", ["hide-cell"]),
        ("def h():\n    global global_name\n    global_name = 4\nh()\nprint(global_name)", []),
    )
    assert names_only_folded_cells_define(nb) == []
