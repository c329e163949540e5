"""Run every chapter as Colab's *Run all* does, on each torch version readers have: `make test-compat`.

Usage:
  python scripts/compat.py                      every version of VERSIONS, every chapter
  python scripts/compat.py --torch 2.6.0 2.7.1  those versions of VERSIONS only
  python scripts/compat.py --chapters 09 16     those chapters only (their entries are replaced, others kept)
  python scripts/compat.py --torch latest --python 3.12 --results out.json     the newest release on PyPI
  python scripts/compat.py --torch nightly --index-url https://download.pytorch.org/whl/nightly/cpu ...

For each version: a fresh virtual environment (one at a time, deleted after its run) with that torch, the
notebooks' other packages at the pins of requirements*.txt, and what the version needs besides (numpy < 2 for
torch 2.2, Colab's ipywidgets 7.7.1 for the Colab-era version). Wheels are downloaded once into a cache
(~/.cache/pad-pack-train/compat-wheels, or $PPT_COMPAT_CACHE) and installed from it without the network
afterwards. Each chapter then runs top to bottom in an empty folder, as Colab's Run all does:
  - cell tags are ignored (Colab ignores them: a cell tagged `raises-exception` that raises stops the run);
  - `google.colab` is importable, so the setup cell takes its Colab branch; its `%pip install` line installs the
    book's package as in Colab, from a wheel built from the working tree, and nothing else, so that it cannot
    change the torch under test;
  - no `CI` variable (the chapters that train shorten nothing for a reader).
A chapter passes when no cell raises and nothing on stderr is a warning. The results go into
tests/compat/results.json (per version: Python, date, and per chapter passed or the first failing cell and its
message, and the warnings), which tests/test_compat.py checks against each chapter's Colab install line and
scripts/i18n_sphinx.py shows on every chapter's page.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RESULTS = REPO / "tests" / "compat" / "results.json"
CACHE = Path(os.environ.get("PPT_COMPAT_CACHE", Path.home() / ".cache" / "pad-pack-train" / "compat-wheels"))
# What the notebooks import besides torch, and what runs them; pinned as in the book's requirements.
NOTEBOOK_PACKAGES = ["matplotlib", "ipywidgets", "tqdm", "psutil", "ipykernel", "nbclient", "nbformat"]
WARNING = re.compile(r"\b\w*Warning\b")
PIP_STUB = "(compatibility run: %pip"  # what the stand-in for %pip prints (COLAB_STARTUP)
WHEEL_VARIABLE = "PPT_PADPACK_WHEEL"  # where the stand-in for %pip finds the book's package


@dataclass(frozen=True)
class Target:
    """A torch version to test, the Python to test it on, and the pins it needs besides the book's."""

    torch: str
    python: str = "3.11"
    pins: dict[str, str] = field(default_factory=dict)
    why: str = ""


# The one list of versions `make test-compat` runs (README: "Compatibility with other torch versions").
VERSIONS = [
    Target("2.2.2", pins={"numpy": "<2"}, why="the oldest floor; built against NumPy 1"),
    Target("2.3.1", why="between floors"),
    Target("2.4.1", why="between floors"),
    Target("2.5.1", why="a floor"),
    Target("2.6.0", why="a floor"),
    Target("2.7.1", why="between floors"),
    Target("2.8.0", why="between floors"),
    Target("2.9.1", why="between floors"),
    Target("2.10.0", python="3.12", pins={"ipywidgets": "==7.7.1"}, why="Colab-era: Python 3.12, ipywidgets 7"),
    Target("2.11.0", why="between floors"),
    Target("2.12.1", why="between floors"),
    Target("2.13.0", why="the outputs are stored with it"),
    Target("2.14.1", why="the newest these machines install"),
]


def book_pins() -> dict[str, str]:
    """name -> '==version' for every exact pin of requirements.txt and the files it includes."""
    pins = {}
    for path in (REPO / "requirements-book.txt", REPO / "requirements.txt"):
        for line in path.read_text().splitlines():
            line = line.split("#")[0].strip()
            if "==" in line:
                name, version = line.split("==")
                pins[name.strip().lower().replace("_", "-")] = f"=={version.strip()}"
    return pins


def stored_with() -> str:
    return book_pins()["torch"].removeprefix("==")


def requirements(target: Target) -> list[str]:
    pins = book_pins()
    torch = {"latest": "torch", "nightly": "torch"}.get(target.torch, f"torch=={target.torch}")
    wanted = [torch] + [f"{name}{target.pins.get(name, pins[name])}" for name in NOTEBOOK_PACKAGES]
    return wanted + [f"{name}{spec}" for name, spec in target.pins.items() if name not in NOTEBOOK_PACKAGES]


def find_python(version: str) -> str:
    """The interpreter for `version` (3.12): python3.12 on PATH, else pyenv's."""
    found = shutil.which(f"python{version}")
    if found and subprocess.run([found, "-c", ""], capture_output=True, check=False).returncode == 0:
        return found  # (pyenv's shim is on PATH for every version but runs only the active ones)
    pyenv = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python"))
    if pyenv:
        return str(pyenv[-1])
    sys.exit(f"no Python {version}: install it (pyenv install {version}) or put python{version} on PATH")


