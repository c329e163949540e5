"""Build the website from the stored notebook outputs into _build/html.

Steps: install the pinned widget and MathJax JavaScript with `npm ci` and copy what the pages need into
_build/site-assets/ (served by the site itself, so no page asks a CDN for code or fonts);
warn about notebooks without stored outputs; run Jupyter Book v1 twice at once, for the English edition
(_build/html/) and the Chinese one (_build/html/zh/, from the same sources and locales/zh_CN, see
scripts/i18n.py); print where the site is.
Without npm the build still succeeds, with a config that lets the widgets load from the CDN, and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from i18n_notebooks import write_build_catalogues

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "_build"
SITE_ASSETS = BUILD / "site-assets"
MATHJAX = REPO / "node_modules" / "mathjax" / "es5"
# MathJax's combined file, the TeX extensions it may autoload, its fonts, and its menu and accessibility parts.
MATHJAX_PARTS = ["tex-mml-chtml.js", "input", "output/chtml", "a11y", "ui"]
HTML_MANAGER_DIST = REPO / "node_modules" / "@jupyter-widgets" / "html-manager" / "dist"
REQUIREJS = REPO / "node_modules" / "requirejs" / "require.js"
FONT_SUFFIXES = {".woff2", ".woff", ".ttf", ".eot", ".svg"}

WIDGETS_CONFIG_JS = """\
// 1. The widget bundle (embed-amd.js) defines AMD modules (@jupyter-widgets/base, .../controls, ...); their
//    CSS looks for the widget fonts in the folder of whichever module's require.js address comes first.
//    Map every such module into this folder of the site, so the fonts load from here: not from a CDN, and
//    not from a missing "@jupyter-widgets/..." folder beside each page.
window.require = {
  baseUrl: new URL(".", document.currentScript.src).href,
  paths: { "@jupyter-widgets/html-manager/dist": ".", "@jupyter-widgets": "." },
};

