"""Build the website from the stored notebook outputs into _build/html.

Steps: install the pinned widget JavaScript with `npm ci` and copy what the pages need into
_build/widget-assets/widgets/ (served by the site itself, so no page asks a CDN for code or fonts);
warn about notebooks without stored outputs; run Jupyter Book v1; print where the site is.
Without npm the build still succeeds, with a config that lets the widgets load from the CDN, and says so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "_build"
ASSETS = BUILD / "widget-assets" / "widgets"
HTML_MANAGER_DIST = REPO / "node_modules" / "@jupyter-widgets" / "html-manager" / "dist"
REQUIREJS = REPO / "node_modules" / "requirejs" / "require.js"
FONT_SUFFIXES = {".woff2", ".woff", ".ttf", ".eot", ".svg"}

# html-manager's bundle loads its fonts from window.__jupyter_widgets_assets_path__ (else from a CDN):
# point it at the folder this script is served from.
WIDGETS_CONFIG_JS = """\
// Tell the widget bundle (embed-amd.js) to load its fonts from this site, not from a CDN.
window.__jupyter_widgets_assets_path__ = new URL(".", document.currentScript.src).href;
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
    result = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=REPO)
    return result.returncode == 0


def copy_widget_assets() -> None:
    if ASSETS.exists():
        shutil.rmtree(ASSETS)
    ASSETS.mkdir(parents=True)
    shutil.copy2(HTML_MANAGER_DIST / "embed-amd.js", ASSETS)
    for font in HTML_MANAGER_DIST.iterdir():
        if font.suffix in FONT_SUFFIXES:
            shutil.copy2(font, ASSETS)
    shutil.copy2(REQUIREJS, ASSETS)
    (ASSETS / "widgets-config.js").write_text(WIDGETS_CONFIG_JS)


def cdn_fallback_config() -> Path:
    """A copy of _config.yml without the local widget files: myst-nb then uses its CDN defaults."""
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    sphinx_config = config["sphinx"]["config"]
    sphinx_config.pop("nb_ipywidgets_js")
    sphinx_config.pop("html_static_path")
    path = BUILD / "cdn-fallback-config.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def notebooks_without_outputs() -> list[str]:
    missing = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = [cell for cell in cells if cell["cell_type"] == "code"]
        if code and not any(cell.get("outputs") for cell in code):
            missing.append(path.name)
    return missing


def main() -> int:
    start = time.perf_counter()
    BUILD.mkdir(exist_ok=True)
    for name in notebooks_without_outputs():
        print(f"WARNING: {name} has no stored outputs; its page will show code only. Run `make execute`.")
    command = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(REPO), "--builder", "html"]
    if npm_ci():
        copy_widget_assets()
    else:
        print("WARNING: npm is missing or `npm ci` failed, so the widget JavaScript is not bundled: "
              "widgets on the built pages will load from the jsDelivr/cdnjs CDNs.")
        command += ["--config", str(cdn_fallback_config())]
    result = subprocess.run(command, cwd=REPO)
    if result.returncode != 0:
        print("error: jupyter-book build failed", file=sys.stderr)
        return result.returncode
    print(f"Built the site in {time.perf_counter() - start:.1f} s: {BUILD / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
