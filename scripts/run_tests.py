"""Run every test, as `make test` does: the test files, then each chapter under nbval on three instruction sets.

Usage: python scripts/run_tests.py [PYTEST_ARGS ...]   (extra arguments go to the first pytest run)

1. `tests/`: hygiene, scripts, benchmarks, reference pages, the Chinese catalogues, and both editions of the
   site in Chromium (tests/test_site.py and tests/test_site_zh.py, one on each core).
2. Every chapter re-executed by nbval on this CPU's own instruction set, one at a time with nothing else
   running, so that the per-chapter time budget (60 s on 2 cores, Colab's CPU tier) measures the chapter and
   not its neighbour (tests/notebook_checks.py, which also compares the stored widget state and figures with
   the fresh run in every notebook run).
3. Every chapter again with ATen, oneDNN and MKL held to AVX2, two at a time.
4. Every chapter again with them held to the x86-64 baseline (no AVX at all), two at a time.

Runs 3 and 4 compare against the same stored outputs as run 2. They prove that what a notebook prints does not
depend on the reader's CPU: kernels differ between instruction sets in the last bits, and training amplifies
them. (On an AVX2 machine run 3 repeats run 2; on an AVX-512 machine, where most stored outputs are made, it
is the AVX2 reader's view.)

Each chapter runs alone in an empty folder OUTSIDE the repository, as in Colab: a chapter that reads a file
of the repository or imports one of its modules fails here.
"""

from __future__ import annotations

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
TWO_AT_A_TIME = ["-n", "2", "--dist", "loadfile"]  # xdist: one worker per core, each notebook whole on one
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(REPO / "tests" / "nbval_sanitize.cfg")]


def copy_alone(folder: Path) -> list[Path]:
    """Copy every chapter into its own empty folder below `folder`; return the copies."""
    copies = []
    for notebook in NOTEBOOKS:
        target = folder / notebook.stem
        target.mkdir(parents=True)
        copies.append(Path(shutil.copy2(notebook, target)))
    return copies


def run(name: str, command: list[str], env: dict[str, str]) -> bool:
    print(f"\n=== run {name}", flush=True)
    start = time.perf_counter()
    status = subprocess.run(command, cwd=REPO, env=env, check=False).returncode
    print(f"=== run {name}: exit status {status} in {time.perf_counter() - start:.0f} s", flush=True)
    return status == 0


def main(argv: list[str]) -> int:
    failed = []
    if not run("tests", [*PYTEST, *TWO_AT_A_TIME, "tests", *argv], {**os.environ, "CI": "true"}):
        failed.append("tests")
    with tempfile.TemporaryDirectory(prefix="ppt-nbval-") as scratch:
        for name, settings in INSTRUCTION_SETS.items():
            copies = copy_alone(Path(scratch) / name)
            env = {**os.environ, "CI": "true", **settings}
            parallel = []
            if settings:  # the time budget is for readers' CPUs; held-down kernels are slower by design
                env["PPT_NOTEBOOK_BUDGET_S"] = "inf"
                parallel = TWO_AT_A_TIME
            label = ", ".join(f"{key}={value}" for key, value in settings.items()) or "this CPU's own kernels"
            # --rootdir: the copies' own folder. Under the repository's rootdir (pyproject.toml is a pytest config
            # file) a notebook outside it gets the node ids "::Cell N", the same in every notebook, and xdist's
            # loadfile then hands one notebook's cells to two kernels.
            rootdir = ["--rootdir", str(Path(scratch) / name)]
            command = [*PYTEST, *parallel, *rootdir, *NBVAL, *map(str, copies)]
            if not run(f"{name}: notebooks with {label}", command, env):
                failed.append(name)
    if failed:
        print(f"FAILED runs: {', '.join(failed)}")
        return 1
    print(f"all {1 + len(INSTRUCTION_SETS)} runs passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
