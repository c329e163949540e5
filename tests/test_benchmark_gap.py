"""Tests for where the recipe's time goes (benchmarks.gap) and the headline on each CPU (issue #40)."""

import json
import re
import shutil
from pathlib import Path

import pytest
import torch

from benchmarks import cli, gap, page, recipe, report, results

TINY = recipe.RecipeSpec(n_sequences=24, batch_size=4, vocab_size=20, embed_size=4, hidden_size=8, rounds=2)
README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.fixture(scope="module")
def tiny_gap():
    torch.set_num_threads(1)
    return gap.measure_gap(TINY, rounds=1, slices=2, progress=lambda _: None)


def test_the_gap_measures_every_stage_cause_and_cell(tiny_gap):
    assert set(tiny_gap["cells"]) == set(TINY.cells)
    for found in tiny_gap["cells"].values():
        assert set(found["stages"]["recipe"]) == set(results.STAGES) == set(found["stages"]["ideal"])
        assert all(seconds > 0 for side in found["stages"].values() for seconds in side.values())
        assert set(found["causes"]) == {"ideal", *results.GAP_VARIANTS}
        assert all(
            found["causes"][name]["ratio_lo"] <= found["causes"][name]["ratio_hi"] for name in results.GAP_VARIANTS
        )
        warm_and_cold = found["warm_and_cold"]
        assert warm_and_cold["length_floor"] == warm_and_cold["recipe_warm"] / warm_and_cold["ideal_warm"]
        assert warm_and_cold["shape_change"] == warm_and_cold["recipe_cold"] / warm_and_cold["recipe_warm"]
        groups = {side: [g for g in warm_and_cold["by_length"] if g["epoch"] == side] for side in ("recipe", "ideal")}
        for side, chosen in groups.items():  # the groups hold every batch, its steps and its seconds
            epoch = tiny_gap["epochs"][side]
            assert sum(g["rnn_steps"] for g in chosen) == epoch["rnn_steps"]
            assert sum(g["warm_s"] for g in chosen) == pytest.approx(warm_and_cold[f"{side}_warm"])
            assert sum(g["cold_s"] for g in chosen) == pytest.approx(warm_and_cold[f"{side}_cold"])
        assert len(groups["ideal"]) == 1
    assert tiny_gap["epochs"]["recipe"]["batch_widths"] == [TINY.batch_size]


def test_the_lstm_creates_its_onednn_primitives_in_the_first_epoch_only(tiny_gap):
    lstm, gru = tiny_gap["cells"]["LSTM"]["primitives"], tiny_gap["cells"]["GRU"]["primitives"]
    if not torch.backends.mkldnn.is_available():
        pytest.skip("this torch has no oneDNN")
    assert lstm["rnn_executions"] > 0 and lstm["created"] == 0, lstm
    assert gru == {"created": 0, "found_in_cache": 0, "rnn_executions": 0}  # PyTorch's own GRU kernel


def test_the_split_step_is_the_training_step():
    """The stage timing splits the graph at the embedding and the RNN: the gradients stay those of one step."""
    spec = TINY
    epochs = recipe.build_epochs(recipe.recipe_lengths(spec), spec.batch_size, spec.vocab_size, spec.num_classes)
    epoch, batch = epochs["recipe"], epochs["recipe"].batches[0]
    grads = []
    for split in (False, True):
        model, optimizer = recipe.fresh_model(spec, "LSTM", "cpu")
        optimizer.step = lambda: None  # keep the gradients to compare
        if split:
            gap.timed_step(model, optimizer, epoch, batch)
        else:
            tokens, lengths, labels = epoch.collate(batch, "cpu")
            torch.nn.functional.cross_entropy(model(tokens, lengths), labels).backward()
        grads.append([p.grad.clone() for p in model.parameters()])
    for split, whole in zip(*grads, strict=True):
        torch.testing.assert_close(split, whole)


