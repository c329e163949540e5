"""A small Sphinx extension (loaded by _config.yml): under each chapter's title, the torch versions it is verified
with, filled in from the compatibility run's results (tests/compat/results.json, written by scripts/compat.py).

  Verified with torch 2.2–2.14 (Python 3.11–3.12) on 2026-12-02; outputs stored with torch 2.13.

The line is made here, from the results, in each edition's language, so that a new compatibility run changes no
translated prose. The range runs from the oldest version on which the chapter passed to the newest, and a
version counts only when the chapter passed without a warning; tests/test_compat.py checks that the chapter's
Colab install line asks for that oldest version, and that every version in the range passed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes

RESULTS = Path(__file__).resolve().parent.parent / "tests" / "compat" / "results.json"
TEXT = {
    "en": "Verified with torch {torch} (Python {python}) on {date}; outputs stored with torch {stored}.",
    "zh": "已验证：torch {torch}（Python {python}），{date}；页面上的输出由 torch {stored} 生成。",
}


def minor(version: str) -> str:
    return ".".join(re.findall(r"\d+", version)[:2])


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def span(values: list[str]) -> str:
    low, high = min(values, key=version_key), max(values, key=version_key)
    return low if low == high else f"{low}–{high}"


def verified_line(chapter: str, results: dict, language: str = "en") -> str | None:
    """The line for the chapter (a notebook's stem), or None when the results do not cover it."""
    passed = [
        run
        for run in results["runs"].values()
        if (outcome := run["chapters"].get(chapter)) and outcome["passed"] and not outcome["warnings"]
    ]
    if not passed:
        return None
    return TEXT[language].format(
        torch=span([minor(run["torch"]) for run in passed]),
        python=span([minor(run["python"]) for run in passed]),
        date=max(run["date"] for run in passed),
        stored=minor(results["stored_with"]),
    )


def add_verified_line(app, doctree, docname: str) -> None:
    if not docname.startswith("notebooks/") or app.builder.name == "gettext" or not RESULTS.exists():
        return
    language = "zh" if (app.config.language or "").startswith("zh") else "en"
    line = verified_line(docname.removeprefix("notebooks/"), json.loads(RESULTS.read_text()), language)
    title = next(iter(doctree.findall(nodes.title)), None)
    if line and title is not None:
        title.parent.insert(title.parent.index(title) + 1, nodes.paragraph(line, line, classes=["ppt-verified"]))


def setup(app):
    app.connect("doctree-resolved", add_verified_line)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
