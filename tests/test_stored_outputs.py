"""Stored outputs are the same on every machine: no path of the machine that executed the notebook.

A traceback or a warning quotes file names; the execute script rewrites the install directory to
`site-packages/...`. Anything else that names this machine's folders (a home, a temporary or working folder,
an absolute site-packages path) would differ for every reader and leak where the book was built."""

from __future__ import annotations

import re

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MACHINE_PATH = re.compile(
    r"(?<![\w.~-])/(?:root|home|tmp|work|Users|usr|opt|var|private|mnt|srv)(?:/|\b)"  # POSIX folders
    r"|(?<![\w.-])/[\w.~/-]*/(?:site|dist)-packages/"  # an absolute install path
    r"|\b[A-Za-z]:\\\\?(?:Users|Windows|Program Files)"  # Windows
    r"|/ipykernel_\d+/"  # IPython's temporary cell files
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


def test_no_machine_paths_in_stored_outputs(notebook):
    path, nb = notebook
    found = [
        f"{where}: ...{text[max(match.start() - 60, 0) : match.end() + 60]}..."
        for where, raw in stored_texts(nb)
        for text in [ANSI.sub("", raw)]
        for match in [MACHINE_PATH.search(text)]
        if match
    ]
    assert not found, f"{path.name}: stored outputs name this machine's folders:\n  " + "\n  ".join(found[:5])


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
    ):
        assert MACHINE_PATH.search(ANSI.sub("", leaked)), leaked
    for fine in (
        "File site-packages/torch/nn/utils/rnn.py:341",
        "see https://docs.pytorch.org/docs/2.13/x.html",
        "3/4 of the batch",
        "tokens/s",
        "padded/real = 1.50",
        "data/train",
    ):
        assert not MACHINE_PATH.search(fine), fine
