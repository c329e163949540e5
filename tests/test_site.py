"""The website in a real browser: build the book, serve it on 127.0.0.1, visit every page of the toc in
Chromium (Debian's, else Playwright's own) through Playwright, and check what a reader would notice.

Without Chromium this skips with a reason; with CI=true it must run."""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import shutil
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

import site_audit
from conftest import REPO, SITE, colab_url, toc_files
from widget_state import SUPPORTED_CONTROLS, WidgetState

SCREENSHOTS = REPO / "_build" / "screenshots"
# Page errors that come from the theme or its dependencies, not from our content: exact text -> reason.
KNOWN_THEME_ERRORS: dict[str, str] = {}


# The Chinese edition, built from the same sources into _build/html/zh/ (tests/test_site_zh.py checks its pages).
ZH = "zh/"

sys.path.insert(0, str(REPO / "scripts"))  # the site's Sphinx extensions, the edition, build_book.MOVED_PAGES
import edition as edition_module
import site_edition

LANGUAGE = {"": "en", ZH: "zh"}
# `make book` builds no PDF: `make pdf` adds each edition's to the site (the deploy workflow runs both). A link to
# a PDF not built here is not broken; test_every_page_offers_the_book_pdf_of_its_edition checks its address.
BOOK_PDFS = {SITE / edition / site_edition.BOOK_PDF[language] for edition, language in LANGUAGE.items()}


def page_paths(edition: str = "") -> list[str]:
    return [f"{edition}{name}.html" for name in toc_files()]


def source_notebook(page: str) -> Path:
    """The notebook whose widget state a page shows: the English notebook behind an English page; behind a
    Chinese page, the Chinese notebook (the page is built from the English one, but shows the Chinese notebook's
    widgets, whose frames and labels are Chinese: scripts/i18n_sphinx.py)."""
    name = page.removeprefix(ZH).replace(".html", ".ipynb")
    return REPO / ("i18n/zh_CN/" if page.startswith(ZH) else "") / name


def notebook_widget_models(page: str) -> set[str]:
    """The widget model classes stored in the notebook behind a page (empty for markdown pages)."""
    notebook = source_notebook(page)
    if not notebook.exists():
        return set()
    state = json.loads(notebook.read_text())["metadata"].get("widgets", {})
    models = state.get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    return {model["model_name"] for model in models.values()}


def test_book_builds_without_warnings(build_log):
    warnings = [line for line in build_log.splitlines() if "WARNING" in line]
    assert not warnings, "the build warned:\n" + "\n".join(warnings)


class IdsAndLinks(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])


@functools.cache
def parse(page: Path) -> IdsAndLinks:
    """The ids and links of a built page (parsed once: every link to a page's anchor asks again)."""
    parser = IdsAndLinks()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_every_internal_link_and_anchor_resolves(site):
    broken = broken_links(site, page_paths())
    assert not broken, "broken links:\n" + "\n".join(broken)


def broken_links(site: str, pages: list[str]) -> list[str]:
    broken = []
    for page in pages:
        if not (SITE / page).exists():
            broken.append(f"{page}: listed in _toc.yml but not built")
            continue
        for href in parse(SITE / page).links:
            url = urljoin(f"{site}{page}", href)
            if not url.startswith(site):
                continue
            target, fragment = urldefrag(url)
            target_file = SITE / urlparse(target).path.lstrip("/")
            if target_file.is_dir():
                target_file = target_file / "index.html"
            if not target_file.exists() and target_file not in BOOK_PDFS:
                broken.append(f"{page}: {href} (no such file)")
            elif fragment and target_file.suffix == ".html" and fragment not in parse(target_file).ids:
                broken.append(f"{page}: {href} (no element with id '{fragment}')")
    return broken


@pytest.fixture(scope="module")
def audits(site, browser) -> dict[str, site_audit.PageAudit]:
    """Each page's audit, measured once (by the first test that asks for that page) and shared by the checks."""
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)  # no screenshot of a page or a naming that is gone
    return {}


def audited(audits, site, browser, page_path: str, screenshots: Path = SCREENSHOTS) -> site_audit.PageAudit:
    if page_path not in audits:
        try:
            audits[page_path] = audit_in_chromium(site, browser, page_path, screenshots)
        except Exception as error:  # kept, so that the page's other checks report it without retrying
            audits[page_path] = error
            raise
    if isinstance(audits[page_path], Exception):
        pytest.fail(f"{page_path}: the audit failed: {audits[page_path]!r}"[:2000], pytrace=False)
    return audits[page_path]


