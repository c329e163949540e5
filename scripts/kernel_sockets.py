"""Kernels that talk to their client over Unix sockets, not over TCP ports of 127.0.0.1.

jupyter_client picks a kernel's five TCP ports by asking the system for free ones and closing them again; the
kernel binds them a moment later. While the tests run on two workers, another process (the other worker's
kernel, a local server of the browser tests) can take one of those ports in between, and the kernel dies with
"Address already in use" before it replies: CI failed so once ("Kernel died before replying to kernel_info").
A Unix socket whose path holds a fresh UUID has no such race.

Used by every NotebookClient of the tests and scripts (`NotebookClient(..., config=unix_socket_kernel())`) and,
through tests/notebook_checks.py, by nbval's kernels. (It also spares each run ipykernel's warning that a kernel
"is running over TCP without encryption".)
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

from traitlets.config import Config

# Linux refuses a Unix socket path longer than 107 bytes; the kernel adds "-<n>" to the prefix below.
MAX_SOCKET_PATH = 107


def unix_socket_kernel() -> Config:
    """Config for ONE kernel manager: its sockets are the files <tmp>/ppt-kernel-<uuid>-<n>, which jupyter_client
    removes when the kernel shuts down. The prefix is absolute because a relative one (jupyter_client's default
    without a connection file) is resolved in each process's own working folder, and a kernel started in
    another folder never hears its client."""
    prefix = str(Path(tempfile.gettempdir()).resolve() / f"ppt-kernel-{uuid.uuid4().hex}")
    if len(prefix) + len("-99") > MAX_SOCKET_PATH:
        raise RuntimeError(f"temporary folder too deep for a Unix socket path: {prefix}; set TMPDIR=/tmp")
    return Config({"KernelManager": {"transport": "ipc", "ip": prefix}})
