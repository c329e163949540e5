"""A small Sphinx extension (loaded by _config.yml) that removes duplicate script tags.

With jupyter-book 1.0.4 and sphinx-book-theme 1.3, sphinx-thebe's and sphinx-togglebutton's inline
scripts reach the page twice (once registered with filename None, once with ""), so every page declared
`const THEBE_JS_URL` twice and threw "Identifier 'THEBE_JS_URL' has already been declared".
Keep the first of each identical script.
"""

from __future__ import annotations


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


def setup(app):
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
