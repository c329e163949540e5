"""What a chapter's stored widget state says a reader sees: its controls, the links from controls to frame
containers (ipywidgets 8 `Stack`), and which frames are on screen for given control values.

Used by the static check (tests/test_widget_links.py) and by the browser test (tests/test_site.py), which moves
every control and compares the frames the browser shows with the frames computed here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import ipywidgets

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
FRAME_CONTAINER = "StackModel"
FRAME_MODELS = ("HTMLModel", "HTMLMathModel")  # frames render as .widget-html-content


def _widget_classes(cls=ipywidgets.Widget):
    for sub in cls.__subclasses__():
        yield sub
        yield from _widget_classes(sub)


# Controls: every ipywidgets model a reader can change (it has a `disabled` trait), e.g. sliders, dropdowns,
# toggle buttons, text boxes, Play. Derived from the installed ipywidgets, so a new kind of control is included.
CONTROL_MODELS = frozenset(
    cls._model_name.default_value
    for cls in _widget_classes()
    if "disabled" in cls.class_traits() and "_model_name" in cls.class_traits()
)
# How a control picks a frame: the trait linked to Stack.selected_index, and the frame index of each choice.
# The browser test can operate these; any other control fails the checks until it is supported here.
SUPPORTED_CONTROLS = {"IntSliderModel": "value", "SelectionSliderModel": "index", "DropdownModel": "index"}


def model_ref(model_id: str) -> str:
    return f"IPY_MODEL_{model_id}"


def unref(reference: str) -> str:
    return reference.removeprefix("IPY_MODEL_")


@dataclass
class WidgetState:
    models: dict[str, dict]  # model id -> {"model_name": ..., "state": {...}}
    roots: list[str]  # model ids shown in the notebook's outputs, in order

    @classmethod
    def of_notebook(cls, path: Path) -> WidgetState:
        nb = json.loads(path.read_text())
        models = nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
        roots = [
            output["data"][WIDGET_VIEW]["model_id"]
            for cell in nb["cells"]
            if cell["cell_type"] == "code"
            for output in cell.get("outputs", [])
            if WIDGET_VIEW in output.get("data", {})
        ]
        return cls(models, roots)

    def name(self, model_id: str) -> str:
        return self.models[model_id]["model_name"]

    def children(self, model_id: str) -> list[str]:
        return [unref(child) for child in self.models[model_id]["state"].get("children", [])]

    def shown_in_order(self) -> list[str]:
        """Every model reachable from the shown roots, depth first (document order on the page)."""
        order: list[str] = []

        def visit(model_id):
            if model_id in self.models and model_id not in order:
                order.append(model_id)
                for child in self.children(model_id):
                    visit(child)

        for root in self.roots:
            visit(root)
        return order

    def controls(self) -> list[str]:
        """The controls shown to the reader, in document order."""
        return [m for m in self.shown_in_order() if self.name(m) in CONTROL_MODELS]

    def links(self) -> list[tuple[tuple[str, str], tuple[str, str]]]:
        """Every jslink: ((source id, trait), (target id, trait)). A jslink syncs both ways."""
        found = []
        for model in self.models.values():
            if model["model_name"] == "LinkModel":
                (source, source_trait), (target, target_trait) = model["state"]["source"], model["state"]["target"]
                found.append(((unref(source), source_trait), (unref(target), target_trait)))
        return found

    def choices(self, control: str) -> list[int]:
        """The values of a supported control's linked trait, one per choice the reader can make."""
        state = self.models[control]["state"]
        if self.name(control) == "IntSliderModel":
            return list(range(state["min"], state["max"] + 1, state["step"]))
        if self.name(control) in ("SelectionSliderModel", "DropdownModel"):
            return list(range(len(state["_options_labels"])))
        raise ValueError(f"unsupported control {self.name(control)}")

    def initial_values(self) -> dict[tuple[str, str], object]:
        values = {}
        for model_id, model in self.models.items():
            for trait in ("value", "index", "selected_index"):
                if trait in model["state"]:
                    values[model_id, trait] = model["state"][trait]
        return values

    def propagate(self, values: dict, changed: dict) -> dict:
        """Trait values after setting `changed`, following every jslink (both ways) as the browser does."""
        values = {**values, **changed}
        pending = list(changed)
        while pending:
            end = pending.pop()
            for source, target in self.links():
                for here, there in ((source, target), (target, source)):
                    if here == end and values.get(there) != values[end]:
                        values[there] = values[end]
                        pending.append(there)
        return values

    def frames_on_screen(self, values: dict) -> list[str]:
        """The HTML of every frame a reader sees, in document order: a Stack shows its selected child only."""
        shown: list[str] = []

        def visit(model_id):
            name = self.name(model_id)
            if name in FRAME_MODELS:
                shown.append(self.models[model_id]["state"]["value"])
            elif name == FRAME_CONTAINER:
                index = values.get((model_id, "selected_index"))
                children = self.children(model_id)
                if index is not None and 0 <= index < len(children):
                    visit(children[index])
            else:
                for child in self.children(model_id):
                    visit(child)

        for root in self.roots:
            if root in self.models:
                visit(root)
        return shown

    def stacks_driven_by(self, control: str) -> set[str]:
        """The frame containers whose selected_index follows the control, directly or through other links."""
        trait = SUPPORTED_CONTROLS.get(self.name(control), "value")
        reached, pending = {(control, trait)}, [(control, trait)]
        while pending:
            end = pending.pop()
            for source, target in self.links():
                for here, there in ((source, target), (target, source)):
                    if here == end and there not in reached:
                        reached.add(there)
                        pending.append(there)
        return {
            model_id
            for model_id, trait in reached
            if trait == "selected_index" and self.models.get(model_id, {}).get("model_name") == FRAME_CONTAINER
        }
