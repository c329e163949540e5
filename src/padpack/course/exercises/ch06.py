"""The exercise checks of chapter 06: accuracy over a loader, a bidirectional summary, sort-run-unsort."""

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from torch.utils.data import DataLoader

from padpack.checks import Case, Exercise, Mistake
from padpack.course import classifier
from padpack.i18n import N_

_LOOP = "06_minibatch_training_loop#the-training-loop"


class TinyDropoutClassifier(nn.Module):
    """Mean of the real tokens' embeddings -> dropout -> linear (checks)."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(12, 4, padding_idx=0)
        self.dropout = nn.Dropout(1.0)  # training mode: all zeros
        self.linear = nn.Linear(4, 3)

    def forward(self, padded, lengths):
        total = self.embedding(padded).sum(dim=1)
        mean = total / lengths.to(total.device).unsqueeze(1)
        return self.linear(self.dropout(mean))


def _collate(batch):
    """(ids, label) pairs of one width -> (padded, lengths, labels), lengths on the CPU as collate_batch gives."""
    padded, lengths, labels = zip(*batch)
    return torch.stack(padded), torch.stack(lengths), torch.stack(labels)


def accuracy_cases() -> list:
    """Real DataLoaders with a last, smaller batch; the model on the chapter's device; the answer counted once."""
    cases = []
    for label, count, batch_size, wrong, shown in [
        # the last batch right and the others not: neither "only the last batch" nor "batch accuracy × batch_size"
        # gives the right share, nor each other's
        (N_("batches of 4, 4 and 1 reviews, a model with dropout"), 9, 4, [2, 5], True),
        (N_("one batch of 5 reviews"), 5, 5, [1, 3], True),
        (N_("batches of 3, 3 and 1 reviews"), 7, 3, [0, 6], False),
    ]:
        model = TinyDropoutClassifier().eval()
        lengths = torch.randint(1, 6, (count,))
        padded = torch.randint(1, 12, (count, 5))
        padded[torch.arange(5) >= lengths.unsqueeze(1)] = 0
        with torch.no_grad():
            labels = model(padded, lengths).argmax(dim=1)
        labels[wrong] = (labels[wrong] + 1) % 3
        want = (count - len(wrong)) / count
        examples = list(zip(padded, lengths, labels))
        loader = DataLoader(examples, batch_size=batch_size, collate_fn=_collate)
        cases.append(Case(label, (model.train().to(classifier.device), loader), want, shown))
    return cases


def _batches(model, loader):
    """(predictions, labels) of every batch, on the CPU, the model in the mode it is in."""
    device = next(model.parameters()).device
    with torch.no_grad():
        return [(model(padded.to(device), lengths).argmax(dim=1).cpu(), labels) for padded, lengths, labels in loader]


def _count(model, loader, train=False, per_batch=False, last_only=False):
    """Wrong answers of the table: the accuracy loop with one thing changed; returns (right, total, batches)."""
    model.train(train)
    right = total = 0
    accuracies = []
    for predicted, labels in _batches(model, loader):
        batch_right = (predicted == labels).sum()
        accuracies.append(batch_right / len(labels))
        right = batch_right if last_only else right + batch_right
        total = len(labels) if last_only else total + len(labels)
    return right, total, torch.stack(accuracies)


def _share(model, loader, as_tensor=False, **how):
    right, total, _ = _count(model, loader, **how)
    return right / total if as_tensor else right.item() / total


