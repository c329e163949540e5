"""Self-checking exercises: try first, then check; the check names the mistake; hints and solutions on demand.

Each exercise is three code cells after its markdown question, marked in their metadata
(`exercise: {name, part}`): the stub the learner fills in, the check cell, and the solution, hidden in Colab
(`cellView: form` and a `# @title Solution` first line), JupyterLab (`jupyter.source_hidden`) and on the site
(`hide-cell`). The checks are built in the setup cell on one helper, the same in every chapter. A kernel runs
each chapter's setup cell and feeds every check the unfilled stub, the solution's function and every wrong
answer of its table, in both languages."""

from __future__ import annotations

import ast
import json
import re
import sys
import tempfile

import nbformat
import pytest
from test_error_messages import notebook_sections

from conftest import REPO, notebook_client, notebook_paths

sys.path.insert(0, str(REPO / "scripts"))
import reading_time

HELPER_START = "# Exercise checks: the same code in every chapter"
HELPER_END = "# End of the exercise checks."
MIN_EXERCISES = {"chapter": 3, "deep dive": 1, "quick start": 0}
PARTS = ("stub", "check", "solution")
ZH_NOTEBOOKS = REPO / "i18n" / "zh_CN" / "notebooks"
SOLUTION_TITLE = "# @title Solution"
CASE_LABEL_COLUMNS = 75  # a checked case is printed as "  - label" within the 79 columns of the site


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell: dict) -> str:
    return "".join(cell["source"])


def exercise_cells(nb: dict) -> dict[str, dict[str, tuple[int, dict]]]:
    """name -> part -> (cell index, cell)."""
    found: dict[str, dict[str, tuple[int, dict]]] = {}
    for index, cell in enumerate(nb["cells"]):
        meta = cell["metadata"].get("exercise")
        if meta:
            found.setdefault(meta["name"], {})[meta["part"]] = (index, cell)
    return found


def helper_block(nb: dict) -> str | None:
    setup = source(nb["cells"][1])
    if HELPER_START not in setup:
        return None
    return HELPER_START + setup.split(HELPER_START, 1)[1].split(HELPER_END, 1)[0] + HELPER_END


def check_name(cell: dict) -> str:
    call = ast.parse(source(cell)).body[0].value
    return call.func.id


def stored_stdout(cell: dict) -> str:
    return "".join(
        "".join(output.get("text", ""))
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream" and output.get("name") == "stdout"
    )


def solution_definitions(cell: dict) -> str:
    """The solution cell's imports and definitions, without its demonstration and check call."""
    text = source(cell)
    tree = ast.parse(text)
    keep = (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
    return "\n\n".join(ast.get_source_segment(text, node) for node in tree.body if isinstance(node, keep))


PAGES = [(path, load(path)) for path in notebook_paths()]
EXERCISES = [(path, nb, name, parts) for path, nb in PAGES for name, parts in exercise_cells(nb).items()]
HELPERS = {path.name: helper_block(nb) for path, nb in PAGES if helper_block(nb)}


def test_one_helper_in_every_chapter_that_has_exercises():
    with_exercises = {path.name for path, _, _, _ in EXERCISES}
    assert with_exercises <= set(HELPERS), (
        f"exercises without the helper in the setup cell: {with_exercises - set(HELPERS)}"
    )
    assert len(set(HELPERS.values())) == 1, f"the exercise helper differs between {sorted(HELPERS)}: keep one copy"


@pytest.mark.parametrize("path, nb", PAGES, ids=[path.name for path, _ in PAGES])
def test_enough_self_checking_exercises(path, nb):
    kind = reading_time.kind(path, nb)
    count = len(exercise_cells(nb))
    assert count >= MIN_EXERCISES[kind], f"{path.name} ({kind}) has {count} self-checking exercises"


@pytest.mark.parametrize(
    "path, nb, name, parts", EXERCISES, ids=[f"{path.stem[:2]}-{name}" for path, _, name, _ in EXERCISES]
)
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


def check_text() -> dict:
    """CHECK_TEXT of the helper, read without running it."""
    tree = ast.parse(next(iter(HELPERS.values())))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "CHECK_TEXT")
    return ast.literal_eval(node.value)


HARNESS = r"""
import contextlib as _contextlib, io as _io, json as _json


def _printed(call, *args):
    buffer = _io.StringIO()
    with _contextlib.redirect_stdout(buffer):
        call(*args)
    return buffer.getvalue()


def _function(source, name):
    namespace = dict(globals())
    exec(source, namespace)
    return namespace[name]


def _named(wrong, name):
    def function(*args):
        return wrong(*args)
    function.__name__ = name
    return function


_results = {}
for _name, (_checker, _stub, _solution) in _json.loads(_EXERCISES).items():
    _check = globals()[_checker]
    _entry = _results[_name] = {"mistakes": [], "stub": {}, "solution": {}, "hint": {}}
    for LANGUAGE in ("en", "zh"):
        _entry["stub"][LANGUAGE] = _printed(_check, _function(_stub, _name))
        _entry["solution"][LANGUAGE] = _printed(_check, _function(_solution, _name))
        _entry["hint"][LANGUAGE] = _printed(_check.hint)
        for _index, _mistake in enumerate(_check.mistakes):
            _output = _printed(_check, _named(_mistake.wrong, _name))
            _entry["mistakes"].append(
                {"index": _index, "language": LANGUAGE, "en": _mistake.en, "zh": _mistake.zh,
                 "see": _mistake.see, "output": _output}
            )
LANGUAGE = "en"
print(_json.dumps(_results))
"""


