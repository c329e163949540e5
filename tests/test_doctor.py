"""The padding doctor (padpack.doctor.check_padding) catches each padding bug the book teaches, on small broken
models, and passes the book's correct ones; it restores the model's mode and the random generators; and wrong
input gets one sentence that names the argument."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from padpack.doctor import PaddingCheckError, check_padding

VOCAB, EMBED, HIDDEN = 12, 4, 6


def sequences(lengths=(5, 2, 7, 3, 1)) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    return [torch.randint(1, VOCAB, (n,), generator=generator) for n in lengths]


class Classifier(nn.Module):
    """Embedding -> RNN -> a linear head on a summary; `summary` picks the summary (right or wrong)."""

    def __init__(self, summary: str, cell=nn.LSTM, bidirectional=False, batch_first=True):
        super().__init__()
        torch.manual_seed(0)
        self.summary, self.batch_first = summary, batch_first
        self.embedding = nn.Embedding(VOCAB, EMBED, padding_idx=0)
        self.rnn = cell(EMBED, HIDDEN, batch_first=batch_first, bidirectional=bidirectional)
        self.head = nn.Linear(HIDDEN * (2 if bidirectional and summary == "both" else 1), 3)

    def final_state(self, state):
        return state[0] if isinstance(self.rnn, nn.LSTM) else state

    def forward(self, padded, lengths):
        x = self.embedding(padded)
        time = 1 if self.batch_first else 0
        if self.summary == "output[:, -1]":  # the classic bug: the last padded step
            return self.head(self.rnn(x)[0].select(time, -1))
        if self.summary == "lengths after padding":  # every length = the padded width
            lengths = torch.full((x.shape[1 - time],), x.shape[time], dtype=torch.int64)
        if self.summary == "mean over pads":
            packed = pack_padded_sequence(x, lengths, batch_first=self.batch_first, enforce_sorted=False)
            output, _ = pad_packed_sequence(self.rnn(packed)[0], batch_first=self.batch_first)
            return self.head(output.mean(time))
        if self.summary == "sort without unsort":
            order = lengths.argsort(descending=True)
            packed = pack_padded_sequence(x.index_select(1 - time, order), lengths[order], batch_first=self.batch_first)
            return self.head(self.final_state(self.rnn(packed)[1])[-1])
        if self.summary == "gather":
            output = self.rnn(x)[0] if self.batch_first else self.rnn(x)[0].transpose(0, 1)
            return self.head(output[torch.arange(len(lengths)), lengths - 1])
        packed = pack_padded_sequence(x, lengths, batch_first=self.batch_first, enforce_sorted=False)
        h_n = self.final_state(self.rnn(packed)[1])
        if self.summary == "both":
            return self.head(torch.cat([h_n[-2], h_n[-1]], dim=-1))
        return self.head(h_n[-1])  # "h_n[-1]": right for one direction, the backward half for two


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embedding = nn.Embedding(VOCAB, EMBED, padding_idx=0)
        self.rnn = nn.GRU(EMBED, HIDDEN, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * HIDDEN, 3)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(self.embedding(padded), lengths, batch_first=True, enforce_sorted=False)
        output, _ = pad_packed_sequence(self.rnn(packed)[0], batch_first=True, total_length=padded.shape[1])
        return self.head(output)


def failed(report) -> list[str]:
    return [finding.check for finding in report if finding.passed is False]


@pytest.mark.parametrize(
    "model, caught",
    [
        (Classifier("output[:, -1]"), "batch independence"),
        (Classifier("output[:, -1]", cell=nn.GRU), "batch independence"),
        (Classifier("lengths after padding"), "batch independence"),
        (Classifier("mean over pads"), "batch independence"),
        (Classifier("sort without unsort"), "batch independence"),
        (Classifier("h_n[-1]", cell=nn.GRU, bidirectional=True), "both directions"),
        (Classifier("h_n[-1]", bidirectional=True), "both directions"),
    ],
    ids=[
        "last-padded-step",
        "last-padded-step-gru",
        "lengths-after-padding",
        "mean-over-pads",
        "sort-without-unsort",
        "bidirectional-h_n[-1]-gru",
        "bidirectional-h_n[-1]-lstm",
    ],
)
def test_the_doctor_catches_each_broken_model(model, caught):
    report = check_padding(model, sequences())
    assert not report.ok and caught in failed(report), str(report)


def test_it_names_the_half_a_bidirectional_model_kept():
    report = check_padding(Classifier("h_n[-1]", cell=nn.GRU, bidirectional=True), sequences())
    (finding,) = [finding for finding in report if finding.check == "both directions"]
    assert "ignores the forward direction" in finding.sentence and "only the backward" in finding.sentence


@pytest.mark.parametrize(
    "model, batch_first",
    [
        (Classifier("h_n[-1]"), True),
        (Classifier("h_n[-1]", cell=nn.GRU), True),
        (Classifier("gather"), True),
        (Classifier("both", bidirectional=True), True),
        (Classifier("both", cell=nn.GRU, bidirectional=True), True),
        (Classifier("h_n[-1]", batch_first=False), False),
        (Classifier("both", bidirectional=True, batch_first=False), False),
    ],
    ids=[
        "packed-lstm",
        "packed-gru",
        "gathered",
        "bidirectional-lstm",
        "bidirectional-gru",
        "time-major",
        "time-major-bidirectional",
    ],
)
def test_the_doctor_passes_the_books_correct_models(model, batch_first):
    report = check_padding(model, sequences(), batch_first=batch_first)
    assert report.ok, str(report)
    assert [finding.passed for finding in report][:3] == [True, True, True]


def masked_mean(output, targets):
    return nn.functional.cross_entropy(output.flatten(0, 1), targets.flatten(), ignore_index=-100)


def mean_over_every_position(output, targets, lengths):
    """A loss averaged over pads too: the real tokens' sum divided by every position of the batch."""
    losses = nn.functional.cross_entropy(output.flatten(0, 1), targets.flatten().clamp(min=0), reduction="none")
    real = (torch.arange(output.shape[1])[None, :] < lengths[:, None]).flatten()
    return (losses * real).sum() / real.numel()