check_accuracy = Exercise(
    accuracy_cases,
    [
        Mistake(
            lambda model, loader: _count(model, loader)[2].mean().item(),
            N_(
                "The mean of the batches' accuracies weighs a review of a small "
                "batch more: count right answers and reviews over the whole "
                "loader, then divide once."
            ),
            _LOOP,
        ),
        Mistake(
            lambda model, loader: _share(model, loader, train=True),
            N_("The model is still in training mode, so dropout is active: call model.eval() before you predict."),
            _LOOP,
        ),
        Mistake(
            lambda model, loader: _share(model, loader, as_tensor=True),
            N_(
                "It returned a 0-d tensor, not a Python float: turn the count "
                "into a number with .item() (once, at the end)."
            ),
            _LOOP,
        ),
        Mistake(
            lambda model, loader: _count(model, loader)[0].item() / (len(loader) * loader.batch_size),
            N_(
                "It divides by len(loader) * batch_size, as if every batch were full: the last batch is "
                "smaller, so count the reviews themselves (len(labels) in each batch)."
            ),
            _LOOP,
        ),
        Mistake(
            lambda model, loader: (_count(model, loader)[2] * loader.batch_size).sum().item() / len(loader.dataset),
            N_(
                "Each batch's accuracy was weighed by batch_size, as if every batch were full: the last batch is "
                "smaller. Add up the right answers themselves, then divide by the number of reviews."
            ),
            _LOOP,
        ),
        Mistake(
            lambda model, loader: _count(model, loader)[0].item() / len(loader),
            N_(
                "It divides by len(loader), the number of batches, not of reviews: add up len(labels) "
                "over the batches and divide by that."
            ),
            _LOOP,
        ),
        Mistake(
            lambda model, loader: _share(model, loader, last_only=True),
            N_(
                "Only the last batch counts: right = ... inside the loop replaces the count of the earlier "
                "batches; add to it with += instead."
            ),
            _LOOP,
        ),
        Mistake(
            lambda model, loader: 100 * _share(model, loader),
            N_("It returned a percentage: return the share of right answers, between 0 and 1."),
            _LOOP,
        ),
    ],
    N_(
        "Switch the model to evaluation mode, then add up two numbers "
        "over every batch: the right answers and the reviews. Divide at the end."
    ),
    mutates=True,  # model.eval() is part of the answer, and a DataLoader is not compared by value,
    answer=N_(
        "The packed GRU reached a validation accuracy over 0.9 within 2 epochs. A GRU has no separate cell "
        "state: its hidden state is its whole memory, so there is no c_n to return."
    ),
)


_LAYOUT = "04_bidirectional_pitfalls#the-layout-output-is-b-t-2h-h-n-is-num-layers2-b-h"


def _bi_output(rnn, padded, lengths):
    packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    output, final_state = rnn(packed)
    h_n = final_state[0] if isinstance(rnn, nn.LSTM) else final_state
    return pad_packed_sequence(output, batch_first=True)[0], h_n


def bidirectional_summary_cases() -> list:
    """h_n of packed bidirectional runs; the answer from the outputs."""
    cases = []
    for label, lengths, rnn_class, layers, dtype, shown in [
        (N_("an LSTM, lengths 5, 2, 7, 3"), [5, 2, 7, 3], nn.LSTM, 1, torch.float32, True),
        (N_("a two-layer GRU, a length of 1"), [3, 1, 4], nn.GRU, 2, torch.float32, True),
        (N_("float64 inputs"), [2, 4, 3], nn.LSTM, 1, torch.float64, True),
        (N_("a batch of one review, three layers"), [4], nn.LSTM, 3, torch.float32, False),
        (N_("a two-layer LSTM, five reviews"), [1, 6, 2, 5, 3], nn.LSTM, 2, torch.float32, False),
    ]:
        rnn = rnn_class(3, 4, layers, batch_first=True, bidirectional=True, dtype=dtype)
        lengths = torch.tensor(lengths)
        padded = torch.randn(len(lengths), int(lengths.max()), 3, dtype=dtype)
        with torch.no_grad():
            output, h_n = _bi_output(rnn, padded, lengths)
        rows = torch.arange(len(lengths))
        forward = output[rows, lengths - 1, :4]  # after the last real token
        backward = output[:, 0, 4:]  # after reading back to the first
        want = torch.cat([forward, backward], dim=1)
        cases.append(Case(label, (h_n,), want, shown))
    return cases


