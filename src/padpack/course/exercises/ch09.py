"""The exercise checks of chapter 9: a document mask for packed rows, SDPA's mask from a key padding mask, and a
causal mask for a left-padded batch."""

import torch

from padpack.checks import Case, Exercise, Mistake
from padpack.course.attention import document_ids
from padpack.i18n import N_

PAGE = "09_transformers_masks_and_packing"
PACKING_SEE = f"{PAGE}#packing-for-language-models-documents-in-rows"
SELF_ATTENTION_SEE = f"{PAGE}#self-attention-in-a-few-lines"
CONVENTIONS_SEE = f"{PAGE}#two-mask-conventions-true-means-ignore-or-true-means-take-part"
CLASSIC_SEE = f"{PAGE}#the-classic-bug-a-key-padding-mask-handed-to-sdpa"
SHAPE_SEE = f"{PAGE}#pitfall-a-b-s-mask-given-to-scaled-dot-product-attention"
INTEGER_SEE = f"{PAGE}#pitfall-a-0-1-integer-mask-as-key-padding-mask"
EMPTY_SEE = f"{PAGE}#fully-padded-rows-a-query-with-nothing-to-attend-to"


def as_bool_mask(mask: object) -> object:
    """A float mask of 0 (take part) and -inf (or any score that low, such as finfo.min) read as SDPA's bool mask:
    SDPA adds it to the scores, so it masks the same keys. Any other answer is left as it is."""
    if isinstance(mask, torch.Tensor) and mask.is_floating_point():
        low = mask <= torch.finfo(mask.dtype).min / 2
        if bool(((mask == 0) | low).all()):
            return mask == 0
    return mask


def read_like_answers(mistakes: list[Mistake], normalize) -> list[Mistake]:
    """The mistakes with their answers normalized as the check normalizes the learner's, so that a learner who
    writes one of them is told which."""
    return [
        mistake._replace(wrong=lambda *args, _wrong=mistake.wrong: normalize(_wrong(*args))) for mistake in mistakes
    ]


# 1. packed_causal_mask: the (N, N) mask of one row of packed documents.


def _causal(n: int, diagonal: int = 0) -> torch.Tensor:
    return torch.ones(n, n, dtype=torch.bool).tril(diagonal)


def _same_document(doc_lengths):
    doc = document_ids(doc_lengths)
    return doc[:, None] == doc[None, :]


def _packed(doc_lengths):
    return _same_document(doc_lengths) & _causal(sum(doc_lengths))


def packed_causal_mask_cases() -> list[Case]:
    """Packed rows of documents; the mask found by a slow loop."""
    cases = []
    for label, doc_lengths, shown in [
        (N_("documents of lengths 3, 1, 2"), [3, 1, 2], True),
        (N_("row 0 of the chapter: 5, 3, 2"), [5, 3, 2], True),
        (N_("a document of length 1 first"), [1, 4], True),
        (N_("two documents of the same length, unsorted: 2, 3, 2"), [2, 3, 2], True),
        (N_("one document only"), [4], True),
        (N_("documents of lengths 4, 4"), [4, 4], False),
        (N_("documents of lengths 6, 1, 1, 3, 2"), [6, 1, 1, 3, 2], False),
    ]:
        doc = [d for d, n in enumerate(doc_lengths) for _ in range(n)]
        want = torch.tensor([[doc[q] == doc[k] and k <= q for k in range(len(doc))] for q in range(len(doc))])
        cases.append(Case(label, (doc_lengths,), want, shown))
    return cases


def _lengths_as_ids(doc_lengths):
    doc = torch.tensor(doc_lengths).repeat_interleave(torch.tensor(doc_lengths))
    return (doc[:, None] == doc[None, :]) & _causal(sum(doc_lengths))


check_packed_causal_mask = Exercise(
    packed_causal_mask_cases,
    read_like_answers(
        [
            Mistake(
                lambda doc_lengths: _causal(sum(doc_lengths)),
                N_(
                    "One causal mask over the whole row lets every document attend to the documents before it in the "
                    "row: add the document mask."
                ),
                PACKING_SEE,
            ),
            Mistake(
                _same_document,
                N_(
                    "The block-diagonal mask alone lets each token see the later tokens of its own document: combine "
                    "it with the causal mask."
                ),
                PACKING_SEE,
            ),
            Mistake(
                lambda doc_lengths: _same_document(doc_lengths) & _causal(sum(doc_lengths)).T,
                N_(
                    "triu keeps the keys at or after the query, the future: a causal mask keeps the lower "
                    "triangle (tril)."
                ),
                SELF_ATTENTION_SEE,
            ),
            Mistake(
                lambda doc_lengths: ~_packed(doc_lengths),
                N_(
                    "This is nn.MultiheadAttention's convention (True = ignore); SDPA's bool mask uses "
                    "True = take part."
                ),
                CONVENTIONS_SEE,
            ),
            Mistake(
                lambda doc_lengths: _same_document(doc_lengths) & _causal(sum(doc_lengths), -1),
                N_(
                    "tril(-1) drops the diagonal: a token must attend to itself too, or the first token of each "
                    "document has nothing to attend to. Use tril() (diagonal 0)."
                ),
                EMPTY_SEE,
            ),
            Mistake(
                _lengths_as_ids,
                N_(
                    "repeat_interleave of the lengths themselves gives every token its document's length, not its "
                    "index: two documents of the same length then count as one. Repeat torch.arange(D) instead."
                ),
                PACKING_SEE,
            ),
            Mistake(
                lambda doc_lengths: _packed(doc_lengths).float(),
                N_(
                    "A float mask is added to the scores: 1.0 and 0.0 mask nothing. Return the bool mask (a float one "
                    "would need 0 and -inf)."
                ),
                CONVENTIONS_SEE,
            ),
        ],
        as_bool_mask,
    ),
    N_(
        "Give every token the index of its document (repeat_interleave on the lengths); a query and a key may "
        "meet when their document indices are equal and the key is not after the query."
    ),
    normalize=as_bool_mask,
)


