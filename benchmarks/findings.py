"""What the results say: the numbers every figure and every sentence of the page are read from."""

from __future__ import annotations

import statistics
from operator import itemgetter

from padpack.batching import plan_batches

from . import grid
from .recipe import RECIPE_STRATEGIES, RecipeSpec, recipe_lengths
from .results import config_key, headline, recipe_ratios, recipe_rows, rounds_by_suite

# Okabe-Ito colours: distinguishable with the common forms of colour blindness.
COLOURS = {
    "naive": "#D55E00",
    "padded": "#D55E00",
    "packed": "#E69F00",
    "chunked_packed": "#F0E442",
    "chunked": "#56B4E9",
    "bucketed_packed": "#CC79A7",
    "recipe": "#009E73",
    "token_budget": "#888888",  # grey: 3.5:1 on white, and the black whiskers stay visible on it
    "bucketed": "#009E73",
    "ideal": "#0072B2",
    "ideal_again": "#0072B2",
}
LABELS = {
    "naive": "random batches, padded",
    "packed": "random batches, packed",
    "chunked_packed": "sorted in chunks of {chunk} batches, packed",
    "chunked": "sorted in chunks of {chunk} batches, padded",
    "bucketed_packed": "whole epoch sorted, packed",
    "recipe": "whole epoch sorted, padded (recipe)",
    "token_budget": "whole epoch sorted, token budget, padded",
    "ideal": "ideal: mean length, no padding",
    "ideal_again": "ideal, timed again (noise)",
    "padded": "random batches, padded",
    "bucketed": "bucketed, padded",
}
SHORT = {
    "padded": "padded",
    "packed": "packed",
    "bucketed": "bucketed",
    "bucketed_packed": "bucketed + packed",
}
ACTIONS = {
    "padded": "pad and mask",
    "packed": "pack",
    "bucketed": "bucket by length, pad and mask",
    "bucketed_packed": "bucket by length, then pack",
}
PASS_LABELS = {"fwd": "forward", "fwdbwd": "forward + backward"}
DIST_LABELS = {"uniform": "uniform 1-100", "lognormal": "long-tailed", "equal": "equal (50)"}


def label(name: str, f: dict) -> str:
    """The reader's name of a strategy; the chunk size comes from the results' JSON."""
    return LABELS[name].format(chunk=f.get("chunk", "?"))


def relative_to_padded(rows: list[dict]) -> list[dict]:
    """For every non-padded grid row: its time / the padded time of the same configuration.

    ``expected`` is what the time ratio would be if time were proportional to the time steps run:
    real tokens (packed) or padded tokens (bucketed), over the padded tokens of random batches.
    """
    padded = {config_key(r): r for r in rows if r["suite"] == "grid" and r["strategy"] == "padded"}
    out = []
    for row in rows:
        if row["suite"] != "grid" or row["strategy"] == "padded":
            continue
        base = padded[config_key(row)]
        steps = row["real_tokens"] if row["strategy"].endswith("packed") else row["padded_tokens"]
        out.append(
            {
                **row,
                # the median of per-round ratios (or, in files from before the rounds, the ratio of medians)
                "ratio": row["ratio"],
                "expected": steps / base["padded_tokens"],
            }
        )
    return out


def model_label(row: dict) -> str:
    return (
        row["cell"]
        + ("-bi" if row["bidirectional"] else "")
        + (f"-{row['num_layers']}L" if row["num_layers"] > 1 else "")
    )


def select(rows, **conditions):
    return [
        r
        for r in rows
        if all((r[k] in v) if isinstance(v, (tuple, list, set)) else r[k] == v for k, v in conditions.items())
    ]


def med(values) -> float:
    return statistics.median(values)


