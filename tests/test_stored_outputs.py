"""Stored outputs are the same on every machine: no path of the machine that executed the notebook.

A warning quotes file names; the execute script rewrites the install directories (site-packages, the checkout
padpack is imported from) to `site-packages/...`. Anything else that names a machine's folders (a home, a
temporary or working folder, a virtual environment, an absolute path to a Python file, the checkout) would
differ for every reader and leak where the book was built. The pattern finds such paths wherever the
environment that executed the notebook lived; this machine's own folders are also looked for by name."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import REPO

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# This machine's checkout and environments, by name: where a notebook executed here would have run.
THIS_MACHINE = sorted(
    {str(path) for path in (REPO, Path(sys.prefix), Path(sys.base_prefix), Path.home()) if len(path.parts) > 2},
    key=len,
    reverse=True,
)
MACHINE_PATH = re.compile(
    "|".join(map(re.escape, THIS_MACHINE)) + "|"
    r"(?<![\w.~-])/(?:root|home|tmp|work|Users|usr|opt|var|private|mnt|srv)(?:/|\b)"  # POSIX folders
    r"|(?<![\w.-])/[\w.~/-]*/(?:site|dist)-packages/"  # an absolute install path
    r"|\b[A-Za-z]:\\\\?(?:Users|Windows|Program Files)"  # Windows
    r"|/ipykernel_\d+/"  # IPython's temporary cell files
    r"|(?<![\w.~/-])/(?:[\w.~-]+/)+[\w.-]+\.py\b"  # an absolute path to a Python file, under any folder
    r"|/(?:\.?venv|\.tox|\.nox|\.pyenv|\.conda|conda|miniconda3|anaconda3)/"  # a virtual environment's folder
    r"|/lib/python3\.\d+/"  # the library of a Python installation
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colours in tracebacks
BINARY = ("image/png", "image/jpeg", "application/pdf")


def texts(value, where: str):
    """Every string inside an output (lists of lines joined), with where it is."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        yield where, "".join(value) if where.endswith(("text", "text/plain", "text/html")) else "\n".join(value)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from texts(item, f"{where}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in BINARY:
                yield from texts(item, f"{where}.{key}")


def stored_texts(nb: dict):
    for index, cell in enumerate(nb["cells"]):
        for number, output in enumerate(cell.get("outputs", [])):
            yield from texts(output, f"cell {index} output {number}")
    yield from texts(nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}), "widget state")


def machine_paths(nb: dict) -> list[str]:
    """Each stored output that names a machine's folder: where it is, and the path in its context."""
    return [
        f"{where}: ...{text[max(match.start() - 60, 0) : match.end() + 60]}..."
        for where, raw in stored_texts(nb)
        for text in [ANSI.sub("", raw)]
        for match in [MACHINE_PATH.search(text)]
        if match
    ]


def test_no_machine_paths_in_stored_outputs(notebook):
    path, nb = notebook
    found = machine_paths(nb)
    assert not found, f"{path.name}: stored outputs name a machine's folders:\n  " + "\n  ".join(found[:5])


def test_the_pattern_finds_machine_paths():
    for leaked in (
        'File "/root/work/.venv/lib/python3.11/site-packages/torch/nn/modules/module.py"',
        "/home/ana/pad-pack-train/notebooks",
        "wrote /tmp/tmpab12cd/model.pt",
        "cwd: /work/main",
        "/opt/conda/lib/python3.11/site-packages/numpy",
        r"C:\Users\ana\book",
        "File /tmp/ipykernel_4242/123.py:3",
        "\x1b[0;32m/root/.venv/lib/python3.11/x.py\x1b[0m",
        "/data/ppt/src/padpack/helpers.py:12: UserWarning: x",  # an editable install's checkout, anywhere
        "/__w/ppt/ppt/.venv/bin/python",  # a CI container's workspace
        "/builds/ppt/.tox/py311/lib/python3.11/warnings.py:1",
        "/nix/store/abc-python3-3.11/lib/python3.11/json/__init__.py",
        f"checkout: {REPO}/notebooks",
        f"python: {sys.prefix}/bin/python",
    ):
        assert MACHINE_PATH.search(ANSI.sub("", leaked)), leaked
    for fine in (
        "File site-packages/torch/nn/utils/rnn.py:341",
        "see https://docs.pytorch.org/docs/2.13/x.html",
        "3/4 of the batch",
        "tokens/s",
        "padded/real = 1.50",
        "data/train",
        "https://github.com/pytorch/pytorch/blob/main/torch/nn/utils/rnn.py",
        "site-packages/padpack/helpers.py:12: UserWarning: x",
        "see chapter_05.py and src/padpack/reviews.py",
    ):
        assert not MACHINE_PATH.search(fine), fine