def test_padding_to_a_multiple_keeps_the_logits():
    spec = TINY
    epochs = recipe.build_epochs(recipe.recipe_lengths(spec), spec.batch_size, spec.vocab_size, spec.num_classes)
    rounded, _ = gap.variant_epoch("multiple_of_8", epochs, spec.max_steps)
    model, _ = recipe.fresh_model(spec, "GRU", "cpu")
    for batch in epochs["recipe"].batches:
        tokens, lengths, _ = epochs["recipe"].collate(batch, "cpu")
        padded, _, _ = rounded.collate(batch, "cpu")
        assert padded.shape[1] % 8 == 0 and padded.shape[1] >= tokens.shape[1]
        torch.testing.assert_close(model(padded, lengths), model(tokens, lengths))


def test_shortest_first_runs_the_same_batches():
    spec = TINY
    epochs = recipe.build_epochs(recipe.recipe_lengths(spec), spec.batch_size, spec.vocab_size, spec.num_classes)
    ordered, _ = gap.variant_epoch("shortest_first", epochs, spec.max_steps)
    steps = [int(epochs["recipe"].lengths[b].max()) for b in ordered.batches]
    assert steps == sorted(steps)
    assert sorted(map(tuple, map(torch.Tensor.tolist, ordered.batches))) == sorted(
        map(tuple, map(torch.Tensor.tolist, epochs["recipe"].batches))
    )


def test_a_record_keeps_the_run_under_a_new_name(tmp_path):
    machine = {"date": "2026-12-03", "cpu_model": "AMD EPYC 9B14 96-Core", "cpu_capability": "AVX512", "mode": "quick"}
    written = [tmp_path / "cpu_quick.csv", tmp_path / "cpu_quick_machine.json"]
    written[0].write_text("rows\n")
    written[1].write_text("{}\n")
    folder = tmp_path / "headlines"
    first = cli.record(written, machine, folder)
    second = cli.record(written, machine, folder)
    assert [p.name for p in first] == [
        "2026-12-03_amd-epyc-9b14-96-core_avx512_quick_1.csv",
        "2026-12-03_amd-epyc-9b14-96-core_avx512_quick_1_machine.json",
    ]
    assert second[0].name.endswith("_quick_2.csv") and second[0].read_text() == "rows\n"


def test_the_page_lists_every_committed_run_and_their_range():
    runs = page.headline_runs()
    recorded = sorted((results.HEADLINES_DIR).glob("*.csv"))
    assert len(runs) == 1 + len(recorded)
    text = report.PAGE.read_text()
    low, high = page.headline_range()
    assert f"the headline (the worse of GRU and LSTM) lay between {low:.2f} and {high:.2f}" in text
    for number, run in enumerate(runs, start=1):
        assert f"| {number} | {run['cpu']} | {run['capability']} |" in text
        assert f"{number} `{run['file']}`" in text


def test_the_readme_states_the_pages_range():
    low, high = page.headline_range()
    readme = " ".join(README.read_text().split())
    assert f"between {low:.2f} and {high:.2f} on the CPUs measured so far" in readme


def test_the_gap_section_from_a_tiny_measurement(tiny_gap, tmp_path):
    for name in ("cpu.csv", "cpu_machine.json"):
        shutil.copy(results.RESULTS_DIR / name, tmp_path / name)
    machine = cli.machine_info("cpu", 1)
    found = {"machine": machine, "date": "2026-12-03", "rounds": 1, "slices": 2, "wall_s": 1.0, **tiny_gap}
    (tmp_path / results.GAP_FILE).write_text(json.dumps(found))
    text = page.render_page(tmp_path)
    section = text.split("## Where the recipe's time goes", 1)[1].split("\n## ", 1)[0]
    for stage in results.STAGES:
        assert f"| {page.STAGE_LABELS[stage]} |" in section
    for name in results.GAP_VARIANTS:
        assert f"| {page.CAUSE_LABELS[name]} |" in section
    assert re.search(r"length floor is [+-]\d+\.\d pp \(GRU\)", section)
    assert "| length floor: every batch warm |" in section
    assert "(the ideal) |" in section and "- **Short and long batches:** warm" in section
