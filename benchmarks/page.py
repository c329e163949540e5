"""book/performance.md as text, from the committed results only."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from . import grid
from .findings import (
    ACTIONS,
    DIST_LABELS,
    LABELS,
    PASS_LABELS,
    SHORT,
    comparison,
    contenders,
    findings,
    fmt,
    label,
    model_label,
    packing_finding,
    per_config,
)
from .results import (
    GAP_FILE,
    GAP_VARIANTS,
    MAX_SPREAD,
    MIN_ROUNDS,
    QUICK_RUN_TIME,
    RESULTS_DIR,
    STAGES,
    config_key,
    headline,
    load,
    recipe_rows,
    recorded_runs,
    run_warnings,
    with_spread,
)

IMAGES_URL = "images/performance"  # relative to book/performance.md
#: What each suite of the results measured, as the method paragraph names it.
SUITE_NAMES = {
    "recipe": "the recipe against the ideal (training epochs)",
    "grid": "the grid of configurations (the tables by configuration and the decision table's medians)",
}


def rounds_text(f, suite: str) -> str:
    """'5 rounds', or '2 to 5 rounds' when the rows of ``suite`` differ: read from the CSV's ``runs``."""
    low, high = f["rounds_by_suite"][suite]
    return f"{low} round{'s' if high > 1 else ''}" if low == high else f"{low} to {high} rounds"


def few_rounds(f, suite: str) -> str:
    """'2 rounds only' when some row of ``suite`` was timed in fewer than MIN_ROUNDS rounds, else ''.

    The page writes it next to every number of that suite (issue #38)."""
    if not f["rounds"] or suite not in f["rounds_by_suite"]:
        return ""
    return f"{rounds_text(f, suite)} only" if f["rounds_by_suite"][suite][0] < MIN_ROUNDS else ""


def rounds_phrase(f, suite: str) -> str:
    """'5 rounds', or '*2 rounds only* (fewer than 5)'."""
    mark = few_rounds(f, suite)
    return f"*{mark}* (fewer than {MIN_ROUNDS})" if mark else rounds_text(f, suite)


def with_few(text: str, f, suite: str, sep: str = ", ") -> str:
    """``text`` followed by the few-rounds mark of ``suite``, when it has one."""
    mark = few_rounds(f, suite)
    return f"{text}{sep}{mark}" if mark else text


def _few_rounds_meaning(n: int) -> str:
    """What a ratio and 'beyond the spread' mean with only ``n`` rounds."""
    if n == 1:
        return "with one round, each ratio is a single measurement with no spread, and no comparison is beyond it"
    if n == 2:
        return (
            "with two rounds, the median of the per-round ratios is their mean, the brackets hold the two ratios"
            " themselves, and *beyond the spread* means only that both ratios of one strategy lay below both of"
            " the other's"
        )
    return f"with {n} rounds, the brackets hold the lowest and highest of only {n} ratios"


#: The recipe's CPU steps as the page shows them, to copy; tests/test_recipe_code.py runs it.
RECIPE_CODE = """\
import ctypes

import torch
from torch import nn

# 1. Flush denormal floats to zero (x86 CPUs; False where unsupported).
flushing = torch.set_flush_denormal(True)

# 2. glibc (Linux) only: keep freed memory in the process for reuse.
libc = ctypes.CDLL("libc.so.6")
libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: 32 MiB
libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: 1 GiB
libc.mallopt(-2, 64 << 20)  # M_TOP_PAD: 64 MiB


# 3. Run a long padded batch through the RNN in pieces of <= 128 steps.
def run_rnn(rnn: nn.Module, embedded: torch.Tensor, max_steps: int = 128):
    \"\"\"Output at every step of a batch-first padded batch, piece by piece.\"\"\"
    outputs, state = [], None
    for piece in embedded.split(max_steps, dim=1):
        output, state = rnn(piece, state)
        outputs.append(output)
    return torch.cat(outputs, dim=1)


# Checks: pieces give the same gradients as one call, and flushing
# denormals changes no gradient beyond assert_close's tolerance.
def gradients(flush: bool, pieces: bool) -> list[torch.Tensor]:
    torch.set_flush_denormal(flush)
    torch.manual_seed(0)
    rnn = nn.GRU(4, 8, batch_first=True)
    embedded = torch.randn(2, 260, 4, requires_grad=True)  # three pieces
    output = run_rnn(rnn, embedded) if pieces else rnn(embedded)[0]
    inputs = [embedded, *rnn.parameters()]
    return torch.autograd.grad(output[:, -1].sum(), inputs)


reference = gradients(flush=False, pieces=False)
tiny = torch.finfo(torch.float32).tiny  # smallest normal float32
denormal = (reference[0] != 0) & (reference[0].abs() < tiny)
assert denormal.any()  # the vanishing gradient does reach denormals
for flush, pieces in [(False, True), (flushing, True)]:
    for got, expected in zip(gradients(flush, pieces), reference):
        torch.testing.assert_close(got, expected)
torch.set_flush_denormal(flushing)
"""


def render_page(results_dir: Path = RESULTS_DIR) -> str:
    """book/performance.md as text, from the committed results only."""
    loaded = load(results_dir, "cpu")
    if loaded is None:
        raise FileNotFoundError(f"no full CPU results in {results_dir}: run `python -m benchmarks`")
    rows, machine = loaded
    f = findings(rows, machine)
    lines = (
        _intro(f, machine)
        + _recipe_section(f, machine, _one_call_effect(results_dir))
        + _headlines_section(results_dir)
        + _gap_section(results_dir)
        + _decision_table(f)
        + _grid_section(f, rows)
        + _machine_section(machine, rows)
        + _gpu_section(results_dir)
        + _reproduce_section()
    )
    return "\n".join(lines).rstrip() + "\n"


def _intro(f, machine) -> list[str]:
    train = f["train_uni"]
    bucket = f[("bucketed", "fwdbwd")]
    cells = f["cells"]
    chunked = headline(list(f["recipe_rows"].values()), "chunked")
    faster_in = f"faster in {bucket['faster']} of {bucket['n']} configurations"
    packed_by_cell = "; ".join(
        f"{cell} {fmt(v['fwd'])}x forward, {fmt(v['fwdbwd'])}x forward + backward" for cell, v in cells.items()
    )
    return [
        "# Performance: what actually saves time",
        "",
        "This page is generated by `python -m benchmarks.report` from the results committed in",
        "`benchmarks/results/`; do not edit it by hand. Every number below was measured in one run of",
        "`python -m benchmarks` on the machine described at the end of the page, except in the two",
        "sections that name their own runs: the headline on each CPU, and where the recipe's time goes.",
        "",
        *_method(f),
        "Beside each timing stands the **ideal**: real tokens / padded tokens. If time were",
        "proportional to the time steps an RNN runs, skipping every pad step would cost exactly that",
        "fraction of the padded time. A time ratio below 1 means faster than padded random batches.",
        "",
        "**In short**, on this machine:",
        "",
        (
            f"- Length-bucketed batches, padded, the state read at `lengths - 1`, train an epoch in"
            f" {with_spread(chunked, unit='x')} the time of the zero-padding ideal when sorted within random"
            f" chunks of {f['chunk']} batches, as the decision table recommends, and in"
            f" {with_spread(f['headline_row'], unit='x')} with the whole epoch sorted (the recipe timed below:"
            " faster, but each sequence then meets sequences of its own length every epoch: of the pairs that"
            f" share a batch, {f['pairs_again']['recipe']:.2f} share one again in the next epoch, against"
            f" {f['pairs_again']['chunked']:.2f} with chunks, as the planner `plan_batches` measures these lengths);"
            f" random padded batches take {with_spread(f['naive_row'], unit='x')}."
        ),
        (
            f"- Bucketing by length cut forward + backward time to a median {fmt(bucket['median'])}x"
            f" of random batches ({with_few(faster_in, f, 'grid', '; ')})."
        ),
        (
            f"- {packing_finding(f)[0].upper() + packing_finding(f)[1:]}."
            f" Median packed / padded time: {packed_by_cell}{_paren(few_rounds(f, 'grid'))}."
        ),
        (
            "- Training a unidirectional RNN, the fastest strategy was:"
            f" {LABELS[min(train, key=train.get)]}{_paren(few_rounds(f, 'grid'))}."
        ),
        "",
    ]


