"""Where a recipe epoch's time goes against the ideal's: ``python -m benchmarks.gap`` (``make bench-gap``).

The recipe comparison (``recipe.measure_recipe``) gives one number, recipe/ideal. This module takes that
number apart on the same data, the same model and the same process settings, and writes
``benchmarks/results/gap.json``, from which the performance page states where the time goes:

* **stages**: every training step of both epochs cut into collate, embedding, RNN forward, head and loss,
  their backward passes, and the Adam step (the autograd graph is split at the embedding's and the RNN's
  outputs, the same arithmetic), recipe and ideal batches alternating one by one;
* **causes**, each one a variant of the recipe timed against the ideal in the same interleaved rounds:
  a second, identical ideal (what the machine alone makes two equal epochs differ by), the RNN run in
  pieces of 64 steps or in one call, the same batches run shortest first (the shapes then change
  slowly), and every batch padded up to a multiple of 8 steps (fewer distinct shapes, more steps);
* **warm and cold batches**: every batch of both epochs trained twice in a row, each step timed: the
  first right after a batch of the other epoch (for a recipe batch, one of the ideal's length: *cold*,
  another shape, as most batches of a recipe epoch follow one), the second right after itself, the same
  tokens (*warm*, as in the ideal's epoch of one shape). The warm recipe over the warm ideal is what
  these sequences cost at this batch size when every batch runs at its own shape's speed (the *length
  floor*, inherent to the data's lengths); cold over warm is what changing shapes costs the recipe;
* **oneDNN primitives**: how many oneDNN primitives a warm recipe epoch creates (``ONEDNN_VERBOSE``),
  measured in a child process, since the variable is read when oneDNN starts.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import torch
from torch import nn

from . import cli, data, recipe, timing
from .results import GAP_FILE, GAP_VARIANTS, RESULTS_DIR, STAGES


@dataclasses.dataclass
class RoundedEpoch(recipe.Epoch):
    """The recipe's batches, each padded further to a multiple of ``multiple`` steps (exact: the state
    is still read at ``lengths - 1``)."""

    multiple: int = 8

    def collate(self, batch: torch.Tensor, device: str):
        tokens, lengths, labels = super().collate(batch, device)
        extra = -tokens.shape[1] % self.multiple
        return nn.functional.pad(tokens, (0, extra), value=recipe.PAD), lengths, labels


def variant_epoch(name: str, epochs: dict[str, recipe.Epoch], max_steps: int | None):
    """(epoch, max_steps) of one cause's variant."""
    base = epochs["recipe"]
    if name == "recipe":
        return base, max_steps
    if name in ("ideal", "ideal_again"):
        return epochs["ideal"], max_steps
    if name == "pieces_64":
        return base, 64
    if name == "one_call":
        return base, None
    if name == "shortest_first":
        steps = {id(batch): int(base.lengths[batch].max()) for batch in base.batches}
        return dataclasses.replace(base, batches=sorted(base.batches, key=lambda b: steps[id(b)])), max_steps
    if name == "multiple_of_8":
        fields = {field.name: getattr(base, field.name) for field in dataclasses.fields(base)}
        return RoundedEpoch(**fields, multiple=8), max_steps
    raise ValueError(f"unknown variant {name!r}")


def measure_causes(spec: recipe.RecipeSpec, epochs, cell: str, rounds: int, slices: int) -> dict:
    """Each variant's epoch time over the ideal's: median, lowest and highest over interleaved rounds."""
    fns = {}
    for name in ("ideal", *GAP_VARIANTS):
        epoch, max_steps = variant_epoch(name, epochs, spec.max_steps)
        model, optimizer = recipe.fresh_model(spec, cell, "cpu")
        model.max_steps = max_steps
        parts = recipe.epoch_slices(epoch, slices)
        fns[name] = [partial(recipe.train_epoch, model, optimizer, part, "cpu") for part in parts]
    times = timing.interleaved_rounds(fns, rounds, warmup=1)
    ratios = timing.round_ratios(times, "ideal")
    out = {}
    for name in GAP_VARIANTS:
        ratio, low, high = timing.spread(ratios[name])
        out[name] = {"ratio": ratio, "ratio_lo": low, "ratio_hi": high, "median_s": timing.median(times[name])}
    out["ideal"] = {"median_s": timing.median(times["ideal"])}
    return out


