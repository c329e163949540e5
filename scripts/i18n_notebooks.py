"""The Chinese notebooks for Colab: each English chapter with its markdown cells translated from the .po files.

Code cells, outputs, widget state and metadata stay identical to the English notebook (the tests compare them),
so a Chinese reader runs exactly the code that the tests checked. Markdown is parsed with the same MyST parser
settings as Jupyter Book's, so every block (paragraph, heading, list item, table cell, raw HTML) maps to the one
message Sphinx extracted from it; its source lines are replaced by the translation, keeping the block's prefix
(`## `, `- `, `1. `, `> `, indentation). A message without a translation keeps its English text.

Usage: python scripts/i18n.py notebooks   (make translations runs it)
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

from babel.messages.pofile import read_po
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
LANGUAGE = "zh_CN"
CATALOGUES = REPO / "locales" / LANGUAGE / "LC_MESSAGES"
ZH_NOTEBOOKS = REPO / "i18n" / LANGUAGE / "notebooks"
# Jupyter Book v1's default MyST extensions (jupyter_book/default_config.yml): the book's pages are parsed so.
MYST_EXTENSIONS = {"colon_fence", "dollarmath", "linkify", "substitution", "tasklist"}

PARSER = create_md_parser(MdParserConfig(enable_extensions=MYST_EXTENSIONS), RendererHTML)


def message_of(content: str) -> str:
    """The msgid Sphinx extracts from a block's text (sphinx.util.nodes.extract_messages)."""
    return content.replace("\n", " ").strip()


def translations(page: str) -> dict[str, str]:
    path = CATALOGUES / f"{page}.po"
    if not path.exists():
        return {}
    with path.open("rb") as file:
        catalog = read_po(file, charset="utf-8")
    return {message.id: message.string for message in catalog if message.id and message.string and not message.fuzzy}


def translate_markdown(source: str, translate: Callable[[str], str | None]) -> tuple[str, int]:
    """`source` with every translatable block replaced; also return how many blocks were replaced."""
    lines = source.split("\n")
    replaced = 0
    # Replacements per line: (line index, first line, last line exclusive, the English text, the translation).
    edits: list[tuple[int, int, str, str]] = []
    tokens = PARSER.parse(source)
    for index, token in enumerate(tokens):
        if token.type == "html_block":
            translation = translate(token.content.rstrip("\n"))
            if translation is not None:
                start, end = token.map
                edits.append((start, end, None, translation))
            continue
        if token.type != "inline" or token.map is None:
            continue
        translation = translate(message_of(token.content))
        if translation is None:
            continue
        start, end = token.map
        in_table_cell = tokens[index - 1].type in {"th_open", "td_open"}
        edits.append((start, end, token.content if in_table_cell else token.content.split("\n"), translation))

    # Apply from the bottom up so that line indices stay valid; table cells replace text within their row.
    row_offsets: dict[int, int] = {}
    for start, end, english, translation in sorted(edits, key=lambda edit: edit[0]):
        if isinstance(english, str):  # a table cell, one of several on the line `start`
            line = lines[start]
            offset = line.find(english, row_offsets.get(start, 0))
            if offset < 0:
                raise ValueError(f"table cell {english!r} not found in {line!r}")
            lines[start] = line[:offset] + translation + line[offset + len(english) :]
            row_offsets[start] = offset + len(translation)
            replaced += 1
    for start, end, english, translation in sorted(edits, key=lambda edit: edit[0], reverse=True):
        if isinstance(english, str):
            continue
        if english is None:  # a raw HTML block: replaced whole
            lines[start:end] = translation.split("\n")
        else:
            first = english[0]
            prefix = lines[start][: lines[start].find(first)] if first else lines[start]
            lines[start:end] = [prefix + translation]
        replaced += 1
    return "\n".join(lines), replaced


def _source_lines(text: str) -> list[str]:
    """Notebook JSON keeps a cell's source as lines that end in newline, the last one without."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def translate_notebook(notebook: dict, table: dict[str, str]) -> tuple[dict, int]:
    translated = copy.deepcopy(notebook)
    total = 0
    for cell in translated["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        text, replaced = translate_markdown(source, table.get)
        total += replaced
        cell["source"] = _source_lines(text)
    return translated, total


def write_translated_notebooks(notebooks: list[Path] | None = None, output: Path = ZH_NOTEBOOKS) -> list[Path]:
    output.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        english = json.loads(path.read_text())
        chinese, _ = translate_notebook(english, translations(f"notebooks/{path.stem}"))
        target = output / path.name
        # The same JSON layout as the English notebooks (nbformat's: indent 1, non-ASCII kept), so diffs stay small.
        target.write_text(json.dumps(chinese, indent=1, ensure_ascii=False) + "\n")
        written.append(target)
    return written
