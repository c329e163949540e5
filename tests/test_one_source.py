"""One source of truth for what a chapter teaches: a function or class that a chapter defines in a visible cell
and that the book's package also holds (for the later pages that import it) is the same code in both.

A reader who studies `collate_batch` in chapter 5 and meets it again in chapter 7 meets the same function. For
every top-level `def` and `class` of every visible code cell (not folded on the site, not an exercise's stub or
solution), the package's object of the same name, if there is one, must have the same syntax tree, docstring
included. A chapter that builds a function up in steps is compared by its last definition."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import pkgutil
import tempfile
import textwrap

import pytest

import padpack
from conftest import notebook_paths, without_magics

FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}


def package_objects() -> dict[str, list[tuple[str, object]]]:
    """name -> [(module, object)] for every function and class defined in a module of the package."""
    found: dict[str, list[tuple[str, object]]] = {}
    here = os.getcwd()
    os.chdir(tempfile.mkdtemp(prefix="ppt-one-source-"))  # a module that writes where it runs writes there
    try:
        for info in pkgutil.walk_packages(padpack.__path__, "padpack."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == info.name:
                    found.setdefault(name, []).append((info.name, value))
    finally:
        os.chdir(here)
    return found


def taught_definitions() -> list[tuple[str, str, str]]:
    """(notebook, name, source) of the last visible top-level definition of each name, per notebook."""
    found = []
    for path in notebook_paths():
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"][2:]  # after the title and the setup cell
        last: dict[str, str] = {}
        for cell in cells:
            if cell["cell_type"] != "code" or FOLDED & set(cell["metadata"].get("tags", [])):
                continue
            if cell["metadata"].get("exercise"):
                continue
            text = without_magics("".join(cell["source"]))
            lines = text.splitlines()
            for node in ast.parse(text).body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                    start = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
                    last[node.name] = "\n".join(lines[start - 1 : node.end_lineno])  # with its decorators
        found += [(path.name, name, text) for name, text in last.items()]
    return found


OBJECTS = package_objects()
SHARED = [(notebook, name, text) for notebook, name, text in taught_definitions() if name in OBJECTS]


def tree(text: str) -> str:
    return ast.dump(ast.parse(textwrap.dedent(text)).body[0], include_attributes=False)


def test_the_package_holds_what_the_chapters_teach():
    """The test below compares something: the chapters 5 and 6 that build the data and the model teach code
    the package holds."""
    names = {name for _, name, _ in SHARED}
    assert {"collate_batch", "SequenceClassifier"} <= names, sorted(names)


@pytest.mark.parametrize("notebook, name, text", SHARED, ids=[f"{n[:2]}-{name}" for n, name, _ in SHARED])
def test_a_taught_definition_is_the_packages_code(notebook, name, text):
    taught = tree(text)
    held = [(module, tree(inspect.getsource(value))) for module, value in OBJECTS[name]]
    assert any(code == taught for _, code in held), (
        f"{notebook} teaches {name}, and {', '.join(module for module, _ in held)} holds a different {name}: "
        "make them the same code (the package's copy is what later pages import), or rename one"
    )
