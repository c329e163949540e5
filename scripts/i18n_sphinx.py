"""A small Sphinx extension (loaded by _config.yml) for the two editions: English and Chinese (zh_CN).

In both editions every page links to its counterpart in the other language (<link rel="alternate">), and the
book's JavaScript (book/theme/book.js) turns that link into the 中文 / English button of the page header,
carrying the #section along. The Chinese site lives in zh/ below the English one (scripts/build_book.py).

In the Chinese edition (language zh_CN) it also translates what Sphinx's own i18n step does not reach, with
the page's catalogue from locales/ (the same .po file as the page's prose):
- the table of contents' part captions, which sphinx-external-toc inserts after the translation step;
- figure captions and image alt texts that myst-nb renders from the notebooks' cell metadata;
- the fold bars of hidden code cells ("Show code cell source"), which myst-nb builds from its own English
  template (FOLD_LABELS_ZH below);
- the code and printed text of the notebooks' cells, which Sphinx's i18n leaves alone: they are taken from the
  Chinese notebook of the page (i18n/zh_CN/notebooks/, made by `make translations`), whose print literals and
  printed lines are Chinese, so that the website shows what a Chinese reader's Colab notebook prints; and so are
  its sliders' frames and labels (the page's widget state);
and it sets the `zh_CN` tag, so that ```{only} zh_CN``` blocks (the setup page's note) appear there only.

Two fixes keep the Chinese build about as fast as the English one (measured with cProfile on the pinned
Sphinx 7.4.7 and myst-parser 3.0.1: 69 s for the zh edition without them, against 15 s for the English):
- Sphinx parses every translated message as a small MyST document, and myst-parser's renderer builds a
  throwaway docutils document with fresh default settings for each (`options.get("document",
  make_document())` evaluates its default eagerly; docutils' option parser then costs 4 ms a message). The
  default settings are now built once per parser class and copied, and the Markdown parser (a MarkdownIt
  instance with MyST's plugins, 2.5 ms to make) is made once per MyST configuration and reused.
- Sphinx's Chinese search (sphinx.search.zh) keeps every Latin word it meets in a class-level list and searches
  that list for each word it stems: quadratic in the size of the book (17 s). A set per instance does the same.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import jieba
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.utils import new_document
from myst_nb.core.render import WIDGET_STATE_MIMETYPE as WIDGET_STATE
from myst_nb.core.render import sanitize_script_content
from myst_nb.sphinx_ import HideCodeCellNode, NbMetadataCollector
from myst_parser.mdit_to_docutils import base as myst_base
from myst_parser.parsers import sphinx_ as myst_sphinx_parser
from sphinx import addnodes, search
from sphinx.locale import init as init_locale
from sphinx.search.zh import SearchChinese
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain
from sphinx.util.osutil import SEP

ZH = "zh_CN"
ZH_FOLDER = "zh"


def is_chinese(config) -> bool:
    return (config.language or "").replace("-", "_") == ZH


def _translator(env, docname: str):
    domain = docname_to_domain(docname, env.config.gettext_compact)
    dirs = [str(env.srcdir / folder) for folder in env.config.locale_dirs]
    catalog, has_catalog = init_locale(dirs, env.config.language, domain)
    return catalog.gettext if has_catalog else None


class TranslateLateMessages(SphinxTransform):
    """Translate toctree captions and figure captions/alt texts in the zh_CN edition. Runs after
    sphinx-external-toc's InsertToctrees (priority 100) and before the toc collector reads the tree."""

    default_priority = 150

    def apply(self, **kwargs) -> None:
        if not is_chinese(self.config):
            return
        gettext = _translator(self.env, self.env.docname)
        if gettext is None:
            return
        for toctree in self.document.findall(addnodes.toctree):
            if toctree.get("caption"):
                toctree["caption"] = gettext(toctree["caption"])
        for image in self.document.findall(nodes.image):
            if image.get("alt"):
                image["alt"] = gettext(" ".join(image["alt"].split()))
        for caption in self.document.findall(nodes.caption):
            english = " ".join(caption.astext().split())
            chinese = gettext(english)
            if chinese != english and len(caption.children) == 1 and isinstance(caption[0], nodes.Text):
                caption[0] = nodes.Text(chinese)


ZH_NOTEBOOKS = "i18n/zh_CN/notebooks"


def _text(notebook_text) -> str:
    return "".join(notebook_text) if isinstance(notebook_text, list) else notebook_text


def _set_literal(block: nodes.literal_block, text: str) -> None:
    """Replace a code block's text, keeping rawsource equal to it (Sphinx highlights only such blocks)."""
    block.rawsource = text
    block.children = [nodes.Text(text)]