// 2. The bundle typesets widget labels with MathJax 2's API (MathJax.Hub.Queue), but the pages load
//    MathJax 3, which has no Hub, so every labelled widget threw a TypeError. Attach a Hub that forwards
//    to MathJax 3 to whatever object window.MathJax holds: the config object now, MathJax 3 once loaded.
(function () {
  const hub = {
    Queue(command) {
      const element = command[2];
      if (window.MathJax.typesetPromise) window.MathJax.typesetPromise([element]);
    },
  };
  let current = window.MathJax || {};
  current.Hub = current.Hub || hub;
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: () => current,
    set(value) {
      current = value;
      if (value && !value.Hub) value.Hub = hub;
    },
  });
})();
"""


def npm_ci() -> bool:
    """Install the pinned widget packages; return False when npm is missing or fails."""
    npm = shutil.which("npm")
    if npm is None:
        return False
    lock = REPO / "package-lock.json"
    installed = REPO / "node_modules" / ".package-lock.json"
    if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime and HTML_MANAGER_DIST.is_dir():
        return True
    result = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=REPO, check=False)
    return result.returncode == 0


def copy_site_assets(site_assets: Path = SITE_ASSETS) -> None:
    """Copy the pinned widget and MathJax files into _build/site-assets (served as _static/)."""
    if site_assets.exists():
        shutil.rmtree(site_assets)
    widgets = site_assets / "widgets"
    widgets.mkdir(parents=True)
    shutil.copy2(HTML_MANAGER_DIST / "embed-amd.js", widgets)
    for font in HTML_MANAGER_DIST.iterdir():
        if font.suffix in FONT_SUFFIXES:
            shutil.copy2(font, widgets)
    shutil.copy2(REQUIREJS, widgets)
    (widgets / "widgets-config.js").write_text(WIDGETS_CONFIG_JS)
    for part in MATHJAX_PARTS:
        source, target = MATHJAX / part, site_assets / "mathjax" / part
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def movable_config(config_file: Path, source: Path) -> dict:
    """A config file of the book as a dict that works from any folder: Jupyter Book reads local extension
    folders and Sphinx the static paths relative to the config file, so they become absolute paths in `source`.
    (The CDN fallback, the Chinese edition and scripts/i18n.py's gettext build all write such a copy.)"""
    config = yaml.safe_load(config_file.read_text())
    extensions = config["sphinx"].get("local_extensions", {})
    for name, folder in extensions.items():
        extensions[name] = str((source / folder).resolve())
    sphinx_config = config["sphinx"]["config"]
    if "html_static_path" in sphinx_config:
        sphinx_config["html_static_path"] = [str((source / p).resolve()) for p in sphinx_config["html_static_path"]]
    return config


def write_config(config: dict, path: Path) -> Path:
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return path


def cdn_fallback_config(source: Path = REPO) -> Path:
    """A copy of _config.yml without the local widget and MathJax files: their CDN defaults apply."""
    config = movable_config(source / "_config.yml", source)
    for key in ("nb_ipywidgets_js", "html_static_path", "mathjax_path"):
        config["sphinx"]["config"].pop(key)
    return write_config(config, source / "_build" / "cdn-fallback-config.yml")


ZH_FOLDER = "zh"
ZH_SEARCH_BAR_TEXT = "搜索本书……"
# The theme's own strings on the Chinese pages (zh_review R5): sphinx-book-theme's zh_CN catalogue has Taiwanese
# forms (列印成 PDF), some labels have no translation (Repository, Open issue) and some are not translatable at
# all (the sidebar toggles' titles are written into its templates). Each is replaced in the built zh pages, as
# an attribute value (title, aria-label, data-bs-title, alt) or as a button's text.
ZH_THEME_ATTRIBUTES = {
    "列印成 PDF": "打印为 PDF",
    "Source repositories": "源码库",
    "Launch interactive content": "启动交互式内容",
    "Launch on Colab": "在 Colab 中打开",
    "Colab logo": "Colab 标志",
    "Color mode": "颜色模式",
    "System Settings": "跟随系统设置",
    "Toggle primary sidebar": "显示或隐藏左侧边栏",
    "Toggle secondary sidebar": "显示或隐藏右侧边栏",
    "Main": "全书目录",
    "Page": "本页目录",
    "Link to this heading": "链接到此标题",
    "Link to this image": "链接到此图片",
    "Toggle hidden content": "显示或隐藏内容",
}
ZH_THEME_TEXTS = {
    '<span class="btn__text-container">Repository</span>': '<span class="btn__text-container">源码库</span>',
    '<span class="btn__text-container">Open issue</span>': '<span class="btn__text-container">提交问题</span>',
    "作者： The Pad, Pack, Train authors": "作者：《Pad, Pack, Train》编写组",
    # the API page's field lists (参数, 返回, 抛出): Sphinx writes a half-width colon after the translated name
    '<span class="colon">:</span></dt>': '<span class="colon">：</span></dt>',
}
_THEME_ATTRIBUTE = re.compile(
    r'\b(title|aria-label|data-bs-title|alt)="(' + "|".join(map(re.escape, ZH_THEME_ATTRIBUTES)) + r')"'
)


def localize_theme_strings(html: str) -> str:
    """A built Chinese page with the theme's English and Taiwanese labels in mainland Chinese."""
    html = _THEME_ATTRIBUTE.sub(lambda match: f'{match[1]}="{ZH_THEME_ATTRIBUTES[match[2]]}"', html)
    for english, chinese in ZH_THEME_TEXTS.items():
        html = html.replace(english, chinese)
    return html


def localize_chinese_site(site: Path) -> int:
    """Apply localize_theme_strings to every page of the Chinese site; return how many pages changed. Fails when
    a string is found on no page (the theme changed it: update the tables above)."""
    unused = set(ZH_THEME_ATTRIBUTES) | set(ZH_THEME_TEXTS)
    changed = 0
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.relative_to(site).parts:  # the theme's template files, not pages
            continue
        html = page.read_text(encoding="utf-8")
        unused -= {english for english in ZH_THEME_TEXTS if english in html}
        unused -= {match[2] for match in _THEME_ATTRIBUTE.finditer(html)}
        localized = localize_theme_strings(html)
        if localized != html:
            page.write_text(localized, encoding="utf-8")
            changed += 1
    if unused:
        raise SystemExit(f"error: theme strings found on no Chinese page (did the theme change?): {sorted(unused)}")
    return changed


GLOSSARY = Path("locales") / "zh_CN" / "glossary.md"


def jieba_dictionary(source: Path, target: Path) -> Path:
    """jieba's user dictionary for the Chinese search index: the glossary's terms, so that 打包序列 or 隐藏状态
    are indexed as whole words too (jieba alone splits them into 打包 + 序列 and 隐藏 + 状态)."""
    terms = []
    for line in (source / GLOSSARY).read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] != "English" and re.search(r"[\u4e00-\u9fff]", cells[1]):
            for term in re.split(r"[,，、]", cells[1]):
                term = re.sub(r"（.*?）|\(.*?\)", "", term).strip()
                if re.fullmatch(r"[\u4e00-\u9fff]{2,}", term) and term not in terms:
                    terms.append(term)
    target.write_text("".join(f"{term} 1000 n\n" for term in terms))
    return target


def chinese_config(source: Path, english_config: Path) -> Path:
    """The Chinese edition's config: the English one (made position-independent) plus the language, the
    catalogues, Chinese search and the Colab path of the translated notebooks. Jupyter Book v1 has no
    language option, so this is generated like the CDN fallback config."""
    config = movable_config(english_config, source)
    sphinx_config = config["sphinx"]["config"]
    build = source / "_build"
    sphinx_config.update(
        language="zh_CN",
        # locales/ plus the messages translated by rule (reading times): see i18n_notebooks.MECHANICAL
        locale_dirs=[str(write_build_catalogues(source, build / "zh-locales").resolve())],
        gettext_compact=False,
        html_search_language="zh",
        html_search_options={"dict": str(jieba_dictionary(source, build / "zh-jieba-dict.txt"))},
        html_theme_options={"search_bar_text": ZH_SEARCH_BAR_TEXT},
    )
    config["sphinx"]["recursive_update"] = True
    # The launch button opens the Chinese notebook: Colab's URL is <path_to_book>/<page>.ipynb.
    config["repository"]["path_to_book"] = "i18n/zh_CN"
    return write_config(config, build / "zh-config.yml")


