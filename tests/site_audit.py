"""What a reader of the website would notice, measured in Chromium: overflowing blocks, axe-core violations in
light and dark mode, sliders' accessible names and value text, image alt text.

Used by tests/test_site.py (which builds into _build/html) and runnable by hand on the CURRENT working tree
(or a commit, --rev HEAD), which it copies and builds into a private temporary folder (the repository's _build/
is never touched):

    .venv/bin/python tests/site_audit.py notebooks/04_bidirectional_pitfalls.html [more pages]
    .venv/bin/python tests/site_audit.py --all            # every page of _toc.yml
    .venv/bin/python tests/site_audit.py --site _build/html notebooks/04_bidirectional_pitfalls.html

Per page it prints
  a. desktop (1280x800): every visible code block, text output, table, HTML output and widget frame in the
     article whose content is wider than its box (folded cells do not count);
  b. phone (390x844, the layout settled): a sidebar that still shows (the theme slides them off-canvas) or an
     article column narrower than the screen; widgets, figures and the book's own HTML outputs wider than the
     column, and slider tracks too short to use (code may scroll sideways on a phone, so it is not listed);
  c. axe-core (WCAG 2.1 A/AA) violations in light and dark mode, split into "book content" (the article's
     cells and text) and "theme" (header, sidebars, search, footer, buttons the theme adds);
  d. every slider's accessible name and announced value next to its label and readout; images without a
     real alt text (empty, or a file name).
Exit status 1 when anything is listed (theme violations in KNOWN_THEME_VIOLATIONS excepted), else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from local_server import serve

AXE_JS = REPO / "node_modules" / "axe-core" / "axe.min.js"
DEBIAN_CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MODES = ("light", "dark")
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# Theme violations we cannot fix with the book's CSS/JS: rule id -> one-line reason. Anything else fails.
KNOWN_THEME_VIOLATIONS: dict[str, str] = {}
# A slider track shorter than this on a phone is too short to drag (ipywidgets' own default is 148 px).
MIN_SLIDER_TRACK_PX = 100
# Screens saved whole (full page); the others are saved as their first screen plus each widget. A whole page
# costs seconds (40 s for the 14 pages at 1280 px on 2 cores, as much as loading them), so by default none is;
# PPT_FULL_PAGE_SCREENSHOTS=1 (tests/test_site.py) or --full-page (this CLI) saves every screen whole.
FULL_PAGE_SCREENSHOTS: set[tuple[str, str]] = (
    {(screen, mode) for screen in ("desktop", "phone") for mode in ("light", "dark")}
    if os.environ.get("PPT_FULL_PAGE_SCREENSHOTS") == "1"
    else set()
)
WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'

# The pydata theme reads the colour mode from localStorage before it paints (an inline script in <head>).
SET_MODE_JS = "mode => { localStorage.setItem('mode', mode); localStorage.setItem('theme', mode); }"

# Every widget view script has a rendered .widget-subarea beside it (the html-manager inserts one per view).
WIDGETS_RENDERED_JS = f"""() => {{
    const views = document.querySelectorAll('{WIDGET_VIEW}');
    return Array.from(views).every(view => view.parentElement.querySelector('.widget-subarea > *'));
}}"""

# Shared by the overflow checks: which blocks count, how they are named, whether they are visible.
HELPERS_JS = r"""
const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
const visible = el => el.checkVisibility({checkVisibilityCSS: true}) && el.getClientRects().length > 0
    && !el.closest('details:not([open]) > :not(summary)');
const snippet = el => (el.innerText || el.getAttribute('alt') || el.getAttribute('src') || '')
    .replace(/\s+/g, ' ').trim().slice(0, 50);