def audit_in_chromium(site: str, browser, page_path: str, screenshots: Path = SCREENSHOTS) -> site_audit.PageAudit:
    """Load the page in light and in dark mode (desktop, then phone), measure what tests/site_audit.py
    measures, operate every widget, check requests and errors, and save the screenshots."""
    other_hosts, failed, errors, checks = [], [], [], []

    def listen(page) -> None:
        page.on(
            "request",
            lambda request: (
                None if request.url.startswith((site, "data:", "blob:")) else other_hosts.append(request.url)
            ),
        )
        page.on("requestfailed", lambda request: failed.append(f"{request.url} ({request.failure})"))
        page.on(
            "response",
            lambda response: (
                failed.append(f"{response.url} (HTTP {response.status})") if response.status >= 400 else None
            ),
        )
        page.on("pageerror", lambda error: errors.append(str(error)))

    def check(page, mode: str) -> None:
        if mode != "light":
            return
        checks.extend(check_page(page, page_path))
        widget_models = notebook_widget_models(page_path)
        if widget_models:
            operate_every_control(page, page_path, WidgetState.of_notebook(source_notebook(page_path)))
            # After moving: the handles still announce what their readouts show.
            checks.extend(f"after moving the widgets, {problem}" for problem in slider_problems(page))

    audit = site_audit.audit_page(browser, site, page_path, screenshots, on_page=check, before_load=listen)
    unexpected_errors = [error for error in errors if error not in KNOWN_THEME_ERRORS]
    audit.mode_problems += checks
    # Each page loads twice (light, dark): list what both loads saw once.
    audit.mode_problems += [f"uncaught page error: {error}" for error in dict.fromkeys(unexpected_errors)]
    audit.mode_problems += [f"request to another host: {url}" for url in dict.fromkeys(other_hosts)]
    audit.mode_problems += [f"failed request: {request}" for request in dict.fromkeys(failed)]
    return audit


def slider_problems(page) -> list[str]:
    return [f"slider {s.label or '?'!r}: {p}" for s in site_audit.sliders(page) for p in s.problems()]


def check_page(page, page_path: str) -> list[str]:
    """Images loaded, widgets rendered, and (for chapters) the Colab link and badge."""
    problems = []
    if (
        notebook_widget_models(page_path)
        and not page.locator(".widget-slider, .widget-dropdown, .widget-toggle-buttons").count()
    ):
        problems.append("no widget control rendered")
    broken_images = page.evaluate(
        "Array.from(document.images).filter(img => !img.complete || img.naturalWidth === 0).map(img => img.src)"
    )
    if broken_images:
        problems.append(f"images that did not load: {broken_images}")
    if page_path.removeprefix(ZH).startswith("notebooks/"):
        # The Chinese edition opens the Chinese notebook (scripts/build_book.py: path_to_book i18n/zh_CN).
        notebook = page_path.removeprefix(ZH).replace(".html", ".ipynb")
        expected = colab_url(f"i18n/zh_CN/{notebook}" if page_path.startswith(ZH) else notebook)
        launch_links = page.eval_on_selector_all(
            "a[href^='https://colab.research.google.com']", "links => links.map(link => link.href)"
        )
        if expected not in launch_links:
            problems.append(f"no Colab launch link to {expected}; found {launch_links}")
        badge = page.locator(f"a[href='{expected}'] img[alt='Open in Colab']")
        if not (badge.count() == 1 and badge.evaluate("img => img.naturalWidth > 0")):
            problems.append("the Colab badge is not shown as an image")
    return problems


def fail_with(page_path: str, what: str, lines: list[str]) -> None:
    if lines:
        pytest.fail(f"{page_path}: {what}:\n  " + "\n  ".join(lines), pytrace=False)


@pytest.mark.parametrize("page_path", page_paths())
def test_page_loads_cleanly_and_every_widget_shows_its_frames(audits, site, browser, page_path):
    """Loads in light and dark mode without errors, failed requests or requests to other hosts; images load;
    the Colab badge links to the chapter; every control moves through the frames the stored state holds."""
    fail_with(page_path, "problems", audited(audits, site, browser, page_path).mode_problems)


