"""The PDF editions (`make pdf`, scripts/build_pdf.py), English and Chinese, printed from the site that the site
tests build: every page of the toc in its bookmarks, every figure, the edition on the title page, nothing cut at
the right margin, working links, and a font with Chinese glyphs in the Chinese one.

Printing both takes about a minute on 2 cores; the PDFs are printed once per session, or reused when they are
newer than the built site and the scripts that print them."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from filelock import FileLock
from pypdf import PdfReader

from conftest import REPO, SITE, toc_files

sys.path.insert(0, str(REPO / "scripts"))
import build_pdf
from edition import BOOK_PDF, edition

PDF_FOLDER = REPO / "_build" / "pdf"
SITES = {"en": SITE, "zh": SITE / "zh"}
# language -> (the PDF's file name in _build/pdf/, the built site of that edition)
EDITIONS = {language: (Path(BOOK_PDF[language]).name, site) for language, site in SITES.items()}
SCRIPTS = [REPO / "scripts" / name for name in ("build_pdf.py", "edition.py", "local_server.py")]
MIN_PAGES = 80


@functools.cache
def toc_pages(site: Path) -> dict[str, BeautifulSoup]:
    """The built pages of the toc of one edition, parsed once (read only)."""
    return {
        name: BeautifulSoup((site / f"{name}.html").read_text(encoding="utf-8"), "html.parser") for name in toc_files()
    }


def squeezed(text: str) -> str:
    """Text without whitespace: a bookmark or a line of the PDF's text may break where the page did not."""
    return "".join(text.split())


def page_title(soup: BeautifulSoup) -> str:
    heading = soup.select_one("article.bd-article h1")
    return heading.get_text().removesuffix("#").strip()


def shown(element) -> bool:
    """Not in a cell the site folds by default (hide-input, hide-cell), which the PDF does not print either."""
    return element.find_parent("details", class_="hide") is None


