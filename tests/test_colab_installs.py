"""The Colab-only install lines ask for versions the tested pins satisfy.

A chapter's `%pip install` runs only in Colab, so nothing else would notice a specifier that excludes the
versions the book is tested with (say `torch>=3`): Colab would install an untested version, or fail."""

from __future__ import annotations

import re
import shlex

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import REPO

INSTALL = re.compile(r"^(?P<indent>\s*)[%!]\s*pip3?\s+install\s+(?P<args>.*)$")
COLAB_ONLY = '"google.colab" in sys.modules'


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
        lines = ("".join(source) if isinstance(source, list) else source).splitlines()
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
            name = canonicalize_name(requirement.name)
            assert name in pinned, f"{path.name} cell {index}: installs {name}, which requirements.txt does not pin"
            assert requirement.specifier, f"{path.name} cell {index}: {requirement} needs a lower bound"
            assert requirement.specifier.contains(pinned[name], prereleases=True), (
                f"{path.name} cell {index}: Colab would install {requirement}, which excludes the tested "
                f"{name}=={pinned[name]} of requirements.txt"
            )


def test_the_check_rejects_what_the_pins_do_not_satisfy():
    pinned = pins()
    assert not Requirement("torch>=3").specifier.contains(pinned["torch"])
    assert Requirement("torch>=2.2").specifier.contains(pinned["torch"])
    nb = {"cells": [{"cell_type": "code", "source": 'import sys\n%pip install -q "tqdm>=4.66"\n'}]}
    assert [colab_only for _, _, colab_only in install_lines(nb)] == [False]