def timed_step(model, optimizer, epoch: recipe.Epoch, batch: torch.Tensor) -> list[float]:
    """One training step, the seconds of each of ``STAGES``."""
    clock = [time.perf_counter()]
    tokens, lengths, labels = epoch.collate(batch, "cpu")
    clock.append(time.perf_counter())
    optimizer.zero_grad(set_to_none=True)
    embedded = model.embedding(tokens)
    clock.append(time.perf_counter())
    rnn_input = embedded.detach().requires_grad_()
    output = model.run_rnn(rnn_input)
    clock.append(time.perf_counter())
    head_input = output.detach().requires_grad_()
    last = head_input[torch.arange(len(lengths)), lengths - 1]
    loss = nn.functional.cross_entropy(model.head(last), labels)
    clock.append(time.perf_counter())
    loss.backward()
    clock.append(time.perf_counter())
    output.backward(head_input.grad)
    clock.append(time.perf_counter())
    embedded.backward(rnn_input.grad)
    clock.append(time.perf_counter())
    optimizer.step()
    clock.append(time.perf_counter())
    return [end - start for start, end in itertools.pairwise(clock)]


def measure_stages(spec: recipe.RecipeSpec, epochs, cell: str, rounds: int) -> dict:
    """Seconds per stage of a recipe epoch and an ideal epoch, their batches alternating one by one."""
    names = ("recipe", "ideal")
    trainers = {name: recipe.fresh_model(spec, cell, "cpu") for name in names}
    totals = {name: [[0.0] * len(STAGES) for _ in range(rounds)] for name in names}
    pairs = list(zip(epochs["recipe"].batches, epochs["ideal"].batches, strict=True))
    for round_index in range(-1, rounds):  # round -1 warms up
        for index, pair in enumerate(pairs):
            order = names if (index + round_index) % 2 == 0 else names[::-1]
            for name in order:
                seconds = timed_step(*trainers[name], epochs[name], pair[names.index(name)])
                if round_index >= 0:
                    totals[name][round_index] = [a + b for a, b in zip(totals[name][round_index], seconds)]
    return {
        name: {stage: statistics.median(t[k] for t in totals[name]) for k, stage in enumerate(STAGES)} for name in names
    }


#: Batch lengths (longest sequence, in steps) grouped for the cost per step of warm and cold batches.
LENGTH_GROUPS = ((1, 16), (17, 32), (33, 64), (65, 128), (129, None))


def measure_warm_and_cold(spec: recipe.RecipeSpec, epochs, cell: str, rounds: int) -> dict:
    """Seconds per epoch of every batch trained right after a batch of the other epoch (*cold*: for a recipe
    batch, one of the ideal's length) and trained again right after itself (*warm*, as every batch of the
    ideal's epoch is).

    Batch i of the recipe runs twice, then batch i of the ideal twice, each step timed, for every i; each
    batch's time is its median over the rounds. Summed warm recipe steps over summed warm ideal steps is what
    these sequences cost at this batch size when every batch runs at the speed of its own shape (the *length
    floor*); cold over warm recipe steps is what changing the shape from batch to batch costs. ``by_length``
    gives both per group of batch lengths, with the RNN steps the group runs.
    """
    names = ("recipe", "ideal")
    trainers = {name: recipe.fresh_model(spec, cell, "cpu") for name in names}
    pairs = list(zip(epochs["recipe"].batches, epochs["ideal"].batches, strict=True))
    times = {(name, state): [[] for _ in pairs] for name in names for state in ("cold", "warm")}
    for round_index in range(-1, rounds):  # round -1 warms up
        for index, pair in enumerate(pairs):
            for name, batch in zip(names, pair, strict=True):
                step = partial(
                    recipe.train_epoch, *trainers[name], dataclasses.replace(epochs[name], batches=[batch]), "cpu"
                )
                cold, warm = timing.time_call(step), timing.time_call(step)
                if round_index >= 0:
                    times[(name, "cold")][index].append(cold)
                    times[(name, "warm")][index].append(warm)
    each = {key: [statistics.median(values) for values in series] for key, series in times.items()}
    seconds = {f"{name}_{state}": sum(each[(name, state)]) for name, state in times}
    steps = {name: [int(epochs[name].lengths[batch].max()) for batch in epochs[name].batches] for name in names}
    by_length = []
    for name in names:
        groups = LENGTH_GROUPS if name == "recipe" else ((min(steps[name]), max(steps[name])),)
        for low, high in groups:
            chosen = [i for i, n in enumerate(steps[name]) if n >= low and (high is None or n <= high)]
            if chosen:
                by_length.append(
                    {
                        "epoch": name,
                        "steps": [low, max(steps[name][i] for i in chosen) if high is None else high],
                        "batches": len(chosen),
                        "rnn_steps": sum(steps[name][i] for i in chosen),
                        "warm_s": sum(each[(name, "warm")][i] for i in chosen),
                        "cold_s": sum(each[(name, "cold")][i] for i in chosen),
                    }
                )
    return {
        **seconds,
        "length_floor": seconds["recipe_warm"] / seconds["ideal_warm"],
        "shape_change": seconds["recipe_cold"] / seconds["recipe_warm"],
        "by_length": by_length,
    }


