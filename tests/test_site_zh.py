"""The Chinese edition in Chromium: every page of _build/html/zh/ passes the checks of tests/test_site.py (status,
no request to another host, widgets move through their stored frames, nothing overflows, axe in light and dark
mode, named sliders, alt text), and what only a second edition needs: the page is Chinese, the 中文 / English
switch lands on the same page and section both ways, and Chinese search finds Chinese words.

A file of its own, so that pytest-xdist runs it beside tests/test_site.py on the second core; the build is
shared (tests/conftest.py's build_log)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

from conftest import REPO, SITE
from test_site import (
    ZH,
    audited,
    axe_lines,
    broken_links,
    fail_with,
    overflow_lines,
    page_paths,
    slider_and_alt_lines,
)

sys.path.insert(0, str(REPO / "scripts"))  # scripts/i18n.py: the catalogues
SCREENSHOTS_ZH = REPO / "_build" / "screenshots-zh"
CJK = re.compile(r"[\u4e00-\u9fff]")
# A chapter with many sections: the switch must keep the reader in the section they are reading.
SWITCH_PAGE = "notebooks/03_lstm_hidden_state_extraction.html"


@pytest.fixture(scope="module")
def audits(site, browser) -> dict:
    import shutil

    shutil.rmtree(SCREENSHOTS_ZH, ignore_errors=True)
    return {}


def test_every_page_of_the_book_has_a_chinese_page_and_its_links_resolve(site):
    missing = [page for page in page_paths(ZH) if not (SITE / page).exists()]
    assert not missing, f"not built: {missing}"
    broken = broken_links(site, page_paths(ZH))
    assert not broken, "broken links:\n" + "\n".join(broken)


@pytest.mark.parametrize("page_path", page_paths(ZH))
def test_chinese_page_loads_cleanly_and_every_widget_shows_its_frames(audits, site, browser, page_path):
    fail_with(page_path, "problems", audited(audits, site, browser, page_path, SCREENSHOTS_ZH).mode_problems)


@pytest.mark.parametrize("page_path", page_paths(ZH))
def test_chinese_page_fits_and_has_no_axe_violations_or_unnamed_controls(audits, site, browser, page_path):
    audit = audited(audits, site, browser, page_path, SCREENSHOTS_ZH)
    fail_with(page_path, "problems", overflow_lines(audit) + axe_lines(audit) + slider_and_alt_lines(audit))


@pytest.mark.parametrize("page_path", page_paths(ZH))
def test_chinese_page_is_in_chinese(build_log, page_path):
    """lang="zh-CN" (screen readers pick the voice by it), and the first heading and the table of contents'
    part captions are translated."""
    html = (SITE / page_path).read_text(encoding="utf-8")
    assert '<html lang="zh-CN"' in html
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.DOTALL).group(1)
    if page_path != f"{ZH}book/intro.html":  # the book's name, "Pad, Pack, Train", stays English
        assert CJK.search(heading), f"{page_path}: the heading is not translated: {heading[:100]}"
    captions = re.findall(r'caption-text">([^<]*)<', html)
    assert captions and all(CJK.search(caption) for caption in captions), captions


def _printed_blocks(notebook: Path) -> list[str]:
    """Each code cell's source and stdout text, in order."""
    blocks = []
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] == "code":
            blocks.append("".join(cell["source"]))
            blocks += ["".join(out["text"]) for out in cell.get("outputs", []) if out.get("output_type") == "stream"]
    return blocks