# 2. sdpa_mask: SDPA's attn_mask from a key padding mask.


def as_key_mask(mask: object) -> object:
    """SDPA's mask as one (B, 1, 1, S) bool mask: a float mask of 0 and -inf read as bool, and a mask expanded over
    the heads or the queries (the same keys for each) taken once, as SDPA's broadcasting reads it."""
    mask = as_bool_mask(mask)
    if isinstance(mask, torch.Tensor) and mask.dtype == torch.bool and mask.dim() == 4:
        first = mask[:, :1, :1, :]
        if bool((mask == first).all()):
            return first
    return mask


def sdpa_mask_cases() -> list[Case]:
    """Key padding masks; SDPA's mask written out by a slow loop."""
    cases = []
    for label, lengths, width, shown in [
        (N_("the chapter's lengths 6, 4, 2, 5"), [6, 4, 2, 5], 6, True),
        (N_("4 sequences padded to 4"), [4, 1, 3, 2], 4, True),
        (N_("no padding at all"), [3, 3], 3, True),
        (N_("a batch of one"), [2], 5, True),
        (N_("lengths 1, 7, 3 padded to 7"), [1, 7, 3], 7, False),
        (N_("a batch of one without padding"), [5], 5, False),
    ]:
        is_pad = torch.tensor([[t >= n for t in range(width)] for n in lengths])
        want = torch.tensor([[[[t < n for t in range(width)]]] for n in lengths])
        cases.append(Case(label, (is_pad,), want, shown))
    return cases


check_sdpa_mask = Exercise(
    sdpa_mask_cases,
    read_like_answers(
        [
            Mistake(
                lambda is_pad: is_pad[:, None, None, :],
                N_(
                    "The key padding mask unchanged: True marks the pads, which SDPA reads as the keys that take part,"
                    " so every token attends only to pads."
                ),
                CLASSIC_SEE,
            ),
            Mistake(
                lambda is_pad: ~is_pad,
                N_("A (B, S) mask is read by SDPA as (T, S), query by key: reshape it to (B, 1, 1, S)."),
                SHAPE_SEE,
            ),
            Mistake(
                lambda is_pad: ~is_pad[:, None, :],
                N_(
                    "A (B, 1, S) mask broadcasts from the right, so its batch dimension lands on the heads: SDPA needs"
                    " (B, 1, 1, S)."
                ),
                SHAPE_SEE,
            ),
            Mistake(
                lambda is_pad: ~is_pad[:, None, :, None],
                N_(
                    "(B, 1, S, 1) lays the mask along the queries: pad queries see nothing and real ones still see "
                    "the pads. The keys are the last dimension: SDPA needs (B, 1, 1, S)."
                ),
                SHAPE_SEE,
            ),
            Mistake(
                lambda is_pad: (~is_pad).float()[:, None, None, :],
                N_("A float mask is added to the scores: 1.0 and 0.0 mask nothing; keep it bool (or use 0 and -inf)."),
                CONVENTIONS_SEE,
            ),
            Mistake(
                lambda is_pad: (~is_pad).long()[:, None, None, :],
                N_(
                    "A 0/1 integer mask (the tokenizer's attention_mask) is neither of SDPA's kinds: make it bool with "
                    "~key_padding_mask (or attention_mask == 1)."
                ),
                INTEGER_SEE,
            ),
            Mistake(
                lambda is_pad: (1 - is_pad)[:, None, None, :],
                N_("1 - mask raises on a bool tensor: flip a bool mask with ~ (or logical_not())."),
                CONVENTIONS_SEE,
                raises=True,
            ),
        ],
        as_key_mask,
    ),
    N_(
        "SDPA's True means take part, the opposite of a key padding mask; and its mask broadcasts against "
        "(B, heads, T, S), aligned from the last dimension."
    ),
    normalize=as_key_mask,
    answer=N_(
        "Without ~, every real token attends only to pads, and a sequence without pads attends to nothing (SDPA"
        " returns zeros for it); with ~, it matches nn.MultiheadAttention."
    ),
)


