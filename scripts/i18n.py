"""The Chinese edition's catalogues: extract, merge, check and lint them, and write the translated notebooks.

English is the only source. Sphinx's gettext builder extracts every message of the book (one catalogue per
page and chapter: `gettext_compact: false` in _config.yml); the translations live in
locales/zh_CN/LC_MESSAGES/<page>.po (committed; Sphinx compiles the ignored .mo files when it builds).

    python scripts/i18n.py update      extract the English messages and merge them into the .po files
    python scripts/i18n.py check       fail when a .po is stale, untranslated or has a lint finding, or a
                                       Chinese notebook is out of date; print the translated share per page
    python scripts/i18n.py lint [PO..] only the lint (fast: no extraction)
    python scripts/i18n.py notebooks   write i18n/zh_CN/notebooks/*.ipynb for Colab

`make translations` runs update, then notebooks; the test suite runs check and compares the notebooks.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_python
from babel.messages.pofile import read_po, write_po

from build_book import movable_config, write_config
from i18n_notebooks import (
    CATALOGUES,
    LANGUAGE,
    PARSER,
    PRINT_CONTEXT,
    REPO,
    ZH_NOTEBOOKS,
    fstring_parts,
    mechanical_translation,
    printed_messages,
    write_translated_notebooks,
)

PO_WIDTH = 100
# A fixed date: regenerating the catalogues must not change files whose messages did not change.
FIXED_DATE = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
# Generated from the committed benchmark results: its tables change with every run of the benchmarks and stay
# English (their headings and the prose around them are translated).
GENERATED_TABLES_PAGE = "book/performance"


# ----------------------------------------------------------------------------------------------- extraction
def extract(source: Path = REPO, output: Path | None = None) -> Path:
    """Write one .pot per page under `output` (default: <source>/_build/gettext); return that folder."""
    build = source / "_build"
    build.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=build) as scratch:
        scratch = Path(scratch)
        command = [
            str(Path(sys.executable).parent / "jupyter-book"),
            "build",
            str(source),
            "--builder",
            "custom",
            "--custom-builder",
            "gettext",
            "--all",
            "--path-output",
            str(scratch),
            "--config",
            str(write_config(movable_config(source / "_config.yml", source), scratch / "gettext-config.yml")),
        ]
        result = subprocess.run(command, cwd=source, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            raise SystemExit("error: the gettext build failed")
        output = output or build / "gettext"
        if output.exists():
            for old in output.rglob("*.pot"):
                old.unlink()
        for pot in (scratch / "_build" / "gettext").rglob("*.pot"):
            target = output / pot.relative_to(scratch / "_build" / "gettext")
            target.parent.mkdir(parents=True, exist_ok=True)
            catalog = _read(pot)
            for message in list(catalog):
                if message.id and mechanical_translation(message.id) is not None:
                    catalog.delete(message.id, message.context)
            page = target.relative_to(output).with_suffix("").as_posix()
            for message in figure_messages(source / f"{page}.ipynb"):
                catalog.add(message)
            for message in printed_messages(source / f"{page}.ipynb"):
                catalog.add(message, context=PRINT_CONTEXT)
            _write(target, catalog)
    return output


def figure_messages(notebook: Path) -> list[str]:
    """Figure captions and alt texts from the cells' `mystnb` metadata (myst-nb renders them; Sphinx's
    gettext builder does not see them). The zh build translates them with scripts/i18n_sphinx.py."""
    if not notebook.exists():
        return []
    messages = []
    for cell in json.loads(notebook.read_text())["cells"]:
        mystnb = cell.get("metadata", {}).get("mystnb", {})
        for value in (mystnb.get("figure", {}).get("caption"), mystnb.get("image", {}).get("alt")):
            if value:
                messages.append(" ".join(value.split()))
    return messages


def _read(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, charset="utf-8")


def _write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog, width=PO_WIDTH, omit_header=False, ignore_obsolete=True, sort_output=False)


def pages(pot_dir: Path) -> list[str]:
    return sorted(pot.relative_to(pot_dir).with_suffix("").as_posix() for pot in pot_dir.rglob("*.pot"))


def colab_prefix(source: Path = REPO) -> str:
    """Colab's address of the repository's files, from _config.yml (where the repository and branch live)."""
    config = yaml.safe_load((source / "_config.yml").read_text())
    repository = config["repository"]["url"].removeprefix("https://github.com/").strip("/")
    colab = config["launch_buttons"]["colab_url"].rstrip("/")
    return f"{colab}/github/{repository}/blob/{config['repository']['branch']}/"


def colab_badge_translation(page: str, msgid: str) -> str | None:
    """The Colab badge of a chapter opens the Chinese notebook in the Chinese edition."""
    english = f"{colab_prefix()}{page}.ipynb"
    if english in msgid and msgid.lstrip().startswith("<a "):
        return msgid.replace(english, f"{colab_prefix()}i18n/{LANGUAGE}/{page}.ipynb")
    return None


def translation_memory() -> dict[tuple[str | None, str], str]:
    """Every finished translation of every catalogue, by context and English message: a paragraph that moved
    to another page (or a page that was renamed) keeps its translation, and so does a printed line (a line
    printed is not translated as a word of prose: "lengths" names a variable there)."""
    memory = {}
    for po_path in sorted(CATALOGUES.rglob("*.po")):
        for message in _read(po_path):
            if message.id and message.string and not message.fuzzy:
                memory.setdefault((message.context, message.id), message.string)
    return memory


def update(pot_dir: Path) -> None:
    """Merge the extracted messages into the .po files: new messages empty, changed ones fuzzy (with the old
    translation as a starting point), removed ones dropped; a message translated in any catalogue (it moved
    there from another page) takes that translation. Fill what is mechanical (Colab badges). Catalogues of
    pages that no longer exist are removed."""
    memory = translation_memory()
    for po_path in CATALOGUES.rglob("*.po"):
        if po_path.relative_to(CATALOGUES).with_suffix("").as_posix() not in pages(pot_dir):
            po_path.unlink()
    for page in pages(pot_dir):
        template = _read(pot_dir / f"{page}.pot")
        po_path = CATALOGUES / f"{page}.po"
        if po_path.exists():
            catalog = _read(po_path)
            catalog.update(template, update_header_comment=False, keep_user_comments=True)
        else:
            catalog = Catalog(locale=LANGUAGE, project="Pad, Pack, Train", fuzzy=False)
            for message in template:
                if message.id:
                    catalog.add(message.id, context=message.context)
        catalog.header_comment = (
            f"# Chinese (zh_CN) translation of the page {page} of Pad, Pack, Train.\n"
            "# Generated by `make translations` from the English source; edit only the msgstr lines."
        )
        catalog.creation_date = catalog.revision_date = FIXED_DATE
        cells = performance_table_cells() if page == GENERATED_TABLES_PAGE else set()
        for message in catalog:
            if not message.id:
                continue
            if message.fuzzy and message.id in cells:  # a generated cell that changed: English until translated
                message.string = ""
                message.flags.discard("fuzzy")
            if message.fuzzy and message.context == PRINT_CONTEXT:  # a printed line is not a paragraph's neighbour
                message.string = ""
                message.flags.discard("fuzzy")
            badge = colab_badge_translation(page, message.id)
            if badge is not None:
                message.string = badge
                message.flags.discard("fuzzy")
            elif (not message.string or message.fuzzy) and (message.context, message.id) in memory:
                message.string = memory[(message.context, message.id)]
                message.flags.discard("fuzzy")
        _write(po_path, catalog)


# ----------------------------------------------------------------------------------------------- the package
# The book's package (src/padpack) prints its exercise checks in the notebook's language. Its English messages are
# the string literals marked with N_(...) in its code; each chapter's exercise module (padpack/course/exercises/chNN.py)
# and its page module (padpack/course/chapters/chNN.py: the sentences its cells compute for the reader) share the
# catalogue chNN.po, and everything else (the checks' own words) goes to padpack.po.
PACKAGE = REPO / "src" / "padpack"
PACKAGE_CATALOGUES = PACKAGE / "locale" / LANGUAGE / "LC_MESSAGES"
_PLACEHOLDER = re.compile(r"\{\w*\}")
_BACKTICKS = re.compile(r"`[^`]+`")


def package_catalogue_of(path: Path) -> str:
    """The catalogue (without .po) that holds the messages of a module of the package."""
    relative = path.relative_to(PACKAGE)
    chapter = relative.parent.name in ("exercises", "chapters") and relative.stem != "__init__"
    return relative.stem if chapter else "padpack"


def package_messages() -> dict[str, list[str]]:
    """catalogue name -> the English messages its modules mark with N_, in order of appearance."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        with path.open("rb") as file:
            for _, _, message, _ in extract_python(file, {"N_": None}, [], {}):
                messages = found.setdefault(package_catalogue_of(path), [])
                if message not in messages:
                    messages.append(message)
    return found


