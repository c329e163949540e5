"""Print the built website into two PDF editions: _build/pdf/pad-pack-train.pdf (English) and
_build/pdf/pad-pack-train-zh.pdf (Chinese, from _build/html/zh), and copy each into its site (pdf/ beside
index.html) so that the website serves them.

Usage: python scripts/build_pdf.py   (`make pdf`, which first runs `make book` if the site is not built)

Offline and without torch: the PDFs are made from the built pages alone. For each edition, the pages of the
table of contents (_toc.yml: the root, then every chapter of every part, in order) are joined into ONE HTML
document behind a title page and a list of contents: each page's article, with its ids made unique
(`page-<docname>--<id>`) and its links between pages turned into links within the document, so that they work
in the PDF. That document is written into the built site for the time of printing (so that its images, styles
and widget JavaScript load as they do on the site), served on 127.0.0.1 and printed by Chromium through
Playwright, which also writes the PDF's bookmarks from the headings. The widgets render from the state stored in
the pages and print their first frame, with a note that leads to the interactive page. What the site hides by
default (folded setup cells, exercise solutions) stays hidden; visible code wraps instead of being cut.
"""

from __future__ import annotations

import datetime
import html
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import yaml
from bs4 import BeautifulSoup
from edition import BOOK_PDF, edition  # scripts/edition.py: Python puts the script's own folder on sys.path
from local_server import serve

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "_build" / "html"
PDF_FOLDER = REPO / "_build" / "pdf"
# The joined document, written into the edition's site while it prints and removed after. It sits one folder
# down, like every page of the toc (book/, notebooks/), so the pages' relative addresses resolve unchanged.
JOINED_NAME = "book/_print-edition.html"
# Debian's chromium where installed (here: Playwright cannot download its own browser), else Google Chrome (what
# GitHub's Ubuntu runners have, for the deploy and release workflows), else None: Playwright's own, if installed.
CHROMIUM = shutil.which("chromium") or shutil.which("google-chrome")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
# Page elements of the theme's <head> that the printed document does not need: the language switch, page
# navigation, search, and the live-code (thebe) launcher, which would reach for the network.
HEAD_LINKS_DROPPED = {"alternate", "next", "prev", "index", "search", "icon", "preload"}
HEAD_SCRIPTS_DROPPED = ("searchindex.js", "searchtools.js", "language_data.js", "sphinx-thebe.js")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# Attributes that name an element by its id: rewritten with the ids, so that labels still point at their fields.
ID_REFERENCES = ("aria-labelledby", "aria-describedby", "aria-controls", "for")

# The document ends with this element, after its last page: once the browser has parsed it, it has parsed every
# page before it (a parser builds the document in order).
END_ID = "ppt-document-end"
# Ready to print: the document is parsed to its end marker, every widget view has rendered its .widget-subarea
# (the same test as tests/site_audit.py), every image has loaded and the fonts are in; then (TYPESET_JS) MathJax
# has set every formula. Parsed: not implied by goto's "networkidle", since Chromium parses a document of several
# MB in slices, and when no request is open for 500 ms between two slices Playwright reports the network idle.
# READY_JS must be a plain function: Playwright's wait_for_function takes any truthy value as done, and the
# Promise of an async function is truthy at once. It was async until issue #44, so the wait never waited: on a
# loaded machine the print (or, later, check_whole) saw the book half parsed (CI, stop 41: 18 of 25 pages; a
# make test under load: 8 of 26, with every byte received). A document whose parsing is over (readyState
# 'complete') without its end marker arrived short: READY_JS then answers 'short' at once, and the print stops
# with what the browser received rather than print part of the book.
READY_JS = f"""() => {{
    if (document.readyState !== 'complete') return false;
    if (!document.getElementById('{END_ID}')) return 'short';
    const views = document.querySelectorAll('script[type="{WIDGET_VIEW}"]');
    const widgets = Array.from(views).every(view => view.parentElement.querySelector('.widget-subarea > *'));
    const images = Array.from(document.images).every(image => image.complete && image.naturalWidth > 0);
    return widgets && images && document.fonts.status === 'loaded';
}}"""
# Evaluated (and so awaited) once READY_JS is true: MathJax's typesetting, and the fonts its formulas need.
TYPESET_JS = """async () => {
    if (window.MathJax && window.MathJax.startup) await window.MathJax.startup.promise;
    await document.fonts.ready;
}"""
# What the browser holds: the pages in its document, in order, whether the end marker is there, and how many
# bytes of the document it received.
LOADED_JS = f"""() => ({{
    pages: Array.from(document.querySelectorAll('article.ppt-page')).map(page => page.id),
    end: document.getElementById('{END_ID}') !== null,
    received: performance.getEntriesByType('navigation')[0].decodedBodySize,
}})"""
SET_LIGHT_MODE_JS = "localStorage.setItem('mode', 'light'); localStorage.setItem('theme', 'light');"

PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm; }
html { font-size: 10pt; }
body { background: white; }
.bd-article { padding: 0 !important; max-width: none !important; }
.ppt-page { break-before: page; }
h1, h2, h3, h4 { break-after: avoid; }
/* Chromium names each bookmark by the heading's lines joined without the space at each line break; a space
   that wraps but is not collapsed stays in the name. */
h1, h2, h3 { white-space: pre-wrap; }
img, figure, .widget-subarea { break-inside: avoid; }
/* The theme keeps each code block on one page, which leaves half pages empty before long ones: let them break. */
div.highlight, div.literal-block-wrapper, div[class*=highlight-] { break-inside: auto; }
/* Chromium prints a blurred shadow as a bitmap: the book's figures are to be its only images. The theme's
   admonition shadow is `div.admonition {... !important}`, which only as specific a selector overrides. */
*, ::before, ::after, div.admonition { box-shadow: none !important; text-shadow: none !important; }
/* What a reader sees by default, without the controls that do nothing on paper: a folded cell (setup code,
   an exercise's solution) prints as nothing at all rather than as its "Show code" bar. */
details.hide, .headerlink, .copybtn, .toggle-button { display: none !important; }
/* Visible code and printed output wrap at the margin instead of being cut by it. */
pre, .highlight pre, .output pre, .cell_output pre {
    white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important;
}
div.highlight, .cell_output, .output, .pst-scrollable-table-container, .table-wrapper { overflow: visible !important; }
td, th { overflow-wrap: break-word; }
img { max-width: 100% !important; height: auto; }
.ppt-widget-note { font-size: 0.9em; font-style: italic; margin: 0.2em 0 1.2em; }
.ppt-title-page { text-align: center; padding-top: 30mm; }
.ppt-title { font-size: 3em; font-weight: bold; margin-bottom: 0.3em; }
.ppt-subtitle { font-size: 1.4em; margin-bottom: 3em; }
.ppt-title-page dl { display: inline-grid; grid-template-columns: auto auto; gap: 0.4em 1.2em; text-align: left; }
.ppt-title-page dt { font-weight: bold; }
.ppt-title-page dd { margin: 0; }
.ppt-contents { break-before: page; }
.ppt-contents ol { list-style: none; padding-left: 0; }
.ppt-contents li { margin: 0.35em 0; }
.ppt-contents .ppt-part { font-weight: bold; margin-top: 1em; }
"""
# Chromium picks a Chinese font for the glyphs the theme's fonts lack; naming it makes the choice explicit.
ZH_CSS = 'body { font-family: var(--pst-font-family-base), "WenQuanYi Micro Hei", sans-serif; }'
FOOTER = (
    '<div style="width: 100%; font-size: 8pt; color: #555; text-align: center; font-family: sans-serif;">'
    '{title} · <span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


@dataclass(frozen=True)
class Edition:
    """One language's PDF: where its site is, where its PDF goes, and the words of its own pages."""

    language: str
    site: Path  # the built site of this edition (the Chinese one is in zh/)
    pdf_name: str
    prefix: str  # its place on the website, below the site's address
    edition_label: str
    torch_label: str
    built_label: str
    website_label: str
    licence: str
    contents: str
    widget_note: str
    extra_css: str = ""


