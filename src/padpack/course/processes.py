"""Process plumbing for the pages that train on several processes (chapter 10, deep dive 17): a work folder, a
launcher that leaves nothing behind, and the checks that nothing was left.

`torchrun` starts one worker per rank. The chapters start it with `run_and_wait`, in a session of its own, so that
on a timeout one signal stops torchrun and all its workers; then they check with `processes_using` and
`nobody_listens_on` that no process and no listening port is left.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

__all__ = ["new_workdir", "nobody_listens_on", "processes_using", "run_and_wait"]


def new_workdir(name: str = "ddp_run") -> Path:
    """An empty folder `name` in the current folder (emptied if it exists): the scripts, data, checkpoints and
    reports of the processes go there, and the chapter deletes it at its end."""
    folder = Path(name).resolve()
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder


def run_and_wait(command: list[str], cwd: Path, timeout: int = 300):
    """Run a command in a session of its own, so that on a timeout one
    signal stops it and all its children: (exit status, log, (start, end)),
    start and end being time.time() stamps, which its processes can take too."""
    started = time.time()
    launcher = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        log, _ = launcher.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)  # torchrun and its workers
        log, _ = launcher.communicate()
    return launcher.returncode, log, (started, time.time())


def processes_using(folder: Path) -> list:
    """Running processes (psutil.Process) whose command line mentions the folder."""
    import psutil  # the chapters install it; the rest of the package does without

    found = []
    for process in psutil.process_iter(["cmdline"]):
        if str(folder) in " ".join(process.info["cmdline"] or []):
            found.append(process)
    return found


def nobody_listens_on(port: int) -> bool:
    """True if we can listen on the port, so no process does."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError:
            return False
    return True
