"""Chapter 4's checks under the attack of ../shared/reviews/exercise_checks_attack.md: the classic sentence-vector
mistakes it found unnamed are named, right_pad that rewrites its input is caught, and correct answers written
differently pass."""

import pytest
from exercise_harness import attempt, rejected_and_named

SENTENCE = "def sentence_vector(rnn, padded, lengths):\n"
PACK = "    packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)\n"


@pytest.mark.parametrize(
    "body, start",
    [
        (  # sorting without unsorting
            (
                "    order = lengths.argsort(descending=True)\n"
                "    packed = pack_padded_sequence(padded[order], lengths[order], batch_first=True)\n"
                "    _, hidden = rnn(packed)\n"
                "    h_n = hidden[0] if isinstance(hidden, tuple) else hidden\n"
                "    return torch.cat([h_n[-2], h_n[-1]], dim=-1)\n"
            ),
            "The batch was sorted longest first",
        ),
        (  # the backward half taken from a padded run
            PACK + "    _, hidden = rnn(packed)\n"
            "    _, padded_hidden = rnn(padded)\n"
            "    h = hidden[0] if isinstance(hidden, tuple) else hidden\n"
            "    h_pad = padded_hidden[0] if isinstance(padded_hidden, tuple) else padded_hidden\n"
            "    return torch.cat([h[-2], h_pad[-1]], dim=-1)\n",
            "The backward half comes from the padded run",
        ),
        (  # the packed output at lengths - 1 for both halves
            PACK + "    output, _ = rnn(packed)\n"
            "    output, _ = pad_packed_sequence(output, batch_first=True)\n"
            "    return output[torch.arange(len(lengths)), lengths - 1]\n",
            "At lengths - 1 the forward half is final",
        ),
        (  # output[:, -1] after unpacking
            PACK + "    output, _ = rnn(packed)\n"
            "    output, _ = pad_packed_sequence(output, batch_first=True)\n"
            "    return output[:, -1]\n",
            "output[:, -1] after unpacking",
        ),
        (  # forgetting the LSTM's (h, c)
            PACK + "    _, h_n = rnn(packed)\n    return torch.cat([h_n[-2], h_n[-1]], dim=-1)\n",
            "An LSTM returns output, (h_n, c_n)",
        ),
        (  # packing without batch_first=True
            (
                "    packed = pack_padded_sequence(padded, lengths, enforce_sorted=False)\n"
                "    _, hidden = rnn(packed)\n"
                "    h_n = hidden[0] if isinstance(hidden, tuple) else hidden\n"
                "    return torch.cat([h_n[-2], h_n[-1]], dim=-1)\n"
            ),
            "The batch was packed without batch_first=True",
        ),
    ],
    ids=[
        "sorted-not-unsorted",
        "backward-from-padded",
        "at-lengths-1",
        "last-after-unpacking",
        "lstm-tuple",
        "no-batch-first",
    ],
)
def test_the_classic_sentence_vector_mistakes_are_named(chapter, body, start):
    output = attempt(chapter, "sentence_vector", SENTENCE + body)
    assert rejected_and_named(chapter, "sentence_vector", output, start), output


@pytest.mark.parametrize(
    "body",
    [
        PACK + "    _, hidden = rnn(packed)\n"
        "    h_n = hidden[0] if isinstance(hidden, tuple) else hidden\n"
        "    top = h_n.view(rnn.num_layers, 2, len(lengths), rnn.hidden_size)[-1]\n"
        "    return torch.cat([top[0], top[1]], dim=-1)\n",
        PACK + "    output, _ = rnn(packed)\n"
        "    output, _ = pad_packed_sequence(output, batch_first=True)\n"
        "    H = rnn.hidden_size\n"
        "    rows = torch.arange(len(lengths))\n"
        "    return torch.cat([output[rows, lengths - 1, :H], output[:, 0, H:]], dim=-1)\n",
        (
            "    order = lengths.argsort(descending=True)\n"
            "    packed = pack_padded_sequence(padded[order], lengths[order], batch_first=True)\n"
            "    _, hidden = rnn(packed)\n"
            "    h_n = hidden[0] if isinstance(hidden, tuple) else hidden\n"
            "    return torch.cat([h_n[-2], h_n[-1]], dim=-1)[order.argsort()]\n"
        ),
    ],
    ids=["view", "from-output", "sort-and-unsort"],
)
def test_sentence_vector_alternatives_pass(chapter, body):
    output = attempt(chapter, "sentence_vector", SENTENCE + body)
    assert output.startswith("✓"), output