def update_package() -> None:
    """Merge the package's messages into its catalogues: new ones empty, gone ones dropped."""
    memory = {
        message.id: message.string
        for po_path in sorted(PACKAGE_CATALOGUES.glob("*.po"))
        for message in _read(po_path)
        if message.id and message.string and not message.fuzzy
    }
    wanted = package_messages()
    for po_path in PACKAGE_CATALOGUES.glob("*.po"):
        if po_path.stem not in wanted:
            po_path.unlink()
    for name, messages in wanted.items():
        catalog = Catalog(locale=LANGUAGE, project="padpack", fuzzy=False)
        catalog.header_comment = (
            f"# Chinese (zh_CN) translation of the messages of padpack's {name}.\n"
            "# Generated by `make translations` from the English source; edit only the msgstr lines."
        )
        catalog.creation_date = catalog.revision_date = FIXED_DATE
        for message in messages:
            catalog.add(message, memory.get(message, ""))
        _write(PACKAGE_CATALOGUES / f"{name}.po", catalog)


def package_problems() -> list[str]:
    """Stale or untranslated package catalogues, and translations that lose a placeholder or a code span."""
    problems = []
    wanted = package_messages()
    for name, messages in wanted.items():
        po_path = PACKAGE_CATALOGUES / f"{name}.po"
        if not po_path.exists():
            problems.append(f"padpack: no catalogue {po_path.relative_to(REPO)}")
            continue
        catalog = {message.id: message for message in _read(po_path) if message.id}
        if set(catalog) != set(messages):
            new, gone = set(messages) - set(catalog), set(catalog) - set(messages)
            problems.append(
                f"{po_path.relative_to(REPO)}: {len(new)} messages not merged, {len(gone)} gone; "
                f"first new: {sorted(new)[:1]}"
            )
        for msgid, message in catalog.items():
            if not message.string or message.fuzzy:
                problems.append(f"{po_path.relative_to(REPO)}: untranslated: {msgid[:100]!r}")
            else:
                problems += [f"{po_path.relative_to(REPO)}: {msgid[:60]!r}: {f}" for f in lint_package(msgid, message)]
    for po_path in sorted(PACKAGE_CATALOGUES.glob("*.po")):
        if po_path.stem not in wanted:
            problems.append(f"{po_path.relative_to(REPO)}: a catalogue no module of the package uses")
    return problems


