"""Shared facts for the tests: where things are, what the config and the table of contents say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = REPO / "notebooks"


def load_config() -> dict:
    return yaml.safe_load((REPO / "_config.yml").read_text())


def toc_files() -> list[str]:
    """Every file named in _toc.yml (without suffix), root first, in reading order."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


def colab_url(relative_path: str) -> str:
    """The Colab address of a file in the repository, from _config.yml alone."""
    config = load_config()
    owner_repo = config["repository"]["url"].removeprefix("https://github.com/").strip("/")
    book_path = config["repository"].get("path_to_book") or ""
    path = f"{book_path.strip('/')}/{relative_path}".lstrip("/")
    return (f"{config['launch_buttons']['colab_url'].rstrip('/')}/github/{owner_repo}"
            f"/blob/{config['repository']['branch']}/{path}")


@pytest.fixture(params=notebook_paths(), ids=lambda path: path.name)
def notebook(request) -> tuple[Path, dict]:
    path = request.param
    return path, json.loads(path.read_text())


def without_magics(source: str) -> str:
    """Cell source as plain Python: each IPython magic or shell line becomes `pass` at its indentation."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass" if stripped.startswith(("%", "!")) else line)
    return "\n".join(lines)


# Each chapter must run within Colab's CPU budget. nbval reports one test per cell; add them up per notebook
# (kernel start included: it happens in the first cell's setup) and fail the session when one is over.
NOTEBOOK_BUDGET_S = 60
_notebook_seconds: dict[str, float] = {}


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        _notebook_seconds[path] = _notebook_seconds.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    if not _notebook_seconds:
        return
    terminalreporter.section(f"notebook run times under nbval (budget {NOTEBOOK_BUDGET_S} s each)")
    for path, seconds in sorted(_notebook_seconds.items()):
        flag = "  OVER BUDGET" if seconds > NOTEBOOK_BUDGET_S else ""
        terminalreporter.write_line(f"{seconds:6.1f} s  {Path(path).name}{flag}")
    if any(seconds > NOTEBOOK_BUDGET_S for seconds in _notebook_seconds.values()):
        terminalreporter.write_line("FAILED: a chapter is over its time budget (exit status 1)", red=True)


def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput"):
        return  # under xdist only the controller has seen every notebook's reports
    if any(seconds > NOTEBOOK_BUDGET_S for seconds in _notebook_seconds.values()):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
