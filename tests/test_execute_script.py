"""scripts/execute_notebooks.py: deterministic, never half-written, and clear about failures."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat import v4
from test_stored_outputs import machine_paths

from conftest import REPO

SCRIPT = REPO / "scripts" / "execute_notebooks.py"


def run_script(
    *paths: Path, python: Path = Path(sys.executable), env: dict | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python, str(SCRIPT), *map(str, paths)], capture_output=True, text=True, timeout=300, check=False, env=env
    )


def elsewhere(folder: Path) -> tuple[str, dict]:
    """This environment and the book's package as another machine has them, at other paths: the Python of a
    link to this venv, and a copy of src/padpack first on PYTHONPATH (as an editable install elsewhere)."""
    folder.mkdir()
    (folder / "venv").symlink_to(sys.prefix, target_is_directory=True)
    shutil.copytree(REPO / "src" / "padpack", folder / "src" / "padpack", ignore=shutil.ignore_patterns("__pycache__"))
    return str(folder / "venv" / "bin" / "python"), {**os.environ, "PYTHONPATH": str(folder / "src")}


def write_notebook(path: Path, *cells) -> Path:
    nb = v4.new_notebook()
    nb.cells = list(cells)
    nbformat.write(nb, path)
    return path


def test_executing_twice_gives_identical_bytes_also_from_another_environment_path(tmp_path):
    """The second run is from a venv and a checkout at other paths: a library path that a cell prints (a warning
    names the file that warned) must be stored as site-packages/..., the same from anywhere, and no stored output
    may name a machine's folder."""
    notebook = write_notebook(
        tmp_path / "demo.ipynb",
        v4.new_markdown_cell("# Demo"),
        v4.new_code_cell("import random\nrandom.seed(0)\nprint(round(random.random(), 4))"),
        v4.new_code_cell(
            "import sys, time\nfor step in range(3):\n    print('step', step)\n    sys.stdout.flush()\n"
            "    time.sleep(0.05)"
        ),
        v4.new_code_cell(
            "import ipywidgets as widgets\nslider = widgets.IntSlider(description='step')\n"
            "frames = widgets.Stack([widgets.HTML('a'), widgets.HTML('b')])\n"
            "widgets.jslink((slider, 'value'), (frames, 'selected_index'))\n"
            "display(widgets.VBox([slider, frames]))"
        ),
        v4.new_code_cell(
            "try:\n    raise ValueError('taught on purpose')\nexcept ValueError as error:\n"
            "    print(f'ValueError: {error}')"
        ),
        v4.new_code_cell("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"),
        # warnings as a library in the venv and the book's package show them: with the file that warned
        v4.new_code_cell(
            "import importlib.util, warnings\nfor name in ('yaml', 'padpack'):\n"
            "    warnings.warn_explicit(f'{name} warns', UserWarning, importlib.util.find_spec(name).origin, 1)"
        ),
    )
    first = run_script(notebook)
    assert first.returncode == 0, first.stderr
    once = notebook.read_bytes()
    python, env = elsewhere(tmp_path / "elsewhere")
    second = run_script(notebook, python=python, env=env)
    assert second.returncode == 0, second.stderr
    assert notebook.read_bytes() == once, "re-executing an unchanged notebook from another path changed its bytes"
    nb = nbformat.reads(once.decode(), as_version=4)
    assert not machine_paths(nb), f"stored outputs name a machine's folders: {machine_paths(nb)}"
    warned = nb.cells[-1].outputs[0].text
    assert "site-packages/yaml/__init__.py:1: UserWarning: yaml warns" in warned, warned
    assert "site-packages/padpack/__init__.py:1: UserWarning: padpack warns" in warned, warned
    assert nb.metadata.widgets, "widget state was not stored"
    assert all("execution" not in cell.metadata for cell in nb.cells), "cell timings were recorded"
    assert [output.text for output in nb.cells[2].outputs] == ["step 0\nstep 1\nstep 2\n"], "prints were not merged"
    assert [cell.execution_count for cell in nb.cells if cell.cell_type == "code"] == [1, 2, 3, 4, 5, 6]


def test_unexpected_error_names_notebook_and_cell_and_keeps_the_file(tmp_path):
    notebook = write_notebook(
        tmp_path / "broken.ipynb",
        v4.new_markdown_cell("# Broken"),
        v4.new_code_cell("x = 1"),
        v4.new_code_cell("1 / 0"),
        v4.new_code_cell("y = 2"),
    )
    before = notebook.read_bytes()
    result = run_script(notebook)
    assert result.returncode != 0
    assert "broken.ipynb: cell 2" in result.stderr and "ZeroDivisionError" in result.stderr, result.stderr
    assert notebook.read_bytes() == before, "a failed run must leave the notebook as it was"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.ipynb"], "a temporary file was left behind"


def test_a_cell_tagged_to_raise_is_refused(tmp_path):
    """Colab ignores the raises-exception tag and stops there: the book shows taught errors without raising."""
    notebook = write_notebook(
        tmp_path / "tagged.ipynb",
        v4.new_markdown_cell("# Tagged"),
        v4.new_code_cell("raise ValueError('taught on purpose')", metadata={"tags": ["raises-exception"]}),
    )
    before = notebook.read_bytes()
    result = run_script(notebook)
    assert result.returncode != 0
    assert "tagged.ipynb: cell 1 is tagged raises-exception" in result.stderr, result.stderr
    assert notebook.read_bytes() == before