# Pages that moved when the book was restructured (old page -> new page, without suffix): the old address of
# each, in both editions, gets a small page that forwards to the new one, keeping the #section.
MOVED_PAGES = {
    "notebooks/05_minibatch_training_loop": "notebooks/06_minibatch_training_loop",
    "notebooks/06_sequence_labelling_and_loss_masking": "notebooks/08_sequence_labelling_and_loss_masking",
    "notebooks/07_transformers_masks_and_packing": "notebooks/09_transformers_masks_and_packing",
    "notebooks/08_distributed_variable_length_training": "notebooks/10_distributed_variable_length_training",
}
REDIRECT_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="canonical" href="{target}">
<meta http-equiv="refresh" content="0; url={target}">
<script>location.replace("{target}" + location.hash);</script>
</head>
<body><p>{text} <a href="{target}">{target}</a></p></body>
</html>
"""


def write_redirects(site: Path, source: Path = REPO, moved: dict[str, str] = MOVED_PAGES) -> list[Path]:
    """One forwarding page per moved page, in the English site and in the Chinese one (zh/)."""
    for old in moved:
        if any((source / f"{old}{suffix}").exists() for suffix in (".ipynb", ".md")):
            raise SystemExit(f"error: {old} is a page of the book again; remove it from MOVED_PAGES")
    written = []
    for edition, lang, title, text in [
        (site, "en", "This page has moved", "This page has moved to"),
        (site / ZH_FOLDER, "zh-CN", "此页已移动", "此页已移至"),
    ]:
        for old, new in moved.items():
            page = edition / f"{old}.html"
            target = os.path.relpath(edition / f"{new}.html", page.parent)
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(REDIRECT_PAGE.format(lang=lang, title=title, text=text, target=target))
            written.append(page)
    return written


def notebooks_without_outputs(source: Path = REPO) -> list[str]:
    missing = []
    for path in sorted((source / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = [cell for cell in cells if cell["cell_type"] == "code"]
        if code and not any(cell.get("outputs") for cell in code):
            missing.append(path.name)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source",
        type=Path,
        default=REPO,
        help="build this copy of the book (its _config.yml, _toc.yml, ...) into its own _build/html "
        "(tests/site_audit.py builds a private copy so that it never touches the repository's _build/)",
    )
    source = parser.parse_args(argv).source.resolve()
    start = time.perf_counter()
    build = source / "_build"
    build.mkdir(exist_ok=True)
    for name in notebooks_without_outputs(source):
        print(f"WARNING: {name} has no stored outputs; its page will show code only. Run `make execute`.")
    # --all: a clean build takes seconds, and an incremental one keeps links to pages added since (stale).
    jupyter_book = str(Path(sys.executable).parent / "jupyter-book")
    english = [jupyter_book, "build", str(source), "--builder", "html", "--all"]
    english_config = source / "_config.yml"
    if npm_ci():
        copy_site_assets(build / "site-assets")
    else:
        print(
            "WARNING: npm is missing or `npm ci` failed, so the widget JavaScript is not bundled: "
            "widgets and MathJax on the built pages will load from CDNs."
        )
        english_config = cdn_fallback_config(source)
        english += ["--config", str(english_config)]
    zh_build = build / "zh-build"
    chinese = [jupyter_book, "build", str(source), "--builder", "html", "--all", "--path-output", str(zh_build)]
    chinese += ["--config", str(chinese_config(source, english_config))]
    # The two editions build at once (one process each; the machine has two cores). The Chinese one's log goes
    # to a file and is shown only when it fails.
    zh_log_path = build / "zh-build.log"
    with zh_log_path.open("w") as zh_log:
        zh_process = subprocess.Popen(chinese, cwd=source, stdout=zh_log, stderr=subprocess.STDOUT)
        result = subprocess.run(english, cwd=source, check=False)
        zh_returncode = zh_process.wait()
    if result.returncode != 0:
        print("error: jupyter-book build failed (English edition)", file=sys.stderr)
        return result.returncode
    if zh_returncode != 0:
        print(zh_log_path.read_text()[-6000:], file=sys.stderr)
        print(f"error: jupyter-book build failed (Chinese edition; log: {zh_log_path})", file=sys.stderr)
        return zh_returncode
    zh_site = build / "html" / ZH_FOLDER
    if zh_site.exists():
        shutil.rmtree(zh_site)
    os.replace(zh_build / "_build" / "html", zh_site)
    localize_chinese_site(zh_site)
    # Its warnings join the English build's output, where `make book` users and the tests see them.
    for line in zh_log_path.read_text().splitlines():
        if "WARNING" in line:
            print(f"zh: {line}")
    write_redirects(build / "html", source)
    print(f"Chinese edition: {zh_site / 'index.html'} (its build log: {zh_log_path})")
    print(f"Built the site in {time.perf_counter() - start:.1f} s: {build / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
