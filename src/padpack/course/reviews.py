"""Chapter 5's data and batches, for the pages that reuse them: the toy movie reviews and their split, the
tokenizer and `Vocabulary`, `ReviewDataset`, `pad_batch` and `collate_batch`, and the shuffled and bucketed loaders.

Every function and class here is the code that chapter 5 teaches, cell for cell (tests/test_one_source.py keeps
it so). The data objects (`reviews`, the three splits, `vocab`, `train_set`, `val_set`, `test_set`) are built
when the module is imported, with generators of their own (`random.Random(0)`, `torch.Generator().manual_seed(0)`):
importing it draws nothing from the global random generators, so a page's `set_seed(0)` gives what it gave before.
"""

import math
import random
import re
from collections import Counter

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, Sampler

__all__ = [
    "BATCH_SIZE",
    "FILLERS",
    "LABEL_NAMES",
    "NEGATIVE",
    "NUM_REVIEWS",
    "POSITIVE",
    "TOKEN_PATTERN",
    "BucketBatchSampler",
    "ReviewDataset",
    "Vocabulary",
    "bucketed_loader",
    "collate_batch",
    "label_of",
    "make_review",
    "pad_batch",
    "random_words",
    "reviews",
    "shuffled_loader",
    "test_reviews",
    "test_set",
    "tokenize",
    "train_reviews",
    "train_set",
    "val_reviews",
    "val_set",
    "vocab",
]

# ---- The data: reviews in a toy language ----
POSITIVE = ("good", "great", "fun", "clever", "lovely", "superb")
NEGATIVE = ("bad", "dull", "awful", "boring", "weak", "messy")
FILLERS = ("the", "a", "movie", "film", "plot", "cast", "story", "music")
FILLERS += ("acting", "script", "ending", "was", "is", "felt", "and", "but")
FILLERS += ("very", "quite", "really", "so", "overall", "it")
LABEL_NAMES = ("negative", "negative, ends positive")
LABEL_NAMES += ("positive, ends negative", "positive")


def label_of(words: list[str]) -> int:
    """2 if most opinion words are positive, plus 1 if the last one is."""
    opinions = [w in POSITIVE for w in words if w in POSITIVE + NEGATIVE]
    if not opinions:
        raise ValueError("a review needs at least one opinion word")
    mostly_positive = sum(opinions) > len(opinions) / 2
    return 2 * mostly_positive + opinions[-1]


def random_words(rng: random.Random) -> list[str]:
    """Long-tailed length; an odd number of opinion words, one of them last."""
    length = min(max(round(rng.lognormvariate(2.4, 0.75)), 1), 80)
    num_opinions = min(rng.choice((1, 3, 5, 7)), length - 1 + length % 2)
    words = [rng.choice(FILLERS) for _ in range(length)]
    positions = rng.sample(range(length - 1), num_opinions - 1) + [length - 1]
    for position in positions:
        sentiment = POSITIVE if rng.random() < 0.5 else NEGATIVE
        words[position] = rng.choice(sentiment)
    return words


def make_review(rng: random.Random, label: int) -> str:
    """Draw reviews until one has the wanted label; return it as a sentence."""
    while True:
        words = random_words(rng)
        if label_of(words) == label:
            return " ".join(words).capitalize() + rng.choice(".!")


# The 3200 reviews, balanced over the four labels, and the split of chapter 5 (2400 / 400 / 400); both drawn
# from generators of their own, so importing this module leaves the global random generators alone
NUM_REVIEWS = 3200
_rng = random.Random(0)
reviews = [(make_review(_rng, i % 4), i % 4) for i in range(NUM_REVIEWS)]
_order = torch.randperm(NUM_REVIEWS, generator=torch.Generator().manual_seed(0)).tolist()
train_reviews = [reviews[i] for i in _order[:2400]]
val_reviews = [reviews[i] for i in _order[2400:2800]]
test_reviews = [reviews[i] for i in _order[2800:]]

# ---- A tiny tokenizer and vocabulary ----
TOKEN_PATTERN = re.compile(r"[a-z0-9']+|[^\sa-z0-9']")


def tokenize(text: str) -> list[str]:
    """Lowercase, then split into words and single punctuation marks."""
    return TOKEN_PATTERN.findall(text.lower())


