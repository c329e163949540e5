"""Chapter 8's sequence labelling, written once: the digit-tagging data, its batches with the tags padded with
-100, the packed bidirectional tagger, the masked metrics and the training step with a fixed count.

Chapter 8 teaches `collate_tagging`, `BiLSTMTagger`, `token_accuracy`, `exact_match` and `train_step` in its
visible cells; this is the same code (a test keeps them equal), for deep dive 15 and for chapter 8's own
`train_tagger`. `tag_digits`, `DigitTaggingDataset` and `SortedBucketBatchSampler` were chapter 8's setup cell.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import Dataset, Sampler

__all__ = [
    "LABEL_PAD",
    "NUM_TAGS",
    "NUM_TOKENS",
    "PEAK",
    "SLOPE",
    "TAG_NAMES",
    "TOKEN_PAD",
    "VALLEY",
    "BiLSTMTagger",
    "DigitTaggingDataset",
    "SortedBucketBatchSampler",
    "collate_tagging",
    "exact_match",
    "loss_sum_fn",
    "tag_digits",
    "token_accuracy",
    "train_step",
]

SLOPE, PEAK, VALLEY = 0, 1, 2
TAG_NAMES = ["slope", "peak", "valley"]
TOKEN_PAD, NUM_TOKENS, NUM_TAGS = 0, 11, 3  # digit d is token d + 1
LABEL_PAD = -100  # the default ignore_index of nn.CrossEntropyLoss


def tag_digits(digits: list[int]) -> list[int]:
    """Tag each digit PEAK, VALLEY or SLOPE against the neighbors it has."""
    tags = []
    for i, digit in enumerate(digits):
        neighbors = digits[max(i - 1, 0) : i] + digits[i + 1 : i + 2]
        if all(digit > neighbor for neighbor in neighbors):
            tags.append(PEAK)
        elif all(digit < neighbor for neighbor in neighbors):
            tags.append(VALLEY)
        else:
            tags.append(SLOPE)
    return tags


class DigitTaggingDataset(Dataset):
    """Random digit sequences with long-tailed lengths, and their tags."""

    def __init__(
        self,
        num_sequences: int,
        seed: int,
        min_length: int = 2,
        max_length: int = 60,
    ):
        rng = np.random.default_rng(seed)
        lengths = np.rint(rng.lognormal(mean=2.6, sigma=0.6, size=num_sequences))
        self.lengths = np.clip(lengths, min_length, max_length).astype(int).tolist()
        self.examples = []
        for length in self.lengths:
            digits = rng.integers(0, 10, size=length).tolist()
            self.examples.append((torch.tensor(digits) + 1, torch.tensor(tag_digits(digits))))

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.examples[index]


class SortedBucketBatchSampler(Sampler):
    """Sort the whole set by length (ties at random), cut it into batches,
    and shuffle the order of the batches.

    Every epoch has the same batches of lengths: only sequences of equal length change places (deep dive 15 checks
    it). Fine for the book's digit task; on real data prefer chapter 5's `BucketBatchSampler`, which sorts within
    random chunks and so varies the batch mates."""

    def __init__(self, lengths: list[int], batch_size: int, seed: int = 0):
        self.lengths = torch.tensor(lengths, dtype=torch.float)
        self.batch_size = batch_size
        self.generator = torch.Generator().manual_seed(seed)

    def __iter__(self):
        # in [0, 1): reorders equal lengths only
        jitter = torch.rand(len(self.lengths), generator=self.generator)
        batches = torch.argsort(self.lengths + jitter).split(self.batch_size)
        for index in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[index].tolist()

    def __len__(self) -> int:
        return (len(self.lengths) + self.batch_size - 1) // self.batch_size


def collate_tagging(batch: list[tuple[torch.Tensor, torch.Tensor]]):
    """Pad (tokens, tags) pairs into (padded tokens, lengths, padded tags)."""
    tokens, tags = zip(*batch)
    lengths = torch.tensor([len(sequence) for sequence in tokens])
    padded_tokens = pad_sequence(tokens, batch_first=True, padding_value=TOKEN_PAD)
    padded_tags = pad_sequence(tags, batch_first=True, padding_value=LABEL_PAD)
    return padded_tokens, lengths, padded_tags


class BiLSTMTagger(nn.Module):
    """Embedding, packed (bi)LSTM, and a linear layer: tag scores per token."""

    def __init__(self, hidden_size: int = 32, bidirectional: bool = True):
        super().__init__()
        self.embedding = nn.Embedding(NUM_TOKENS, 16, padding_idx=TOKEN_PAD)
        self.lstm = nn.LSTM(16, hidden_size, batch_first=True, bidirectional=bidirectional)
        directions = 2 if bidirectional else 1
        self.classifier = nn.Linear(directions * hidden_size, NUM_TAGS)

    def encode(self, tokens, lengths) -> nn.utils.rnn.PackedSequence:
        embedded = self.embedding(tokens)
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        return self.lstm(packed)[0]

    def forward(self, tokens, lengths) -> torch.Tensor:
        packed = self.encode(tokens, lengths)
        features, _ = pad_packed_sequence(packed, batch_first=True, total_length=tokens.size(1))
        return self.classifier(features)


def token_accuracy(predictions: torch.Tensor, tags: torch.Tensor) -> float:
    mask = tags != LABEL_PAD
    return ((predictions == tags) & mask).sum().item() / mask.sum().item()


def exact_match(predictions: torch.Tensor, tags: torch.Tensor) -> float:
    mask = tags != LABEL_PAD
    return ((predictions == tags) | ~mask).all(dim=1).float().mean().item()


loss_sum_fn = nn.CrossEntropyLoss(ignore_index=LABEL_PAD, reduction="sum")


def train_step(model, optimizer, tokens, lengths, tags, fixed_count) -> float:
    """One update with the summed masked loss divided by a fixed count."""
    scores = model(tokens, lengths)
    loss_sum = loss_sum_fn(scores.flatten(0, 1), tags.flatten())
    optimizer.zero_grad()
    (loss_sum / fixed_count).backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # chapter 6
    optimizer.step()
    return loss_sum.item()
