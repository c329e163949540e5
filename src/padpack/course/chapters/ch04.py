"""What chapter 4's setup cell gives its visible cells besides torch and the checks: `run`, which runs an RNN
without gradients on one thread, the table of which positions match each sequence run alone (`match_table`,
written out by `verdicts` in the notebook's language), torch's padding and packing functions, and the figure
setup.

No size of the chapter's batch is built in: `run` unpacks to the longest sequence (or to `total_length`), and
`match_table` splits each position's features into the two directions' halves, whatever the hidden size.
"""

import contextlib

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.course.helpers import sharp_white_figures
from padpack.i18n import N_, gettext

__all__ = [
    "match_table",
    "np",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "plt",
    "run",
    "sharp_white_figures",
    "verdicts",
]

# A row of `verdicts`, one per direction: the two directions' names are aligned in the message itself, so that a
# translation aligns its own (the Chinese in ch04.po; the Chinese notebook stores these rows translated).
VERDICT_ROWS = {
    "forward": N_("  sequence {b} (length {length})  forward: {marks}"),
    "backward": N_("  sequence {b} (length {length}) backward: {marks}"),
}


@contextlib.contextmanager
def num_threads(count):
    """Use `count` threads inside the block, then restore the old count."""
    old_count = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(old_count)


def run(rnn, inputs, total_length=None):
    """Run rnn on a padded tensor or a PackedSequence.

    Return (output, h_n); a packed output is padded back, batch-first,
    to total_length steps (by default, its longest sequence).
    """
    with torch.no_grad(), num_threads(1):  # tiny tensors: one thread
        output, hidden = rnn(inputs)
    if isinstance(output, PackedSequence):
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=total_length)
    # an LSTM returns (h_n, c_n)
    h_n = hidden[0] if isinstance(hidden, tuple) else hidden
    return output, h_n


def verdicts(marks, lengths):
    """match_table's verdicts as text: one row per sequence and direction, ✓ where a position matches."""
    return "\n".join(
        gettext(VERDICT_ROWS[direction]).format(
            b=b, length=int(lengths[b]), marks=" ".join("✓" if ok else "✗" for ok in row)
        )
        for (b, direction), row in marks.items()
    )


def match_table(output, alone, lengths, left_padded=False):
    """For each sequence and direction: does each valid position of a bidirectional, batch-first output match
    the sequence run alone? The first half of each position's features is the forward direction's."""
    hidden_size = output.size(-1) // 2
    marks = {}
    for b, (alone_output, _) in enumerate(alone):
        length = int(lengths[b])
        start = output.size(1) - length if left_padded else 0
        valid = output[b, start : start + length]  # (length, 2H)
        close = torch.isclose(valid, alone_output[0], atol=1e-6)
        marks[b, "forward"] = close[:, :hidden_size].all(dim=1).tolist()
        marks[b, "backward"] = close[:, hidden_size:].all(dim=1).tolist()
    return marks
