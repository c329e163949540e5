"""Run every test, as `make test` does: the test files and every chapter under nbval on three instruction sets,
in one pytest session (three workers on a 2-core machine: see WORKERS).

* `tests/`: hygiene, scripts, benchmarks, reference pages, the Chinese catalogues, and both editions of the
  site in Chromium.
* Every chapter re-executed by nbval three times (tests/notebook_checks.py also compares the stored widget state
  and figures with the fresh run, and holds each chapter to its time budget):
  1. with this CPU's own kernels, each within 60 s of CPU time (Colab's CPU tier has 2 cores, and the chapters
     use one thread; CPU time does not move with what runs beside the chapter, wall time would);
  2. with ATen, oneDNN and MKL held to AVX2;
  3. with them held to the x86-64 baseline (no AVX at all).

  Runs 2 and 3 compare against the same stored outputs as run 1. They prove that what a notebook prints does
  not depend on the reader's CPU: kernels differ between instruction sets in the last bits, and training
  amplifies them. (On an AVX2 machine run 2 repeats run 1; on an AVX-512 machine, where most stored outputs
  are made, it is the AVX2 reader's view.)

`--chinese` (make test-zh): the Chinese notebooks under nbval, on the same three instruction sets.

`--quick` (make test-quick, for the edit loop; it adds to `make test` and never replaces it): lint, notebook
hygiene, the package's unit tests and the exercise checks, then the chapters named after it, or else those that
differ from the last commit, under nbval with this CPU's own kernels.

Each chapter runs alone in an empty folder OUTSIDE the repository, as in Colab: a chapter that reads a file
of the repository or imports one of its modules fails here. The folder above each copy names its instruction
set, and the plugin starts that copy's kernel with the set's variables (PPT_KERNEL_SETTINGS). One session keeps
both cores busy to the end: the tests and the three runs used to follow one another, each ending on one core.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))

# The same three settings can be given by hand to reproduce a failure, e.g.
#   ATEN_CPU_CAPABILITY=default ONEDNN_MAX_CPU_ISA=SSE41 MKL_CBWR=COMPATIBLE jupyter lab
INSTRUCTION_SETS = {
    "native": {},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_CBWR": "AVX2"},
    "baseline": {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41", "MKL_CBWR": "COMPATIBLE"},
}
PYTEST = [
    sys.executable,
    "-m",
    "pytest",
    "-p",
    "no:cacheprovider",
    "-p",
    "tests.notebook_checks",
]
# xdist: three workers for the two cores, each file whole on one (a notebook's cells share its kernel), in the order
# given. Two workers left a core idle a third of the time (669 s for 842 s of CPU, 2026-12-05): a worker waits
# while a page settles, a kernel starts or torchrun's processes meet. The third fills those waits; the notebooks'
# budget counts CPU time, which the sharing does not change.
WORKERS = ["-n", "3", "--dist", "loadfile", "--no-loadscope-reorder"]
# The longest files first, so that the session does not end on one of them with the other core idle: the PDFs
# (which build the site first), the site in Chromium, then everything else. The chapters on the x86-64 baseline
# start at once on the other workers, which need no site.
FIRST_TESTS = ["test_pdf.py", "test_site.py", "test_site_zh.py"]
# make test-quick: what an edit of a chapter or of the package breaks first, in about a minute.
QUICK_TESTS = [
    "test_lint.py",
    "test_notebook_hygiene.py",
    "test_checks.py",
    "test_exercises.py",
    "exercises",
    "test_doctor.py",
    "test_batching.py",
    "test_one_source.py",
]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(REPO / "tests" / "nbval_sanitize.cfg")]


def copy_alone(folder: Path, notebooks: list[Path] = NOTEBOOKS) -> list[Path]:
    """Copy every chapter (or `notebooks`) into its own empty folder below `folder`; return the copies."""
    copies = []
    for notebook in notebooks:
        target = folder / notebook.stem
        target.mkdir(parents=True)
        copies.append(Path(shutil.copy2(notebook, target)))
    return copies


def test_files() -> list[Path]:
    """Every test file of tests/, the longest first (FIRST_TESTS), then the others in their usual order."""
    found = sorted((REPO / "tests").rglob("test_*.py"))
    first = [REPO / "tests" / name for name in FIRST_TESTS]
    return first + [path for path in found if path not in first]


def changed_chapters() -> list[Path]:
    """The chapters that differ from the last commit: edited, staged or new."""
    listings = (["diff", "--name-only", "HEAD", "--"], ["ls-files", "--others", "--exclude-standard"])
    names = set()
    for listing in listings:
        found = subprocess.run(["git", *listing, "notebooks"], cwd=REPO, capture_output=True, text=True, check=True)
        names.update(found.stdout.split())
    return [path for path in NOTEBOOKS if f"notebooks/{path.name}" in names]


def quick(chapters: list[str]) -> int:
    notebooks = [Path(name).resolve() for name in chapters] or changed_chapters()
    with tempfile.TemporaryDirectory(prefix="ppt-nbval-") as scratch:
        copies = copy_alone(Path(scratch) / "native", notebooks)
        print(f"make test-quick: {', '.join(path.name for path in notebooks) or 'no chapter changed'}", flush=True)
        tests = [REPO / "tests" / name for name in QUICK_TESTS]
        command = [*PYTEST, *WORKERS, "--rootdir", "/", *NBVAL, *map(str, tests + copies)]
        return subprocess.run(command, cwd=REPO, env={**os.environ, "CI": "true"}, check=False).returncode


def chinese() -> int:
    """make test-zh: every Chinese notebook (i18n/zh_CN/notebooks, generated from the English ones and the
    catalogues) under nbval on the three instruction sets, as make test runs the English ones. Their setup cells
    select zh_CN, so the package prints Chinese, and their print calls print their translated text; the stored
    outputs are the English ones translated: this run proves the two agree. Not part of make test (about 3
    minutes on 2 cores, which would take it over its 10 minutes); run it after `make translations`."""
    notebooks = sorted((REPO / "i18n" / "zh_CN" / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    with tempfile.TemporaryDirectory(prefix="ppt-nbval-zh-") as scratch:
        copies = [copy for name in INSTRUCTION_SETS for copy in copy_alone(Path(scratch) / name, notebooks)]
        env = {**os.environ, "CI": "true", "PPT_KERNEL_SETTINGS": json.dumps(INSTRUCTION_SETS)}
        command = [*PYTEST, *WORKERS, "--rootdir", "/", *NBVAL, *map(str, copies)]
        return subprocess.run(command, cwd=REPO, env=env, check=False).returncode


def main(argv: list[str]) -> int:
    if argv[:1] == ["--quick"]:
        return quick(argv[1:])
    if argv[:1] == ["--chinese"]:
        return chinese()
    with tempfile.TemporaryDirectory(prefix="ppt-nbval-") as scratch:
        copies = {name: copy_alone(Path(scratch) / name) for name in INSTRUCTION_SETS}
        tests = test_files()
        order = [tests[0], *copies["baseline"], *tests[1:], *copies["avx2"], *copies["native"]]
        env = {**os.environ, "CI": "true", "PPT_KERNEL_SETTINGS": json.dumps(INSTRUCTION_SETS)}
        # --rootdir /: the tests live in the repository, the copies outside it. Under the repository's rootdir a
        # notebook outside it gets the node id "::Cell N", the same in every notebook (xdist's loadfile would hand
        # one notebook's cells to two kernels); under / every node id is its path.
        command = [*PYTEST, *WORKERS, "--rootdir", "/", *NBVAL, *map(str, order), *argv]
        start = time.perf_counter()
        status = subprocess.run(command, cwd=REPO, env=env, check=False).returncode
    print(f"make test: exit status {status} in {time.perf_counter() - start:.0f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
