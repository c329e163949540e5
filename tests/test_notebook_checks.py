"""The notebook checks of tests/notebook_checks.py fail when they should, with and without xdist.

Each test runs pytest with nbval on tiny notebooks in a subprocess, as the test command runs the chapters."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat import v4

from conftest import REPO, nbval_command, notebook_client

PLUGIN = "tests.notebook_checks"
SCRIPT = REPO / "scripts" / "execute_notebooks.py"


def run_nbval(
    *paths: Path, xdist: bool = False, budget_s: float | None = None, settings: dict | None = None
) -> subprocess.CompletedProcess:
    env = {**os.environ, "CI": "true", "PPT_KERNEL_SETTINGS": json.dumps(settings or {})}
    if budget_s is not None:
        env["PPT_NOTEBOOK_BUDGET_S"] = str(budget_s)
    xdist_options = ("-n", "1", "--dist", "loadfile") if xdist else ()
    command = nbval_command(*map(str, paths), plugin=PLUGIN, options=("-rA", *xdist_options))
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)


def outcomes(result: subprocess.CompletedProcess) -> dict[str, str]:
    """Test name (after the notebook's file name) -> PASSED / FAILED, from the -rA summary."""
    found = {}
    for line in result.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "SKIPPED", "ERROR") and ".ipynb::" in rest:
            notebook, _, name = rest.split(" - ")[0].partition(".ipynb::")
            found[f"{Path(notebook).name}.ipynb::{name.strip()}"] = word
    return found


def test_the_test_command_loads_the_plugin():
    """`make test` runs scripts/run_tests.py, whose pytest runs load the plugin with -p (the notebooks run in a
    folder outside the repository, where no conftest.py of the repository applies)."""
    spec = importlib.util.spec_from_file_location("run_tests", REPO / "scripts" / "run_tests.py")
    run_tests = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_tests)
    loaded = [run_tests.PYTEST[i + 1] for i, arg in enumerate(run_tests.PYTEST[:-1]) if arg == "-p"]
    assert PLUGIN in loaded, f"scripts/run_tests.py must pass -p {PLUGIN} to pytest, it loads {loaded}"


# Busy for `seconds` of the kernel's CPU time, or asleep for as long.
BUSY = "import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end:\n    pass"
ASLEEP = "import time\ntime.sleep({seconds})"


def notebook_with(folder: Path, source: str, outputs: tuple = ()) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    nb = v4.new_notebook()
    nb.cells = [v4.new_code_cell(source, execution_count=1, outputs=list(outputs))]
    nbformat.write(nb, folder / f"{folder.name}.ipynb")
    return folder / f"{folder.name}.ipynb"


@pytest.mark.parametrize("xdist", [False, True], ids=["without-xdist", "with-xdist"])
def test_time_budget_fails_a_notebook_that_uses_too_much_cpu(tmp_path, xdist):
    # A kernel's start costs about a second of CPU: 4 s of work is over a budget of 3 s whatever the machine.
    busy = notebook_with(tmp_path / "native" / "busy", BUSY.format(seconds=4))
    result = run_nbval(busy, xdist=xdist, budget_s=3)
    found = outcomes(result)
    assert result.returncode == 1, result.stdout[-3000:]
    assert found == {
        "busy.ipynb::Cell 0": "PASSED",
        "busy.ipynb::stored_widget_state_matches_a_fresh_run": "PASSED",
        "busy.ipynb::stored_figures_match_a_fresh_run": "PASSED",
        "busy.ipynb::within_time_budget": "FAILED",
        "busy.ipynb::leaves_no_process_behind": "PASSED",
    }, result.stdout[-3000:]
    assert "over its budget of 3 s" in result.stdout
    assert "OVER BUDGET" in result.stdout  # the run-time summary at the end of the session