const kindOf = el => {
    if (el.matches('img, figure')) return 'figure';
    if (el.closest('.jupyter-widgets, .widget-subarea')) return 'widget';
    if (el.matches('table') || el.matches('.pst-scrollable-table-container')) {
        return el.closest('.cell_output') ? 'html-table' : 'table';
    }
    if (el.closest('.cell_input')) return 'code';
    if (el.closest('.cell_output')) return el.matches('pre') ? 'output' : 'html';
    return 'code';  // a fenced code block in the text
};
const columnRect = article.getBoundingClientRect();
const report = (el, content, box) => ({kind: kindOf(el), text: snippet(el), content: Math.round(content),
                                        box: Math.round(box)});
"""

# a. Desktop: a block's content wider than its box (scrollWidth > clientWidth + 1), or a block that sticks out
# of the article column. Tables are measured by the scrolling container the theme wraps them in.
DESKTOP_OVERFLOW_JS = (
    "() => {"
    + HELPERS_JS
    + r"""
    const blocks = new Set();
    for (const el of article.querySelectorAll('pre, .output.text_html, .widget-html-content, table')) {
        if (el.matches('table')) {
            blocks.add(el.closest('.pst-scrollable-table-container') || el);
        } else if (!(el.matches('.output.text_html') && el.querySelector('.widget-subarea'))) {
            blocks.add(el);
        }
    }
    const found = [];
    let counted = 0;
    for (const el of blocks) {
        if (!visible(el)) continue;
        counted += 1;
        const rect = el.getBoundingClientRect();
        const content = Math.max(el.scrollWidth, rect.width);
        const box = Math.min(el.clientWidth || rect.width, columnRect.width);
        if (el.scrollWidth > el.clientWidth + 1 || rect.right > columnRect.right + 1
                || rect.left < columnRect.left - 1) {
            found.push(report(el, content, box));
        }
    }
    return {counted, found};
}"""
)

# b. Phone: the theme's phone layout (both sidebars off-canvas, the article column as wide as the screen, less
# its padding); widgets, figures and the book's own HTML outputs must fit the column; slider tracks must be usable.
PHONE_COLUMN_SHARE = 0.9
PHONE_OVERFLOW_JS = (
    "minTrack => {"
    + HELPERS_JS
    + r"""
    const width = document.documentElement.clientWidth;
    const found = [];
    for (const sidebar of document.querySelectorAll('.bd-sidebar-primary, .bd-sidebar-secondary')) {
        const rect = sidebar.getBoundingClientRect();
        const onScreen = Math.min(rect.right, width) - Math.max(rect.left, 0);
        if (visible(sidebar) && onScreen > 1) {
            found.push({kind: 'sidebar', text: sidebar.className.match(/bd-sidebar-\w+/)[0],
                        content: Math.round(onScreen), box: width});
        }
    }
    if (columnRect.width < """
    + str(PHONE_COLUMN_SHARE)
    + r""" * width) {
        found.push({kind: 'column', text: 'article', content: Math.round(columnRect.width), box: width});
    }
    const right = Math.min(columnRect.right, document.documentElement.clientWidth);
    const selector = '.widget-subarea > *, .widget-html-content, .widget-slider, .widget-dropdown, '
        + '.cell_output img, article img, figure, .cell_output .output.text_html, .cell_output table';
    for (const el of article.querySelectorAll(selector)) {
        if (!visible(el)) continue;
        const rect = el.getBoundingClientRect();
        if (el.scrollWidth > el.clientWidth + 1 || rect.right > right + 1 || rect.left < columnRect.left - 1) {
            found.push(report(el, Math.max(el.scrollWidth, rect.width), Math.min(el.clientWidth || rect.width,
                                                                                  right - columnRect.left)));
        }
    }
    for (const track of article.querySelectorAll('.widget-slider .noUi-target')) {
        if (!visible(track)) continue;
        const width = track.getBoundingClientRect().width;
        if (width < minTrack) {
            const slider = track.closest('.widget-slider');
            found.push({kind: 'slider-track', text: snippet(slider), content: Math.round(width), box: minTrack});
        }
    }
    return found;
}"""
)

# c. axe-core, then each node classified by where it is: the article's own content, or the theme around it.
AXE_JS_RUN = r"""async tags => {
    const results = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
    // Inside the article, the theme and its extensions add buttons: fold toggles, copy buttons, heading links.
    const themeParts = 'details.hide > summary, .toggle-button, button.copybtn, a.headerlink, .prev-next-area, '
        + '.prev-next-footer, .bd-header-article, .bd-footer-article, .bd-sidebar-secondary';
    const where = target => {
        let el = null;
        try { el = document.querySelector(Array.isArray(target) ? target[target.length - 1] : target); }
        catch (error) { return 'theme'; }
        if (!el) return 'theme';
        const article = el.closest('article.bd-article');
        return article && !el.closest(themeParts) ? 'content' : 'theme';
    };
    // axe's "(foreground color: #999999, background color: #ffffff, font size: 12.0pt (16px), font weight:
    // normal)", shortened to "(#999999 on #ffffff, 16px normal)".
    const colours = new RegExp('\\(foreground color: (#\\w+), background color: (#\\w+), '
                               + 'font size: [^(]+\\((\\d+px)\\), font weight: (\\w+)\\)');
    const out = [];
    for (const violation of results.violations) {
        for (const node of violation.nodes) {
            const summary = (node.failureSummary || violation.help)
                .replace(/^Fix (any|all) of the following:\s*/, '')
                .replace(/\s*\n\s*/g, '; ')
                .replace(colours, '($1 on $2, $3 $4)');
            out.push({rule: violation.id, where: where(node.target), target: node.target.join(' >> '),
                      summary: summary.slice(0, 160), html: node.html.slice(0, 120)});
        }
    }
    return out;
}"""

# d. Sliders: label and readout as shown; the accessible name comes from Chromium's accessibility tree (CDP),
# i.e. what a screen reader is given. The value a screen reader announces is aria-valuetext, else aria-valuenow
# (ARIA 1.2); it is read from the DOM, because Chromium's CDP does not report aria-valuetext (its "valuetext"
# property stays empty when the attribute is set).
SLIDERS_JS = r"""() => Array.from(document.querySelectorAll('.widget-slider'), slider => {
    const handle = slider.querySelector('[role=slider]');
    const number = Number(handle?.getAttribute('aria-valuenow'));
    return {
        label: (slider.querySelector('.widget-label')?.innerText || '').trim(),
        readout: (slider.querySelector('.widget-readout')?.innerText || '').trim(),
        value: handle?.getAttribute('aria-valuetext') || (Number.isFinite(number) ? String(number) : ''),
    };
})"""
IMAGES_JS = r"""() => Array.from(document.querySelectorAll('article img, .bd-main img'), img => ({
    src: img.getAttribute('src') || '', alt: img.getAttribute('alt'),
}))"""
FILE_NAME_ALT = re.compile(r"(^|/|\\)[\w.-]+\.(png|jpe?g|svg|gif|webp)$|^\.\.?/|_images/", re.IGNORECASE)


@dataclass
class Slider:
    label: str
    readout: str
    name: str  # the handle's accessible name
    value: str  # what a screen reader announces as its value (valuetext, else valuenow)

    def problems(self) -> list[str]:
        found = []
        if not self.name.strip():
            found.append("no accessible name")
        elif self.label and self.label not in self.name:
            found.append(f"accessible name {self.name!r} is not its label {self.label!r}")
        if self.readout and self.value != self.readout:
            found.append(f"announces {self.value!r} while the readout shows {self.readout!r}")
        return found


@dataclass
class PageAudit:
    page: str
    desktop_blocks: int = 0
    desktop_overflow: dict[str, list[dict]] = field(default_factory=dict)  # mode -> blocks
    phone_overflow: dict[str, list[dict]] = field(default_factory=dict)
    axe: dict[str, list[dict]] = field(default_factory=dict)  # mode -> violations
    sliders: list[Slider] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    mode_problems: list[str] = field(default_factory=list)

    def content_violations(self, mode: str) -> list[dict]:
        return [v for v in self.axe.get(mode, []) if v["where"] == "content"]

    def theme_violations(self, mode: str, known: dict[str, str] = KNOWN_THEME_VIOLATIONS) -> list[dict]:
        return [v for v in self.axe.get(mode, []) if v["where"] == "theme" and v["rule"] not in known]

    def bad_images(self) -> list[dict]:
        return [image for image in self.images if bad_alt_reason(image) is not None]

    def slider_problems(self) -> list[str]:
        return [f"slider {s.label or '?'!r}: {p}" for s in self.sliders for p in s.problems()]

    def failures(self, known: dict[str, str] = KNOWN_THEME_VIOLATIONS) -> list[str]:
        lines = list(self.mode_problems)
        for mode, blocks in self.desktop_overflow.items():
            lines += [f"{mode} 1280x800 overflow: {describe_block(b)}" for b in blocks]
        for mode, blocks in self.phone_overflow.items():
            lines += [f"{mode} 390x844 too wide: {describe_block(b)}" for b in blocks]
        for mode in self.axe:
            lines += [f"{mode} axe content: {describe_violation(v)}" for v in self.content_violations(mode)]
            lines += [f"{mode} axe theme: {describe_violation(v)}" for v in self.theme_violations(mode, known)]
        lines += self.slider_problems()
        lines += [f"image {image['src']}: {bad_alt_reason(image)}" for image in self.bad_images()]
        return lines


def bad_alt_reason(image: dict) -> str | None:
    alt = image["alt"]
    if alt is None:
        return "no alt attribute"
    if not alt.strip():
        return "empty alt text"
    if FILE_NAME_ALT.search(alt.strip()):
        return f"alt text is a file name ({alt[:60]})"
    return None


def describe_block(block: dict) -> str:
    return f"{block['kind']} {block['content']} px in {block['box']} px: {block['text']!r}"


def describe_violation(violation: dict) -> str:
    return f"{violation['rule']} at {violation['target'][:90]}: {violation['summary'][:140]}"


# ---------------------------------------------------------------------------------------------------------
# Building and serving


def working_tree_files() -> list[str]:
    """Tracked and untracked-but-not-ignored files of the repository (the working tree as it is now)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name]


