"""Chapter 8's checks under the attack of exercise_checks_attack.md, by class: the two losses are checked with
scores that require grad, so a detached loss fails and is named; the cases hold a batch of one, a last batch whose
tags are wider than its longest sequence, unsorted lengths and hidden inputs, so answers written for the listed
cases, or for sorted or unpadded batches, fail; raising mistakes are named by their own error; correct
alternatives (loops, packing, masked_select, float64 sums) pass."""

import pytest
from exercise_harness import attempt

RIGHT = "✓ {} is right"
WRONG = "✗ {} is wrong"


# accuracy_from_lengths

ACCURACY_RIGHT = [
    """
def accuracy_from_lengths(predictions, tags, lengths):
    hits = total = 0
    for row, length in enumerate(lengths.tolist()):
        hits += (predictions[row, :length] == tags[row, :length]).sum().item()
        total += length
    return hits / total
""",
    """
def accuracy_from_lengths(predictions, tags, lengths):
    keep = torch.arange(tags.size(1)) < lengths.unsqueeze(1)
    return (predictions[keep] == tags[keep]).float().mean().item()
""",
    """
def accuracy_from_lengths(predictions, tags, lengths):
    rows = unpad_sequence(predictions == tags, lengths, batch_first=True)
    return float(torch.cat(rows).double().mean())
""",
]


@pytest.mark.parametrize("source", ACCURACY_RIGHT)
def test_accuracy_from_lengths_accepts_correct_alternatives(chapter, source):
    assert attempt(chapter, "accuracy_from_lengths", source).startswith(RIGHT.format("accuracy_from_lengths"))


HARD_CODED = """
def accuracy_from_lengths(predictions, tags, lengths):
    # right on the listed cases only (their lengths), a guess elsewhere
    if lengths.tolist() not in ([3, 2], [4, 2, 6], [1, 5, 3], [5], [3, 1, 2]):
        return 0.5
    mask = torch.arange(tags.size(1))[None, :] < lengths[:, None]
    return ((predictions == tags) & mask).sum().item() / mask.sum().item()
"""
WIDTH_FROM_LENGTHS = """
def accuracy_from_lengths(predictions, tags, lengths):
    # takes the width to be the longest length: wrong when the tags are wider
    T = int(lengths.max())
    mask = torch.arange(T)[None, :] < lengths[:, None]
    return ((predictions[:, :T] == tags[:, :T]) & mask).float().mean().item()
"""
SORTED_ONLY = """
def accuracy_from_lengths(predictions, tags, lengths):
    # packs the hits: assumes the lengths are sorted, longest first
    hits = pack_padded_sequence((predictions == tags).float(), lengths, batch_first=True)
    return hits.data.mean().item()
"""
SQUEEZED = """
def accuracy_from_lengths(predictions, tags, lengths):
    hits = 0
    for row, length in enumerate(lengths.squeeze().tolist()):  # an int for a batch of one
        hits += (predictions[row, :length] == tags[row, :length]).sum().item()
    return hits / lengths.sum().item()
"""


@pytest.mark.parametrize("source", [HARD_CODED, WIDTH_FROM_LENGTHS, SORTED_ONLY, SQUEEZED])
def test_accuracy_from_lengths_rejects_answers_written_for_easy_batches(chapter, source):
    assert attempt(chapter, "accuracy_from_lengths", source).startswith(WRONG.format("accuracy_from_lengths"))


def test_accuracy_from_lengths_hidden_cases_catch_a_hard_coded_answer(chapter):
    output = attempt(chapter, "accuracy_from_lengths", HARD_CODED)
    # the listed cases pass; a hidden one fails, and its inputs are not printed
    assert "is wrong on a case that is not listed (its inputs stay" in output and "another batch" not in output


