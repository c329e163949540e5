"""The book's recommended training recipe, its rivals, and the zero-padding ideal.

The model is the one chapter 5 trains: embedding -> unidirectional GRU or LSTM -> the hidden state at
each sequence's last valid step -> linear classifier. It can read a batch two ways:

* ``"gather"``: run the RNN over the padded batch and pick ``output[i, lengths[i] - 1]``. For a
  unidirectional RNN the pads come after the last valid step, so they cannot change it: exact.
* ``"packed"``: pack the batch (``pack_padded_sequence``) and take ``h_n[-1]``: exact, the textbook way.

``check_recipe`` proves the two agree (outputs and gradients) on the very batches that are timed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

from . import data, timing

PAD = 0

#: Strategies of the recipe comparison, in the order the page shows them.
#: naive: random batches, padded, gather (correct, but pays for every pad step);
#: packed: random batches, packed;
#: chunked_packed / chunked: sorted by length within random chunks of a few batches ("sortish"),
#: packed / padded + gather; bucketed_packed: the whole epoch sorted by length, packed;
#: recipe: the whole epoch sorted by length, padded + gather;
#: token_budget: the whole epoch sorted by length, cut into batches of at most a number of padded tokens
#: (variable batch size), padded + gather;
#: ideal: every sequence of the mean length, no pads, padded + gather;
#: ideal_again: the ideal's epoch once more, with its own model: identical work, so its ratio to the ideal
#: shows how far the machine alone moves two equal epochs apart in the same rounds (an A/A control).
RECIPE_STRATEGIES = (
    "naive",
    "packed",
    "chunked_packed",
    "chunked",
    "bucketed_packed",
    "recipe",
    "token_budget",
    "ideal",
    "ideal_again",
)
READS = {
    "naive": "gather",
    "packed": "packed",
    "chunked_packed": "packed",
    "chunked": "gather",
    "bucketed_packed": "packed",
    "recipe": "gather",
    "token_budget": "gather",
    "ideal": "gather",
    "ideal_again": "gather",
}
#: Strategies that read the padded batch with the same batch sizes (a fixed batch size, the same number of
#: batches), in order of the padded tokens they run: each one does strictly more work than the next one
#: whenever its padded token count is higher. ``results.work_violations`` holds timings to this order.
FIXED_BATCH_WORK_ORDER = ("naive", "chunked", "recipe", "ideal")


class SequenceClassifier(nn.Module):
    """Embedding -> unidirectional GRU/LSTM -> state at the last valid step -> linear.

    In "gather" mode a batch longer than ``max_steps`` runs through the RNN in pieces of at most
    ``max_steps`` time steps, each starting from the state the previous piece ended in. That is the
    same computation (autograd still backpropagates through every step). ``benchmarks.gap`` times one
    call per batch against it on the recipe's data, and the performance page says what that showed.
    """

    def __init__(
        self,
        cell: str,
        vocab_size: int,
        embed_size: int,
        hidden_size: int,
        num_classes: int,
        num_layers: int = 1,
        max_steps: int | None = 128,
    ):
        super().__init__()
        rnn_class = {"GRU": nn.GRU, "LSTM": nn.LSTM}[cell]
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.rnn = rnn_class(embed_size, hidden_size, num_layers=num_layers, batch_first=True)
        self.head = nn.Linear(hidden_size, num_classes)
        self.max_steps = max_steps

    def run_rnn(self, embedded: torch.Tensor) -> torch.Tensor:
        """The RNN's output at every step of a padded batch, in pieces of at most max_steps."""
        if self.max_steps is None or embedded.shape[1] <= self.max_steps:
            return self.rnn(embedded)[0]
        outputs, state = [], None
        for piece in embedded.split(self.max_steps, dim=1):
            output, state = self.rnn(piece, state)
            outputs.append(output)
        return torch.cat(outputs, dim=1)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor, read: str = "gather") -> torch.Tensor:
        """tokens: (B, T) padded with PAD; lengths: (B,) CPU int64. Returns logits (B, classes)."""
        embedded = self.embedding(tokens)
        if read == "packed":
            packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
            _, state = self.rnn(packed)
            h_n = state[0] if isinstance(state, tuple) else state
            last = h_n[-1]  # top layer; pack/unpack keeps the original batch order
        elif read == "gather":
            output = self.run_rnn(embedded)
            rows = torch.arange(len(lengths), device=tokens.device)
            last = output[rows, lengths.to(tokens.device) - 1]
        else:
            raise ValueError(f"read must be 'gather' or 'packed', not {read!r}")
        return self.head(last)


