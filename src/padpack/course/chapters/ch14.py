"""What deep dive 14's setup cell gives its visible cells besides torch and the checks: chapter 4's sizes,
`pack`, and the function that rebuilds its padded batch and two encoders, and the modules its cells use (the
widget, HTML and dispatch names of the slider)."""

import contextlib
import html

import ipywidgets as widgets
from IPython.display import display
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence
from torch.utils._python_dispatch import TorchDispatchMode

from padpack.course.hidden_state import chapter_4_encoders, pack
from padpack.i18n import N_, gettext, say

__all__ = [
    "DIRECTION_ORDER",
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
