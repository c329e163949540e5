"""Each chapter's Colab install line asks for a torch version the compatibility run proved.

tests/compat/results.json is written by `make test-compat` (scripts/compat.py): every chapter run top to bottom
as Colab's Run all does, on each torch version of its list. A chapter passes a version when no cell raised and
nothing on stderr was a warning. The floor of `%pip install "torch>=X"` must be the oldest minor version on
which the chapter passed: every tested version from the floor up passed, the floor itself was tested, and the
minor version just below it, where any older one was tested, failed (so the floor is known, not guessed).
"""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
from packaging.utils import canonicalize_name
from test_colab_installs import install_lines, pins, requirements_of

from conftest import REPO

RESULTS = REPO / "tests" / "compat" / "results.json"


def minor(version: str) -> tuple[int, int]:
    major, minor_, *_ = (int(part) for part in re.findall(r"\d+", version))
    return major, minor_


def load_compat_line():
    """scripts/compat_line.py, the Sphinx extension that writes the line under each chapter's title."""
    spec = importlib.util.spec_from_file_location("compat_line", REPO / "scripts" / "compat_line.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def results() -> dict:
    return json.loads(RESULTS.read_text())


def torch_floor(nb: dict) -> str:
    (floor,) = {
        spec.version
        for _, args, _ in install_lines(nb)
        for requirement in requirements_of(args)
        if canonicalize_name(requirement.name) == "torch"
        for spec in requirement.specifier
        if spec.operator == ">="
    }
    return floor


def clean(outcome: dict) -> bool:
    return outcome["passed"] and not outcome["warnings"]


def floor_problems(chapter: str, floor: str, runs: dict) -> list[str]:
    """What is wrong with `torch>=floor` for this chapter, given the compatibility runs ({} when nothing)."""
    tested = {}
    for run in runs.values():
        outcome = run["chapters"].get(chapter)
        if outcome is None:
            return [f"the torch {run['torch']} run lacks {chapter}"]
        tested.setdefault(minor(run["torch"]), []).append((run["torch"], outcome))
    problems = [
        f"asks for torch>={floor} but fails on {version}: " + (outcome.get("error") or "; ".join(outcome["warnings"]))
        for key, outcomes in tested.items()
        if key >= minor(floor)
        for version, outcome in outcomes
        if not clean(outcome)
    ]
    if minor(floor) not in tested:
        problems.append(f"asks for torch>={floor}, which the compatibility run did not test")
    older = [key for key in tested if key < minor(floor)]
    if older:
        below = (minor(floor)[0], minor(floor)[1] - 1)
        if below not in tested:
            problems.append(f"torch {below[0]}.{below[1]} was not tested: is the floor {floor} the oldest that works?")
        elif all(clean(outcome) for _, outcome in tested[below]):
            problems.append(f"passes on torch {below[0]}.{below[1]}, below its floor {floor}: lower the floor")
    return problems


def test_each_floor_is_the_oldest_version_the_chapter_passed_on(notebook):
    path, nb = notebook
    assert floor_problems(path.stem, torch_floor(nb), results()["runs"]) == []


def test_results_include_the_stored_torch_and_the_versions_readers_have():
    data = results()
    stored = str(pins()["torch"])
    assert data["stored_with"] == stored, "the results were made for other stored outputs: run make test-compat"
    assert stored in data["runs"], f"no compatibility run with torch {stored}, which the outputs are stored with"
    assert all(clean(outcome) for outcome in data["runs"][stored]["chapters"].values())
    assert len({minor(version) for version in data["runs"]}) >= 4
    assert {minor(run["python"]) for run in data["runs"].values()} >= {(3, 11), (3, 12)}
    chapters = {path.stem for path in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))}
    for version, run in data["runs"].items():
        assert set(run["chapters"]) == chapters, f"the torch {version} run does not cover every chapter"


def run(version: str, **chapters) -> dict:
    return {"torch": version, "python": "3.11.7", "date": "2026-12-02", "chapters": chapters}


PASS = {"passed": True, "warnings": []}
FAIL = {"passed": False, "cell": 3, "error": "StopIteration: ", "warnings": []}
WARN = {"passed": True, "warnings": ["cell 9: UserWarning: ..."]}


@pytest.mark.parametrize(
    ("floor", "runs", "complaint"),
    [
        ("2.2", {"2.2.2": run("2.2.2", ch=FAIL), "2.5.1": run("2.5.1", ch=PASS)}, "fails on 2.2.2"),
        ("2.5", {"2.2.2": run("2.2.2", ch=FAIL), "2.5.1": run("2.5.1", ch=PASS)}, "2.4 was not tested"),
        ("2.5", {"2.4.1": run("2.4.1", ch=PASS), "2.5.1": run("2.5.1", ch=PASS)}, "lower the floor"),
        ("2.4", {"2.5.1": run("2.5.1", ch=PASS)}, "did not test"),
        ("2.5", {"2.5.1": run("2.5.1", ch=WARN)}, "UserWarning"),
        ("2.5", {"2.5.1": run("2.5.1", other=PASS)}, "lacks ch"),
    ],
)
def test_the_floor_check_names_what_is_wrong(floor, runs, complaint):
    problems = floor_problems("ch", floor, runs)
    assert any(complaint in problem for problem in problems), problems
    assert floor_problems("ch", "2.5", {"2.4.1": run("2.4.1", ch=FAIL), "2.5.1": run("2.5.1", ch=PASS)}) == []


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_every_chapter_page_shows_the_versions_it_is_verified_with(build_log, edition):
    verified_line = load_compat_line().verified_line
    language = "zh" if edition else "en"
    data = results()
    for path in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        page = (REPO / "_build" / "html" / edition / "notebooks" / f"{path.stem}.html").read_text()
        line = verified_line(path.stem, data, language)
        assert line and line in page, f"{edition}{path.stem}.html lacks {line!r}"
        assert f"{minor(data['stored_with'])[1]}" in line


def test_the_verified_line_spans_the_clean_runs_only():
    verified_line = load_compat_line().verified_line
    data = {
        "stored_with": "2.13.0",
        "runs": {
            "2.2.2": run("2.2.2", ch=FAIL),
            "2.5.1": run("2.5.1", ch=PASS),
            "2.10.0": {**run("2.10.0", ch=WARN), "python": "3.12.1"},
            "2.13.0": {**run("2.13.0", ch=PASS), "date": "2026-12-03"},
        },
    }
    assert verified_line("ch", data) == (
        "Verified with torch 2.5–2.13 (Python 3.11) on 2026-12-03; outputs stored with torch 2.13."
    )
    assert verified_line("ch", data, "zh").startswith("已验证：torch 2.5–2.13（Python 3.11），2026-12-03")
    assert verified_line("other", data) is None
