"""What deep dive 16's setup cell needs besides torch and the checks: chapter 9's batch, encoder and helpers
(`padpack.course.attention`; call `build_batch()` right after `set_seed(0)` for chapter 9's weights), and the modules
its cells use: NumPy, torch's benchmark timer, FLOP counter and variable-length attention (None before torch
2.10, which added it), and the standard library's.

Importing it silences two notes that torch 2.13 prints about itself, not about the reader's code: a "prototype"
warning when its own CPU code builds an older kind of nested tensor, and a log line for tracing tools from
nested_tensor_from_jagged.
"""

import copy
import inspect
import os
import platform
import textwrap
import warnings

import numpy as np
from torch.nn.utils.rnn import PackedSequence, pack_sequence, pad_sequence
from torch.utils import benchmark
from torch.utils.flop_counter import FlopCounterMode

from padpack.course.attention import (
    PAD,
    TOLERANCE,
    backward_nan,
    build_batch,
    d_ff,
    d_model,
    embed,
    first_fit,
    head_dim,
    lengths,
    merge_heads,
    n_heads,
    pack_rows,
    project,
    quiet_torch_notes,
    sdpa_attention,
    split_heads,
    vocab_size,
)
from padpack.course.helpers import sharp_white_figures

try:  # torch 2.10 and newer
    from torch.nn.attention.varlen import varlen_attn
except ImportError:  # older torch: the page checks its signature only when it exists
    varlen_attn = None
from padpack.i18n import N_, gettext, say

__all__ = [
    "CALLS_PER_PASS",
    "DISTRIBUTION_ROW",
    "EMPTY_QUERY_ROW",
    "FASTEST",
    "FASTEST_TIED",
    "FIX_ROW",
    "IDEAL_ROW",
    "JAGGED_WITHOUT_ATTENTION",
    "LAYOUT_BEAT",
    "LAYOUT_LOST",
    "LAYOUT_ROW",
    "LAYOUT_UNRESOLVED",
    "PAD",
    "PASS_HEADER",
    "TOLERANCE",
    "FlopCounterMode",
    "PackedSequence",
    "backward_nan",
    "benchmark",
    "build_batch",
    "copy",
    "d_ff",
    "d_model",
    "embed",
    "first_fit",
    "gettext",
    "head_dim",
    "inspect",
    "layout_list",
    "lengths",
    "merge_heads",
    "n_heads",
    "np",
    "os",
    "pack_rows",
    "pack_sequence",
    "pad_sequence",
    "platform",
    "project",
    "say",
    "sdpa_attention",
    "sharp_white_figures",
    "split_heads",
    "textwrap",
    "varlen_attn",
    "vocab_size",
    "warnings",
]

quiet_torch_notes()


# The rows of the table of useful shares, keyed by chapter 1's length distributions as the cell keys them
DISTRIBUTION_ROW = {
    "uniform": N_("uniform     {cells}"),
    "long-tailed": N_("long-tailed {cells}"),
    "all equal": N_("all equal   {cells}"),
}
# The layouts, as the speed section's cells key them (their asserts compare these keys): a sentence prints a
# layout's name through gettext (a list of them through layout_list), capitalised where it starts the sentence; a
# table prints one message a row, aligned as the table is, so that a translation aligns its own row by display
# width.
LAYOUT_NAMES = (
    N_("random padded"),
    N_("bucketed padded"),
    N_("jagged"),
    N_("packed rows"),
    N_("Bucketed padded"),
    N_("Jagged"),
    N_("Packed rows"),
)


def layout_list(names: list[str]) -> str:
    """Layouts, as the cells key them, listed in a sentence in the reader's language: each name translated, and
    the names joined as the language joins them ("random padded, jagged"; "随机填充批次、锯齿张量")."""
    return gettext(N_(", ")).join(gettext(name) for name in names)


