"""Serve a folder of the built site on 127.0.0.1 for the time of a `with` block: for the site tests
(tests/site_audit.py) and for printing the PDFs (scripts/build_pdf.py), which both load the pages in Chromium."""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class QuietServer(ThreadingHTTPServer):
    """Chromium drops a connection when it has what it needs (the start of a PDF, a page it leaves): not an
    error worth a traceback on stderr."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve `folder` on a free port of 127.0.0.1; yield its address (ending in /)."""
    server = QuietServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