@pytest.fixture(scope="module")
def pdfs(build_log, browser) -> dict[str, Path]:
    """Both PDFs, printed from the site that `build_log` built, unless `make pdf` printed them since. (`browser`:
    without a Chromium these tests skip, and fail under CI=true, as the site's do.)"""
    missing = [tool for tool in ("pdftotext", "pdfimages", "pdffonts") if shutil.which(tool) is None]
    if missing:
        reason = f"no {', '.join(missing)}: apt-get install poppler-utils"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)
    paths = {language: PDF_FOLDER / name for language, (name, _) in EDITIONS.items()}
    inputs = SCRIPTS + [site / f"{name}.html" for _, site in EDITIONS.values() for name in toc_files()]
    newest_input = max(path.stat().st_mtime for path in inputs)
    # Under xdist without --dist loadfile two workers can each need the PDFs: one prints, the other waits
    # rather than read a PDF while it is being written.
    PDF_FOLDER.mkdir(parents=True, exist_ok=True)
    with FileLock(str(PDF_FOLDER / ".printing.lock")):
        if not all(path.is_file() and path.stat().st_mtime > newest_input for path in paths.values()):
            result = subprocess.run(
                [sys.executable, str(REPO / "scripts" / "build_pdf.py")],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            output = (result.stdout + result.stderr)[-4000:]
            assert result.returncode == 0, f"scripts/build_pdf.py failed:\n{output}"
    return paths


@pytest.fixture(scope="module")
def readers(pdfs) -> dict[str, PdfReader]:
    return {language: PdfReader(path) for language, path in pdfs.items()}


@functools.cache
def page_texts(pdf: Path) -> list[str]:
    """The text of every page (pdftotext separates pages by form feeds), in its layout: a line of code with
    columns stays one line."""
    command = ["pdftotext", "-layout", "-enc", "UTF-8", str(pdf), "-"]
    return subprocess.run(command, capture_output=True, check=True).stdout.decode().split("\f")


@pytest.mark.parametrize("language", EDITIONS)
def test_the_pdf_has_every_page_of_the_toc_as_a_bookmark_in_order(readers, language):
    reader = readers[language]
    assert len(reader.pages) >= MIN_PAGES, f"{language}: only {len(reader.pages)} pages"
    titles = [squeezed(page_title(soup)) for soup in toc_pages(EDITIONS[language][1]).values()]
    bookmarks = [squeezed(item.title) for item in reader.outline if not isinstance(item, list)]
    # The title page and the contents may add bookmarks of their own; the pages' come in the toc's order.
    assert [bookmark for bookmark in bookmarks if bookmark in titles] == titles, (
        f"{language}: bookmarks {bookmarks}, toc pages {titles}"
    )


@pytest.mark.parametrize("language", EDITIONS)
def test_the_pdf_has_every_figure_of_the_site(pdfs, language):
    """Raster figures only: SVG (the Colab badge) prints as drawing, and the theme's own icons are not in the
    pages' articles."""
    figures = [
        image["src"]
        for soup in toc_pages(EDITIONS[language][1]).values()
        for image in soup.select("article.bd-article img")
        if shown(image) and not image["src"].startswith("data:image/svg") and not image["src"].endswith(".svg")
    ]
    listing = subprocess.run(["pdfimages", "-list", str(pdfs[language])], capture_output=True, text=True, check=True)
    images = [row.split() for row in listing.stdout.splitlines()[2:]]
    assert len([row for row in images if row[2] == "image"]) == len(figures), (
        f"{language}: {len(figures)} figures on the site, the PDF's images:\n{listing.stdout}"
    )


@pytest.mark.parametrize("language", EDITIONS)
def test_the_title_page_names_the_edition_and_the_torch_of_the_outputs(pdfs, language):
    found = edition()
    title_page = page_texts(pdfs[language])[0]
    assert found["label"] in title_page and f"torch {found['torch']}" in title_page, title_page


def longest_code_lines(site: Path) -> list[str]:
    """The longest visible line of code or printed output of each page, longest first: the lines most likely to
    run past the margin."""
    longest = []
    for soup in toc_pages(site).values():
        blocks = [pre.get_text() for pre in soup.select("article.bd-article pre") if shown(pre)]
        lines = [line for block in blocks for line in block.split("\n")]
        if lines:
            longest.append(max(lines, key=len))
    return sorted(longest, key=len, reverse=True)


@pytest.mark.parametrize("language", EDITIONS)
def test_the_longest_lines_of_code_are_printed_whole(pdfs, language):
    """Nothing cut at the right margin: a line of code cut at the edge of its box or of the page loses its end
    from the PDF's text (Chromium writes no clipped glyph); a wrapped line keeps it whole. (A rendered strip of
    the margin cannot show a cut: Chromium shrinks content that is too wide, and clips what still is at the
    margin, never past it.)"""
    text = squeezed("".join(page_texts(pdfs[language])))
    cut = [line for line in longest_code_lines(EDITIONS[language][1]) if squeezed(line) not in text]
    assert not cut, f"{language}: lines of code cut in the PDF: {cut}"


def test_the_chinese_pdf_embeds_a_font_with_chinese_glyphs(pdfs):
    fonts = subprocess.run(["pdffonts", str(pdfs["zh"])], capture_output=True, text=True, check=True).stdout
    assert "WenQuanYi" in fonts, fonts


@pytest.mark.parametrize("language", EDITIONS)
def test_internal_links_lead_to_their_page(readers, language):
    """Every link within the document has its destination, and the contents' link to the first chapter leads
    to the page where it starts."""
    reader = readers[language]
    destinations = reader.named_destinations
    links = [
        annotation.get_object()["/Dest"]
        for page in reader.pages
        for annotation in page.get("/Annots") or []
        if "/Dest" in annotation.get_object()
    ]
    assert links, f"{language}: no link within the document"
    dangling = sorted({str(link) for link in links if str(link) not in destinations})
    assert not dangling, f"{language}: links to nowhere: {dangling[:10]}"
    chapter = next(name for name in toc_files() if name.startswith("notebooks/01_"))
    target = f"/page-{chapter}"
    assert target in links, f"{language}: no link to {target}"
    page = reader.get_destination_page_number(destinations[target])
    title = page_title(toc_pages(EDITIONS[language][1])[chapter])
    assert squeezed(title) in squeezed(reader.pages[page].extract_text()), (
        f"{language}: the link to {chapter} leads to page {page + 1}, which does not show {title!r}"
    )


@pytest.mark.parametrize("language", EDITIONS)
def test_the_site_serves_each_pdf_where_its_download_menu_links_it(pdfs, language):
    served = EDITIONS[language][1] / BOOK_PDF[language]
    assert served.is_file(), f"make pdf put no copy at {served.relative_to(REPO)}, which every page links"
    assert served.read_bytes() == pdfs[language].read_bytes()


def headings(outline) -> list[str]:
    """Every bookmark of the PDF's outline, nested ones included, squeezed."""
    return [
        title for item in outline for title in (headings(item) if isinstance(item, list) else [squeezed(item.title)])
    ]


@pytest.mark.parametrize("language", EDITIONS)
def test_every_page_is_printed_to_its_last_section(readers, language):
    """A document cut short loses the end of its last page, not only the pages after it: every page's last
    heading (h2, or its title where it has none) is among the PDF's bookmarks."""
    bookmarks = set(headings(readers[language].outline))
    last = {}
    for name, soup in toc_pages(EDITIONS[language][1]).items():
        sections = [heading for heading in soup.select("article.bd-article h2") if shown(heading)]
        last[name] = squeezed(sections[-1].get_text().removesuffix("#")) if sections else squeezed(page_title(soup))
    # in a bookmark rather than equal to one: Chromium names a few bookmarks by their heading's text twice
    missing = {name: heading for name, heading in last.items() if not any(heading in mark for mark in bookmarks)}
    assert not missing, f"{language}: pages whose last section is not in the PDF: {missing}"


THREE_PAGES = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
    + "".join(f'<article class="ppt-page" id="page-{n}"><h1>Page {n}</h1></article>' for n in range(3))
    + f'<div id="{build_pdf.END_ID}"></div></body></html>'
).encode()
THIRD_PAGE = THREE_PAGES.index(b'<article class="ppt-page" id="page-2">')