def fmt(x: float) -> str:
    """Ratios: two decimals below 10, one above, so the page reads evenly."""
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def findings(rows: list[dict], machine: dict) -> dict:
    rel = relative_to_padded(rows)
    base_batch, base_hidden = _base_size(rows)
    structure = [r for r in rel if (r["batch_size"], r["hidden_size"]) == (base_batch, base_hidden)]
    varied = select(rel, dist=("uniform", "lognormal"))
    f = {"rel": rel, "structure": structure, "base_batch": base_batch, "base_hidden": base_hidden}
    for strategy in ("packed", "bucketed", "bucketed_packed"):
        for pass_ in grid.PASSES:
            chosen = select(varied, strategy=strategy, **{"pass": pass_})
            ratios = [r["ratio"] for r in chosen]
            f[(strategy, pass_)] = {
                "median": med(ratios),
                "min": min(ratios),
                "max": max(ratios),
                "n": len(ratios),
                "faster": sum(x < 1 for x in ratios),
                "expected": med(r["expected"] for r in chosen),
            }
    for pass_ in grid.PASSES:
        f[("equal_packed", pass_)] = med(
            r["ratio"] for r in select(rel, strategy="packed", dist="equal", **{"pass": pass_})
        )
    # Scenarios of the decision table, per cell: median time / padded time of each strategy. The rows that may
    # recommend padding without packing cover unidirectional models only: padded outputs of a bidirectional
    # model are wrong, so its timings must not enter their medians and counts.
    cells = sorted({r["cell"] for r in rel}, reverse=True)  # LSTM first
    scenarios = {
        "train_uni": select(varied, bidirectional=False, **{"pass": "fwdbwd"}),
        "infer_long": select(rel, dist="lognormal", bidirectional=False, **{"pass": "fwd"}),
        "train_bi": select(varied, bidirectional=True, **{"pass": "fwdbwd"}),
    }
    # The GRU's inference configurations one by one: how often, and by how much, packing after bucketing won.
    gru_infer = select(scenarios["infer_long"], cell="GRU")
    config_of = itemgetter("bidirectional", "num_layers", "batch_size", "hidden_size")
    f["infer_margins"] = [
        strategy_medians([r for r in gru_infer if config_of(r) == config])
        for config in sorted({config_of(r) for r in gru_infer})
    ]
    f["scenario_rows"] = scenarios
    for name, chosen in scenarios.items():
        f[name] = strategy_medians(chosen)
        f[name + "_by_cell"] = {cell: strategy_medians(select(chosen, cell=cell)) for cell in cells}
    f["cells"] = {
        cell: {
            p: med(r["ratio"] for r in select(varied, strategy="packed", cell=cell, **{"pass": p})) for p in grid.PASSES
        }
        for cell in sorted({r["cell"] for r in varied})
    }
    ratios = recipe_ratios(rows)
    f["recipe"] = ratios
    f["recipe_headline"] = max(r["recipe"] for r in ratios.values())
    f["naive_headline"] = max((r["naive"] for r in ratios.values() if "naive" in r), default=None)
    f["recipe_rows"] = {(r["cell"], r["strategy"]): r for r in rows if r["suite"] == "recipe"}
    f["recipe_by_cell"] = recipe_rows(rows)
    f["headline_row"] = headline(rows)
    f["naive_row"] = headline(rows, "naive")
    f["device"] = machine["device"].upper()
    f["rounds"] = any(r["ratio_lo"] is not None for r in rows)
    f["rounds_by_suite"] = rounds_by_suite(rows)  # suite -> (fewest, most) timed rounds, from the CSV
    references = {"ideal", "ideal_again"}
    f["fastest"] = {cell: min((n for n in r if n not in references), key=r.get) for cell, r in ratios.items()}
    f["chunk"] = machine.get("recipe_spec", {}).get("chunk_batches", "?")
    f["pairs_again"] = pairs_again(machine.get("recipe_spec", {}))
    f["recipe_names"] = [n for n in RECIPE_STRATEGIES if all(n in r for r in ratios.values())]
    return f


