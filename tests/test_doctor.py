"""The padding doctor (padpack.doctor.check_padding) on a zoo of small models: it passes every correct one (the
book's own patterns first: packed RNNs, gathered steps, masked pooling, id-based masks, padding_idx bags,
bidirectional models, taggers and their losses) and names the check that catches each broken one; it restores
every submodule's mode, the buffers and the random generators; and wrong input gets PaddingCheckError only."""

from __future__ import annotations

import re
import time

import pytest
import torch
from test_error_messages import notebook_ids
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from conftest import REPO
from padpack import doctor
from padpack.doctor import PaddingCheckError, check_batches, check_padding
from padpack.i18n import use_language

VOCAB, EMBED, HIDDEN, PAD = 12, 4, 6, 0


def sequences(lengths=(5, 2, 7, 3, 1), vocab=VOCAB, low=1) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    return [torch.randint(low, vocab, (n,), generator=generator) for n in lengths]


def is_pad(padded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    return torch.arange(padded.shape[1])[None, :] >= lengths[:, None]


class Model(nn.Module):
    """Embedding -> an RNN -> a linear head on a summary that `summary` names (right or wrong)."""

    def __init__(self, summary, cell=nn.LSTM, bidirectional=False, batch_first=True, layers=1, **rnn):
        super().__init__()
        torch.manual_seed(0)
        self.summary, self.batch_first = summary, batch_first
        self.embedding = nn.Embedding(VOCAB, EMBED, padding_idx=PAD)
        self.rnn = cell(EMBED, HIDDEN, layers, batch_first=batch_first, bidirectional=bidirectional, **rnn)
        size = rnn.get("proj_size") or HIDDEN
        width = size * (2 if bidirectional else 1)
        self.norm = nn.BatchNorm1d(width)
        self.embedding_norm = nn.BatchNorm1d(EMBED)
        one_state = summary in ("h_n[-1]", "h_n[-2]", "lengths after padding", "sort without unsort")
        self.head = nn.Linear(size if one_state else width, 3)

    def h_n(self, state):
        return state[0] if isinstance(self.rnn, nn.LSTM) else state

    def packed(self, x, lengths):
        return self.rnn(pack_padded_sequence(x, lengths, batch_first=self.batch_first, enforce_sorted=False))

    def unpacked(self, x, lengths):
        return pad_packed_sequence(self.packed(x, lengths)[0], batch_first=True)[0]  # (batch, time, features)

    def forward(self, padded, lengths):
        x, s = self.embedding(padded), self.summary
        time_dim = 1 if self.batch_first else 0
        rows = torch.arange(len(lengths))
        if s == "h_n[-1]":  # right for one direction, the backward half for two
            return self.head(self.h_n(self.packed(x, lengths)[1])[-1])
        if s == "both":
            h = self.h_n(self.packed(x, lengths)[1])
            return self.head(torch.cat([h[-2], h[-1]], -1))
        if s == "gather":
            out = self.rnn(x)[0]
            out = out if self.batch_first else out.transpose(0, 1)
            return self.head(out[rows, lengths - 1])
        if s == "masked mean":
            return self.head(self.unpacked(x, lengths).sum(1) / lengths[:, None])
        if s == "masked max":
            out = pad_packed_sequence(self.packed(x, lengths)[0], batch_first=True, padding_value=float("-inf"))[0]
            return self.head(out.max(1).values)
        if s == "attention pooling":
            out = self.unpacked(x, lengths)
            scores = out.sum(-1).masked_fill(is_pad(out, lengths), float("-inf"))
            return self.head((scores.softmax(1)[..., None] * out).sum(1))
        if s == "batchnorm on packed data":
            packed = self.packed(x, lengths)[0]
            packed = packed._replace(data=self.norm(packed.data))
            return self.head(pad_packed_sequence(packed, batch_first=True)[0].sum(1) / lengths[:, None])
        # the bugs
        if s == "output[:, -1]":
            return self.head(self.rnn(x)[0].select(time_dim, -1))
        if s == "unpacked, output[:, -1]":
            return self.head(self.unpacked(x, lengths)[:, -1])
        if s == "output[:, 0]":
            return self.head(self.unpacked(x, lengths)[:, 0])
        if s == "lengths after padding":
            full = torch.full_like(lengths, padded.shape[time_dim])
            return self.head(self.h_n(self.packed(x, full)[1])[-1])
        if s == "mean over pads":
            return self.head(self.unpacked(x, lengths).mean(1))
        if s == "max over pads":
            return self.head(self.unpacked(x, lengths).max(1).values)
        if s == "sort without unsort":
            order = lengths.argsort(descending=True)
            packed = pack_padded_sequence(x[order], lengths[order], batch_first=True)
            return self.head(self.h_n(self.rnn(packed)[1])[-1])
        if s == "unpacked h_n":
            h = self.h_n(self.rnn(x)[1])
            return self.head(torch.cat([h[-2], h[-1]], -1))
        if s == "attention pooling over pads":
            out = self.unpacked(x, lengths)
            return self.head((out.sum(-1).softmax(1)[..., None] * out).sum(1))
        if s == "batchnorm over padded embeddings":
            x = self.embedding_norm(x.transpose(1, 2)).transpose(1, 2)
            return self.head(self.h_n(self.packed(x, lengths)[1])[-1])
        if s == "h_n[-2]":  # the forward half alone
            return self.head(self.h_n(self.packed(x, lengths)[1])[-2])
        raise ValueError(s)


class Bag(nn.Module):
    """Embeddings summed and divided by the length: `padding_idx`, a mask from lengths or from ids."""

    def __init__(self, rule, vocab=VOCAB, dtype=torch.float32):
        super().__init__()
        torch.manual_seed(0)
        self.rule = rule
        self.embedding = nn.Embedding(vocab, EMBED, padding_idx=PAD if rule != "no padding_idx" else None)
        self.head = nn.Linear(EMBED, 3)
        self.to(dtype)

    def forward(self, padded, lengths):
        x = self.embedding(padded)
        if self.rule == "mask from lengths":
            x = x.masked_fill(is_pad(padded, lengths)[..., None], 0)
        if self.rule == "mask from ids":
            x = x.masked_fill((padded == PAD)[..., None], 0)
        if self.rule == "mean over width":
            return self.head(x.mean(1))
        return self.head(x.sum(1) / lengths[:, None].to(x.dtype))


class KimCNN(nn.Module):
    """Kim's CNN: convolutions, then a max over time of the real positions only (or over every position)."""

    def __init__(self, masked=True, vocab=VOCAB):
        super().__init__()
        torch.manual_seed(0)
        self.masked = masked
        self.embedding = nn.Embedding(vocab, 8, padding_idx=PAD)
        self.convs = nn.ModuleList(nn.Conv1d(8, 8, k, padding=k // 2) for k in (3, 5))
        self.head = nn.Linear(16, 2)

    def forward(self, padded, lengths):
        x = self.embedding(padded).masked_fill(is_pad(padded, lengths)[..., None], 0).transpose(1, 2)
        pooled = []
        for conv in self.convs:
            y = conv(x).relu()
            if self.masked:
                y = y.masked_fill(is_pad(padded, lengths)[:, None, :], float("-inf"))
            pooled.append(y.max(2).values)
        return self.head(torch.cat(pooled, 1))


class Encoder(nn.Module):
    """A Transformer encoder with learned positions; `mask` from lengths, ids or none; masked mean or a step."""

    def __init__(self, mask="lengths", pool="mean", positions=64, vocab=VOCAB, per_token=False, nested=False):
        super().__init__()
        torch.manual_seed(0)
        self.mask, self.pool, self.per_token = mask, pool, per_token
        self.embedding, self.position = nn.Embedding(vocab, 8), nn.Embedding(positions, 8)
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=nested)
        self.head = nn.Linear(8, 3)

    def forward(self, padded, lengths):
        pads = {"lengths": is_pad(padded, lengths), "ids": padded == PAD, "none": None}[self.mask]
        x = self.embedding(padded) + self.position(torch.arange(padded.shape[1]))
        out = self.encoder(x, src_key_padding_mask=pads)
        if self.per_token:
            return self.head(out)
        if self.pool == "last":
            return self.head(out[:, -1])
        if self.pool == "sum over the width":  # right only where the fast path zeroes the pads' outputs
            return self.head(out.sum(1) / lengths[:, None])
        real = ~is_pad(padded, lengths)
        return self.head((out * real[..., None]).sum(1) / lengths[:, None])


class Tagger(nn.Module):
    """Embedding -> packed bidirectional GRU -> a tag per step (chapter 8's shape); or a convolution."""

    def __init__(self, conv=False, layout="batch first", bug=None):
        super().__init__()
        torch.manual_seed(0)
        self.conv, self.bug = conv, bug
        self.embedding = nn.Embedding(VOCAB, EMBED, padding_idx=PAD)
        self.rnn = nn.GRU(EMBED, HIDDEN, batch_first=True, bidirectional=True)
        self.convolution = nn.Conv1d(EMBED, 2 * HIDDEN, 3, padding=1)
        self.head = nn.Linear(2 * HIDDEN, 3)

    def forward(self, padded, lengths):
        x = self.embedding(padded)
        if self.conv:
            return self.head(self.convolution(x.transpose(1, 2)).transpose(1, 2))
        if self.bug == "unpacked":
            return self.head(self.rnn(x)[0])
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        output, _ = pad_packed_sequence(self.rnn(packed)[0], batch_first=True, total_length=padded.shape[1])
        return self.head(output)


def tagger_labels(data):
    generator = torch.Generator().manual_seed(2)
    return [torch.randint(0, 3, (len(s),), generator=generator) for s in data]


def flat_ce(output, targets, **options):
    return nn.functional.cross_entropy(output.flatten(0, 1), targets.flatten(), ignore_index=-100, **options)


def per_sequence_mean(output, targets):
    mask = targets != -100
    token = nn.functional.cross_entropy(output.transpose(1, 2), targets.clamp(min=0), reduction="none")
    return ((token * mask).sum(1) / mask.sum(1)).mean()


def masked_from_lengths(output, targets, lengths):
    mask = ~is_pad(targets, lengths)
    token = nn.functional.cross_entropy(output.transpose(1, 2), targets.clamp(min=0), reduction="none")
    return (token * mask).sum() / mask.sum()


def ignore_index_with_lengths(output, targets, lengths):  # takes lengths, masks by ignore_index
    return flat_ce(output, targets)


def pads_as_class_0(output, targets):
    return nn.functional.cross_entropy(output.flatten(0, 1), targets.clamp(min=0).flatten())


def mean_over_every_position(output, targets, lengths):
    token = nn.functional.cross_entropy(output.transpose(1, 2), targets.clamp(min=0), reduction="none")
    return (token * ~is_pad(targets, lengths)).sum() / token.numel()


LOSSES = {  # name: (loss_fn, the loss normalisation it reports, or the check it fails)
    "ignore_index mean": (flat_ce, "a mean over each batch's real tokens"),
    "sum over a fixed count": (lambda o, t: flat_ce(o, t, reduction="sum") / 17.3, "a sum over the real tokens"),
    "sum": (lambda o, t: flat_ce(o, t, reduction="sum"), "a sum over the real tokens"),
    "per-sequence mean": (per_sequence_mean, "a mean of each sequence's mean"),
    "class weights": (lambda o, t: flat_ce(o, t, weight=torch.tensor([0.5, 2.0, 2.0])), "by another rule"),
    "label smoothing": (lambda o, t: flat_ce(o, t, label_smoothing=0.1), "a mean over each batch's real tokens"),
    "mask from lengths": (masked_from_lengths, "a mean over each batch's real tokens"),
    "ignore_index, takes lengths": (ignore_index_with_lengths, "a mean over each batch's real tokens"),
}


def ids_with_pad_as_token():
    data = sequences()
    data[0] = data[0].clone()
    data[0][1] = PAD
    return data


def long_sequences():
    return sequences((150, 1000, 60), vocab=VOCAB)


def float_features():
    generator = torch.Generator().manual_seed(0)
    return [torch.randn(n, 5, generator=generator) for n in (6, 3, 9)]


class TimeMajorFeatures(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.rnn, self.head = nn.GRU(5, 7, bidirectional=True), nn.Linear(14, 3)

    def forward(self, padded, lengths):
        h = self.rnn(pack_padded_sequence(padded, lengths, enforce_sorted=False))[1]
        return self.head(torch.cat([h[-2], h[-1]], -1))


class Wrapped(nn.Module):
    """A model that returns a tuple, a dict, or an object with .logits, as Hugging Face models do."""

    def __init__(self, form):
        super().__init__()
        self.form, self.inner = form, Model("h_n[-1]")

    def forward(self, padded, lengths):
        logits = self.inner(padded, lengths)
        if self.form == "tuple":
            return logits, None
        if self.form == "dict":
            return {"logits": logits}
        return type("Output", (), {"logits": logits})()


def plain_function(padded, lengths):
    """Not a module: a masked bag of one-hot counts."""
    return nn.functional.one_hot(padded, VOCAB).float().masked_fill(is_pad(padded, lengths)[..., None], 0).sum(1)


CORRECT = {  # name: (model, keyword arguments of check_padding)
    "packed LSTM h_n[-1]": (lambda: Model("h_n[-1]"), {}),
    "packed GRU h_n[-1]": (lambda: Model("h_n[-1]", cell=nn.GRU), {}),
    "packed RNN h_n[-1]": (lambda: Model("h_n[-1]", cell=nn.RNN), {}),
    "two-layer packed LSTM, dropout": (lambda: Model("h_n[-1]", layers=2, dropout=0.5), {}),
    "packed LSTM with proj_size": (lambda: Model("h_n[-1]", proj_size=3), {}),
    "gathered at lengths - 1, LSTM": (lambda: Model("gather"), {}),
    "gathered at lengths - 1, GRU": (lambda: Model("gather", cell=nn.GRU), {}),
    "bidirectional LSTM, h_n[-2] and h_n[-1]": (lambda: Model("both", bidirectional=True), {}),
    "bidirectional GRU, h_n[-2] and h_n[-1]": (lambda: Model("both", cell=nn.GRU, bidirectional=True), {}),
    "two-layer bidirectional LSTM": (lambda: Model("both", bidirectional=True, layers=2), {}),
    "time-major packed LSTM": (lambda: Model("h_n[-1]", batch_first=False), {"batch_first": False}),
    "time-major bidirectional LSTM": (
        lambda: Model("both", bidirectional=True, batch_first=False),
        {"batch_first": False},
    ),
    "time-major gathered GRU": (lambda: Model("gather", cell=nn.GRU, batch_first=False), {"batch_first": False}),
    "masked mean over a packed LSTM": (lambda: Model("masked mean"), {}),
    "masked mean, bidirectional GRU": (lambda: Model("masked mean", cell=nn.GRU, bidirectional=True), {}),
    "masked max-pool LSTM": (lambda: Model("masked max"), {}),
    "masked max-pool LSTM, 60-1000 tokens": (lambda: Model("masked max"), {"sequences": long_sequences()}),
    "masked max-pool, bidirectional LSTM": (lambda: Model("masked max", bidirectional=True), {}),
    "masked attention pooling": (lambda: Model("attention pooling"), {}),
    "BatchNorm on the packed data, in training": (lambda: Model("batchnorm on packed data").train(), {}),
    "bag, padding_idx, sum / lengths": (lambda: Bag("padding_idx"), {}),
    "bag, mask from lengths": (lambda: Bag("mask from lengths"), {}),
    "bag, mask from ids": (lambda: Bag("mask from ids"), {}),
    "bag, mask from ids, pads_from='ids'": (lambda: Bag("mask from ids"), {"pads_from": "ids"}),
    "bag, padding_idx, pad id a real token, mask from lengths": (
        lambda: Bag("mask from lengths"),
        {"sequences": ids_with_pad_as_token(), "pad_value": 11},
    ),
    "bag in bfloat16": (lambda: Bag("mask from lengths", dtype=torch.bfloat16), {}),
    "bag in float16": (lambda: Bag("mask from lengths", dtype=torch.float16), {}),
    "bag in float64": (lambda: Bag("mask from lengths", dtype=torch.float64), {}),
    "Kim CNN, masked max": (lambda: KimCNN(), {}),
    "Kim CNN, masked max, 60-1000 tokens": (lambda: KimCNN(), {"sequences": long_sequences()}),
    "Transformer, mask from lengths, in training": (lambda: Encoder().train(), {}),
    "Transformer, mask from ids": (lambda: Encoder(mask="ids"), {}),
    "Transformer, 64 positions, sequences to 40": (lambda: Encoder(), {"sequences": sequences((40, 12, 25))}),
    "Transformer, companion to max_length=64": (lambda: Encoder(), {"max_length": 64}),
    "Transformer tagger, mask from lengths": (lambda: Encoder(per_token=True), {}),
    "time-major float features, bidirectional GRU": (
        lambda: TimeMajorFeatures(),
        {"sequences": float_features(), "batch_first": False},
    ),
    "returns a tuple": (lambda: Wrapped("tuple"), {}),
    "returns a dict with logits": (lambda: Wrapped("dict"), {}),
    "returns an object with .logits": (lambda: Wrapped("object"), {}),
    "a plain function": (lambda: plain_function, {}),
    "forward= on a function": (
        lambda: None,
        {"forward": lambda model, padded, lengths: plain_function(padded, lengths)},
    ),
    "a packed model through forward=": (
        lambda: Model("h_n[-1]"),
        {"forward": lambda model, padded, lengths: model(padded, lengths=lengths)},
    ),
    "packed bidirectional tagger": (lambda: Tagger(), {}),
    "convolutional tagger, padding_idx": (lambda: Tagger(conv=True), {}),
}

BUGGY = {  # name: (model, keyword arguments, the check that must fail)
    "LSTM output[:, -1]": (lambda: Model("output[:, -1]"), {}, "batch independence"),
    "GRU output[:, -1]": (lambda: Model("output[:, -1]", cell=nn.GRU), {}, "batch independence"),
    "RNN output[:, -1]": (lambda: Model("output[:, -1]", cell=nn.RNN), {}, "batch independence"),
    "time-major output[:, -1]": (
        lambda: Model("output[:, -1]", batch_first=False),
        {"batch_first": False},
        "batch independence",
    ),
    "output[:, -1] reads padded steps": (lambda: Model("output[:, -1]"), {}, "the end is read"),
    "packed, unpacked, output[:, -1]": (lambda: Model("unpacked, output[:, -1]"), {}, "batch independence"),
    "lengths measured after padding": (lambda: Model("lengths after padding"), {}, "batch independence"),
    "mean over pads": (lambda: Model("mean over pads"), {}, "batch independence"),
    "max over pads": (lambda: Model("max over pads"), {}, "batch independence"),
    "sort without unsort": (lambda: Model("sort without unsort"), {}, "batch independence"),
    "attention pooling over pads": (lambda: Model("attention pooling over pads"), {}, "batch independence"),
    "bidirectional LSTM h_n[-1]": (lambda: Model("h_n[-1]", bidirectional=True), {}, "both directions"),
    "bidirectional GRU h_n[-1]": (lambda: Model("h_n[-1]", cell=nn.GRU, bidirectional=True), {}, "both directions"),
    "two-layer bidirectional h_n[-1]": (
        lambda: Model("h_n[-1]", bidirectional=True, layers=2),
        {},
        "both directions",
    ),
    "bidirectional output[:, 0]": (lambda: Model("output[:, 0]", bidirectional=True), {}, "both directions"),
    "bidirectional, unpacked, output[:, -1]": (
        lambda: Model("unpacked, output[:, -1]", bidirectional=True),
        {},
        "both directions",
    ),
    "bidirectional, not packed, h_n": (lambda: Model("unpacked h_n", bidirectional=True), {}, "batch independence"),
    "BatchNorm over padded embeddings": (lambda: Model("batchnorm over padded embeddings"), {}, "training mode"),
    "bidirectional LSTM h_n[-2], the forward half": (
        lambda: Model("h_n[-2]", bidirectional=True),
        {},
        "both directions",
    ),
    "bag without padding_idx, sum / lengths": (lambda: Bag("no padding_idx"), {}, "batch independence"),
    "bag, mean over the padded width": (lambda: Bag("mean over width"), {}, "batch independence"),
    "bag, mask from ids, pad id a real token": (
        lambda: Bag("mask from ids"),
        {"sequences": ids_with_pad_as_token()},
        "pad id",
    ),
    "padding_idx = pad id, a real token": (
        lambda: Bag("mask from lengths"),
        {"sequences": ids_with_pad_as_token()},
        "pad id",
    ),
    "bag without padding_idx, pad id a real token": (
        lambda: Bag("no padding_idx"),
        {"sequences": ids_with_pad_as_token()},
        "pad values",
    ),
    "Kim CNN, max over pads": (lambda: KimCNN(masked=False), {}, "batch independence"),
    "Transformer without a mask": (lambda: Encoder(mask="none"), {}, "batch independence"),
    "Transformer without a mask reads pad values": (lambda: Encoder(mask="none"), {}, "pad values"),
    "Transformer, out[:, -1]": (lambda: Encoder(pool="last"), {}, "batch independence"),
    "Transformer, pads' outputs summed, nested-tensor fast path in eval": (
        lambda: Encoder(pool="sum over the width", nested=True),
        {},
        "training mode",
    ),
    "Transformer tagger without a mask": (lambda: Encoder(mask="none", per_token=True), {}, "batch independence"),
    "tagger without packing": (lambda: Tagger(bug="unpacked"), {}, "batch independence"),
    "tagger, pads labelled as class 0": (
        lambda: Tagger(),
        {"loss_fn": pads_as_class_0, "with_labels": True},
        "masked loss",
    ),
    "tagger, mean over every position": (
        lambda: Tagger(),
        {"loss_fn": mean_over_every_position, "with_labels": True},
        "masked loss",
    ),
    "tagger, pad label a real class": (
        lambda: Tagger(),
        {"loss_fn": flat_ce, "with_labels": True, "pad_label": 2},
        "masked loss",
    ),
}


def run(model, arguments):
    arguments = dict(arguments)
    data = arguments.pop("sequences", None) or sequences()
    if arguments.pop("with_labels", False):
        arguments["labels"] = tagger_labels(data)
    return check_padding(model, data, **arguments)


def failed(report) -> list[str]:
    return [finding.check for finding in report if finding.passed is False]


@pytest.mark.parametrize("name", CORRECT)
def test_the_doctor_passes_every_correct_model(name):
    make, arguments = CORRECT[name]
    report = run(make(), arguments)
    assert report.ok, str(report)
    assert report[0].check == "batch independence" and report[0].passed, str(report)


@pytest.mark.parametrize("name", BUGGY)
def test_the_doctor_catches_every_broken_model_with_the_check_that_names_it(name):
    make, arguments, caught = BUGGY[name]
    report = run(make(), arguments)
    assert caught in failed(report), str(report)


@pytest.mark.parametrize("pads_from", [None, "lengths"])
def test_a_pad_id_that_is_a_real_token_is_harmless_only_where_the_model_finds_its_pads_from_lengths(pads_from):
    """Review round 5 (Z5E.21): a model that reads its pads gave "✓ pad id: ... harmless here: the model finds its
    pads from lengths" under "✗ pad values: ... the model reads its pads"."""
    data = ids_with_pad_as_token()
    reads = {finding.check: finding for finding in check_padding(Bag("no padding_idx"), data, pads_from=pads_from)}
    assert reads["pad values"].passed is False and reads["pad id"].passed is None, reads
    assert "cannot be told" in reads["pad id"].sentence and "harmless" not in reads["pad id"].sentence
    finds = {finding.check: finding for finding in check_padding(Bag("mask from lengths"), data, pad_value=11)}
    assert finds["pad values"].passed and finds["pad id"].passed and "harmless" in finds["pad id"].sentence


def test_the_zoo_is_large():
    assert len(CORRECT) + len(LOSSES) >= 40 and len(BUGGY) >= 30


@pytest.mark.parametrize("name", LOSSES)
def test_it_passes_every_correct_loss_and_reports_how_it_weighs_tokens_as_information(name):
    loss, normalisation = LOSSES[name]
    report = run(Tagger(), {"loss_fn": loss, "with_labels": True})
    assert report.ok, str(report)
    (finding,) = [finding for finding in report if finding.check == "loss normalisation"]
    assert finding.passed is None and normalisation in finding.sentence, str(report)
    assert "15_deep_dive_loss_normalisation" in str(finding)


def test_it_names_the_direction_a_bidirectional_model_ignores():
    report = check_padding(Model("h_n[-1]", cell=nn.GRU, bidirectional=True), sequences())
    (finding,) = [finding for finding in report if finding.check == "both directions"]
    assert "does not read the forward direction" in finding.sentence, finding.sentence
    report = check_padding(Model("h_n[-2]", bidirectional=True), sequences())
    (finding,) = [finding for finding in report if finding.check == "both directions"]
    assert "does not read the backward direction" in finding.sentence, finding.sentence


def test_the_advice_fits_the_model():
    rnn = check_padding(Model("output[:, -1]"), sequences())[0]
    attention = check_padding(Encoder(mask="none"), sequences())[0]
    assert "Pack the batch" in rnn.sentence and "07_padding_bug_ablation" in rnn.page
    assert "padding mask" in attention.sentence and "09_transformers_masks_and_packing" in attention.page
    tagger = check_padding(Tagger(bug="unpacked"), sequences())[0]  # a tagger has no "last real step" to take
    assert "pad_packed_sequence" in tagger.sentence and "last real step, and" not in tagger.sentence
    assert "08_sequence_labelling_and_loss_masking" in tagger.page


@pytest.mark.parametrize("summary", ["mean over pads", "max over pads", "attention pooling over pads"])
def test_a_model_that_packs_but_pools_over_the_padded_width_is_told_to_pool_not_to_pack(summary):
    """Review round 6 (Z6E.1): a packed LSTM whose output was averaged over the padded width got "Pack the batch,
    or take each sequence's last real step": advice to do what it did already, silent on the mean at fault."""
    for chinese in (False, True):
        use_language("zh_CN" if chinese else "en")
        try:
            report = check_padding(Model(summary), sequences())
        finally:
            use_language("en")
        assert failed(report) == ["batch independence"], str(report)
        advice = report[0].sentence
        if chinese:
            assert "模型已经打包了" in advice and "只在每个序列的真实时间步上池化" in advice, advice
            assert "请打包" not in advice, advice
        else:
            assert "packs already" in advice and "real steps only" in advice, advice
            assert "Pack the batch" not in advice, advice
    unpacked_mean = check_padding(Bag("mean over width"), sequences())[0].sentence  # no RNN: the general advice
    assert "Leave the pads out of every sum, mean" in unpacked_mean, unpacked_mean


def test_a_model_that_reads_its_pads_is_still_told_to_pack_and_to_pool_over_the_real_steps():
    for summary in ("output[:, -1]", "unpacked, output[:, -1]", "lengths after padding"):
        advice = check_padding(Model(summary), sequences())[0].sentence
        assert "Pack the batch" in advice and "over the real steps only" in advice, advice
    sorted_only = check_padding(Model("sort without unsort"), sequences())[0].sentence
    assert "unsort what you sorted" in sorted_only, sorted_only


def test_every_section_the_doctor_links_to_is_an_id_of_its_page():
    """A finding's address (Finding.page) opens its section, not just its page: the fragment is the site's id."""
    link = re.compile(r"\d\d_\w+#.+")  # "notebook_stem#anchor", as Finding.see and doctor.PAGES hold them
    targets = {value for value in vars(doctor).values() if isinstance(value, str) and link.fullmatch(value)}
    targets |= set(doctor.PAGES.values())
    missing = []
    for target in sorted(targets):
        page, anchor = target.split("#")
        notebook = REPO / "notebooks" / f"{page}.ipynb"
        if not notebook.exists() or anchor not in notebook_ids(notebook):
            missing.append(target)
    assert not missing, "no section with these ids: " + ", ".join(missing)


def test_a_model_that_finds_pads_by_id_is_told_so_and_checked_in_eval_mode_only():
    report = check_padding(Bag("mask from ids"), sequences())
    (finding,) = [f for f in report if f.check == "pad values"]
    assert finding.passed and "by their id" in finding.sentence
    assert report.modes == ("eval",) and "Checked in eval mode, with" in str(report)


def test_the_companion_never_runs_past_the_sequences_the_user_gave():
    seen = []
    model = Encoder(positions=7)
    model.register_forward_pre_hook(lambda module, args: seen.append(args[0].shape[1]))
    assert check_padding(model, sequences()).ok
    assert max(seen) == 7
    seen.clear()
    assert check_padding(Encoder(positions=64), sequences(), max_length=64).ok


def test_an_error_inside_the_model_names_the_doctors_own_batch():
    with pytest.raises(PaddingCheckError, match="its own companion of 30 steps"):
        check_padding(Encoder(positions=20), sequences(), max_length=30)


def test_it_restores_every_submodules_mode_the_buffers_and_the_random_generators():
    model = Model("batchnorm on packed data").train()
    model.head.eval()
    buffers = [buffer.clone() for buffer in model.buffers()]
    state = torch.random.get_rng_state()
    report = check_padding(model, sequences())
    assert model.training and not model.head.training and model.rnn.training
    assert all(torch.equal(a, b) for a, b in zip(buffers, model.buffers(), strict=True))
    assert torch.equal(state, torch.random.get_rng_state())
    assert report.modes == ("eval", "train") and "eval mode and training mode" in str(report)


def test_the_batches_go_to_the_models_device_and_the_lengths_stay_on_the_cpu():
    model = Model("h_n[-1]")
    seen = []
    model.register_forward_pre_hook(lambda module, args: seen.append((args[0].device, args[1].device, args[1].dtype)))
    check_padding(model, sequences())
    device = next(model.parameters()).device
    assert seen and set(seen) == {(device, torch.device("cpu"), torch.int64)}


def test_a_padded_batch_with_lengths_works_too():
    data = sequences()
    padded = pad_sequence(data, batch_first=True)
    assert check_padding(Model("h_n[-1]"), padded, lengths=[len(s) for s in data]).ok


def test_a_tagger_is_recognised_without_per_token():
    report = check_padding(Tagger(), sequences())
    assert report.ok, str(report)


def test_the_book_sized_model_takes_under_a_second_and_says_how_many_passes_it_ran():
    class Book(nn.Module):  # the reviews classifier's size: 32-wide embeddings, a 64-unit LSTM
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.embedding, self.rnn = nn.Embedding(5000, 32, padding_idx=0), nn.LSTM(32, 64, batch_first=True)
            self.head = nn.Linear(64, 4)

        def forward(self, padded, lengths):
            packed = pack_padded_sequence(self.embedding(padded), lengths, batch_first=True, enforce_sorted=False)
            return self.head(self.rnn(packed)[1][0][-1])

    data = sequences((33, 8, 6, 20, 2, 37, 12, 10), vocab=5000)
    model = Book()
    check_padding(model, data)  # warm-up
    # The CPU time of this process: other work on the machine does not count. One thread, because the idle
    # threads of a thread pool spin while they wait for a busy core, and that spinning counts as CPU time too
    # (it took this check to 2 s under load).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        start = time.process_time()
        report = check_padding(model, data)
        assert time.process_time() - start < 1.0
    finally:
        torch.set_num_threads(threads)
    assert report.forward_passes == 8 + 7 and f"{report.forward_passes} forward passes" in str(report)


def test_the_report_and_its_errors_speak_chinese():
    use_language("zh_CN")
    try:
        text = str(check_padding(Model("output[:, -1]"), sequences()))
        assert "批次无关性" in text and "填充位" in text and "Pack the batch" not in text, text
        with pytest.raises(PaddingCheckError, match="长度"):
            check_padding(Model("h_n[-1]"), [torch.tensor([1, 2]), torch.tensor([3, 4])])
    finally:
        use_language("en")


WRONG_INPUTS = {  # id: (keyword arguments of check_padding, words of its PaddingCheckError)
    "zero-length": (
        {"sequences": [torch.tensor([1, 2]), torch.tensor([], dtype=torch.int64)]},
        "sequences[1] has length 0",
    ),
    "lengths-do-not-match": (
        {"sequences": torch.zeros(3, 4, dtype=torch.int64), "lengths": [4, 2]},
        "lengths has 2 entries",
    ),
    "length-past-width": (
        {"sequences": torch.zeros(2, 4, dtype=torch.int64), "lengths": [5, 2]},
        "longer than the padded width",
    ),
    "no-lengths": ({"sequences": torch.zeros(2, 4, dtype=torch.int64)}, "lengths is needed"),
    "lengths-text": ({"sequences": torch.zeros(2, 4, dtype=torch.int64), "lengths": ["a", "b"]}, "whole numbers"),
    "lengths-fractions": ({"sequences": torch.zeros(2, 4, dtype=torch.int64), "lengths": [2.5, 1.0]}, "whole numbers"),
    "no-pads": ({"sequences": [torch.tensor([1, 2]), torch.tensor([3, 4])]}, "same length"),
    "one-sequence": ({"sequences": [torch.tensor([1])]}, "at least two"),
    "not-a-tensor": ({"sequences": [torch.tensor([1]), "ab"]}, "sequences[1] is not a tensor"),
    "tagger-shape": ({"sequences": sequences(), "per_token": True}, "per_token=True needs"),
    "wrong-shape": ({"sequences": sequences(), "forward": lambda m, p, n: m(p, n)[:1]}, "cannot tell"),
    "model-raises": ({"sequences": sequences(), "forward": lambda m, p, n: m(p.float(), n)}, "the model raised"),
    "returns-text": ({"sequences": sequences(), "forward": lambda m, p, n: "text"}, "not a tensor"),
    "ambiguous-shape": ({"sequences": sequences(), "forward": lambda m, p, n: m(p, n)[0]}, "cannot tell"),
    "pads-from": ({"sequences": sequences(), "pads_from": "mask"}, "pads_from must be"),
    "max-length": ({"sequences": sequences(), "max_length": 3}, "max_length is 3"),
    "loss-without-labels": ({"sequences": sequences(), "loss_fn": flat_ce}, "labels and loss_fn go together"),
    "labels-wrong-length": (
        {"sequences": sequences(), "labels": [torch.tensor([1])] * 5, "loss_fn": flat_ce},
        "one label tensor",
    ),
}


@pytest.mark.parametrize("arguments, words", WRONG_INPUTS.values(), ids=WRONG_INPUTS)
def test_wrong_input_gets_one_sentence(arguments, words):
    with pytest.raises(PaddingCheckError, match=words.replace("[", r"\[").replace("]", r"\]")) as caught:
        check_padding(Model("h_n[-1]"), **arguments)
    assert "\n" not in str(caught.value)


def test_a_loss_that_raises_gets_a_padding_check_error():
    def broken(output, targets):
        raise KeyError("oops")

    with pytest.raises(PaddingCheckError, match="loss_fn raised KeyError"):
        check_padding(Tagger(), sequences(), labels=tagger_labels(sequences()), loss_fn=broken)


# ------------------------------------------------------------------------------------------- check_batches
def collate(pairs, *, after_padding=False, lengths_as=torch.tensor, label_pad=-100):
    """The book's collate_fn for a tagger: padded tokens, lengths measured before padding, padded labels."""
    tokens, tags = zip(*pairs, strict=True)
    padded = pad_sequence(tokens, batch_first=True, padding_value=PAD)
    lengths = [padded.shape[1]] * len(tokens) if after_padding else [len(t) for t in tokens]
    labels = pad_sequence(tags, batch_first=True, padding_value=label_pad)
    return padded, lengths_as(lengths), labels


def loader(**options):
    data = sequences((5, 2, 7, 3, 1, 4, 6, 2))
    pairs = list(zip(data, tagger_labels(data), strict=True))
    return torch.utils.data.DataLoader(pairs, batch_size=3, collate_fn=lambda batch: collate(batch, **options))


def test_check_batches_passes_the_books_collate_fn_and_reports_each_batchs_efficiency():
    report = check_batches(loader())
    assert report.ok, str(report)
    assert [f.check for f in report] == [
        "lengths",
        "pad id",
        "labels",
        "lengths tensor",
        "layout",
        "padding efficiency",
    ]
    assert len(report.efficiencies) == 3 and all(0 < e <= 1 for e in report.efficiencies)
    assert "05_batches_and_bucketing" in str(report[-1])


DATA_BUGS = {  # id: (options of the collate_fn, the check of check_batches that catches it)
    "lengths-after-padding": ({"after_padding": True}, "lengths"),
    "lengths-a-list": ({"lengths_as": list}, "lengths tensor"),
    "lengths-int32": ({"lengths_as": lambda n: torch.tensor(n, dtype=torch.int32)}, "lengths tensor"),
    "lengths-float": ({"lengths_as": lambda n: torch.tensor(n, dtype=torch.float32)}, "lengths tensor"),
    "labels-padded-with-a-class": ({"label_pad": 0}, "labels"),
}


@pytest.mark.parametrize("options, caught", DATA_BUGS.values(), ids=DATA_BUGS)
def test_check_batches_catches_each_data_bug(options, caught):
    report = check_batches(loader(**options))
    assert caught in failed(report), str(report)


def test_check_batches_catches_a_pad_id_that_is_a_real_token_and_a_wrong_layout():
    padded = torch.tensor([[4, 0, 6], [7, 8, 0]])
    assert failed(check_batches([(padded, torch.tensor([3, 2]))])) == ["pad id"]
    assert failed(check_batches([(padded.T, torch.tensor([3, 2]))])) == ["layout"]
    assert failed(check_batches([(padded.T, torch.tensor([3, 2]))], batch_first=False)) == ["pad id"]


def test_check_batches_claims_no_pass_for_a_batch_whose_layout_it_could_not_read():
    """Review round 9 (part A): lengths [6, 3] do not fit rows of width 5. The layout check names that; the
    checks that read the rows could not read that batch, so they pass no verdict on it."""
    padded = torch.tensor([[1, 2, 3, 4, 5], [1, 2, 3, 0, 0]])
    alone = check_batches([(padded, torch.tensor([6, 3]))])
    assert failed(alone) == ["layout"]
    assert [finding.check for finding in alone if finding.passed is None] == ["lengths", "pad id"]
    assert "every batch" in alone[0].sentence and "not checked" in alone[0].sentence
    mixed = check_batches([(padded, torch.tensor([6, 3])), (padded, torch.tensor([5, 3]))])
    assert failed(mixed) == ["layout"] and mixed[0].passed is None
    assert "not checked in 1 of 2 batches" in mixed[0].sentence
    read = check_batches([(padded, torch.tensor([5, 3]))])
    assert all(finding.passed for finding in read[:-1]) and read[-1].check == "padding efficiency"


def test_check_batches_says_it_could_not_check_the_labels_of_batches_it_could_not_read():
    """Review round 10 (Z10E.3): a tagger's labels in batches that are all of the wrong layout leave the labels
    unchecked, and the report says so rather than dropping the labels row."""
    padded = torch.tensor([[1, 2, 3, 4, 5], [1, 2, 3, 0, 0]])
    labels = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, -100, -100]])
    report = check_batches([(padded, torch.tensor([6, 3]), labels), (padded, torch.tensor([7, 3]), labels)])
    assert [finding.check for finding in report if finding.passed is None] == ["lengths", "pad id", "labels"]
    unchecked = next(finding for finding in report if finding.check == "labels")
    assert "every batch" in unchecked.sentence and "not checked" in unchecked.sentence
    per_sequence = check_batches([(padded, torch.tensor([6, 3]), torch.tensor([0, 1]))])
    assert "labels" not in [finding.check for finding in per_sequence]  # per-sequence labels are not checked


def test_check_batches_refuses_what_it_cannot_read():
    with pytest.raises(PaddingCheckError, match="no batch"):
        check_batches([])
    with pytest.raises(PaddingCheckError, match="batch 0 is not"):
        check_batches([torch.zeros(2, 3)])