def lint_package(msgid: str, message) -> list[str]:
    """What a check message's translation must keep: its {placeholders}, its `code`, and its line breaks."""
    msgstr = message.string
    findings = []
    if sorted(_PLACEHOLDER.findall(msgid)) != sorted(_PLACEHOLDER.findall(msgstr)):
        findings.append(
            f"placeholders {sorted(_PLACEHOLDER.findall(msgid))} became {sorted(_PLACEHOLDER.findall(msgstr))}"
        )
    if sorted(_BACKTICKS.findall(msgid)) != sorted(_BACKTICKS.findall(msgstr)):
        findings.append("code spans must stay as in English")
    if msgid.count("\n") != msgstr.count("\n"):
        findings.append("a different number of line breaks")
    return findings


# ----------------------------------------------------------------------------------------------- what counts
def performance_table_cells(source: Path = REPO) -> set[str]:
    """The cells of the generated tables of the performance page: they stay English."""
    page = source / f"{GENERATED_TABLES_PAGE}.md"
    cells = set()
    for line in page.read_text().splitlines():
        if line.startswith("|") and not re.fullmatch(r"[|\s:-]+", line):
            cells.update(cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|")))
    return cells


_NOT_PROSE = [
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\$[^$]+\$"),  # inline math
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"<[^>]+>"),  # HTML tags and autolinks
    re.compile(r"https?://\S+"),
    re.compile(r"\{[\w:-]+\}"),  # role names
]


