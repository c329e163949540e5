"""Chapter 9's checks under the attack of exercise_checks_attack.md: a 0/-inf float mask (the check's own advice) and
a left-causal mask whose pad queries see more than themselves pass; wrong masks are named; a wrong bool mask is told
by its positions; hidden cases catch an answer written for the listed ones."""

import pytest
from exercise_harness import attempt

import padpack

RIGHT = "✓ {} is right"


# sdpa_mask: REJECTED-CORRECT in the attack (finding 7): the float-mask message offers "0 and -inf".
FLOAT_MINUS_INF = """
def sdpa_mask(key_padding_mask):
    m = torch.zeros(key_padding_mask.shape).masked_fill(key_padding_mask, float("-inf"))
    return m[:, None, None, :]
"""
FLOAT_FINFO_MIN = """
def sdpa_mask(key_padding_mask):
    m = torch.where(key_padding_mask, torch.finfo(torch.float32).min, 0.0)
    return m[:, None, None, :]
"""
EXPANDED = """
def sdpa_mask(key_padding_mask):
    S = key_padding_mask.shape[1]
    return (~key_padding_mask)[:, None, None, :].expand(-1, 4, S, S)
"""
UNSQUEEZED = """
def sdpa_mask(key_padding_mask):
    return key_padding_mask.logical_not().unsqueeze(1).unsqueeze(2)
"""


@pytest.mark.parametrize("source", [FLOAT_MINUS_INF, FLOAT_FINFO_MIN, EXPANDED, UNSQUEEZED])
def test_sdpa_mask_accepts_every_mask_sdpa_reads_the_same(chapter, source):
    assert attempt(chapter, "sdpa_mask", source).startswith(RIGHT.format("sdpa_mask"))


@pytest.mark.parametrize(
    "source, named",
    [
        (
            "def sdpa_mask(m):\n    return torch.where(m, 0.0, float('-inf'))[:, None, None, :]",
            "key padding mask unchanged",
        ),
        ("def sdpa_mask(m):\n    return (1 - m)[:, None, None, :]", "1 - mask raises on a bool tensor"),
        ("def sdpa_mask(m):\n    return (m == 0).long()[:, None, None, :]", "0/1 integer mask"),
        (
            "def sdpa_mask(m):\n    return (~m).unsqueeze(1).unsqueeze(-1)",
            "(B, 1, S, 1) lays the mask along the queries",
        ),
        ("def sdpa_mask(m):\n    return (~m).float()[:, None, None, :]", "1.0 and 0.0 mask nothing"),
    ],
)
def test_sdpa_mask_names_what_learners_write(chapter, source, named):
    output = attempt(chapter, "sdpa_mask", source)
    assert output.startswith("✗ sdpa_mask is wrong") and named in " ".join(output.split()), output


def test_sdpa_mask_hard_coded_to_the_listed_cases_fails(chapter):
    listed = {(6, 4, 2, 5), (4, 1, 3, 2), (3, 3), (2,)}
    source = f"""
def sdpa_mask(key_padding_mask):
    lengths = tuple((~key_padding_mask).sum(1).tolist())
    if lengths in {listed!r}:
        return ~key_padding_mask[:, None, None, :]
    return torch.ones(key_padding_mask.shape[0], 1, 1, key_padding_mask.shape[1], dtype=torch.bool)
"""
    assert attempt(chapter, "sdpa_mask", source).startswith("✗ sdpa_mask is wrong")


# left_causal_mask: REJECTED-CORRECT in the attack (finding 9): "at least to itself" was checked as "only itself".
PADS_SEE_EARLIER_PADS = """
def left_causal_mask(lengths, T):
    real = torch.arange(T) >= T - lengths[:, None]
    lower = torch.ones(T, T, dtype=torch.bool).tril()
    return lower & (real[:, None, :] | ~real[:, :, None])
"""
PADS_SEE_ONLY_THEMSELVES = """
def left_causal_mask(lengths, T):
    real = torch.arange(T) >= T - lengths[:, None]
    lower = torch.ones(T, T, dtype=torch.bool).tril()
    pad_query = ~real[:, :, None] & torch.eye(T, dtype=torch.bool)
    return (lower & real[:, None, :] & real[:, :, None]) | pad_query
"""


@pytest.mark.parametrize("source", [PADS_SEE_EARLIER_PADS, PADS_SEE_ONLY_THEMSELVES])
def test_left_causal_mask_lets_pad_queries_see_more_than_themselves(chapter, source):
    assert attempt(chapter, "left_causal_mask", source).startswith(RIGHT.format("left_causal_mask"))