def _paren(mark: str) -> str:
    """' (2 rounds only)', or '' without a mark."""
    return f" ({mark})" if mark else ""


def _method(f) -> list[str]:
    """How the timings were taken: in interleaved rounds with a spread, or (older results) without one."""
    if not f["rounds"]:
        return [
            "These results were timed before the benchmark measured in interleaved rounds: each ratio",
            "is a ratio of medians, and no spread was recorded for it.",
            "",
        ]
    return [
        "The variants of one comparison are timed in **interleaved rounds**: after an untimed warm-up",
        "round, each round times every variant once, the order rotated by one each round (ABCD,",
        "BCDA, ...), all in one process with the same settings. A training epoch is timed in 16",
        "slices of its batches, each slice of every variant in turn, so that a machine whose speed",
        "drifts over the seconds an epoch takes slows every variant alike. A ratio is the **median",
        "of the per-round ratios** (a slow moment slows both sides of its round's ratio), followed by",
        "the lowest and highest of them in brackets: `1.07 (1.05–1.09)`.",
        "",
        *_rounds_paragraph(f),
    ]


def _rounds_paragraph(f) -> list[str]:
    """How many rounds each part of the page was timed with (the CSV's ``runs``), and what fewer than
    MIN_ROUNDS means for its numbers."""
    suites = [s for s in SUITE_NAMES if s in f["rounds_by_suite"]]
    lines = [
        "**Rounds per part of the page** (the `runs` column of the results): "
        + "; ".join(f"{SUITE_NAMES[s]}, {rounds_text(f, s)}" for s in suites)
        + "."
    ]
    few = [s for s in suites if few_rounds(f, s)]
    for suite in few:
        n = f["rounds_by_suite"][suite][0]
        lines.append(
            f"That is fewer than {MIN_ROUNDS} for {SUITE_NAMES[suite].split(' (')[0]}, and each of its numbers"
            f" says so (*{few_rounds(f, suite)}*): {_few_rounds_meaning(n)}. Read them as indications, not as"
            " measured spreads."
        )
    return [" ".join(lines), ""]


def _one_call_effect(results_dir: Path) -> str:
    """What the gap measurement says of one RNN call per batch against the recipe's pieces ('' if not measured)."""
    path = results_dir / GAP_FILE
    if not path.exists():
        return ""
    causes = {cell: found["causes"] for cell, found in json.loads(path.read_text())["cells"].items()}
    apart = [
        cell
        for cell, c in causes.items()
        if c["one_call"]["ratio_hi"] < c["recipe"]["ratio_lo"] or c["recipe"]["ratio_hi"] < c["one_call"]["ratio_lo"]
    ]
    if apart:
        cells = " and ".join(apart)
        return f" On this page's data, one call per batch timed apart from it beyond the spread for the {cells}."
    return (
        " On this page's data, one call per batch made no difference beyond the spread (see where the"
        " recipe's time goes)."
    )


def _recipe_section(f, machine, one_call: str = "") -> list[str]:
    by, ratios = f["recipe_rows"], f["recipe"]
    cells = list(ratios)
    any_cell = cells[0]
    ideal_row, recipe_row = by[(any_cell, "ideal")], by[(any_cell, "recipe")]
    real = recipe_row["real_tokens"]
    lines = [
        "## The recipe against the zero-padding ideal",
        "",
        "One training epoch (forward, backward, Adam step) of the book's classifier (embedding,",
        f"unidirectional RNN with hidden size {recipe_row['hidden_size']}, the state at the last valid",
        f"step, linear layer) over {recipe_row['n_sequences']} sequences with long-tailed lengths",
        f"({real} real tokens), batch size {recipe_row['batch_size']}. The **ideal** epoch has as many",
        "sequences, the same batch size and the same model, but every sequence has the mean length",
        f"({ideal_row['real_tokens']} tokens), so no batch holds a single pad. Collating each batch",
        "is part of the timed epoch. " + f"Every strategy's epoch was timed in {rounds_phrase(f, 'recipe')}.",
        "",
        f"```{{figure}} {IMAGES_URL}/recipe.png",
        ":alt: Bar chart of epoch time divided by the ideal epoch time. "
        + "; ".join(
            f"{cell}: " + ", ".join(f"{label(n, f)} {ratios[cell][n]:.2f}" for n in f["recipe_names"]) for cell in cells
        )
        + ".",
        ":width: 100%",
        "",
        "Epoch time of each way of batching, divided by the ideal epoch time."
        + (" Whiskers: the lowest and highest ratio over the rounds." if f["rounds"] else ""),
        "```",
        "",
        "| strategy | "
        + " | ".join(f"{cell} epoch (s) | {cell} / ideal" for cell in cells)
        + " | padded / real tokens | batches (optimizer steps) |",
        "|---|" + "---:|---:|" * len(cells) + "---:|---:|",
    ]
    for name in f["recipe_names"]:
        row = by[(any_cell, name)]
        cells_text = " | ".join(
            f"{by[(cell, name)]['median_s']:.3f} | {with_spread(by[(cell, name)])}" for cell in cells
        )
        overhead = row["padded_tokens"] / row["real_tokens"]
        lines.append(f"| {label(name, f)} | {cells_text} | {overhead:.3f} | {row['n_batches']} |")
    fastest = sorted(set(f["fastest"].values()))
    winner = " and ".join(label(n, f) for n in fastest)
    checks = machine.get("recipe_checks", {})
    lines += [
        "",
        f"**Result:** `recipe/ideal = {with_spread(f['headline_row'])}` (the worse of "
        + " and ".join(cells)
        + f"), with `padded/real = {recipe_row['padded_tokens'] / real:.3f}` tokens;"
        + f" random padded batches: `naive/ideal = {with_spread(f['naive_row'])}`.",
        f"The fastest way to batch on this {machine['device'].upper()} was: {winner}.",
    ]
    if "chunked" not in fastest:
        lines.append(
            "The decision table recommends sorting within large random chunks instead"
            f" ({label('chunked', f)}: {with_spread(headline(list(by.values()), 'chunked'), unit='x')} the ideal"
            " here): sorting the whole epoch keeps each sequence among sequences of its own length every epoch"
            f" (pairs again {f['pairs_again']['recipe']:.2f}, against {f['pairs_again']['chunked']:.2f} for the"
            " chunks), and its effect on accuracy was not measured."
        )
    if len(cells) > 1:
        speed = {cell: by[(cell, "ideal")]["median_s"] for cell in cells}
        slow, quick = max(speed, key=speed.get), min(speed, key=speed.get)
        lines.append(
            f"The {quick} epoch was {speed[slow] / speed[quick]:.1f}x faster than the {slow} epoch of the same size."
        )
    chunk_row = by[(any_cell, "chunked")]
    chunk_worst = headline(list(f["recipe_rows"].values()), "chunked")
    lines += [
        "",
        f"How to sort matters. Sorting by length within random chunks of {f['chunk']} batches (a",
        "*sortish* sampler, which keeps more randomness in who meets whom) left real / padded tokens",
        (
            f"at {chunk_row['real_tokens'] / chunk_row['padded_tokens']:.2f} on these long-tailed lengths"
            f" and took up to {with_spread(chunk_worst, unit='x')} the ideal. Sorting the whole epoch by length"
            " (ties broken"
        ),
        "at random, the order of the batches shuffled every epoch) leaves only the pads of the",
        f"sparse tail: {recipe_row['real_tokens'] / recipe_row['padded_tokens']:.2f}.",
        *_token_budget(f),
    ]
    lines += [
        "",
        "Why bucketed padding wins on a CPU: a padded batch runs the RNN as one call over a dense",
        "tensor (for the LSTM, one fused oneDNN kernel), while a packed batch with unequal lengths",
        "runs step by step on a shrinking batch, and its backward pass is slow (open upstream issue",
        "[pytorch/pytorch#149194](https://github.com/pytorch/pytorch/issues/149194)). Bucketing",
        "removes most of the pads, so the padded call wastes little, and for a unidirectional RNN",
        "the pads after a sequence's last valid step cannot change its state at that step.",
        "",
    ]
    if machine.get("flush_denormal"):
        lines += [
            "The benchmark (recipe and grid alike) runs with",
            "[`torch.set_flush_denormal(True)`](https://docs.pytorch.org/docs/2.13/generated/torch.set_flush_denormal.html).",
            "Gradients that vanish through a long sequence become *denormal* floats (below about",
            "1e-38), which x86 CPUs can process many times slower than normal ones; flushing them to",
            "zero is meant to keep the long batches of the tail from slowing the epoch. What it saves",
            "here was not measured: no committed run has it off (`--no-flush-denormal`), so take it as",
            "an optional setting. It changed no gradient beyond `assert_close`'s tolerance in the check",
            "of the code below.",
            "",
        ]
    max_steps = machine.get("recipe_spec", {}).get("max_steps")
    if max_steps:
        lines += [
            f"The recipe's model runs a batch longer than {max_steps} steps through the RNN in pieces",
            f"of at most {max_steps} steps, each piece starting from the state the previous one ended",
            "in: the same computation, gradients included (the check below covers it)." + one_call,
            "",
        ]
    if machine.get("malloc_tuning"):
        lines += [
            "It also asks glibc's `malloc` (with `mallopt`) to keep freed memory for reuse. Batches",
            "of changing length allocate tensors of changing size; by default glibc returns large",
            "freed blocks to the system, and the next batch may page-fault them back in, a cost that",
            "batches of constant shape (the ideal) would not pay. What this saves was not measured",
            "either (no committed run has `--no-malloc-tuning`): another optional setting. jemalloc or",
            "tcmalloc, recommended by PyTorch's",
            "[CPU performance tuning guide](https://docs.pytorch.org/tutorials/recipes/recipes/tuning_guide.html),",
            "avoid the same cost.",
            "",
        ]
    lines += [
        "The recipe's CPU steps, to copy (the book's tests run this block, checks included; steps 1",
        "and 2 are optional settings, whose effect on time was not measured):",
        "",
        "```python",
        *RECIPE_CODE.rstrip("\n").split("\n"),
        "```",
        "",
    ]
    if checks:
        logit = max(c[s]["max_logit_diff"] for c in checks.values() for s in c)
        grad = max(c[s]["max_grad_diff"] for c in checks.values() for s in c)
        wrong = min(c[s]["last_step_logit_error"] for c in checks.values() for s in c)
        lines += [
            "**Correctness, asserted by the benchmark before timing:** on the timed batches, the",
            "recipe's logits (padded batch, output gathered at `lengths - 1`) equal those of the",
            "same model reading a",
            "[packed sequence](https://docs.pytorch.org/docs/2.13/generated/torch.nn.utils.rnn.pack_padded_sequence.html)",
            f"(`h_n[-1]`) within {logit:.0e}, and so do the gradients of the loss (within {grad:.0e}).",
            f"Reading `output[:, -1]` instead would be off by at least {wrong:.2f} in the logits.",
            "",
        ]
    return lines


