"""scripts/execute_notebooks.py: deterministic, never half-written, and clear about failures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat import v4

from conftest import REPO

SCRIPT = REPO / "scripts" / "execute_notebooks.py"


def run_script(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, paths)], capture_output=True, text=True, timeout=300, check=False
    )


def write_notebook(path: Path, *cells) -> Path:
    nb = v4.new_notebook()
    nb.cells = list(cells)
    nbformat.write(nb, path)
    return path


def test_executing_twice_gives_identical_bytes(tmp_path):
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
    )
    first = run_script(notebook)
    assert first.returncode == 0, first.stderr
    once = notebook.read_bytes()
    second = run_script(notebook)
    assert second.returncode == 0, second.stderr
    assert notebook.read_bytes() == once, "re-executing an unchanged notebook changed its bytes"
    nb = nbformat.reads(once.decode(), as_version=4)
    assert nb.metadata.widgets, "widget state was not stored"
    assert all("execution" not in cell.metadata for cell in nb.cells), "cell timings were recorded"
    assert [output.text for output in nb.cells[2].outputs] == ["step 0\nstep 1\nstep 2\n"], "prints were not merged"
    assert [cell.execution_count for cell in nb.cells if cell.cell_type == "code"] == [1, 2, 3, 4, 5]


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