def test_left_causal_mask_pad_queries_must_not_see_the_future(chapter):
    source = """
def left_causal_mask(lengths, T):
    real = torch.arange(T) >= T - lengths[:, None]
    lower = torch.ones(T, T, dtype=torch.bool).tril()
    take = lower & real[:, None, :]
    return take | ~real[:, :, None]  # pad queries see every key, the future too
"""
    assert attempt(chapter, "left_causal_mask", source).startswith("✗ left_causal_mask is wrong")


def test_a_wrong_bool_mask_is_told_by_its_positions(chapter):
    source = """
def left_causal_mask(lengths, T):
    real = torch.arange(T) >= T - lengths[:, None]
    return torch.ones(T, T, dtype=torch.bool).tril() | real[:, None, :]
"""
    output = " ".join(attempt(chapter, "left_causal_mask", source).split())
    assert "is wrong at" in output and "positions; the first: (0, 0, 1)" in output, output
    assert "largest difference" not in output


LEFT = """
def left_causal_mask(lengths, T):
    real = torch.arange(T) {compare} T - lengths[:, None]
    lower = torch.ones(T, T, dtype=torch.bool).tril()
    itself = torch.eye(T, dtype=torch.bool)
    return {mask}
"""


@pytest.mark.parametrize(
    "compare, mask, named",
    [
        (">", "(lower & real[:, None, :]) | itself", "Off by one"),
        (">=", "lower & (real[:, :, None] | itself)", "real[:, :, None] masks the queries"),
        (">=", "lower & real[:, None, :]", "Without the diagonal"),
        (">=", "~((lower & real[:, None, :]) | itself)", "nn.MultiheadAttention's convention"),
    ],
)
def test_left_causal_mask_names_what_learners_write(chapter, compare, mask, named):
    output = attempt(chapter, "left_causal_mask", LEFT.format(compare=compare, mask=mask))
    assert output.startswith("✗ left_causal_mask is wrong") and named in " ".join(output.split()), output


# packed_causal_mask: the classes of the brief (unsorted lengths, equal lengths, hidden cases, float 0/-inf).
def test_packed_causal_mask_catches_lengths_used_as_document_ids(chapter):
    source = """
def packed_causal_mask(doc_lengths):
    lengths = torch.tensor(doc_lengths)
    doc = lengths.repeat_interleave(lengths)  # the length, not the index
    n = len(doc)
    return (doc[:, None] == doc[None, :]) & torch.ones(n, n, dtype=torch.bool).tril()
"""
    output = attempt(chapter, "packed_causal_mask", source)
    assert "two documents of the same length" in output and "count as one" in " ".join(output.split()), output


def test_packed_causal_mask_accepts_a_float_mask_of_zero_and_minus_inf(chapter):
    source = """
def packed_causal_mask(doc_lengths):
    doc = torch.cat([torch.full((n,), d) for d, n in enumerate(doc_lengths)])
    n = len(doc)
    take = (doc[:, None] == doc[None, :]) & torch.ones(n, n, dtype=torch.bool).tril()
    return torch.zeros(n, n).masked_fill(~take, float("-inf"))
"""
    assert attempt(chapter, "packed_causal_mask", source).startswith(RIGHT.format("packed_causal_mask"))


def test_packed_causal_mask_names_a_dropped_diagonal(chapter):
    source = """
def packed_causal_mask(doc_lengths):
    lengths = torch.tensor(doc_lengths)
    doc = torch.arange(len(lengths)).repeat_interleave(lengths)
    n = len(doc)
    return (doc[:, None] == doc[None, :]) & torch.ones(n, n, dtype=torch.bool).tril(-1)
"""
    assert "tril(-1) drops the diagonal" in attempt(chapter, "packed_causal_mask", source)


def test_packed_causal_mask_hard_coded_to_the_listed_cases_fails(chapter):
    source = """
def packed_causal_mask(doc_lengths):
    if len(doc_lengths) == 2 and doc_lengths[0] == doc_lengths[1]:
        return torch.ones(sum(doc_lengths), sum(doc_lengths), dtype=torch.bool).tril()
    lengths = torch.tensor(doc_lengths)
    doc = torch.arange(len(lengths)).repeat_interleave(lengths)
    n = len(doc)
    return (doc[:, None] == doc[None, :]) & torch.ones(n, n, dtype=torch.bool).tril()
"""
    output = attempt(chapter, "packed_causal_mask", source)
    assert output.startswith("✗ packed_causal_mask is wrong on a case that is not listed"), output
    assert "4, 4" not in output, "a hidden case's inputs are not printed"


def test_every_mask_check_is_translated(chapter):
    padpack.use_language("zh_CN")
    try:
        output = attempt(chapter, "sdpa_mask", "def sdpa_mask(m):\n    return (1 - m)[:, None, None, :]")
    finally:
        padpack.use_language("en")
    assert "翻转布尔掩码" in output, output
