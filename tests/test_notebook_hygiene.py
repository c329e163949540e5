"""Static checks of every chapter notebook: the template, clean stored outputs, widget state, size."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import REPO, colab_url, notebook_paths, toc_files, without_magics

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MAX_NOTEBOOK_BYTES = 2_000_000
TIMING_CALLS = ("blocked_autorange", "adaptive_autorange", "timeit", "perf_counter", "time.time(")


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def code_cells(nb: dict) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def test_toc_and_notebooks_folder_list_the_same_chapters():
    in_toc = {name for name in toc_files() if name.startswith("notebooks/")}
    on_disk = {f"notebooks/{path.stem}" for path in notebook_paths()}
    assert not on_disk - in_toc, f"notebooks missing from _toc.yml: {sorted(on_disk - in_toc)}"
    assert not in_toc - on_disk, f"_toc.yml lists notebooks that do not exist: {sorted(in_toc - on_disk)}"
    for name in toc_files():
        if not name.startswith("notebooks/"):
            assert (REPO / f"{name}.md").is_file(), f"_toc.yml lists {name}, but {name}.md does not exist"


def test_chapter_file_names_follow_the_toc_order():
    chapters = [name.removeprefix("notebooks/") for name in toc_files() if name.startswith("notebooks/")]
    for number, name in enumerate(chapters, start=1):
        assert re.fullmatch(rf"{number:02d}_[a-z0-9_]+", name), f"{name}: expected prefix {number:02d}_ and snake_case"


def test_kernelspec_is_python3(notebook):
    path, nb = notebook
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3", f"{path.name}: kernelspec must be python3"


def test_every_code_cell_ran_in_order(notebook):
    path, nb = notebook
    cells = [cell for cell in code_cells(nb) if source(cell).strip()]
    assert any(cell.get("outputs") for cell in cells), f"{path.name}: no stored outputs; run `make execute`"
    counts = [cell.get("execution_count") for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{path.name}: execution counts {counts} are not 1..{len(cells)}; run `make execute`")


def test_errors_only_where_expected(notebook):
    path, nb = notebook
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        raised = any(output["output_type"] == "error" for output in cell.get("outputs", []))
        expected = "raises-exception" in tags(cell)
        assert raised == expected, (
            f"{path.name} cell {index}: "
            + ("error output without the raises-exception tag" if raised else "tagged raises-exception but raised nothing"))


def test_outputs_are_clean(notebook):
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb)):
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            assert not re.search(r" at 0x[0-9a-fA-F]{6,}", text), f"{path.name} code cell {index}: memory address in output"
            assert not (output["output_type"] == "stream" and output["name"] == "stderr"), (
                f"{path.name} code cell {index}: stderr output (a warning or a progress bar): {text[:200]!r}")


def test_no_visible_nbval_comments(notebook):
    path, nb = notebook
    for index, cell in enumerate(nb["cells"]):
        assert not re.search(r"#\s*NBVAL_", source(cell)), f"{path.name} cell {index}: use a cell tag, not # NBVAL_"


def test_timing_cells_are_ignored_by_nbval(notebook):
    path, nb = notebook
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code" and any(call in source(cell) for call in TIMING_CALLS) and cell.get("outputs"):
            assert "nbval-ignore-output" in tags(cell), f"{path.name} cell {index} prints timings: tag it nbval-ignore-output"


def test_chapter_template(notebook):
    path, nb = notebook
    title = source(nb["cells"][0])
    number = int(path.name[:2])
    assert nb["cells"][0]["cell_type"] == "markdown" and title.startswith(f"# {number}. "), (
        f"{path.name}: cell 0 must be markdown starting with '# {number}. '")
    # Raw HTML with a data-URI SVG: renders in Colab, on GitHub and on the site (MyST's markdown images
    # refuse SVG data URIs) and makes no request to another host.
    badge_link = re.search(r'<a href="([^"]+)"><img src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+" '
                           r'alt="Open in Colab"/></a>', title)
    assert badge_link, f"{path.name}: cell 0 needs an 'Open in Colab' badge"
    assert badge_link.group(1) == colab_url(f"notebooks/{path.name}"), (
        f"{path.name}: Colab badge points to {badge_link.group(1)}, expected {colab_url(f'notebooks/{path.name}')}")
    for required in ("What you will learn", "Prerequisites", "Runs in"):
        assert required in title, f"{path.name}: cell 0 lacks '{required}'"
    setup = nb["cells"][1]
    assert setup["cell_type"] == "code" and "hide-output" in tags(setup), f"{path.name}: cell 1 must be the hidden setup cell"
    assert "set_seed(0)" in source(setup) and '"google.colab" in sys.modules' in source(setup), (
        f"{path.name}: the setup cell must seed everything and install only in Colab")
    headings = [line for cell in nb["cells"] if cell["cell_type"] == "markdown" for line in source(cell).splitlines()]
    for heading in ("## Summary", "## Exercises", "## Further reading"):
        assert heading in headings, f"{path.name}: missing section '{heading}'"
    exercises_at = next(i for i, cell in enumerate(nb["cells"]) if "## Exercises" in source(cell).splitlines())
    solutions = [cell for cell in nb["cells"][exercises_at:] if cell["cell_type"] == "code" and "hide-cell" in tags(cell)]
    assert solutions, f"{path.name}: exercise solutions belong in code cells tagged hide-cell"


def test_colab_condition_statically(notebook):
    """Runs alone, as in Colab: no local imports, no paths outside the notebook's own folder.
    (make test also runs every notebook under nbval alone in an empty folder, which proves it.)"""
    path, nb = notebook
    local_modules = {p.stem for p in REPO.glob("*.py")} | {p.stem for p in (REPO / "notebooks").glob("*.py")}
    for index, cell in enumerate(code_cells(nb)):
        text = source(cell)
        assert "sys.path" not in text, f"{path.name} cell {index}: do not change sys.path"
        assert not re.search(r"""["']\.\.?/""", text), f"{path.name} cell {index}: relative path in code"
        for node in ast.walk(ast.parse(without_magics(text))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    assert name.split(".")[0] not in local_modules | {"benchmarks", "scripts", "tests"}, (
                        f"{path.name} cell {index}: imports a local module ({name})")


def test_widget_state_is_stored_wherever_a_widget_is_shown(notebook):
    path, nb = notebook
    shown = {output["data"][WIDGET_VIEW]["model_id"]
             for cell in code_cells(nb) for output in cell.get("outputs", [])
             if WIDGET_VIEW in output.get("data", {})}
    stored = nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    missing = shown - set(stored)
    assert not missing, f"{path.name}: widgets shown without stored state: {sorted(missing)[:3]}; run `make execute`"


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda path: path.name)
def test_notebook_size(path):
    assert path.stat().st_size < MAX_NOTEBOOK_BYTES, f"{path.name} is {path.stat().st_size} bytes (limit 2 MB)"