# 3. left_causal_mask: a causal mask for a batch padded on the left.


def pad_queries_see_themselves(mask: object) -> object:
    """A left-padded causal mask with each pad query's row written as "only itself", when that row lets the query
    see itself and nothing after it: the question asks that pad queries attend at least to themselves, and what
    else they see is never used (SDPA's outputs at real positions are the same). The last query of a row is real,
    so the keys its row leaves out are the pads; any other answer is left as it is."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.dim() != 3:
        return mask
    size = mask.shape[-1]
    if mask.shape[-2] != size:
        return mask
    itself = torch.eye(size, dtype=torch.bool)
    pads = ~mask[:, -1, :]  # (B, T): the keys the last query does not see
    allowed = ~(mask & ~torch.ones(size, size, dtype=torch.bool).tril()).any(-1)  # nothing in the future
    allowed &= mask.diagonal(dim1=-2, dim2=-1)  # and itself
    rewrite = pads & allowed
    return torch.where(rewrite[:, :, None], itself, mask)


def left_causal_mask_cases() -> list[Case]:
    """Left-padded batches; the mask written out by a slow loop."""
    cases = []
    for label, lengths, width, shown in [
        (N_("lengths 4, 2 padded on the left to 4"), [4, 2], 4, True),
        (N_("the chapter's lengths 6, 4, 2, 5"), [6, 4, 2, 5], 6, True),
        (N_("a length of 1"), [1, 3], 3, True),
        (N_("no padding at all"), [3, 3], 3, True),
        (N_("a batch of one"), [3], 5, True),
        (N_("lengths 2, 7, 5 padded to 7"), [2, 7, 5], 7, False),
        (N_("lengths 1, 1 padded to 4"), [1, 1], 4, False),
    ]:
        want = torch.tensor(
            [[[q == k or (k <= q and k >= width - n) for k in range(width)] for q in range(width)] for n in lengths]
        )
        cases.append(Case(label, (torch.tensor(lengths), width), want, shown))
    return cases


def _left_causal(width, real, lower):
    take = lower[None] & real[:, None, :]
    return take | torch.eye(width, dtype=torch.bool)


def _left_real(lengths, width):
    return torch.arange(width) >= width - lengths[:, None]


check_left_causal_mask = Exercise(
    left_causal_mask_cases,
    read_like_answers(
        [
            Mistake(
                lambda lengths, width: _left_causal(width, torch.arange(width) < lengths[:, None], _causal(width)),
                N_(
                    "This marks the first positions as real, as for right padding: with left padding the pads come "
                    "first."
                ),
                EMPTY_SEE,
            ),
            Mistake(
                lambda lengths, width: _causal(width)[None] & _left_real(lengths, width)[:, None, :],
                N_(
                    "Without the diagonal, the pad queries at the start of a row may attend to nothing: SDPA returns "
                    "zeros there, a softmax by hand NaN."
                ),
                EMPTY_SEE,
            ),
            Mistake(
                lambda lengths, width: _left_causal(width, _left_real(lengths, width), _causal(width).T),
                N_(
                    "The upper triangle lets each query see the keys after it, the future: a causal mask keeps the "
                    "lower triangle."
                ),
                SELF_ATTENTION_SEE,
            ),
            Mistake(
                lambda lengths, width: ~_left_causal(width, _left_real(lengths, width), _causal(width)),
                N_(
                    "This is nn.MultiheadAttention's convention (True = ignore); SDPA's bool mask uses "
                    "True = take part."
                ),
                CONVENTIONS_SEE,
            ),
            Mistake(
                lambda lengths, width: _left_causal(
                    width, torch.arange(width) > width - lengths[:, None], _causal(width)
                ),
                N_("Off by one: with > the first real token counts as a pad. Position t is real when t >= T - length."),
                EMPTY_SEE,
            ),
            Mistake(
                lambda lengths, width: (
                    _causal(width)[None] & (_left_real(lengths, width)[:, :, None] | torch.eye(width, dtype=torch.bool))
                ),
                N_(
                    "real[:, :, None] masks the queries, so real queries still see the pad keys: the pads to hide are "
                    "keys, the last dimension (real[:, None, :])."
                ),
                SHAPE_SEE,
            ),
        ],
        pad_queries_see_themselves,
    ),
    N_(
        "With left padding, position t is real when t >= T - length. Combine a lower-triangular mask with the "
        "real keys, then let every query also see itself."
    ),
    normalize=pad_queries_see_themselves,
    answer=N_(
        "SDPA returned zeros for the queries with nothing to attend to; with the diagonal added, the real "
        "positions are unchanged and no query is left with an empty softmax."
    ),
)