def pairs_again(spec: dict) -> dict[str, float]:
    """What the planner measures on the recipe's own lengths: of the pairs of sequences that share a batch in one
    epoch, the share that share one in the next, for chunks of ``chunk_batches`` batches and for the whole epoch
    sorted (ties at random in both)."""
    fields = {k: spec[k] for k in ("n_sequences", "dist", "batch_size", "chunk_batches")}
    lengths = recipe_lengths(RecipeSpec(**fields))
    plan = plan_batches(lengths, batch_size=fields["batch_size"], chunk_batches=fields["chunk_batches"], seed=0)
    return {"chunked": plan["sorted chunks"].pairs_again, "recipe": plan["whole-epoch buckets"].pairs_again}


def strategy_medians(rel: list[dict]) -> dict[str, float]:
    """Median time / padded time of each strategy in ``rel``; padded itself is 1 by definition."""
    out = {"padded": 1.0}
    for strategy in ("packed", "bucketed", "bucketed_packed"):
        chosen = [r["ratio"] for r in rel if r["strategy"] == strategy]
        if chosen:
            out[strategy] = med(chosen)
    return out


def per_config(rel: list[dict], cell: str) -> list[dict[str, tuple[float, float, float]]]:
    """One cell's configurations: strategy -> (ratio, lowest, highest ratio over the rounds) for each.

    Padded random batches are the reference of every ratio: 1 exactly. Results from before the rounds have no
    lowest and highest: the ratio stands for both.
    """
    configs: dict[tuple, dict] = {}
    config_of = itemgetter("bidirectional", "num_layers", "batch_size", "hidden_size", "dist")
    for r in select(rel, cell=cell):
        low = r["ratio"] if r["ratio_lo"] is None else r["ratio_lo"]
        high = r["ratio"] if r["ratio_hi"] is None else r["ratio_hi"]
        configs.setdefault(config_of(r), {"padded": (1.0, 1.0, 1.0)})[r["strategy"]] = (r["ratio"], low, high)
    return list(configs.values())


def comparison(configs: list[dict], a: str, b: str) -> dict[str, int]:
    """How often ``a`` was faster than ``b``: by its median ratio, and beyond the spread (its highest ratio
    below ``b``'s lowest), over the configurations that measured both."""
    both = [c for c in configs if a in c and b in c]
    return {
        "n": len(both),
        "faster": sum(c[a][0] < c[b][0] for c in both),
        "beyond": sum(c[a][2] < c[b][1] for c in both),
    }


def clearly_faster(configs: list[dict], a: str, b: str) -> bool:
    """``a`` beats ``b`` when it was faster in every configuration, and beyond the spread in most of them."""
    won = comparison(configs, a, b)
    return won["n"] > 0 and won["faster"] == won["n"] and 2 * won["beyond"] > won["n"]


def contenders(configs: list[dict], allowed: tuple[str, ...]) -> list[str]:
    """The strategies of ``allowed`` that no other one clearly beats: one is a clear winner, more are not."""
    return [s for s in allowed if not any(clearly_faster(configs, other, s) for other in allowed if other != s)]


def _base_size(rows: list[dict]) -> tuple[int, int]:
    """The (batch, hidden) of the structure part: the size measured with bidirectional models."""
    bi = [r for r in rows if r["suite"] == "grid" and r["bidirectional"]]
    if bi:
        return bi[0]["batch_size"], bi[0]["hidden_size"]
    first = next(r for r in rows if r["suite"] == "grid")
    return first["batch_size"], first["hidden_size"]


def packing_finding(f) -> str:
    """One sentence on packing, read off the medians (no direction is assumed)."""
    fwd, fb = f[("packed", "fwd")]["median"], f[("packed", "fwdbwd")]["median"]
    if fwd < 1 <= fb:
        return f"packing speeds up the forward pass ({fmt(fwd)}x) but slows training ({fmt(fb)}x)"
    if fwd >= 1 and fb >= 1:
        return f"packing is slower than padding, {fmt(fwd)}x in the forward pass and {fmt(fb)}x in training (medians)"
    if fwd < 1 and fb < 1:
        return f"packing saves time: {fmt(fwd)}x forward, {fmt(fb)}x forward + backward (medians)"
    return f"packing slows the forward pass ({fmt(fwd)}x) but speeds up training ({fmt(fb)}x)"