def build_private_copy(folder: Path, rev: str | None = None) -> Path:
    """Copy the working tree (or the commit `rev`) into `folder` and build the book there; return its html
    folder."""
    source = folder / "book-source"
    source.mkdir(parents=True)
    if rev is not None:
        archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=REPO, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    for name in working_tree_files() if rev is None else []:
        path = REPO / name
        if path.is_file():
            target = source / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    build = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_book.py"), "--source", str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if build.returncode != 0:
        raise RuntimeError(f"the build failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}")
    warnings = [line for line in (build.stdout + build.stderr).splitlines() if "WARNING" in line]
    for line in warnings:
        print(f"build: {line}", file=sys.stderr)
    return source / "_build" / "html"


@contextlib.contextmanager
def chromium() -> Iterator:
    """One Chromium (Debian's, else Playwright's own) for everything."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=DEBIAN_CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# ---------------------------------------------------------------------------------------------------------
# Measuring one page


def open_page(browser, url: str, mode: str, viewport: dict, before_load=None):
    """A new page at `url` in colour `mode` and `viewport`, loaded, widgets rendered. Returns (page, problems).
    `before_load(page)` can attach listeners (requests, errors) before the page loads."""
    context = browser.new_context(viewport=viewport, color_scheme=mode)
    context.add_init_script(f"({SET_MODE_JS})({json.dumps(mode)})")
    page = context.new_page()
    if before_load is not None:
        before_load(page)
    # "load" first: Playwright can report the network idle while Chromium is still parsing a long page
    # (scripts/build_pdf.py's READY_JS says how that cut the PDFs short); after "load" the page is whole.
    response = page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    problems = []
    if response is None or response.status != 200:
        problems.append(f"{mode}: HTTP {response and response.status}")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(WIDGETS_RENDERED_JS, timeout=20_000)
    except PlaywrightTimeout:  # reported, not raised: the caller decides
        problems.append(f"{mode}: widgets did not render within 20 s")
    shown = page.evaluate("() => document.documentElement.dataset.theme")
    if shown != mode:
        problems.append(f"{mode}: the page shows data-theme={shown!r}, not {mode!r}")
    return page, problems


def desktop_overflow(page) -> dict:
    return page.evaluate(DESKTOP_OVERFLOW_JS)


def phone_overflow(page) -> list[dict]:
    return page.evaluate(PHONE_OVERFLOW_JS, MIN_SLIDER_TRACK_PX)


# After a resize the theme slides its sidebars off-canvas in CSS transitions: until they end, a page resized to a
# phone shows the desktop sidebars over the column. Started by the next style recalculation (the first frame),
# they are then awaited, for at most 10 s (the phone check then reports what still shows); other animations (a
# widget's spinner may never end) are not.
SETTLED_JS = """async () => {
    await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const transitions = document.getAnimations().filter(animation => animation instanceof CSSTransition);
    const ended = Promise.all(transitions.map(transition => transition.finished.catch(() => null)));
    await Promise.race([ended, new Promise(resolve => setTimeout(resolve, 10000))]);
}"""


def resize(page, viewport: dict) -> None:
    """Resize the page and wait until its layout has settled: what a page loaded at that size shows."""
    page.set_viewport_size(viewport)
    page.evaluate(SETTLED_JS)


def axe_violations(page) -> list[dict]:
    if not AXE_JS.exists():
        raise FileNotFoundError(f"{AXE_JS} is missing: run `npm ci --ignore-scripts` (package-lock.json pins axe-core)")
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    return page.evaluate(AXE_JS_RUN, AXE_TAGS)


def sliders(page) -> list[Slider]:
    """Each slider's label and readout, and its handle's accessible name and value from Chromium's AX tree."""
    shown = page.evaluate(SLIDERS_JS)
    if not shown:
        return []
    cdp = page.context.new_cdp_session(page)
    found = []
    try:
        for index, slider in enumerate(shown):
            handle = cdp.send(
                "Runtime.evaluate",
                {"expression": f"document.querySelectorAll('.widget-slider')[{index}].querySelector('[role=slider]')"},
            )["result"]
            name = ""
            if handle.get("objectId"):
                node = cdp.send(
                    "Accessibility.getPartialAXTree", {"objectId": handle["objectId"], "fetchRelatives": False}
                )["nodes"][0]
                name = str(node.get("name", {}).get("value", ""))
            found.append(Slider(slider["label"], slider["readout"], name, slider["value"]))
    finally:
        cdp.detach()
    return found


