"""Self-checking exercises: try first, then check; the check names the mistake; hints and solutions on demand.

Each exercise is three code cells after its markdown question, marked in their metadata
(`exercise: {name, part}`): the stub the learner fills in, the check cell, and the solution, hidden in Colab
(`cellView: form` and a `# @title Solution` first line), JupyterLab (`jupyter.source_hidden`) and on the site
(`hide-cell`). The checks live in the book's package (`padpack.course.exercises.chNN`, on the engine of
`padpack.checks`, whose classes tests/test_checks.py tests). Here every check of every chapter runs in this
process, without a notebook kernel (tests/exercise_harness.py runs the chapter's setup cell): it must pass the
solution, wait for the unfilled stub, and reject AND name each wrong answer of its table, in both languages."""

from __future__ import annotations

import ast
import json
import re
import sys

import pytest
from exercise_harness import Chapter, check_name, exercise_cells, printed, source
from test_error_messages import notebook_ids

import padpack
from conftest import REPO, notebook_paths
from padpack.checks import TEXT
from padpack.i18n import display_width, gettext

sys.path.insert(0, str(REPO / "scripts"))
import reading_time

MIN_EXERCISES = {"chapter": 3, "deep dive": 1, "quick start": 0}
# Named mistakes per exercise: from what learners write on the topic (issue #36).
MIN_MISTAKES = {"chapter": 5, "deep dive": 3}
MIN_MISTAKES_IN_ALL = 180
# Hidden cases per exercise: one at least, and two in the chapters whose own tests asked for two (the checks that
# the attack of exercise_checks_attack.md found passing answers hard-coded to the listed cases).
MIN_HIDDEN = {"01": 2, "10": 2, "11": 2}
PARTS = ("stub", "check", "solution")
ZH_NOTEBOOKS = REPO / "i18n" / "zh_CN" / "notebooks"
SOLUTION_TITLE = "# @title Solution"
LANGUAGES = ("en", "zh_CN")
WIDTH = 79  # the columns a code cell's output shows on the site


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def stored_stdout(cell: dict) -> str:
    return "".join(
        "".join(output.get("text", ""))
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream" and output.get("name") == "stdout"
    )


PAGES = [(path, load(path)) for path in notebook_paths()]
EXERCISES = [(path, nb, name, parts) for path, nb in PAGES for name, parts in exercise_cells(nb).items()]
IDS = [f"{path.stem[:2]}-{name}" for path, _, name, _ in EXERCISES]


@pytest.fixture
def language():
    """Each test sets the language it needs; English again afterwards."""
    yield padpack.use_language
    padpack.use_language("en")


@pytest.mark.parametrize("path, nb", PAGES, ids=[path.name for path, _ in PAGES])
def test_enough_self_checking_exercises(path, nb):
    kind = reading_time.kind(path, nb)
    count = len(exercise_cells(nb))
    assert count >= MIN_EXERCISES[kind], f"{path.name} ({kind}) has {count} self-checking exercises"


@pytest.mark.parametrize("path, nb, name, parts", EXERCISES, ids=IDS)
def test_exercise_is_question_stub_check_solution_with_the_solution_hidden_everywhere(path, nb, name, parts):
    assert set(parts) == set(PARTS), f"{name}: parts {sorted(parts)}"
    (stub_at, stub), (check_at, check), (solution_at, solution) = (parts[part] for part in PARTS)
    assert (check_at, solution_at) == (stub_at + 1, stub_at + 2), f"{name}: stub, check and solution in a row"
    assert nb["cells"][stub_at - 1]["cell_type"] == "markdown", f"{name}: a markdown question comes first"
    function = ast.parse(source(stub)).body[0]
    assert isinstance(function, ast.FunctionDef) and function.name == name, f"{name}: the stub defines {name}"
    assert ast.get_docstring(function), f"{name}: the stub's docstring says what to return"
    body = function.body[1:]
    unfilled = len(body) == 1 and (
        (isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.unparse(body[0]))
        or (isinstance(body[0], ast.Expr) and body[0].value.value is Ellipsis)
    )
    assert unfilled, f"{name}: the stub's body is `raise NotImplementedError` or `...`"
    check_lines = source(check).splitlines()
    checker = check_name(check)
    assert check_lines == [f"{checker}({name})", f"# {checker}.hint()  # uncomment for a hint"]
    assert source(solution).splitlines()[0] == SOLUTION_TITLE, f"{name}: Colab shows a form's title, not the code"
    assert solution["metadata"].get("cellView") == "form", f"{name}: Colab folds the solution"
    assert solution["metadata"].get("jupyter", {}).get("source_hidden") is True, f"{name}: JupyterLab folds it"
    assert "hide-cell" in solution["metadata"].get("tags", []), f"{name}: the site folds it"
    last = ast.parse(source(solution)).body[-1]
    assert ast.unparse(last) == f"{checker}({name})", f"{name}: the solution ends by calling the check"
    assert not stub.get("outputs"), f"{name}: the stub defines a function and prints nothing"
    setup = source(nb["cells"][1])
    module = rf"from padpack\.course\.exercises\.ch{path.stem[:2]} import"
    assert re.search(rf"{module}[^\n]*\b{checker}\b", setup) or re.search(
        rf"{module} \((?:[^)]*\b{checker}\b)", setup
    ), f"{name}: the setup cell imports {checker} from padpack.course.exercises.ch{path.stem[:2]}"


def flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


def too_wide(text: str) -> list[str]:
    """Printed lines wider than the page, but for a link's line: an address cannot be broken."""
    return [line for line in text.splitlines() if display_width(line) > WIDTH and "https://" not in line]


@pytest.mark.parametrize("path, nb, name, parts", EXERCISES, ids=IDS)
def test_the_check_passes_the_solution_waits_for_the_stub_and_names_every_mistake(path, nb, name, parts, language):
    chapter = Chapter.load(path.stem[:2])
    check = chapter.check(name)
    kind = reading_time.kind(path, nb)
    problems = []
    if len(check.mistakes) < MIN_MISTAKES[kind]:
        problems.append(f"{len(check.mistakes)} named mistakes; a {kind}'s exercise needs {MIN_MISTAKES[kind]}")
    if len({mistake.message for mistake in check.mistakes}) != len(check.mistakes):
        problems.append("two mistakes share a message")
    cases = check.make_cases()
    hidden = sum(not case.shown for case in cases)
    if hidden < MIN_HIDDEN.get(path.stem[:2], 1):
        problems.append(f"{hidden} hidden cases: an answer hard-coded to the listed cases could pass")
    outputs = {}
    for code in LANGUAGES:
        language(code)
        outputs[code] = {
            "stub": printed(check, chapter.stub(name)),
            "solution": printed(check, chapter.solution(name)),
            "hint": printed(check.hint),
        }
        if outputs[code]["stub"] != gettext(TEXT["todo"]).format(name=name) + "\n":
            problems.append(f"[{code}] the unfilled stub gives {outputs[code]['stub']!r}")
        if not outputs[code]["solution"].startswith(gettext(TEXT["right"]).format(name=name) + "\n"):
            problems.append(f"[{code}] the solution gives {outputs[code]['solution']!r}")
        if len(outputs[code]["hint"].strip()) < 20:
            problems.append(f"[{code}] no hint")
        for index, mistake in enumerate(check.mistakes):

            def wrong(*args, _wrong=mistake.wrong):
                return _wrong(*args)

            wrong.__name__ = name
            output = printed(check, wrong)
            problems += [f"[{code}] mistake {index}: wider than the page: {line!r}" for line in too_wide(output)]
            if not output.startswith(gettext(TEXT["wrong"]).split("{name}")[0] + name):
                problems.append(f"[{code}] mistake {index} not rejected: {output!r}")
            elif flat(gettext(mistake.message)) not in flat(output):
                problems.append(f"[{code}] mistake {index} not named ({mistake.message[:60]!r}); it says {output!r}")
            elif f"notebooks/{mistake.see.replace('#', '.html#')}" not in output:
                problems.append(f"[{code}] mistake {index}: the link is not printed")
            elif code != "en" and gettext(mistake.message) == mistake.message:
                problems.append(f"[{code}] mistake {index} is not translated: {mistake.message[:60]!r}")
        for part, text in outputs[code].items():
            problems += [f"[{code}] {part}: wider than the page: {line!r}" for line in too_wide(text)]
        if code != "en":
            for case in cases:
                if case.shown and gettext(case.label) == case.label and re.search("[a-z]{3}", case.label):
                    problems.append(f"[{code}] case label not translated: {case.label!r}")
    for index, mistake in enumerate(check.mistakes):
        page, anchor = mistake.see.split("#")
        target = REPO / "notebooks" / f"{page}.ipynb"
        if not target.exists() or anchor not in notebook_ids(target):
            problems.append(f"mistake {index}: its link {mistake.see} has no target")
    # The stored outputs are what running the cells gives, in each edition's language.
    if stored_stdout(parts["check"][1]) != outputs["en"]["stub"]:
        problems.append("the check cell's stored output is not 'not attempted yet'")
    if not stored_stdout(parts["solution"][1]).endswith(outputs["en"]["solution"]):
        problems.append("the solution cell's stored output does not end with the check's ✓")
    chinese = load(ZH_NOTEBOOKS / path.name)["cells"]
    if len(chinese) != len(nb["cells"]):
        problems.append("the Chinese notebook is stale: run `make translations`")
    elif stored_stdout(chinese[parts["check"][0]]) != outputs["zh_CN"]["stub"]:
        problems.append("the Chinese notebook's check cell does not store the Chinese 'not attempted'")
    elif not stored_stdout(chinese[parts["solution"][0]]).endswith(outputs["zh_CN"]["solution"]):
        problems.append("the Chinese notebook's solution cell does not store the Chinese ✓")
    assert not problems, f"{path.name} {name}:\n" + "\n".join(problems)


def test_enough_named_mistakes_in_all():
    total = sum(len(Chapter.load(path.stem[:2]).check(name).mistakes) for path, _, name, _ in EXERCISES)
    assert total >= MIN_MISTAKES_IN_ALL, f"{total} named mistakes in all; the book aims at {MIN_MISTAKES_IN_ALL}"