@pytest.mark.parametrize(
    "result, named",
    [
        ("mask = steps < lengths[:, None] - 1\n    return hits(mask).item() / mask.sum().item()", "t < length - 1"),
        ("mask = steps < lengths[:, None]\n    return hits(mask) / mask.sum()", "It returns a tensor"),
        (
            "mask = steps < lengths[:, None]\n    return hits(mask).item() / tags.numel()",
            "tags.numel() counts the pads",
        ),
        ("mask = steps <= lengths[:, None]\n    return hits(mask).item() / mask.sum().item()", "A mask built with <="),
    ],
)
def test_accuracy_from_lengths_names_what_learners_write(chapter, result, named):
    code = (
        "def accuracy_from_lengths(predictions, tags, lengths):\n"
        "    steps = torch.arange(tags.size(1))\n"
        "    hits = lambda mask: ((predictions == tags) & mask).sum()\n"
        f"    {result}\n"
    )
    output = attempt(chapter, "accuracy_from_lengths", code)
    assert output.startswith(WRONG.format("accuracy_from_lengths")) and named in output, output


# per_sequence_loss and cropped_loss: losses, so gradients are checked

PER_SEQUENCE_RIGHT = [
    """
def per_sequence_loss(logits, tags):
    losses = []
    for row in range(tags.size(0)):
        real = tags[row] != -100
        losses.append(nn.functional.cross_entropy(logits[row][real], tags[row][real]))
    return torch.stack(losses).mean()
""",
    """
def per_sequence_loss(logits, tags):
    per_token = nn.functional.cross_entropy(logits.transpose(1, 2), tags, reduction="none")
    counts = (tags != -100).sum(dim=1)
    return (per_token.sum(dim=1) / counts).mean()
""",
    """
def per_sequence_loss(logits, tags):
    mask = (tags != -100).to(logits.dtype)
    log_p = logits.log_softmax(-1).gather(-1, tags.clamp(min=0)[..., None])[..., 0]
    return (-(log_p * mask).sum(1) / mask.sum(1)).mean()
""",
]


@pytest.mark.parametrize("source", PER_SEQUENCE_RIGHT)
def test_per_sequence_loss_accepts_correct_alternatives(chapter, source):
    assert attempt(chapter, "per_sequence_loss", source).startswith(RIGHT.format("per_sequence_loss"))


DETACHED_PER_SEQUENCE = [
    """
@torch.no_grad()
def per_sequence_loss(logits, tags):
    mask = tags != -100
    per_token = nn.CrossEntropyLoss(reduction="none")(logits.transpose(1, 2), tags.masked_fill(~mask, 0))
    return ((per_token * mask).sum(dim=1) / mask.sum(dim=1)).mean()
""",
    """
def per_sequence_loss(logits, tags):
    means = []
    for row in range(tags.size(0)):
        real = tags[row] != -100
        means.append(nn.functional.cross_entropy(logits[row][real], tags[row][real]).item())
    return torch.tensor(sum(means) / len(means), dtype=logits.dtype)
""",
]


@pytest.mark.parametrize("source", DETACHED_PER_SEQUENCE)
def test_per_sequence_loss_names_a_detached_loss(chapter, source):
    output = attempt(chapter, "per_sequence_loss", source)
    assert output.startswith(WRONG.format("per_sequence_loss")), output
    assert "no gradient" in output and "three-correct-losses" in output


@pytest.mark.parametrize(
    "source, named",
    [
        (
            (
                "def per_sequence_loss(logits, tags):\n"
                "    return nn.CrossEntropyLoss(ignore_index=0)(logits.flatten(0, 1), tags.flatten())"
            ),
            "ignore_index=0 ignores the slope tags",
        ),
        (
            (
                "def per_sequence_loss(logits, tags):\n"
                "    per_token = nn.functional.cross_entropy(logits.transpose(1, 2), tags, reduction='none')\n"
                "    return (per_token.sum(1) / (tags != -100).sum()).mean()"
            ),
            "real tokens of the whole batch",
        ),
        (
            (
                "def per_sequence_loss(logits, tags):\n"
                "    per_token = nn.functional.cross_entropy(logits.transpose(1, 2), tags, reduction='none')\n"
                "    return (per_token.sum(1) / (tags != -100).sum(1)).sum()"
            ),
            "adds up the sequences' mean losses",
        ),
        (
            (
                "def per_sequence_loss(logits, tags):\n"
                "    per_token = nn.functional.cross_entropy(logits.transpose(1, 2), tags, reduction='none')\n"
                "    return per_token.mean(dim=1).mean()"
            ),
            "averages over the pads too",
        ),
    ],
)
def test_per_sequence_loss_names_what_learners_write(chapter, source, named):
    assert named in attempt(chapter, "per_sequence_loss", source)


