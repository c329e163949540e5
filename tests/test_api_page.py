"""The book's API page (book/api.md) documents the package like a library: from the docstrings, with an example in
every docstring it shows, run here (doctest), type hints on every documented function, and the command line's
--help as the command prints it.

- every public name of padpack.doctor and padpack.batching, and the helpers `padpack.course` exports, is on the
  page;
- every object and member the page shows has a docstring with an example, and its parameters and return value
  have type hints;
- the examples run (doctest) and fit the page's 79 columns;
- the page imports what it documents the way the book's build does: with stand-ins for torch, NumPy and
  matplotlib, which the book toolchain does not install (requirements-book.txt);
- the page is in the toc (so in both editions and the PDF), and its --help block is the command's output.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import re
import subprocess
import sys

import pytest
import yaml

import padpack
import padpack.__main__
import padpack.batching
import padpack.course
import padpack.course.helpers
import padpack.doctor
import padpack.i18n
from conftest import REPO, toc_files

PAGE = REPO / "book" / "api.md"
# Not on the page: the notebooks' plumbing, exported for the chapters' setup cells; use_language under the name
# the page gives it (padpack.use_language); and the modules for other course authors (the README's exercises).
NOT_ON_THE_PAGE = {
    "padpack.course.sharp_white_figures",
    "padpack.course.use_language",
    "padpack.checks",
    "padpack.i18n",
}
# One directive per object, none nested in a class's: a nested one's examples would be indented twice, too
# narrow for 79 columns.
DIRECTIVE = re.compile(r"^\.\. auto(module|function|class|exception|property|method):: (\S+)$", re.MULTILINE)


def documented() -> list[tuple[str, str]]:
    """(kind, dotted name) for every autodoc directive of the page."""
    return DIRECTIVE.findall(PAGE.read_text())


def resolve(name: str):
    """The object of a dotted name: a module, or an attribute of a module or of a class in it."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            item = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            item = inspect.getattr_static(item, part) if inspect.isclass(item) else getattr(item, part)
        return item
    raise ImportError(name)


def shown() -> dict[str, object]:
    """Every function, class, property and method the page shows, by its dotted name (modules only introduce
    them)."""
    return {name: resolve(name) for kind, name in documented() if kind != "module"}


def docstring(item) -> str:
    return (item.fget if isinstance(item, property) else item).__doc__ or ""


def test_the_page_is_in_the_toc():
    assert "book/api" in toc_files()


def test_every_public_name_is_on_the_page():
    on_page = {name for _, name in documented()}
    public = {f"{module.__name__}.{name}" for module in (padpack.doctor, padpack.batching) for name in module.__all__}
    public |= {f"padpack.{name}" for name in padpack.__all__}
    public |= {f"padpack.course.{name}" for name in padpack.course.__all__}
    public -= NOT_ON_THE_PAGE
    assert public <= on_page, f"public, but not on book/api.md: {sorted(public - on_page)}"
    assert "padpack.__main__" in on_page


@pytest.mark.parametrize("name", sorted(shown()))
def test_every_docstring_on_the_page_has_an_example_and_type_hints(name):
    item = shown()[name]
    assert ">>>" in docstring(item), f"{name}: its docstring has no example (>>>)"
    function = item.fget if isinstance(item, property) else item
    if inspect.isclass(function):
        return
    signature = inspect.signature(function)
    missing = [
        parameter
        for parameter, value in signature.parameters.items()
        if parameter != "self" and value.annotation is inspect.Parameter.empty
    ]
    assert not missing, f"{name}: no type hint for {missing}"
    assert signature.return_annotation is not inspect.Signature.empty, f"{name}: no return type"


MODULES = [padpack.doctor, padpack.batching, padpack.__main__, padpack.course.helpers, padpack.i18n]


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_the_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_the_examples_on_the_page_fit_79_columns(module):
    """Sphinx shows an example without its `# doctest:` flags (trim_doctest_flags); the rest fits 79 columns."""
    on_page = set(shown()) | {name for kind, name in documented() if kind == "module"}
    wide = []
    for test in doctest.DocTestFinder().find(module):
        if test.name not in on_page:
            continue
        for example in test.examples:
            lines = [f">>> {line}" for line in example.source.splitlines()] + example.want.splitlines()
            wide += [f"{test.name}: {line}" for line in lines if len(re.sub(r"\s*# doctest:.*$", "", line)) > 79]
    assert not wide, "\n".join(wide)


