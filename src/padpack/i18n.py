"""The language the package speaks, its gettext catalogue, and line wrapping by display width.

Messages are written in English in the code, marked with `N_` where they are defined, and translated when they
are printed: `gettext` looks them up in the .po files of `locale/<language>/LC_MESSAGES/`, the catalogue that
`make translations` updates and `make check-translations` lints with the book's glossary. A chapter chooses its
language with one line of its setup cell, `use_language("zh_CN")` in the Chinese edition.

>>> use_language("zh_CN"); gettext("Hint:")
'提示：'
>>> use_language("en"); gettext("Hint:")
'Hint:'
>>> wrap("填充" * 50, width=20).splitlines()[0]
'填充填充填充填充填充'
"""

from __future__ import annotations

import ast
import functools
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

LOCALE = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "zh_CN")
_current = ["en"]


def N_(message: str) -> str:
    """Mark `message` for the catalogue; it is translated when it is printed."""
    return message


def language_code(name: str) -> str:
    """The code of a language as use_language and --language take it: "zh" is "zh_CN"; any other name is itself."""
    return "zh_CN" if name == "zh" else name


def use_language(language: str) -> None:
    """Print every later check, hint and message in `language`: `"en"` or `"zh_CN"` (`"zh"` is read as `"zh_CN"`).

    >>> use_language("zh")
    >>> language(), gettext("pad values")
    ('zh_CN', '填充位的值')
    >>> use_language("en")
    """
    language = language_code(language)
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
    _current[0] = language


def language() -> str:
    """The language chosen by use_language: "en" or "zh_CN"."""
    return _current[0]


def edition_path() -> str:
    """The site's folder for the current language: "" for English, "zh/" for Chinese."""
    return "" if language() == "en" else "zh/"


def _unquote(line: str) -> str:
    return ast.literal_eval(line)


@functools.cache
def catalogue(language: str) -> dict[str, str]:
    """msgid -> msgstr of the language's .po files (padpack.po for the checks' own words, chNN.po for each
    chapter's exercises), without untranslated and fuzzy entries."""
    table: dict[str, str] = {}
    for path in sorted((LOCALE / language / "LC_MESSAGES").glob("*.po")):
        table.update(_read_po(path))
    return table


def _read_po(path: Path) -> dict[str, str]:
    table: dict[str, str] = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):  # entries are separated by blank lines
        fields: dict[str, str] = {}
        field = None
        fuzzy = False
        for line in block.strip().splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            elif line.startswith(("msgid ", "msgstr ", "msgctxt ")):
                field, _, rest = line.partition(" ")
                fields[field] = _unquote(rest)
            elif line.startswith('"') and field:
                fields[field] += _unquote(line)
        if fields.get("msgid") and fields.get("msgstr") and not fuzzy:
            table[fields["msgid"]] = fields["msgstr"]
    return table


def gettext(message: str) -> str:
    """`message` in the current language (itself in English, or when the catalogue lacks it)."""
    if language() == "en":
        return message
    return catalogue(language()).get(message, message)


def translate(message: str, /, **values: object) -> str:
    """`message` (English, marked with N_ where it is defined) in the current language, its {placeholders}
    filled with `values`: the text of a label or a widget's frame, where `say` would print it.

    >>> use_language("zh_CN"); translate(N_("pad"))
    '填充位'
    >>> use_language("en")
    """
    return gettext(message).format(**values)


def say(message: str, /, **values: object) -> None:
    """Print a sentence that a cell computes for the reader: `message` (English, marked with N_ where it is
    defined) in the current language, its {placeholders} filled with `values`, wrapped to 79 display columns.

    >>> use_language("en"); say(N_("{count} more cases"), count=3)
    3 more cases
    """
    print(wrap(gettext(message).format(**values), 79))


