"""The chapter maps a reader sees first (README's "Chapters", the intro's "Chapter map") follow _toc.yml."""

from __future__ import annotations

import json
import re

import yaml

from conftest import REPO, toc_files

# A link's text may hold code spans with brackets in them: [7. The `output[:, -1]` bug](...)
LINK = re.compile(r"\[((?:`[^`]*`|[^\]`])+)\]\(([^)\s]+)\)")


def toc_chapters() -> list[str]:
    return [name for name in toc_files() if name.startswith("notebooks/")]


def title(chapter: str) -> str:
    """The chapter's title from its first cell, without the number: '# 3. Title' -> 'Title' (the quick start's
    '# Quick start: Title' -> 'Quick start')."""
    first = json.loads((REPO / f"{chapter}.ipynb").read_text())["cells"][0]["source"]
    heading = ("".join(first) if isinstance(first, list) else first).splitlines()[0]
    return re.sub(r"^#\s*(\d+\.\s*)?", "", heading).strip()


def section(text: str, heading: str) -> str:
    """The markdown between `heading` and the next heading of the same or a higher level."""
    level = heading.split(" ")[0]
    match = re.search(rf"^{re.escape(heading)}\s*$(.*?)(?=^#{{1,{len(level)}}} |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"no '{heading}' section"
    return match.group(1)


def listed(text: str, prefix: str) -> list[tuple[str, str]]:
    """(link text, chapter path without suffix) for every chapter link, in order."""
    return [
        (label, target.removeprefix(prefix).removesuffix(".ipynb"))
        for label, target in LINK.findall(text)
        if target.removeprefix(prefix).startswith("notebooks/")
    ]


def check_list(entries: list[tuple[str, str]], where: str) -> None:
    """Every page of the toc in order, each numbered as its file (the quick start: 'Quick start') and
    labelled with the start of its title."""
    chapters = toc_chapters()
    assert [chapter for _, chapter in entries] == chapters, (
        f"{where} lists {[c for _, c in entries]}, _toc.yml {chapters}: same chapters, same order"
    )
    for number, (label, chapter) in enumerate(entries):
        if number == 0:
            assert label == "Quick start", f"{where}: the first row must be the quick start, not {label!r}"
            continue
        assert label.startswith(f"{number}. "), f"{where}: row {number} is numbered {label!r}"
        label = re.sub(r"^\d+\.\s*", "", label).strip().replace("`", "")
        assert title(chapter).replace("`", "").startswith(label), (
            f"{where}: chapter {number} is listed as {label!r}, its title is {title(chapter)!r}"
        )


def map_rows(text: str, prefix: str) -> list[tuple[str, str]]:
    """The first link of every table row that links a notebook."""
    rows = []
    for line in text.splitlines():
        found = listed(line, prefix) if line.startswith("|") else []
        if found:
            rows.append(found[0])
    return rows


def test_readme_chapter_map_follows_the_toc():
    text = section((REPO / "README.md").read_text(), "## Chapters")
    check_list(map_rows(text, ""), "README.md")


def test_readme_links_every_reference_page_of_the_toc():
    text = (REPO / "README.md").read_text()
    linked = {target.removesuffix(".md") for _, target in LINK.findall(text)}
    pages = [name for name in toc_files() if name.startswith("book/") and name not in ("book/intro", "book/setup")]
    assert set(pages) <= linked, f"README does not link {sorted(set(pages) - linked)}"


def test_intro_chapter_map_follows_the_toc():
    text = section((REPO / "book" / "intro.md").read_text(), "## Chapter map")
    check_list(map_rows(text, "../"), "book/intro.md")


def test_the_core_path_row_separates_the_core_from_what_lies_beyond():
    """The maps mark the core path where _toc.yml ends it: the row after the last core chapter."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    core = [e["file"] for p in toc["parts"] if p["caption"] in ("Start here", "The core path") for e in p["chapters"]]
    last_core = [name for name in core if name.startswith("notebooks/")][-1]
    for page, prefix in [(REPO / "README.md", ""), (REPO / "book" / "intro.md", "../")]:
        lines = [line for line in page.read_text().splitlines() if line.startswith("|")]
        at = next(i for i, line in enumerate(lines) if f"({prefix}{last_core}.ipynb)" in line)
        assert lines[at + 1].startswith("| **Core path** |"), f"{page.name}: no core-path row after {last_core}"
