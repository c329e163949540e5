"""Claims that hold for any seed (issue #29, item 4; issue #47, item 5): every chapter runs top to bottom with
every seed literal shifted by 1 to 5, and every assert must still hold. Not only the chapters that train: a claim
about an untrained model's random weights, or about a random draw, is a claim about a seed too (deep dive 13 once
asserted a growing pad step that only its seed 0 had, chapter 5 compared two different draws). The seeds in the
book's package are shifted too (issue #44): a chapter's data, samplers and default seeds live in `padpack`
(chapter 8's data sets and sampler in its per-chapter module), so its claims depend on them as much as on the
notebook's. The kernel imports a copy of the package whose code had the same rewrite as the notebook's cells,
ahead of the installed one on PYTHONPATH.

Slow (each run is a whole chapter): skipped unless PPT_SEEDS_RUN=1, which `make test-seeds` sets.
PPT_SEEDS_CHAPTERS="06 13" limits the chapters, PPT_SEEDS_SHIFTS="2 3" the shifts. Each failing test names the
chapter and the shift and lists every cell whose assert (or any other statement) failed, with its message: the
run goes on past a failing cell so that one report shows them all.

One part is fast and runs in `make test`: no code cell prints a seed it did not compute. A string such as
"seed 0: ..." shows one seed's example as if it were the page's seed, and stays "seed 0" when the seeds shift;
the seed an example shows goes through a placeholder, from the code that picked it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path

import nbformat
import pytest

from conftest import NOTEBOOKS_DIR, REPO, notebook_client

SHIFTS = (1, 2, 3, 4, 5)

# What counts as a seed literal: the integer argument of set_seed, manual_seed (torch's and a Generator's),
# default_rng and random.Random; an integer given to a parameter or keyword named `seed` (`seed=1`,
# `seed: int = 0`); a SEED constant; every member of a SEEDS tuple or list, and of a tuple or list that a
# `for seed in` loop walks.
CALL = re.compile(r"\b(set_seed|manual_seed|default_rng|Random)\(\s*(\d+)\s*\)")
KEYWORD = re.compile(r"\b(seed\s*(?::\s*int\s*)?=\s*)(\d+)\b")
CONSTANT = re.compile(r"\b(SEED\s*=\s*)(\d+)\b")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TUPLE = re.compile(r"\b(SEEDS\s*=\s*|for\s+seed\s+in\s+)([(\[])([\d\s,]*)([)\]])")
PACKAGE = REPO / "src" / "padpack"
# a seed named in a string the code prints: "seed 0", "seeds 1 and 2"
SEED_IN_TEXT = re.compile(r"\bseeds? \d")


def shift_seeds(source: str, k: int) -> tuple[str, int]:
    """The code with every seed literal shifted by k, and how many literals were shifted."""
    count = 0

    def plus(text: str) -> str:
        nonlocal count
        count += 1
        return str(int(text) + k)

    source = CALL.sub(lambda m: f"{m[1]}({plus(m[2])})", source)
    source = KEYWORD.sub(lambda m: m[1] + plus(m[2]), source)
    source = CONSTANT.sub(lambda m: m[1] + plus(m[2]), source)
    source = TUPLE.sub(lambda m: m[1] + m[2] + re.sub(r"\d+", lambda d: plus(d[0]), m[3]) + m[4], source)
    return source, count


def test_shift_seeds_rewrites_every_kind_of_seed_literal():
    source = (
        "def set_seed(seed: int = 0):\n    torch.manual_seed(seed)\nset_seed(0)\n"
        "g = torch.Generator().manual_seed(3)\nrng = np.random.default_rng(1)\n"
        "data = Digits(2000, seed=1)\nSEED = 7\nSEEDS = (0, 1, 2)\nif seed == 0: pass\n"
        "_rng = random.Random(4)\nfor seed in (1, 2):\n    pass\n"
    )
    shifted, count = shift_seeds(source, 2)
    assert count == 12
    for expected in (
        "def set_seed(seed: int = 2)",
        "torch.manual_seed(seed)",
        "set_seed(2)",
        "manual_seed(5)",
        "default_rng(3)",
        "seed=3)",
        "SEED = 9",
        "SEEDS = (2, 3, 4)",
        "if seed == 0",
        "random.Random(6)",
        "for seed in (3, 4):",
    ):
        assert expected in shifted, expected


def shifted_package(folder: Path, k: int) -> int:
    """Copy the book's package into `folder`/padpack with every seed literal of its code shifted by k (its
    catalogues and other files as they are); return how many literals were shifted."""
    total = 0
    for source in PACKAGE.rglob("*"):
        if not source.is_file() or "__pycache__" in source.parts:
            continue
        target = folder / "padpack" / source.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".py":
            code, count = shift_seeds(source.read_text(encoding="utf-8"), k)
            target.write_text(code, encoding="utf-8")
            total += count
        else:
            shutil.copy2(source, target)
    return total


def import_shifted_package(monkeypatch, folder: Path, k: int) -> None:
    """Make every Python started from now on (the notebook's kernel) import the package with its seeds shifted
    by k: a shifted copy in `folder`, first on PYTHONPATH, ahead of the editable install's path entry."""
    assert shifted_package(folder, k), "no seed literal found to shift in the package"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")])))


def test_the_kernel_imports_the_package_with_chapter_8s_data_and_sampler_seeds_shifted(tmp_path, monkeypatch):
    """Chapter 8 draws its data sets and its sampler's order in `padpack.course.chapters.ch08` (seeds 1 and 2, and
    `train_tagger`'s default 0): with the package shifted by 3 they are the sets of seeds 4 and 5 and the
    sampler's default is 3, in a Python started as the kernel is."""
    k = 3
    import_shifted_package(monkeypatch, tmp_path, k)
    code = f"""
import inspect
import padpack, padpack.course.chapters.ch08 as ch08
from padpack.course.tagging import DigitTaggingDataset
print(padpack.__file__)
train_set, val_set = ch08.digit_sets()
assert train_set.lengths == DigitTaggingDataset(2000, seed=1 + {k}).lengths, "training set not shifted"
assert val_set.lengths == DigitTaggingDataset(500, seed=2 + {k}).lengths, "validation set not shifted"
assert train_set.lengths != DigitTaggingDataset(2000, seed=1).lengths
assert inspect.signature(ch08.train_tagger).parameters["seed"].default == {k}, "sampler seed not shifted"
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert Path(result.stdout.splitlines()[0]).is_relative_to(tmp_path), f"imported {result.stdout}, not the copy"


def chapters() -> list[str]:
    """Every chapter, or those PPT_SEEDS_CHAPTERS names."""
    chosen = os.environ.get("PPT_SEEDS_CHAPTERS", "").split()
    return sorted(path.name for path in NOTEBOOKS_DIR.glob("*.ipynb") if not chosen or path.name[:2] in chosen)


def typed_seeds(source: str) -> list[str]:
    """The strings (f-strings' text included) of a code cell that name a seed by number."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    text_tokens = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [
        token.string
        for token in tokenize.generate_tokens(iter(code.splitlines(keepends=True)).__next__)
        if token.type in text_tokens and SEED_IN_TEXT.search(token.string)
    ]


def test_typed_seeds_finds_a_seed_in_printed_text_only():
    source = 'set_seed(0)\nprint(f"bias=True, seed 0: step {k}")  # seed 0\nprint(f"seed {seed}: ok")\n'
    (typed,) = typed_seeds(source)  # the f-string whole before Python 3.12, its text pieces from 3.12 on
    assert "bias=True, seed 0: step " in typed


@pytest.mark.parametrize("name", sorted(path.name for path in NOTEBOOKS_DIR.glob("*.ipynb")))
def test_no_page_prints_a_seed_it_did_not_compute(name):
    nb = nbformat.read(NOTEBOOKS_DIR / name, as_version=4)
    found = {
        index: typed
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (typed := typed_seeds(cell.source))
    }
    assert not found, f"{name}: cells print a typed seed (compute it, print it through a placeholder): {found}"


def shifts() -> list[int]:
    return [int(k) for k in os.environ.get("PPT_SEEDS_SHIFTS", "").split()] or list(SHIFTS)


def failures(nb) -> list[str]:
    """Every error a cell printed: its index, its first line of code and the exception with its message."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                first = next((line for line in cell.source.splitlines() if line.strip()), "")
                # the line that raised, from the traceback's last "--->" marker (colours stripped)
                marked = [ANSI.sub("", line) for line in output.get("traceback", [])]
                marked = [line for line in marked if "--->" in line]
                at = re.split(r"-+> ", marked[-1])[-1].splitlines()[0].strip() if marked else ""
                found.append(
                    f"cell {index} ({first.strip()[:60]}): {output['ename']}: {output['evalue'][:300]}"
                    + (f" at: {at[:160]}" if at else "")
                )
    return found


@pytest.mark.skipif(os.environ.get("PPT_SEEDS_RUN") != "1", reason="slow: make test-seeds runs it")
@pytest.mark.parametrize("k", shifts())
@pytest.mark.parametrize("name", chapters())
def test_every_assert_holds_with_every_seed_shifted(name, k, monkeypatch):
    monkeypatch.setenv("CI", "true")
    nb = nbformat.read(NOTEBOOKS_DIR / name, as_version=4)
    total = 0
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source, count = shift_seeds(cell.source, k)
            total += count
    assert total, f"{name}: no seed literal found to shift"
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as package:
        import_shifted_package(monkeypatch, Path(package), k)
        notebook_client(nb, timeout=600, allow_errors=True).execute(cwd=folder)
    found = failures(nb)
    assert not found, f"{name[:2]} with every seed shifted by {k}:\n" + "\n".join(found)