def pip(venv: Path, *args: str) -> subprocess.CompletedProcess:
    command = [str(venv / "bin" / "python"), "-m", "pip", *args, "--disable-pip-version-check"]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def install(venv: Path, target: Target, index_url: str | None) -> str:
    """Install the target's packages into `venv`, from the wheel cache when it has them all; the installed
    torch version."""
    wanted = requirements(target)
    cache = CACHE / f"cp{target.python.replace('.', '')}"
    cache.mkdir(parents=True, exist_ok=True)
    pre = ["--pre"] if target.torch == "nightly" else []
    from_cache = ["install", "--quiet", "--no-compile", "--no-index", "--find-links", str(cache), *pre, *wanted]
    if target.torch in ("latest", "nightly") or pip(venv, *from_cache).returncode:
        index = ["--extra-index-url", index_url] if index_url else []
        print(f"  downloading into {cache} ...", flush=True)
        download = pip(venv, "download", "--quiet", "--dest", str(cache), *pre, *index, *wanted)
        if download.returncode:
            sys.exit(f"pip download failed:\n{download.stderr[-3000:]}")
        if (done := pip(venv, *from_cache)).returncode:
            sys.exit(f"pip install failed:\n{done.stderr[-3000:]}")
    shown = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return shown.stdout.strip().split("+")[0]


# --- inside the test environment: run the chapters -------------------------------------------------------

COLAB_STARTUP = f'''\
"""As in Colab: google.colab is imported, and %pip installs the book's package (padpack) as Colab does, from a
wheel built from the working tree; the other requirements of the line (torch, ...) stay as installed."""
import os
import shlex
import subprocess
import sys

import google.colab  # noqa: F401  (the empty package on PYTHONPATH)
from IPython import get_ipython


def _pip_installs_only_the_books_package(line):
    print(f"{PIP_STUB} {{line}} not run: padpack from the working tree\'s wheel)")
    if any(arg.replace(" ", "").startswith("padpack@") for arg in shlex.split(line)):
        wheel = os.environ["{WHEEL_VARIABLE}"]
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel]
        subprocess.run(command, check=True)


get_ipython().register_magic_function(_pip_installs_only_the_books_package, "line", "pip")
'''


def build_package_wheel(folder: Path) -> Path:
    """The book's package as a wheel, built from the working tree (what Colab's install line would fetch), in a
    copy of pyproject.toml and src/, so that no build folder is left in the checkout or read from it."""
    source = folder / "source"
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    shutil.copy2(REPO / "pyproject.toml", source)
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    subprocess.run([*command, "--wheel-dir", str(folder), str(source)], check=True)
    (wheel,) = folder.glob("padpack-*.whl")
    return wheel


def colab_like_environment(scratch: Path, wheel: str) -> dict[str, str]:
    """Environment variables for a kernel that looks like Colab's: google.colab importable, no CI, and where
    %pip finds the book's package: `wheel`."""
    package = scratch / "colab-stub" / "google" / "colab"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Stands in for Colab\'s module in the compatibility run."""\n')
    startup = scratch / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-colab.py").write_text(COLAB_STARTUP)
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "PYTHONPATH", "MPLBACKEND")}
    env["PYTHONPATH"] = str(scratch / "colab-stub")
    env["IPYTHONDIR"] = str(scratch / "ipython")
    env[WHEEL_VARIABLE] = wheel
    return env


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def run_chapter(path: Path, scratch: Path) -> dict:
    """Run one chapter top to bottom in an empty folder; passed, or the failing cell and its error."""
    import nbformat
    from kernel_sockets import unix_socket_kernel
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("tags", None)  # Colab runs every cell whatever its tags
        if cell.cell_type == "code":
            cell.outputs = []
    folder = scratch / path.stem
    folder.mkdir()
    client = NotebookClient(
        nb,
        timeout=900,
        kernel_name="python3",
        config=unix_socket_kernel(),
        resources={"metadata": {"path": str(folder)}},
    )
    result: dict = {"passed": True}
    start = time.perf_counter()
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, RuntimeError) as error:
        failing = next(
            (
                (index, output)
                for index, cell in enumerate(nb.cells)
                for output in cell.get("outputs", [])
                if output.get("output_type") == "error"
            ),
            None,
        )
        result = {"passed": False}
        if failing:
            index, output = failing
            result.update(cell=index, error=f"{output['ename']}: {last_line(output['evalue'])}")
        else:
            result.update(cell=None, error=last_line(str(error)))
    result["seconds"] = round(time.perf_counter() - start, 1)
    printed = "".join(
        output.get("text", "") for cell in nb.cells for output in cell.get("outputs", []) if "text" in output
    )
    if result["passed"] and "%pip" in "".join(cell.source for cell in nb.cells) and PIP_STUB not in printed:
        result.update(passed=False, cell=None, error="the setup cell did not take its Colab branch")
    result["warnings"] = sorted(
        {
            f"cell {index}: {line.strip()[:300]}"
            for index, cell in enumerate(nb.cells)
            for output in cell.get("outputs", [])
            if output.get("output_type") == "stream" and output.get("name") == "stderr"
            for line in output["text"].splitlines()
            if WARNING.search(line)
        }
    )
    return result


