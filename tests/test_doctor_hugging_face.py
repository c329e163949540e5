"""The padding doctor on Hugging Face `transformers` models built from small configs, with random weights and no
download: the adapter on the API page (padpack.doctor's docstring) passes BERT, DistilBERT and RoBERTa for sequence
and token classification and GPT-2 sequence classification, right and left padded; the doctor catches a missing
attention_mask, a pad id that is a real token, hidden[:, -1] on right padding, and left padding without
position_ids."""

from __future__ import annotations

import re
import textwrap

import pytest
import torch
import transformers

import padpack.doctor
from padpack.doctor import check_padding

VOCAB = 40
SMALL = {"vocab_size": VOCAB, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2}


def documented_adapter():
    """The function `hugging_face` as the API page shows it (the module docstring's code block)."""
    block = re.search(r"::\n\n((?:    .*\n|\n)+)", padpack.doctor.__doc__).group(1)
    namespace = {"torch": torch}
    exec(textwrap.dedent(block), namespace)
    return namespace["hugging_face"]


def build(name: str, task: str):
    torch.manual_seed(0)
    if name == "bert":
        config = transformers.BertConfig(**SMALL, intermediate_size=32, pad_token_id=0, num_labels=3)
    elif name == "distilbert":
        config = transformers.DistilBertConfig(
            vocab_size=VOCAB, dim=16, n_layers=2, n_heads=2, hidden_dim=32, pad_token_id=0, num_labels=3
        )
    elif name == "roberta":
        config = transformers.RobertaConfig(**SMALL, intermediate_size=32, pad_token_id=1, num_labels=3)
    else:
        config = transformers.GPT2Config(
            vocab_size=VOCAB, n_embd=16, n_layer=2, n_head=2, pad_token_id=0, bos_token_id=2, eos_token_id=2
        )
        config.num_labels = 3
    kind = {"bert": "Bert", "distilbert": "DistilBert", "roberta": "Roberta", "gpt2": "GPT2"}[name]
    head = "ForSequenceClassification" if task == "sequence" else "ForTokenClassification"
    return getattr(transformers, kind + head)(config).eval()


def sequences(lengths=(5, 2, 7, 3, 1), low=2):
    generator = torch.Generator().manual_seed(1)
    return [torch.randint(low, VOCAB, (n,), generator=generator) for n in lengths]


def left_padded(position_ids: bool):
    """An adapter that moves each row's pads to the left, as a decoder's batches often are."""

    def forward(model, padded, lengths):
        width = padded.shape[1]
        start = (width - lengths)[:, None]
        steps = torch.arange(width)[None, :]
        left = padded.gather(1, ((steps - start) % width).to(padded.device))
        is_real = steps >= start
        mask = is_real.long().to(padded.device)
        if not position_ids:
            return model(input_ids=left, attention_mask=mask).logits
        positions = (is_real.cumsum(1) - 1).clamp(min=0).to(padded.device)
        return model(input_ids=left, attention_mask=mask, position_ids=positions).logits

    return forward


def last_hidden_state(model, padded, lengths):
    """hidden[:, -1] of right-padded rows: the classic bug, on a Hugging Face body."""
    is_real = torch.arange(padded.shape[1])[None, :] < lengths[:, None]
    hidden = model.transformer(input_ids=padded, attention_mask=is_real.long()).last_hidden_state
    return model.score(hidden[:, -1])


def failed(report):
    return [finding.check for finding in report if finding.passed is False]


CORRECT = [(name, task) for name in ("bert", "distilbert", "roberta") for task in ("sequence", "token")]


@pytest.mark.parametrize(("name", "task"), [*CORRECT, ("gpt2", "sequence")])
def test_the_documented_adapter_passes_each_model(name, task):
    model = build(name, task)
    report = check_padding(model, sequences(), forward=documented_adapter(), pad_value=model.config.pad_token_id)
    assert report.ok, str(report)


def test_left_padding_with_position_ids_passes():
    model = build("gpt2", "sequence")
    assert check_padding(model, sequences(), forward=left_padded(position_ids=True)).ok


@pytest.mark.parametrize(("name", "task"), [("bert", "sequence"), ("distilbert", "token"), ("roberta", "sequence")])
def test_it_catches_a_missing_attention_mask(name, task):
    model = build(name, task)
    report = check_padding(
        model, sequences(), forward=lambda m, p, n: m(input_ids=p).logits, pad_value=model.config.pad_token_id
    )
    assert "batch independence" in failed(report), str(report)


def test_it_catches_a_pad_id_that_is_a_real_token():
    model = build("bert", "sequence")
    data = sequences()
    data[0] = torch.tensor([5, 0, 7, 9, 3])  # 0 is the pad id

    def id_mask(model, padded, lengths):
        return model(input_ids=padded, attention_mask=(padded != 0).long()).logits

    report = check_padding(model, data, forward=id_mask)
    assert failed(report) == ["pad id"], str(report)


def test_it_catches_the_last_hidden_state_of_right_padded_rows():
    report = check_padding(build("gpt2", "sequence"), sequences(), forward=last_hidden_state)
    assert "batch independence" in failed(report), str(report)


def test_it_catches_left_padding_without_position_ids():
    report = check_padding(build("gpt2", "sequence"), sequences(), forward=left_padded(position_ids=False))
    assert "batch independence" in failed(report), str(report)
