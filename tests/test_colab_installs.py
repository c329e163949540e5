"""The Colab-only install lines ask for versions the tested pins satisfy.

A chapter's `%pip install` runs only in Colab, so nothing else would notice a specifier that excludes the
versions the book is tested with (say `torch>=3`): Colab would install an untested version, or fail."""

from __future__ import annotations

import re
import shlex

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import REPO

INSTALL = re.compile(r"^(?P<indent>\s*)[%!]\s*pip3?\s+install\s+(?P<args>.*)$")
COLAB_ONLY = '"google.colab" in sys.modules'
# On main, a chapter installs the book's package from main; a release's notebooks name its tag instead
# (scripts/release.py rewrites the line; tests/test_release.py checks it).
REPOSITORY = yaml.safe_load((REPO / "CITATION.cff").read_text())["repository-code"]
PACKAGE_URL = f"git+{REPOSITORY}@main"


def source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def code_cells(nb: dict) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def pins(path=REPO / "requirements.txt") -> dict[str, Version]:
    """Exact pins (name==version) of a requirements file and the files it includes with -r."""
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith(("-r ", "--requirement ")):
            found.update(pins(path.parent / line.split(maxsplit=1)[1]))
        elif line:
            requirement = Requirement(line)
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", f"{path.name}: {line} is not an exact pin"
            found[canonicalize_name(requirement.name)] = Version(specifier.version)
    return found


def install_lines(nb: dict):
    """(cell index, line, whether it sits under `if "google.colab" in sys.modules:`) for every pip install."""
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        # a line that ends in a backslash goes on on the next one, for IPython's magics as for Python
        text = ("".join(source) if isinstance(source, list) else source).replace("\\\n", " ")
        lines = text.splitlines()
        for number, line in enumerate(lines):
            match = INSTALL.match(line)
            if match:
                indent = len(match["indent"])
                opener = next(
                    (
                        earlier
                        for earlier in reversed(lines[:number])
                        if earlier.strip() and len(earlier) - len(earlier.lstrip()) < indent
                    ),
                    "",
                )
                yield index, match["args"], opener.strip().startswith("if ") and COLAB_ONLY in opener


def requirements_of(args: str) -> list[Requirement]:
    return [Requirement(arg) for arg in shlex.split(args) if not arg.startswith("-")]


def test_colab_installs_are_satisfied_by_the_pins(notebook):
    path, nb = notebook
    pinned = pins()
    for index, args, colab_only in install_lines(nb):
        assert colab_only, f"{path.name} cell {index}: pip install outside `if {COLAB_ONLY}:`"
        for requirement in requirements_of(args):
            if requirement.url:  # the book's own package, from this repository at this edition
                assert (requirement.name, requirement.url) == ("padpack", PACKAGE_URL), (
                    f"{path.name} cell {index}: installs {requirement}; the book's package is "
                    f'"padpack @ {PACKAGE_URL}"'
                )
                continue
            name = canonicalize_name(requirement.name)
            assert name in pinned, f"{path.name} cell {index}: installs {name}, which requirements.txt does not pin"
            assert requirement.specifier, f"{path.name} cell {index}: {requirement} needs a lower bound"
            assert requirement.specifier.contains(pinned[name], prereleases=True), (
                f"{path.name} cell {index}: Colab would install {requirement}, which excludes the tested "
                f"{name}=={pinned[name]} of requirements.txt"
            )


def test_a_chapter_that_imports_the_package_installs_it_in_colab(notebook):
    path, nb = notebook
    imports = any(re.search(r"^(from|import) padpack\b", source(cell), re.MULTILINE) for cell in code_cells(nb))
    installs = any(
        any(requirement.url for requirement in requirements_of(args)) for _, args, colab_only in install_lines(nb)
    )
    assert installs == imports, f"{path.name}: imports padpack: {imports}; installs it in Colab: {installs}"


def test_the_check_rejects_what_the_pins_do_not_satisfy():
    pinned = pins()
    assert not Requirement("torch>=3").specifier.contains(pinned["torch"])
    assert Requirement("torch>=2.2").specifier.contains(pinned["torch"])
    nb = {"cells": [{"cell_type": "code", "source": 'import sys\n%pip install -q "tqdm>=4.66"\n'}]}
    assert [colab_only for _, _, colab_only in install_lines(nb)] == [False]
    continued = 'if "google.colab" in sys.modules:\n    %pip install -q "torch>=2.2" \\\n        "padpack @ x"\n'
    ((_, args, colab_only),) = install_lines({"cells": [{"cell_type": "code", "source": continued}]})
    assert colab_only and [str(r) for r in requirements_of(args)] == ["torch>=2.2", "padpack @ x"]
