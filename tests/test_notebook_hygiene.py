"""Static checks of every chapter notebook: the template, clean stored outputs, widget state, size."""

from __future__ import annotations

import ast
import base64
import json
import re
import struct
import sys

import pytest
import yaml

from conftest import REPO, colab_url, notebook_paths, toc_files, without_magics
from widget_state import WidgetState

sys.path.insert(0, str(REPO / "scripts"))
import reading_time

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MAX_NOTEBOOK_BYTES = 2_000_000
# A setup cell is what a learner scrolls past before the lesson: the Colab install line, imports, the seed, the
# thread setting and the language line (issue #36). What several pages share lives in the book's package.
SETUP_LINES = 25
SETUP_LINES_IN_ALL = 450
# The site's article column shows 79 monospace characters (PEP 8's limit); ruff holds the code to it
# (notebooks/ruff.toml), this file the printed output.
COLUMNS = 79
# Figures are stored at 2x (the inline backend's retina format) and shown at their logical width, which must
# fit the article column (about 700 px at 1280x800) so that their text is not scaled down.
MAX_FIGURE_WIDTH_PX = 680
TIMING_CALLS = ("blocked_autorange", "adaptive_autorange", "timeit", "perf_counter", "time.time(")
# What may make a cell's output differ between readers' machines: timing it, profiling it, or naming the CPU.
MACHINE_DEPENDENT_CALLS = (*TIMING_CALLS, "torch.profiler", "get_cpu_capability", "parallel_info")
# The cost deep dive (11) has the most: its machine line and its measurements (packing vs padding, what each costs,
# the speed of bucketing). More than that means results are hidden from the comparison instead of printed portably.
MAX_IGNORED_CELLS = 5
# Cells that time nothing themselves but print conclusions computed from an earlier cell's timings.
TIMING_REPORT_CELLS = {
    "11_deep_dive_cost_of_padding": {"def describe_ratio": "sentences computed from the timings above it"},
}
# Results of training whose digits depend on the CPU: training amplifies the last-bit differences between the
# instruction sets' kernels (chapter 7's output[:, -1] LSTM reached 0.815 test accuracy on an AVX-512 CPU and
# 0.938 on an AVX2 one, same seed). Such a cell may ignore its output if it is named here with its reason, and
# it must assert every claim it prints (checked: it contains an assert). Chapter -> text the cell contains ->
# reason. Everything else prints what holds on every CPU and is compared.
TRAINED_RESULT_CELLS = {
    "06_minibatch_training_loop": {
        "for epoch, row in enumerate(history": "the packed LSTM's per-epoch training log",
        "def plot_history(": "the packed LSTM's training curves (a figure: its pixels follow the numbers)",
        "test_accuracy = evaluate(best_model, TEST_LOADER)": "the test accuracy of the trained packed LSTM",
    },
    "07_padding_bug_ablation": {
        '"Reading output[:, -1] makes accuracy': "curves and pad sweeps of 6 trained models (a figure)",
        "dependence = {k: batch_dependence": "validation accuracy and batch dependence of 6 models, 3 seeds",
        "alone and next to the longest review": "which review a trained buggy model labels differently elsewhere",
        "def pad_sweep": "accuracy against trailing pads, 6 models",
    },
}


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
    """Numbered from 00 (the quick start) in toc order: the runner, nbval, the Chinese edition and the reading
    times find notebooks by that prefix, so a page outside it would silently escape them."""
    chapters = [name.removeprefix("notebooks/") for name in toc_files() if name.startswith("notebooks/")]
    assert chapters[0].startswith("00_quick_start"), f"the first notebook must be the quick start, not {chapters[0]}"
    for number, name in enumerate(chapters, start=0):
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
        f"{path.name}: execution counts {counts} are not 1..{len(cells)}; run `make execute`"
    )


def test_no_cell_raises(notebook):
    """Colab's Run all ignores cell tags and stops at the first error: taught errors go through expect_error."""
    path, nb = notebook
    for index, cell in enumerate(nb["cells"]):
        assert "raises-exception" not in tags(cell), (
            f"{path.name} cell {index}: tagged raises-exception; show the error with `with expect_error(...)`"
        )
        errors = [output for output in cell.get("outputs", []) if output["output_type"] == "error"]
        assert not errors, f"{path.name} cell {index}: stored error output {errors[0]['ename']}"