class UseChineseNotebookCells(SphinxTransform):
    """In the zh_CN edition, show each notebook cell's code and printed text as the Chinese notebook has them.

    The Chinese notebook is the English one with its print literals and printed lines translated (see
    scripts/i18n_notebooks.py); cell for cell, everything else is equal, which tests/test_i18n.py checks. A cell
    whose code or printed text is the same in both stays as myst-nb rendered it."""

    default_priority = 150

    def apply(self, **kwargs) -> None:
        if not is_chinese(self.config) or not self.env.docname.startswith("notebooks/"):
            return
        path = Path(self.env.srcdir) / ZH_NOTEBOOKS / f"{self.env.docname.removeprefix('notebooks/')}.ipynb"
        if not path.exists():
            return
        notebook = json.loads(path.read_text())
        cells = notebook["cells"]
        self.use_chinese_widgets(notebook["metadata"])
        english_cells = json.loads(Path(self.env.doc2path(self.env.docname)).read_text())["cells"]
        for container in self.document.findall(nodes.container):
            if container.get("nb_element") != "cell_code":
                continue
            english, chinese = english_cells[container["cell_index"]], cells[container["cell_index"]]
            streams = {
                _text(en["text"]): _text(zh["text"])
                for en, zh in zip(english.get("outputs", []), chinese.get("outputs", []))
                if en.get("output_type") == "stream" and _text(en["text"]) != _text(zh["text"])
            }
            for part in container.findall(nodes.container):
                for block in part.findall(nodes.literal_block):
                    if part.get("nb_element") == "cell_code_source":
                        source = _text(chinese["source"])
                        if block.astext() != source and block.astext() == _text(english["source"]):
                            _set_literal(block, source)
                    elif part.get("nb_element") == "cell_code_output" and block.astext() in streams:
                        _set_literal(block, streams[block.astext()])

    def use_chinese_widgets(self, metadata: dict) -> None:
        """The page's widget state (its sliders' frames and labels), which myst-nb has already moved from the
        notebook into the environment as a script, from the Chinese notebook: its words are Chinese."""
        state = metadata.get("widgets", {}).get(WIDGET_STATE)
        js_files = NbMetadataCollector.get_doc_data(self.env)[self.env.docname].get("js_files", {})
        if state and "ipywidgets_state" in js_files:
            uri, kwargs = js_files["ipywidgets_state"]
            js_files["ipywidgets_state"] = (uri, {**kwargs, "body": sanitize_script_content(json.dumps(state))})


# myst-nb's labels, "Show code cell {type}" with the type in English: source (hide-input), content (hide-cell),
# output(s) (hide-output).
FOLD_LABELS_ZH = {
    "Show code cell source": "显示代码",
    "Hide code cell source": "隐藏代码",
    "Show code cell content": "显示代码和输出",
    "Hide code cell content": "隐藏代码和输出",
    "Show code cell output": "显示输出",
    "Hide code cell output": "隐藏输出",
    "Show code cell outputs": "显示输出",
    "Hide code cell outputs": "隐藏输出",
}


class TranslateFoldLabels(SphinxPostTransform):
    """After myst-nb's HideInputCells (priority 199) has made the fold bars of the zh_CN edition."""

    default_priority = 200
    formats = ("html",)

    def run(self, **kwargs) -> None:
        if not is_chinese(self.config):
            return
        for node in self.document.findall(HideCodeCellNode):
            for key in ("prompt_show", "prompt_hide"):
                node[key] = FOLD_LABELS_ZH.get(node[key], node[key])


def counterpart_link(app, pagename, templatename, context, doctree) -> None:
    """<link rel="alternate" hreflang=...> to the same page in the other edition (relative, works offline)."""
    depth = pagename.count(SEP)
    if is_chinese(app.config):
        href, hreflang, label = "../" * (depth + 1) + f"{pagename}.html", "en", "English"
    else:
        href, hreflang, label = "../" * depth + f"{ZH_FOLDER}/{pagename}.html", "zh-CN", "中文"
    context["metatags"] = context.get("metatags", "") + (
        f'\n<link rel="alternate" hreflang="{hreflang}" href="{href}" data-ppt-language-switch="{label}" />'
    )


@functools.cache
def _default_settings(parser_cls):
    return get_default_settings(parser_cls)


def _make_document(source_path="notset", parser_cls=myst_base.RSTParser):
    return new_document(source_path, settings=copy.copy(_default_settings(parser_cls)))


_PARSERS: dict = {}


def _cached_md_parser(config, renderer):
    """One parser per (MyST configuration, renderer class); the renderer resets its state on every render."""
    key = (id(config), renderer)
    if key not in _PARSERS:
        _PARSERS[key] = (config, _create_md_parser(config, renderer))  # keeps `config` alive: its id stays unique
    return _PARSERS[key][1]


_create_md_parser = myst_sphinx_parser.create_md_parser


class ChineseSearch(SearchChinese):
    """sphinx.search.zh with its Latin words in a set of its own (see the module's docstring)."""

    def init(self, options) -> None:
        super().init(options)
        self.latin_terms = set()

    def split(self, input: str) -> list[str]:
        chinese = list(jieba.cut_for_search(input))
        latin = [term.strip() for term in self.latin1_letters.findall(input)]
        self.latin_terms.update(latin)
        return chinese + latin


def prepare_chinese_edition(app, config) -> None:
    if not is_chinese(config):
        return
    app.tags.add(ZH)
    myst_base.make_document = _make_document
    myst_sphinx_parser.create_md_parser = _cached_md_parser
    search.languages["zh"] = ChineseSearch


def setup(app):
    app.connect("config-inited", prepare_chinese_edition)
    app.add_transform(TranslateLateMessages)
    app.add_transform(UseChineseNotebookCells)
    app.add_post_transform(TranslateFoldLabels)
    app.connect("html-page-context", counterpart_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
