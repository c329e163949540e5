"""The pins: `make book` installs the book toolchain alone (requirements-book.txt, no torch), requirements.txt is
that plus the rest, both resolve on every supported Python, and the Makefile installs each where it should."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import REPO

SUPPORTED_PYTHONS = ("3.11", "3.12", "3.13")
BOOK_SCRIPTS = (
    "scripts/build_book.py",
    "scripts/site_assets.py",
    "scripts/site_edition.py",
    "scripts/reading_time.py",
)
GPU_PACKAGES = re.compile(r"^(torch|nvidia-.*|cuda-.*|triton)$")


def pins(name: str) -> dict[str, str]:
    """{canonical name: version} of a requirements file; every line is an exact pin, an -r include or a comment."""
    found = {}
    for line in (REPO / name).read_text().splitlines():
        if not line.strip() or line.startswith(("#", "-r ")):
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!-]+)", line.strip())
        assert match, f"{name}: `{line}` is not an exact pin (name==version)"
        found[canonicalize_name(match.group(1))] = match.group(2)
    return found


def test_requirements_txt_is_the_book_toolchain_plus_the_rest():
    lines = [line for line in (REPO / "requirements.txt").read_text().splitlines() if line.startswith("-")]
    assert lines == ["-r requirements-book.txt"], "requirements.txt must include the book toolchain, and only it"
    both = sorted(set(pins("requirements-book.txt")) & set(pins("requirements.txt")))
    assert not both, f"pinned twice (keep each pin in one file): {both}"
    assert "torch" in pins("requirements.txt")


def test_the_book_toolchain_has_no_torch_and_is_closed_on_every_supported_python():
    """Every dependency of every book pin is itself a book pin, so `pip install -r requirements-book.txt`
    installs exactly these packages: no torch, no CUDA wheels. Read from the installed packages' metadata."""
    book = pins("requirements-book.txt")
    assert not [name for name in book if GPU_PACKAGES.match(name)], "the book toolchain must not pull torch"
    missing = set()
    for python in SUPPORTED_PYTHONS:
        environment = {"python_version": python, "python_full_version": f"{python}.0", "extra": ""}
        for name, version in book.items():
            distribution = importlib.metadata.distribution(name)
            assert distribution.version == version, f"{name} {distribution.version} is installed, {version} pinned"
            for text in distribution.requires or []:
                requirement = Requirement(text)
                applies = requirement.marker is None or requirement.marker.evaluate(environment)
                if applies and canonicalize_name(requirement.name) not in book:
                    missing.add(f"{requirement.name} (required by {name} on Python {python})")
    assert not missing, f"requirements-book.txt lacks: {sorted(missing)}"


def test_the_build_scripts_import_only_the_standard_library_and_the_book_toolchain():
    book = pins("requirements-book.txt")
    provided_by = importlib.metadata.packages_distributions()
    scripts, checked = list(BOOK_SCRIPTS), set()
    while scripts:  # the scripts' own modules (scripts/i18n_notebooks.py) are checked the same way
        script = scripts.pop()
        checked.add(script)
        tree = ast.parse((REPO / script).read_text())
        modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        modules |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0}
        for module in {module.split(".")[0] for module in modules} - {"__future__"}:
            if module in sys.stdlib_module_names:
                continue
            if (REPO / "scripts" / f"{module}.py").is_file():
                if f"scripts/{module}.py" not in checked:
                    scripts.append(f"scripts/{module}.py")
                continue
            distributions = {canonicalize_name(name) for name in provided_by.get(module, [])}
            assert distributions & set(book), f"{script} imports {module}, which requirements-book.txt lacks"


def make_dry_run(*args: str) -> list[str]:
    """The commands `make` would run from scratch (-B: as on a fresh clone), without running them."""
    result = subprocess.run(["make", "-n", "-B", *args], cwd=REPO, capture_output=True, text=True, check=True)
    return result.stdout.splitlines()


def test_make_book_installs_only_the_book_toolchain():
    installs = [line for line in make_dry_run("book") if "pip install" in line]
    assert installs and all(line.endswith("-r requirements-book.txt") for line in installs), installs


def test_make_test_installs_everything_and_can_take_torch_from_the_cpu_index():
    index = "https://download.pytorch.org/whl/cpu"
    installs = [line for line in make_dry_run("test", f"TORCH_INDEX={index}") if "pip install" in line]
    requirements = [line for line in installs if line.endswith("-r requirements.txt")]
    assert len(requirements) == 1 and requirements[0].endswith(f"--extra-index-url {index} -r requirements.txt"), (
        installs
    )
    # then the book's own package, from the checkout, editable, and nothing else after it
    assert installs[-1].endswith("--no-deps --no-build-isolation --editable ."), installs
    assert installs.index(requirements[0]) == len(installs) - 2, installs
    plain = [line for line in make_dry_run("test") if "pip install" in line]
    assert not any("--extra-index-url" in line for line in plain), "without TORCH_INDEX, pip uses its configuration"