def test_ignored_outputs_only_where_they_must_be(notebook):
    """nbval-ignore-output hides a cell's output from the comparison, so it is for numbers that belong to the
    reader's machine: timings, profiles, the machine line. Results of training belong to the stored outputs,
    printed at a precision that holds on every CPU. nbval-skip would not even run the cell."""
    path, nb = notebook
    ignored = 0
    for index, cell in enumerate(nb["cells"]):
        assert not {"nbval-skip", "nbval-raises-exception"} & set(tags(cell)), f"{path.name} cell {index}: skip tag"
        if "nbval-ignore-output" not in tags(cell):
            continue
        text = source(cell)
        trained = [marker for marker in TRAINED_RESULT_CELLS.get(path.stem, {}) if marker in text]
        if trained:
            assert re.search(r"^\s*assert |assert_close\(|raise AssertionError", text, flags=re.MULTILINE), (
                f"{path.name} cell {index} ignores its trained results: it must assert what it prints"
            )
            continue
        ignored += 1
        timing_report = any(marker in text for marker in TIMING_REPORT_CELLS.get(path.stem, {}))
        assert timing_report or any(call in text for call in MACHINE_DEPENDENT_CALLS), (
            f"{path.name} cell {index} is tagged nbval-ignore-output but neither times, profiles nor describes the "
            f"machine; print what holds on every CPU instead, or name it in TRAINED_RESULT_CELLS with a reason"
        )
    assert ignored <= MAX_IGNORED_CELLS, (
        f"{path.name}: {ignored} cells ignore their output (at most {MAX_IGNORED_CELLS})"
    )


def test_every_allowed_ignored_cell_named_exists():
    for chapter, markers in [*TRAINED_RESULT_CELLS.items(), *TIMING_REPORT_CELLS.items()]:
        nb = json.loads((REPO / "notebooks" / f"{chapter}.ipynb").read_text())
        cells = [source(cell) for cell in code_cells(nb)]
        for marker in markers:
            matches = [text for text in cells if marker in text]
            assert len(matches) == 1, f"{chapter}: {marker!r} must name exactly one cell, found {len(matches)}"


def test_outputs_are_clean(notebook):
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb)):
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            assert not re.search(r" at 0x[0-9a-fA-F]{6,}", text), (
                f"{path.name} code cell {index}: memory address in output"
            )
            assert not (output["output_type"] == "stream" and output["name"] == "stderr"), (
                f"{path.name} code cell {index}: stderr output (a warning or a progress bar): {text[:200]!r}"
            )


def test_no_visible_nbval_comments(notebook):
    path, nb = notebook
    for index, cell in enumerate(nb["cells"]):
        assert not re.search(r"#\s*NBVAL_", source(cell)), f"{path.name} cell {index}: use a cell tag, not # NBVAL_"


def test_timing_cells_are_ignored_by_nbval(notebook):
    path, nb = notebook
    for index, cell in enumerate(nb["cells"]):
        if source(cell).startswith("%%writefile"):
            continue  # it writes a script to a file (chapter 10's); what the script prints comes out elsewhere
        if cell["cell_type"] == "code" and any(call in source(cell) for call in TIMING_CALLS) and cell.get("outputs"):
            assert "nbval-ignore-output" in tags(cell), (
                f"{path.name} cell {index} prints timings: tag it nbval-ignore-output"
            )


# Three kinds of page, each with its own required parts: the quick start (the answer in 35 minutes: no
# exercises), a chapter (the full template) and a deep dive (what a first reading skips; its exercises are
# optional). Every kind opens with the same card: title, Colab badge, reading time, run time, what you will learn.
PAGE_KINDS = {
    "quick start": {"card": ("What you will learn",), "sections": ("## Summary", "## Further reading")},
    "chapter": {
        "card": ("What you will learn", "Prerequisites"),
        "sections": ("## Summary", "## Exercises", "## Further reading"),
    },
    "deep dive": {"card": ("What you will learn", "Prerequisites"), "sections": ("## Summary", "## Further reading")},
}


