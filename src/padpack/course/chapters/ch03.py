"""What chapter 3's setup cell gives its visible cells besides torch and the checks: the helpers `fmt` and
`same`, the device it runs on, torch's padding and packing functions, and the widget names and words of its
slider."""

import ipywidgets as widgets
from IPython.display import display
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.course.hidden_state import fmt, pick_device, same
from padpack.i18n import N_, translate

__all__ = [
    "FRAME",
    "device",
    "display",
    "fmt",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "same",
    "translate",
    "widgets",
]

device = pick_device()

# The words of the slider's frames, one catalogue message each: `translate` gives them in the notebook's language,
# so that the Chinese edition's frames are Chinese (the placeholders hold numbers and code).
FRAME = {
    "slider": N_("sequence"),
    "option": N_("{sequence} (len {length})"),
    "heading": N_("Sequence {option}"),
    "summary": N_(
        "{heading}: packed {h_n} is the output at t={packed_step}, padded {h_n} the output at t={padded_step}. "
        "{verdict}"
    ),
    "no pads": N_("No pads, so both runs end at the same step."),
    "one pad later": N_("The padded run's {h_n} comes 1 pad step later; it is {gap:.3f} away from the true state."),
    "pads later": N_("The padded run's {h_n} comes {pads} pad steps later; it is {gap:.3f} away from the true state."),
    "caption": N_(
        "Numbers: the first hidden feature of {output}. Grey rows: pad steps. Framed, {equals_h_n}: the step whose "
        "output equals that run's {h_n}."
    ),
    "input": N_("input"),
    "padded run": N_("padded run"),
    "packed run": N_("packed run"),
    "pad": N_("pad"),
    "real": N_("real"),
}