def test_the_budget_counts_cpu_time_and_held_down_kernels_get_their_settings(tmp_path):
    """Waiting costs no CPU (a busy neighbour cannot push a chapter over its budget); a notebook in a folder
    named in PPT_KERNEL_SETTINGS starts its kernel with those variables, and has no budget."""
    asleep = notebook_with(tmp_path / "native" / "asleep", ASLEEP.format(seconds=4))
    shows = v4.new_output("stream", name="stdout", text="avx2\n")
    held = notebook_with(
        tmp_path / "avx2" / "held", "import os\nprint(os.environ['ATEN_CPU_CAPABILITY'])", outputs=(shows,)
    )
    busy = notebook_with(tmp_path / "avx2" / "busy", BUSY.format(seconds=4))
    result = run_nbval(asleep, held, busy, budget_s=3, settings={"avx2": {"ATEN_CPU_CAPABILITY": "avx2"}})
    assert result.returncode == 0, result.stdout[-3000:]
    found = outcomes(result)
    for name in ("asleep", "held", "busy"):
        assert found[f"{name}.ipynb::within_time_budget"] == "PASSED", result.stdout[-3000:]
    assert found["held.ipynb::Cell 0"] == "PASSED", result.stdout[-3000:]


# A notebook that starts a process and waits for it; one that leaves one running in a work folder, in a session
# of its own as torchrun's workers are; one that leaves a plain child process running.
WAITED = "import subprocess, sys\n_ = subprocess.run([sys.executable, '-c', 'pass'], check=True)"
SLEEPER = "import time; time.sleep(120)  # {marker}"
# The launcher exits at once: the sleeper, orphaned, is no child of the kernel any more.
LEFT = (
    "import os, subprocess, sys\n"
    "os.mkdir('run')\n"
    "sleeper = [sys.executable, '-c', {sleeper!r}]\n"
    "launcher = f'import subprocess; subprocess.Popen({{sleeper!r}}, start_new_session=True)'\n"
    "_ = subprocess.run([sys.executable, '-c', launcher], cwd='run', check=True)"
)
CHILD = "import subprocess, sys\n_ = subprocess.Popen([sys.executable, '-c', {sleeper!r}])"


def test_a_process_left_behind_fails_its_check(tmp_path):
    """The check that replaced the torchrun launch test of chapters 10 and 17 fails when it should."""
    import psutil

    marker = f"left-behind-{os.getpid()}"
    waited = notebook_with(tmp_path / "native" / "waited", WAITED)
    left = notebook_with(tmp_path / "native" / "left", LEFT.format(sleeper=SLEEPER.format(marker=marker)))
    child = notebook_with(tmp_path / "native" / "child", CHILD.format(sleeper=SLEEPER.format(marker=marker)))
    try:
        result = run_nbval(waited, left, child)
    finally:
        for process in psutil.process_iter(["cmdline"]):
            if marker in " ".join(process.info["cmdline"] or []):
                process.kill()
    found = outcomes(result)
    assert found["waited.ipynb::leaves_no_process_behind"] == "PASSED", result.stdout[-3000:]
    assert found["left.ipynb::leaves_no_process_behind"] == "FAILED", result.stdout[-3000:]
    assert found["child.ipynb::leaves_no_process_behind"] == "FAILED", result.stdout[-3000:]
    assert found["left.ipynb::Cell 0"] == "PASSED", result.stdout[-3000:]
    assert f"still works in {left.parent / 'run'}" in result.stdout  # the orphan, found by its folder
    assert "the kernel's process" in result.stdout  # the child, found as the kernel's


# Prints how the kernel talks to its client: "tcp" or "ipc" (Unix sockets).
PRINT_TRANSPORT = (
    "import json\n"
    "from ipykernel.connect import get_connection_info\n"
    "print(json.loads(get_connection_info())['transport'])"
)


def test_nbval_kernels_talk_over_unix_sockets(tmp_path):
    """The plugin gives nbval's kernels Unix sockets, not TCP ports that a neighbouring test can take between
    their choice and the kernel's start (scripts/kernel_sockets.py): the stored output "ipc" must match."""
    nb = v4.new_notebook()
    stored = v4.new_output("stream", name="stdout", text="ipc\n")
    nb.cells = [v4.new_code_cell(PRINT_TRANSPORT, execution_count=1, outputs=[stored])]
    nbformat.write(nb, tmp_path / "transport.ipynb")
    result = run_nbval(tmp_path / "transport.ipynb")
    assert outcomes(result).get("transport.ipynb::Cell 0") == "PASSED", result.stdout[-3000:]


def test_the_tests_own_notebook_runs_talk_over_unix_sockets():
    nb = v4.new_notebook()
    nb.cells = [v4.new_code_cell(PRINT_TRANSPORT)]
    notebook_client(nb, timeout=60).execute()
    assert nb.cells[0].outputs[0]["text"] == "ipc\n"


