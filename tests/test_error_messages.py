"""The reference pages stay true: every error message quoted on book/errors.md is still exactly what the
installed torch raises, every silent-bug snippet still shows its bug, every "Live" link points at a
notebook cell that shows the same error, and the code of book/cheatsheet.md runs with the shapes it states.

The pages are the single source: each entry of book/errors.md is a `###` section holding the quoted message
(a line that is only a code span, starting with the exception type), one ```python snippet that raises it,
and a "**Live:**" link to the chapter section that shows it, or a "**Not live:**" line giving one of the
NOT_LIVE_REASONS. A snippet that needs a GPU starts with CUDA_MARKER and is skipped without one; a snippet
that needs two processes starts with TWO_PROCESS_MARKER and runs in two forked processes, each set up as
torchrun would (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT).
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch
from docutils.nodes import make_id
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from myst_parser.mdit_to_docutils.base import default_slugify

from conftest import REPO, load_config

ERRORS_PAGE = REPO / "book" / "errors.md"
CHEATSHEET_PAGE = REPO / "book" / "cheatsheet.md"
CUDA_MARKER = "# Needs a CUDA GPU"
TWO_PROCESS_MARKER = "# Run with: torchrun --nproc-per-node=2"
NOT_LIVE_GPU = "**Not live:** needs a CUDA GPU."
NOT_LIVE_NO_CHAPTER = "**Not live:** no chapter runs into this error yet; the snippet above is its demonstration."
# The only accepted reasons for an entry without a "Live" link. The second is a debt, allowed only for the
# entries listed here: each needs a chapter cell that shows it (then move its label out of this set).
NOT_LIVE_REASONS = (NOT_LIVE_GPU, NOT_LIVE_NO_CHAPTER)
OWED_A_CHAPTER_CELL: set[str] = set()
# A rank's error reaches the notebook as printed text. gloo words one of them by timing ("Connection closed by
# peer" or "... reset by peer"), so its chapter prints the outcome, which is stable, instead of the message.
OUTCOME_SHOWN_INSTEAD = {"err-peer-closed": "rank 1 exited: rank 0 raised a connection error, without a timeout"}
SOURCE_LOCATION = re.compile(r"^\[[^\]]*\] ")
SHORT_LOCATION = re.compile(r"\[[^\]]*/([^/\]]+)\]")
SILENT_GROUP_PREFIX = "Silent bugs"
MIN_MESSAGES = 6
MAX_CODE_WIDTH = 79  # characters the site's content column shows without scrolling
# Messages that Python itself writes and that changed with a Python version: quoted text -> (since, new text).
PYTHON_VARIANTS = {
    "ValueError: too many values to unpack (expected 2)": (
        (3, 14),
        "ValueError: too many values to unpack (expected 2, got 4)",
    ),
}
ERROR_TYPE = re.compile(r"[A-Z][A-Za-z]*(Error|Exception|Warning): ")
MARKDOWN = MarkdownIt("commonmark")
NOTEBOOK_LINK = re.compile(r"\]\((\.\./notebooks/[^)#\s]+\.ipynb)#([^)\s]+)\)")


@dataclass
class Entry:
    title: str
    group: str
    label: str = ""
    messages: list[str] = field(default_factory=list)
    snippets: list[str] = field(default_factory=list)
    live_links: list[tuple[str, str]] = field(default_factory=list)
    not_live: list[str] = field(default_factory=list)

    @property
    def silent(self) -> bool:
        return self.group.startswith(SILENT_GROUP_PREFIX)


def code_span(line: str) -> str | None:
    """The content of a line that is one CommonMark code span (any number of backticks), else None."""
    match = re.fullmatch(r"(`+)(.+?)\1", line.strip())
    if not match:
        return None
    content = match.group(2)
    if content.startswith(" ") and content.endswith(" ") and content.strip():
        content = content[1:-1]
    return content


def python_blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line, last line, code) of every ```python block, also one nested in a ````{directive} fence."""
    blocks, index = [], 0
    while index < len(lines):
        stripped = lines[index].strip()
        if re.fullmatch(r"```[^`]*", stripped):  # a three-backtick fence: python, or another to skip
            end = next(later for later in range(index + 1, len(lines)) if lines[later].strip() == "```")
            if stripped == "```python":
                blocks.append((index, end, textwrap.dedent("\n".join(lines[index + 1 : end]))))
            index = end
        index += 1
    return blocks


