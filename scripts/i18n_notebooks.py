"""The Chinese notebooks for Colab: each English chapter with its markdown cells translated from the .po files.

Code cells, outputs, widget state and metadata stay identical to the English notebook (the tests compare them),
except for text: the literals of `print` calls are translated in the code and in what they printed (see "The
sentences a chapter's own code prints" below), the package's messages are stored as it prints them in Chinese,
and so are the words of the sliders (see "The words of the sliders' frames"); `make test-zh` runs the Chinese
notebooks under nbval, so a Chinese reader runs code the tests checked.
Markdown is parsed with the same MyST parser
settings as Jupyter Book's, so every block (paragraph, heading, list item, table cell, raw HTML) maps to the one
message Sphinx extracted from it; its source lines are replaced by the translation, keeping the block's prefix
(`## `, `- `, `1. `, `> `, indentation). A message without a translation keeps its English text.

Usage: python scripts/i18n.py notebooks   (make translations runs it). This module also holds what
scripts/i18n.py shares with it: where the catalogues live, and the MyST parser.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib.util
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from babel.messages.pofile import read_po, write_po
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

# Messages that a script writes and rewrites (the reading times of scripts/reading_time.py): they are translated
# by rule, here, and never enter the catalogues, so that a new number leaves no catalogue stale.
MECHANICAL = [
    (re.compile(r"\*\*Reading time\*\* about (\d+) min\."), r"**阅读时间**：约 \1 分钟。"),
    (re.compile(r"about (\d+) min"), r"约 \1 分钟"),
    (re.compile(r"\*\*about (\d+) h (\d+) min\*\*"), r"**约 \1 小时 \2 分钟**"),
]


def mechanical_translation(msgid: str) -> str | None:
    """The translation of a message written by a script, or None for every other message."""
    for pattern, replacement in MECHANICAL:
        if pattern.fullmatch(msgid):
            return pattern.sub(replacement, msgid)
    return None


def page_messages(text: str, notebook: bool) -> list[str]:
    """The msgids of a page's markdown (a notebook's JSON text, or a .md page), in order."""
    sources = (
        ["".join(cell["source"]) for cell in json.loads(text)["cells"] if cell["cell_type"] == "markdown"]
        if notebook
        else [text]
    )
    messages = []
    for source in sources:
        for token in PARSER.parse(source):
            if token.type == "inline" and token.map is not None:
                messages.append(message_of(token.content))
    return messages


def write_build_catalogues(source: Path, target: Path) -> Path:
    """The catalogues the Chinese build reads: the committed ones plus the mechanical messages of each page."""
    catalogues = source / "locales" / LANGUAGE / "LC_MESSAGES"
    for po_path in sorted(catalogues.rglob("*.po")):
        page = po_path.relative_to(catalogues).with_suffix("").as_posix()
        with po_path.open("rb") as file:
            catalog = read_po(file, charset="utf-8")
        for suffix, notebook in ((".ipynb", True), (".md", False)):
            path = source / f"{page}{suffix}"
            if path.exists():
                for msgid in page_messages(path.read_text(), notebook):
                    chinese = mechanical_translation(msgid)
                    if chinese is not None:
                        catalog.add(msgid, chinese)
        out = target / LANGUAGE / "LC_MESSAGES" / f"{page}.po"
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("wb") as file:
            write_po(file, catalog)
    return target


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


def translate_message(table: dict[str, str], msgid: str) -> str | None:
    return table.get(msgid) or mechanical_translation(msgid)


def translate_markdown(source: str, translate: Callable[[str], str | None]) -> tuple[str, int]:
    """`source` with every translatable block replaced; also return how many blocks were replaced."""
    lines = source.split("\n")
    cells: list[tuple[int, str, str]] = []  # a table cell: its row's line, its English, its translation
    blocks: list[tuple[int, int, str, str]] = []  # other blocks: first line, end line, kept prefix, translation
    tokens = PARSER.parse(source)
    for index, token in enumerate(tokens):
        if token.type == "html_block":
            english = token.content.rstrip("\n")  # Sphinx's raw node: the block as it is
        elif token.type == "inline" and token.map is not None:
            english = message_of(token.content)
        else:
            continue
        translation = translate(english)
        start, end = token.map
        if tokens[index - 1].type in {"th_open", "td_open"}:
            # every cell, translated or not, so that the search for the next one starts after it: an English
            # word of a later cell must not be found inside an earlier cell's code span
            cells.append((start, token.content, token.content if translation is None else translation))
        elif translation is None:
            continue
        elif token.type == "html_block":
            blocks.append((start, end, "", translation))
        else:  # keep what precedes the text on its first line: `## `, `- `, `1. `, `> `, indentation
            first = token.content.split("\n")[0]
            blocks.append((start, end, lines[start][: lines[start].find(first)], translation))

    # Cells first, left to right within their row; then blocks from the bottom up, so line numbers stay valid.
    searched_to: dict[int, int] = {}
    for row, english, translation in cells:
        line = lines[row]
        offset = line.find(english, searched_to.get(row, 0))
        if offset < 0:
            raise ValueError(f"table cell {english!r} not found in {line!r}")
        lines[row] = line[:offset] + translation + line[offset + len(english) :]
        searched_to[row] = offset + len(translation)
    for start, end, prefix, translation in sorted(blocks, reverse=True):
        lines[start:end] = (prefix + translation).split("\n")
    translated_cells = sum(english != translation for _, english, translation in cells)
    return "\n".join(lines), translated_cells + len(blocks)


# The exercise checks (padpack.checks; tests/test_exercises.py) print in the notebook's language: the setup cell's
# one line that differs between the editions chooses it, and the stored outputs of the check and solution cells
# are translated line by line through the package's own catalogue (src/padpack/locale/zh_CN/LC_MESSAGES/*.po).
# The package is read from the checkout without importing it: make translations installs no torch.
ENGLISH_CHECKS = re.compile(r'^use_language\("en"\).*$', re.MULTILINE)
CHINESE_CHECKS = 'use_language("zh_CN")  # English: use_language("en")'
# The titles Colab shows for the forms of the setup cell and of each exercise's solution (their first line).
COLAB_TITLES = {
    "# @title Setup: run this cell first": "# @title 设置：请先运行这个单元格",
    "# @title Solution": "# @title 参考答案",
}


def translate_colab_title(source: str) -> str:
    """A code cell with Colab's form title (`# @title ...`, its first line) in Chinese."""
    first, newline, rest = source.partition("\n")
    return COLAB_TITLES.get(first, first) + newline + rest


