"""Execute chapter notebooks deterministically and store their outputs in place.

Usage: python scripts/execute_notebooks.py [NOTEBOOK ...]   (default: every notebooks/*.ipynb)

Each notebook runs top to bottom in a fresh kernel of the current Python environment, inside an empty
temporary folder (as in Colab: no local files to lean on), with CI=true so progress bars stay quiet.
Widget state is stored, cell timings are not, widget model ids are rewritten to ids derived from the
notebook's name, and a printed library path (a warning's, on stderr) shows site-packages/... instead of this
machine's install path (its site-packages, and the checkout's src/ that padpack is imported from), so executing
an unchanged notebook twice gives a byte-identical file, wherever the project's .venv and checkout live (a cell
cannot store an error's traceback: no cell may raise). The file is replaced
only after a successful run (write to a temporary file, then rename): a failure never leaves it half-written.
No cell may raise, as in Colab's Run all, which ignores cell tags: taught errors go through the chapters'
`expect_error` helper. An error, or a cell still tagged `raises-exception`, stops with the notebook's name
and cell number.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import nbformat
from kernel_sockets import unix_socket_kernel
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
CELL_TIMEOUT_S = 300


class NotebookFailed(Exception):
    """A cell raised where no error was expected."""


def stable_widget_ids(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """Replace the random widget model ids by ids derived from the notebook name and creation order."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if not state:
        return nb
    text = json.dumps(nb)
    for index, old_id in enumerate(state):
        new_id = hashlib.sha256(f"{name}:{index}".encode()).hexdigest()[:32]
        text = text.replace(old_id, new_id)
    return nbformat.from_dict(json.loads(text))


def coalesce_streams(nb: nbformat.NotebookNode) -> None:
    """Merge consecutive prints to the same stream: the kernel splits them into a varying number of chunks."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        merged = []
        for output in cell.outputs:
            previous = merged[-1] if merged else None
            if (
                output.output_type == "stream"
                and previous is not None
                and previous.output_type == "stream"
                and previous.name == output.name
            ):
                previous.text += output.text
            else:
                merged.append(output)
        cell.outputs = merged


def install_dirs() -> list[str]:
    """Where this environment's packages are: its site-packages, and the folder padpack is imported from (the
    checkout's src/ in an editable install), longest first."""
    found = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    padpack = importlib.util.find_spec("padpack")  # finds the package without importing it (and torch)
    if padpack is not None and padpack.submodule_search_locations:
        found.add(str(Path(padpack.submodule_search_locations[0]).parent))
    return sorted(found, key=len, reverse=True)


def neutral_paths(nb: nbformat.NotebookNode) -> None:
    """Show the library paths that cells print (a warning names the file that warned) as site-packages/..., not as
    this machine's install path. (No error output is ever stored: no cell may raise.)"""
    dirs = install_dirs()

    def neutral(text: str) -> str:
        for install_dir in dirs:
            text = text.replace(install_dir, "site-packages")
        return text

    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                output.text = neutral(output.text)


def clean_metadata(nb: nbformat.NotebookNode) -> None:
    """Keep only metadata that does not change from run to run."""
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.metadata.pop("collapsed", None)
            cell.metadata.pop("scrolled", None)


def failed_cell_index(nb: nbformat.NotebookNode) -> int | None:
    """The index of the last code cell that ran (the failing one), counting all cells from 0."""
    executed = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and cell.get("execution_count")]
    return executed[-1] if executed else None


def execute(path: Path) -> float:
    """Execute one notebook in place; return its run time in seconds."""
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        if "raises-exception" in cell.metadata.get("tags", []):
            raise NotebookFailed(
                f"{path.name}: cell {index} is tagged raises-exception, which Colab ignores; "
                "show the error with `with expect_error(...)` instead"
            )
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    env_before = os.environ.get("CI")
    os.environ["CI"] = "true"  # progress bars check this and stay quiet
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="ppt-run-") as empty_dir:
            client = NotebookClient(
                nb,
                timeout=CELL_TIMEOUT_S,
                kernel_name="python3",
                config=unix_socket_kernel(),
                resources={"metadata": {"path": empty_dir}},
                store_widget_state=True,
                record_timing=False,
            )
            try:
                client.execute()
            except CellExecutionError as error:
                index = failed_cell_index(nb)
                raise NotebookFailed(
                    f"{path.name}: cell {index} raised an unexpected error: {error.ename}: {error.evalue}"
                ) from None
    finally:
        if env_before is None:
            os.environ.pop("CI", None)
        else:
            os.environ["CI"] = env_before
    seconds = time.perf_counter() - start
    nb = stable_widget_ids(nb, path.stem)
    coalesce_streams(nb)
    neutral_paths(nb)
    clean_metadata(nb)
    text = nbformat.writes(nb) + "\n"
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, prefix=f".{path.stem}-", suffix=".ipynb", delete=False
    ) as tmp:
        tmp.write(text)
    os.chmod(tmp.name, path.stat().st_mode & 0o777)
    os.replace(tmp.name, path)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to execute (default: all chapters)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        print("no notebooks to execute", file=sys.stderr)
        return 1
    for path in paths:
        if not path.is_file():
            print(f"error: {path} does not exist", file=sys.stderr)
            return 1
        try:
            seconds = execute(path)
        except NotebookFailed as failure:
            print(f"error: {failure}", file=sys.stderr)
            return 1
        print(f"executed {path.name} in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
