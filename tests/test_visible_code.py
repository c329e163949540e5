"""Visible code stands alone: the setup cell plus the cells the site shows unfolded, copied into a fresh
notebook, run from top to bottom without error. Nothing a reader copies may lean on a name that only a folded
cell (a figure's drawing code, an exercise's solution) defines."""

from __future__ import annotations

import tempfile

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from conftest import notebook_client, notebook_paths

FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}


def visible_notebook(path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    setup, *rest = [cell for cell in nb.cells if cell.cell_type == "code"]
    nb.cells = [setup] + [cell for cell in rest if not FOLDED & set(cell.metadata.get("tags", []))]
    return nb


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


def test_the_check_catches_a_name_defined_only_in_a_folded_cell(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("helper = 2", metadata={"tags": ["hide-input"]}),
        nbformat.v4.new_code_cell("print(x + helper)"),
    ]
    path = tmp_path / "00_example.ipynb"
    nbformat.write(nb, path)
    assert [cell.source for cell in visible_notebook(path).cells] == ["x = 1", "print(x + helper)"]
    with pytest.raises(CellExecutionError, match="NameError"):
        notebook_client(visible_notebook(path), timeout=60).execute(cwd=str(tmp_path))
