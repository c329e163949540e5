"""The exercise check of deep dive 16: the inputs of a variable-length attention kernel."""

import torch
import torch.nn.functional as F

from padpack.checks import Case, Exercise, Mistake
from padpack.course.attention import document_ids
from padpack.i18n import N_

VARLEN_SEE = "16_deep_dive_attention_cost#on-a-gpu-variable-length-flash-attention"
PACKING_SEE = "09_transformers_masks_and_packing#packing-for-language-models-documents-in-rows"


def varlen_inputs_cases() -> list[Case]:
    """Documents; offsets from a jagged tensor, positions from a loop."""
    cases = []
    for label, doc_lengths, shown in [
        (N_("the chapter's documents 5, 3, 7, 2, 6, 4, 8"), [5, 3, 7, 2, 6, 4, 8], True),
        (N_("documents of length 1"), [1, 3, 1], True),
        (N_("one document only"), [6], True),
        (N_("documents of lengths 2, 9, 4, 4"), [2, 9, 4, 4], False),
        (N_("one document of length 1"), [1], False),
    ]:
        jagged = torch.nested.nested_tensor([torch.zeros(n) for n in doc_lengths], layout=torch.jagged)
        positions = torch.tensor([t for n in doc_lengths for t in range(n)])
        want = (jagged.offsets().int(), positions)
        cases.append(Case(label, (doc_lengths,), want, shown))
    return cases


def _varlen_wrong(doc_lengths, part):
    offsets = F.pad(torch.tensor(doc_lengths).cumsum(0), (1, 0))
    doc = document_ids(doc_lengths)
    steps = torch.arange(len(doc))
    cu, positions = offsets.int(), steps - offsets[doc]
    if part == "no leading 0":
        cu = offsets[1:].int()
    if part == "int64":
        cu = offsets
    if part == "running on":
        positions = steps
    if part == "ends":
        positions = steps - offsets[1:][doc]
    if part == "int32 positions":
        positions = positions.int()
    if part == "lengths":
        cu = torch.tensor(doc_lengths, dtype=torch.int32)
    return cu, positions


check_varlen_inputs = Exercise(
    varlen_inputs_cases,
    [
        Mistake(
            lambda doc_lengths: _varlen_wrong(doc_lengths, "no leading 0"),
            N_(
                "cumsum alone lacks the leading 0: cu_seqlens holds one offset more than there are documents, the "
                "start of the first one."
            ),
            VARLEN_SEE,
        ),
        Mistake(
            lambda doc_lengths: _varlen_wrong(doc_lengths, "int64"),
            N_("cumsum returns int64; the variable-length kernels take cu_seqlens as int32."),
            VARLEN_SEE,
        ),
        Mistake(
            lambda doc_lengths: _varlen_wrong(doc_lengths, "running on"),
            N_(
                "These positions run on across the documents: each document must start again at position 0, as "
                "when it runs alone."
            ),
            PACKING_SEE,
        ),
        Mistake(
            lambda doc_lengths: _varlen_wrong(doc_lengths, "ends"),
            N_(
                "These positions subtract each document's end instead of its start: the offsets of the starts need "
                "the leading 0."
            ),
            PACKING_SEE,
        ),
        Mistake(
            lambda doc_lengths: _varlen_wrong(doc_lengths, "int32 positions"),
            N_(
                "The position ids are int32: only cu_seqlens is int32; position ids index an embedding table, "
                "keep them int64 (torch.arange's default)."
            ),
            PACKING_SEE,
        ),
        Mistake(
            lambda doc_lengths: _varlen_wrong(doc_lengths, "lengths"),
            N_(
                "cu_seqlens holds the cumulative offsets, not the lengths: a 0, then the running sum of the "
                "lengths (D + 1 numbers)."
            ),
            VARLEN_SEE,
        ),
    ],
    N_(
        "Pad the cumulative sum of the lengths with a 0 in front. Then give every token its document "
        "(repeat_interleave) and subtract that document's start from the token's index in the row."
    ),
)