class Vocabulary:
    """Maps tokens to ids and back; 0 is padding, 1 every unknown token."""

    PAD, UNK = "<pad>", "<unk>"
    PAD_ID, UNK_ID = 0, 1

    def __init__(self, tokens: list[str]):
        self.itos = list(tokens)  # "index to string"
        self.stoi = {token: index for index, token in enumerate(self.itos)}

    @classmethod
    def build(cls, texts: list[str], min_freq: int = 2) -> "Vocabulary":
        counts = Counter(token for text in texts for token in tokenize(text))
        kept = [token for token, count in counts.items() if count >= min_freq]
        # most frequent first; ties in alphabetical order
        kept.sort(key=lambda token: (-counts[token], token))
        return cls([cls.PAD, cls.UNK, *kept])

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        return [self.stoi.get(token, self.UNK_ID) for token in tokenize(text)]

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.itos[i] for i in ids if i != self.PAD_ID)


# Built on the training reviews only
vocab = Vocabulary.build([text for text, _ in train_reviews])


# ---- From strings to batches ----
class ReviewDataset(Dataset):
    """Reviews as int64 token-id tensors; item i is (token_ids, label)."""

    def __init__(self, examples: list[tuple[str, int]], vocab: Vocabulary):
        self.token_ids = [torch.tensor(vocab.encode(text), dtype=torch.int64) for text, _ in examples]
        self.labels = [label for _, label in examples]
        self.lengths = [len(ids) for ids in self.token_ids]
        if 0 in self.lengths:
            empty = self.lengths.index(0)
            raise ValueError(f"example {empty} has no tokens; drop it first")

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        return self.token_ids[index], self.labels[index]


train_set = ReviewDataset(train_reviews, vocab)
val_set = ReviewDataset(val_reviews, vocab)
test_set = ReviewDataset(test_reviews, vocab)


def pad_batch(sequences: list[torch.Tensor]):
    """Right-pad 1-D token tensors to (batch, longest); lengths on the CPU."""
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int64)
    padded = pad_sequence(sequences, batch_first=True, padding_value=Vocabulary.PAD_ID)
    return padded, lengths


def collate_batch(batch: list[tuple[torch.Tensor, int]]):
    """Turn (token_ids, label) pairs into (padded, lengths, labels)."""
    sequences, labels = zip(*batch)
    padded, lengths = pad_batch(list(sequences))
    return padded, lengths, torch.tensor(labels, dtype=torch.int64)


BATCH_SIZE = 32


def shuffled_loader(dataset: ReviewDataset, seed: int = 0) -> DataLoader:
    """Random batches, a new order every epoch; the same seed, same orders."""
    return DataLoader(
        dataset,
        batch_size=BATCH_SIZE,
        shuffle=True,
        collate_fn=collate_batch,
        generator=torch.Generator().manual_seed(seed),
    )


class BucketBatchSampler(Sampler[list[int]]):
    """Batches of indices with similar lengths, reshuffled every epoch."""

    def __init__(self, lengths, batch_size, chunk_size, generator):
        self.lengths, self.batch_size = lengths, batch_size
        self.chunk_size, self.generator = chunk_size, generator

    def __iter__(self):
        n = len(self.lengths)
        order = torch.randperm(n, generator=self.generator).tolist()
        batches = []
        for start in range(0, n, self.chunk_size):
            chunk = order[start : start + self.chunk_size]
            # stable: ties stay in random order
            chunk.sort(key=self.lengths.__getitem__)
            batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        batch_order = torch.randperm(len(batches), generator=self.generator)
        yield from [batches[index] for index in batch_order.tolist()]

    def __len__(self) -> int:
        full_chunks, rest = divmod(len(self.lengths), self.chunk_size)
        per_chunk = math.ceil(self.chunk_size / self.batch_size)
        return full_chunks * per_chunk + math.ceil(rest / self.batch_size)


def bucketed_loader(dataset: ReviewDataset, seed: int = 0) -> DataLoader:
    """Sorted within chunks of 16 batches; the same seed, same batches."""
    generator = torch.Generator().manual_seed(seed)
    sampler = BucketBatchSampler(dataset.lengths, BATCH_SIZE, 16 * BATCH_SIZE, generator)
    return DataLoader(dataset, batch_sampler=sampler, collate_fn=collate_batch)