EDITIONS = (
    Edition(
        language="en",
        site=SITE,
        pdf_name=Path(BOOK_PDF["en"]).name,
        prefix="",
        edition_label="Edition",
        torch_label="Outputs stored with",
        built_label="Built",
        website_label="Website",
        licence="Text and figures CC BY 4.0, code MIT.",
        contents="Contents",
        widget_note="Interactive on the website:",
    ),
    Edition(
        language="zh",
        site=SITE / "zh",
        pdf_name=Path(BOOK_PDF["zh"]).name,
        prefix="zh/",
        edition_label="版本",
        torch_label="存储的输出来自",
        built_label="构建日期",
        website_label="网站",
        licence="文字和图片采用 CC BY 4.0 许可，代码采用 MIT 许可。",
        contents="目录",
        widget_note="在网站上可交互操作：",
        extra_css=ZH_CSS,
    ),
)


def toc() -> tuple[list[str], list[str]]:
    """The docnames of _toc.yml in reading order (the root, then every chapter of every part), and the first
    chapter of each part."""
    data = yaml.safe_load((REPO / "_toc.yml").read_text())
    docnames, part_starts = [data["root"]], []
    for part in data.get("parts", []):
        part_starts.append(part["chapters"][0]["file"])
        docnames += [chapter["file"] for chapter in part["chapters"]]
    return docnames, part_starts


def website() -> str:
    """The published site's address: GitHub Pages of the repository named in _config.yml."""
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    owner, name = urlsplit(config["repository"]["url"]).path.strip("/").split("/")[:2]
    return f"https://{owner}.github.io/{name}/"


def page_title(soup: BeautifulSoup) -> str:
    """A built page's title: the text of its article's first heading, without the theme's '#' permalink."""
    heading = soup.select_one("article.bd-article h1")
    for permalink in heading.select("a.headerlink"):
        permalink.decompose()
    return " ".join(heading.get_text().split())


def head_elements(soup: BeautifulSoup) -> list[str]:
    """What the printed document needs of a page's <head>: stylesheets, scripts (the widget state included) and
    the character set, as HTML."""
    kept = []
    for element in soup.head.find_all(["meta", "link", "script", "style"], recursive=False):
        if element.name == "meta" and not element.has_attr("charset"):
            continue
        if element.name == "link" and HEAD_LINKS_DROPPED & set(element.get("rel", [])):
            continue
        source = element.get("src", "")
        if element.name == "script" and source.split("?")[0].endswith(HEAD_SCRIPTS_DROPPED):
            continue
        kept.append(str(element))
    return kept


