"""The GitHub workflows: actionlint finds no error, zizmor's audit no finding, and the test workflow runs the
README's test command on every Python the README names."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"
BIN = Path(sys.executable).parent


def run_tool(name: str, *args: str) -> subprocess.CompletedProcess:
    tool = BIN / name
    assert tool.is_file(), f"{tool} is missing: `make test` installs it from requirements.txt"
    return subprocess.run([str(tool), *args], cwd=REPO, capture_output=True, text=True, check=False)


def test_actionlint_finds_nothing():
    result = run_tool("actionlint", "-no-color", *sorted(str(path) for path in WORKFLOWS.glob("*.yml")))
    assert result.returncode == 0, f"actionlint:\n{result.stdout}{result.stderr}"


def test_zizmor_finds_nothing():
    # --offline: the audits that ask GitHub (known-vulnerable actions, impostor commits) need the network.
    # The auditor persona also reports what the default one suppresses (pedantic and low-confidence findings).
    result = run_tool("zizmor", "--offline", "--persona", "auditor", "--no-progress", str(WORKFLOWS))
    assert result.returncode == 0, f"zizmor:\n{result.stdout}{result.stderr}"


def test_every_action_is_pinned_to_a_commit():
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for line in path.read_text().splitlines():
            if (match := re.search(r"uses:\s*(\S+)", line)) and not match.group(1).startswith("./"):
                assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", match.group(1)) and "# v" in line, (
                    f"{path.name}: `{line.strip()}` is not pinned to a commit SHA with its tag in a comment"
                )


def readme_python_range() -> list[str]:
    readme = (REPO / "README.md").read_text()
    match = re.search(r"Python 3\.(\d+)[–-]3\.(\d+)", readme)
    assert match, "the README must state the supported Python range as `Python 3.X–3.Y`"
    low, high = map(int, match.groups())
    return [f"3.{minor}" for minor in range(low, high + 1)]


def test_the_test_workflow_runs_make_test_on_every_supported_python():
    workflow = yaml.safe_load((WORKFLOWS / "test.yml").read_text())
    (job,) = workflow["jobs"].values()
    assert job["strategy"]["matrix"]["python-version"] == readme_python_range()
    runs = [step.get("run", "") for step in job["steps"]]
    assert runs[-1] == "make test" or "make test" in runs, "the test workflow must run the README's `make test`"
    assert any("playwright install --with-deps chromium" in run for run in runs), (
        "GitHub's Ubuntu runners have no Debian chromium: the workflow must install Playwright's"
    )
