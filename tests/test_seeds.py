"""Claims that hold for any seed (issue #29, item 4): every chapter that trains a model runs top to bottom with
every seed literal shifted by 1 to 5, and every assert must still hold.

Slow (each run is a whole chapter): skipped unless PPT_SEEDS_RUN=1, which `make test-seeds` sets.
PPT_SEEDS_CHAPTERS="06 07" limits the chapters (or adds one that trains nothing, e.g. 13), PPT_SEEDS_SHIFTS="2 3"
the shifts. Each failing test names the chapter and the shift and lists every cell whose assert (or any other
statement) failed, with its message: the run goes on past a failing cell so that one report shows them all.
"""

from __future__ import annotations

import os
import re
import tempfile

import nbformat
import pytest

from conftest import NOTEBOOKS_DIR, notebook_client

# The chapters that train a model (an optimizer step on a model's parameters).
TRAINING_CHAPTERS = ("00", "06", "07", "08", "10", "11", "15", "17")
SHIFTS = (1, 2, 3, 4, 5)

# What counts as a seed literal: the integer argument of set_seed, manual_seed (torch's and a Generator's) and
# default_rng; an integer given to a parameter or keyword named `seed` (`seed=1`, `seed: int = 0`); a SEED
# constant; every member of a SEEDS tuple or list.
CALL = re.compile(r"\b(set_seed|manual_seed|default_rng)\(\s*(\d+)\s*\)")
KEYWORD = re.compile(r"\b(seed\s*(?::\s*int\s*)?=\s*)(\d+)\b")
CONSTANT = re.compile(r"\b(SEED\s*=\s*)(\d+)\b")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TUPLE = re.compile(r"\b(SEEDS\s*=\s*)([(\[])([\d\s,]*)([)\]])")


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
    )
    shifted, count = shift_seeds(source, 2)
    assert count == 9
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
    ):
        assert expected in shifted, expected


def chapters() -> list[str]:
    chosen = os.environ.get("PPT_SEEDS_CHAPTERS", "").split() or TRAINING_CHAPTERS
    return sorted(path.name for path in NOTEBOOKS_DIR.glob("*.ipynb") if path.name[:2] in chosen)


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
    with tempfile.TemporaryDirectory() as folder:
        notebook_client(nb, timeout=600, allow_errors=True).execute(cwd=folder)
    found = failures(nb)
    assert not found, f"{name[:2]} with every seed shifted by {k}:\n" + "\n".join(found)
