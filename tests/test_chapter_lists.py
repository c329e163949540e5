"""The chapter lists a reader sees first (README's "Chapters", the intro's "Chapter map") follow _toc.yml."""

from __future__ import annotations

import json
import re

from conftest import REPO, toc_files

LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def toc_chapters() -> list[str]:
    return [name for name in toc_files() if name.startswith("notebooks/")]


def title(chapter: str) -> str:
    """The chapter's title from its first cell, without the number: '# 3. Title' -> 'Title'."""
    first = json.loads((REPO / f"{chapter}.ipynb").read_text())["cells"][0]["source"]
    heading = ("".join(first) if isinstance(first, list) else first).splitlines()[0]
    return re.sub(r"^#\s*\d+\.\s*", "", heading).strip()


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
    chapters = toc_chapters()
    assert [chapter for _, chapter in entries] == chapters, (
        f"{where} lists {[c for _, c in entries]}, _toc.yml {chapters}: same chapters, same order"
    )
    for number, (label, chapter) in enumerate(entries, start=1):
        label = re.sub(r"^\d+\.\s*", "", label).strip()
        assert title(chapter).startswith(label), (
            f"{where}: chapter {number} is listed as {label!r}, its title is {title(chapter)!r}"
        )


def test_readme_chapter_list_follows_the_toc():
    text = section((REPO / "README.md").read_text(), "## Chapters")
    numbers = [int(n) for n in re.findall(r"^(\d+)\. \[", text, re.MULTILINE)]
    assert numbers == list(range(1, len(toc_chapters()) + 1)), f"README numbers its chapters {numbers}"
    check_list(listed(text, ""), "README.md")


def test_readme_links_every_reference_page_of_the_toc():
    text = (REPO / "README.md").read_text()
    linked = {target.removesuffix(".md") for _, target in LINK.findall(text)}
    pages = [name for name in toc_files() if name.startswith("book/") and name not in ("book/intro", "book/setup")]
    assert set(pages) <= linked, f"README does not link {sorted(set(pages) - linked)}"


def test_intro_chapter_map_follows_the_toc():
    text = section((REPO / "book" / "intro.md").read_text(), "## Chapter map")
    entries = listed(text, "../")
    for number, (label, _) in enumerate(entries, start=1):
        assert label.startswith(f"{number}. "), f"book/intro.md: row {number} is numbered {label!r}"
    check_list(entries, "book/intro.md")
