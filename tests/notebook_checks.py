"""A pytest plugin that adds four checks to every notebook nbval runs, after its last cell.

nbval re-runs each notebook and compares its text outputs, but it skips `image/png` and never looks at the
notebook's metadata, where the widget frames live. This plugin closes those gaps, from the same run:

* `stored_widget_state_matches_a_fresh_run`: nbval reads every message the kernel sends; the plugin keeps the
  widget ones (comm_open / comm_msg), rebuilds the widget state exactly as `scripts/execute_notebooks.py`
  stores it (nbclient's rule, then the script's stable ids) and compares it with the stored state: an edited
  frame, a deleted link or a missing model fails.
* `stored_figures_match_a_fresh_run`: every stored `image/png` is compared with the fresh one by
  `figure_difference` (tolerant to sub-pixel moves and anti-aliasing, not to moved or swapped data).
* `within_time_budget`: the notebook's kernel (its start included, and every process it started and waited
  for, torchrun's workers among them) must use at most `NOTEBOOK_BUDGET_S` seconds of CPU time
  (`PPT_NOTEBOOK_BUDGET_S` overrides it, for the test that proves the check). CPU time, not wall time: it does
  not move when another process is busy, so `make test` can run notebooks side by side with the other tests.
  The chapters set one thread, so on an idle machine a chapter's wall time is about its CPU time (more only
  while it waits, which the run-time summary shows: it prints both).
* `leaves_no_process_behind`: chapters 10 and 17 start torchrun and its workers. After the last cell, no
  process the kernel started still runs, and no process other than the kernel still works in the notebook's
  folder (the chapters' work folders are inside it, so an orphaned worker is found too): a reader's next Run all
  would otherwise find a worker holding memory, or the rendezvous port taken (torchrun's store lives in its
  agent process; the chapters assert `nobody_listens_on` that port themselves). The kernel's own listening
  sockets are not checked: ipykernel opens one, and an in-kernel gloo group keeps its listener on a free port
  until the process exits, even after `destroy_process_group()` (torch 2.13, measured).

It also fails any cell whose fresh run wrote to stderr, including cells tagged `nbval-ignore-output`, whose
outputs nbval does not compare: there a new warning would otherwise pass unseen.

The checks are test items of the notebook, so they run in the same process as its cells, with or without
xdist. The test command loads the plugin with `-p tests.notebook_checks` (scripts/run_tests.py): the chapters run
in folders outside the repository, where no conftest.py of the repository would apply. A summary of the run
times is printed at the end of the session. `PPT_NOTEBOOK_BUDGET_S=inf` turns the budget off.

Instruction sets: `PPT_KERNEL_SETTINGS` (JSON, `{folder name: {variable: value}}`, set by scripts/run_tests.py)
gives the kernel of a notebook whose folder sits in a folder of that name those environment variables, e.g.
`ATEN_CPU_CAPABILITY=avx2`. One test session then runs every chapter on every instruction set. The budget
applies only to kernels that run with no such settings: held-down kernels are slower by design.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))  # kernel_sockets, and what execute_notebooks.py imports
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
NOTEBOOK_BUDGET_S = 60.0
CHECK_NAMES = (
    "stored_widget_state_matches_a_fresh_run",
    "stored_figures_match_a_fresh_run",
    "within_time_budget",
    "leaves_no_process_behind",
)

# Figures. Two renders of the same data by the same matplotlib are identical bytes; on another CPU a trained
# number can differ in its last bits, which moves a line or a marker by a fraction of a pixel and changes the
# shade of anti-aliased edge pixels. So a pixel counts as different only when no pixel within FIGURE_REACH of
# it in the other image has its colour (each channel within FIGURE_CHANNEL_TOLERANCE of 255, between the
# darkest and the lightest of that 3x3 neighbourhood). Measured (tests/test_notebook_checks.py and the chapters
# run with the instruction set held to the x86-64 baseline): lines, markers, dashes, bars and log axes moved by
# up to 0.7 pixel leave at most 1 such pixel; one changed digit of a title leaves 8 to 19; swapped or moved data
# series thousands. A figure fails above FIGURE_MAX_PIXELS.
FIGURE_REACH = 1
FIGURE_CHANNEL_TOLERANCE = 48
FIGURE_MAX_PIXELS = 4


def budget_s() -> float:
    return float(os.environ.get("PPT_NOTEBOOK_BUDGET_S", NOTEBOOK_BUDGET_S))


class CheckFailed(Exception):
    """A notebook check failed; the message says why, without a Python traceback."""


# ---------------------------------------------------------------------------------------------------------
# Figures


def _decode_png(data: str):
    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")


def figure_difference(stored_png: str, fresh_png: str) -> tuple[int, str]:
    """How many pixels of two base64 PNGs differ beyond the tolerance above, and a summary."""
    import numpy as np
    from PIL import ImageFilter

    stored, fresh = _decode_png(stored_png), _decode_png(fresh_png)
    if stored.size != fresh.size:
        return stored.size[0] * stored.size[1], f"size {stored.size} != {fresh.size}"
    size = 2 * FIGURE_REACH + 1
    tol = FIGURE_CHANNEL_TOLERANCE

    def outside(image, other):
        low = np.asarray(other.filter(ImageFilter.MinFilter(size)), dtype=np.int16)
        high = np.asarray(other.filter(ImageFilter.MaxFilter(size)), dtype=np.int16)
        pixels = np.asarray(image, dtype=np.int16)
        return ((pixels < low - tol) | (pixels > high + tol)).any(axis=2)

    different = int((outside(stored, fresh) | outside(fresh, stored)).sum())
    a, b = np.asarray(stored, dtype=np.int16), np.asarray(fresh, dtype=np.int16)
    background = np.median(a.reshape(-1, 3), axis=0)
    inked = int(((np.abs(a - background).max(axis=2) > tol) | (np.abs(b - background).max(axis=2) > tol)).sum())
    changed = int((a != b).any(axis=2).sum())
    return different, (
        f"{different} pixels differ beyond the tolerance ({different / max(inked, 1):.2%} of "
        f"{inked} inked pixels; {changed} changed at all)"
    )


def _pngs(outputs) -> list[str]:
    return [output["data"]["image/png"] for output in outputs or [] if "image/png" in output.get("data", {})]


def check_figures(item: NotebookCheck) -> None:
    ran = [cell for cell in item.cells if cell.test_outputs is not None]
    if not ran:
        pytest.skip("no cell of this notebook ran")
    problems, compared = [], 0
    for cell in ran:
        if not cell.options.get("check", True):
            continue  # nbval-ignore-output: timings may be drawn, too
        stored, fresh = _pngs(cell.cell.outputs), _pngs(cell.test_outputs)
        if len(stored) != len(fresh):
            problems.append(f"code cell {cell.cell_num}: {len(stored)} stored figures, {len(fresh)} in the fresh run")
            continue
        for number, (old, new) in enumerate(zip(stored, fresh, strict=True)):
            compared += 1
            if old == new:
                item.user_properties.append((f"code cell {cell.cell_num} figure {number}", "identical bytes"))
                continue
            pixels, summary = figure_difference(old, new)
            item.user_properties.append((f"code cell {cell.cell_num} figure {number}", summary))
            if pixels > FIGURE_MAX_PIXELS:
                problems.append(
                    f"code cell {cell.cell_num} figure {number}: {summary}; at most {FIGURE_MAX_PIXELS} may"
                )
    if problems:
        raise CheckFailed(
            "stored figures differ from a fresh run (re-run scripts/execute_notebooks.py if the "
            "change is intended):\n  " + "\n  ".join(problems)
        )


# ---------------------------------------------------------------------------------------------------------
# Widget state


def _execute_script():
    spec = importlib.util.spec_from_file_location("execute_notebooks", REPO / "scripts" / "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WidgetRecorder:
    """Keeps the widget state the kernel announces, as nbclient does when the execute script runs."""

    def __init__(self, get_kernel_message):
        self.get_kernel_message = get_kernel_message
        self.state: dict[str, dict] = {}
        self.buffers: dict[str, dict] = {}

    def __call__(self, timeout=None, stream="iopub"):
        message = self.get_kernel_message(timeout=timeout, stream=stream)
        if message.get("msg_type") in ("comm_open", "comm_msg"):
            content = message["content"]
            data = content.get("data", {})
            if "state" in data:
                self.state.setdefault(content["comm_id"], {}).update(data["state"])
                for path, buffer in zip(data.get("buffer_paths") or [], message.get("buffers") or [], strict=False):
                    self.buffers.setdefault(content["comm_id"], {})[tuple(path)] = {
                        "data": base64.b64encode(bytes(buffer)).decode(),
                        "encoding": "base64",
                        "path": path,
                    }
        return message


def fresh_widget_state(recorder: WidgetRecorder, name: str) -> tuple[dict, dict[str, str]]:
    """The state the execute script would store for this run, and the map from the run's ids to stored ids."""
    state = {}
    for model_id, model in recorder.state.items():
        state[model_id] = {
            "model_name": model.get("_model_name"),
            "model_module": model.get("_model_module"),
            "model_module_version": model.get("_model_module_version"),
            "state": model,
        }
        if recorder.buffers.get(model_id):
            state[model_id]["buffers"] = list(recorder.buffers[model_id].values())
    execute_notebooks = _execute_script()
    nb = execute_notebooks.nbformat.from_dict(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "cells": [],
            "metadata": {"widgets": {WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": state}}},
        }
    )
    renamed = execute_notebooks.stable_widget_ids(nb, name)
    new_ids = list(renamed.metadata["widgets"][WIDGET_STATE]["state"])
    return json.loads(json.dumps(renamed.metadata["widgets"])), dict(zip(state, new_ids, strict=True))


def _difference(stored: dict | None, fresh: dict | None) -> str:
    """Where a stored model and its fresh counterpart first differ, with some context."""
    if stored is None or fresh is None:
        present = fresh if stored is None else stored
        return (
            f"{present['model_name']} only in the {'fresh run' if stored is None else 'stored state'}"
            f" {json.dumps(present['state'])[:100]}"
        )
    for key in sorted(set(stored["state"]) | set(fresh["state"])):
        old, new = json.dumps(stored["state"].get(key)), json.dumps(fresh["state"].get(key))
        if old != new:
            at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
            start = max(at - 40, 0)
            return (
                f"{stored['model_name']}.{key} differs at character {at}:\n"
                f"      stored ...{old[start : at + 40]}...\n      fresh  ...{new[start : at + 40]}..."
            )
    return f"{stored['model_name']}: the model's name, module or buffers differ"


def check_widget_state(item: NotebookCheck) -> None:
    ran = [cell for cell in item.cells if cell.test_outputs is not None]
    if not ran:
        pytest.skip("no cell of this notebook ran")
    stored = item.parent.nb.metadata.get("widgets", {})
    fresh, new_ids = fresh_widget_state(item.parent.widget_recorder, Path(item.parent.path).stem)
    if not fresh[WIDGET_STATE]["state"]:
        fresh = {}
    problems = []
    stored_state = stored.get(WIDGET_STATE, {}).get("state", {})
    fresh_state = fresh.get(WIDGET_STATE, {}).get("state", {})
    for model_id in sorted(set(stored_state) | set(fresh_state)):
        if stored_state.get(model_id) != fresh_state.get(model_id):
            problems.append(f"model {model_id}: " + _difference(stored_state.get(model_id), fresh_state.get(model_id)))
    if not problems and json.loads(json.dumps(stored)) != fresh:
        problems.append("the widget metadata differs outside the models' state (version or buffers)")
    for cell in ran:
        shown = [
            output["data"][WIDGET_VIEW]["model_id"]
            for output in cell.cell.outputs
            if WIDGET_VIEW in output.get("data", {})
        ]
        shown_now = [
            new_ids.get(output["data"][WIDGET_VIEW]["model_id"], "unknown")
            for output in cell.test_outputs
            if WIDGET_VIEW in output.get("data", {})
        ]
        if shown != shown_now:
            problems.append(f"code cell {cell.cell_num} shows widgets {shown_now}, the stored outputs {shown}")
    if problems:
        raise CheckFailed(
            f"the stored widget state differs from a fresh run in {len(problems)} place(s) "
            "(re-run scripts/execute_notebooks.py):\n  " + "\n  ".join(problems[:8])
        )


# ---------------------------------------------------------------------------------------------------------
# Time budget

_seconds: dict[str, float] = {}  # notebook path -> wall seconds of its cells (setup, call and teardown phases)
_cpu_seconds: dict[str, float] = {}  # notebook path -> CPU seconds of its kernel, for budgeted notebooks


def _notebook_of(nodeid: str) -> str | None:
    path, _, name = nodeid.partition("::")
    if not path.endswith(".ipynb") or name in CHECK_NAMES:
        return None
    return path


def kernel_settings(cwd: str | os.PathLike | None) -> dict[str, str]:
    """The environment variables that the kernel of a notebook in folder `cwd` starts with (PPT_KERNEL_SETTINGS,
    keyed by the name of the folder above the notebook's own)."""
    if cwd is None:
        return {}
    return json.loads(os.environ.get("PPT_KERNEL_SETTINGS", "{}")).get(Path(cwd).parent.name, {})


def kernel_cpu_seconds(kernel) -> float:
    """CPU seconds used so far by an nbval kernel's process and the children it waited for."""
    import psutil

    times = psutil.Process(kernel.km.provisioner.process.pid).cpu_times()
    return times.user + times.system + times.children_user + times.children_system


def check_budget(item: NotebookCheck) -> None:
    if kernel_settings(Path(item.parent.path).parent):
        return  # held-down kernels are slower by design: the budget is for readers' CPUs
    seconds = kernel_cpu_seconds(item.parent.kernel)
    _cpu_seconds[_notebook_of(item.cells[0].nodeid)] = seconds
    item.user_properties.append(("cpu_seconds", seconds))
    if seconds > budget_s():
        raise CheckFailed(
            f"{Path(item.parent.path).name} used {seconds:.1f} s of CPU under nbval (kernel start "
            f"included), over its budget of {budget_s():g} s"
        )


# ---------------------------------------------------------------------------------------------------------
# Processes


def _described(process) -> str:
    import psutil

    try:
        return f"{process.pid} ({process.status()}): {' '.join(process.cmdline())[:200]}"
    except psutil.Error:
        return f"{process.pid} (gone while listed)"


def check_processes(item: NotebookCheck) -> None:
    import psutil

    kernel = psutil.Process(item.parent.kernel.km.provisioner.process.pid)
    folder = str(Path(item.parent.path).resolve().parent)
    problems = [f"the kernel's process {_described(child)} still runs" for child in kernel.children(recursive=True)]
    for process in psutil.process_iter(["cwd"]):
        cwd = process.info["cwd"] or ""
        if process.pid != kernel.pid and (cwd == folder or cwd.startswith(folder + os.sep)):
            problems.append(f"process {_described(process)} still works in {cwd}")
    if problems:
        raise CheckFailed("the notebook left processes behind:\n  " + "\n  ".join(sorted(set(problems))))


# ---------------------------------------------------------------------------------------------------------
# Hooks


class NotebookCheck(pytest.Item):
    """One check of a whole notebook, run after its last cell, in the notebook's kernel session."""

    def __init__(self, *, check, cells, **kwargs):
        super().__init__(**kwargs)
        self.check = check
        self.cells = cells

    def runtest(self):
        self.check(self)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{Path(self.parent.path).name}::{self.name}"


def pytest_configure(config):
    """nbval's kernels talk over Unix sockets too (scripts/kernel_sockets.py says why): nbval makes each one with
    `nbval.kernel.KernelManager(kernel_name=..., kernel_spec_manager=...)` and no config of its own."""
    if not config.pluginmanager.hasplugin("nbval"):
        return
    import nbval.kernel
    from jupyter_client.manager import KernelManager
    from kernel_sockets import unix_socket_kernel

    class UnixSocketKernelManager(KernelManager):
        def __init__(self, **options):
            super().__init__(config=unix_socket_kernel(), **options)

        def start_kernel(self, **options):
            settings = kernel_settings(options.get("cwd"))
            if settings:
                options["env"] = {**options.get("env", os.environ), **settings}
            return super().start_kernel(**options)

    assert nbval.kernel.KernelManager is KernelManager, "nbval no longer makes its kernels as this plugin expects"
    nbval.kernel.KernelManager = UnixSocketKernelManager


def _is_nbval_file(node) -> bool:
    return type(node).__name__ == "IPyNbFile" and type(node).__module__.startswith("nbval")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """After each notebook's last cell, add its four checks (same file: xdist keeps them on one worker)."""
    result, index = [], 0
    while index < len(items):
        item = items[index]
        result.append(item)
        index += 1
        parent = item.parent
        if not _is_nbval_file(parent):
            continue
        cells = [item]
        while index < len(items) and items[index].parent is parent:
            cells.append(items[index])
            result.append(items[index])
            index += 1
        if not hasattr(parent, "widget_recorder"):
            parent.widget_recorder = WidgetRecorder(parent.get_kernel_message)
            parent.get_kernel_message = parent.widget_recorder
        for name, check in zip(
            CHECK_NAMES, (check_widget_state, check_figures, check_budget, check_processes), strict=True
        ):
            result.append(NotebookCheck.from_parent(parent, name=name, check=check, cells=cells))
    items[:] = result


def pytest_runtest_logreport(report):
    path = _notebook_of(report.nodeid)
    if path is not None:
        _seconds[path] = _seconds.get(path, 0.0) + report.duration
    elif report.nodeid.endswith("::within_time_budget") and report.when == "call":
        # Under xdist the check ran in a worker: its CPU seconds come back with the report.
        for name, value in report.user_properties:
            if name == "cpu_seconds":
                _cpu_seconds[report.nodeid.removesuffix("::within_time_budget")] = value


def pytest_terminal_summary(terminalreporter, config):
    if not _seconds or hasattr(config, "workerinput"):
        return
    terminalreporter.section(f"notebook run times under nbval (budget: {budget_s():g} s of CPU each)")
    terminalreporter.write_line("   CPU      wall  notebook (held-down kernels: no CPU time, no budget)")
    for path, seconds in sorted(_seconds.items(), key=lambda item: (Path(item[0]).parent.parent.name, item[0])):
        cpu = _cpu_seconds.get(path)
        flag = "  OVER BUDGET" if cpu is not None and cpu > budget_s() else ""
        shown = f"{cpu:6.1f} s" if cpu is not None else "       -"
        folder = Path(path).parent.parent.name
        terminalreporter.write_line(f"{shown}  {seconds:6.1f} s  {folder}/{Path(path).name}{flag}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fail a notebook cell that wrote to stderr (a warning, a progress bar), ignored or not."""
    result = yield
    fresh_outputs = getattr(item, "test_outputs", None) or []  # set by nbval's IPyNbCell.runtest
    stderr = "".join(
        output.get("text", "")
        for output in fresh_outputs
        if output.get("output_type") == "stream" and output.get("name") == "stderr"
    )
    if stderr:
        pytest.fail(f"the cell wrote to stderr (a warning or a progress bar?):\n{stderr[:2000]}", pytrace=False)
    return result