def images(page) -> list[dict]:
    return page.evaluate(IMAGES_JS)


def audit_page(
    browser, base: str, page_path: str, screenshots: Path | None = None, on_page=None, before_load=None
) -> PageAudit:
    """Everything above for one page, in dark and light mode, from one load: loaded in dark mode (the mode a
    reader stored, read before the first paint) and measured at 1280x800; switched to light as the theme's switch
    does (set_mode) and measured again; then resized to 390x844 and measured once the layout has settled, in light
    and in dark (the theme's layout is CSS media queries, so a settled resize gives the phone layout;
    tests/test_site.py compares it with a page loaded at 390x844). `before_load(page)` runs before the load,
    `on_page(page, "light")` after the light desktop checks (tests/test_site.py listens to requests and errors,
    and operates the widgets there)."""
    audit = PageAudit(page_path)
    page, problems = open_page(browser, f"{base}{page_path}", "dark", DESKTOP, before_load)
    try:
        audit.mode_problems += problems
        for mode in ("dark", "light"):
            audit.mode_problems += set_mode(page, mode)
            overflow = desktop_overflow(page)
            audit.desktop_blocks = max(audit.desktop_blocks, overflow["counted"])
            audit.desktop_overflow[mode] = overflow["found"]
            audit.axe[mode] = axe_violations(page)
            if mode == "light":
                audit.sliders = sliders(page)
                audit.images = images(page)
                if on_page is not None:
                    on_page(page, mode)
            if screenshots is not None:
                save_screenshot(page, screenshots, page_path, "desktop", mode)
        resize(page, PHONE)
        for mode in ("light", "dark"):
            audit.mode_problems += set_mode(page, mode)
            audit.phone_overflow[mode] = phone_overflow(page)
            if screenshots is not None:
                save_screenshot(page, screenshots, page_path, "phone", mode)
    finally:
        page.context.close()
    return audit