@pytest.mark.parametrize("page_path", page_paths())
def test_nothing_overflows_on_desktop_and_widgets_fit_a_phone(audits, site, browser, page_path):
    """1280x800: no visible code, output, table, HTML output or widget frame wider than its box.
    390x844: widgets, figures and the book's HTML outputs fit the column, slider tracks are usable."""
    lines = overflow_lines(audited(audits, site, browser, page_path))
    fail_with(page_path, f"{len(lines)} blocks too wide", lines)


@pytest.mark.parametrize("page_path", page_paths())
def test_no_axe_violations_in_light_and_dark_mode(audits, site, browser, page_path):
    """axe-core at WCAG 2.1 A/AA: none in the book's content; in the theme, only the rules
    site_audit.KNOWN_THEME_VIOLATIONS lists with a reason."""
    lines = axe_lines(audited(audits, site, browser, page_path))
    fail_with(page_path, f"{len(lines)} axe violations", lines)


@pytest.mark.parametrize("page_path", page_paths())
def test_sliders_are_named_and_announce_their_readout_and_images_have_alt_text(audits, site, browser, page_path):
    lines = slider_and_alt_lines(audited(audits, site, browser, page_path))
    fail_with(page_path, "sliders or images", lines)


# Where the sidebars and the article column are: the phone layout, to compare a resized page with a loaded one.
LAYOUT_JS = """() => Object.fromEntries(['.bd-sidebar-primary', '.bd-sidebar-secondary', 'article.bd-article'].map(
    selector => {
        const element = document.querySelector(selector);
        const rect = element.getBoundingClientRect();
        const shown = element.checkVisibility({checkVisibilityCSS: true});
        return [selector, [Math.round(rect.left), Math.round(rect.right), shown]];
    }))"""
# The theme's transitions slowed to a crawl, so that a measurement right after a resize sees the layout in
# transition whatever the machine's speed.
SLOW_TRANSITIONS_CSS = (
    "*, *::before, *::after { transition-duration: 600s !important; transition-delay: 0s !important; }"
)


def test_the_phone_checks_measure_the_layout_of_a_page_loaded_on_a_phone(site, browser):
    """A page resized from 1280 px to a phone's 390 px shows the desktop sidebars over a clipped column until the
    theme's transitions end (issue #44: every phone screenshot showed them). Measured in transition (slowed down
    here), the phone check reports the sidebars; resized as audit_page resizes before it measures and photographs
    (site_audit.resize: the layout settled), the page has the layout and the phone findings of the same page
    loaded at 390 px."""
    url = f"{site}notebooks/01_why_padding_wastes_compute.html"
    page, problems = site_audit.open_page(browser, url, "light", site_audit.DESKTOP)
    try:
        assert not problems, problems
        slow = page.add_style_tag(content=SLOW_TRANSITIONS_CSS)
        page.set_viewport_size(site_audit.PHONE)
        in_transition = [block["text"] for block in site_audit.phone_overflow(page) if block["kind"] == "sidebar"]
        assert in_transition, "the phone check does not see the desktop sidebars of a layout in transition"
        slow.evaluate("style => { style.remove(); document.getAnimations().forEach(animation => animation.finish()); }")
        site_audit.resize(page, site_audit.DESKTOP)
        site_audit.resize(page, site_audit.PHONE)  # at the theme's own pace, as audit_page resizes
        resized = page.evaluate(LAYOUT_JS), site_audit.phone_overflow(page)
        loaded = page.context.new_page()
        loaded.set_viewport_size(site_audit.PHONE)
        loaded.goto(url, wait_until="load")
        loaded.wait_for_load_state("networkidle")
        loaded.wait_for_function(site_audit.WIDGETS_RENDERED_JS, timeout=20_000)
        assert resized == (loaded.evaluate(LAYOUT_JS), site_audit.phone_overflow(loaded))
        assert not [block for block in resized[1] if block["kind"] in ("sidebar", "column")], resized
    finally:
        page.context.close()


def overflow_lines(audit: site_audit.PageAudit) -> list[str]:
    lines = [f"{m} 1280x800: {site_audit.describe_block(b)}" for m, bs in audit.desktop_overflow.items() for b in bs]
    lines += [f"{m} 390x844: {site_audit.describe_block(b)}" for m, bs in audit.phone_overflow.items() for b in bs]
    return lines


def axe_lines(audit: site_audit.PageAudit) -> list[str]:
    lines = []
    for mode in site_audit.MODES:
        lines += [f"{mode}, content: {site_audit.describe_violation(v)}" for v in audit.content_violations(mode)]
        lines += [f"{mode}, theme: {site_audit.describe_violation(v)}" for v in audit.theme_violations(mode)]
    return lines