def run_checks(path, nb) -> dict:
    exercises = {
        name: [check_name(parts["check"][1]), source(parts["stub"][1]), solution_definitions(parts["solution"][1])]
        for name, parts in exercise_cells(nb).items()
    }
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(source(nb["cells"][1])),
        nbformat.v4.new_code_cell(f"_EXERCISES = {json.dumps(json.dumps(exercises))}\n{HARNESS}"),
    ]
    client = notebook_client(notebook, timeout=300)
    with tempfile.TemporaryDirectory() as folder:  # an empty folder, as in Colab: some setup cells write files
        client.execute(cwd=folder)
    return json.loads(stored_stdout(notebook.cells[-1]))


CHECKED = [(path, nb) for path, nb in PAGES if exercise_cells(nb)]


@pytest.fixture(scope="module", params=CHECKED, ids=[path.name for path, _ in CHECKED])
def checked(request):
    path, nb = request.param
    return path, nb, run_checks(path, nb)


def flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_every_check_passes_the_solution_names_each_mistake_and_waits_for_the_stub(checked):
    path, nb, results = checked
    text = check_text()
    problems = []
    for name, parts in exercise_cells(nb).items():
        result = results[name]
        for language in ("en", "zh"):
            todo = text[language]["todo"].format(name=name) + "\n"
            if result["stub"][language] != todo:
                problems.append(f"{name} [{language}]: the unfilled stub gives {result['stub'][language]!r}")
            right = text[language]["right"].format(name=name)
            if not result["solution"][language].startswith(right + "\n"):
                problems.append(f"{name} [{language}]: the solution gives {result['solution'][language]!r}")
            if len(result["hint"][language].strip()) < 20:
                problems.append(f"{name} [{language}]: no hint")
        for label in result["solution"]["en"].splitlines()[1:] + result["solution"]["zh"].splitlines()[1:]:
            if len(label) > CASE_LABEL_COLUMNS + 4:
                problems.append(f"{name}: case label wider than the page: {label!r}")
        # the stored outputs are what running the cells gives
        if stored_stdout(parts["check"][1]) != result["stub"]["en"]:
            problems.append(f"{name}: the check cell's stored output is not 'not attempted yet'")
        if not stored_stdout(parts["solution"][1]).endswith(result["solution"]["en"]):
            problems.append(f"{name}: the solution cell's stored output does not end with the check's ✓")
        chinese = json.loads((ZH_NOTEBOOKS / path.name).read_text(encoding="utf-8"))["cells"]
        if len(chinese) != len(nb["cells"]):
            problems.append(f"{name}: the Chinese notebook is stale: run `make translations`")
        elif stored_stdout(chinese[parts["check"][0]]) != result["stub"]["zh"]:
            problems.append(f"{name}: the Chinese notebook's check cell does not store the Chinese 'not attempted'")
        elif not stored_stdout(chinese[parts["solution"][0]]).endswith(result["solution"]["zh"]):
            problems.append(f"{name}: the Chinese notebook's solution cell does not store the Chinese ✓")
        mistakes = [m for m in result["mistakes"] if m["language"] == "en"]
        if not mistakes:
            problems.append(f"{name}: its check has no table of wrong answers")
        if len({m["en"] for m in mistakes}) != len(mistakes):
            problems.append(f"{name}: two wrong answers share a message")
        for mistake in result["mistakes"]:
            language, output = mistake["language"], mistake["output"]
            wrong = text[language]["wrong"].split("{name}")[0] + name
            if not output.startswith(wrong):
                problems.append(f"{name} mistake {mistake['index']} [{language}] not rejected: {output!r}")
            elif flat(mistake[language]) not in flat(output):
                problems.append(f"{name} mistake {mistake['index']} [{language}] not named; the check says {output!r}")
            page, anchor = mistake["see"].split("#")
            target = REPO / "notebooks" / f"{page}.ipynb"
            if language == "en" and (not target.exists() or anchor not in notebook_sections(target)):
                problems.append(f"{name} mistake {mistake['index']}: its link {mistake['see']} has no target")
            elif f"notebooks/{page}.html#{anchor}" not in output:
                problems.append(f"{name} mistake {mistake['index']} [{language}]: the link is not printed")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)