def test_the_build_imports_what_the_page_documents_without_torch_numpy_or_matplotlib():
    """What the book's build does: src/ on the path (scripts/api_docs.py), the config's autodoc_mock_imports as
    stand-ins, and torch, NumPy and matplotlib made unimportable, as in an environment of requirements-book.txt.
    Every documented object is the package's own, with its docstring."""
    config = yaml.safe_load((REPO / "_config.yml").read_text())["sphinx"]
    assert "sphinx.ext.autodoc" in config["extra_extensions"] and "api_docs" in config["local_extensions"]
    mocked = config["config"]["autodoc_mock_imports"]
    names = [name for kind, name in documented()]
    script = f"""
import importlib
import inspect
import sys

class NotInstalled:
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in {mocked!r}:
            raise ModuleNotFoundError(fullname)

sys.meta_path.insert(0, NotInstalled())  # the stand-ins go before it
sys.path.insert(0, {str(REPO / "src")!r})
from sphinx.ext.autodoc.mock import mock
{inspect.getsource(resolve)}
with mock({mocked!r}):
    for name in {names!r}:
        item = resolve(name)
        assert item.__doc__ and type(item).__name__ != "_MockObject", name
print("imported", len({names!r}))
"""
    result = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, cwd="/")
    assert result.returncode == 0, result.stderr[-3000:]


def test_the_help_on_the_page_is_what_the_command_prints():
    block = re.search(r"prints it \(a test compares the two[^)]*\):\n\n```text\n(.*?)```", PAGE.read_text(), re.DOTALL)
    assert block, "book/api.md has no ```text block of the command's --help"
    environment = {**os.environ, "COLUMNS": "80", "LC_ALL": "C.UTF-8"}
    result = subprocess.run(
        [sys.executable, "-m", "padpack", "plan", "--help"],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert block.group(1) == result.stdout, "book/api.md's --help differs from `python -m padpack plan --help`:\n" + (
        result.stdout
    )


def readme_section() -> str:
    text = (REPO / "README.md").read_text()
    match = re.search(r"^## Check your own model\n(.*?)(?=^## )", text, re.MULTILINE | re.DOTALL)
    assert match, "README.md has no section 'Check your own model'"
    return match.group(1)


def test_the_readmes_three_lines_check_a_model(capsys):
    """README's lines, run on a model with the classic bug: the report has a failure with its chapter's link."""
    import torch
    from torch import nn

    code = re.search(r"```python\n(.*?)```", readme_section(), re.DOTALL).group(1)
    assert code.splitlines()[0] == '# pip install "padpack @ git+https://github.com/pad-pack-train/pad-pack-train@main"'
    assert len(code.splitlines()) == 3

    class Last(nn.Module):  # output[:, -1] of right-padded output
        def __init__(self):
            super().__init__()
            self.embedding, self.rnn = nn.Embedding(10, 4), nn.GRU(4, 5, batch_first=True)

        def forward(self, padded, lengths):
            return self.rnn(self.embedding(padded))[0][:, -1]

    torch.manual_seed(0)
    exec(code, {"model": Last(), "sequences": [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]})
    printed = capsys.readouterr().out
    assert len([line for line in printed.splitlines() if line[:1] in "✓✗–"]) >= 4, printed
    assert "✗ batch independence" in printed and "notebooks/07_padding_bug_ablation.html" in printed, printed


def test_the_readmes_planner_command_runs(tmp_path):
    command = re.search(r"`(python -m padpack plan lengths\.txt [^`]*)`", readme_section()).group(1)
    (tmp_path / "lengths.txt").write_text("\n".join(str(n) for n in [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5] * 20))
    result = subprocess.run(
        [sys.executable, *command.split()[1:]], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert result.returncode == 0 and "Recommended:" in result.stdout, result.stderr