def slider_and_alt_lines(audit: site_audit.PageAudit) -> list[str]:
    lines = audit.slider_problems()
    return lines + [f"image {image['src']}: {site_audit.bad_alt_reason(image)}" for image in audit.bad_images()]


# The frames on screen: the HTML of every rendered HTML widget, in document order (a Stack renders only its
# selected child). The expected frames are the stored HTML, serialized by the browser the same way.
FRAMES_ON_SCREEN_JS = "() => Array.from(document.querySelectorAll('.widget-html-content'), e => e.innerHTML)"
AS_BROWSER_SERIALIZES_JS = """htmls => htmls.map(html => {
    const div = document.createElement('div'); div.innerHTML = html; return div.innerHTML; })"""
FRAMES_MATCH_JS = """expected => JSON.stringify(Array.from(document.querySelectorAll('.widget-html-content'),
    e => e.innerHTML)) === JSON.stringify(expected)"""
# Both slider kinds render as .widget-slider: the page's sliders pair with the state's, in order.
CONTROL_SELECTORS = {
    "IntSliderModel": ".widget-slider",
    "SelectionSliderModel": ".widget-slider",
    "DropdownModel": ".widget-dropdown select",
}
MAX_COMBINATIONS = 100  # beyond this, each control is moved alone through all its choices


def operate_every_control(page, page_path: str, state: WidgetState) -> None:
    """Move every control through every choice and check that the frames the browser shows each time are the
    frames the stored state says belong to those choices (not just that something on screen changed)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    controls = state.controls()
    unsupported = {state.name(control) for control in controls} - set(CONTROL_SELECTORS)
    assert not unsupported, f"{page_path}: no way to operate {unsupported}: extend CONTROL_SELECTORS"
    traits = [SUPPORTED_CONTROLS[state.name(control)] for control in controls]
    elements = {}
    for selector in dict.fromkeys(CONTROL_SELECTORS.values()):
        of_kind = [control for control in controls if CONTROL_SELECTORS[state.name(control)] == selector]
        found = page.locator(selector)
        assert found.count() == len(of_kind), (
            f"{page_path}: the stored state shows {len(of_kind)} controls drawn as '{selector}', "
            f"the page {found.count()}"
        )
        elements.update({control: found.nth(index) for index, control in enumerate(of_kind)})
    start = state.initial_values()
    values = dict(start)

    def frames_for(setting) -> list[str]:
        chosen = {(control, trait): choice for control, trait, choice in zip(controls, traits, setting, strict=True)}
        return state.frames_on_screen(state.propagate(start, chosen))

    choices = [state.choices(control) for control in controls]
    settings = list(itertools.product(*choices))
    if len(settings) > MAX_COMBINATIONS:
        first = [start[control, trait] for control, trait in zip(controls, traits, strict=True)]
        settings = [(*first[:k], choice, *first[k + 1 :]) for k, options in enumerate(choices) for choice in options]
    # Wherever the other controls stand, moving a control must change the frames: else the stored state links
    # it to no frame there, and the browser would agree with the state that nothing moves.
    for k, control in enumerate(controls):
        groups: dict[tuple, set] = {}
        for setting in settings:
            groups.setdefault(setting[:k] + setting[k + 1 :], set()).add(tuple(frames_for(setting)))
        still = [others for others, seen in groups.items() if len(seen) < 2]
        assert not still, (
            f"{page_path}: moving the {state.name(control)} changes no frame on screen (other controls at {still[0]})"
        )

    def expect_frames(situation: str) -> None:
        expected = page.evaluate(AS_BROWSER_SERIALIZES_JS, state.frames_on_screen(values))
        try:
            page.wait_for_function(FRAMES_MATCH_JS, arg=expected, timeout=5_000)
        except PlaywrightTimeout:
            shown = page.evaluate(FRAMES_ON_SCREEN_JS)
            wrong = next(i for i, pair in enumerate(itertools.zip_longest(shown, expected)) if pair[0] != pair[1])
            pytest.fail(
                f"{page_path}: {situation}: the page shows {len(shown)} frames, the stored state says "
                f"{len(expected)}; frame {wrong} differs:\n  shown    {str(shown[wrong : wrong + 1])[:300]}"
                f"\n  expected {str(expected[wrong : wrong + 1])[:300]}",
                pytrace=False,
            )

    def choose(control: str, trait: str, choice: int) -> None:
        current = values[control, trait]
        element = elements[control]
        if state.name(control) in ("IntSliderModel", "SelectionSliderModel"):
            handle = element.locator(".noUi-handle").first
            handle.focus()
            model = state.models[control]["state"]
            for _ in range(abs(choice - current) // model.get("step", 1)):
                handle.press("ArrowRight" if choice > current else "ArrowLeft")
            shown = model["_options_labels"][choice] if "_options_labels" in model else str(choice)
            expect(element.locator(".widget-readout").first).to_have_text(shown, timeout=5_000)
        else:
            element.select_option(index=choice)
        values.update(state.propagate(values, {(control, trait): choice}))

    expect_frames("as loaded")
    for setting in settings:
        for control, trait, choice in zip(controls, traits, setting, strict=True):
            if values[control, trait] != choice:
                choose(control, trait, choice)
        described = ", ".join(
            f"{state.models[control]['state'].get('description') or state.name(control)}={choice}"
            for control, choice in zip(controls, setting, strict=True)
        )
        expect_frames(f"with {described}")


@pytest.mark.parametrize("edition", ["", ZH], ids=["en", "zh"])
def test_moved_pages_forward_to_their_new_place_with_the_section(site, browser, edition):
    """An old address (a bookmark, a link from elsewhere) lands on the page's new place, #section included."""
    from build_book import MOVED_PAGES

    context = browser.new_context()
    try:
        page = context.new_page()
        for old, new in MOVED_PAGES.items():
            assert (SITE / f"{edition}{new}.html").exists(), f"{old} forwards to {new}, which was not built"
            page.goto(f"{site}{edition}{old}.html#summary")
            page.wait_for_url(f"**/{edition}{new}.html#summary", timeout=10_000)
    finally:
        context.close()