PRIMITIVE_PROBE = """
import json, sys, torch
sys.path.insert(0, {root!r})
from benchmarks import recipe
torch.set_num_threads(1)
spec = recipe.RecipeSpec(**json.loads({spec!r}))
epochs = recipe.build_epochs(recipe.recipe_lengths(spec), spec.batch_size, spec.vocab_size, spec.num_classes)
model, optimizer = recipe.fresh_model(spec, {cell!r}, "cpu")
recipe.train_epoch(model, optimizer, epochs["recipe"], "cpu")
print("=== warm", flush=True)
recipe.train_epoch(model, optimizer, epochs["recipe"], "cpu")
"""


def count_primitives(spec: recipe.RecipeSpec, cell: str) -> dict[str, int]:
    """oneDNN primitive creations (cache misses and hits) and RNN executions in a warm recipe epoch."""
    env = dict(os.environ, ONEDNN_VERBOSE="all")
    root = str(Path(__file__).resolve().parent.parent)
    code = PRIMITIVE_PROBE.format(root=root, spec=json.dumps(dataclasses.asdict(spec)), cell=cell)
    lines = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    warm = lines.split("=== warm", 1)[1].splitlines()
    return {
        "created": sum(",create:cache_miss," in line for line in warm),
        "found_in_cache": sum(",create:cache_hit," in line for line in warm),
        "rnn_executions": sum(",exec," in line and ",rnn," in line for line in warm),
    }


def measure_gap(spec: recipe.RecipeSpec, rounds: int, slices: int, progress=print) -> dict:
    """Stages, causes, warm and cold batches and oneDNN's primitives, per cell of ``spec``."""
    lengths = recipe.recipe_lengths(spec)
    epochs = recipe.build_epochs(lengths, spec.batch_size, spec.vocab_size, spec.num_classes)
    out = {
        "epochs": {
            name: {
                "rnn_steps": data.sequential_steps(epochs[name].lengths, epochs[name].batches),
                "batch_widths": sorted({len(batch) for batch in epochs[name].batches}),
            }
            for name in ("recipe", "ideal")
        }
    }
    for cell in spec.cells:
        progress(f"{cell}: stages")
        stages = measure_stages(spec, epochs, cell, rounds)
        progress(f"{cell}: causes")
        causes = measure_causes(spec, epochs, cell, rounds, slices)
        progress(f"{cell}: every batch warm and cold")
        warm_and_cold = measure_warm_and_cold(spec, epochs, cell, rounds)
        progress(f"{cell}: oneDNN primitives")
        out.setdefault("cells", {})[cell] = {
            "stages": stages,
            "causes": causes,
            "warm_and_cold": warm_and_cold,
            "primitives": count_primitives(spec, cell),
        }
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.gap",
        description=(
            "Where a recipe epoch's time goes against the ideal's: stage by stage, every batch warm and cold,"
            " variants of the recipe, and oneDNN's primitives. Writes gap.json for the performance page."
        ),
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="timed rounds of every measurement (default: %(default)s)"
    )
    parser.add_argument(
        "--slices",
        type=int,
        default=recipe.QUICK.slices,
        help="slices of each epoch in the rounds of the causes (default: the recipe comparison's, %(default)s)",
    )
    parser.add_argument(
        "--out-dir", type=Path, default=RESULTS_DIR, help=f"where {GAP_FILE} goes (default: benchmarks/results)"
    )
    args = parser.parse_args(argv)
    settings = cli.process_settings(threads=1)
    spec = recipe.QUICK
    load_start, started = timing.load_1min(), time.perf_counter()
    found = measure_gap(spec, args.rounds, args.slices, progress=lambda text: print(text, flush=True))
    machine = cli.machine_info("cpu", 1) | settings
    machine["load_1min_start"], machine["load_1min_end"] = round(load_start, 2), round(timing.load_1min(), 2)
    result = {
        "machine": machine,
        "date": datetime.date.today().isoformat(),
        "rounds": args.rounds,
        "slices": args.slices,
        "wall_s": round(time.perf_counter() - started, 1),
        **found,
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / GAP_FILE
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    for cell, measured in found["cells"].items():
        causes = ", ".join(f"{name} {v['ratio']:.3f}" for name, v in measured["causes"].items() if "ratio" in v)
        floor = measured["warm_and_cold"]
        floors = f"length floor {floor['length_floor']:.3f}, shape change {floor['shape_change']:.3f}"
        print(f"{cell}: /ideal {causes}; {floors}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