check_bidirectional_summary = Exercise(
    bidirectional_summary_cases,
    [
        Mistake(
            lambda h_n: h_n[-1],
            N_(
                "h_n[-1] is only the top layer's backward direction: a "
                "bidirectional summary is both of its directions side by side."
            ),
            _LAYOUT,
        ),
        Mistake(
            lambda h_n: torch.cat([h_n[-1], h_n[-2]], dim=1),
            N_(
                "The directions are in the wrong order: h_n[-2] is the forward "
                "one and comes first, like the forward half of the output."
            ),
            "04_bidirectional_pitfalls#pitfall-3-the-order-of-the-final-states",
        ),
        Mistake(
            lambda h_n: h_n[-2:].reshape(h_n.shape[1], -1),
            N_(
                "reshape of the (2, batch, hidden) block mixes the rows of "
                "different sequences: concatenate the two directions instead."
            ),
            _LAYOUT,
        ),
        Mistake(
            lambda h_n: torch.cat([h_n[0], h_n[1]], dim=1),
            N_("h_n[0] and h_n[1] are the bottom layer: with two layers, the top layer's directions are the last two."),
            "04_bidirectional_pitfalls#pitfall-4-handing-a-two-layer-bidirectional-state-to-a-decoder",
        ),
        Mistake(
            lambda h_n: torch.cat([h_n[0], h_n[-1]], dim=1),
            N_(
                "h_n[0] is the bottom layer's forward direction: with several layers, the top layer's "
                "forward direction is h_n[-2], next to its backward one, h_n[-1]."
            ),
            "04_bidirectional_pitfalls#pitfall-4-handing-a-two-layer-bidirectional-state-to-a-decoder",
        ),
        Mistake(
            lambda h_n: torch.cat([h_n[-2], h_n[-1]], dim=0),
            N_(
                "The two directions are stacked along dim 0, into (2 * batch, hidden): put them side by "
                "side along the features, dim=1."
            ),
            _LAYOUT,
        ),
    ],
    N_(
        "h_n stacks (layer, direction) pairs, forward first. View it as "
        "(num_layers, 2, batch, hidden), take the last layer, and put its two "
        "directions side by side."
    ),
)


_SORT_RUN_UNSORT = "06_minibatch_training_loop#the-pre-1-1-version-sort-run-unsort"
_ENFORCE_SORTED = "02_pack_and_unpack_internals#pitfall-1-unsorted-lengths-with-enforce-sorted-true"


class SortedInputLSTM(nn.LSTM):
    """An LSTM that runs only what the exercise asks for: a batch packed sorted, with enforce_sorted=True.

    `enforce_sorted=False` sorts inside packing (sorted_indices is set), and a padded tensor is not packed at all:
    either way the result could be right without the sort, run and unsort the question is about.
    """

    def forward(self, input, hx=None):
        if not isinstance(input, PackedSequence):
            raise TypeError("this exercise's LSTM runs packed batches only")
        if input.sorted_indices is not None:
            raise ValueError("this batch was packed with enforce_sorted=False: packing sorted it, not your code")
        return super().forward(input, hx)


def final_state_sorted_cases() -> list:
    """Unsorted batches; the answer from a packed run that sorts inside."""
    cases = []
    for label, lengths, layers, shown in [
        (N_("lengths 5, 2, 7, 3 (the longest not first)"), [5, 2, 7, 3], 1, True),
        (N_("a length of 1"), [3, 1, 4, 2], 1, True),
        (N_("two layers"), [2, 6, 4], 2, True),
        (N_("a batch of one review"), [4], 1, False),
        (N_("shortest first, two layers"), [1, 2, 3, 5, 6], 2, False),
    ]:
        lstm = SortedInputLSTM(3, 4, layers, batch_first=True)
        lengths = torch.tensor(lengths)
        embedded = torch.randn(len(lengths), int(lengths.max()), 3)
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        with torch.no_grad():
            _, (h_n, _) = nn.LSTM.forward(lstm, packed)
        cases.append(Case(label, (lstm, embedded, lengths), h_n[-1], shown))
    return cases


def _sorted_run(lstm, embedded, lengths, sort_rows=True, batch_first=True, descending=True):
    sorted_lengths, order = lengths.sort(descending=descending)
    rows = embedded[order] if sort_rows else embedded
    with torch.no_grad():
        packed = pack_padded_sequence(rows, sorted_lengths, batch_first=batch_first)
        _, (h_n, c_n) = lstm(packed)
    return h_n, c_n, order