@pytest.mark.parametrize("page_path", [path for path in page_paths(ZH) if "/notebooks/" in path])
def test_chinese_page_shows_the_chinese_notebooks_code_and_printed_text(build_log, page_path):
    """The website shows what the Chinese notebook in Colab holds: where its code (a print literal) or printed
    text differs from the English notebook's, the Chinese page shows the Chinese, and never the English."""
    from bs4 import BeautifulSoup

    name = page_path.removeprefix(f"{ZH}notebooks/").replace(".html", ".ipynb")
    english = _printed_blocks(REPO / "notebooks" / name)
    chinese = _printed_blocks(REPO / "i18n" / "zh_CN" / "notebooks" / name)
    assert len(english) == len(chinese), f"{name}: the two editions' cells differ"
    soup = BeautifulSoup((SITE / page_path).read_text(encoding="utf-8"), "html.parser")
    shown = {" ".join(pre.get_text().split()) for pre in soup.select(".cell_input pre, .cell_output pre")}
    differing = [(en, zh) for en, zh in zip(english, chinese) if en != zh]
    wrong = [
        f"English shown: {en[:70]!r}" if " ".join(en.split()) in shown else f"Chinese missing: {zh[:70]!r}"
        for en, zh in differing
        if " ".join(zh.split()) not in shown or " ".join(en.split()) in shown
    ]
    assert not wrong, f"{page_path}: {len(wrong)} of {len(differing)} blocks:\n" + "\n".join(wrong)


@pytest.mark.parametrize("page_path", [page for page in page_paths(ZH) if page.startswith(f"{ZH}notebooks/")])
def test_chinese_page_shows_the_chinese_notebooks_sliders(build_log, page_path):
    """The sliders of a Chinese page draw their frames and labels from the Chinese notebook's widget state, whose
    words are Chinese (tests/test_i18n.py), not from the English notebook's."""
    from bs4 import BeautifulSoup

    name = page_path.removeprefix(f"{ZH}notebooks/").replace(".html", ".ipynb")
    metadata = json.loads((REPO / "i18n" / "zh_CN" / "notebooks" / name).read_text())["metadata"]
    stored = metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    soup = BeautifulSoup((SITE / page_path).read_text(encoding="utf-8"), "html.parser")
    scripts = soup.select('script[type="application/vnd.jupyter.widget-state+json"]')
    assert [json.loads(script.string) for script in scripts] == ([stored] if stored else [])


def visible_prose(html: str) -> str:
    """The page's prose: without scripts, styles, code blocks and cell outputs."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for element in soup.select("script, style, pre, .cell_input, .cell_output, .output"):
        element.decompose()
    return " ".join(soup.get_text(" ").split())


def plain_text(markdown: str) -> str:
    from bs4 import BeautifulSoup

    from i18n_notebooks import PARSER

    return " ".join(BeautifulSoup(PARSER.render(markdown), "html.parser").get_text(" ").split())


@pytest.mark.parametrize("page_path", page_paths(ZH))
def test_every_translation_is_used_on_its_page(build_log, page_path):
    """Sphinx silently keeps the English of a message whose translation does not parse like it (a heading
    translated as `1. 标题` is a list): no English sentence that has a different translation may be left."""
    import i18n

    page = page_path.removeprefix(ZH).removesuffix(".html")
    text = visible_prose((SITE / page_path).read_text(encoding="utf-8"))
    left = []
    for message in i18n._read(i18n.CATALOGUES / f"{page}.po"):
        if message.id and message.string and message.string != message.id and i18n.is_prose(message.id):
            english = plain_text(message.id)
            if len(english) >= 25 and english in text:
                left.append(english[:100])
    assert not left, f"{page_path}: {len(left)} English messages shown untranslated:\n" + "\n".join(left)


def section_ids(page, path: str) -> list[str]:
    return page.eval_on_selector_all(
        "article section[id]", "sections => sections.map(section => section.id)"
    ) or pytest.fail(f"{path}: no sections")


@pytest.mark.parametrize("direction", ["English to Chinese", "Chinese to English"])
def test_language_switch_lands_on_the_same_page_and_section(site, browser, direction):
    """Through an address with #section, and (without one) from where the reader has scrolled to."""
    from playwright.sync_api import expect

    start, other, label = (
        (SWITCH_PAGE, f"{ZH}{SWITCH_PAGE}", "中文")
        if direction == "English to Chinese"
        else (f"{ZH}{SWITCH_PAGE}", SWITCH_PAGE, "English")
    )
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{site}{start}", wait_until="load")
        ids = section_ids(page, start)
        target = ids[len(ids) // 2]
        page.goto(f"{site}{start}#{target}", wait_until="load")
        switch = page.get_by_role("link", name=label, exact=True)
        expect(switch).to_have_count(1)
        switch.click()
        page.wait_for_url(f"{site}{other}#{target}")
        assert page.evaluate(f"document.getElementById({target!r}).getBoundingClientRect().top") < 400

        # No #section in the address: the section at the top of the window.
        page.goto(f"{site}{start}", wait_until="load")
        scrolled_to = ids[-2]
        page.evaluate(f"document.getElementById({scrolled_to!r}).scrollIntoView()")
        page.get_by_role("link", name=label, exact=True).click()
        page.wait_for_url(re.compile(re.escape(f"{site}{other}") + "#.+"))
        landed = urlparse(page.url).fragment
        assert landed in ids[ids.index(scrolled_to) - 1 : ids.index(scrolled_to) + 2], (scrolled_to, landed)
    finally:
        context.close()


@pytest.mark.parametrize("word", ["打包", "隐藏状态", "分桶"])
def test_chinese_search_finds_chinese_words(site, browser, word):
    """Sphinx indexes the Chinese pages with jieba (and the glossary's terms as words): a search for a term
    finds the chapters that use it."""
    page = browser.new_page()
    try:
        page.goto(f"{site}{ZH}search.html?q={word}", wait_until="load")
        results = page.locator("#search-results ul.search li")
        page.wait_for_function("document.querySelectorAll('#search-results ul.search li').length > 0")
        assert results.count() >= 2, f"{word}: {results.count()} results"
        assert page.locator("input[name='q']").first.get_attribute("placeholder") == "搜索本书……"
    finally:
        page.close()


def test_a_chinese_font_is_installed_for_the_screenshots():
    """Without a font that has Chinese glyphs, Chromium draws every character of _build/screenshots-zh/ as a box
    (.ci/run installs fonts-wqy-microhei)."""
    import os
    import shutil
    import subprocess

    fonts = ""
    if shutil.which("fc-list"):
        fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False).stdout
    if not fonts.strip():
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but no font with Chinese glyphs (apt-get install fonts-wqy-microhei)")
        pytest.skip("no font with Chinese glyphs: screenshots of the Chinese pages would show boxes")