class ShortHandler(http.server.BaseHTTPRequestHandler):
    """Serves the first two pages of a three-page document, whole as HTTP goes (its Content-Length is what it
    sends): what a file read while it is still being written gives. A transfer cut before its Content-Length is
    different: Chromium then leaves the document in readyState 'loading', and the print's wait times out."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(THIRD_PAGE))
        self.end_headers()
        self.wfile.write(THREE_PAGES[:THIRD_PAGE])

    def log_message(self, *args) -> None:
        pass


class SlowHandler(ShortHandler):
    """Serves the whole three-page document, its last page two seconds after the others: a long document that a
    loaded machine is still parsing."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(THREE_PAGES)))
        self.end_headers()
        self.wfile.write(THREE_PAGES[:THIRD_PAGE])
        self.wfile.flush()
        time.sleep(2)
        self.wfile.write(THREE_PAGES[THIRD_PAGE:])


@contextlib.contextmanager
def page_served_by(browser, handler) -> Iterator:
    """A page of `browser` that has started to load the document `handler` serves."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/", wait_until="commit")
        yield page
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def test_the_print_waits_until_the_whole_document_is_parsed(browser):
    """The print's wait ends once the document is parsed to its end, not at once. READY_JS was an async function
    until issue #44: wait_for_function took its Promise as done, and on a loaded machine the print saw the book
    half parsed (8 of 26 pages, with every byte received)."""
    with page_served_by(browser, SlowHandler) as page:
        assert page.wait_for_function(build_pdf.READY_JS, timeout=20_000).json_value() is True
        assert page.evaluate(build_pdf.LOADED_JS)["pages"] == ["page-0", "page-1", "page-2"]


def test_a_document_that_arrives_short_is_refused_not_printed(browser, tmp_path):
    """Chromium parses a short document to its end (readyState 'complete') and shows what it got: the print sees
    the end marker missing at once and stops, saying what the browser received."""
    with page_served_by(browser, ShortHandler) as page:
        assert page.wait_for_function(build_pdf.READY_JS, timeout=20_000).json_value() == "short"
        joined = tmp_path / "_print-edition.html"
        joined.write_text("the whole document, as written")
        with pytest.raises(
            RuntimeError, match=r"holds 2 of its 3 pages \(the end marker is missing; missing: page-2\)"
        ):
            build_pdf.check_whole(page.evaluate(build_pdf.LOADED_JS), ["page-0", "page-1", "page-2"], joined)


def shown_text(soup: BeautifulSoup) -> str:
    """The text of a page's article without what the site folds."""
    article = BeautifulSoup(str(soup.select_one("article.bd-article")), "html.parser")
    for folded in article.select("details.hide"):
        folded.decompose()
    return squeezed(article.get_text())


@pytest.mark.parametrize("language", EDITIONS)
def test_what_the_site_folds_is_not_printed(pdfs, language):
    """Setup cells and exercises' solutions, folded on the site, print as nothing: no folded block's longest line
    (one that the shown text of the pages does not have too) is in the PDF's text."""
    pages = toc_pages(EDITIONS[language][1]).values()
    visible = "".join(shown_text(soup) for soup in pages)
    folded = {
        squeezed(max(pre.get_text().split("\n"), key=len))
        for soup in pages
        for pre in soup.select("article.bd-article details.hide pre")
    }
    folded = {line for line in folded if len(line) > 20 and line not in visible}
    assert folded, f"{language}: no folded block to look for"
    text = squeezed("".join(page_texts(pdfs[language])))
    printed = sorted(line for line in folded if line in text)
    assert not printed, f"{language}: {len(printed)} of {len(folded)} folded lines printed: {printed[:5]}"