PACKAGE = REPO / "src" / "padpack"
WIDTH = 79


@functools.cache
def package_i18n():
    """The package's i18n module (catalogue, wrap by display width), loaded from its file."""
    spec = importlib.util.spec_from_file_location("padpack_i18n", PACKAGE / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def check_messages() -> dict[str, str]:
    """TEXT of padpack/checks.py (key -> English message), read from its source: each value is N_("...")."""
    tree = ast.parse((PACKAGE / "checks.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "TEXT")
    return {
        ast.literal_eval(key): ast.literal_eval(value.args[0]) for key, value in zip(node.value.keys, node.value.values)
    }


def check_templates() -> list[tuple[re.Pattern, str]]:
    """The lines a check prints around the cases (not attempted, right, hidden cases) and their translations."""
    table = package_i18n().catalogue(LANGUAGE)
    templates = []
    for key in ("todo", "right", "hidden", "hidden_one"):
        english = check_messages()[key]
        chinese = table.get(english, english)
        for en_line, zh_line in zip(english.split("\n"), chinese.split("\n"), strict=True):
            pattern = re.escape(en_line)
            pattern = pattern.replace(re.escape("{name}"), r"(?P<name>\w+)").replace(
                re.escape("{count}"), r"(?P<count>\d+)"
            )
            templates.append((re.compile(pattern), zh_line))
    return templates


def translate_check_output(text: str) -> str:
    """A check's printed English, in Chinese: its template lines, and each listed case (wrapped lines joined)."""
    i18n = package_i18n()
    table = i18n.catalogue(LANGUAGE)
    templates = check_templates()
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        line = lines[index]
        for pattern, chinese in templates:
            if match := pattern.fullmatch(line):
                out.append(chinese.format(**match.groupdict()))
                index += 1
                break
        else:
            end = index + 1
            if line.startswith("  - "):
                while end < len(lines) and lines[end].startswith("    "):
                    end += 1
                label = " ".join([line[4:], *(more.strip() for more in lines[index + 1 : end])])
                if label in table:
                    out += i18n.wrap("  - " + table[label], WIDTH, indent="    ").split("\n")
                    index = end
                    continue
            out.append(line)
            index += 1
    return "\n".join(out)


# The sentences that the package prints for the reader are translated the same way: the answers of the solutions
# (`check_x.answer()`: "Answer: ..." from the N_ messages of padpack/course/exercises/chNN.py) and, in the cells marked
# `translated_stdout` in their metadata, the sentences a page's cells compute (`say(...)`: the N_ templates of
# padpack/course/chapters/chNN.py). A template's {placeholders} match any text, and what they matched is translated in
# turn when it is itself a template's sentence (a verdict inside a sentence); the Chinese is wrapped to 79 display
# columns, as the package wraps it when it prints. The batching planner's printout (`print(plan)`, its N_
# templates in padpack/batching.py) is translated the same way, its table realigned as `BatchPlan.table` aligns it,
# and so are the padding doctor's findings and reports (`print(finding)`, `print(report)`: padpack/doctor.py),
# rendered as `Finding.__str__` renders them (tests/test_doctor_zh.py compares the two on the doctor's zoo).
TRANSLATED_STDOUT = "translated_stdout"


@functools.cache
def package_messages(folder: str) -> dict[str, str]:
    """The N_ messages of padpack/<folder>/*.py (or of padpack/<folder>.py) that the catalogue translates, with
    their translations."""
    from babel.messages.extract import extract_python

    table = package_i18n().catalogue(LANGUAGE)
    messages = {}
    module = PACKAGE / f"{folder}.py"
    for path in [module] if module.is_file() else sorted((PACKAGE / folder).glob("*.py")):
        with path.open("rb") as file:
            for _, _, message, _ in extract_python(file, {"N_": None}, [], {}):
                if message in table:
                    messages[message] = table[message]
    return messages


def message_templates(
    messages: dict[str, str], field: str = ".+?", start: str = "", end: str = ""
) -> list[tuple[re.Pattern, str, int, int]]:
    """English messages with their translations as (pattern, Chinese, placeholders, literal length), the most
    specific first: each placeholder matches `field`, the whole between `start` and `end`, one formatted as an
    integer ({number:d}) only digits, so that "batch {number:d}" is no template of "batch independence". A
    placeholder's format ({share:.3f}) matches the printed text, which goes into the Chinese as it is."""
    found = []
    for english, chinese in messages.items():
        parts = re.split(r"\{(\w+)(?:[:!][^{}]*)?\}", english)
        integers = set(re.findall(r"\{(\w+):d\}", english))
        chinese = re.sub(r"\{(\w+)[:!][^{}]*\}", r"{\1}", chinese)
        regex, names = "", set()
        for index, part in enumerate(parts):
            if index % 2 == 0:
                # a line break of the message: a space where the sentence's lines are joined to be matched
                regex += r"\s".join(re.escape(line) for line in part.split("\n"))
            elif part in names:
                regex += f"(?P={part})"
            else:
                value = r"\d+" if part in integers else field
                regex += f"(?P<{part}>{value})"
                names.add(part)
        if not re.search(r"[A-Za-z]", "".join(parts[::2])):
            continue  # no words of its own ("{strategy} ({efficiency:.3f})"): it would match any text of that shape
        literal = sum(len(part) for part in parts[::2])
        found.append((re.compile(start + regex + end, re.DOTALL), chinese, len(parts) // 2, literal))
    return sorted(found, key=lambda item: (-item[2], -item[3]))


@functools.cache
def package_templates(folder: str) -> list[tuple[re.Pattern, str, int, int]]:
    """The templates (see message_templates) of the N_ messages of padpack/<folder>."""
    return message_templates(package_messages(folder))


def translate_sentence(text: str, templates: list) -> str | None:
    """`text` (one sentence, unwrapped) in Chinese when a template matches it, else None."""
    for pattern, chinese, _, _ in templates:
        if match := pattern.fullmatch(text):
            values = {name: translate_value(value, templates) for name, value in match.groupdict().items()}
            return chinese.format(**values)
    return None


def translate_value(value: str, templates: list) -> str:
    """A placeholder's text in Chinese where it is itself a template's sentence, or a list of them joined by "; "
    (chapter 7's check_names), then joined by the catalogue's "; " as the package joins them; else as it is."""
    if (whole := translate_sentence(value, templates)) is not None:
        return whole
    parts = value.split("; ")
    chinese = [translate_sentence(part, templates) for part in parts]
    if len(parts) > 1 and all(chinese):
        return package_i18n().catalogue(LANGUAGE).get("; ", "; ").join(chinese)
    return "; ".join(zh or part for zh, part in zip(chinese, parts))


def translate_sentences(text: str, templates: list, label: str | None = None) -> str:
    """Printed text with each sentence that a template matches (over one or more wrapped lines, the fewest
    that match, starting on the latest line that does) in Chinese; with `label`, only the sentences that start
    with it ("Answer:"), the label translated too."""
    i18n = package_i18n()
    zh_label = i18n.catalogue(LANGUAGE).get(label, label) if label else None
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        found = shortest = None
        if lines[index].strip() and (label is None or lines[index].startswith(label + " ")):
            for end in range(index + 1, len(lines) + 1):
                joined = " ".join(lines[index:end])
                chinese = translate_sentence(joined[len(label) + 1 :] if label else joined, templates)
                if chinese is not None:
                    found = chinese, end
                    shortest = shortest or found
                    # a template that ends in a placeholder ("Recommended: {strategy}: {reason}") also matches the
                    # first lines of a wrapped sentence: look on while the line was wrapped (its next word did not
                    # fit in the width), up to the paragraph's end
                    sentence = joined[len(label) + 1 :] if label else joined
                    pattern = next(p for p, *_ in templates if p.fullmatch(sentence))
                    wrapped = (
                        end < len(lines)
                        and lines[end].strip()
                        and (i18n.display_width(lines[end - 1]) + 1 + i18n.display_width(lines[end].split()[0]) > WIDTH)
                    )
                    if not pattern.pattern.endswith(".+?)") or not wrapped:
                        break
                if found is not None and (end == len(lines) or not lines[end].strip()):
                    break
        if (
            found is not None
            and label is None
            and any(
                translate_sentence(" ".join(lines[start:end]), templates) is not None for start in range(index + 1, end)
            )
        ):
            # a sentence ends there but starts on a later line: a placeholder swallowed it; keep the first match
            found = shortest if shortest[1] < found[1] else None
        if found is None:
            out.append(lines[index])
            index += 1
            continue
        chinese, index = found
        if zh_label:
            chinese = zh_label + ("" if zh_label.endswith("：") else " ") + chinese
        out += i18n.wrap(chinese, WIDTH).split("\n")
    return "\n".join(out)


@functools.cache
def plan_table_header() -> tuple[str, ...]:
    """The English header of `BatchPlan.table` (HEADER in padpack/batching.py, read from its source)."""
    tree = ast.parse((PACKAGE / "batching.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "HEADER")
    return tuple(ast.literal_eval(call.args[0]) for call in node.value.elts)


def translate_plan_tables(text: str) -> str:
    """Printed text with each table of `BatchPlan.table` (its header line, then one row a strategy) in Chinese,
    aligned by display width as the package aligns it (`table_lines`)."""
    i18n = package_i18n()
    table = i18n.catalogue(LANGUAGE)
    header = plan_table_header()
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        if re.split(r"\s{2,}", lines[index].strip()) != list(header):
            out.append(lines[index])
            index += 1
            continue
        rows = [[table.get(word, word) for word in header]]
        index += 1
        while index < len(lines) and (
            row := re.fullmatch(r"(\D+?)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+([\d.]+)", lines[index])
        ):
            rows.append([table.get(row[1], row[1]), *row.groups()[1:]])
            index += 1
        out += i18n.table_lines(rows)
    return "\n".join(out)


def translate_tables(text: str) -> str:
    """Printed text with each table that `padpack.course.print_table` printed in Chinese: a line of two or more
    cells (two or more spaces apart), one of them a word of the package's catalogue (a heading marked with N_ in a
    chapter's module), then the lines with as many cells. Each cell the catalogue holds is translated, as
    print_table translates it, and the table realigned by display width (`table_lines`)."""
    i18n = package_i18n()
    table = i18n.catalogue(LANGUAGE)
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        header = re.split(r"\s{2,}", lines[index].strip())
        if len(header) < 2 or not any(cell in table for cell in header):
            out.append(lines[index])
            index += 1
            continue
        rows = [header]
        index += 1
        while index < len(lines) and len(row := re.split(r"\s{2,}", lines[index].strip())) == len(header):
            rows.append(row)
            index += 1
        out += i18n.table_lines([[table.get(cell, cell) for cell in row] for row in rows])
    return "\n".join(out)


@functools.cache
def doctor_check_names() -> tuple[str, ...]:
    """The English names of the doctor's checks (CHECK_NAMES in padpack/doctor.py, read from its source)."""
    tree = ast.parse((PACKAGE / "doctor.py").read_text(encoding="utf-8"))
    node = next(
        n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "CHECK_NAMES"
    )
    return tuple(ast.literal_eval(call.args[0]) for call in node.value.values)


def translate_run(text: str, templates: list) -> str | None:
    """`text`, one sentence or several in a row (a finding: what the doctor found, then what to change), each a
    template's, in Chinese as the doctor joins them (no space after a Chinese full stop); None if one is not."""
    whole = translate_sentence(text, templates)
    if whole is not None:
        return whole
    for end in (match.end() for match in re.finditer(r"\. ", text)):
        first = translate_sentence(text[: end - 1], templates)
        rest = first and translate_run(text[end:], templates)
        if rest:
            return f"{first}{'' if first.endswith('。') else ' '}{rest}"
    return None


def translate_findings(text: str, templates: list) -> str:
    """Printed text with each finding of the padding doctor (`print(finding)`, `print(report)`: "✓ name: sentence",
    its wrapped lines indented, then "See: address" on a failure) in Chinese, rendered as `Finding.__str__`
    renders it in zh_CN: the check's name and sentence from the catalogue, the address in the Chinese edition."""
    i18n = package_i18n()
    table = i18n.catalogue(LANGUAGE)
    names = "|".join(re.escape(name) for name in sorted(doctor_check_names(), key=len, reverse=True))
    start = re.compile(rf"([✓✗–]) ({names}): (.*)")
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        match = start.fullmatch(lines[index])
        end = index + 1
        while match and end < len(lines) and lines[end].startswith("  "):
            end += 1
        finding = match and re.fullmatch(
            r"(.*?)(?: See: (https://\S+))?", " ".join([match[3], *(line.strip() for line in lines[index + 1 : end])])
        )
        sentence = finding and translate_run(finding[1], templates)
        if sentence is None:
            out.append(lines[index])
            index += 1
            continue
        name = table["{check}:"].format(check=table[match[2]])
        chinese = f"{match[1]} {name}{'' if name.endswith('：') else ' '}{sentence}"
        if finding[2]:
            space = "" if i18n.display_width(chinese[-1]) == 2 else " "
            chinese += f"{space}{table['See:']}{finding[2].replace('/notebooks/', '/zh/notebooks/', 1)}"
        out += i18n.wrap(chinese, WIDTH, indent="  ").split("\n")
        index = end
    return "\n".join(out)


# The sentences a chapter's own code prints (`print(f"padded steps {padded}, real steps {real}")`) are translated in
# the code of the Chinese notebook, as a Chinese reader would write it: each string literal of a `print` call that
# holds words is a message of the page's catalogue (context "print"; its msgid is the literal as written between
# its quotes, an f-string's {fields} included, which the translation keeps as they are). The Chinese notebook's
# code prints the translation, and its stored output is the English output with each such print's line rebuilt
# from the translation and the values the English line shows (`make test-zh` runs the Chinese notebooks under
# nbval: what the Chinese code prints must equal it). The English notebook is not touched. So is the message of an
# error the chapter's own code raises (`raise ValueError(f"... {blank}")`, one literal), which `expect_error`
# prints as "ValueError: ..." (a chapter that copies torch's messages keeps them in names, not literals: deep
# dive 12).
PRINT_CONTEXT = "print"
# IPython's own lines (%pip, !ls) are no Python: they are read as an empty statement of the same indentation.
_IPYTHON_LINE = re.compile(r"^([ \t]*)[%!](?:.*\\\n)*.*$", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z]{2,}")


# The words of the sliders' frames: the hidden cells of a chapter build its frames' HTML, and its controls' labels,
# with `translate` and the N_ messages of padpack/course/chapters/chNN.py, and the notebook stores them in its
# widget state. The Chinese notebook stores what a Chinese run builds: wherever a message fills a whole text run
# of the English HTML (between tags, or an attribute's value) or a whole label, it is rebuilt in Chinese, its
# placeholders' text (numbers, code spans) kept, and translated in turn where it is itself a message. `make
# test-zh` proves the result: nbval's widget check compares it with the frames of a fresh Chinese run.
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# a placeholder's text inside HTML: text and inline markup, never a block's tag or an attribute's end
_INLINE_TAG = r"</?(?:code|b|i|span)\b[^<>]*>"
_FIELD = rf"(?:[^<>\"]|{_INLINE_TAG})+?"


@functools.cache
def widget_templates(module: str, whole: bool) -> list[tuple[re.Pattern, str, int, int]]:
    """The messages of a chapter's module (course/chapters/chNN) as patterns of HTML: matching a whole text
    (`whole`: a label, a placeholder's text), or else a whole text run, from a tag or an attribute's opening quote
    to a block's tag or the quote, or a whole attribute's value in single quotes (aria-label='...'). Only the
    chapter's own: its cells translate no other chapter's words."""
    messages = package_messages(module)
    if whole:
        return message_templates(messages, field=_FIELD)
    runs = message_templates(
        messages,
        field=_FIELD,
        start=r"(?:\A|(?<=[>\"]))",
        end=r"(?=<(?!/?(?:code|b|i|span)\b)|\"|\Z)",
    )
    return runs + message_templates(messages, field=_FIELD, start=r"(?<==')", end=r"(?=')")


@functools.cache
def list_separator(module: str) -> str | None:
    """The translation of the chapter's ", " message, where its cells join a list with it (None where none do)."""
    return package_messages(module).get(", ")


def translate_label(text: str, module: str) -> str:
    """A label, or a placeholder's text, in Chinese where it is a message (inside inline markup or not), or a list
    of messages and numbers that the cell joined by the chapter's ", " message (ch09's "A (5 tokens), B (3 tokens)"):
    each item translated, joined by its translation. The list is tried first: a message's placeholder would match
    the whole list ("{letter} ({length} tokens)" with letter "A (5 tokens), B")."""
    if (separator := list_separator(module)) and ", " in text:
        items = text.split(", ")
        chinese = [translate_label(item, module) for item in items]
        if all(zh != item or item.isdigit() for zh, item in zip(chinese, items)):
            return separator.join(chinese)
    for pattern, chinese, _, _ in widget_templates(module, whole=True):
        if match := pattern.fullmatch(text):
            values = {name: translate_label(value, module) for name, value in match.groupdict().items()}
            return chinese.format(**values)
    if inline := re.fullmatch(r"(<(code|b|i|span)\b[^<>]*>)(.*)(</\2>)", text, re.DOTALL):
        return inline[1] + translate_label(inline[3], module) + inline[4]
    return text


def translate_html(html: str, module: str) -> str:
    """A frame's HTML with every message that fills a text run rebuilt in Chinese."""

    def chinese(template: str, match: re.Match) -> str:
        return template.format(**{name: translate_label(value, module) for name, value in match.groupdict().items()})

    for pattern, template, _, _ in widget_templates(module, whole=False):
        html = pattern.sub(functools.partial(chinese, template), html)
    return html


def translate_widgets(widgets: dict, module: str) -> tuple[dict, dict[str, str]]:
    """A notebook's widget metadata with its frames and its controls' labels in Chinese (the messages of its
    chapter's module), and each label that changed (English -> Chinese), for the widgets' plain-text summaries in
    the outputs."""
    translated = copy.deepcopy(widgets)
    labels: dict[str, str] = {}
    for model in translated.get(WIDGET_STATE, {}).get("state", {}).values():
        state = model["state"]
        if state.get("_model_name") == "HTMLModel":
            state["value"] = translate_html(state["value"], module)
        for key in ("description", "_options_labels"):
            if key in state:
                english = [state[key]] if isinstance(state[key], str) else state[key]
                chinese = [translate_label(label, module) for label in english]
                labels.update((en, zh) for en, zh in zip(english, chinese, strict=True) if en != zh)
                state[key] = chinese[0] if isinstance(state[key], str) else chinese
    return translated, labels


def translate_widget_summary(text: str, labels: dict[str, str]) -> str:
    """A widget output's plain-text summary (its repr, cut at 110 characters) with the labels it quotes in Chinese.
    Where the Chinese labels are shorter, a Chinese run's summary would show more of the repr than the English one
    holds: nbval's sanitizer (tests/nbval_sanitize.cfg) leaves summaries out of the comparison, and the widget check
    compares the whole state instead."""
    for english, chinese in sorted(labels.items(), key=lambda item: -len(item[0])):
        text = text.replace(repr(english), repr(chinese))
    # a label that the cut splits: the Chinese label whole (the Chinese is shorter), cut where the English was
    if cut := re.search(r"'([^']*)…$", text):
        whole = next((chinese for english, chinese in labels.items() if english.startswith(cut[1])), None)
        if whole is not None and cut[1]:
            text = text[: cut.start()] + repr(whole) + "…"
    return text


def _python(source: str) -> ast.Module:
    """A code cell's syntax tree; an IPython line (with its continuation lines) is read as `pass` and blank lines,
    so that every other line keeps its number."""
    return ast.parse(_IPYTHON_LINE.sub(lambda match: match[1] + "pass" + "\n" * match[0].count("\n"), source))


def fstring_parts(body: str) -> list[tuple[str, str]]:
    """An f-string's body as written, split into ("text", source) and ("field", source inside the braces)."""
    parts: list[tuple[str, str]] = []
    text, index = "", 0
    while index < len(body):
        char = body[index]
        if body.startswith(("{{", "}}"), index):
            text += body[index : index + 2]
            index += 2
        elif char == "{":
            depth, quote, end = 0, None, index + 1
            while end < len(body):
                here = body[end]
                if quote:
                    if here == "\\":
                        end += 1
                    elif here == quote:
                        quote = None
                elif here in "'\"":
                    quote = here
                elif here in "([{":
                    depth += 1
                elif here in ")]}":
                    if depth == 0:
                        break
                    depth -= 1
                end += 1
            if text:
                parts.append(("text", text))
            parts.append(("field", body[index + 1 : end]))
            text, index = "", end + 1
        else:
            text += char
            index += 1
    if text:
        parts.append(("text", text))
    return parts


def _field_expression(field: str) -> str:
    """A field's expression without its conversion and format ("x:.2f" -> "x", "y!r" -> "y")."""
    depth, quote = 0, None
    for index, char in enumerate(field):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and (char == ":" or (char == "!" and field[index + 1 : index + 2] != "=")):
            return field[:index].strip()
    return field.strip()


@dataclass(frozen=True)
class Literal:
    """A string literal of a print call, as written in a code cell."""

    prefix: str  # "f", "rf", "" ...
    quote: str  # ' " ''' or three double quotes
    body: str  # between the quotes: the message
    start: tuple[int, int]  # (line index, character column) of the prefix
    end: tuple[int, int]  # (line index, character column) after the closing quote

    @property
    def is_fstring(self) -> bool:
        return "f" in self.prefix.lower()

    def parts(self, body: str | None = None) -> list[tuple[str, str]]:
        """("text", what it prints) and ("field", the field as written), for this literal or a translation of it."""
        body = self.body if body is None else body
        raw = [("text", body)] if not self.is_fstring else fstring_parts(body)
        plain = self.prefix.lower().replace("f", "")
        found = []
        for kind, source in raw:
            if kind == "text":
                if self.is_fstring:
                    source = source.replace("{{", "{").replace("}}", "}")
                source = ast.literal_eval(f"{plain}{self.quote}{source}{self.quote}")
            found.append((kind, source))
        return found

    def words(self) -> bool:
        return any(kind == "text" and _WORD.search(text) for kind, text in self.parts())


def _literal(lines: list[str], node: ast.expr) -> Literal | None:
    """The literal that `node` (a str constant or an f-string) is, as written; None for an implicit
    concatenation ("a" "b") or a node that is no single literal."""

    def column(line: int, offset: int) -> int:  # ast's columns count UTF-8 bytes
        return len(lines[line].encode()[:offset].decode())

    start = (node.lineno - 1, column(node.lineno - 1, node.col_offset))
    end = (node.end_lineno - 1, column(node.end_lineno - 1, node.end_col_offset))
    if start[0] == end[0]:
        segment = lines[start[0]][start[1] : end[1]]
    else:
        segment = "\n".join([lines[start[0]][start[1] :], *lines[start[0] + 1 : end[0]], lines[end[0]][: end[1]]])
    match = re.fullmatch(r"([A-Za-z]*)('''|\"\"\"|'|\")(.*)\2", segment, re.DOTALL)
    if not match:
        return None
    prefix, quote, body = match.groups()
    unescaped_quote = rf"(?<!\\)(?:\\\\)*{quote}" if len(quote) == 1 else quote
    if re.search(unescaped_quote, body):
        return None  # "a" "b": two literals
    return Literal(prefix, quote, body, start, end)


@dataclass(frozen=True)
class PrintCall:
    """A print call with at least one literal of words: its arguments as literals or expressions; or an error
    raised with one literal of words, as `expect_error` prints it: after its type's name (`prefix`)."""

    arguments: tuple  # Literal, or the source of an expression (str)
    sep: str
    prefix: str = ""

    def literals(self) -> list[Literal]:
        return [argument for argument in self.arguments if isinstance(argument, Literal)]


def _raised_message(lines: list[str], node: ast.AST) -> PrintCall | None:
    """`raise SomeError(<one literal of words>)` as what expect_error prints of it; None for any other node."""
    call = node.exc if isinstance(node, ast.Raise) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and len(call.args) == 1):
        return None
    arg = call.args[0]
    if call.keywords or not (
        isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    ):
        return None
    literal = _literal(lines, arg)
    if literal is None or not literal.words():
        return None
    return PrintCall((literal,), " ", prefix=f"{call.func.id}: ")


def print_calls(source: str) -> list[PrintCall]:
    """The print calls of a code cell whose literals hold words, with default `end` and `file`, and the errors it
    raises with a literal of words, in order."""
    tree = _python(source)
    lines = source.split("\n")
    found = []
    for node in ast.walk(tree):
        if (raised := _raised_message(lines, node)) is not None:
            found.append(raised)
            continue
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"):
            continue
        keywords = {keyword.arg: keyword.value for keyword in node.keywords}
        if set(keywords) - {"sep"} or any(isinstance(arg, ast.Starred) for arg in node.args):
            continue
        sep = keywords.get("sep")
        if sep is not None and not (isinstance(sep, ast.Constant) and isinstance(sep.value, str)):
            continue
        arguments = []
        for arg in node.args:
            literal = None
            if isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                literal = _literal(lines, arg)
            arguments.append(literal if literal is not None else ast.unparse(arg))
        call = PrintCall(tuple(arguments), " " if sep is None else sep.value)
        if any(literal.words() for literal in call.literals()):
            found.append(call)
    return sorted(found, key=lambda call: call.literals()[0].start)


def printed_messages(notebook: Path) -> list[str]:
    """The messages of the print calls of a notebook's code cells, in order, once each."""
    if not notebook.exists():
        return []
    messages: list[str] = []
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] == "code":
            for call in print_calls("".join(cell["source"])):
                for literal in call.literals():
                    if literal.words() and literal.body not in messages:
                        messages.append(literal.body)
    return messages


def translate_code(source: str, table: dict[str, str]) -> str:
    """A code cell with the literals of its print calls translated (those the table holds)."""
    lines = source.split("\n")
    literals = [literal for call in print_calls(source) for literal in call.literals() if literal.body in table]
    for literal in sorted(literals, key=lambda literal: literal.start, reverse=True):
        (first, column), (last, end) = literal.start, literal.end
        written = f"{literal.prefix}{literal.quote}{table[literal.body]}{literal.quote}"
        replaced = (lines[first][:column] + written + lines[last][end:]).split("\n")
        lines[first : last + 1] = replaced
    return "\n".join(lines)


def print_template(call: PrintCall, table: dict[str, str]) -> tuple[re.Pattern, Callable[[re.Match], str]] | None:
    """A pattern for what `call` prints (one or more lines) in English, and a function from its match to what the
    translated call prints; None if no literal of it is translated."""
    if not any(literal.body in table for literal in call.literals()):
        return None
    pieces, fields = [], []
    for argument in call.arguments:
        piece = ""
        for kind, text in argument.parts() if isinstance(argument, Literal) else [("field", argument)]:
            if kind == "text":
                piece += re.escape(text)
            else:
                # a value may span lines (a tensor), but not the one the print starts with: a pattern that starts
                # with a value would otherwise take in the lines printed before it
                any_text = "[^\n]" if not pieces and not piece else "."
                piece += f"(?P<f{len(fields)}>{any_text}*?)"
                fields.append(_field_expression(text) if isinstance(argument, Literal) else text)
        pieces.append(piece)
    regex = re.escape(call.prefix) + re.escape(call.sep).join(pieces)

    def chinese(match: re.Match) -> str:
        values: dict[str, list[str]] = {}
        for index, field in enumerate(fields):
            values.setdefault(field, []).append(match[f"f{index}"])
        used: dict[str, int] = {}
        out = []
        for argument in call.arguments:
            if not isinstance(argument, Literal):
                out.append(take(values, used, argument))
                continue
            text = ""
            for kind, part in argument.parts(table.get(argument.body)):
                text += part if kind == "text" else take(values, used, _field_expression(part))
            out.append(text)
        return call.prefix + call.sep.join(out)

    return re.compile(regex, re.DOTALL), chinese


def take(values: dict[str, list[str]], used: dict[str, int], field: str) -> str:
    """The value the English line showed for `field`: its next occurrence, or its last one again."""
    shown = values[field]
    index = min(used.get(field, 0), len(shown) - 1)
    used[field] = used.get(field, 0) + 1
    return shown[index]


def translate_printed(text: str, templates: list) -> str:
    """Printed text with each run of lines that a print call of the page printed rebuilt in Chinese."""
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        for end in range(index + 1, len(lines) + 1):
            joined = "\n".join(lines[index:end])
            found = next(((p, c) for p, c in templates if p.fullmatch(joined)), None)
            if found is not None:
                out += found[1](found[0].fullmatch(joined)).split("\n")
                index = end
                break
        else:
            out.append(lines[index])
            index += 1
    return "\n".join(out)


def notebook_print_templates(notebook: dict, table: dict[str, str]) -> list:
    """The templates of every print call of a notebook whose literals the table translates, most literal first."""
    calls = [
        call
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
        for call in print_calls("".join(cell["source"]))
    ]
    found = [(call, template) for call in calls if (template := print_template(call, table)) is not None]
    found.sort(key=lambda item: -sum(len(t) for a in item[0].literals() for k, t in a.parts() if k == "text"))
    return [template for _, template in found]


def _source_lines(text: str) -> list[str]:
    """Notebook JSON keeps a cell's source as lines that end in newline, the last one without."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def translate_notebook(notebook: dict, table: dict[str, str], chapter: str) -> dict:
    """The Chinese notebook of an English one: `table` holds the translations of its page's catalogue, `chapter`
    is its number ("03"), whose module's messages its widgets use."""
    translated = copy.deepcopy(notebook)
    setup = "".join(translated["cells"][1]["source"]) if len(translated["cells"]) > 1 else ""
    if ENGLISH_CHECKS.search(setup):
        translated["cells"][1]["source"] = _source_lines(ENGLISH_CHECKS.sub(CHINESE_CHECKS, setup, count=1))
    printed = notebook_print_templates(notebook, table)
    labels: dict[str, str] = {}
    module = f"course/chapters/ch{chapter}"
    if "widgets" in translated["metadata"] and (PACKAGE / f"{module}.py").is_file():
        translated["metadata"]["widgets"], labels = translate_widgets(translated["metadata"]["widgets"], module)
    for cell in translated["cells"]:
        if cell["cell_type"] == "code":
            source = translate_colab_title(translate_code("".join(cell["source"]), table))
            try:
                _python(source)
            except SyntaxError as error:
                raise ValueError(f"a translated print literal breaks the code ({error}):\n{source}") from None
            cell["source"] = _source_lines(source)
            for output in cell.get("outputs", []):
                if WIDGET_VIEW in output.get("data", {}):
                    summary = "".join(output["data"]["text/plain"])
                    output["data"]["text/plain"] = _source_lines(translate_widget_summary(summary, labels))
                if output.get("output_type") == "stream" and output.get("name") == "stdout":
                    text = translate_printed("".join(output["text"]), printed)
                    if "print_table(" in source:
                        text = translate_tables(text)
                    output["text"] = _source_lines(text)
        if cell["metadata"].get("exercise", {}).get("part") in ("check", "solution"):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "stream":
                    text = translate_sentences(
                        "".join(output["text"]), package_templates("course/exercises"), check_messages()["answer"]
                    )
                    output["text"] = _source_lines(translate_check_output(text))
        if cell["metadata"].get(TRANSLATED_STDOUT):
            templates = package_templates("course/chapters") + package_templates("batching")
            doctor = package_templates("doctor")
            for output in cell.get("outputs", []):
                if output.get("output_type") == "stream":
                    text = translate_findings(translate_plan_tables("".join(output["text"])), doctor)
                    text = translate_sentences(text, templates + doctor)
                    output["text"] = _source_lines(text)
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            translate = functools.partial(translate_message, table)
            cell["source"] = _source_lines(translate_markdown(source, translate)[0])
    return translated


def write_translated_notebooks(notebooks: list[Path] | None = None, output: Path = ZH_NOTEBOOKS) -> list[Path]:
    output.mkdir(parents=True, exist_ok=True)
    if notebooks is None:  # all of them: a Chinese notebook whose English one was renamed or removed goes too
        english_names = {path.name for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
        for stale in output.glob("*.ipynb"):
            if stale.name not in english_names:
                stale.unlink()
    written = []
    for path in notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        english = json.loads(path.read_text())
        chinese = translate_notebook(english, translations(f"notebooks/{path.stem}"), path.name[:2])
        target = output / path.name
        # The same JSON layout as the English notebooks (nbformat's: indent 1, non-ASCII kept), so diffs stay small.
        target.write_text(json.dumps(chinese, indent=1, ensure_ascii=False) + "\n")
        written.append(target)
    return written
