"""What deep dive 14's setup cell gives its visible cells besides torch and the checks: chapter 4's sizes,
`pack`, and the function that rebuilds its padded batch and two encoders, the modules its cells use (the
widget, HTML and dispatch names of the slider), and the words its cells print and its slider's frames show."""

import contextlib
import html

import ipywidgets as widgets
from IPython.display import display
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence
from torch.utils._python_dispatch import TorchDispatchMode

from padpack.course.hidden_state import chapter_4_encoders, pack
from padpack.i18n import N_, gettext, say, translate

__all__ = [
    "DIRECTION_ORDER",
    "FRAME",
    "STATE_READ",
    "H",
    "PackedSequence",
    "TorchDispatchMode",
    "batch_size",
    "chapter_4_encoders",
    "contextlib",
    "display",
    "gettext",
    "hidden_size",
    "html",
    "input_size",
    "max_len",
    "num_layers",
    "pack",
    "pad_packed_sequence",
    "say",
    "translate",
    "widgets",
]

# From chapter 4: the sizes of its batch (lengths 5, 7, 2) and of its two encoders.
input_size, hidden_size, num_layers = 5, 6, 2
batch_size, max_len = 3, 7
H = hidden_size

# The sentences the cells print through padpack.i18n (deep dive 14's catalogue, ch14.po, holds their Chinese), and
# the words they fill in as the cells name them (printed with gettext): the two batches whose kernel order is
# logged, and the verdicts of `state_verdict` on the state a direction writes.
BATCH_KINDS = (N_("padded"), N_("packed"))
DIRECTION_ORDER = N_("{name}, {kind}: all forward steps, then all backward steps")
VERDICTS = (
    N_("on a pad"),
    N_("finished, pad skipped"),
    N_("not started, pad skipped"),
    N_("✓ matches alone"),
    N_("✗ differs"),
)
STATE_READ = N_("  packed={packed!s:<5} read {seen}: {verdict}")

# The words of the slider's frames, one catalogue message each: `translate` gives them in the notebook's language,
# so that the Chinese edition's frames are Chinese. The placeholders hold numbers, code and the cells' tokens (x0,
# pad), which stay as they are; a row's heading is keyed by its direction, and a state's cell shows one of VERDICTS.
FRAME = {
    "slider": N_("positions read"),
    "heading": N_("Positions read: {n}"),
    "summary": N_(
        "{heading} of {total}. The forward state has read positions 0 to {forward_last} and writes position "
        "{forward_last}; the backward state has read {backward_first} down to {backward_last} and writes position "
        "{backward_last}. Packed rows skip their pads. What each state has seen, not an execution order."
    ),
    # the first frame, where each state has read one position: "positions 0 to 0" would read like a bug
    "summary one": N_(
        "{heading} of {total}. The forward state has read only position 0 and writes it; the backward state has "
        "read only position {backward_first} and writes it. Packed rows skip their pads. What each state has seen, "
        "not an execution order."
    ),
    "legend": N_(
        "{real} a real token read &ensp;{pad} a pad read &ensp;{unseen} not read yet &ensp;thick frame: the position "
        "written"
    ),
    "padded": N_("padded, not packed"),
    "packed": N_("packed"),  # the caption of the packed batch's table: BATCH_KINDS' word
    "sequence": N_("sequence"),
    "state written": N_("state written"),
    "forward": N_("{sequence} forward"),
    "backward": N_("{sequence} backward"),
    # a token that the state has not read, and the note that says so to screen readers, which sits in a hidden
    # span that {hidden_start} and {hidden_end} open and close
    "not read": N_("{token}{hidden_start}, not read{hidden_end}"),
    "state": N_("t={position}: {verdict}"),
}