def test_the_footer_names_the_release_or_the_commit_date_and_the_torch_of_the_outputs():
    main = {"tag": None, "label": "main (2026-12-02)", "commit_date": "2026-12-02", "torch": "2.13.0"}
    release = {"tag": "v2026.12", "label": "v2026.12", "commit_date": "2026-12-02", "torch": "2.13.0"}
    assert site_edition.footer_text(release, "en") == "Edition v2026.12 · outputs stored with torch 2.13.0"
    assert site_edition.footer_text(main, "en") == "Edition main (2026-12-02) · outputs stored with torch 2.13.0"
    assert site_edition.footer_text(release, "zh") == "版本 v2026.12 · 输出由 torch 2.13.0 生成"
    assert site_edition.footer_text(main, "zh") == "版本 main（2026-12-02）· 输出由 torch 2.13.0 生成"


@pytest.mark.parametrize("edition", ["", ZH], ids=["en", "zh"])
def test_every_page_shows_the_edition_in_its_footer(build_log, edition):
    """The edition of this checkout (scripts/edition.py) and the torch pin, in the footer of every page."""
    found = edition_module.edition()
    assert found["torch"] in (REPO / "requirements.txt").read_text()
    expected = site_edition.footer_text(found, LANGUAGE[edition])
    wrong = {}
    for page in page_paths(edition):
        footer = (SITE / page).read_text(encoding="utf-8").partition('<footer class="bd-footer-content">')[2]
        shown = re.findall(r'<p class="ppt-edition">(.*?)</p>', footer)
        if [unescape(text) for text in shown] != [expected]:
            wrong[page] = shown
    assert not wrong, f"footers without {expected!r}: {wrong}"


@pytest.mark.parametrize("edition", ["", ZH], ids=["en", "zh"])
def test_every_page_offers_the_book_pdf_of_its_edition(build_log, edition):
    """The header's download menu links the whole book's PDF in the page's language, relative to the page (any
    baseurl, any subfolder)."""
    pdf = SITE / edition / site_edition.BOOK_PDF[LANGUAGE[edition]]
    wrong = {}
    for page in page_paths(edition):
        html = (SITE / page).read_text(encoding="utf-8")
        menu = re.search(r'<div class="dropdown dropdown-download-buttons">.*?</ul>', html, flags=re.DOTALL)
        hrefs = re.findall(r'<a href="([^"]*)"[^>]*\bbtn-download-book-pdf-button\b', menu[0] if menu else "")
        expected = os.path.relpath(pdf, (SITE / page).parent)
        if hrefs != [expected]:
            wrong[page] = hrefs
    assert not wrong, f"download menus without the link to {pdf.relative_to(SITE)}: {wrong}"