# What the theme's own switch does (pydata-sphinx-theme's setMode, for a mode chosen by the reader): the mode and
# the theme on <html>, the dropdown menus' dark class, and both in localStorage for the next page.
SWITCH_MODE_JS = """mode => {
    document.documentElement.dataset.mode = mode;
    document.documentElement.dataset.theme = mode;
    document.querySelectorAll('.dropdown-menu').forEach(
        menu => menu.classList.toggle('dropdown-menu-dark', mode === 'dark'));
    localStorage.setItem('mode', mode);
    localStorage.setItem('theme', mode);
}"""


def set_mode(page, mode: str) -> list[str]:
    """Show the loaded page in colour `mode` as the theme's switch would, its colours settled; a problem if the
    page does not show it."""
    if page.evaluate("() => document.documentElement.dataset.theme") != mode:
        page.evaluate(SWITCH_MODE_JS, mode)
        page.evaluate(SETTLED_JS)
    shown = page.evaluate("() => document.documentElement.dataset.theme")
    return [] if shown == mode else [f"{mode}: the page shows data-theme={shown!r}, not {mode!r}"]


def screenshot_path(folder: Path, page_path: str, screen: str, mode: str, part: str = "") -> Path:
    return folder / f"{page_path.replace('/', '__').removesuffix('.html')}.{screen}-{mode}{part}.png"


