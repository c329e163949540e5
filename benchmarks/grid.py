"""The measurement grid: padded vs packed vs bucketed, for one RNN configuration at a time.

One measurement times one *epoch slice*: ``n_sequences`` sequences cut into batches by a strategy, run
through the RNN (forward, or forward + backward). All strategies of one slice see the same sequences,
so their times compare directly and ``real_tokens / padded_tokens`` is the ideal time ratio. The
strategies of one configuration are timed in interleaved rounds (``timing.interleaved_rounds``), and
each one's ratio to padded random batches is taken within each round.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from . import data, timing

#: padded: random batches, padded to the longest sequence; packed: random batches, packed
#: (pack, RNN, unpack); bucketed / bucketed_packed: the same two on length-bucketed batches.
GRID_STRATEGIES = ("padded", "packed", "bucketed", "bucketed_packed")
PASSES = ("fwd", "fwdbwd")
INPUT_SIZE = 32


@dataclass(frozen=True)
class Point:
    """One measurement of the grid."""

    cell: str
    bidirectional: bool
    num_layers: int
    batch_size: int
    hidden_size: int
    dist: str
    strategy: str
    pass_: str

    @property
    def model_label(self) -> str:
        """e.g. 'LSTM', 'GRU-bi', 'LSTM-2L', 'GRU-bi-2L'."""
        return (
            self.cell + ("-bi" if self.bidirectional else "") + (f"-{self.num_layers}L" if self.num_layers > 1 else "")
        )


@dataclass(frozen=True)
class GridSpec:
    """Which points to measure and how long to time each."""

    n_sequences: int  # sequences per epoch slice
    rounds: int  # timed rounds per configuration (each strategy once per round)
    warmup: int  # untimed rounds first
    structure_models: tuple[tuple[str, bool, int], ...]  # (cell, bidirectional, layers) at base size
    base_size: tuple[int, int]  # (batch, hidden) for the structure part
    sizes: tuple[tuple[int, int], ...]  # extra (batch, hidden) for unidirectional 1-layer models
    size_dists: tuple[str, ...]

    def points(self) -> list[Point]:
        points = []
        batch, hidden = self.base_size
        for (cell, bi, layers), dist in itertools.product(self.structure_models, data.DISTRIBUTIONS):
            points += _points(cell, bi, layers, batch, hidden, dist)
        cells = sorted({cell for cell, _, _ in self.structure_models})
        for (batch, hidden), cell, dist in itertools.product(self.sizes, cells, self.size_dists):
            points += _points(cell, False, 1, batch, hidden, dist)
        return points

    def configurations(self) -> list[tuple[Point, ...]]:
        """The points grouped by configuration: the strategies timed together in interleaved rounds."""
        groups: dict[tuple, list[Point]] = {}
        for point in self.points():
            key = (point.cell, point.bidirectional, point.num_layers, point.batch_size, point.hidden_size)
            groups.setdefault(key + (point.dist, point.pass_), []).append(point)
        return [tuple(group) for group in groups.values()]


def _points(cell, bi, layers, batch, hidden, dist) -> list[Point]:
    # Equal lengths: bucketing cannot change any batch, so only padded and packed are measured.
    strategies = GRID_STRATEGIES[:2] if dist == "equal" else GRID_STRATEGIES
    return [
        Point(cell, bi, layers, batch, hidden, dist, strategy, pass_) for pass_ in PASSES for strategy in strategies
    ]


_ALL_MODELS = tuple(itertools.product(("LSTM", "GRU"), (False, True), (1, 2)))

# Two timed rounds after a warm-up: the grid's effects are large (packing's 0.3-8x), and its 64
# configurations are most of a full run's time. The recipe's close ratios get five rounds.
FULL = GridSpec(
    n_sequences=256,
    rounds=2,
    warmup=1,
    structure_models=_ALL_MODELS,
    base_size=(32, 64),
    sizes=((8, 64), (128, 64), (32, 256)),
    size_dists=("lognormal",),  # the long tail only: the sizes are a fifth of a full run's time
)
QUICK = GridSpec(
    n_sequences=128,
    rounds=2,
    warmup=1,
    structure_models=(("LSTM", False, 1), ("GRU", False, 1), ("LSTM", True, 2)),
    base_size=(32, 64),
    sizes=((8, 64),),
    size_dists=("lognormal",),
)


@dataclass
class Slice:
    """The sequences of one (distribution, batch size) and their batches under each strategy."""

    lengths: torch.Tensor
    batches: dict[str, list[torch.Tensor]]  # "random" / "bucketed" -> index batches
    inputs: dict[str, list[tuple[torch.Tensor, torch.Tensor]]]  # -> [(padded x, lengths)] per batch


def make_slice(dist: str, batch_size: int, n_sequences: int, device: str, seed: int = 0) -> Slice:
    """Draw the sequences of one slice; the seed depends on the distribution and batch size only."""
    generator = torch.Generator().manual_seed(seed + 1000 * data.DISTRIBUTIONS.index(dist) + batch_size)
    lengths = data.sample_lengths(dist, n_sequences, generator)
    features = torch.randn(int(lengths.sum()), INPUT_SIZE, generator=generator)
    sequences = list(features.split(lengths.tolist()))
    batches = {
        "random": data.random_batches(n_sequences, batch_size, generator),
        "bucketed": data.bucketed_batches(lengths, batch_size, generator),
    }
    inputs = {
        name: [
            (
                nn.utils.rnn.pad_sequence([sequences[i] for i in batch.tolist()], batch_first=True).to(device),
                lengths[batch],
            )
            for batch in index_batches
        ]
        for name, index_batches in batches.items()
    }
    return Slice(lengths, batches, inputs)


def epoch_function(rnn: nn.Module, inputs, packed: bool, backward: bool) -> Callable[[], None]:
    """The statement to time: run ``rnn`` over every batch of the slice."""

    def run_padded(x, lengths):
        output, _ = rnn(x)
        return output

    def run_packed(x, lengths):
        packed_input = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        output, _ = rnn(packed_input)
        return pad_packed_sequence(output, batch_first=True)[0]

    run = run_packed if packed else run_padded

    def forward_only():
        with torch.no_grad():
            for x, lengths in inputs:
                run(x, lengths)

    def forward_backward():
        for x, lengths in inputs:
            rnn.zero_grad(set_to_none=True)
            run(x, lengths).sum().backward()

    return forward_backward if backward else forward_only


def measure_grid(spec: GridSpec, device: str, threads: int, progress) -> Iterator[dict]:
    """Yield one CSV row per grid point; ``progress`` advances once per configuration.

    The strategies of a configuration share one RNN (the same weights; nothing trains) and are timed in
    interleaved rounds; each row's ratio is its time over the padded time of the same round.
    """
    slices: dict[tuple[str, int], Slice] = {}
    for points in spec.configurations():
        first = points[0]
        key = (first.dist, first.batch_size)
        if key not in slices:
            slices[key] = make_slice(first.dist, first.batch_size, spec.n_sequences, device)
        piece = slices[key]
        torch.manual_seed(0)
        rnn_class = {"GRU": nn.GRU, "LSTM": nn.LSTM}[first.cell]
        rnn = rnn_class(
            INPUT_SIZE,
            first.hidden_size,
            num_layers=first.num_layers,
            batch_first=True,
            bidirectional=first.bidirectional,
        ).to(device)
        fns = {
            point.strategy: epoch_function(
                rnn,
                piece.inputs[_batching(point)],
                packed=point.strategy.endswith("packed"),
                backward=point.pass_ == "fwdbwd",
            )
            for point in points
        }
        progress.set_postfix_str(
            f"{first.model_label} B{first.batch_size} H{first.hidden_size} {first.dist} {first.pass_}"
        )
        load = timing.load_1min()
        with torch.enable_grad():
            times = timing.interleaved_rounds(fns, spec.rounds, spec.warmup, device)
        ratios = timing.round_ratios(times, "padded")
        for point in points:
            batches = piece.batches[_batching(point)]
            ratio, low, high = timing.spread(ratios[point.strategy])
            yield {
                "suite": "grid",
                "cell": point.cell,
                "bidirectional": point.bidirectional,
                "num_layers": point.num_layers,
                "batch_size": point.batch_size,
                "hidden_size": point.hidden_size,
                "input_size": INPUT_SIZE,
                "dist": point.dist,
                "strategy": point.strategy,
                "pass": point.pass_,
                "n_sequences": spec.n_sequences,
                "n_batches": len(batches),
                "real_tokens": data.real_tokens(piece.lengths),
                "padded_tokens": data.padded_tokens(piece.lengths, batches),
                "rnn_steps": data.sequential_steps(piece.lengths, batches),
                "median_s": timing.median(times[point.strategy]),
                "iqr_s": timing.iqr(times[point.strategy]),
                "ratio": ratio,
                "ratio_lo": low,
                "ratio_hi": high,
                "reference": "padded",
                "runs": spec.rounds,
                "load_1min": load,
            }
        progress.update(1)


def _batching(point: Point) -> str:
    return "bucketed" if point.strategy.startswith("bucketed") else "random"