WIDGET_AND_FIGURE = [
    "import ipywidgets as widgets\nimport matplotlib.pyplot as plt",
    (
        "slider = widgets.IntSlider(value=0, min=0, max=2, description='step')\n"
        "frames = widgets.Stack([widgets.HTML(f'<b>frame {k}</b>') for k in range(3)], selected_index=0)\n"
        "widgets.jslink((slider, 'value'), (frames, 'selected_index'))\n"
        "widgets.VBox([slider, frames])"
    ),
    (
        "fig, ax = plt.subplots(figsize=(3, 2))\n"
        "ax.plot([0, 1, 2, 3], [1, 3, 2, 4], color='#0072B2', label='first')\n"
        "ax.plot([0, 1, 2, 3], [4, 1, 3, 0], color='#E69F00', label='second')\n"
        "ax.legend()\nplt.show()"
    ),
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    """A tiny notebook with a slider over frames and a figure, executed by the execute script."""
    folder = tmp_path_factory.mktemp("tiny")
    nb = v4.new_notebook()
    nb.cells = [v4.new_code_cell(source) for source in WIDGET_AND_FIGURE]
    nbformat.write(nb, folder / "tiny.ipynb")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(folder / "tiny.ipynb")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return json.loads((folder / "tiny.ipynb").read_text())


def test_edited_frames_and_swapped_series_fail_their_checks(tmp_path, executed):
    """The real chapters prove the checks pass on unchanged notebooks; this proves they fail on changed ones."""
    edited = json.loads(json.dumps(executed))
    state = edited["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    frame = next(model for model in state.values() if model["state"].get("value") == "<b>frame 1</b>")
    frame["state"]["value"] = "<b>frame 7</b>"  # an edited frame in the stored widget state
    plot = edited["cells"][2]
    source = "".join(plot["source"])
    plot["source"] = (
        source.replace("[1, 3, 2, 4], color", "[first], color")
        .replace("[4, 1, 3, 0], color", "[1, 3, 2, 4], color")
        .replace("[first], color", "[4, 1, 3, 0], color")
    )
    assert plot["source"] != source  # the two series swapped under their labels and colours
    (tmp_path / "tiny.ipynb").write_text(json.dumps(edited))
    result = run_nbval(tmp_path / "tiny.ipynb")
    assert outcomes(result) == {
        "tiny.ipynb::Cell 0": "PASSED",
        "tiny.ipynb::Cell 1": "PASSED",
        "tiny.ipynb::Cell 2": "PASSED",
        "tiny.ipynb::stored_widget_state_matches_a_fresh_run": "FAILED",
        "tiny.ipynb::stored_figures_match_a_fresh_run": "FAILED",
        "tiny.ipynb::within_time_budget": "PASSED",
        "tiny.ipynb::leaves_no_process_behind": "PASSED",
    }, result.stdout[-3000:]
    assert "frame 7" in result.stdout and "pixels differ beyond the tolerance" in result.stdout


def png(draw) -> str:
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    draw(ax)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def test_figure_difference_tolerates_sub_pixel_changes_only():
    from notebook_checks import FIGURE_MAX_PIXELS, figure_difference

    x = [0, 1, 2, 3, 4]
    first, second = [0.1, 0.5, 0.3, 0.8, 0.6], [0.7, 0.2, 0.4, 0.1, 0.3]

    def lines(a, b, shift=0.0, title="best accuracy 0.85"):
        def draw(ax):
            ax.plot(x, [v + shift for v in a], "o-", color="#0072B2")
            ax.plot(x, [v + shift for v in b], "--", color="#E69F00")
            ax.set_ylim(0, 1)
            ax.set_title(title)

        return draw

    stored = png(lines(first, second))
    assert figure_difference(stored, stored)[0] == 0
    # the data moved by 1e-3 of the axis (about a quarter of a pixel: trained numbers on another CPU)
    assert figure_difference(stored, png(lines(first, second, shift=1e-3)))[0] <= FIGURE_MAX_PIXELS
    assert figure_difference(stored, png(lines(second, first)))[0] > 100 * FIGURE_MAX_PIXELS  # swapped series
    assert figure_difference(stored, png(lines(first, second, shift=0.02)))[0] > 10 * FIGURE_MAX_PIXELS  # moved
    assert figure_difference(stored, png(lines(first, second, title="best accuracy 0.86")))[0] > FIGURE_MAX_PIXELS
