"""The student edition, for instructors: every chapter with its exercise solutions removed and its outputs
cleared, ready to hand out as an assignment. Nothing is executed, so it takes seconds.

Writes _build/student/<chapter>.ipynb from notebooks/ and _build/student/zh/<chapter>.ipynb from the Chinese
notebooks (i18n/zh_CN/notebooks/). An exercise's solution is the code cell whose metadata says
`exercise: {part: solution}` (tests/test_exercises.py holds every exercise to that shape); the question, the
stub the student fills in and the check cell stay, and the checks run offline, in Colab or Jupyter.

Usage: python scripts/student_edition.py   (make student)
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EDITIONS = {
    REPO / "notebooks": REPO / "_build" / "student",
    REPO / "i18n" / "zh_CN" / "notebooks": REPO / "_build" / "student" / "zh",
}


def is_solution(cell: dict) -> bool:
    return cell["metadata"].get("exercise", {}).get("part") == "solution"


def student_notebook(notebook: dict) -> dict:
    """The notebook without its solutions, its outputs and its stored widget state."""
    student = copy.deepcopy(notebook)
    student["cells"] = [cell for cell in student["cells"] if not is_solution(cell)]
    for cell in student["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    student["metadata"].pop("widgets", None)
    return student


def write_student_edition() -> list[Path]:
    written = []
    for source, target in EDITIONS.items():
        target.mkdir(parents=True, exist_ok=True)
        for stale in target.glob("*.ipynb"):
            stale.unlink()
        for path in sorted(source.glob("[0-9][0-9]_*.ipynb")):
            notebook = student_notebook(json.loads(path.read_text(encoding="utf-8")))
            destination = target / path.name
            destination.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(destination)
    return written


if __name__ == "__main__":
    written = write_student_edition()
    print(f"student edition: {len(written)} notebooks in {written[0].parent.relative_to(REPO)}/ (and zh/)")