@dataclass
class Epoch:
    """One epoch's batches, built once so every timed repeat does the same work."""

    strategy: str
    read: str
    sequences: list[torch.Tensor]  # token ids per sequence (CPU)
    labels: torch.Tensor
    lengths: torch.Tensor
    batches: list[torch.Tensor]
    #: None: the loss is the mean over the batch. A number: the sum over the batch divided by it, so that
    #: every sequence weighs the same in the gradient whatever the size of its batch (token-budget batches).
    loss_divisor: int | None = None

    @property
    def real_tokens(self) -> int:
        return data.real_tokens(self.lengths)

    @property
    def padded_tokens(self) -> int:
        return data.padded_tokens(self.lengths, self.batches)

    def collate(self, batch: torch.Tensor, device: str):
        """Pad one batch (this is part of the timed epoch, as it is in a DataLoader)."""
        tokens = pad_sequence([self.sequences[i] for i in batch.tolist()], batch_first=True, padding_value=PAD)
        return tokens.to(device), self.lengths[batch], self.labels[batch].to(device)


def make_dataset(lengths: torch.Tensor, vocab_size: int, num_classes: int, generator: torch.Generator):
    """Random token ids 1..vocab-1 (0 is PAD); the label is the last real token mod num_classes."""
    sequences = [torch.randint(1, vocab_size, (int(n),), generator=generator) for n in lengths]
    labels = torch.stack([seq[-1] % num_classes for seq in sequences])
    return sequences, labels


def build_epochs(
    lengths: torch.Tensor,
    batch_size: int,
    vocab_size: int,
    num_classes: int,
    seed: int = 0,
    chunk_batches: int = 16,
    max_tokens: int | None = None,
) -> dict[str, Epoch]:
    """The epochs of the comparison. All but the ideal hold the same sequences.

    ``max_tokens`` is the token budget of the ``token_budget`` epoch; by default ``batch_size`` times the
    mean length rounded up, so that its number of batches (optimizer steps) stays close to the others'.
    """
    generator = torch.Generator().manual_seed(seed)
    sequences, labels = make_dataset(lengths, vocab_size, num_classes, generator)
    random = data.random_batches(len(lengths), batch_size, generator)
    chunked = data.bucketed_batches(lengths, batch_size, generator, chunk_batches)
    bucketed = data.bucketed_batches(lengths, batch_size, generator)
    flat = data.ideal_lengths(lengths, batch_size)
    ideal_sequences, ideal_labels = make_dataset(flat, vocab_size, num_classes, generator)
    budget = max_tokens or token_budget(lengths, batch_size)
    by_tokens = data.token_budget_batches(lengths, budget, generator)
    plans = {
        "naive": (sequences, labels, lengths, random),
        "packed": (sequences, labels, lengths, random),
        "chunked_packed": (sequences, labels, lengths, chunked),
        "chunked": (sequences, labels, lengths, chunked),
        "bucketed_packed": (sequences, labels, lengths, bucketed),
        "recipe": (sequences, labels, lengths, bucketed),
        "token_budget": (sequences, labels, lengths, by_tokens),
        "ideal": (
            ideal_sequences,
            ideal_labels,
            flat,
            data.sequential_batches(len(flat), batch_size),
        ),
    }
    plans["ideal_again"] = plans["ideal"]
    epochs = {name: Epoch(name, READS[name], *plan) for name, plan in plans.items()}
    epochs["token_budget"].loss_divisor = batch_size
    return epochs