def parse_errors_page() -> list[Entry]:
    lines = ERRORS_PAGE.read_text(encoding="utf-8").splitlines()
    blocks = python_blocks(lines)
    fenced = {number for start, end, _ in blocks for number in range(start, end + 1)}
    entries: list[Entry] = []
    group, label = "", ""
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        if re.fullmatch(r"\(([\w-]+)\)=", line.strip()):
            label = line.strip()[1:-2]
        elif line.startswith("## "):
            group, label = line[3:].strip(), ""
        elif line.startswith("### "):
            entries.append(Entry(title=line[4:].strip(), group=group, label=label))
            label = ""
        elif entries and entries[-1].group == group:
            content = code_span(line)
            if content is not None and ERROR_TYPE.match(content):
                entries[-1].messages.append(content)
            if "**Live:**" in line:
                entries[-1].live_links += NOTEBOOK_LINK.findall(line)
            if "**Not live:**" in line:
                entries[-1].not_live.append(line.strip().removeprefix("- "))
    starts = [number for number, line in enumerate(lines) if line.startswith("### ") and number not in fenced]
    for entry, start, end in zip(entries, starts, starts[1:] + [len(lines)]):
        entry.snippets = [code for at, _, code in blocks if start < at < end]
    return entries


ENTRIES = parse_errors_page()
ERROR_ENTRIES = [entry for entry in ENTRIES if not entry.silent]
SILENT_ENTRIES = [entry for entry in ENTRIES if entry.silent]


def entry_id(entry: Entry) -> str:
    return entry.label or make_id(entry.title)


def raised_message(code: str) -> str | None:
    """Run a snippet in a fresh namespace; return 'Type: message' of what it raised, or None."""
    try:
        exec(compile(code, str(ERRORS_PAGE), "exec"), {"__name__": "errors_page_snippet"})
    except Exception as error:  # noqa: BLE001 - the point is to catch whatever the snippet raises
        # A warning raised from C++ (TORCH_WARN) ends with its build's source location: not part of the text.
        return re.sub(r" \(Triggered internally at [^()]*\.\)$", "", f"{type(error).__name__}: {error}")
    return None


def one_line(message: str) -> str:
    """A message with its line breaks and runs of spaces as single spaces: a page quotes it on one line."""
    return " ".join(message.split())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


RANK_RUNNER = """
import json, sys
code = sys.stdin.read()
try:
    exec(compile(code, "errors.md", "exec"), {"__name__": "__main__"})
    print(json.dumps(None))
except Exception as error:
    print(json.dumps(f"{type(error).__name__}: {error}"))
"""


