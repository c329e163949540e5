"""A small Sphinx extension (loaded by _config.yml): which edition of the book a page belongs to, and the PDF of it.

- The footer of every page names the edition (the release tag, or "main" with the commit date between releases)
  and the torch the stored outputs were made with, from scripts/edition.py, the function the PDF's title page
  uses too. A reader who quotes a number can say which book it came from; an output that differs on their torch
  is explained before they ask.
- The header's download menu (the theme's, which offers the page's source and printing) gets an entry for the
  whole book as a PDF: the PDF of the page's own language, at BOOK_PDF below each edition's root. `make pdf`
  (scripts/build_pdf.py) writes those files into the built site; the deploy and release workflows run it after
  `make book`. The link is relative, so it works at any baseurl and from pages in subfolders.

Both texts are set here for the English and the Chinese edition, not in locales/: they are the site's furniture,
made at build time, not the book's prose.
"""

from __future__ import annotations

from html import escape

from edition import BOOK_PDF, edition
from i18n_sphinx import is_chinese

PDF_BUTTON = {
    "en": {"text": "Book (PDF)", "tooltip": "Download the whole book as a PDF"},
    "zh": {"text": "全书 PDF", "tooltip": "下载全书 PDF"},
}


def footer_text(found: dict, language: str) -> str:
    """The footer's line for edition() `found`: the tag, else main with the commit date (Chinese brackets in
    the Chinese edition)."""
    if language == "zh":
        if found["tag"] or not found["commit_date"]:
            name = f"{found['label']} "
        else:
            name = f"main（{found['commit_date']}）"  # no space after a full-width bracket
        return f"版本 {name}· 输出由 torch {found['torch']} 生成"
    return f"Edition {found['label']} · outputs stored with torch {found['torch']}"


def language_of(config) -> str:
    return "zh" if is_chinese(config) else "en"


def add_edition_to_footer(app, config) -> None:
    """The theme shows `extra_footer` (Jupyter Book's html.extra_footer) in every page's footer."""
    line = f'<p class="ppt-edition">{escape(footer_text(edition(), language_of(config)))}</p>'
    config.html_theme_options["extra_footer"] = config.html_theme_options.get("extra_footer", "") + line


def add_pdf_to_download_menu(app, pagename, templatename, context, doctree) -> None:
    """After the theme has filled the download menu (priority 501); pages without one (search) get none."""
    language = language_of(app.config)
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].append(
                {
                    "type": "link",
                    "url": context["pathto"](BOOK_PDF[language], 1),
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                    **PDF_BUTTON[language],
                }
            )


def setup(app):
    app.connect("config-inited", add_edition_to_footer)
    app.connect("html-page-context", add_pdf_to_download_menu, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