def test_page_template(notebook):
    path, nb = notebook
    title = source(nb["cells"][0])
    kind = reading_time.kind(path, nb)
    number = int(path.name[:2])
    expected_title = "# Quick start: " if kind == "quick start" else f"# {number}. "
    assert nb["cells"][0]["cell_type"] == "markdown" and title.startswith(expected_title), (
        f"{path.name}: cell 0 must be markdown starting with '{expected_title}'"
    )
    # Raw HTML with a data-URI SVG: renders in Colab, on GitHub and on the site (MyST's markdown images
    # refuse SVG data URIs) and makes no request to another host.
    badge_link = re.search(
        r'<a href="([^"]+)"><img src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+" '
        r'alt="Open in Colab"/></a>',
        title,
    )
    assert badge_link, f"{path.name}: cell 0 needs an 'Open in Colab' badge"
    assert badge_link.group(1) == colab_url(f"notebooks/{path.name}"), (
        f"{path.name}: Colab badge points to {badge_link.group(1)}, expected {colab_url(f'notebooks/{path.name}')}"
    )
    assert re.search(r"^\*\*Reading time\*\* about \d+ min\.$", title, flags=re.MULTILINE), (
        f"{path.name}: cell 0 needs its own paragraph '**Reading time** about N min.' (make reading-time fills N)"
    )
    for required in ("Runs in", *PAGE_KINDS[kind]["card"]):
        assert required in title, f"{path.name}: cell 0 lacks '{required}'"
    learn = title.split("**What you will learn**", 1)[-1].split("\n**", 1)[0]
    bullets = re.findall(r"^- ", learn, flags=re.MULTILINE)
    assert 3 <= len(bullets) <= 5, f"{path.name}: 'What you will learn' has {len(bullets)} bullets, not 3 to 5"
    setup = nb["cells"][1]
    assert setup["cell_type"] == "code" and "hide-input" in tags(setup), (
        f"{path.name}: cell 1 must be the setup cell, its code folded on the site (tag hide-input)"
    )
    assert "set_seed(0)" in source(setup) and '"google.colab" in sys.modules' in source(setup), (
        f"{path.name}: the setup cell must seed everything and install only in Colab"
    )
    lines = source(setup).splitlines()
    assert len(lines) <= SETUP_LINES, (
        f"{path.name}: the setup cell has {len(lines)} lines; a learner reads at most {SETUP_LINES} (the install line, "
        "imports, seed, threads, language): move the rest into the book's package, src/padpack"
    )
    assert lines[0].startswith("# @title "), f"{path.name}: the setup cell's first line is Colab's '# @title ...'"
    assert setup["metadata"].get("cellView") == "form", f"{path.name}: Colab shows the setup cell as a folded form"
    assert setup["metadata"].get("jupyter", {}).get("source_hidden") is True, f"{path.name}: JupyterLab folds it"
    headings = [line for cell in nb["cells"] if cell["cell_type"] == "markdown" for line in source(cell).splitlines()]
    for heading in PAGE_KINDS[kind]["sections"]:
        assert heading in headings, f"{path.name}: a {kind} needs a section '{heading}'"
    if "## Exercises" in headings:
        exercises_at = next(i for i, cell in enumerate(nb["cells"]) if "## Exercises" in source(cell).splitlines())
        solutions = [
            cell for cell in nb["cells"][exercises_at:] if cell["cell_type"] == "code" and "hide-cell" in tags(cell)
        ]
        assert solutions, f"{path.name}: exercise solutions belong in code cells tagged hide-cell"


def test_deep_dives_come_after_the_core_and_say_where_they_come_from():
    """A deep dive lies beyond the core path, and its Prerequisites link the chapter it extends."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    part_of = {entry["file"]: part["caption"] for part in toc["parts"] for entry in part["chapters"]}
    for path in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text())
        if reading_time.kind(path, nb) != "deep dive":
            continue
        assert part_of[f"notebooks/{path.stem}"] == "Beyond the core", f"{path.name}: a deep dive beyond the core"
        card = source(nb["cells"][0])
        prerequisites = card[card.index("Prerequisites") :]
        assert re.search(r"\]\(\d\d_[a-z0-9_]+\.ipynb", prerequisites), (
            f"{path.name}: its Prerequisites must link the chapter it extends"
        )


OWN_FOLDER_ON_PATH = re.compile(r'^sys\.path\.insert\(0, "([\w-]+)"\)', flags=re.MULTILINE)


def test_colab_condition_statically(notebook):
    """Runs alone, as in Colab: no local imports, no paths outside the notebook's own folder.
    (make test also runs every notebook under nbval alone in an empty folder, which proves it.)"""
    path, nb = notebook
    local_modules = {p.stem for p in REPO.glob("*.py")} | {p.stem for p in (REPO / "notebooks").glob("*.py")}
    everything = "\n".join(source(cell) for cell in code_cells(nb))
    for index, cell in enumerate(code_cells(nb)):
        text = source(cell)
        # One sys.path change is allowed: a plain subfolder of the notebook's own working folder that the
        # notebook itself writes its modules into (chapter 10 writes ddp_run/ with %%writefile), so that it
        # imports them as the training script it launches does. Nothing outside its folder.
        for folder in OWN_FOLDER_ON_PATH.findall(text):
            assert re.search(rf'%%writefile (-a )?{folder}/|Path\("{folder}"\)', everything), (
                f"{path.name} cell {index}: puts {folder!r} on sys.path, but the notebook writes no module there"
            )
        text = OWN_FOLDER_ON_PATH.sub("", text)
        assert "sys.path" not in text, f"{path.name} cell {index}: do not change sys.path"
        assert not re.search(r"""["']\.\.?/""", text), f"{path.name} cell {index}: relative path in code"
        for node in ast.walk(ast.parse(without_magics(text))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    assert name.split(".")[0] not in local_modules | {"benchmarks", "scripts", "tests"}, (
                        f"{path.name} cell {index}: imports a local module ({name})"
                    )


def test_widget_state_is_stored_wherever_a_widget_is_shown(notebook):
    path, nb = notebook
    shown = {
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in code_cells(nb)
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    }
    stored = nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    missing = shown - set(stored)
    assert not missing, f"{path.name}: widgets shown without stored state: {sorted(missing)[:3]}; run `make execute`"


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda path: path.name)
def test_notebook_size(path):
    assert path.stat().st_size < MAX_NOTEBOOK_BYTES, f"{path.name} is {path.stat().st_size} bytes (limit 2 MB)"


