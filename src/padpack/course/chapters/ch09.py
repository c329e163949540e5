"""What chapter 9's setup cell needs besides torch and the checks: the modules its later cells use (the widget of
its figure, warnings), the device it runs on, quiet torch notes, the sentences that its cells print from values
(`say` prints them in the notebook's language), and the words of its masks' widget (`translate` gives them in the
notebook's language).

Importing it silences two notes that torch 2.13 prints about itself, not about the reader's code: a "prototype"
warning when its own CPU code builds an older kind of nested tensor, and log lines that list why each SDPA
kernel refused jagged inputs.
"""

import warnings

import ipywidgets as widgets
from IPython.display import display

from padpack.course.attention import quiet_torch_notes
from padpack.i18n import N_, say, translate

__all__ = [
    "FRAME",
    "ROW_ORDER",
    "TORCH_NOTE",
    "VARIANT_ROW",
    "device",
    "display",
    "say",
    "translate",
    "warnings",
    "widgets",
]

# The rows of the packing experiment's table, one message a row, keyed by the variant as its cell keys it (its
# asserts compare these keys) and aligned as the table is, so that a translation aligns its own row; ROW_ORDER is
# its first row, the documents' letters in the order the rows hold them.
ROW_ORDER = N_("documents, row by row:               {letters}")
VARIANT_ROW = {
    "causal mask only": N_("causal mask only                     {marks}"),
    "document mask, row positions": N_("document mask, row positions         {marks}"),
    "document mask + document positions": N_("document mask + document positions   {marks}"),
}
# torch's own note (its text stays as torch wrote it), after the chapter's prefix
TORCH_NOTE = N_("torch's note: {note}")

# The words of the masks' widget, one catalogue message each: its controls' labels, and its frames' captions, legend
# and the grids' summaries (their aria-label), one message per variant; the placeholders hold numbers and the
# documents' letters with their lengths.
FRAME = {
    "layout": N_("layout"),
    "padded layout": N_("padded batch, key padding mask"),
    "packed layout": N_("packed rows, causal document mask"),
    "row slider": N_("batch row"),
    "row option": N_("row {row}"),
    "padded caption": N_(
        "row {row}: a sequence of length {length}, padded to {max_length}; {useful} of {scores} scores are useful "
        "({share:.0%})"
    ),
    "packed caption": N_("row {row}: documents {documents}; {useful} of {scores} scores are useful ({share:.0%})"),
    # the packed caption's documents: each with its length, joined by the separator
    "document": N_("{letter} ({length} tokens)"),
    "separator": N_(", "),
    "legend": N_("rows: queries; columns: keys. Letter: takes part (p = pad); grey with a dot: masked."),
    "padded summary": N_(
        "Attention grid of {size} queries by {size} keys: the first {length} keys take part, the other keys are "
        "masked; the last {pads} queries are pads."
    ),
    "padded summary, one pad": N_(
        "Attention grid of {size} queries by {size} keys: the first {length} keys take part, the other keys are "
        "masked; the last query is a pad."
    ),
    "padded summary, no pad": N_(
        "Attention grid of {size} queries by {size} keys: the first {length} keys take part, the other keys are "
        "masked; no query is a pad."
    ),
    "packed summary": N_(
        "Attention grid of {size} queries by {size} keys: one lower triangle per document along the diagonal (the "
        "tail padding, marked p, makes one more); every other cell is masked."
    ),
}

device = "cpu"  # the findings of this chapter are about PyTorch's CPU kernels
quiet_torch_notes()