def test_per_sequence_loss_catches_an_input_changed_in_place(chapter):
    code = """
def per_sequence_loss(logits, tags):
    mask = tags != -100
    tags[~mask] = 0
    per_token = nn.functional.cross_entropy(logits.transpose(1, 2), tags, reduction="none")
    return ((per_token * mask).sum(1) / mask.sum(1)).mean()
"""
    assert "changed its argument `tags` in place" in attempt(chapter, "per_sequence_loss", code)


CROPPED_RIGHT = [
    """
def cropped_loss(logits, tags):
    tags = tags[:, : logits.size(1)]
    return nn.functional.cross_entropy(logits.transpose(1, 2), tags)
""",
    """
def cropped_loss(logits, tags):
    tags = tags.narrow(1, 0, logits.size(1)).reshape(-1)
    keep = tags != -100
    return nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1))[keep], tags[keep])
""",
    """
def cropped_loss(logits, tags):
    cropped = tags[:, : logits.size(1)]
    lengths = (cropped != -100).sum(1)
    packed_logits = pack_padded_sequence(logits, lengths, batch_first=True, enforce_sorted=False)
    packed_tags = pack_padded_sequence(cropped, lengths, batch_first=True, enforce_sorted=False)
    return nn.functional.cross_entropy(packed_logits.data, packed_tags.data)
""",
]


@pytest.mark.parametrize("source", CROPPED_RIGHT)
def test_cropped_loss_accepts_correct_alternatives(chapter, source):
    assert attempt(chapter, "cropped_loss", source).startswith(RIGHT.format("cropped_loss"))


@pytest.mark.parametrize(
    "source, named",
    [
        (
            (
                "@torch.no_grad()\ndef cropped_loss(logits, tags):\n"
                "    return nn.CrossEntropyLoss()(logits.flatten(0, 1), tags[:, : logits.size(1)].flatten())"
            ),
            "no gradient",
        ),
        (
            (
                "def cropped_loss(logits, tags):\n"
                "    loss = nn.CrossEntropyLoss()(logits.flatten(0, 1), tags[:, : logits.size(1)].flatten())\n"
                "    return torch.tensor(loss.item(), dtype=logits.dtype)"
            ),
            "no gradient",
        ),
        (
            (
                "def cropped_loss(logits, tags):\n"
                "    return nn.CrossEntropyLoss()(logits.flatten(0, 1), tags[:, : logits.size(1)].view(-1))"
            ),
            ".view(-1) refuses it",
        ),
        (
            (
                "def cropped_loss(logits, tags):\n"
                "    loss_fn = nn.CrossEntropyLoss(ignore_index=0)\n"
                "    return loss_fn(logits.flatten(0, 1), tags[:, : logits.size(1)].flatten())"
            ),
            "ignore_index=0 is the pad id of the tokens",
        ),
        (
            ("def cropped_loss(logits, tags):\n    return nn.CrossEntropyLoss()(logits.flatten(0, 1), tags.flatten())"),
            "Without cropping",
        ),
    ],
)
def test_cropped_loss_names_what_learners_write(chapter, source, named):
    output = attempt(chapter, "cropped_loss", source)
    assert output.startswith(WRONG.format("cropped_loss")) and named in output, output


def test_cropped_loss_has_a_batch_of_one(chapter):
    code = """
def cropped_loss(logits, tags):
    logits, tags = logits.squeeze(), tags.squeeze()
    if logits.dim() == 2:
        return nn.functional.cross_entropy(logits, tags[:, : logits.size(0)].flatten())
    return nn.functional.cross_entropy(logits.transpose(1, 2), tags[:, : logits.size(1)])
"""
    assert "a batch of one" in attempt(chapter, "cropped_loss", code)


def test_the_losses_cases_require_grad_and_hold_the_classes(chapter):
    for name in ("per_sequence_loss", "cropped_loss"):
        cases = chapter.check(name).make_cases()
        assert all(case.args[0].requires_grad and case.want.requires_grad for case in cases)
        assert any(case.args[1].size(0) == 1 for case in cases), "a batch of one"
        assert any(not case.shown for case in cases), "hidden cases"
        assert any((case.args[1][:, -1] == -100).all() for case in cases), "every row padded"
