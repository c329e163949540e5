"""Run every test, as `make test` does: the test files, then each chapter under nbval on three instruction sets.

Usage: python scripts/run_tests.py [PYTEST_ARGS ...]   (extra arguments go to the first pytest run)

1. `tests/` and every chapter re-executed by nbval on this CPU's own instruction set, in parallel (xdist);
   the per-chapter time budget applies here (tests/notebook_checks.py, which also compares the stored widget
   state and figures with the fresh run, in all three runs).
2. Every chapter again with ATen, oneDNN and MKL held to AVX2.
3. Every chapter again with them held to the x86-64 baseline (no AVX at all).

Runs 2 and 3 compare against the same stored outputs as run 1. They prove that what a notebook prints does not
depend on the reader's CPU: kernels differ between instruction sets in the last bits, and training amplifies
them. (On an AVX2 machine run 2 repeats run 1; on an AVX-512 machine, where most stored outputs are made, it
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
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.nbval_checks",
          "-p", "tests.notebook_checks", "-n", "2", "--dist", "loadfile"]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(REPO / "tests" / "nbval_sanitize.cfg")]


def copy_alone(folder: Path) -> list[Path]:
    """Copy every chapter into its own empty folder below `folder`; return the copies."""
    copies = []
    for notebook in NOTEBOOKS:
        target = folder / notebook.stem
        target.mkdir(parents=True)
        copies.append(Path(shutil.copy2(notebook, target)))
    return copies


def main(argv: list[str]) -> int:
    failed = []
    with tempfile.TemporaryDirectory(prefix="ppt-nbval-") as scratch:
        for name, settings in INSTRUCTION_SETS.items():
            copies = copy_alone(Path(scratch) / name)
            env = {**os.environ, "CI": "true", **settings}
            if settings:  # the time budget is for readers' CPUs; held-down kernels are slower by design
                env["PPT_NOTEBOOK_BUDGET_S"] = "inf"
            targets = ["tests", *argv] if name == "native" else []
            command = [*PYTEST, *NBVAL, *targets, *map(str, copies)]
            label = ", ".join(f"{key}={value}" for key, value in settings.items()) or "this CPU's own kernels"
            print(f"\n=== run {name}: notebooks with {label}", flush=True)
            start = time.perf_counter()
            status = subprocess.run(command, cwd=REPO, env=env).returncode
            print(f"=== run {name}: exit status {status} in {time.perf_counter() - start:.0f} s", flush=True)
            if status != 0:
                failed.append(name)
    if failed:
        print(f"FAILED runs: {', '.join(failed)}")
        return 1
    print(f"all {len(INSTRUCTION_SETS)} runs passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
