"""Deep dive 13's check under the attack of ../shared/reviews/exercise_checks_attack.md: no known mistake raises by
accident, so an answer's IndexError is not blamed on an unrelated mistake, and correct answers pass."""

import pytest
from exercise_harness import printed


def verdict(chapter, source):
    return printed(chapter.check("top_layer_state"), chapter.define(source, "top_layer_state"))


def test_no_mistake_raises_by_accident(chapter):
    check = chapter.check("top_layer_state")
    for case in check.make_cases():
        for mistake in check.mistakes:
            if mistake.raises:
                continue
            mistake.wrong(*case.args)  # an accidental error here would be blamed on the learner


def test_ignoring_bidirectional_is_named_as_such_not_as_the_order(chapter):
    output = verdict(
        chapter,
        """
def top_layer_state(h_n, num_layers, bidirectional):
    return torch.cat([h_n[-2], h_n[-1]], -1)  # ignores `bidirectional`
""",
    )
    assert "wrong order" not in output and "bottom layer's two directions" not in output
    assert "assumes two directions" in output


def test_an_unrelated_index_error_names_no_mistake(chapter):
    output = verdict(
        chapter,
        """
def top_layer_state(h_n, num_layers, bidirectional):
    return h_n[num_layers]  # one past the end
""",
    )
    assert output.startswith("✗") and "It raised IndexError" in output and "See:" not in output


@pytest.mark.parametrize(
    "body",
    [
        "return torch.cat([h_n[-2], h_n[-1]], -1) if bidirectional else h_n[-1]",
        "d = 2 if bidirectional else 1\n    return h_n[-d:].permute(1, 0, 2).reshape(h_n.size(1), -1)",
    ],
)
def test_alternatives_pass(chapter, body):
    output = verdict(chapter, f"def top_layer_state(h_n, num_layers, bidirectional):\n    {body}\n")
    assert output.startswith("✓"), output


def test_an_answer_for_one_batch_size_fails_on_a_batch_of_one(chapter):
    output = verdict(
        chapter,
        """
def top_layer_state(h_n, num_layers, bidirectional):
    d = 2 if bidirectional else 1
    return h_n.view(num_layers, d, 4, -1)[-1].permute(1, 0, 2).reshape(4, -1)  # batch of 4 hard-coded
""",
    )
    assert output.startswith("✗") and "a batch of one" in output.splitlines()[0]
