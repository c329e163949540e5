"""Chapter 6's checks under the attack of exercise_checks_attack.md: correct `accuracy` answers it rejected (a
list for a loader, a model off the chapter's device), a misnamed wrong one, a `final_state_sorted` that skipped the
method the question asks for, a partly right message, and correct answers written differently."""

import torch
from exercise_harness import attempt, each_is_named, each_passes, named
from torch.utils.data import DataLoader

from padpack.course import classifier


def test_the_cases_hand_over_a_real_dataloader_and_a_model_on_the_chapters_device(chapter):
    for case in chapter.check("accuracy").make_cases():
        model, loader = case.args
        assert isinstance(loader, DataLoader)
        assert next(model.parameters()).device.type == torch.device(classifier.device).type


# Correct answers written differently from the solutions, which the checks must accept.
CORRECT = {
    "accuracy": [
        # the attack's REJECTED-CORRECT answer, divide by the size of the loader's dataset
        (
            "@torch.no_grad()\n"
            "def accuracy(model, loader):\n"
            "    model.eval()\n"
            "    right = sum((model(p, n).argmax(1) == y).sum().item() for p, n, y in loader)\n"
            "    return right / len(loader.dataset)\n"
        ),
        # the chapter's own move_batch, to the chapter's device (failed on a GPU runtime)
        (
            "@torch.no_grad()\n"
            "def accuracy(model, loader):\n"
            "    def move_batch(padded, lengths, labels):  # the chapter's, cell 11\n"
            "        return padded.to(device), lengths, labels.to(device)\n"
            "\n"
            "    model.eval()\n"
            "    right = total = 0\n"
            "    for batch in loader:\n"
            "        padded, lengths, labels = move_batch(*batch)\n"
            "        right += (model(padded, lengths).argmax(dim=1) == labels).sum().item()\n"
            "        total += len(labels)\n"
            "    return right / total\n"
        ),
        # under inference_mode, counting with a float tensor
        (
            "@torch.inference_mode()\n"
            "def accuracy(model, loader):\n"
            "    model.eval()\n"
            "    hits = [(model(p, n).argmax(1) == y).float() for p, n, y in loader]\n"
            "    return torch.cat(hits).mean().item()\n"
        ),
    ],
    "final_state_sorted": [
        # argsort for the order, scatter back into place
        (
            "def final_state_sorted(lstm, embedded, lengths):\n"
            "    order = torch.argsort(lengths, descending=True)\n"
            "    packed = pack_padded_sequence(embedded[order], lengths[order], batch_first=True)\n"
            "    _, (h_n, _) = lstm(packed)\n"
            "    result = torch.empty_like(h_n[-1])\n"
            "    result[order] = h_n[-1]\n"
            "    return result\n"
        ),
        # a Python sort of the row indices
        (
            "def final_state_sorted(lstm, embedded, lengths):\n"
            "    rows = sorted(range(len(lengths)), key=lambda i: -int(lengths[i]))\n"
            "    packed = pack_padded_sequence(embedded[rows], lengths[rows], batch_first=True)\n"
            "    h_n = lstm(packed)[1][0]\n"
            "    back = [rows.index(i) for i in range(len(rows))]\n"
            "    return h_n[-1][back]\n"
        ),
    ],
    "bidirectional_summary": [
        # a transpose and reshape of the top layer
        (
            "def bidirectional_summary(h_n):\n"
            "    top = h_n[-2:]\n"
            "    return top.transpose(0, 1).reshape(h_n.shape[1], -1)\n"
        ),
    ],
}
test_correct_answers_pass = each_passes(CORRECT)


FULL_BATCHES = (
    "@torch.no_grad()\n"
    "def accuracy(model, loader):\n"
    "    model.eval()\n"
    "    right = sum((model(p, n).argmax(1) == y).sum().item() for p, n, y in loader)\n"
    "    return right / (len(loader) * loader.batch_size)\n"
)
ASCENDING_SORT = (
    "def final_state_sorted(lstm, embedded, lengths):\n"
    "    sorted_lengths, order = lengths.sort()\n"
    "    packed = pack_padded_sequence(embedded[order], sorted_lengths, batch_first=True)\n"
    "    return lstm(packed)[1][0][-1][order.argsort()]\n"
)

# Wrong answers, each with the start of the mistake the check must name.
NAMED_MISTAKES = {
    "accuracy": [
        # dividing by full batches is named for what it is
        (FULL_BATCHES, "It divides by len(loader) * batch_size"),
        # the mean of batch accuracies is still named
        (
            (
                "@torch.no_grad()\n"
                "def accuracy(model, loader):\n"
                "    model.eval()\n"
                "    scores = [(model(p, n).argmax(1) == y).float().mean().item() for p, n, y in loader]\n"
                "    return sum(scores) / len(scores)\n"
            ),
            "The mean of the batches",
        ),
    ],
    "bidirectional_summary": [
        # the bottom forward state next to the top backward one is named
        ("def bidirectional_summary(h_n):\n    return torch.cat([h_n[0], h_n[-1]], dim=1)\n", "h_n[0] is the bottom"),
    ],
    "final_state_sorted": [
        # enforce sorted false without a sort no longer passes
        (
            (
                "def final_state_sorted(lstm, embedded, lengths):\n"
                "    packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)\n"
                "    return lstm(packed)[1][0][-1]\n"
            ),
            "enforce_sorted=False makes",
        ),
        # an unpacked run is refused even where its values would be right
        (
            (
                "def final_state_sorted(lstm, embedded, lengths):\n"
                "    output, _ = lstm(embedded)\n"
                "    return output[torch.arange(len(lengths)), lengths - 1]\n"
            ),
            "The LSTM ran on the padded",
        ),
        # an ascending sort gets a message that fits it
        (ASCENDING_SORT, "Packing with enforce_sorted"),
    ],
}
test_wrong_answers_are_named = each_is_named(NAMED_MISTAKES)


def test_dividing_by_full_batches_is_not_called_the_mean_of_the_batches(chapter):
    assert not named(chapter, "accuracy", attempt(chapter, "accuracy", FULL_BATCHES), "The mean of the batches")


def test_the_message_for_an_ascending_sort_says_so(chapter):
    assert "an ascending one" in attempt(chapter, "final_state_sorted", ASCENDING_SORT)
