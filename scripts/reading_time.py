"""Reading time of every page, computed from the notebooks, and written where the book states it.

Usage: python scripts/reading_time.py [--check]

A careful learner's pace: prose at 200 words a minute (markdown words; code spans and link texts count, URLs,
HTML tags and display math do not) plus 10 s for every non-blank line of a code cell whose input the site shows
by default (not tagged hide-input, hide-cell, remove-input or remove-cell). Outputs are not counted.

Prints the table (page, kind, minutes; the core path's total), then writes each page's time into
- its first cell: `**Reading time** about N min.`;
- the rows of the chapter maps in book/intro.md and README.md that link to it (`about N min`), and their
  core-path row (`**about H h M min**`).
These lines are translated by rule in the Chinese edition (scripts/i18n_notebooks.py: MECHANICAL), so a new
number needs no new translation. --check writes nothing and exits 1 if a stated time is more than 25 % off.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
HIDDEN_TAGS = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
WORDS_PER_MINUTE = 200
SECONDS_PER_CODE_LINE = 10
# The parts of _toc.yml that make the core path (the introduction's part and the core chapters).
CORE_PARTS = ("Start here", "The core path")
# The quick start: issue #47 gave it five more minutes (35) for the tagger reader, one output per token.
LIMIT_MIN = {"quick start": 35, "chapter": 75, "deep dive": 75}
CORE_LIMIT_MIN = 6 * 60
TOLERANCE = 0.25  # a stated time may be this far from the computed one before --check (and the tests) fail
STATED = re.compile(r"\*\*Reading time\*\* about (\d+) min\.")
ROW_TIME = re.compile(r"about \d+ min")
CORE_ROW_TIME = re.compile(r"\*\*about \d+ h \d+ min\*\*")
MAPS = [REPO / "book" / "intro.md", REPO / "README.md"]


def prose_words(markdown: str) -> int:
    text = re.sub(r"```.*?```|\$\$.*?\$\$", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>|\]\([^)]*\)|https?://\S+", " ", text)
    return len(re.findall(r"[A-Za-z0-9][\w'’.-]*", text))


def visible_code_lines(cell: dict) -> int:
    if HIDDEN_TAGS & set(cell.get("metadata", {}).get("tags", [])):
        return 0
    return sum(1 for line in "".join(cell["source"]).splitlines() if line.strip())


def minutes(notebook: dict) -> float:
    words = sum(prose_words("".join(c["source"])) for c in notebook["cells"] if c["cell_type"] == "markdown")
    lines = sum(visible_code_lines(c) for c in notebook["cells"] if c["cell_type"] == "code")
    return words / WORDS_PER_MINUTE + lines * SECONDS_PER_CODE_LINE / 60


def kind(path: Path, notebook: dict) -> str:
    if path.name.startswith("00_"):
        return "quick start"
    title = "".join(notebook["cells"][0]["source"]).splitlines()[0]
    return "deep dive" if re.match(r"# \d+\. Deep dive: ", title) else "chapter"


def toc_pages() -> list[tuple[str, Path]]:
    """(part caption, notebook path) for every notebook of _toc.yml, in order."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    return [
        (part["caption"], REPO / f"{entry['file']}.ipynb")
        for part in toc["parts"]
        for entry in part["chapters"]
        if entry["file"].startswith("notebooks/")
    ]


def table() -> list[dict]:
    rows = []
    for part, path in toc_pages():
        notebook = json.loads(path.read_text())
        rows.append(
            {
                "path": path,
                "kind": kind(path, notebook),
                "core": part in CORE_PARTS,
                "minutes": minutes(notebook),
                "stated": stated_minutes(notebook),
            }
        )
    return rows


def stated_minutes(notebook: dict) -> int | None:
    found = STATED.search("".join(notebook["cells"][0]["source"]))
    return int(found.group(1)) if found else None


def hours(total: float) -> str:
    whole = round(total)
    return f"{whole // 60} h {whole % 60} min"


def write_first_cell(path: Path, value: int) -> None:
    notebook = json.loads(path.read_text())
    cell = notebook["cells"][0]
    text = "".join(cell["source"])
    new = STATED.sub(f"**Reading time** about {value} min.", text)
    if new != text:
        lines = new.split("\n")
        cell["source"] = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


def write_maps(rows: list[dict], core_total: float) -> None:
    for page in MAPS:
        lines = page.read_text().split("\n")
        for index, line in enumerate(lines):
            if not line.startswith("|"):
                continue
            for row in rows:
                if f"notebooks/{row['path'].name}" in line:
                    lines[index] = ROW_TIME.sub(f"about {round(row['minutes'])} min", line)
            if "Core path" in line:
                lines[index] = CORE_ROW_TIME.sub(f"**about {hours(core_total)}**", line)
        page.write_text("\n".join(lines))


def map_problems(rows: list[dict]) -> list[str]:
    """Rows of the chapter maps whose stated time is more than TOLERANCE off."""
    problems = []
    for page in MAPS:
        for line in page.read_text().splitlines():
            for row in rows:
                stated = ROW_TIME.search(line) if f"notebooks/{row['path'].name}" in line else None
                if stated and abs(int(stated.group()[6:-4]) - row["minutes"]) > TOLERANCE * row["minutes"]:
                    problems.append(f"{page.name}: {row['path'].name} stated {stated.group()}, is {row['minutes']:.0f}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a stated time is off")
    check = parser.parse_args(argv).check
    rows = table()
    core_total = sum(row["minutes"] for row in rows if row["core"])
    print(f"{'page':<52} {'kind':<12} {'min':>5} {'limit':>6}")
    for row in rows:
        over = "  over" if row["minutes"] > LIMIT_MIN[row["kind"]] else ""
        core = "core" if row["core"] else ""
        limit = LIMIT_MIN[row["kind"]]
        print(f"{row['path'].name:<52} {row['kind']:<12} {row['minutes']:>5.0f} {limit:>6} {core}{over}")
    print(f"core path: {hours(core_total)} (limit {CORE_LIMIT_MIN // 60} h)")
    print(f"whole course: {hours(sum(row['minutes'] for row in rows))}")
    if check:
        problems = [
            f"{row['path'].name}: states {row['stated']} min, is {row['minutes']:.0f}"
            for row in rows
            if row["stated"] is None or abs(row["stated"] - row["minutes"]) > TOLERANCE * row["minutes"]
        ] + map_problems(rows)
        print("\n".join(problems) or "every stated reading time is within 25 %")
        return 1 if problems else 0
    for row in rows:
        write_first_cell(row["path"], round(row["minutes"]))
    write_maps(rows, core_total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