def start_two_ranks(code: str) -> list[subprocess.Popen]:
    """Start a snippet as two ranks of a gloo group, each a fresh Python process set up as torchrun would."""
    port, processes = free_port(), []
    for rank in range(2):
        environment = dict(
            os.environ,
            RANK=str(rank),
            LOCAL_RANK=str(rank),
            WORLD_SIZE="2",
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port),
            OMP_NUM_THREADS="1",
        )
        process = subprocess.Popen(
            [sys.executable, "-c", RANK_RUNNER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=environment,
            text=True,
        )
        process.stdin.write(code)
        process.stdin.close()
        processes.append(process)
    return processes


def rank_result(process: subprocess.Popen, timeout: float = 180) -> str | None:
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return "no result: the rank hung"
    lines = process.stdout.read().strip().splitlines()
    return json.loads(lines[-1]) if lines else "no result: the rank crashed"


@functools.cache
def two_rank_results() -> dict[str, list[str | None]]:
    """What each rank raised, per two-process snippet. All snippets run at once: each mostly waits."""
    started = {
        entry.messages[0]: start_two_ranks(entry.snippets[0])
        for entry in ENTRIES
        if entry.messages and entry.snippets and entry.snippets[0].lstrip().startswith(TWO_PROCESS_MARKER)
    }
    return {message: [rank_result(process) for process in processes] for message, processes in started.items()}


def expected_message(quoted: str) -> str:
    since, variant = PYTHON_VARIANTS.get(quoted, ((99,), quoted))
    return variant if sys.version_info >= since else quoted


def test_page_quotes_enough_messages_each_with_one_snippet():
    assert len(ENTRIES) >= 10, f"parsed only {len(ENTRIES)} entries from {ERRORS_PAGE}: did the layout change?"
    messages = [message for entry in ERROR_ENTRIES for message in entry.messages]
    assert len(messages) >= MIN_MESSAGES, f"errors.md quotes {len(messages)} messages, needs {MIN_MESSAGES}"
    assert len(set(messages)) == len(messages), "a message is quoted twice"
    for entry in ERROR_ENTRIES:
        assert len(entry.messages) == 1, f"{entry.title!r}: needs exactly one quoted message"
        assert len(entry.snippets) == 1, f"{entry.title!r}: needs exactly one python snippet"
    for entry in SILENT_ENTRIES:
        assert not entry.messages, f"{entry.title!r}: a silent bug quotes a message"
        assert len(entry.snippets) == 1, f"{entry.title!r}: needs exactly one python snippet"
    assert len(SILENT_ENTRIES) >= 4, "the four silent bugs of the issue are missing"


def test_find_table_links_every_entry():
    text = ERRORS_PAGE.read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(#([\w-]+)\)", text))
    labels = {entry.label for entry in ENTRIES} | set(re.findall(r"^\(([\w-]+)\)=$", text, re.MULTILINE))
    assert linked <= labels, f"links to missing labels: {sorted(linked - labels)}"
    missing = [entry.title for entry in ERROR_ENTRIES if entry.label not in linked]
    assert not missing, f"entries missing from the 'Find your message' table: {missing}"
    messages = {entry.label: entry.messages[0] for entry in ERROR_ENTRIES}
    for row in re.findall(r"^\|(.+?)\|.*\]\(#([\w-]+)\)", text, re.MULTILINE):
        start, label = code_span(row[0]), row[1]
        if label in messages:
            # a long source location (gloo's) may be shortened to its file name: `[.../pair.cc:553]`
            message = SHORT_LOCATION.sub(r"[.../\1]", messages[label])
            assert start and (messages[label].startswith(start) or message.startswith(start)), (
                f"the table row {start!r} is not how the message of #{label} starts: {messages[label]!r}"
            )


@pytest.mark.parametrize("entry", ERROR_ENTRIES, ids=entry_id)
def test_quoted_message_is_what_torch_raises(entry):
    code = entry.snippets[0]
    if code.lstrip().startswith(CUDA_MARKER) and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU: this message cannot be reproduced on a CPU")
    if code.lstrip().startswith(TWO_PROCESS_MARKER):
        # gloo's messages name a source path, a line and a port: numbers vary by run, so compare as a pattern
        pattern = as_pattern(one_line(expected_message(entry.messages[0])))
        raised_by_ranks = [one_line(message) for message in two_rank_results()[entry.messages[0]] if message]
        assert any(pattern.fullmatch(message) for message in raised_by_ranks), (
            f"{entry.title!r}: the two ranks raised {raised_by_ranks}, but errors.md quotes\n  {entry.messages[0]}"
        )
        return
    raised = raised_message(code)
    assert raised is not None, f"{entry.title!r}: the snippet raised nothing"
    assert one_line(raised) == one_line(expected_message(entry.messages[0])), (
        f"{entry.title!r}: torch {torch.__version__} now says\n  {raised}\nbut errors.md quotes\n"
        f"  {entry.messages[0]}\nUpdate the page (and the find table) to the new message."
    )


@pytest.mark.parametrize("entry", SILENT_ENTRIES, ids=entry_id)
def test_silent_bug_still_raises_nothing_and_its_asserts_hold(entry):
    raised = raised_message(entry.snippets[0])
    assert raised is None, f"{entry.title!r}: the snippet failed: {raised}"


def as_pattern(message: str) -> re.Pattern:
    """The message with every number generalized: a chapter's example has other sizes than the page's."""
    return re.compile(re.sub(r"\d+", r"\\d+", re.escape(message)))


def heading_anchor_depth() -> int:
    """myst_heading_anchors from _config.yml: headings down to this level get GitHub-style slugs."""
    return int(load_config().get("sphinx", {}).get("config", {}).get("myst_heading_anchors", 0))


def notebook_sections(path: Path) -> dict[str, list[dict]]:
    """Anchor -> the cells from that heading to the next heading of its level or above.

    The anchor is what a link `chapter.ipynb#anchor` must name to resolve without a warning: MyST's slug of the
    heading (as `myst_heading_anchors` makes it) where configured, else the docutils id."""
    depth = heading_anchor_depth()
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    headings, slugs = [], set()  # (cell index, level, anchor)
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for node in SyntaxTreeNode(MARKDOWN.parse("".join(cell["source"]))).walk():
            if node.type != "heading":
                continue
            level = int(node.tag[1:])
            inline = node.children[0].children if node.children else []
            title = "".join(child.content for child in inline if child.type in ("text", "code_inline"))
            if level <= depth:
                anchor, suffix = default_slugify(title), 1
                while anchor in slugs:  # MyST numbers repeated slugs, as GitHub does
                    anchor, suffix = f"{default_slugify(title)}-{suffix}", suffix + 1
                slugs.add(anchor)
            else:
                anchor = make_id(title)
            headings.append((index, level, anchor))
    sections = {}
    for position, (index, level, anchor) in enumerate(headings):
        end = next((later for later, later_level, _ in headings[position + 1 :] if later_level <= level), len(cells))
        sections.setdefault(anchor, cells[index:end])
    return sections


def notebook_ids(path: Path) -> set[str]:
    """The ids the site gives the notebook's headings: docutils' id of each title. An address that the package
    prints (`padpack.checks.link`) must end in one of these: MyST's slugs, the keys of `notebook_sections`, resolve
    only as links inside the book (`h_n` is `h_n` in a slug, `h-n` in the page's id)."""
    ids = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for node in SyntaxTreeNode(MARKDOWN.parse("".join(cell["source"]))).walk():
            if node.type == "heading":
                inline = node.children[0].children if node.children else []
                ids.add(make_id("".join(child.content for child in inline if child.type in ("text", "code_inline"))))
    return ids


def error_outputs(cells: list[dict]) -> list[str]:
    """The taught errors that the cells print through the chapters' `expect_error` helper.

    The helper prints `Type: message` wrapped to the page width, continuation lines indented by four spaces;
    joining them back gives the message exactly as torch raised it."""
    shown = []
    for cell in cells:
        if cell["cell_type"] != "code" or "expect_error(" not in "".join(cell["source"]):
            continue
        text = "".join(
            "".join(output.get("text", ""))
            for output in cell.get("outputs", [])
            if output.get("output_type") == "stream" and output.get("name") == "stdout"
        )
        for line in re.sub(r"\n    ", " ", text).splitlines():
            if ERROR_TYPE.match(line):
                shown.append(line)
    return shown


def stdout_text(cells: list[dict]) -> str:
    """Everything the code cells of a section printed."""
    return "\n".join(
        "".join(output.get("text", ""))
        for cell in cells
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    )


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_id)
def test_every_entry_links_its_live_cell_or_says_why_not(entry):
    """The page's promise: each entry links the chapter cell that shows it live, or gives an accepted reason."""
    if entry.live_links:
        assert not entry.not_live, f"{entry.title!r}: has a Live link and a 'Not live' reason"
        return
    assert len(entry.not_live) == 1, (
        f"{entry.title!r}: no '**Live:**' link to a chapter cell, and no '**Not live:**' reason. Link the chapter "
        f"section whose stored output shows it, or give one of: {NOT_LIVE_REASONS}"
    )
    reason = entry.not_live[0]
    assert reason in NOT_LIVE_REASONS, f"{entry.title!r}: {reason!r} is not an accepted reason: {NOT_LIVE_REASONS}"
    if reason == NOT_LIVE_GPU:
        assert entry.snippets and entry.snippets[0].lstrip().startswith(CUDA_MARKER), (
            f"{entry.title!r}: says it needs a CUDA GPU, but its snippet does not start with {CUDA_MARKER!r}"
        )
    else:
        assert entry.label in OWED_A_CHAPTER_CELL, (
            f"{entry.title!r}: a new entry must link the chapter cell that shows it; "
            f"'no chapter runs into this error' is accepted only for {sorted(OWED_A_CHAPTER_CELL)}"
        )


def test_the_list_of_entries_owed_a_chapter_cell_is_current():
    stated = {entry.label for entry in ENTRIES if NOT_LIVE_NO_CHAPTER in entry.not_live}
    assert stated == OWED_A_CHAPTER_CELL, (
        f"OWED_A_CHAPTER_CELL is out of date: now live {sorted(OWED_A_CHAPTER_CELL - stated)}, "
        f"unlisted {sorted(stated - OWED_A_CHAPTER_CELL)}"
    )


def linked_chapter(notebook: str) -> Path:
    """The chapter a page's link names (the pages stand side by side), which must exist."""
    path = (ERRORS_PAGE.parent / notebook).resolve()
    assert path.exists(), f"the page links to {notebook}, which does not exist"
    return path


LIVE_CASES = [
    pytest.param(entry, notebook, fragment, id=f"{entry_id(entry)}->{Path(notebook).stem[:2]}")
    for entry in ENTRIES
    for notebook, fragment in entry.live_links
]


@pytest.mark.parametrize("entry, notebook, fragment", LIVE_CASES)
def test_live_link_points_at_the_cell_that_shows_it(entry, notebook, fragment):
    path = linked_chapter(notebook)
    sections = notebook_sections(path)
    assert fragment in sections, (
        f"{entry.title!r}: {path.name} has no heading with id {fragment!r}; its ids: {sorted(sections)}"
    )
    if entry.messages:
        shown = [one_line(message) for message in error_outputs(sections[fragment])]
        message = one_line(expected_message(entry.messages[0]))
        pattern = as_pattern(message)
        # An error raised in another process (a torchrun rank) reaches the notebook as printed text, not
        # through `expect_error`: then its text, after the exception type, must be in the printed output.
        # gloo's messages open with the source location of the build that raised them: not part of the message.
        printed = one_line(stdout_text(sections[fragment]))
        body = as_pattern(SOURCE_LOCATION.sub("", message.split(": ", 1)[1]))
        outcome = OUTCOME_SHOWN_INSTEAD.get(entry.label)
        assert (
            any(pattern.fullmatch(line) for line in shown)
            or body.search(printed)
            or (outcome is not None and outcome in printed)
        ), (
            f"{entry.title!r}: the section #{fragment} of {path.name} shows no stored error like\n"
            f"  {entry.messages[0]}\nit shows: {shown}"
        )


ANCHOR_CASES = [
    pytest.param(page, notebook, fragment, id=f"{Path(notebook).stem[:2]}#{fragment}")
    for page, notebook, fragment in sorted(
        {
            (page.name, notebook, fragment)
            for page in (ERRORS_PAGE, CHEATSHEET_PAGE)
            for notebook, fragment in NOTEBOOK_LINK.findall(page.read_text(encoding="utf-8"))
        }
    )
]


@pytest.mark.parametrize("page, notebook, fragment", ANCHOR_CASES)
def test_every_chapter_anchor_on_the_pages_exists(page, notebook, fragment):
    path = linked_chapter(notebook)
    assert fragment in notebook_sections(path), f"{page}: {path.name} has no heading with anchor #{fragment}"


def test_at_least_six_messages_are_shown_live():
    live = [entry.title for entry in ERROR_ENTRIES if entry.live_links]
    assert len(live) >= MIN_MESSAGES, f"only {len(live)} messages link to a live chapter cell: {live}"


def test_cheatsheet_code_runs_and_its_shapes_hold():
    blocks = [code for _, _, code in python_blocks(CHEATSHEET_PAGE.read_text(encoding="utf-8").splitlines())]
    assert len(blocks) >= 4, "the cheat sheet lost its pipeline, six lines, proof or shape check"
    namespace = {"__name__": "cheatsheet"}
    torch.manual_seed(0)
    for code in blocks:
        exec(compile(code, str(CHEATSHEET_PAGE), "exec"), namespace)
    assert namespace["final"].shape == (3, 32)
    assert namespace["output"].shape == (3, 5, 32)


@pytest.mark.parametrize("page", [ERRORS_PAGE, CHEATSHEET_PAGE], ids=lambda page: page.name)
def test_code_fits_the_page_width(page):
    """Code lines wider than the site's content column need a horizontal scroll to read."""
    lines = page.read_text(encoding="utf-8").splitlines()
    wide = [
        f"line {start + offset + 2}: {line}"
        for start, _, code in python_blocks(lines)
        for offset, line in enumerate(code.splitlines())
        if len(line) > MAX_CODE_WIDTH
    ]
    assert not wide, f"{page.name}: code lines over {MAX_CODE_WIDTH} characters:\n" + "\n".join(wide)
