# Chapter 10's ddp_run/review_model.py, as its %%writefile cell writes it (tests/exercises/test_ch10.py keeps the two
# the same code); deep dive 17's training processes import it from here.
"""Chapter 6's packed LSTM classifier, its batches and its summed loss."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence


def pad_batch(sequences: list[torch.Tensor]):
    """Right-pad token tensors with id 0; lengths stay int64 on the CPU."""
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int64)
    return pad_sequence(sequences, batch_first=True, padding_value=0), lengths


def make_batch(tokens, labels, indices):
    """(padded, lengths, labels) for the examples at these indices."""
    padded, lengths = pad_batch([tokens[i] for i in indices])
    return padded, lengths, labels[indices]


class SequenceClassifier(nn.Module):
    """Embedding -> packed LSTM -> final state h_n[-1] -> linear layer."""

    def __init__(self, vocab_size, num_classes, embedding=16, hidden=32):
        super().__init__()
        self.config = dict(vocab_size=vocab_size, num_classes=num_classes)  # noqa: C408
        self.config |= dict(embedding=embedding, hidden=hidden)  # noqa: C408
        self.embedding = nn.Embedding(vocab_size, embedding, padding_idx=0)
        self.rnn = nn.LSTM(embedding, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, num_classes)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(
            self.embedding(padded),
            lengths,
            batch_first=True,
            enforce_sorted=False,
        )
        _, (h_n, _) = self.rnn(packed)
        return self.classifier(h_n[-1])


def summed_loss(model, batch):
    """Cross-entropy summed (not averaged) over the batch's examples."""
    padded, lengths, labels = batch
    logits = model(padded, lengths)
    return nn.functional.cross_entropy(logits, labels, reduction="sum")