def token_budget(lengths: torch.Tensor, batch_size: int) -> int:
    """The default token budget: ``batch_size`` sequences of the mean length (rounded up)."""
    return batch_size * -(-data.real_tokens(lengths) // len(lengths))


def train_epoch(model: nn.Module, optimizer: torch.optim.Optimizer, epoch: Epoch, device: str) -> None:
    """One epoch: collate, forward, loss, backward, optimizer step, for every batch."""
    reduction = "mean" if epoch.loss_divisor is None else "sum"
    for batch in epoch.batches:
        tokens, lengths, labels = epoch.collate(batch, device)
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(tokens, lengths, epoch.read), labels, reduction=reduction)
        if epoch.loss_divisor is not None:
            loss = loss / epoch.loss_divisor
        loss.backward()
        optimizer.step()


def check_recipe(
    model: nn.Module,
    epoch: Epoch,
    device: str,
    grad_batches: int = 2,
    max_batches: int | None = None,
) -> dict[str, float]:
    """Assert that reading the padded batch at lengths-1 equals the packed model, on ``epoch``'s batches.

    Compares the logits of every batch (or the first ``max_batches``), and the parameter gradients of
    the first ``grad_batches``.
    Also measures how far the tempting ``output[:, -1]`` is from the truth. Returns the largest
    differences found.
    """
    max_logit_diff = max_grad_diff = last_step_error = 0.0
    with torch.no_grad():
        for batch in epoch.batches[:max_batches]:
            tokens, lengths, _ = epoch.collate(batch, device)
            gathered = model(tokens, lengths, "gather")
            packed = model(tokens, lengths, "packed")
            torch.testing.assert_close(gathered, packed, rtol=1e-4, atol=1e-5)
            max_logit_diff = max(max_logit_diff, (gathered - packed).abs().max().item())
            output, _ = model.rnn(model.embedding(tokens))
            wrong = model.head(output[:, -1])
            last_step_error = max(last_step_error, (wrong - packed).abs().max().item())
    for batch in epoch.batches[:grad_batches]:
        tokens, lengths, labels = epoch.collate(batch, device)
        grads = {}
        for read in ("gather", "packed"):
            model.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(tokens, lengths, read), labels).backward()
            grads[read] = [p.grad.clone() for p in model.parameters()]
        for g_gather, g_packed in zip(grads["gather"], grads["packed"], strict=True):
            torch.testing.assert_close(g_gather, g_packed, rtol=1e-4, atol=1e-5)
            max_grad_diff = max(max_grad_diff, (g_gather - g_packed).abs().max().item())
    model.zero_grad(set_to_none=True)
    return {
        "max_logit_diff": max_logit_diff,
        "max_grad_diff": max_grad_diff,
        "last_step_logit_error": last_step_error,
    }


@dataclass(frozen=True)
class RecipeSpec:
    """Sizes of the recipe comparison and how long to time it."""

    n_sequences: int
    batch_size: int = 32
    vocab_size: int = 1000
    embed_size: int = 32
    hidden_size: int = 64
    num_classes: int = 4
    dist: str = "lognormal"
    cells: tuple[str, ...] = ("GRU", "LSTM")
    # Every strategy is timed once per round, in interleaved rounds, after ``warmup`` untimed rounds.
    rounds: int = 5
    warmup: int = 1
    # Each epoch is timed in this many slices of its batches, interleaved with the other strategies' slices
    # (64 slices of 4 batches: the machine's speed moves by several percent within a second; issue #40).
    slices: int = 64
    chunk_batches: int = 16  # chunk size of the "chunked" strategies, in batches
    max_steps: int | None = 128  # longest RNN call of the "gather" models (None: no limit)
    max_tokens: int | None = None  # token budget of "token_budget" (None: batch_size x mean length)
    strategies: tuple[str, ...] = RECIPE_STRATEGIES  # recipe and ideal are required

    def measurements(self) -> int:
        """Progress steps: one per cell and timed round."""
        return len(self.cells) * self.rounds


#: The full run's rivals. Packed epochs are left out: on a CPU they took 2.6-13x the ideal (the grid
#: measures packing, bucketed or not, configuration by configuration), and timing them in every round
#: would double the run.
FULL = RecipeSpec(n_sequences=8192, strategies=("naive", "chunked", "recipe", "token_budget", "ideal", "ideal_again"))
#: The quick run: the same data and the same rounds, fewer strategies (the headline's two and the A/A control).
QUICK = RecipeSpec(n_sequences=8192, strategies=("recipe", "ideal", "ideal_again"))


