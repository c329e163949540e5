"""What chapters 3 and 4 build and the deep dives 13 and 14 reuse: the helpers that print and compare hidden
states, chapter 3's batches, and chapter 4's padded batch with its two bidirectional encoders.

The code is the chapters' own: `pack` is chapter 4's visible cell, and `fmt` and `same` are the helpers of
chapter 3's setup cell. The random examples are built by functions, called after `set_seed(0)`, so that a page
that recaps them draws the same numbers as the chapter that built them.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

from padpack.course.helpers import set_seed

__all__ = [
    "chapter_4_encoders",
    "classic_batch",
    "fmt",
    "four_sequences",
    "pack",
    "pick_device",
    "same",
]


def fmt(vector: torch.Tensor) -> str:
    """Format a 1-D tensor as '[a, b, c]' with 3 decimals."""
    return "[" + ", ".join(f"{round(value, 3) + 0.0:6.3f}" for value in vector.tolist()) + "]"


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when two tensors are equal up to float32 rounding.

    The tolerances are those of torch.testing.assert_close for float32.
    """
    return torch.allclose(a, b, atol=1e-5, rtol=1.3e-6)


def pick_device() -> str:
    """The device the chapters run on: a GPU ("cuda") when there is one, else "cpu". On a GPU, cuDNN's RNNs then
    run in full float32 (no TF32), so that the chapters' equality checks hold there too."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda":
        torch.backends.cudnn.allow_tf32 = False
    return device


def classic_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """Chapter 3's classic batch: a sequence of 5 steps and one of 2, two features each."""
    long_sequence = torch.tensor([[1.0, 1], [2, 2], [3, 3], [4, 4], [5, 5]])
    short_sequence = torch.tensor([[10.0, 10], [20, 20]])
    return long_sequence, short_sequence


def four_sequences(input_size: int = 2, device: str = "cpu", seed: int = 0) -> tuple[torch.Tensor, list, torch.Tensor]:
    """Chapter 3's four random sequences of lengths 5, 2, 7 and 3, drawn after `set_seed(seed)` as there: the
    lengths, the sequences and the right-padded, batch-first batch on `device`."""
    set_seed(seed)
    lengths = torch.tensor([5, 2, 7, 3])
    sequences = [torch.randn(length, input_size) for length in lengths.tolist()]
    padded = pad_sequence(sequences, batch_first=True).to(device)
    return lengths, sequences, padded


def pack(batch, lengths):
    """Pack a right-padded, batch-first tensor (lengths in any order)."""
    return pack_padded_sequence(batch, lengths, batch_first=True, enforce_sorted=False)


def chapter_4_encoders(
    input_size: int = 5, hidden_size: int = 6, num_layers: int = 2
) -> tuple[torch.Tensor, list, torch.Tensor, dict[str, nn.RNNBase]]:
    """Chapter 4's batch and encoders, drawn from torch's global generator in the chapter's order: three random
    sequences of lengths 5, 7 and 2, right-padded and batch-first, then a two-layer bidirectional LSTM and GRU.
    Returns (lengths, sequences, padded, {"LSTM": lstm, "GRU": gru})."""
    lengths = torch.tensor([5, 7, 2])
    sequences = [torch.randn(int(length), input_size) for length in lengths]
    padded = pad_sequence(sequences, batch_first=True)
    options = {"bidirectional": True, "batch_first": True}
    lstm = nn.LSTM(input_size, hidden_size, num_layers, **options)
    gru = nn.GRU(input_size, hidden_size, num_layers, **options)
    return lengths, sequences, padded, {"LSTM": lstm, "GRU": gru}