def is_prose(msgid: str) -> bool:
    """A message that a reader reads as English words (not only code, numbers, links or markup)."""
    text = msgid
    for pattern in _NOT_PROSE:
        text = pattern.sub(" ", text)
    return re.search(r"[A-Za-z]{2,}", text) is not None


def math_messages(source: Path = REPO) -> set[str]:
    """The display equations ($$ ... $$) of every page: Sphinx extracts them as messages, but they stay as they
    are in every language (leave them untranslated)."""
    texts = [path.read_text() for path in sorted((source / "book").glob("*.md"))]
    for notebook in sorted((source / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                texts.append("".join(cell["source"]))
    blocks = (token for text in texts for token in PARSER.parse(text))
    return {token.content.strip() for token in blocks if token.type in {"math_block", "amsmath"}}


@dataclass
class PageStats:
    page: str
    prose: int
    translated: int
    untranslated: list[str]  # or fuzzy: Sphinx does not use a fuzzy translation

    @property
    def share(self) -> float:
        return self.translated / self.prose if self.prose else 1.0


def page_stats(page: str, catalog: Catalog, exempt: set[str]) -> PageStats:
    prose = translated = 0
    untranslated = []
    for message in catalog:
        if not message.id or not is_prose(message.id) or message.id in exempt or message.id.strip() in exempt:
            continue
        prose += 1
        if message.string and not message.fuzzy:
            translated += 1
        else:
            untranslated.append(message.id)
    return PageStats(page, prose, translated, untranslated)


# ----------------------------------------------------------------------------------------------- lint
_CJK = r"\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_BLOCK_START = re.compile(r"^(\d+[.)]|[-*+]|#{1,6}|>)(\s|$)")


def _inline_counts(text: str) -> Counter:
    counts: Counter = Counter()
    for block in PARSER.parse(text):
        for token in block.children or []:
            if token.type in {"strong_open", "em_open", "link_open", "code_inline", "math_inline", "image"}:
                counts[token.type] += 1
    return counts


def _block_types(text: str) -> list[str]:
    return [token.type for token in PARSER.parse(text) if token.nesting >= 0 and token.type != "inline"]


def _link_targets(text: str) -> Counter:
    targets: Counter = Counter()
    for block in PARSER.parse(text):
        for token in block.children or []:
            if token.type == "link_open":
                targets[token.attrs.get("href", "")] += 1
    targets.update(re.findall(r'href="([^"]*)"', text))
    return targets


def _role_targets(text: str) -> Counter:
    targets: Counter = Counter()
    for role, content in _ROLE.findall(text):
        angle = re.search(r"<([^>]*)>\s*$", content)
        targets[(role, angle.group(1) if angle else content)] += 1
    return targets


def lint_message(msgid: str, msgstr: str, equations: frozenset[str] = frozenset()) -> list[str]:
    """The silent traps: what renders wrong without any warning from Sphinx."""
    if not msgstr:
        return []
    if msgid.strip() in equations:
        return ["a $$ equation must stay untranslated: leave its msgstr empty"]
    findings = []
    # Sphinx parses each translation on its own (a heading's too, as the text of a heading), so it must be one
    # paragraph of inline text: `1. 标题` alone is a list, and Sphinx then silently keeps the English, even where
    # the English itself starts with `1. ` (a chapter's numbered title: its source line is a heading).
    expected = _block_types(msgid) if _block_types(msgid)[:1] == ["html_block"] else ["paragraph_open"]
    if _block_types(msgstr) != expected:
        if _BLOCK_START.match(msgstr):
            findings.append(
                "starts like a list, heading or quote (`1. `, `- `, `# `, `> `), so Sphinx does not use it: "
                "escape it (`1\\. `) or reword"
            )
        else:
            findings.append(f"not one paragraph of text: parses as {_block_types(msgstr)}")
    english, chinese = _inline_counts(msgid), _inline_counts(msgstr)
    for kind, label in [
        ("strong_open", "bold (**)"),
        ("em_open", "italics (*)"),
        ("link_open", "links"),
        ("code_inline", "code spans"),
        ("math_inline", "inline math"),
        ("image", "images"),
    ]:
        if english[kind] != chinese[kind]:
            hint = ""
            if kind in {"strong_open", "em_open"} and re.search(rf"[{_CJK}]\*|\*[{_CJK}]", msgstr):
                hint = (
                    " (a ** or * between Chinese punctuation and a Chinese character does not open or close: "
                    "put the punctuation outside the stars, or add a space)"
                )
            findings.append(f"{label}: {english[kind]} in English, {chinese[kind]} rendered in Chinese{hint}")
    if _link_targets(msgid) != _link_targets(msgstr) and not msgid.lstrip().startswith("<a "):
        findings.append(
            f"link targets changed: {sorted(_link_targets(msgid) - _link_targets(msgstr))} missing, "
            f"{sorted(_link_targets(msgstr) - _link_targets(msgid))} new"
        )
    if _role_targets(msgid) != _role_targets(msgstr):
        findings.append(
            f"role targets changed ({{ref}}, {{doc}}, ...): {sorted(_role_targets(msgid) - _role_targets(msgstr))}"
            " missing"
        )
    english_code = Counter(code for _, code in _CODE.findall(_ROLE.sub("", msgid)))
    chinese_code = Counter(code for _, code in _CODE.findall(_ROLE.sub("", msgstr)))
    if english_code != chinese_code:
        findings.append(
            f"code spans must stay as in English (API names, messages torch prints): "
            f"{sorted((english_code - chinese_code).elements())} missing, "
            f"{sorted((chinese_code - english_code).elements())} new"
        )
    return findings


def lint_printed(msgid: str, msgstr: str) -> list[str]:
    """What a print call's translated literal must keep: its {fields}, as written, and its line breaks."""
    if not msgstr:
        return []
    fields = [sorted(text for kind, text in fstring_parts(body) if kind == "field") for body in (msgid, msgstr)]
    findings = []
    if fields[0] != fields[1]:
        findings.append(f"the {{fields}} must stay as in English: {fields[0]} became {fields[1]}")
    if msgid.count("\\n") != msgstr.count("\\n"):
        findings.append("a different number of line breaks (\\n)")
    return findings


def lint(po_paths: list[Path]) -> list[str]:
    findings = []
    equations = frozenset(math_messages())
    for path in po_paths:
        for message in _read(path):
            if not message.id or not message.string or message.fuzzy:
                continue
            if message.context == PRINT_CONTEXT:
                lint_found = lint_printed(message.id, message.string)
            else:
                lint_found = lint_message(message.id, message.string, equations)
            for finding in lint_found:
                short = message.id if len(message.id) < 90 else message.id[:87] + "..."
                findings.append(f"{path.relative_to(REPO)}: {short!r}: {finding}")
    return findings


# ----------------------------------------------------------------------------------------------- check
def stale(pot_dir: Path) -> list[str]:
    """Pages whose .po lacks a message of the English source or keeps one that is gone."""
    problems = []
    for page in pages(pot_dir):
        english = {message.id for message in _read(pot_dir / f"{page}.pot") if message.id}
        po_path = CATALOGUES / f"{page}.po"
        if not po_path.exists():
            problems.append(f"{page}: no catalogue {po_path.relative_to(REPO)}")
            continue
        merged = {message.id for message in _read(po_path) if message.id}
        if english != merged:
            new, gone = english - merged, merged - english
            problems.append(
                f"{page}: {len(new)} English messages not merged, {len(gone)} merged messages gone; "
                f"first new: {sorted(new)[:1]}"
            )
    extra = {path.relative_to(CATALOGUES).with_suffix("").as_posix() for path in CATALOGUES.rglob("*.po")}
    for page in sorted(extra - set(pages(pot_dir))):
        problems.append(f"{page}: a catalogue for a page that no longer exists")
    return problems


def fuzzy_entries(po_paths: list[Path]) -> list[str]:
    """Every fuzzy entry: a translation of older English (`make translations` keeps it as a starting point when
    the English changes), which neither Sphinx nor the notebooks ever show. Exempt messages too (the performance
    page's generated tables, equations, code): clearing the flag of a wrong one would publish it."""
    return [
        f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: fuzzy (a translation of older English, "
        f"never shown): {message.id[:80]!r}"
        " -> translate it and clear the flag, or empty it"
        for path in po_paths
        for message in _read(path)
        if message.id and message.fuzzy
    ]


def stale_notebooks() -> list[str]:
    """Chinese notebooks that differ from what the English notebooks and the .po files make now."""
    problems = []
    with tempfile.TemporaryDirectory() as fresh:
        for path in write_translated_notebooks(output=Path(fresh)):
            committed = ZH_NOTEBOOKS / path.name
            if not committed.exists() or committed.read_bytes() != path.read_bytes():
                problems.append(f"{committed.relative_to(REPO)}: not what the English notebook and the .po make")
        for extra in sorted({p.name for p in ZH_NOTEBOOKS.glob("*.ipynb")} - {p.name for p in Path(fresh).iterdir()}):
            problems.append(f"{(ZH_NOTEBOOKS / extra).relative_to(REPO)}: no English notebook of that name")
    return problems


def statistics(source: Path = REPO) -> list[PageStats]:
    tables, equations = performance_table_cells(source), math_messages(source)
    result = []
    for po_path in sorted(CATALOGUES.rglob("*.po")):
        page = po_path.relative_to(CATALOGUES).with_suffix("").as_posix()
        exempt = equations | (tables if page == GENERATED_TABLES_PAGE else set())
        result.append(page_stats(page, _read(po_path), exempt))
    return result


def print_statistics(stats: list[PageStats]) -> None:
    print(f"{'page':<52} {'prose':>6} {'done':>6} {'share':>7}")
    for item in stats:
        print(f"{item.page:<52} {item.prose:>6} {item.translated:>6} {item.share:>7.1%}")
    prose = sum(item.prose for item in stats)
    done = sum(item.translated for item in stats)
    print(f"{'all pages':<52} {prose:>6} {done:>6} {done / prose if prose else 1:>7.1%}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("update", help="extract the English messages and merge them into the .po files")
    commands.add_parser("check", help="stale catalogues, untranslated prose and lint findings (exit 1)")
    lint_parser = commands.add_parser("lint", help="lint .po files (default: all)")
    lint_parser.add_argument("po", nargs="*", type=Path)
    commands.add_parser("stats", help="the translated share of every page (no extraction)")
    commands.add_parser("notebooks", help=f"write the translated notebooks into {ZH_NOTEBOOKS.relative_to(REPO)}")
    args = parser.parse_args(argv)

    if args.command == "update":
        update(extract())
        update_package()
        print(
            f"Merged the English messages into {CATALOGUES.relative_to(REPO)}/"
            f" and {PACKAGE_CATALOGUES.relative_to(REPO)}/"
        )
        print_statistics(statistics())
        return 0
    if args.command == "lint":
        findings = lint([path.resolve() for path in args.po] or sorted(CATALOGUES.rglob("*.po")))
        print("\n".join(findings) or "no lint findings")
        return 1 if findings else 0
    if args.command == "stats":
        print_statistics(statistics())
        return 0
    if args.command == "notebooks":
        for path in write_translated_notebooks():
            print(f"wrote {path.relative_to(REPO)}")
        return 0
    # check
    with tempfile.TemporaryDirectory() as pot_dir:
        problems = stale(extract(output=Path(pot_dir)))
    stats = statistics()
    print_statistics(stats)
    for item in stats:
        for msgid in item.untranslated:
            problems.append(f"{item.page}: untranslated: {msgid[:100]!r}")
    problems += lint(sorted(CATALOGUES.rglob("*.po")))
    problems += fuzzy_entries(sorted(CATALOGUES.rglob("*.po")))
    problems += package_problems()
    problems += stale_notebooks()
    if problems:
        print("\n".join(problems))
        print(f"{len(problems)} problems; run `make translations`, translate, then check again")
        return 1
    print("The Chinese catalogues are up to date, complete and lint-free.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
