"""Shared facts for the tests: where things are, what the config and the table of contents say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import site_audit

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = REPO / "notebooks"
SITE = REPO / "_build" / "html"  # where `make book` builds the site (the Chinese edition in zh/)


def load_config() -> dict:
    return yaml.safe_load((REPO / "_config.yml").read_text())


def toc_files() -> list[str]:
    """Every file named in _toc.yml (without suffix), root first, in reading order."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


def notebook_client(nb, **options):
    """An nbclient runner for `nb` on the python3 kernel, over Unix sockets (scripts/kernel_sockets.py: TCP
    ports can be taken by a neighbouring test between their choice and the kernel's start)."""
    from kernel_sockets import unix_socket_kernel  # scripts/, on sys.path since site_audit's import
    from nbclient import NotebookClient

    return NotebookClient(nb, kernel_name="python3", config=unix_socket_kernel(), **options)


def once_per_session(request, tmp_path_factory, name: str, make):
    """`make()` run once per test session, also under pytest-xdist: the first worker runs it under a file lock and
    records its JSON result; the others wait for the lock and read that record. Without workers, just make()."""
    from filelock import FileLock

    if getattr(request.config, "workerinput", None) is None:
        return make()
    record = tmp_path_factory.getbasetemp().parent / f"{name}.json"
    with FileLock(f"{record}.lock"):
        if record.is_file():
            return json.loads(record.read_text())
        outcome = make()
        record.write_text(json.dumps(outcome))
        return outcome


@pytest.fixture(scope="session")
def build_log(tmp_path_factory, request) -> str:
    """Build the book as `make book` does (both editions into _build/html) once per test session, also when
    pytest-xdist runs the English and the Chinese browser tests on two workers at once: the first worker builds,
    the other waits and reads what it printed. Returns everything the build printed."""

    def build() -> dict:
        result = subprocess.run(
            [sys.executable, str(REPO / "scripts" / "build_book.py")],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        return {"returncode": result.returncode, "output": result.stdout + result.stderr}

    outcome = once_per_session(request, tmp_path_factory, "site-build", build)
    assert outcome["returncode"] == 0, f"make book failed:\n{outcome['output'][-6000:]}"
    return outcome["output"]


@pytest.fixture(scope="module")
def site(build_log):
    """Serve the built book (both editions) on a free port of 127.0.0.1 for the duration of the module."""
    with site_audit.serve(SITE) as address:
        yield address


# The browser: Debian's `chromium` when installed, else the Chromium that `python -m playwright install chromium`
# downloaded (GitHub's Ubuntu runners: Ubuntu has no Debian chromium, and its chromium-browser is a snap stub).
@pytest.fixture(scope="module")
def browser():
    """Chromium for the browser tests (tests/test_site.py, tests/test_site_zh.py): Debian's, else Playwright's
    own; without either the tests skip, and fail under CI=true."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(
                executable_path=site_audit.DEBIAN_CHROMIUM,  # None: Playwright's own, if it was installed
                args=site_audit.CHROMIUM_ARGS,
            )
        except PlaywrightError as error:
            if site_audit.DEBIAN_CHROMIUM is not None or "Executable doesn't exist" not in str(error):
                raise
            reason = (
                "no Chromium: neither Debian's (apt-get install chromium) nor Playwright's own "
                "(.venv/bin/python -m playwright install --with-deps chromium); the browser tests need one"
            )
            if os.environ.get("CI") == "true":
                pytest.fail(f"CI=true but {reason}")
            pytest.skip(reason)
        yield browser
        browser.close()


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


def colab_url(relative_path: str) -> str:
    """The Colab address of a file in the repository, from _config.yml alone."""
    config = load_config()
    owner_repo = config["repository"]["url"].removeprefix("https://github.com/").strip("/")
    book_path = config["repository"].get("path_to_book") or ""
    path = f"{book_path.strip('/')}/{relative_path}".lstrip("/")
    return (
        f"{config['launch_buttons']['colab_url'].rstrip('/')}/github/{owner_repo}"
        f"/blob/{config['repository']['branch']}/{path}"
    )


@pytest.fixture(params=notebook_paths(), ids=lambda path: path.name)
def notebook(request) -> tuple[Path, dict]:
    path = request.param
    return path, json.loads(path.read_text())


def without_magics(source: str) -> str:
    """Cell source as plain Python: each IPython magic or shell line becomes `pass` at its indentation (its
    continuation lines, after a trailing backslash, become empty lines)."""
    lines = []
    continued = False
    for line in source.splitlines():
        stripped = line.lstrip()
        if continued:
            lines.append("")
        elif stripped.startswith(("%", "!")):
            lines.append(line[: len(line) - len(stripped)] + "pass")
        else:
            lines.append(line)
        continued = (continued or stripped.startswith(("%", "!"))) and line.endswith("\\")
    return "\n".join(lines)


def nbval_command(*paths: str, plugin: str, options: tuple[str, ...] = ()) -> list[str]:
    """pytest running nbval on `paths` with one of the project's plugins, as scripts/run_tests.py runs it."""
    pytest_with_plugin = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", plugin, *options]
    return [*pytest_with_plugin, "--nbval", "--nbval-current-env", *paths]
