"""A small Sphinx extension (loaded by _config.yml): the book's own CSS, JavaScript and favicon, and no duplicate
script tags.

The book's theme files live in book/theme/ (book.css, book.js, favicon.svg; see their comments): registered here
rather than in _config.yml so that the build without npm (scripts/build_book.py's CDN fallback config, which
drops the local html_static_path) keeps them too. Never name that folder `_static`: Jupyter Book v1 would then
inject every .js file in it into every page a second time.

With jupyter-book 1.0.4 and sphinx-book-theme 1.3, sphinx-thebe's and sphinx-togglebutton's inline
scripts reach the page twice (once registered with filename None, once with ""), so every page declared
`const THEBE_JS_URL` twice and threw "Identifier 'THEBE_JS_URL' has already been declared".
Keep the first of each identical script.
"""

from __future__ import annotations

from pathlib import Path

THEME = Path(__file__).resolve().parent.parent / "book" / "theme"


def _script_key(script) -> tuple:
    return script.filename or "", tuple(sorted(script.attributes.items()))


def drop_duplicate_scripts(app, pagename, templatename, context, doctree) -> None:
    seen, unique = set(), []
    for script in context.get("script_files", []):
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def add_book_theme(app, config) -> None:
    config.html_static_path.append(str(THEME))
    if not config.html_favicon:
        config.html_favicon = str(THEME / "favicon.svg")


def setup(app):
    app.connect("config-inited", add_book_theme)
    # After the theme's own files (priority 500), so that the book's rules win at equal specificity.
    app.add_css_file("book.css", priority=900)
    app.add_js_file("book.js", priority=900, defer="defer")
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