def save_screenshot(page, folder: Path, page_path: str, screen: str, mode: str) -> None:
    """The first screen (or the whole page, see FULL_PAGE_SCREENSHOTS), and each widget alone: where dark mode
    and the phone layout matter most."""
    folder.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    full_page = (screen, mode) in FULL_PAGE_SCREENSHOTS
    page.screenshot(path=str(screenshot_path(folder, page_path, screen, mode)), full_page=full_page, timeout=120_000)
    widgets = page.locator("article .widget-subarea")
    for index in range(widgets.count()):
        widgets.nth(index).screenshot(
            path=str(screenshot_path(folder, page_path, screen, mode, f".widget{index + 1}")), timeout=60_000
        )


# ---------------------------------------------------------------------------------------------------------
# The command line


def print_blocks(label: str, blocks_by_mode: dict[str, list], what: str) -> None:
    """One line per mode with the count of blocks, then each block; dark is folded when it equals light."""
    for mode in MODES:
        blocks = blocks_by_mode.get(mode, [])
        if mode == "dark" and blocks == blocks_by_mode.get("light"):
            print(f"  {label}, dark: the same as light")
            continue
        print(f"  {label}, {mode}: {len(blocks)} {what}")
        for block in blocks:
            print(f"       {describe_block(block)}")


def print_audit(audit: PageAudit, verbose_theme: bool) -> None:
    print(f"\n=== {audit.page}")
    for problem in audit.mode_problems:
        print(f"  ! {problem}")
    print_blocks("a. desktop 1280x800", audit.desktop_overflow, f"of {audit.desktop_blocks} visible blocks overflow")
    print_blocks(
        "b. phone 390x844",
        audit.phone_overflow,
        "sidebars shown, or widgets/figures/HTML outputs too wide or too short",
    )
    for mode in MODES:
        content = audit.content_violations(mode)
        theme = [v for v in audit.axe.get(mode, []) if v["where"] == "theme"]
        print(f"  c. axe {mode}: {len(content)} in book content, {len(theme)} in the theme")
        for violation in content:
            print(f"       content {describe_violation(violation)}")
        for rule, items in group_by_rule(theme).items():
            known = " (known: " + KNOWN_THEME_VIOLATIONS[rule] + ")" if rule in KNOWN_THEME_VIOLATIONS else ""
            print(f"       theme {rule} x{len(items)}{known}: {items[0]['target'][:70]}: {items[0]['summary'][:90]}")
            if verbose_theme:
                for item in items[1:]:
                    print(f"         {item['target'][:70]}: {item['summary'][:90]}")
    print(f"  d. {len(audit.sliders)} sliders, {len(audit.images)} images")
    for slider in audit.sliders:
        verdict = "; ".join(slider.problems()) or "ok"
        print(
            f"       slider label {slider.label!r} readout {slider.readout!r} -> name {slider.name!r} "
            f"value {slider.value!r}: {verdict}"
        )
    for image in audit.images:
        reason = bad_alt_reason(image)
        if reason:
            print(f"       image {image['src'][-50:]}: {reason}")