class Joiner:
    """Joins the pages of one edition into one document (see the module's docstring)."""

    def __init__(self, edition_: Edition, docnames: list[str], address: str):
        self.edition = edition_
        self.docnames = docnames
        self.address = address  # the edition's address on the website, for links that leave the document

    def anchor(self, docname: str, fragment: str = "") -> str:
        return f"page-{docname}--{fragment}" if fragment else f"page-{docname}"

    def rewrite_link(self, docname: str, href: str) -> str:
        """A link of page `docname` as it must read in the joined document: to a page of the toc (or a place on
        it), an anchor in the document; to anything else of the site, its address on the website."""
        if href.startswith("#"):
            return "#" + self.anchor(docname, href[1:])
        base = f"http://site.invalid/{docname}.html"
        target = urlsplit(urljoin(base, href))
        if target.netloc != "site.invalid":
            return href  # another site, or mailto:
        path = target.path.lstrip("/")
        if path in ("", "index.html"):
            path = f"{self.docnames[0]}.html"  # the site's root page redirects to the book's root
        if path.endswith(".html") and path.removesuffix(".html") in self.docnames:
            return "#" + self.anchor(path.removesuffix(".html"), target.fragment)
        return self.address + path + (f"#{target.fragment}" if target.fragment else "")

    def article(self, docname: str, soup: BeautifulSoup) -> str:
        """The page's article with unique ids, links into the document, and a note under every widget."""
        article = soup.select_one("article.bd-article")
        for script in article.find_all("script"):
            if script.get("type") != WIDGET_VIEW:
                script.decompose()
        for element in article.find_all(id=True):
            element["id"] = self.anchor(docname, element["id"])
        for attribute in ID_REFERENCES:
            for element in article.find_all(attrs={attribute: True}):
                element[attribute] = " ".join(self.anchor(docname, name) for name in element[attribute].split())
        for link in article.find_all("a", href=True):
            link["href"] = self.rewrite_link(docname, link["href"])
        page_address = f"{self.address}{docname}.html"
        for view in article.find_all("script", type=WIDGET_VIEW):
            note = soup.new_tag("p", attrs={"class": "ppt-widget-note"})
            note.append(f"{self.edition.widget_note} ")
            link = soup.new_tag("a", href=page_address)
            link.string = page_address
            note.append(link)
            view.parent.insert_after(note)
        return f'<article class="bd-article ppt-page" id="{self.anchor(docname)}">{article.decode_contents()}</article>'

    def document(self, info: dict, built: str) -> str:
        """The whole edition as one HTML document: title page, contents, then every page of the toc."""
        docnames, part_starts = toc()
        pages = {
            docname: BeautifulSoup((self.edition.site / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")
            for docname in docnames
        }
        root = pages[docnames[0]]
        # The root page's first paragraph says what the book is; its sidebar has the parts' captions in this
        # edition's language (the Chinese build translates them).
        subtitle = " ".join(root.select_one("article.bd-article p").get_text().split())
        captions = [caption.get_text(strip=True) for caption in root.select("nav.bd-docs-nav p.caption")]
        parts = dict(zip(part_starts, captions, strict=True))
        head: dict[str, None] = {}  # every page's head elements, each once, in the order the pages give them
        for soup in pages.values():
            head.update(dict.fromkeys(head_elements(soup)))
        titles = {docname: page_title(soup) for docname, soup in pages.items()}
        articles = [self.article(docname, soup) for docname, soup in pages.items()]
        # togglebutton.js opens every fold when printing; the PDF shows what the site shows by default.
        head_html = "\n".join(head).replace("let toggleOpenOnPrint = 'true';", "let toggleOpenOnPrint = 'false';")
        config = yaml.safe_load((REPO / "_config.yml").read_text())
        e = self.edition
        contents = []
        for docname in docnames:
            if docname in parts:
                contents.append(f'<li class="ppt-part">{html.escape(parts[docname])}</li>')
            contents.append(f'<li><a href="#{self.anchor(docname)}">{html.escape(titles[docname])}</a></li>')
        return f"""<!DOCTYPE html>
<html lang="{root.html.get("lang", "en")}" data-content_root="../">
<head>
<title>{html.escape(config["title"])}</title>
{head_html}
<style>{PRINT_CSS}{e.extra_css}</style>
</head>
<body>
<main class="bd-main">
<section class="ppt-title-page">
<p class="ppt-title">{html.escape(config["title"])}</p>
<p class="ppt-subtitle">{html.escape(subtitle)}</p>
<p>{html.escape(config["author"])}</p>
<dl>
<dt>{e.edition_label}</dt><dd>{html.escape(info["label"])}</dd>
<dt>{e.torch_label}</dt><dd>torch {html.escape(info["torch"])}</dd>
<dt>{e.built_label}</dt><dd>{built}</dd>
<dt>{e.website_label}</dt><dd><a href="{self.address}">{self.address}</a></dd>
</dl>
<p>{e.licence}</p>
</section>
<nav class="ppt-contents"><h1>{e.contents}</h1><ol>{"".join(contents)}</ol></nav>
{"".join(articles)}
<div id="{END_ID}"></div>
</main>
</body>
</html>
"""


def check_whole(loaded: dict, expected: list[str], joined: Path) -> None:
    """Raise unless the browser holds the whole document: its end marker and every page of `expected` (their
    ids), in order. `loaded` is what LOADED_JS found."""
    if loaded["end"] and loaded["pages"] == expected:
        return
    missing = [page for page in expected if page not in loaded["pages"]]
    raise RuntimeError(
        f"{joined.name}: the browser holds {len(loaded['pages'])} of its {len(expected)} pages "
        f"(the end marker {'is there' if loaded['end'] else 'is missing'}; missing: {', '.join(missing) or 'none'}) "
        f"and received {loaded['received']} of its {joined.stat().st_size} bytes; not printing part of the book"
    )


def print_edition(browser, server: str, edition_: Edition, info: dict, built: str) -> dict[str, float]:
    """Join one edition's pages, load them from `server` and print them into _build/pdf/ and into the edition's
    site. Returns the seconds each step took."""
    seconds, start = {}, time.perf_counter()

    def lap(step: str) -> None:
        seconds[step] = time.perf_counter() - start - sum(seconds.values())

    docnames, _ = toc()
    joined = edition_.site / JOINED_NAME
    joiner = Joiner(edition_, docnames, website() + edition_.prefix)
    joined.write_text(joiner.document(info, built), encoding="utf-8")
    lap("join")
    output = PDF_FOLDER / edition_.pdf_name
    context = browser.new_context(color_scheme="light", viewport={"width": 1000, "height": 1400})
    try:
        context.add_init_script(SET_LIGHT_MODE_JS)
        page = context.new_page()
        page.goto(f"{server}{edition_.prefix}{JOINED_NAME}", wait_until="networkidle", timeout=120_000)
        page.wait_for_function(READY_JS, timeout=120_000, polling=250)
        check_whole(page.evaluate(LOADED_JS), [joiner.anchor(docname) for docname in docnames], joined)
        page.evaluate(TYPESET_JS)
        lap("load")
        title = html.escape(yaml.safe_load((REPO / "_config.yml").read_text())["title"])
        page.pdf(
            path=str(output),
            format="A4",
            print_background=True,
            display_header_footer=True,
            header_template="<span></span>",  # none: Chromium's default shows the date and the file name
            footer_template=FOOTER.format(title=title),
            prefer_css_page_size=True,
            outline=True,  # bookmarks from the headings
            tagged=True,
        )
        lap("print")
    finally:
        context.close()
        joined.unlink(missing_ok=True)
    served = edition_.site / BOOK_PDF[edition_.language]
    served.parent.mkdir(exist_ok=True)
    shutil.copyfile(output, served)
    return seconds


def main() -> int:
    missing = [edition_.site / "index.html" for edition_ in EDITIONS if not (edition_.site / "index.html").is_file()]
    if missing:
        print(f"error: the site is not built ({missing[0]} is missing): run `make book` first", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    start = time.perf_counter()
    PDF_FOLDER.mkdir(parents=True, exist_ok=True)
    info = edition()
    built = datetime.date.today().isoformat()
    with serve(SITE) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for edition_ in EDITIONS:
            seconds = print_edition(browser, server, edition_, info, built)
            output = PDF_FOLDER / edition_.pdf_name
            steps = ", ".join(f"{step} {value:.1f} s" for step, value in seconds.items())
            size = output.stat().st_size / 1e6
            print(f"{edition_.language}: {output.relative_to(REPO)}, {size:.1f} MB ({steps})")
        browser.close()
    print(f"Printed the edition {info['label']} in {time.perf_counter() - start:.1f} s (copies in the site's pdf/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
