"""The README's two commands exist, and CI runs the README's test command (then the Chinese notebooks)."""

from __future__ import annotations

import re

from conftest import REPO


def readme_commands() -> list[str]:
    readme = (REPO / "README.md").read_text()
    return re.findall(r"^\s*(make \w[\w-]*)\s*(?:#.*)?$", readme, flags=re.MULTILINE)


def test_readme_names_the_two_commands():
    commands = readme_commands()
    assert "make book" in commands and "make test" in commands, f"README commands found: {commands}"


def test_every_readme_make_target_exists():
    makefile = (REPO / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.MULTILINE))
    for command in readme_commands():
        assert command.split()[1] in targets, f"README runs `{command}`, which the Makefile lacks"


def test_ci_runs_the_readme_test_command_then_the_chinese_notebooks():
    """CI runs make test as a reader runs it, nothing weaker, and then make test-zh (the Chinese notebooks under
    nbval on the three instruction sets), which make test leaves out for time."""
    lines = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    assert commands[-2:] == ["make test", "make test-zh"], f".ci/run must end with make test, make test-zh: {commands}"


def test_benchmark_progress_is_one_line_per_measurement_in_a_log(capsys):
    """`make bench-quick > log`: a tqdm bar would write one line of carriage-return updates; a log gets lines."""
    from benchmarks import cli

    with cli.progress_bar(total=2) as progress:  # pytest captures stdout: not a terminal, as in a log
        for step in ("first", "second"):
            progress.set_postfix_str(step)
            progress.update(1)
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 2 and "\r" not in captured.out and captured.err == ""
    assert lines[0].startswith("benchmarks 1/2") and lines[1].endswith("second")
