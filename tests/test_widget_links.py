"""Static checks of the stored widget state: every control drives frames through a link the browser runs.

The site has no kernel: a control changes the frame on screen only through a `jslink` (a LinkModel in the
stored state) to a frame container (ipywidgets 8 `Stack`). A control without one moves over a frame that never
changes; the browser test (tests/test_site.py) then also fails, but this says why in a second, without a build.
"""

from __future__ import annotations

import itertools

import pytest

from conftest import notebook_paths
from widget_state import CONTROL_MODELS, FRAME_CONTAINER, SUPPORTED_CONTROLS, WidgetState

WIDGET_NOTEBOOKS = [path for path in notebook_paths() if WidgetState.of_notebook(path).models]
pytestmark = pytest.mark.skipif(not WIDGET_NOTEBOOKS, reason="no chapter stores widget state")


@pytest.fixture(params=WIDGET_NOTEBOOKS or [None], ids=lambda path: getattr(path, "name", "none"))
def widget_state(request) -> tuple[str, WidgetState]:
    return request.param.name, WidgetState.of_notebook(request.param)


def test_links_join_stored_models(widget_state):
    name, state = widget_state
    for source, target in state.links():
        for model_id, trait in (source, target):
            assert model_id in state.models, f"{name}: a link points to model {model_id}, which is not stored"
            assert trait in state.models[model_id]["state"], (
                f"{name}: a link names {state.name(model_id)}.{trait}, a trait the model does not have"
            )


def test_every_control_drives_a_frame_container_through_a_link(widget_state):
    name, state = widget_state
    controls = state.controls()
    assert controls or not any(state.name(m) in CONTROL_MODELS for m in state.models), (
        f"{name}: controls are stored but none is shown"
    )
    for control in controls:
        kind = state.name(control)
        assert kind in SUPPORTED_CONTROLS, (
            f"{name}: {kind} is not a control the tests can operate; add it to widget_state.SUPPORTED_CONTROLS "
            "and to the browser test"
        )
        stacks = state.stacks_driven_by(control)
        assert stacks, (
            f"{name}: the {kind} '{state.models[control]['state'].get('description', '')}' is "
            f"linked to no {FRAME_CONTAINER}: it would move over a frame that never changes "
            "(is jslink missing from linked_frames?)"
        )
        choices = state.choices(control)
        trait = SUPPORTED_CONTROLS[kind]
        for stack in stacks:
            frames = len(state.children(stack))
            assert choices == list(range(frames)), (
                f"{name}: the {kind} offers {trait} {choices[0]}..{choices[-1]} but its {FRAME_CONTAINER} has "
                f"{frames} frames: every choice must pick its own frame, and every frame must be reachable"
            )
            selected = state.models[stack]["state"].get("selected_index")
            assert selected == state.models[control]["state"][trait], (
                f"{name}: the {FRAME_CONTAINER} starts at frame {selected}, the {kind} at "
                f"{state.models[control]['state'][trait]}"
            )


def test_every_frame_container_follows_a_control(widget_state):
    name, state = widget_state
    driven = set().union(*(state.stacks_driven_by(control) for control in state.controls()))
    stacks = {m for m in state.shown_in_order() if state.name(m) == FRAME_CONTAINER}
    assert stacks <= driven, f"{name}: {len(stacks - driven)} frame container(s) follow no control"


def test_each_choice_shows_other_frames(widget_state):
    """Moving one control changes what is on screen at every step, wherever the other controls stand."""
    name, state = widget_state
    start = state.initial_values()
    controls = state.controls()
    traits = {control: SUPPORTED_CONTROLS[state.name(control)] for control in controls}
    for control in controls:
        others = [other for other in controls if other != control]
        for setting in itertools.product(*(state.choices(other) for other in others)):
            fixed = {(other, traits[other]): choice for other, choice in zip(others, setting, strict=True)}
            seen = [
                state.frames_on_screen(state.propagate(start, {**fixed, (control, traits[control]): choice}))
                for choice in state.choices(control)
            ]
            repeated = [
                choice for choice, frames in zip(state.choices(control), seen, strict=True) if seen.count(frames) > 1
            ]
            assert not repeated, (
                f"{name}: the {state.name(control)} shows the same frames for {traits[control]} {repeated} "
                f"(other controls at {setting}): a frame is duplicated or the control drives nothing"
            )