def run_chapters(paths: list[Path]) -> dict:
    from jupyter_client.kernelspec import KernelSpecManager

    kernel = KernelSpecManager().get_kernel_spec("python3").argv[0]
    # jupyter_client starts a spec's "python" with its own interpreter: this environment's
    same = {"python", f"python{sys.version_info.major}", f"python{sys.version_info.major}.{sys.version_info.minor}"}
    if kernel not in same and Path(kernel).resolve() != Path(sys.executable).resolve():
        sys.exit(f"the python3 kernel runs {kernel}, not this environment's {sys.executable}")
    with tempfile.TemporaryDirectory(prefix="ppt-compat-run-") as scratch_name:
        scratch = Path(scratch_name)
        wheel = os.environ[WHEEL_VARIABLE]
        os.environ.clear()
        os.environ.update(colab_like_environment(scratch, wheel))
        results = {}
        for path in paths:
            results[path.stem] = run_chapter(path, scratch)
            shown = "passed" if results[path.stem]["passed"] else f"FAILED: {results[path.stem]['error']}"
            warned = f", {len(results[path.stem]['warnings'])} warning(s)" if results[path.stem]["warnings"] else ""
            print(f"    {path.stem}: {shown} ({results[path.stem]['seconds']} s{warned})", file=sys.stderr, flush=True)
        return results


# --- outside: one environment per version ------------------------------------------------------------------


def run_version(target: Target, chapters: list[Path], index_url: str | None) -> dict:
    python = find_python(target.python)
    with tempfile.TemporaryDirectory(prefix="ppt-compat-venv-") as venv_name:
        venv = Path(venv_name)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        start = time.perf_counter()
        installed = install(venv, target, index_url)
        print(f"  torch {installed} installed in {time.perf_counter() - start:.0f} s", flush=True)
        ran = subprocess.run(
            [str(venv / "bin" / "python"), __file__, "--inside", *map(str, chapters)],
            stdout=subprocess.PIPE,
            text=True,
            check=False,
        )
        if ran.returncode:
            sys.exit(f"the run inside torch {installed}'s environment failed (exit {ran.returncode})")
        chapter_results = json.loads(ran.stdout.rsplit("\n=== results\n", 1)[1])
        version = subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    return {
        "torch": installed,
        "python": version,
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, CPU only",
        "why": target.why,
        "chapters": chapter_results,
    }


def chosen_chapters(prefixes: list[str] | None) -> list[Path]:
    if not prefixes:
        return NOTEBOOKS
    chosen = [path for path in NOTEBOOKS if any(path.name.startswith(prefix) for prefix in prefixes)]
    if len(chosen) != len(prefixes):
        sys.exit(f"--chapters {' '.join(prefixes)} names {len(chosen)} chapters")
    return chosen


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torch", nargs="+", help="versions of VERSIONS, or 'latest' / 'nightly'")
    parser.add_argument("--python", default="3.11", help="the Python for 'latest' and 'nightly'")
    parser.add_argument("--index-url", help="an extra package index (PyTorch's, for 'nightly')")
    parser.add_argument("--chapters", nargs="+", help="chapter number prefixes, e.g. 09 16 (default: all)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--inside", nargs="+", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inside:  # running in the environment under test
        results = run_chapters(args.inside)
        print("\n=== results\n" + json.dumps(results), flush=True)
        return 0

    known = {target.torch: target for target in VERSIONS}
    targets = [known.get(name) or Target(name, python=args.python, why=name) for name in args.torch or known]
    for target in targets:
        if target.torch not in known and target.torch not in ("latest", "nightly"):
            sys.exit(f"torch {target.torch} is not in VERSIONS (scripts/compat.py): add it there")
    chapters = chosen_chapters(args.chapters)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ppt-compat-wheel-") as wheels:
        os.environ[WHEEL_VARIABLE] = str(build_package_wheel(Path(wheels)))
        for target in targets:
            print(f"torch {target.torch} on Python {target.python} ({target.why}):", flush=True)
            run = run_version(target, chapters, args.index_url)
            record(run, args.results)
            failures += sum(not chapter["passed"] or bool(chapter["warnings"]) for chapter in run["chapters"].values())
    print(f"results in {args.results}; {failures} chapter run(s) failed or warned")
    return 1 if failures else 0


def record(run: dict, path: Path) -> None:
    """Merge one version's run into the results file, read afresh (the run took minutes), keeping the other
    chapters' earlier results for that version."""
    results = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    results["stored_with"] = stored_with()
    earlier = results["runs"].get(run["torch"], {}).get("chapters", {})
    run["chapters"] = dict(sorted({**earlier, **run["chapters"]}.items()))
    results["runs"][run["torch"]] = run
    results["runs"] = dict(sorted(results["runs"].items(), key=lambda item: version_key(item[0])))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