def test_the_masked_loss_check_passes_ignore_index_and_catches_a_mean_over_pads():
    data = sequences()
    labels = [torch.randint(0, 3, (len(s),), generator=torch.Generator().manual_seed(2)) for s in data]
    good = check_padding(Tagger(), data, per_token=True, labels=labels, loss_fn=masked_mean)
    assert good.ok, str(good)
    bad = check_padding(Tagger(), data, per_token=True, labels=labels, loss_fn=mean_over_every_position)
    assert failed(bad) == ["masked loss"], str(bad)


def test_it_restores_the_mode_and_the_random_generators():
    model = Classifier("h_n[-1]").train()
    state = torch.random.get_rng_state()
    check_padding(model, sequences())
    assert model.training and torch.equal(state, torch.random.get_rng_state())


def test_a_padded_batch_with_lengths_works_too():
    data = sequences()
    padded = nn.utils.rnn.pad_sequence(data, batch_first=True)
    assert check_padding(Classifier("h_n[-1]"), padded, lengths=[len(s) for s in data]).ok


@pytest.mark.parametrize(
    "arguments, words",
    [
        ({"sequences": [torch.tensor([1, 2]), torch.tensor([], dtype=torch.int64)]}, "sequences[1] has length 0"),
        ({"sequences": torch.zeros(3, 4, dtype=torch.int64), "lengths": [4, 2]}, "lengths has 2 entries"),
        ({"sequences": torch.zeros(2, 4, dtype=torch.int64), "lengths": [5, 2]}, "longer than the padded width"),
        ({"sequences": torch.zeros(2, 4, dtype=torch.int64)}, "lengths is needed"),
        ({"sequences": [torch.tensor([1, 2]), torch.tensor([3, 4])]}, "same length"),
        ({"sequences": [torch.tensor([1])]}, "at least two"),
        ({"sequences": sequences(), "per_token": True}, "per_token=True needs one output per step"),
        ({"sequences": sequences(), "forward": lambda m, p, n: m(p, n)[:1]}, "one output per sequence"),
        ({"sequences": sequences(), "forward": lambda m, p, n: m(p.float(), n)}, "model raised"),
    ],
    ids=[
        "zero-length",
        "lengths-do-not-match",
        "length-past-width",
        "no-lengths",
        "no-pads",
        "one-sequence",
        "tagger-shape",
        "wrong-shape",
        "model-raises",
    ],
)
def test_wrong_input_gets_one_sentence_that_names_the_argument(arguments, words):
    with pytest.raises(PaddingCheckError, match=words.replace("[", r"\[").replace("]", r"\]")) as caught:
        check_padding(Classifier("h_n[-1]"), **arguments)
    assert "\n" not in str(caught.value)
