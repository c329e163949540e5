"""scripts/build_book.py without npm: the fallback config must still build a site."""

from __future__ import annotations

import importlib.util

import yaml

from conftest import REPO


def load_build_book():
    spec = importlib.util.spec_from_file_location("build_book", REPO / "scripts" / "build_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cdn_fallback_config_drops_local_assets_and_keeps_extensions_importable():
    path = load_build_book().cdn_fallback_config()
    config = yaml.safe_load(path.read_text())
    sphinx_config = config["sphinx"]["config"]
    for key in ("nb_ipywidgets_js", "html_static_path", "mathjax_path"):
        assert key not in sphinx_config, f"the fallback config still names local {key}"
    for name, folder in config["sphinx"]["local_extensions"].items():
        assert (path.parent / folder / f"{name}.py").is_file(), f"{name} is not found from {path}"
    assert config["repository"] == yaml.safe_load((REPO / "_config.yml").read_text())["repository"]