IDEAL_ROW = {  # the cost model's ideal time ratio of a layout
    "random padded": N_("random padded    ideal time ratio {ratio:.2f}"),
    "bucketed padded": N_("bucketed padded  ideal time ratio {ratio:.2f}"),
    "jagged": N_("jagged           ideal time ratio {ratio:.2f}"),
    "packed rows": N_("packed rows      ideal time ratio {ratio:.2f}"),
}
LAYOUT_ROW = {  # a layout's row under PASS_HEADER
    "random padded": N_("random padded     {spread:>22}{ratio:>11.2f}x{ideal:>7.2f}x"),
    "bucketed padded": N_("bucketed padded   {spread:>22}{ratio:>11.2f}x{ideal:>7.2f}x"),
    "jagged": N_("jagged            {spread:>22}{ratio:>11.2f}x{ideal:>7.2f}x"),
    "packed rows": N_("packed rows       {spread:>22}{ratio:>11.2f}x{ideal:>7.2f}x"),
}
# The calls a layout makes through the layer in one pass, each field named by the layout's first word
CALLS_PER_PASS = N_(
    "calls per pass: random padded {random}, bucketed padded {bucketed}, jagged {jagged}, packed rows {packed}"
)
# What a query with nothing to attend to gets on each code path, and the fixes tried in training, as their cells
# key them (their asserts compare these keys): one message a row, aligned as the table is, so that a translation
# aligns its own row; a verdict other than NaN is printed through gettext.
VERDICTS = (N_("zeros"), N_("other numbers"))
EMPTY_QUERY_ROW = {
    "softmax written by hand": N_("  softmax written by hand                          {result}"),
    "SDPA, bool mask": N_("  SDPA, bool mask                                  {result}"),
    "SDPA, float mask": N_("  SDPA, float mask                                 {result}"),
    "MultiheadAttention, need_weights=True": N_("  MultiheadAttention, need_weights=True            {result}"),
    "MultiheadAttention, need_weights=False, train": N_("  MultiheadAttention, need_weights=False, train    {result}"),
    "MultiheadAttention, need_weights=False, eval": N_("  MultiheadAttention, need_weights=False, eval     {result}"),
    "TransformerEncoder, eval (nested tensors)": N_("  TransformerEncoder, eval (nested tensors)        {result}"),
    "TransformerEncoderLayer alone, eval": N_("  TransformerEncoderLayer alone, eval              {result}"),
    "TransformerEncoder, eval, left padding": N_("  TransformerEncoder, eval, left padding           {result}"),
    "TransformerEncoder, eval, given a mask": N_("  TransformerEncoder, eval, given a mask           {result}"),
    "TransformerEncoder, enable_nested_tensor=False": N_("  TransformerEncoder, enable_nested_tensor=False   {result}"),
    "TransformerEncoder, eval, norm_first=True": N_("  TransformerEncoder, eval, norm_first=True        {result}"),
}
FIX_ROW = {
    "torch.where only": N_("torch.where only           loss NaN: {loss_nan!s:<5}  gradients NaN: {grads_nan}"),
    "empty input dropped": N_("empty input dropped        loss NaN: {loss_nan!s:<5}  gradients NaN: {grads_nan}"),
    "every query has a key": N_("every query has a key      loss NaN: {loss_nan!s:<5}  gradients NaN: {grads_nan}"),
    "need_weights=False": N_("need_weights=False         loss NaN: {loss_nan!s:<5}  gradients NaN: {grads_nan}"),
    "finfo.min instead of -inf": N_("finfo.min instead of -inf  loss NaN: {loss_nan!s:<5}  gradients NaN: {grads_nan}"),
}

# The conclusion that the speed section writes from the reader's timings: `say` prints it in the notebook's
# language (the Chinese in ch16.po), and the Chinese notebook stores it translated. Each sentence is one catalogue
# entry with only numbers and names to fill in, so that a translation is a whole sentence. A pass ("forward",
# "forward+backward") is no name to fill in but a phrase of the sentence: one message a pass, keyed by its name.
PASS_HEADER = {  # the header of a pass's table, aligned with its rows
    "forward": N_("forward                median ms (range)  time ratio   ideal"),
    "forward+backward": N_("forward+backward       median ms (range)  time ratio   ideal"),
}
FASTEST = {
    "forward": N_("Fastest for forward: {layout}; its slowest round beat the fastest round of every other layout."),
    "forward+backward": N_(
        "Fastest for forward+backward: {layout}; its slowest round beat the fastest round of every other layout."
    ),
}
FASTEST_TIED = {
    "forward": N_("Fastest for forward: not resolved among {layouts}, whose ranges over {rounds} rounds overlap."),
    "forward+backward": N_(
        "Fastest for forward+backward: not resolved among {layouts}, whose ranges over {rounds} rounds overlap."
    ),
}
LAYOUT_BEAT = N_(
    "{layout} took {forward}x (forward), {training}x (forward+backward) the time of random padded batches; "
    "its ideal is {ideal}x. For training it beat them beyond the spread of {rounds} rounds (its slowest faster "
    "than their fastest), at {times}x its ideal."
)
LAYOUT_LOST = N_(
    "{layout} took {forward}x (forward), {training}x (forward+backward) the time of random padded batches; "
    "its ideal is {ideal}x. For training it lost to them beyond the spread of {rounds} rounds (its fastest "
    "slower than their slowest), at {times}x its ideal."
)
LAYOUT_UNRESOLVED = N_(
    "{layout} took {forward}x (forward), {training}x (forward+backward) the time of random padded batches; "
    "its ideal is {ideal}x. For training their ranges over {rounds} rounds overlap: not resolved on this machine "
    "now ({times}x its ideal by the medians)."
)
JAGGED_WITHOUT_ATTENTION = N_(
    "With the attention off, jagged took {times}x the time of random padded batches (medians of {rounds} "
    "rounds): the cost of jagged tensors here lies outside the attention too, in every other operation on them."
)
