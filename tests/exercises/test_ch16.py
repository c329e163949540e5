"""Deep dive 16's check under the attack of exercise_checks_attack.md (finding 4): a tuple answer is compared element
by element, so int32 positions are told as such (and named); correct alternatives pass; hidden cases catch an answer
written for the listed ones."""

import pytest
from exercise_harness import printed


def verdict(chapter, source):
    return " ".join(printed(chapter.check("varlen_inputs"), chapter.define(source, "varlen_inputs")).split())


# The attack's example: int32 positions, hidden behind two truncated reprs that read the same.
INT32_POSITIONS = """
def varlen_inputs(doc_lengths):
    L = torch.tensor(doc_lengths, dtype=torch.int32)
    cu = torch.cat([torch.zeros(1, dtype=torch.int32), L.cumsum(0, dtype=torch.int32)])
    return cu, torch.cat([torch.arange(n, dtype=torch.int32) for n in doc_lengths])
"""


def test_int32_positions_are_named(chapter):
    output = verdict(chapter, INT32_POSITIONS)
    assert output.startswith("✗ varlen_inputs is wrong") and "The position ids are int32" in output, output


def test_a_tuple_is_compared_element_by_element(chapter):
    """Without a named mistake, the message names the element and how it differs (here the dtype)."""
    check = chapter.check("varlen_inputs")
    saved = check.mistakes
    check.mistakes = []
    try:
        output = verdict(chapter, INT32_POSITIONS)
    finally:
        check.mistakes = saved
    assert "What it returned[1] has dtype torch.int32; the right dtype is torch.int64." in output, output


@pytest.mark.parametrize(
    "source",
    [
        # a loop and a list instead of a tuple
        """
def varlen_inputs(doc_lengths):
    cu, positions = [0], []
    for n in doc_lengths:
        cu.append(cu[-1] + n)
        positions += range(n)
    return [torch.tensor(cu, dtype=torch.int32), torch.tensor(positions)]
""",
        # a jagged tensor's offsets
        """
def varlen_inputs(doc_lengths):
    nested = torch.nested.nested_tensor([torch.zeros(n) for n in doc_lengths], layout=torch.jagged)
    positions = torch.cat([torch.arange(n) for n in doc_lengths])
    return nested.offsets().to(torch.int32), positions
""",
    ],
)
def test_correct_alternatives_pass(chapter, source):
    assert verdict(chapter, source).startswith("✓ varlen_inputs is right"), verdict(chapter, source)


@pytest.mark.parametrize(
    "body, named",
    [
        ("cu = L.cumsum(0).int()\n    pos = torch.cat([torch.arange(n) for n in doc_lengths])", "lacks the leading 0"),
        ("cu = F.pad(L.cumsum(0), (1, 0))\n    pos = torch.cat([torch.arange(n) for n in doc_lengths])", "int32"),
        ("cu = F.pad(L.cumsum(0), (1, 0)).int()\n    pos = torch.arange(int(L.sum()))", "run on across"),
        ("cu = L.int()\n    pos = torch.cat([torch.arange(n) for n in doc_lengths])", "not the lengths"),
    ],
)
def test_what_learners_write_is_named(chapter, body, named):
    source = f"def varlen_inputs(doc_lengths):\n    L = torch.tensor(doc_lengths)\n    {body}\n    return cu, pos\n"
    output = verdict(chapter, source)
    assert output.startswith("✗ varlen_inputs is wrong") and named in output, output


def test_an_answer_hard_coded_to_the_listed_cases_fails(chapter):
    source = """
def varlen_inputs(doc_lengths):
    listed = {
        (5, 3, 7, 2, 6, 4, 8): [0, 5, 8, 15, 17, 23, 27, 35],
        (1, 3, 1): [0, 1, 4, 5],
        (6,): [0, 6],
    }
    cu = torch.tensor(listed.get(tuple(doc_lengths), [0]), dtype=torch.int32)
    return cu, torch.cat([torch.arange(n) for n in doc_lengths])
"""
    output = verdict(chapter, source)
    assert output.startswith("✗ varlen_inputs is wrong on a case that is not listed"), output
    assert "2, 9, 4, 4" not in output, "a hidden case's inputs are not printed"


def test_the_check_leaves_the_caller_list_alone(chapter):
    source = """
def varlen_inputs(doc_lengths):
    lengths = torch.tensor(doc_lengths)
    cu = F.pad(lengths.cumsum(0), (1, 0)).int()
    positions = torch.cat([torch.arange(n) for n in doc_lengths])
    doc_lengths.insert(0, 0)  # in place
    return cu, positions
"""
    assert "changed its argument `doc_lengths` in place" in verdict(chapter, source)
