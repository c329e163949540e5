"""The widget helper every chapter copies: one implementation, working with ipywidgets 8 (the site, Jupyter)
and with ipywidgets 7 (Colab), which has no Stack."""

from __future__ import annotations

import ast
import json

import ipywidgets
import pytest

from conftest import notebook_paths, without_magics

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def helper_sources() -> dict[str, str]:
    """The source of `linked_frames` in each notebook that stores widget state."""
    found = {}
    for path in notebook_paths():
        nb = json.loads(path.read_text())
        if not nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state"):
            continue
        for cell in nb["cells"]:
            text = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
            for node in ast.parse(without_magics(text)).body:
                if isinstance(node, ast.FunctionDef) and node.name == "linked_frames":
                    found[path.name] = ast.get_source_segment(text, node)
        assert path.name in found, f"{path.name} shows widgets but does not define linked_frames"
    return found


HELPERS = helper_sources()


def load_helper(source: str):
    namespace = {"widgets": ipywidgets}
    exec(source, namespace)
    return namespace["linked_frames"]


def test_every_chapter_uses_the_same_helper():
    assert len(set(HELPERS.values())) <= 1, f"linked_frames differs between {sorted(HELPERS)}: keep one copy"


@pytest.mark.skipif(not HELPERS, reason="no notebook shows widgets yet")
def test_ipywidgets8_links_the_frames_in_the_browser():
    linked_frames = load_helper(next(iter(HELPERS.values())))
    slider = ipywidgets.IntSlider(value=1, min=0, max=2)
    shown = linked_frames(["<b>a</b>", "<b>b</b>", "<b>c</b>"], slider)
    assert isinstance(shown, ipywidgets.Stack) and shown.selected_index == 1


@pytest.mark.skipif(not HELPERS, reason="no notebook shows widgets yet")
def test_ipywidgets7_fallback_swaps_frames_without_stack(monkeypatch):
    monkeypatch.delattr(ipywidgets, "Stack")
    linked_frames = load_helper(next(iter(HELPERS.values())))
    slider = ipywidgets.IntSlider(value=0, min=0, max=2)
    inner = [linked_frames(["x0", "x1"], slider), linked_frames(["y0", "y1"], slider)]
    choice = ipywidgets.Dropdown(options=["x", "y"], value="x")
    outer = linked_frames(inner, choice, "index")

    def shown_text():
        inner_box = outer.children[0]
        return inner_box.children[0].value

    assert shown_text() == "x0"
    slider.value = 1
    assert shown_text() == "x1"
    choice.value = "y"
    assert shown_text() == "y1"