def test_printed_lines_fit_the_column(notebook):
    """A longer line scrolls sideways on the site, and what it hides is often the point (a table's last column)."""
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb)):
        for output in cell.get("outputs", []):
            texts = [output.get("text", ""), output.get("data", {}).get("text/plain", "")]
            if "text/html" in output.get("data", {}) or WIDGET_VIEW in output.get("data", {}):
                texts.pop()  # the page shows the HTML or the widget, not its plain-text fallback
            for text in texts:
                for line in ("".join(text) if isinstance(text, list) else text).splitlines():
                    assert len(line) <= COLUMNS, (
                        f"{path.name} code cell {index}: a printed line of {len(line)} characters "
                        f"(at most {COLUMNS}): {line[:100]!r}"
                    )


def png_size(encoded: str) -> tuple[int, int]:
    header = base64.b64decode(encoded[:44])
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", header[16:24])


def test_figures_have_alt_text_captions_and_sharp_pixels(notebook):
    """Every figure: alt text that says what it shows and a caption (myst-nb reads both from the cell's
    `mystnb` metadata), pixels at 2x its display size, and a display width that fits the column."""
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb)):
        figures = [output for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]
        if not figures:
            continue
        where = f"{path.name} code cell {index}"
        options = cell.get("metadata", {}).get("mystnb", {})
        alt = options.get("image", {}).get("alt", "")
        assert len(alt.split()) >= 8 and not re.search(r"\.(png|svg|jpe?g)\b", alt), (
            f"{where}: metadata mystnb.image.alt must say what the figure shows (8 words or more), not {alt!r}"
        )
        assert options.get("figure", {}).get("caption"), f"{where}: metadata mystnb.figure.caption is missing"
        for output in figures:
            shown = output.get("metadata", {}).get("image/png", {})
            assert "width" in shown, f"{where}: no display width stored: use the inline backend's retina format"
            pixels, _ = png_size(output["data"]["image/png"])
            assert abs(pixels - 2 * shown["width"]) <= 2, (
                f"{where}: {pixels} px stored for {shown['width']} px shown; store figures at 2x (retina)"
            )
            assert shown["width"] <= MAX_FIGURE_WIDTH_PX, (
                f"{where}: a figure {shown['width']} px wide is scaled down to the column, and its text with it "
                f"(at most {MAX_FIGURE_WIDTH_PX} px)"
            )


def test_sliders_show_the_value_of_their_frame(notebook):
    """An IntSlider that picks a frame by its index shows and announces the index (2), while the frame says
    "batch size 16". A SelectionSlider of the frames' labels shows and announces what the frame shows."""
    path, nb = notebook
    if WIDGET_STATE not in nb["metadata"].get("widgets", {}):
        return
    state = WidgetState.of_notebook(path)
    index_sliders = [
        state.models[control]["state"].get("description", control)
        for control in state.controls()
        if state.name(control) == "IntSliderModel" and state.stacks_driven_by(control)
    ]
    assert not index_sliders, f"{path.name}: sliders that pick frames by index: {index_sliders}; use SelectionSlider"


def test_the_setup_cells_are_short_in_all():
    counts = {
        path.name: len(source(json.loads(path.read_text())["cells"][1]).splitlines()) for path in notebook_paths()
    }
    assert sum(counts.values()) <= SETUP_LINES_IN_ALL, f"{sum(counts.values())} setup lines in all: {counts}"
