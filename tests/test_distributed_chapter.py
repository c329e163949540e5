"""Chapter 10 and deep dive 17 start real training processes (torchrun, two gloo workers): they must leave none
behind.

The test runs the chapter's cells, in a fresh kernel in an empty temporary folder as the execution script does, up
to and including the cell that launches torchrun. Then, with the kernel still alive, it asks the kernel for the port
(torchrun's own pick, from rank 0's report) and work folder the run used and checks from outside: no process
started by the kernel is still alive, no process anywhere still runs from the work folder, and nothing listens on
the port. The rest of the chapter starts no
process; nbval runs all of it. Cost: a kernel, the chapter's imports and one launch (three Python processes that
import torch), most of the chapter's run time.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import nbformat
import psutil
import pytest

from conftest import NOTEBOOKS_DIR, notebook_client

CHAPTERS = [
    NOTEBOOKS_DIR / "10_distributed_variable_length_training.ipynb",
    NOTEBOOKS_DIR / "17_deep_dive_distributed_gpu_and_speed.ipynb",
]
LAUNCH_MARK = "torch.distributed.run"
# `torchrun --standalone` picks the port itself; each rank reports it (MASTER_PORT) in its report file.
PROBE = (
    "import json, os\n"
    "port = int(json.loads((WORKDIR / 'report_rank0.json').read_text())['port'])\n"
    "print(json.dumps({'port': port, 'workdir': str(WORKDIR), 'pid': os.getpid()}))"
)


def listening_ports() -> set[int]:
    """Local TCP ports in the LISTEN state (IPv4 and IPv6), read from /proc."""
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # TCP_LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def processes_mentioning(text: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if text in " ".join(process.info["cmdline"] or []):
            found.append(process)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc to list listening ports")
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: path.name[:2])
def test_the_launch_leaves_no_process_and_no_port_behind(chapter, tmp_path, monkeypatch):
    nb = nbformat.read(chapter, as_version=4)
    launch = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and LAUNCH_MARK in cell.source)
    nb.cells = nb.cells[: launch + 1] + [nbformat.v4.new_code_cell(PROBE)]
    monkeypatch.setenv("CI", "true")
    client = notebook_client(nb, timeout=300, resources={"metadata": {"path": str(tmp_path)}})
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        probe = json.loads("".join(o["text"] for o in nb.cells[-1].outputs if o["output_type"] == "stream"))
        kernel = psutil.Process(probe["pid"])
        assert kernel.pid != os.getpid()
        left = [(p.pid, " ".join(p.cmdline())) for p in kernel.children(recursive=True) if p.is_running()]
        assert left == [], f"the kernel still has child processes after the launch: {left}"
        assert processes_mentioning(probe["workdir"]) == [], "a process still runs from the chapter's work folder"
        assert probe["port"] not in listening_ports(), f"something still listens on port {probe['port']}"
        with socket.socket() as listener:  # and we can take the port ourselves
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", probe["port"]))
            listener.listen()
    assert processes_mentioning(probe["workdir"]) == [], "a process outlived the kernel"