def recipe_lengths(spec: RecipeSpec, seed: int = 0) -> torch.Tensor:
    return data.sample_lengths(spec.dist, spec.n_sequences, torch.Generator().manual_seed(seed))


def fresh_model(spec: RecipeSpec, cell: str, device: str):
    """The same initial weights for every strategy, and a fresh Adam."""
    torch.manual_seed(0)
    model = SequenceClassifier(
        cell,
        spec.vocab_size,
        spec.embed_size,
        spec.hidden_size,
        spec.num_classes,
        max_steps=spec.max_steps,
    ).to(device)
    return model, torch.optim.Adam(model.parameters(), lr=1e-3)


def epoch_slices(epoch: Epoch, slices: int) -> list[Epoch]:
    """The epoch's batches dealt into ``slices`` parts (every ``slices``-th batch): together, one epoch."""
    return [dataclasses.replace(epoch, batches=epoch.batches[index::slices]) for index in range(slices)]


def measure_recipe(spec: RecipeSpec, device: str, threads: int, progress):
    """Check the recipe, then time one training epoch per strategy in interleaved rounds.

    Returns (rows, checks): one CSV row per (cell, strategy), and the correctness checks per cell.
    Each round trains one epoch of every strategy (each with its own model and optimizer, in the same
    process state: threads, denormal flushing and allocator settings are process-wide), in
    ``spec.slices`` slices interleaved across strategies; the ratio to the ideal is taken within each
    round, and the row stores its median, minimum and maximum.
    """
    lengths = recipe_lengths(spec)
    epochs = build_epochs(
        lengths,
        spec.batch_size,
        spec.vocab_size,
        spec.num_classes,
        chunk_batches=spec.chunk_batches,
        max_tokens=spec.max_tokens,
    )
    rows, checks = [], {}
    for cell in spec.cells:
        model, _ = fresh_model(spec, cell, device)
        checks[cell] = {
            "recipe": check_recipe(model, epochs["recipe"], device),
            "naive": check_recipe(model, epochs["naive"], device, max_batches=16),
            "token_budget": check_recipe(model, epochs["token_budget"], device, grad_batches=1, max_batches=16),
        }
        trainers = {name: fresh_model(spec, cell, device) for name in spec.strategies}
        slices = max(1, min(spec.slices, *(len(epochs[name].batches) for name in spec.strategies)))
        fns = {
            name: [partial(train_epoch, *trainers[name], part, device) for part in epoch_slices(epochs[name], slices)]
            for name in spec.strategies
        }

        def advance(index: int, cell: str = cell) -> None:
            progress.set_postfix_str(f"recipe {cell} round {index + 1}/{spec.rounds}")
            progress.update(1)

        load = timing.load_1min()
        times = timing.interleaved_rounds(fns, spec.rounds, spec.warmup, device, on_round=advance)
        ratios = timing.round_ratios(times, "ideal")
        for name in spec.strategies:
            epoch = epochs[name]
            ratio, low, high = timing.spread(ratios[name])
            rows.append(
                {
                    "suite": "recipe",
                    "cell": cell,
                    "bidirectional": False,
                    "num_layers": 1,
                    "batch_size": spec.batch_size,
                    "hidden_size": spec.hidden_size,
                    "input_size": spec.embed_size,
                    "dist": spec.dist if name != "ideal" else "mean_length",
                    "strategy": name,
                    "pass": "train_epoch",
                    "n_sequences": len(epoch.lengths),
                    "n_batches": len(epoch.batches),
                    "real_tokens": epoch.real_tokens,
                    "padded_tokens": epoch.padded_tokens,
                    "rnn_steps": data.sequential_steps(epoch.lengths, epoch.batches),
                    "median_s": timing.median(times[name]),
                    "iqr_s": timing.iqr(times[name]),
                    "ratio": ratio,
                    "ratio_lo": low,
                    "ratio_hi": high,
                    "reference": "ideal",
                    "runs": spec.rounds,
                    "load_1min": load,
                }
            )
    return rows, checks
