"""Chapter 9's Transformer batch, written once: its padded batch, embeddings and encoder, the helpers that run its
attention by hand, and the packing of documents into rows.

The functions are chapter 9's teaching code, the same code (a test compares them), and like there they read this
module's globals (`token_embedding`, `attention`, `n_heads`, `head_dim`). The weights and the tokens come from the
global random generator: `build_batch()` draws them in chapter 9's order, so a page that calls it right after
`set_seed(0)` gets chapter 9's numbers, and it returns them for the page's namespace:

    set_seed(0)
    globals().update(build_batch())
"""

from __future__ import annotations

import logging
import warnings

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

__all__ = [
    "PAD",
    "TOLERANCE",
    "backward_nan",
    "build_batch",
    "d_ff",
    "d_model",
    "document_ids",
    "embed",
    "first_fit",
    "head_dim",
    "lengths",
    "merge_heads",
    "n_heads",
    "pack_rows",
    "project",
    "quiet_torch_notes",
    "sdpa_attention",
    "split_heads",
    "vocab_size",
]

vocab_size, d_model, n_heads, d_ff = 50, 32, 4, 64
PAD = 0  # token id 0 is the pad
lengths = torch.tensor([6, 4, 2, 5])
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}  # float32 rounding, on any CPU
head_dim = d_model // n_heads

# Drawn by build_batch() from the global random generator.
sequences: list[torch.Tensor] = []
tokens: torch.Tensor
token_embedding: nn.Embedding
position_embedding: nn.Embedding
encoder_layer: nn.TransformerEncoderLayer
encoder: nn.TransformerEncoder
attention: nn.MultiheadAttention
x: torch.Tensor


def build_batch() -> dict[str, object]:
    """Draw chapter 9's batch, embeddings and encoder from the global random generator, in chapter 9's order,
    and return them by name (with the batch's shape and padding mask), for a page's namespace."""
    global sequences, tokens, token_embedding, position_embedding, encoder_layer, encoder, attention, x
    sequences = [torch.randint(1, vocab_size, (n,)) for n in lengths.tolist()]
    tokens = pad_sequence(sequences, batch_first=True, padding_value=PAD)
    batch_size, max_length = tokens.shape
    is_pad = torch.arange(max_length) >= lengths[:, None]  # (B, T), True = pad
    token_embedding = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
    position_embedding = nn.Embedding(64, d_model)  # learned, positions 0..63
    encoder_layer = nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(encoder_layer, num_layers=2).eval()
    x = embed(tokens, torch.arange(max_length).expand(batch_size, -1))
    attention = encoder.layers[0].self_attn  # an nn.MultiheadAttention
    return {
        "sequences": sequences,
        "tokens": tokens,
        "batch_size": batch_size,
        "max_length": max_length,
        "is_pad": is_pad,
        "token_embedding": token_embedding,
        "position_embedding": position_embedding,
        "encoder_layer": encoder_layer,
        "encoder": encoder,
        "x": x,
        "attention": attention,
    }


def quiet_torch_notes() -> None:
    """Silence what torch 2.13 prints about itself, not about the reader's code, on chapter 9's and deep dive 16's
    cells: a "prototype" warning when its own CPU code builds an older kind of nested tensor, the log lines that
    list why each SDPA kernel refused jagged inputs, and a log line for tracing tools from
    nested_tensor_from_jagged. Global, like a warnings filter in a notebook's first cell."""
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")
    logging.getLogger("torch.nested._internal.sdpa").setLevel(logging.ERROR)
    logging.getLogger("torch.fx._symbolic_trace").setLevel(logging.ERROR)


def document_ids(doc_lengths: list[int]) -> torch.Tensor:
    """The index of its document for every token of documents packed one after another."""
    doc_lengths = torch.tensor(doc_lengths)
    return torch.arange(len(doc_lengths)).repeat_interleave(doc_lengths)


# Chapter 9's teaching code, as its visible cells define it.


def embed(tokens, positions):
    """Encoder input: token + position vectors; no gradient reaches them."""
    with torch.no_grad():
        return token_embedding(tokens) + position_embedding(positions)


def split_heads(t):
    """(B, T, E) -> (B, heads, T, head_dim), the layout SDPA expects."""
    return t.unflatten(-1, (n_heads, head_dim)).transpose(1, 2)


def merge_heads(t):
    """(B, heads, T, head_dim) -> (B, T, E)."""
    return t.transpose(1, 2).flatten(-2)


def project(t):
    """Queries, keys and values of `attention`, heads split."""
    weights = attention.in_proj_weight.chunk(3)
    biases = attention.in_proj_bias.chunk(3)
    return [split_heads(F.linear(t, w, b)) for w, b in zip(weights, biases)]


def sdpa_attention(x, attn_mask):
    """The same attention as `attention`, computed with SDPA."""
    out = F.scaled_dot_product_attention(*project(x), attn_mask=attn_mask)
    return attention.out_proj(merge_heads(out))


def backward_nan(x, key_padding_mask, rows, **kwargs):
    """torch.where loss, backward: (loss NaN?, any gradient NaN?)"""
    attention.zero_grad()
    out, _ = attention(x, x, x, key_padding_mask=key_padding_mask, **kwargs)
    loss = torch.where(rows[..., None], out, 0.0).sum()
    loss.backward()
    grads = [p.grad.isnan().any() for p in attention.parameters()]
    return bool(loss.isnan()), bool(any(grads))


def first_fit(lengths, capacity):
    """Put each document into the first row that has room for it."""
    rows, room = [], []
    for i, n in enumerate(lengths):
        for r in range(len(rows)):
            if n <= room[r]:
                rows[r].append(i)
                room[r] -= n
                break
        else:
            rows.append([i])
            room.append(capacity - n)
    return rows


def pack_rows(rows, lengths, capacity):
    """Document ids (-1 = tail padding) and per-document position ids."""
    doc_ids = torch.full((len(rows), capacity), -1)
    positions = torch.zeros(len(rows), capacity, dtype=torch.long)
    for r, members in enumerate(rows):
        row_lengths = torch.tensor([lengths[i] for i in members])
        offsets = F.pad(row_lengths.cumsum(0), (1, 0))
        used = int(offsets[-1])
        in_row = torch.arange(len(members)).repeat_interleave(row_lengths)
        doc_ids[r, :used] = torch.tensor(members)[in_row]
        positions[r, :used] = torch.arange(used) - offsets[in_row]
        positions[r, used:] = torch.arange(capacity - used)
    return doc_ids, positions