# zh_review R5: the theme's labels, as scripts/build_book.py localizes them on the Chinese pages.
THEME_LABELS_SHOWN = [
    '<span class="btn__text-container">源码库</span>',
    '<span class="btn__text-container">提交问题</span>',
    "作者：《Pad, Pack, Train》编写组",
    'title="显示或隐藏左侧边栏"',
    'aria-label="颜色模式"',
    'title="跟随系统设置"',
]
THEME_LABELS_GONE = [
    "列印",
    ">Repository<",
    ">Open issue<",
    "The Pad, Pack, Train authors\n</p>",
    '"Toggle primary sidebar"',
    '"Toggle secondary sidebar"',
    '"Color mode"',
    '"System Settings"',
    '"Source repositories"',
    '"Launch on Colab"',
    '"Launch interactive content"',
    '"Link to this heading"',
    '"Link to this image"',
    '"Toggle hidden content"',
    '<span class="colon">:</span>',
]


@pytest.mark.parametrize("page_path", page_paths(ZH))
def test_chinese_page_shows_the_theme_labels_in_mainland_chinese(build_log, page_path):
    """No English or Taiwanese theme label (列印成 PDF, Repository, Open issue, the footer's author, the buttons'
    titles and aria labels) on a Chinese page: scripts/build_book.py replaces them after the build."""
    html = (SITE / page_path).read_text(encoding="utf-8")
    assert not [label for label in THEME_LABELS_GONE if label in html], page_path
    assert not [label for label in THEME_LABELS_SHOWN if label not in html], page_path
    if "btn-download-pdf-button" in html:
        assert 'title="打印为 PDF"' in html


def test_theme_labels_are_replaced_as_attributes_and_button_texts():
    """The replacement itself, without a build: attribute values and button texts change, prose does not."""
    import build_book

    html = (
        '<button title="列印成 PDF" aria-label="Main"><span class="btn__text-container">Repository</span>'
        "</button><p>Main and Repository stay in prose.</p>"
    )
    assert build_book.localize_theme_strings(html) == (
        '<button title="打印为 PDF" aria-label="全书目录"><span class="btn__text-container">源码库</span>'
        "</button><p>Main and Repository stay in prose.</p>"
    )
