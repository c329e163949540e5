"""Ruff over everything ruff.toml includes (Python files at 120 columns, chapters at 79), and the pre-commit
configuration that runs the same checks before a commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from conftest import REPO

RUFF = Path(sys.executable).parent / "ruff"


def ruff(*args: str) -> subprocess.CompletedProcess:
    assert RUFF.is_file(), f"{RUFF} is missing: `make test` installs it from requirements.txt"
    # stderr into stdout: ruff reports a broken configuration there.
    return subprocess.run(
        [str(RUFF), *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False
    )


def test_ruff_check():
    result = ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, f"ruff check (`.venv/bin/ruff check --fix` fixes some):\n{result.stdout}"


def test_ruff_format():
    result = ruff("format", "--no-cache", "--check", ".")
    assert result.returncode == 0, f"ruff format --check (`.venv/bin/ruff format` fixes it):\n{result.stdout}"


def test_chapters_are_held_to_79_columns():
    settings = ruff("check", "--show-settings", "notebooks/ruff.toml").stdout
    assert "linter.line_length = 79" in settings


def test_pre_commit_hooks_are_local_and_valid():
    config_path = REPO / ".pre-commit-config.yaml"
    pre_commit = Path(sys.executable).parent / "pre-commit"
    result = subprocess.run(
        [str(pre_commit), "validate-config", str(config_path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    config = yaml.safe_load(config_path.read_text())
    assert [repo["repo"] for repo in config["repos"]] == ["local"], "hooks must not fetch other repositories"
    for hook in config["repos"][0]["hooks"]:
        tool = hook["entry"].split()[0]
        assert tool.startswith(".venv/bin/") and Path(sys.executable).parent.joinpath(Path(tool).name).is_file(), (
            f"hook {hook['id']} calls {tool}, not a tool of the project's .venv"
        )