def group_by_rule(violations: list[dict]) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = {}
    for violation in violations:
        grouped.setdefault(violation["rule"], []).append(violation)
    return grouped


def toc_pages() -> list[str]:
    import yaml

    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    files = [toc["root"]] + [chapter["file"] for part in toc.get("parts", []) for chapter in part["chapters"]]
    return [f"{name}.html" for name in files]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the working tree privately and audit pages in Chromium (overflow, axe, sliders, alt).",
        epilog="Example: .venv/bin/python tests/site_audit.py notebooks/04_bidirectional_pitfalls.html",
    )
    parser.add_argument("pages", nargs="*", help="pages as in the site, e.g. notebooks/04_bidirectional_pitfalls.html")
    parser.add_argument("--all", action="store_true", help="every page of _toc.yml")
    parser.add_argument("--site", type=Path, help="audit this already built html folder instead of building")
    parser.add_argument("--rev", help="build this commit (e.g. HEAD) instead of the working tree")
    parser.add_argument("--screenshots", type=Path, help="save desktop/phone x light/dark screenshots here")
    parser.add_argument("--full-page", action="store_true", help="screenshots of whole pages in every mode")
    parser.add_argument("--theme", action="store_true", help="list every theme violation, not one per rule")
    parser.add_argument("--json", type=Path, help="also write the raw results to this JSON file")
    args = parser.parse_args(argv)
    pages = toc_pages() if args.all else [page.removeprefix("/") for page in args.pages]
    if not pages:
        parser.error("name at least one page, or --all")
    pages = [re.sub(r"\.(ipynb|md)$", "", page).removesuffix(".html") + ".html" for page in pages]
    if args.full_page:
        FULL_PAGE_SCREENSHOTS.update((screen, mode) for screen in ("desktop", "phone") for mode in MODES)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ppt-site-audit-") as scratch:
        if args.site:
            html = args.site.resolve()
        else:
            what = f"commit {args.rev}" if args.rev else "the working tree"
            print(f"Building a private copy of {what}...", file=sys.stderr, flush=True)
            html = build_private_copy(Path(scratch), args.rev)
            print(f"built in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        audits = []
        with serve(html) as base, chromium() as browser:
            for page_path in pages:
                if not (html / page_path).exists():
                    print(f"\n=== {page_path}: not built (not in _toc.yml?)")
                    audits.append(PageAudit(page_path, mode_problems=["not built"]))
                    continue
                audit = audit_page(browser, base, page_path, args.screenshots)
                audits.append(audit)
                print_audit(audit, args.theme)
                sys.stdout.flush()
    failing = sum(bool(audit.failures()) for audit in audits)
    overflowing = sum(len(audit.desktop_overflow.get("light", [])) for audit in audits)
    blocks = sum(audit.desktop_blocks for audit in audits)
    print(
        f"\n{len(audits)} pages, {failing} with problems; desktop overflow (light): {overflowing} of {blocks} "
        f"blocks; {time.perf_counter() - start:.0f} s"
    )
    if args.json:
        raw = [audit.__dict__ | {"sliders": [slider.__dict__ for slider in audit.sliders]} for audit in audits]
        args.json.write_text(json.dumps(raw, indent=1))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