def _unsorted(lstm, embedded, lengths, state=0, top=True, inverse=True, **how):
    """Sort, run, unsort with one thing changed: the state (0 h_n, 1 c_n), all layers, or the wrong inverse."""
    *states, order = _sorted_run(lstm, embedded, lengths, **how)
    final = states[state][-1] if top else states[state]
    back = order.argsort() if inverse else order
    return final[..., back, :]


check_final_state_sorted = Exercise(
    final_state_sorted_cases,
    [
        Mistake(
            lambda lstm, embedded, lengths: _sorted_run(lstm, embedded, lengths)[0][-1],
            N_("The states are still in sorted order: put them back in the batch's order before you return them."),
            _SORT_RUN_UNSORT,
        ),
        Mistake(
            lambda lstm, embedded, lengths: _unsorted(lstm, embedded, lengths, inverse=False),
            N_("Indexing with order applies the sort a second time: its inverse, order.argsort(), puts the rows back."),
            _SORT_RUN_UNSORT,
        ),
        Mistake(
            lambda lstm, embedded, lengths: _unsorted(lstm, embedded, lengths, sort_rows=False),
            N_(
                "The lengths were sorted but the rows of embedded were not, so "
                "each sequence was packed with another one's length."
            ),
            "02_pack_and_unpack_internals#enforce-sorted-who-sorts-and-who-unsorts",
        ),
        Mistake(
            lambda lstm, embedded, lengths: pack_padded_sequence(embedded, lengths, batch_first=True),
            N_(
                "Packing with enforce_sorted=True refused the batch: its lengths must be in decreasing order. "
                "Sort them longest first, lengths.sort(descending=True) (no sort, or an ascending one, is refused)."
            ),
            _ENFORCE_SORTED,
            raises=True,
        ),
        Mistake(
            lambda lstm, embedded, lengths: lstm(
                pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
            )[1][0][-1],
            N_(
                "enforce_sorted=False makes packing sort for you: right today, but the question is the "
                "pre-1.1 way, enforce_sorted=True with your own sort before and unsort after."
            ),
            _SORT_RUN_UNSORT,
            raises=True,
        ),
        Mistake(
            lambda lstm, embedded, lengths: lstm(embedded)[0][:, -1],
            N_(
                "The LSTM ran on the padded tensor, without packing: pack the sorted batch with "
                "pack_padded_sequence before you run it, so that each sequence stops at its length."
            ),
            "06_minibatch_training_loop#why-h-n-1-is-the-right-final-state",
            raises=True,
        ),
        Mistake(
            lambda lstm, embedded, lengths: _sorted_run(lstm, embedded, lengths, batch_first=False)[0][-1],
            N_(
                "Packed without batch_first=True, so the (batch, time, features) tensor was read as "
                "(time, batch, features): pass batch_first=True to pack_padded_sequence."
            ),
            "02_pack_and_unpack_internals#from-a-list-of-sequences-to-one-padded-tensor",
            raises=True,
        ),
        Mistake(
            lambda lstm, embedded, lengths: _unsorted(lstm, embedded, lengths, top=False),
            N_(
                "It returned all of h_n, (num_layers, batch, hidden): the top layer's final states are "
                "h_n[-1], (batch, hidden)."
            ),
            _SORT_RUN_UNSORT,
        ),
        Mistake(
            lambda lstm, embedded, lengths: _unsorted(lstm, embedded, lengths, state=1),
            N_(
                "That is c_n, the LSTM's cell state: the final hidden states are h_n, the first of the "
                "pair (h_n, c_n) the LSTM returns."
            ),
            "03_lstm_hidden_state_extraction#what-an-lstm-returns",
        ),
    ],
    N_(
        "lengths.sort(descending=True) gives the sorted lengths and the "
        "order; reorder the rows with it, pack, run, and undo the order with "
        "its inverse."
    ),
)