def budget_verdicts(f) -> dict[str, str] | None:
    """Per cell, 'recipe', 'token_budget' or 'tie': which won beyond the spread; None if not measured."""
    by_cell = f["recipe_by_cell"]
    if not all("token_budget" in by for by in by_cell.values()):
        return None

    def low(row):
        return row["ratio"] if row["ratio_lo"] is None else row["ratio_lo"]

    def high(row):
        return row["ratio"] if row["ratio_hi"] is None else row["ratio_hi"]

    verdicts = {}
    for cell, by in by_cell.items():
        budget, ours = by["token_budget"], by["recipe"]
        if low(budget) > high(ours):
            verdicts[cell] = "recipe"
        elif high(budget) < low(ours):
            verdicts[cell] = "token_budget"
        else:
            verdicts[cell] = "tie"
    return verdicts


def _per_cell(verdicts: dict[str, str], texts: dict[str, str], every: str) -> str:
    """One text when every cell has the same verdict, else 'GRU: ...; LSTM: ...'."""
    if len(set(verdicts.values())) == 1:
        return texts[next(iter(verdicts.values()))] + every
    return "; ".join(f"{cell}: {texts[verdict]}" for cell, verdict in verdicts.items())


def _token_budget(f) -> list[str]:
    """Token-budget batching against the recipe: padding, optimizer steps, sequential steps, time, caveats."""
    verdicts = budget_verdicts(f)
    if verdicts is None:
        return []
    by_cell = f["recipe_by_cell"]
    any_by = next(iter(by_cell.values()))
    recipe_row, budget_row = any_by["recipe"], any_by["token_budget"]
    batch = recipe_row["batch_size"]
    max_tokens = batch * -(-recipe_row["real_tokens"] // recipe_row["n_sequences"])
    ours, theirs = (row["padded_tokens"] / row["real_tokens"] for row in (recipe_row, budget_row))
    steps = budget_row["n_batches"] / recipe_row["n_batches"] - 1
    lines = [
        "",
        "**Closer to zero padding: token-budget batching.** Large-scale sequence trainers form",
        "batches by a number of tokens instead of a number of sequences (fairseq's `--max-tokens`):",
        f"here the epoch is sorted by length and each batch takes as many sequences as fit in {max_tokens}",
        f"padded tokens ({batch} sequences of the mean length), so short sequences travel in large",
        f"batches and long ones in small batches. It pads least, `padded/real = {theirs:.3f}` against",
        f"the recipe's {ours:.3f}, and its epoch has {budget_row['n_batches']} batches, that is",
        f"{budget_row['n_batches']} optimizer steps, against {recipe_row['n_batches']} ({steps:+.0%}).",
    ]
    if budget_row["rnn_steps"] and recipe_row["rnn_steps"]:
        lines += [
            "But an RNN cannot compute a step before the previous one, so a batch costs at least its",
            "longest sequence's steps however few sequences it holds: the token-budget epoch runs",
            (
                f"{budget_row['rnn_steps']} sequential RNN steps against the recipe's {recipe_row['rnn_steps']}"
                f" ({budget_row['rnn_steps'] / recipe_row['rnn_steps']:.1f}x), the long"
            ),
            "sequences of the tail now going a few at a time.",
        ]
    times = "; ".join(
        f"{cell}: token budget {with_spread(by['token_budget'])}, recipe {with_spread(by['recipe'])}"
        for cell, by in by_cell.items()
    )
    device = f["device"]
    outcome = _per_cell(
        verdicts,
        {
            "recipe": "the recipe wins beyond the spread",
            "token_budget": "token-budget batching wins beyond the spread",
            "tie": "neither wins beyond the spread",
        },
        " (GRU and LSTM alike)" if len(verdicts) > 1 else "",
    )
    lines += [f"Epoch time / ideal: {times}. On this {device}, {outcome}.", ""]
    if ours > 1.02:
        lines += [
            f"The recipe's {ours:.3f} cannot come down with the batch size fixed: sorting the whole epoch",
            "and cutting it in order is the least padding any split into batches of",
            f"{batch} can have (the book's tests check it), and what remains is the sparse tail of the",
            "long-tailed lengths, where neighbours in the sorted epoch differ by many steps. Only a",
            "variable batch size, such as the token budget, pads less.",
            "",
        ]
    lines += [
        "A variable batch size changes training, not only its speed. **The loss**: a mean over",
        f"each batch gives every batch the same weight, so a sequence in a batch of 4 counts {batch // 4}",
        f"times as much as one in a batch of {batch}; sum the loss and divide by a constant instead (the",
        f"benchmark's token-budget trainer divides by {batch}), per sequence for classification or per",
        "real token for tagging (chapter 8's masked loss). **The learning rate**: the steps per",
        "epoch and the gradient noise of a step change with the batch size, so a learning rate tuned",
        f"for batches of {batch} may need tuning again. Time both on your model before switching.",
    ]
    return lines


def _decision_table(f) -> list[str]:
    def do(strategy: str) -> str:
        """The action in bold; padding without packing is right for a unidirectional RNN only."""
        if strategy in ("padded", "bucketed"):
            return f"**{ACTIONS[strategy]}** (unidirectional only)"
        return f"**{ACTIONS[strategy]}**"

    unclear: list[tuple[str, str, list[str], list[dict]]] = []  # the cells of a row without a clear winner

    def choice(found: list[str]) -> str:
        if len(found) == 1:
            return do(found[0])
        names = ", ".join(do(s) for s in found[:-1]) + " and " + do(found[-1])
        return f"no clear winner between {names}: time {'both' if len(found) == 2 else 'them'} on yours"

    def decide(scenario: str, situation: str, allowed: tuple[str, ...], evidence_names: tuple[str, ...]):
        """(action, evidence) for one row: per cell, the allowed strategies that no other one clearly beats."""
        by_cell = {
            cell: m for cell, m in f[scenario + "_by_cell"].items() if all(n in m for n in allowed + evidence_names)
        }
        picks = {}
        for cell in by_cell:
            configs = per_config(f["scenario_rows"][scenario], cell)
            picks[cell] = contenders(configs, allowed)  # in the row's order: cells that agree read alike
            if len(picks[cell]) > 1:
                unclear.append((situation, cell, picks[cell], configs))
        if len({tuple(p) for p in picks.values()}) == 1:
            action = choice(next(iter(picks.values())))
        else:
            action = "; ".join(f"{cell}: {choice(p)}" for cell, p in picks.items())
        evidence = "; ".join(
            f"{cell} " + ", ".join(f"{SHORT[n]} {fmt(m[n])}x" for n in evidence_names) for cell, m in by_cell.items()
        )
        return action, evidence

    every = ("padded", "packed", "bucketed", "bucketed_packed")
    situations = {
        "train": "training a unidirectional RNN, lengths vary",
        "fixed_train": "training a unidirectional RNN, batches cannot be regrouped by length",
        "infer": "inference only, unidirectional RNN, long-tailed lengths",
        "fixed_infer": "inference, unidirectional RNN, batches cannot be regrouped, long-tailed lengths",
        "bi": "bidirectional RNN",
    }
    train, train_evidence = decide("train_uni", situations["train"], every, every[1:])
    fixed_train, fixed_train_evidence = decide(
        "train_uni", situations["fixed_train"], ("padded", "packed"), ("packed",)
    )
    infer, infer_evidence = decide("infer_long", situations["infer"], every, every[1:])
    fixed_infer, fixed_infer_evidence = decide(
        "infer_long", situations["fixed_infer"], ("padded", "packed"), ("packed",)
    )
    bi, bi_evidence = decide("train_bi", situations["bi"], ("packed", "bucketed_packed"), ("packed", "bucketed_packed"))
    equal_fwd, equal_fb = f[("equal_packed", "fwd")], f[("equal_packed", "fwdbwd")]
    chunked = headline(list(f["recipe_rows"].values()), "chunked")
    grid_mark = _paren(few_rounds(f, "grid"))
    reads = "read the output at `lengths - 1` (classification) or mask the loss at pads (tagging)"
    return [
        "## Decision table",
        "",
        "Times relative to padded random batches on the machine below: the median over the",
        "measured configurations with uniform and long-tailed lengths, unless the row says otherwise.",
        (
            f"The recipe's epochs were timed in {rounds_phrase(f, 'recipe')}, each configuration of the grid in"
            f" {rounds_phrase(f, 'grid')}."
        ),
        "*Pad and mask* means: keep the padded batch, and make the pads harmless afterwards.",
        "",
        "| situation | do this | evidence |",
        "|---|---|---|",
        (
            f"| {situations['train']} | {train}; {reads} |"
            f" recipe epoch {with_spread(f['headline_row'], unit='x')} the ideal;"
            f" forward + backward{grid_mark}: {train_evidence} |"
        ),
        (f"| {situations['fixed_train']} | {fixed_train} | forward + backward{grid_mark}: {fixed_train_evidence} |"),
        f"| {situations['infer']} | {infer} | forward{grid_mark}: {infer_evidence} |",
        (f"| {situations['fixed_infer']} | {fixed_infer} | forward{grid_mark}: {fixed_infer_evidence} |"),
        (
            "| choosing the buckets, long-tailed lengths | **sort within large random chunks** (a sortish"
            " sampler), then shuffle the batch order; sorting the whole epoch by length (ties at random)"
            " was faster here, but keeps each sequence among sequences of its own length (pairs again"
            f" {f['pairs_again']['recipe']:.2f}, chunks {f['pairs_again']['chunked']:.2f}), and its effect on"
            " accuracy was not measured |"
            f" epoch / ideal: chunks of {f['chunk']} batches {with_spread(chunked, unit='x')}, whole epoch"
            f" {with_spread(f['headline_row'], unit='x')} |"
        ),
        *_budget_row(f),
        (
            "| all sequences the same length | **pad**: there is nothing to save |"
            f" packed {fmt(equal_fwd)}x forward, {fmt(equal_fb)}x forward + backward{grid_mark} |"
        ),
        (
            f"| {situations['bi']} | {bi}: padding corrupts the reverse direction, so pack (or reverse"
            f" each sequence within its length) | forward + backward{grid_mark}: {bi_evidence} |"
        ),
        "",
        "Packing pays only where its ratio is below 1. For a unidirectional RNN, masking instead of",
        "packing is exact: the pads come after the real steps, so they cannot change the outputs",
        "at real steps. A bidirectional RNN reads the pads first in its reverse direction: a",
        "bidirectional model must not follow a row that pads without packing.",
        "",
        *_no_clear_winner(unclear, few_rounds(f, "grid")),
    ]


def _budget_row(f) -> list[str]:
    verdicts = budget_verdicts(f)
    if verdicts is None:
        return []
    by_cell = f["recipe_by_cell"]
    action = _per_cell(
        verdicts,
        {
            "recipe": "**keep a fixed batch size** (the recipe): the token budget pads less but runs more RNN steps",
            "token_budget": "**batch by a token budget**, the loss divided by a constant, the learning rate checked",
            "tie": "**either**, no difference beyond the spread: a fixed batch size leaves training as it is",
        },
        "",
    )
    evidence = "; ".join(
        f"{cell} token budget {with_spread(by['token_budget'], unit='x')}, recipe {with_spread(by['recipe'], unit='x')}"
        for cell, by in by_cell.items()
    )
    return [f"| batches by a token budget (variable batch size) instead of a fixed size | {action} | {evidence} |"]


def _no_clear_winner(unclear: list[tuple[str, str, list[str], list[dict]]], mark: str = "") -> list[str]:
    """The rule of the decision table, and the counts behind every cell that names no single strategy."""
    lines = [
        "A row names one strategy only where it was faster than each other strategy of the row in every",
        "configuration the row covers, and beyond the spread (its highest ratio over the rounds below",
        "the other's lowest) in most of them. Where none was, the row says *no clear winner* and names",
        "every strategy that no other beat in this way.",
    ]
    if not unclear:
        return lines + ["Every row of this run has a clear winner.", ""]
    lines += ["", f"Rows without a clear winner, configuration by configuration{_paren(mark)}:", ""]
    for situation, cell, found, configs in unclear:
        pairs = []
        for i, a in enumerate(found):
            for b in found[i + 1 :]:
                first, second = (
                    (b, a) if comparison(configs, b, a)["faster"] > comparison(configs, a, b)["faster"] else (a, b)
                )
                ab, ba = comparison(configs, first, second), comparison(configs, second, first)
                pairs.append(
                    f"{SHORT[first]} was faster than {SHORT[second]} in {ab['faster']} of {ab['n']} configurations"
                    f" ({ab['beyond']} beyond the spread), slower in {ba['faster']} ({ba['beyond']} beyond the spread)"
                )
        lines.append(f"- {situation[0].upper() + situation[1:]}, {cell}: " + "; ".join(pairs) + ".")
    return lines + [
        "",
        "That is one run on one machine, and other programs on a machine shift timings by more (see",
        "Reproduce): where a row has no clear winner, time the candidates on your model and machine.",
        "",
    ]


def _grid_section(f, rows) -> list[str]:
    fwd, fb = f[("packed", "fwd")], f[("packed", "fwdbwd")]
    bucket = f[("bucketed", "fwdbwd")]
    lines = [
        "## Padded, packed and bucketed, configuration by configuration",
        "",
        "Each measurement runs the RNN alone (no embedding, input size",
        f"{rows[-1]['input_size']}) over one slice of {_slice_size(rows)} sequences, cut into batches",
        "either at random or by length (bucketing), with the batch padded or",
        "[packed](https://docs.pytorch.org/docs/2.13/generated/torch.nn.utils.rnn.pack_padded_sequence.html)",
        "(packing, the RNN and",
        "[`pad_packed_sequence`](https://docs.pytorch.org/docs/2.13/generated/torch.nn.utils.rnn.pad_packed_sequence.html)",
        "are timed together). *Forward* runs under `torch.no_grad()`; *forward + backward* adds",
        "the backward pass of the summed output. Lengths: uniform 1-100, long-tailed (lognormal,",
        "median 22, up to 400) and equal (all 50). " + f"Every configuration was timed in {rounds_phrase(f, 'grid')}.",
        "",
        f"```{{figure}} {IMAGES_URL}/packing.png",
        (
            f":alt: Scatter plot of packed time over padded time against real over padded tokens."
            f" Forward: median {fmt(fwd['median'])}, faster in {fwd['faster']} of {fwd['n']} cases."
            f" Forward and backward: median {fmt(fb['median'])}, faster in {fb['faster']} of {fb['n']}."
        ),
        ":width: 100%",
        "",
        "Packed time relative to padded time"
        + _paren(few_rounds(f, "grid"))
        + ". Points below the dashed line beat the ideal; points",
        "above the grey line are slower than padding.",
        "```",
        "",
        f"```{{figure}} {IMAGES_URL}/bucketing.png",
        (
            f":alt: Scatter plot of bucketed time over random-batch time against the ratio of padded"
            f" tokens; forward and backward median {fmt(bucket['median'])}, faster in {bucket['faster']}"
            f" of {bucket['n']} cases."
        ),
        ":width: 100%",
        "",
        "Length bucketing with plain padding: time relative to random batches" + _paren(few_rounds(f, "grid")) + ".",
        "```",
        "",
        f"### Every model at batch {f['base_batch']}, hidden size {f['base_hidden']}",
        "",
        "Time relative to padded random batches; the ideal column is real / padded tokens of the",
        "random batches. For the bidirectional models (-bi) the padded columns time a computation",
        "whose reverse direction reads the pads first, so they are wrong; they are shown for speed only.",
        "",
    ]
    lines += _structure_table(f, rows)
    sized = [r for r in f["rel"] if not r["bidirectional"] and r["num_layers"] == 1]
    largest = max(r["batch_size"] for r in sized)
    lines += [
        "",
        "### Batch and hidden size (unidirectional, one layer)",
        "",
        (
            f"Every slice holds {_slice_size(rows)} sequences, so at batch {largest} bucketing has only"
            f" {-(-_slice_size(rows) // largest)} batches to sort the sequences into."
        ),
        "",
    ]
    lines += _ratio_table(
        sized,
        rows,
        ("model", "batch", "hidden", "lengths"),
        lambda r: (r["cell"], str(r["batch_size"]), str(r["hidden_size"]), DIST_LABELS[r["dist"]]),
        sort=lambda r: (r["cell"], r["batch_size"], r["hidden_size"]),
        mark=few_rounds(f, "grid"),
    )
    lines.append("")
    return lines


def _slice_size(rows) -> int:
    return next(r["n_sequences"] for r in rows if r["suite"] == "grid")


def _ratio_table(rel, rows, heads, label, sort=None, mark: str = "") -> list[str]:
    """One table per pass (forward, then forward + backward): each ratio with its spread over rounds."""
    strategies = ("packed", "bucketed", "bucketed_packed")
    short = {"packed": "packed", "bucketed": "bucketed", "bucketed_packed": "bucketed + packed"}
    table: dict[tuple, dict] = {}
    order: list[tuple] = []
    ordered = sorted(rel, key=sort) if sort else rel
    for r in ordered:
        key = label(r)
        if key not in table:
            table[key] = {}
            order.append(key)
        table[key][(r["strategy"], r["pass"])] = r
    lines = []
    for pass_ in grid.PASSES:
        lines += [
            f"*{PASS_LABELS[pass_].capitalize()}{_paren(mark)}:*",
            "",
            "| " + " | ".join(heads) + " | " + " | ".join(short[s] for s in strategies) + " | ideal |",
            "|" + "---|" * len(heads) + "---:|" * (len(strategies) + 1),
        ]
        for key in order:
            cells = table[key]
            values = [fmt_spread(cells[(s, pass_)]) if (s, pass_) in cells else "-" for s in strategies]
            packed = cells.get(("packed", pass_)) or next(iter(cells.values()))
            ideal = packed["real_tokens"] / _padded_random(rows, packed)
            lines.append("| " + " | ".join(key) + " | " + " | ".join(values) + f" | {ideal:.2f} |")
        lines.append("")
    return lines[:-1]


def fmt_spread(row: dict) -> str:
    """A grid ratio with its lowest and highest per-round value, when recorded: '0.62 (0.60–0.65)'."""
    text = fmt(row["ratio"])
    if row.get("ratio_lo") is None:
        return text
    return f"{text} ({fmt(row['ratio_lo'])}–{fmt(row['ratio_hi'])})"


def _padded_random(rows, row) -> int:
    for r in rows:
        if r["suite"] == "grid" and r["strategy"] == "padded" and config_key(r) == config_key(row):
            return r["padded_tokens"]
    raise KeyError(config_key(row))


def _machine_section(machine, rows: list[dict]) -> list[str]:
    load_start, load_end = machine.get("load_1min_start"), machine.get("load_1min_end")
    cpus = machine.get("logical_cpus") or 1
    threads = machine["threads"]
    settings = ["`torch.set_flush_denormal(True)`" if machine.get("flush_denormal") else "denormal floats kept"]
    if machine.get("malloc_tuning"):
        settings.append(
            "glibc malloc keeps freed memory ("
            + ", ".join(f"{name} {value >> 20} MiB" for name, value in machine["malloc_tuning"].items())
            + ")"
        )
    lines = [
        "## The machine",
        "",
        "| | |",
        "|---|---|",
        f"| device | {machine['device']} ({machine['device_name']}) |",
        f"| CPU | {machine['cpu_model']}, {cpus} logical CPUs, {machine['cpu_capability']} |",
        f"| torch threads | {threads} |",
        f"| torch | {machine['torch']} ({', '.join(machine.get('parallel_info', []))}) |",
        f"| Python | {machine['python']} |",
        f"| settings | {'; '.join(settings)} |",
        (
            f"| measured | {machine['date']}, `{machine.get('command', 'python -m benchmarks')}`"
            f" ({machine['mode']}), "
            f"{machine['wall_s']:.0f} s |"
        ),
        f"| 1-minute load average | {load_start:.2f} at the start, {load_end:.2f} at the end |",
        "",
    ]
    if max(load_start, load_end) > threads + 0.5:
        lines += [
            f"A load average above the {threads} thread(s) the benchmark used means that other",
            "programs shared the CPUs during the run, so single timings are noisy: trust the first",
            "digit of a ratio and the direction of a comparison, not the second digit. Each CSV row",
            "records the load when it was measured.",
            "",
        ]
    elif "max_spread" not in machine:
        lines += [
            "Timings move by tens of percent between runs, even on a quiet machine: trust the first",
            "digit of a ratio and the direction of a comparison.",
            "",
        ]
    if "max_spread" in machine:
        lines += [
            "The benchmark writes its results only when they hold still: the recipe's ratio to the ideal",
            f"spread by at most {machine['max_spread']:.0%} of its median over the rounds (this run's",
            "`--max-spread`; `--allow-noisy` writes them anyway, and this page then says so). It also checks",
            "that no variant doing",
            "strictly more work (more padded tokens in as many batches of the same sizes) timed faster",
            "than one doing less beyond the spread, and lists here any that did.",
            "",
        ]
    warnings = run_warnings(rows, machine)  # recomputed from the rows: the wording of this page's version
    if warnings:
        lines += [
            "**Warnings of this run** (written all the same):",
            "",
            *[f"- {warning}" for warning in warnings],
            "",
        ]
    if machine.get("problems"):
        lines += [
            "**Noisy run, written with `--allow-noisy`:**",
            "",
            *[f"- {problem}" for problem in machine["problems"]],
            "",
        ]
    return lines


def _gpu_section(results_dir: Path) -> list[str]:
    loaded = load(results_dir, "cuda")
    if loaded is None:
        return [
            "## GPU: not measured here",
            "",
            "**Not measured here**: no GPU was available where these results were taken, so this page",
            "says nothing about cuDNN. On a machine with a CUDA GPU, one command runs the same recipe",
            "comparison and grid there:",
            "",
            "```bash",
            "python -m benchmarks --device cuda",
            "```",
            "",
            "It writes `benchmarks/results/cuda.csv` and `cuda_machine.json` and regenerates this page",
            "with this section filled in; commit the two files, the page and its figures.",
            "",
        ]
    lines = ["## GPU", ""]
    rows, machine = loaded
    f = findings(rows, machine)
    fwd, fb = f[("packed", "fwd")], f[("packed", "fwdbwd")]
    lines += [
        (
            f"Measured on {machine['device_name']} (torch {machine['torch']}, cuDNN {machine.get('cudnn')}),"
            f" {machine['date']}. Recipe: `recipe/ideal = {with_spread(f['headline_row'])}`,"
            f" `naive/ideal = {with_spread(f['naive_row'])}`. Packed / padded time: forward median"
            f" {fmt(fwd['median'])}x, forward + backward median {fmt(fb['median'])}x."
        ),
        "",
    ]
    lines += _structure_table(f, rows)
    return lines + [""]


def _reproduce_section() -> list[str]:
    return [
        "## Reproduce",
        "",
        "```bash",
        f"make bench-quick   # fewer configurations, the same rounds: {QUICK_RUN_TIME}",
        "make bench         # the full grid and recipe, then this page and its figures",
        "make bench-gap     # where the recipe's time goes: stages, causes, the length floor",
        "make bench-report  # figures and page from the committed results",
        "```",
        "",
        "The last line `make bench-quick` prints is the headline with its spread, such as",
        "`recipe/ideal = 1.06 (1.02–1.08)`; `make bench-quick BENCH_ARGS=--record` also keeps the",
        "run in `benchmarks/results/headlines/` for the table of CPUs above (commit it, then",
        "`make bench-report`). Both runs refuse to write a result whose recipe/ideal",
        f"spread by more than {MAX_SPREAD:.0%} of its median over the rounds: they print why and exit",
        "with status 3 (`--allow-noisy` writes anyway, `--max-spread` sets the limit); more work timed",
        "faster than less beyond the spread is printed as a warning. Add `--device cuda` to measure on a GPU and",
        "`--threads N` to pick the CPU threads (default 1). Run on an otherwise idle machine: other",
        "programs competing for the CPUs widen the spread far more than run-to-run noise does.",
    ]


def _structure_table(f, rows: list[dict]) -> list[str]:
    """Every model (cell, directions, layers) by length distribution, at the base batch and hidden size."""
    return _ratio_table(
        f["structure"],
        rows,
        ("model", "lengths"),
        lambda r: (model_label(r), DIST_LABELS[r["dist"]]),
        mark=few_rounds(f, "grid"),
    )


def headline_runs(results_dir: Path = RESULTS_DIR) -> list[dict]:
    """One entry per committed run (the full run, then every recorded run): its CPU and its headline."""
    out = []
    for rows, machine in recorded_runs(results_dir):
        by = recipe_rows(rows)
        again = [cells["ideal_again"] for cells in by.values() if "ideal_again" in cells]
        out.append(
            {
                "cpu": machine["cpu_model"],
                "capability": machine["cpu_capability"],
                "held_to": machine.get("forced_isa", {}).get("ONEDNN_MAX_CPU_ISA", ""),
                "mode": machine["mode"],
                "date": machine["date"],
                "cells": {cell: cells["recipe"] for cell, cells in by.items()},
                "headline": headline(rows),
                "again": max(again, key=lambda row: abs(row["ratio"] - 1)) if again else None,
                "padded_over_real": sorted(
                    {c["recipe"]["padded_tokens"] / c["recipe"]["real_tokens"] for c in by.values()}
                ),
                "rounds": machine.get("recipe_spec", {}).get("rounds"),
                "slices": machine.get("recipe_spec", {}).get("slices"),
                "epochs": len(machine.get("recipe_spec", {}).get("strategies", ())),
                "file": machine["result_file"],
            }
        )
    return out


def headline_range(results_dir: Path = RESULTS_DIR) -> tuple[float, float]:
    """The lowest and highest headline (recipe/ideal, the worse cell) over the committed runs, as printed."""
    values = [round(run["headline"]["ratio"], 2) for run in headline_runs(results_dir)]
    return min(values), max(values)


def same_day_repeats(runs: list[dict]) -> list[list[dict]]:
    """Quick runs of one CPU at one capability on one date: the repeats of one measurement."""
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        if run["mode"] == "quick":
            groups.setdefault((run["cpu"], run["capability"], run["held_to"], run["date"]), []).append(run)
    return [group for group in groups.values() if len(group) > 1]


def _headlines_section(results_dir: Path) -> list[str]:
    runs = headline_runs(results_dir)
    low, high = headline_range(results_dir)
    counts = sorted({run["rounds"] for run in runs})
    rounds_said = " or ".join(map(str, counts))
    lines = [
        "## The headline on each CPU",
        "",
        "The headline above comes from one run on one CPU. Each run below timed the same recipe and",
        f"ideal on the same data, in {rounds_said} interleaved rounds; `python -m benchmarks --quick --record`",
        "keeps a run's results in `benchmarks/results/headlines/`, and this table lists every one of",
        "them (their files are named below it). *Capability* is what",
        "`torch.backends.cpu.get_cpu_capability()` reported; *held to* names the instruction set a run",
        "forced with `ATEN_CPU_CAPABILITY` and `ONEDNN_MAX_CPU_ISA` on a CPU that has more; *epochs*",
        "counts the strategies whose epochs were interleaved, each in that many *slices*. The last",
        "column times the ideal a second time in the same rounds (the cell",
        "farther from 1): the same work, so how far it lands from 1 is what the machine alone moves two",
        "equal epochs apart.",
        "",
        (
            "| run | CPU | capability | held to | epochs, slices | GRU recipe / ideal | LSTM recipe / ideal"
            " | ideal again / ideal |"
        ),
        "|---|---|---|---|---|---:|---:|---:|",
    ]
    for number, run in enumerate(runs, start=1):
        cells = " | ".join(with_spread(run["cells"][cell]) if cell in run["cells"] else "—" for cell in ("GRU", "LSTM"))
        again = f"{with_spread(run['again'])} ({run['again']['cell']})" if run["again"] else "not timed"
        lines.append(
            f"| {number} | {run['cpu']} | {run['capability']} | {run['held_to'] or '—'}"
            f" | {run['epochs']}, {run['slices']} | {cells} | {again} |"
        )
    lines += [
        "",
        "The runs' files, in `benchmarks/results/`: "
        + "; ".join(f"{number} `{run['file']}`" for number, run in enumerate(runs, start=1))
        + ".",
    ]
    overheads = sorted({value for run in runs for value in run["padded_over_real"]})
    lines += [
        "",
        (
            f"**Across these {len(runs)} runs, the headline (the worse of GRU and LSTM) lay between"
            f" {low:.2f} and {high:.2f}.** "
            + (
                f"The recipe's padded / real tokens are the same in every run ({overheads[0]:.3f}): the batches do"
                " not depend on the CPU."
                if len({f"{value:.3f}" for value in overheads}) == 1
                else "The recipe's padded / real tokens differ between runs: "
                + ", ".join(f"{value:.3f}" for value in overheads)
                + "."
            )
        ),
    ]
    for group in same_day_repeats(runs):
        values = [run["headline"]["ratio"] for run in group]
        middle = statistics.median(values)
        lines.append(
            f"{len(group)} quick runs on one day on {group[0]['cpu']} ({group[0]['capability']}"
            + (f", held to {group[0]['held_to']}" if group[0]["held_to"] else "")
            + f") gave {', '.join(f'{v:.2f}' for v in values)}: within"
            f" {max(abs(v - middle) for v in values):.2f} of their median, {middle:.2f}."
        )
    return lines + [""]


STAGE_LABELS = {
    "collate": "collate (pad the batch)",
    "embedding": "embedding",
    "rnn_forward": "RNN forward",
    "head_forward": "gather at `lengths - 1`, head, loss",
    "head_backward": "their backward",
    "rnn_backward": "RNN backward",
    "embedding_backward": "embedding backward",
    "optimizer": "Adam step",
}
CAUSE_LABELS = {
    "recipe": "the recipe, timed with the variants below",
    "ideal_again": "the ideal again: the same work (the machine's noise)",
    "pieces_64": "the RNN run in pieces of 64 steps (the recipe: 128)",
    "one_call": "the RNN run in one call per batch",
    "shortest_first": "the same batches, shortest first (shapes change slowly)",
    "multiple_of_8": "every batch padded to a multiple of 8 steps (shapes repeat)",
}


def _pp(value: float) -> str:
    """A ratio's distance from 1 in percentage points: '+2.4 pp'."""
    return f"{100 * (value - 1):+.1f} pp"


def _gap_section(results_dir: Path) -> list[str]:
    path = results_dir / GAP_FILE
    if not path.exists():
        return []
    measured = json.loads(path.read_text())
    machine, cells, epochs = measured["machine"], measured["cells"], measured["epochs"]
    names = list(cells)
    width = epochs["recipe"]["batch_widths"][-1]
    lines = [
        "## Where the recipe's time goes",
        "",
        "`make bench-gap` (`python -m benchmarks.gap`) takes the recipe's ratio to the ideal apart, on the",
        (
            "same data, model and settings as the recipe comparison. It ran on"
            f" {machine['cpu_model']} ({machine['cpu_capability']}) on {measured['date']}, in"
            f" {measured['rounds']} interleaved rounds of {measured['slices']} slices, in {measured['wall_s']:.0f} s."
        ),
        "",
        *_other_machine(results_dir, machine, measured["date"]),
        "**Stage by stage.** Each training step cut into its stages (the autograd graph split at the",
        "embedding's and the RNN's outputs: the same arithmetic), recipe and ideal batches alternating",
        "one by one; seconds per epoch, median over the rounds (the epoch row sums the medians):",
        "",
        "| stage | " + " | ".join(f"{cell} recipe (s) | {cell} ideal (s) | {cell} ratio" for cell in names) + " |",
        "|---|" + "---:|---:|---:|" * len(names),
    ]
    for stage in STAGES:
        parts = []
        for cell in names:
            stages = cells[cell]["stages"]
            parts.append(
                f"{stages['recipe'][stage]:.3f} | {stages['ideal'][stage]:.3f}"
                f" | {stages['recipe'][stage] / stages['ideal'][stage]:.2f}"
            )
        lines.append(f"| {STAGE_LABELS[stage]} | " + " | ".join(parts) + " |")
    totals = {cell: {side: sum(cells[cell]["stages"][side].values()) for side in ("recipe", "ideal")} for cell in names}
    lines.append(
        "| **epoch** | "
        + " | ".join(
            f"{totals[c]['recipe']:.3f} | {totals[c]['ideal']:.3f} | {totals[c]['recipe'] / totals[c]['ideal']:.2f}"
            for c in names
        )
        + " |"
    )
    rnn_share = {
        cell: (cells[cell]["stages"]["ideal"]["rnn_forward"] + cells[cell]["stages"]["ideal"]["rnn_backward"])
        / totals[cell]["ideal"]
        for cell in names
    }
    lines += [
        "",
        "The RNN's forward and backward passes take "
        + " and ".join(f"{rnn_share[c]:.0%} of the ideal {c} epoch" for c in names)
        + f". Both epochs have as many batches of {width} sequences, so only the stages that touch every step"
        " (collate, embedding, RNN) have more to do in the recipe, by its padded tokens. The Adam step does the"
        " same work in both and came out at "
        + ", ".join(
            f"{cells[c]['stages']['recipe']['optimizer'] / cells[c]['stages']['ideal']['optimizer']:.2f} ({c})"
            for c in names
        )
        + ": stage ratios that differ from 1 by that much are the measurement's, not the work's.",
        "",
        "**Cause by cause.** Each variant of the recipe trained an epoch against the ideal in the same",
        "interleaved rounds (ratios to the ideal, median and range over the rounds). Above them, every",
        "batch of both epochs trained twice in a row, each step timed: first right after a batch of the",
        "ideal's length (*cold*: another shape, as most batches of a recipe epoch follow one), then right",
        "after itself, the same tokens (*warm*, as every batch of the ideal's one-shape epoch runs). The",
        "warm recipe over the warm ideal is the **length floor**: what",
        f"these sequences cost at batch size {width} when every batch runs at its own shape's speed. No",
        "fixed-size batching of them runs fewer steps than the recipe (sorting, then cutting, pads least",
        "of any split), so this floor belongs to the data's lengths, not to the recipe.",
        "",
        "| variant | " + " | ".join(f"{cell} / ideal" for cell in names) + " |",
        "|---|" + "---:|" * len(names),
        "| length floor: every batch warm | "
        + " | ".join(f"{cells[c]['warm_and_cold']['length_floor']:.3f}" for c in names)
        + " |",
        "| changing shapes: the recipe's batches cold / warm | "
        + " | ".join(f"{cells[c]['warm_and_cold']['shape_change']:.3f}" for c in names)
        + " |",
    ]
    for name in GAP_VARIANTS:
        lines.append(
            f"| {CAUSE_LABELS[name]} | "
            + " | ".join(with_spread(cells[c]["causes"][name], digits=3) for c in names)
            + " |"
        )
    lines += [
        "",
        "**Batch by batch length**, warm, the whole training step divided by the RNN steps it runs",
        "(µs per step), and what the same batches cost cold against warm:",
        "",
        "| batches of (steps) | batches | "
        + " | ".join(f"{cell} µs per step | {cell} cold / warm" for cell in names)
        + " |",
        "|---|---:|" + "---:|---:|" * len(names),
    ]
    for index, group in enumerate(cells[names[0]]["warm_and_cold"]["by_length"]):
        low, high = group["steps"]
        where = f"{low}–{high}" + (" (the ideal)" if group["epoch"] == "ideal" else "")
        parts = []
        for cell in names:
            found = cells[cell]["warm_and_cold"]["by_length"][index]
            parts.append(f"{1e6 * found['warm_s'] / found['rnn_steps']:.0f} | {found['cold_s'] / found['warm_s']:.2f}")
        lines.append(f"| {where} | {group['batches']} | " + " | ".join(parts) + " |")
    same_cpu = [
        run
        for run in headline_runs(results_dir)
        if run["mode"] == "quick"
        and not run["held_to"]
        and (run["cpu"], run["capability"]) == (machine["cpu_model"], machine["cpu_capability"])
    ]
    lines += _gap_findings(cells, names, epochs, same_cpu)
    return lines + [""]


def _other_machine(results_dir: Path, machine: dict, date: str) -> list[str]:
    """A sentence when the gap was measured on another CPU, capability or day than the page's full run."""
    full = load(results_dir, "cpu")
    if full is None:
        return []
    main = full[1]
    if (main["cpu_model"], main["cpu_capability"], main["date"]) == (
        machine["cpu_model"],
        machine["cpu_capability"],
        date,
    ):
        return []
    return [
        (
            f"This is not the run of the headline at the top of the page ({main['cpu_model']},"
            f" {main['cpu_capability']}, {main['date']}): its own recipe / ideal is in the table of CPUs above."
        ),
        "",
    ]


def _gap_findings(cells: dict, names: list[str], epochs: dict, same_cpu: list[dict]) -> list[str]:
    """What the measurements say, each sentence computed from them."""
    causes = {c: cells[c]["causes"] for c in names}
    floor = {c: cells[c]["warm_and_cold"]["length_floor"] for c in names}
    change = {c: cells[c]["warm_and_cold"]["shape_change"] for c in names}
    expected = {c: floor[c] * change[c] for c in names}
    noise = {c: max(abs(causes[c]["ideal_again"][k] - 1) for k in ("ratio_lo", "ratio_hi")) for c in names}
    onednn = {c: cells[c]["primitives"] for c in names}
    uses = [c for c in names if onednn[c]["rnn_executions"]]
    lines = ["", "What the numbers say:", ""]
    lines.append(
        "- **The data's lengths (inherent):** the length floor is "
        + ", ".join(f"{_pp(floor[c])} ({c})" for c in names)
        + f" against the ideal: the recipe runs {epochs['recipe']['rnn_steps'] / epochs['ideal']['rnn_steps'] - 1:.1%}"
        f" more RNN steps ({epochs['recipe']['rnn_steps']} against {epochs['ideal']['rnn_steps']}), and a step of"
        " a short or a long batch does not cost what a step of a batch of the mean length costs."
    )
    per_step = {
        c: {
            (g["epoch"], tuple(g["steps"])): g["warm_s"] / g["rnn_steps"]
            for g in cells[c]["warm_and_cold"]["by_length"]
        }
        for c in names
    }
    ideal_key = {c: next(k for k in per_step[c] if k[0] == "ideal") for c in names}
    recipe_keys = [k for k in per_step[names[0]] if k[0] == "recipe"]
    shortest, next_longest, longest = recipe_keys[0], recipe_keys[-2], recipe_keys[-1]
    # Each batch's own stages (head, loss, their backward, Adam) cost the same whatever its length.
    per_batch = {
        c: sum(cells[c]["stages"]["ideal"][stage] for stage in ("head_forward", "head_backward", "optimizer"))
        / sum(g["batches"] for g in cells[c]["warm_and_cold"]["by_length"] if g["epoch"] == "ideal")
        for c in names
    }
    groups = {c: {(g["epoch"], tuple(g["steps"])): g for g in cells[c]["warm_and_cold"]["by_length"]} for c in names}

    def step_cost(c, key, without_batch_stages=False):
        group = groups[c][key]
        seconds = group["warm_s"] - (group["batches"] * per_batch[c] if without_batch_stages else 0.0)
        return seconds / group["rnn_steps"]

    ideal_key = {c: next(k for k in groups[c] if k[0] == "ideal") for c in names}
    recipe_keys = [k for k in groups[names[0]] if k[0] == "recipe"]
    shortest, next_longest, longest = recipe_keys[0], recipe_keys[-2], recipe_keys[-1]

    def ratio(c, a, b, bare=False):
        return step_cost(c, a, bare) / step_cost(c, b, bare)

    long_bare = {c: ratio(c, longest, next_longest, True) for c in names}
    lines.append(
        f"- **Short and long batches:** warm, a step of the batches of {shortest[1][0]}–{shortest[1][1]} steps"
        " costs "
        + ", ".join(f"{ratio(c, shortest, ideal_key[c]):.2f}x ({c})" for c in names)
        + " a step of the ideal's batches. Each batch's own stages (head, loss, their backward and Adam: "
        + ", ".join(f"{1e3 * per_batch[c]:.2f} ms ({c})" for c in names)
        + " a batch) are spread over fewer steps there; without them, "
        + ", ".join(f"{ratio(c, shortest, ideal_key[c], True):.2f}x ({c})" for c in names)
        + f". Without them too, a step of the batches of {longest[1][0]}–{longest[1][1]} steps costs "
        + ", ".join(f"{long_bare[c]:.2f}x ({c})" for c in names)
        + f" a step of the batches of {next_longest[1][0]}–{next_longest[1][1]}"
        + (
            ": the memory of long batches (their saved activations outgrow the caches before backward"
            " reads them) adds nothing that shows here."
            if all(value <= 1 for value in long_bare.values())
            else f": the memory of long batches adds up to {max(long_bare.values()) - 1:.0%} per step here."
        )
    )
    shares = {}
    for c in names:
        extra = {k: g["cold_s"] - g["warm_s"] for k, g in groups[c].items() if k[0] == "recipe"}
        top = max(extra, key=extra.get)
        shares[c] = (top, extra[top] / sum(extra.values()) if sum(extra.values()) > 0 else 0.0)
    lines.append(
        "- **Changing shapes (the recipe's):** the recipe's batches cold cost "
        + ", ".join(f"{_pp(change[c])} ({c})" for c in names)
        + " against warm; the largest part of it in the batches of "
        + ", ".join(f"{top[1][0]}–{top[1][1]} steps ({share:.0%}, {c})" for c, (top, share) in shares.items())
        + ". The shuffled order is what puts batches of other lengths next to each other; *shortest first*"
        " (below) keeps neighbours close in length, but gives that order up."
    )
    here = {c: causes[c]["recipe"]["ratio"] for c in names}
    offsets = [here[c] - expected[c] for c in names]
    timed = ", ".join(f"{here[c]:.3f} ({100 * (here[c] - expected[c]):+.1f} pp, {c})" for c in names)
    text = (
        "- **Together:** the floor times the cost of changing shapes comes to "
        + ", ".join(f"{expected[c]:.3f} ({c})" for c in names)
        + f". The recipe timed here, among {len(GAP_VARIANTS) + 1} epochs interleaved: {timed}"
    )
    if same_cpu:
        quick = {c: [run["cells"][c]["ratio"] for run in same_cpu] for c in names}
        offsets += [statistics.median(quick[c]) - expected[c] for c in names]
        interleaved = " or ".join(str(n) for n in sorted({run["epochs"] for run in same_cpu}))
        text += f"; in the {len(same_cpu)} quick runs on this CPU, {interleaved} epochs interleaved: " + ", ".join(
            f"{min(quick[c]):.2f}–{max(quick[c]):.2f} ({100 * (statistics.median(quick[c]) - expected[c]):+.1f} pp"
            f" at their median, {c})"
            for c in names
        )
    widest = max(map(abs, offsets))
    lines.append(
        text + f". Every timing lies within {100 * widest:.1f} pp of what the two causes add up to;"
        " two timings of the identical ideal epoch differed by up to "
        + ", ".join(f"{100 * noise[c]:.1f} pp ({c})" for c in names)
        + " in single rounds here: "
        + (
            "the two causes account for the gap as closely as this machine can tell, no more precisely."
            if widest <= max(noise.values())
            else "more than the machine moves equal work, so part of the gap is not accounted for here."
        )
    )
    exact_in_order = ("pieces_64", "one_call", "multiple_of_8")
    beaten = [
        (name, c)
        for name in exact_in_order
        for c in names
        if causes[c][name]["ratio_hi"] < causes[c]["recipe"]["ratio_lo"]
    ]
    lines.append(
        "- **What the recipe could close:** of the exact variants that keep the shuffled order (pieces of 64"
        " steps, one call, multiples of 8), "
        + (
            "none beat the recipe beyond the spread (its highest ratio below the recipe's lowest), so the"
            " recipe is unchanged."
            if not beaten
            else ", ".join(f"{CAUSE_LABELS[name]} ({c})" for name, c in beaten) + " beat the recipe beyond the spread."
        )
    )
    above = {
        limit: sum(
            g["batches"]
            for g in cells[names[0]]["warm_and_cold"]["by_length"]
            if g["epoch"] == "recipe" and g["steps"][0] > limit
        )
        for limit in (64, 128)
    }
    for name, what, changes in (
        ("pieces_64", "Shorter RNN calls", f"the {above[64]} batches over 64 steps"),
        ("one_call", "One RNN call per batch", f"the {above[128]} batches over 128 steps"),
        ("shortest_first", "Running the batches shortest first", "no batch, only their order"),
        ("multiple_of_8", "Padding to multiples of 8 steps", "every batch not already a multiple of 8"),
    ):
        parts = []
        for c in names:
            variant, base = causes[c][name], causes[c]["recipe"]
            apart = variant["ratio_hi"] < base["ratio_lo"] or base["ratio_hi"] < variant["ratio_lo"]
            delta = 100 * (variant["ratio"] - base["ratio"])
            parts.append(f"{delta:+.1f} pp ({c}{'' if apart else ', within the spread'})")
        lines.append(f"- **{what}** (changes {changes}): " + ", ".join(parts) + " against the recipe.")
    for c in uses:
        found = onednn[c]
        lines.append(
            f"- **oneDNN primitives:** a warm recipe epoch of the {c}, run alone in a child process, created"
            f" {found['created']} oneDNN primitives for its {found['rnn_executions']} RNN calls"
            + (
                f" and found all {found['found_in_cache']} it asked for in oneDNN's cache: creating them is not a"
                " cost after the first epoch."
                if found["created"] == 0
                else f" ({found['found_in_cache']} found in the cache): creating them is a cost here."
            )
        )
    lines += [
        f"- **oneDNN primitives:** PyTorch ran the {c} without oneDNN's RNN kernel (0 oneDNN RNN calls)."
        for c in names
        if c not in uses
    ]
    widths = {width for side in epochs.values() for width in side["batch_widths"]}
    if len(widths) == 1:
        lines.append(
            f"- **Batch width:** every batch of both epochs holds {widths.pop()} sequences, so the cost of a step at"
            " other widths does not enter here (the token budget's batches, whose widths vary, are timed above)."
        )
    return lines