def display_width(text: str) -> int:
    """Columns that `text` takes on a terminal or a code block: East Asian wide characters count two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """Text cells in columns two spaces apart, aligned by display width: the first column left-aligned, the others
    right-aligned: how `padpack.course.print_table` prints a table (scripts/i18n_notebooks.py realigns the Chinese
    notebooks' tables with it).

    >>> print("\\n".join(table_lines([["模型", "随机种子"], ["packed", "0"]])))
    模型    随机种子
    packed         0"""
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0] + " " * (widths[0] - display_width(row[0]))]
        cells += [" " * (width - display_width(x)) + x for x, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells))
    return lines


_NO_LINE_START = set("，。、；：？！）》」』】,.;:?!)]}%")
_NO_LINE_END = set("（《「『【")


# An operator between single spaces, as in `t >= T - length` or `a T x B mask`: a line breaks neither before
# nor after it, so that a short expression stays on one line.
_OPERATOR = re.compile(r"[-+*/%<>=!]=?|//|\*\*|x")


def _tokens(paragraph: str) -> list[str]:
    """Words of Latin text, runs of spaces, and single wide characters (a line may break after any of them); a
    lone operator (`_OPERATOR`) and the words on either side of it make one token."""
    tokens: list[str] = []
    for char in paragraph:
        wide = unicodedata.east_asian_width(char) in "WF"
        operator = char == "%" and tokens and tokens[-1].isspace()  # "i % n", not "50%"
        if (char in _NO_LINE_START and tokens and not operator) or (tokens and tokens[-1][-1] in _NO_LINE_END):
            tokens[-1] += char  # punctuation stays with what it follows, an opening bracket with what follows it
        elif wide or not tokens or char.isspace() != tokens[-1][-1:].isspace() or display_width(tokens[-1][-1:]) == 2:
            tokens.append(char)
        else:
            tokens[-1] += char
    glued: list[str] = []
    index = 0
    while index < len(tokens):
        around = glued[-2:] + tokens[index : index + 3]  # word, " ", operator, " ", word
        words = len(around) == 5 and not (around[0].isspace() or around[4].isspace())
        if words and around[1] == around[3] == " " and _OPERATOR.fullmatch(around[2]):
            glued[-2:] = ["".join(around)]
            index += 3
            continue
        glued.append(tokens[index])
        index += 1
    return _bracketed(glued)


_SHORT_BRACKETS = 34  # display columns: "steps[:, None] < lengths[None, :]" moves down whole, a long call does not
# what may follow a closing bracket in the same token, and is not part of the code: "(B, 1, 1, S)。"
_AFTER_CODE = "".join(_NO_LINE_START - set(")]}"))


def _bracketed(tokens: list[str]) -> list[str]:
    """`tokens` with a short span of code in ASCII brackets made one token ("(B, 1, 1, S)", "lengths[None, :]"), so
    that a line does not break inside a shape or an index; code, as each space inside it follows a comma or an
    operator's expression (a remark in brackets, "(batch size × longest length)", wraps as prose). Punctuation
    after the closing bracket ("S)。") stays with it but is no part of the code.

    >>> print(wrap("SDPA 需要 (B, 1, 1, S)。", width=14))
    SDPA 需要
    (B, 1, 1, S)。
    """
    merged: list[str] = []
    index = 0
    while index < len(tokens):
        span, end, depth = tokens[index], index, _depth(tokens[index])
        while depth > 0 and end + 1 < len(tokens) and display_width(span) <= _SHORT_BRACKETS:
            end += 1
            span += tokens[end]
            depth += _depth(tokens[end])
        code = all(token.endswith(",") for token in tokens[index:end] if not token.isspace())
        bare = span.rstrip(_AFTER_CODE)
        if end > index and depth <= 0 and code and display_width(bare) <= _SHORT_BRACKETS and not _is_wide_any(bare):
            merged.append(span)
            index = end + 1
        else:
            merged.append(tokens[index])
            index += 1
    return merged


def _depth(token: str) -> int:
    return token.count("(") + token.count("[") - token.count(")") - token.count("]")


def _is_wide_any(text: str) -> bool:
    return display_width(text) != len(text)


def wrap(text: str, width: int = 79, indent: str = "") -> str:
    """Wrap `text` to `width` display columns, keeping its line breaks; later lines start with `indent`.

    Unlike textwrap, which counts characters, a Chinese character counts two columns, and a line may break
    between two Chinese characters but not before closing punctuation; nor is a line of one or two Chinese
    characters (with their punctuation) left under a full one, at a paragraph's end or before a word too long to
    join it ("…参⏎见：⏎https://…"): the character, word or short code before them goes down too.

    >>> print(wrap("扩展到多个进程。", width=14))
    扩展到多
    个进程。
    """
    lines: list[str] = []
    for paragraph in text.expandtabs().split("\n"):  # a tab counts as the spaces it shows, as in textwrap
        broken: list[list[str]] = []  # the paragraph's lines, as tokens
        line: list[str] = []
        for token in _tokens(paragraph):
            if "".join(line).strip() and display_width("".join(line) + token.rstrip()) > width:
                broken.append(line)
                line = [indent + token.lstrip()]
            else:
                line.append(token)
        broken.append(line)
        for index in range(1, len(broken)):
            _take_down_to_widow(broken[index - 1], broken[index], indent, width)
        lines += ["".join(tokens).rstrip() for tokens in broken]
    return "\n".join(lines)


def _take_down_to_widow(before: list[str], after: list[str], indent: str, width: int) -> None:
    """While the line `after` is a widow, move the last token of the line `before` down to it, with the spaces that
    follow it: a Chinese character ("…进⏎程。" becomes "…⏎进程。"), or a word or short code ("…(0, 0, 3)⏎等。"
    becomes "…⏎(0, 0, 3) 等。"); unless it is the first token of `before`, or the line would grow wider than `width`."""
    while _is_widow(after, indent):
        last = len(before) - 1
        while last > 0 and before[last].isspace():
            last -= 1
        moved = before[last:]
        line = indent + "".join(moved) + "".join(after).removeprefix(indent)
        if last == 0 or display_width(line.rstrip()) > width:
            return
        del before[last:]
        after[:1] = [indent + moved[0], *moved[1:], after[0].removeprefix(indent)]


def _is_wide(token: str) -> bool:
    return display_width(token) == 2 * len(token)


def _is_widow(tokens: list[str], indent: str) -> bool:
    """A last line of one or two Chinese characters and their punctuation ("程。", "回合。"), left alone under a
    full line: it reads as a typo."""
    text = "".join(tokens).removeprefix(indent)
    return _is_wide(text) and len([char for char in text if char not in _NO_LINE_START]) <= 2