def test_right_pad_that_rewrites_its_input_is_rejected(chapter):
    output = attempt(
        chapter,
        "right_pad",
        """
def right_pad(batch, lengths):
    steps = batch.size(1)
    for b, length in enumerate(lengths.tolist()):
        real = batch[b, steps - length:].clone()
        batch[b] = 0
        batch[b, :length] = real
    return batch
""",
    )
    assert output.startswith("✗") and "changed its argument `batch` in place" in output


def test_right_pad_that_finds_the_tokens_by_nonzero_is_named(chapter):
    output = attempt(
        chapter,
        "right_pad",
        """
def right_pad(batch, lengths):
    right = torch.zeros_like(batch)
    for b, row in enumerate(batch):
        real = row[row.abs().sum(-1) != 0]
        right[b, :len(real)] = real
    return right
""",
    )
    assert rejected_and_named(chapter, "right_pad", output, "Finding the real tokens as the steps that are not zero"), (
        output
    )


@pytest.mark.parametrize(
    "body",
    [
        (
            "pads = batch.size(1) - lengths\n"
            "    return torch.stack([row.roll(-int(n), dims=0) for row, n in zip(batch, pads)])"
        ),
        (
            "T = batch.size(1)\n"
            "    positions = (torch.arange(T)[None] + (T - lengths)[:, None]) % T\n"
            "    right = batch.gather(1, positions[..., None].expand_as(batch))\n"
            "    return right * (torch.arange(T)[None] < lengths[:, None])[..., None]"
        ),
    ],
    ids=["roll-left", "gather"],
)
def test_right_pad_alternatives_pass(chapter, body):
    output = attempt(chapter, "right_pad", f"def right_pad(batch, lengths):\n    {body}\n")
    assert output.startswith("✓"), output


def test_wide_hand_over_alternative_passes_and_the_summed_hand_over_is_named(chapter):
    right = attempt(
        chapter,
        "wide_hand_over",
        "def wide_hand_over(h_n, num_layers):\n"
        "    return h_n.view(num_layers, 2, *h_n.shape[1:]).permute(0, 2, 1, 3).flatten(2)\n",
    )
    assert right.startswith("✓"), right
    summed = attempt(
        chapter,
        "wide_hand_over",
        "def wide_hand_over(h_n, num_layers):\n    return h_n.view(num_layers, 2, *h_n.shape[1:]).sum(1)\n",
    )
    assert rejected_and_named(chapter, "wide_hand_over", summed, "Summing the two directions")


@pytest.mark.parametrize(
    "guard",
    ["with torch.no_grad():", "with torch.inference_mode():"],
    ids=["no-grad", "inference-mode"],
)
def test_sentence_vector_without_gradients_is_named(chapter, guard):
    """Review round 3, P1.1: a summary that a model's forward calls must let gradients reach the encoder."""
    output = attempt(
        chapter,
        "sentence_vector",
        SENTENCE + PACK + f"    {guard}\n        _, hidden = rnn(packed)\n"
        "    h_n = hidden[0] if isinstance(hidden, tuple) else hidden\n"
        "    return torch.cat([h_n[-2], h_n[-1]], dim=-1)\n",
    )
    assert rejected_and_named(
        chapter, "sentence_vector", output, "The values are right, but the summary was computed"
    ), output
