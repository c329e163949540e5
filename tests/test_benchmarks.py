"""Tests for the benchmark package on tiny sizes (a few seconds in all)."""

import csv
import json
import re

import pytest
import torch

from benchmarks import cli, data, grid, recipe, report

TINY_GRID = grid.GridSpec(
    n_sequences=12,
    runs=1,
    min_run_time=0.0,
    structure_models=(("LSTM", True, 2), ("GRU", False, 1)),
    base_size=(4, 8),
    sizes=((6, 4),),
    size_dists=("lognormal",),
)
TINY_RECIPE = recipe.RecipeSpec(
    n_sequences=24, batch_size=4, vocab_size=20, embed_size=4, hidden_size=8, rounds=2, runs=1
)
LAST_LINE = re.compile(r"^recipe/ideal = \d+\.\d\d$")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("results")
    rows, machine, files = cli.run(True, "cpu", 1, out_dir, grid_spec=TINY_GRID, recipe_spec=TINY_RECIPE)
    return rows, machine, files, out_dir


def test_csv_schema(tiny_run):
    rows, _, files, out_dir = tiny_run
    csv_path = out_dir / "cpu_quick.csv"
    assert csv_path in files
    with csv_path.open() as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == cli.CSV_COLUMNS
        written = list(reader)
    assert len(written) == len(TINY_GRID.points()) + TINY_RECIPE.measurements() == len(rows)
    parsed = cli.read_csv(csv_path)
    for row in parsed:
        assert row["suite"] in ("grid", "recipe")
        assert row["device"] == "cpu" and row["threads"] == 1
        assert row["median_s"] > 0 and row["iqr_s"] >= 0 and row["runs"] >= 1
        assert 0 < row["real_tokens"] <= row["padded_tokens"]
        assert row["ideal"] == pytest.approx(row["real_tokens"] / row["padded_tokens"], abs=1e-4)
    assert {r["strategy"] for r in parsed if r["suite"] == "grid"} == set(grid.GRID_STRATEGIES)
    assert {r["strategy"] for r in parsed if r["suite"] == "recipe"} == set(recipe.RECIPE_STRATEGIES)
    assert {r["dist"] for r in parsed if r["suite"] == "grid"} == set(data.DISTRIBUTIONS)
    assert {r["pass"] for r in parsed if r["suite"] == "grid"} == set(grid.PASSES)


def test_machine_json(tiny_run):
    _, _, _, out_dir = tiny_run
    machine = json.loads((out_dir / "cpu_quick_machine.json").read_text())
    for key in ("cpu_model", "threads", "torch", "device", "logical_cpus", "flush_denormal"):
        assert key in machine
    assert machine["torch"] == torch.__version__ and machine["threads"] == 1
    assert machine["mode"] == "quick"
    assert set(machine["recipe_checks"]) == set(TINY_RECIPE.cells)


def test_quick_results_do_not_overwrite_full_results():
    assert cli.result_stem("cpu", quick=True) != cli.result_stem("cpu", quick=False)


def test_ideal_is_real_over_padded_tokens():
    lengths = torch.tensor([3, 1, 2, 2])
    batches = [torch.tensor([0, 1]), torch.tensor([2, 3])]
    assert data.padded_tokens(lengths, batches) == 2 * 3 + 2 * 2
    assert data.ideal_ratio(lengths, batches) == pytest.approx(8 / 10)
    bucketed = [torch.tensor([0, 2]), torch.tensor([1, 3])]
    assert data.ideal_ratio(lengths, bucketed) == pytest.approx(8 / (2 * 3 + 2 * 2))
    assert data.ideal_ratio(torch.full((6,), 5), data.random_batches(6, 4, torch.Generator())) == 1.0


@pytest.mark.parametrize("pool_batches", [None, 2])
def test_bucketed_batches_cover_every_sequence_once(pool_batches):
    generator = torch.Generator().manual_seed(0)
    lengths = data.sample_lengths("lognormal", 50, generator)
    batches = data.bucketed_batches(lengths, 8, generator, pool_batches)
    assert sorted(torch.cat(batches).tolist()) == list(range(50))
    assert data.padded_tokens(lengths, batches) <= data.padded_tokens(
        lengths, data.random_batches(50, 8, torch.Generator().manual_seed(0))
    )


@pytest.mark.parametrize(("n", "batch_size"), [(4096, 32), (100, 32), (37, 8), (5, 8)])
def test_recipe_and_ideal_process_the_same_real_tokens(n, batch_size):
    lengths = data.sample_lengths("lognormal", n, torch.Generator().manual_seed(1))
    epochs = recipe.build_epochs(lengths, batch_size, vocab_size=50, num_classes=3)
    recipe_epoch, ideal = epochs["recipe"], epochs["ideal"]
    assert len(ideal.lengths) == len(recipe_epoch.lengths) == n
    assert len(ideal.batches) == len(recipe_epoch.batches)
    assert [len(b) for b in ideal.batches] == sorted((len(b) for b in recipe_epoch.batches), reverse=True)
    assert abs(ideal.real_tokens - recipe_epoch.real_tokens) <= batch_size / 2
    assert ideal.padded_tokens == ideal.real_tokens  # no padding at all
    assert int(ideal.lengths.max()) - int(ideal.lengths.min()) <= 1  # every sequence of the mean length
    for name in recipe.RECIPE_STRATEGIES[:-1]:
        assert epochs[name].real_tokens == recipe_epoch.real_tokens
        assert sorted(torch.cat(epochs[name].batches).tolist()) == list(range(n))


@pytest.mark.parametrize("cell", ["GRU", "LSTM"])
@pytest.mark.parametrize("max_steps", [None, 3])  # 3: long batches run through the RNN in pieces
def test_recipe_matches_packed_model(cell, max_steps):
    spec = recipe.RecipeSpec(
        n_sequences=20,
        batch_size=4,
        vocab_size=30,
        embed_size=4,
        hidden_size=6,
        max_steps=max_steps,
    )
    epochs = recipe.build_epochs(recipe.recipe_lengths(spec), 4, spec.vocab_size, spec.num_classes)
    assert int(epochs["naive"].lengths.max()) > 3
    model, _ = recipe.fresh_model(spec, cell, "cpu")
    for name in ("recipe", "naive"):
        checks = recipe.check_recipe(model, epochs[name], "cpu")
        assert checks["max_logit_diff"] < 1e-5 and checks["max_grad_diff"] < 1e-5
        assert checks["last_step_logit_error"] > 1e-3  # output[:, -1] would be wrong


def test_check_recipe_catches_a_wrong_read(monkeypatch):
    spec = recipe.RecipeSpec(n_sequences=20, batch_size=4, vocab_size=30, embed_size=4, hidden_size=6)
    epochs = recipe.build_epochs(recipe.recipe_lengths(spec), 4, spec.vocab_size, spec.num_classes)
    model, _ = recipe.fresh_model(spec, "GRU", "cpu")
    forward = recipe.SequenceClassifier.forward

    def last_column(self, tokens, lengths, read="gather"):  # the classic bug: ignore the lengths
        full = torch.full_like(lengths, tokens.shape[1])
        return forward(self, tokens, full if read == "gather" else lengths, read)

    monkeypatch.setattr(recipe.SequenceClassifier, "forward", last_column)
    with pytest.raises(AssertionError):
        recipe.check_recipe(model, epochs["naive"], "cpu")


def test_summary_last_line(tiny_run):
    rows, machine, files, _ = tiny_run
    lines = cli.summary_lines(rows, machine, files)
    assert LAST_LINE.match(lines[-1])
    ratios = cli.recipe_ratios(rows)
    assert lines[-1] == f"recipe/ideal = {max(r['recipe'] for r in ratios.values()):.2f}"


def test_cli_prints_the_ratio_last_and_no_progress_under_ci(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(
        grid,
        "QUICK",
        grid.GridSpec(
            n_sequences=8,
            runs=1,
            min_run_time=0.0,
            structure_models=(("GRU", False, 1),),
            base_size=(4, 4),
            sizes=(),
            size_dists=(),
        ),
    )
    monkeypatch.setattr(
        recipe,
        "QUICK",
        recipe.RecipeSpec(
            n_sequences=8,
            batch_size=4,
            vocab_size=10,
            embed_size=2,
            hidden_size=2,
            cells=("GRU",),
            rounds=1,
            runs=1,
        ),
    )
    cli.main(["--quick", "--threads", "1", "--out-dir", str(tmp_path)])
    captured = capsys.readouterr()
    assert LAST_LINE.match(captured.out.rstrip("\n").splitlines()[-1])
    assert captured.err == ""  # the progress bar is off under CI
    assert (tmp_path / "cpu_quick.csv").exists() and (tmp_path / "cpu_quick_machine.json").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_gpu_fails_clearly(capsys):
    with pytest.raises(SystemExit) as raised:
        cli.parse_args(["--device", "cuda"])
    assert raised.value.code == 2
    assert "torch.cuda.is_available() is False" in capsys.readouterr().err


def test_page_is_generated_from_committed_results():
    assert report.PAGE.read_text() == report.render_page(cli.RESULTS_DIR), (
        "book/performance.md is stale: run `python -m benchmarks.report`"
    )


def test_page_from_tiny_results(tiny_run, tmp_path):
    _, _, _, out_dir = tiny_run
    for suffix in (".csv", "_machine.json"):  # pretend the quick run was a full one
        (tmp_path / f"cpu{suffix}").write_text((out_dir / f"cpu_quick{suffix}").read_text())
    page = report.render_page(tmp_path)
    assert page.startswith("# Performance")
    assert "recipe/ideal = " in page and "not measured yet" in page
    assert "## Decision table" in page


# What each strategy feeds the model, and whether the timings respect it. Deterministic: the batches of every
# strategy come from seeded generators, and the RNN's input is counted, not the epoch's bookkeeping.


def minimal_padded_tokens(lengths: torch.Tensor, batch_size: int) -> int:
    """The fewest padded time steps any split into batches of batch_size can have: sort, then cut."""
    ordered = lengths.sort(descending=True).values
    return sum(int(ordered[i]) * len(ordered[i : i + batch_size]) for i in range(0, len(ordered), batch_size))


def steps_fed_to_rnn(model, epoch) -> int:
    """Time steps the RNN computes in one training epoch: batch x padded length, or the packed data's rows."""
    fed = []

    def count(_module, args):
        inputs = args[0]
        if isinstance(inputs, torch.nn.utils.rnn.PackedSequence):
            fed.append(inputs.data.shape[0])
        else:
            fed.append(inputs.shape[0] * inputs.shape[1])

    handle = model.rnn.register_forward_pre_hook(count)
    try:
        recipe.train_epoch(model, torch.optim.SGD(model.parameters(), lr=0.0), epoch, "cpu")
    finally:
        handle.remove()
    return sum(fed)


@pytest.fixture
def one_thread():
    """Tiny models run fastest on one thread (two contend with the other tests under xdist)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_what_each_strategy_feeds_the_model(one_thread):
    spec = recipe.RecipeSpec(n_sequences=48, batch_size=8, vocab_size=20, embed_size=4, hidden_size=4, max_steps=64)
    lengths = recipe.recipe_lengths(spec)
    epochs = recipe.build_epochs(lengths, spec.batch_size, spec.vocab_size, spec.num_classes, chunk_batches=2)
    fed = {name: steps_fed_to_rnn(recipe.fresh_model(spec, "GRU", "cpu")[0], epoch) for name, epoch in epochs.items()}
    for name, epoch in epochs.items():
        expected = epoch.real_tokens if epoch.read == "packed" else epoch.padded_tokens
        assert fed[name] == expected, f"{name}: the RNN ran {fed[name]} steps, the epoch says {expected}"
    real = epochs["naive"].real_tokens
    assert fed["packed"] == fed["chunked_packed"] == fed["bucketed_packed"] == real
    assert fed["recipe"] == minimal_padded_tokens(lengths, spec.batch_size)  # bucketed: sorted, then cut
    assert epochs["recipe"].padded_tokens == epochs["bucketed_packed"].padded_tokens  # the same batches
    assert fed["recipe"] <= fed["chunked"] < fed["naive"]
    assert fed["naive"] > 1.5 * fed["recipe"]  # the long tail: random batches pad a lot
    assert fed["ideal"] == epochs["ideal"].real_tokens == epochs["ideal"].padded_tokens  # no padding at all


def test_cli_rows_report_what_each_strategy_feeds(tiny_run):
    rows, _, _, _ = tiny_run
    for cell in TINY_RECIPE.cells:
        by_name = {r["strategy"]: r for r in rows if r["suite"] == "recipe" and r["cell"] == cell}
        assert by_name["ideal"]["padded_tokens"] == by_name["ideal"]["real_tokens"]
        assert by_name["recipe"]["padded_tokens"] == by_name["bucketed_packed"]["padded_tokens"]
        assert by_name["recipe"]["padded_tokens"] < by_name["naive"]["padded_tokens"]
    grid_rows = [r for r in rows if r["suite"] == "grid"]
    for row in grid_rows:
        if row["strategy"] == "bucketed":
            padded = next(
                r
                for r in grid_rows
                if r["strategy"] == "padded"
                and all(
                    r[k] == row[k]
                    for k in ("cell", "bidirectional", "num_layers", "batch_size", "hidden_size", "dist", "pass")
                )
            )
            assert row["padded_tokens"] <= padded["padded_tokens"]


TIMED_SPEC = recipe.RecipeSpec(
    n_sequences=48,
    batch_size=8,
    vocab_size=20,
    embed_size=4,
    hidden_size=4,
    cells=("GRU",),
    rounds=3,  # the recipe is timed once per round: three times
    runs=1,
    strategies=("naive", "recipe", "ideal"),
)


class _NoProgress:
    def set_postfix_str(self, _text):
        pass

    def update(self, _steps):
        pass


def test_more_work_is_not_reported_faster_beyond_the_spread(one_thread):
    """Naive pads far more than the recipe (same model, same sequences): it must not time faster.

    The spread is each row's interquartile range; the rivals (naive) are timed once, so their spread is 0
    (the benchmarks issue adds repeats). Only pairs whose work differs by more than 1.5x (RNN steps) are
    asserted, so that a correct run passes on any machine under any load; a recipe or ideal that does enough
    extra work per batch (a sleep, a copy) to cost more than naive's padding is caught. The recipe against
    the ideal (1.5x at these sizes, about 1.2x in time) is left out: too close to assert without flakes."""
    rows, _ = recipe.measure_recipe(TIMED_SPEC, "cpu", 1, _NoProgress())
    by_name = {row["strategy"]: row for row in rows}
    assert by_name["recipe"]["runs"] >= 3 and by_name["ideal"]["runs"] >= 3
    for slower, faster in (("naive", "recipe"), ("naive", "ideal")):
        more, less = by_name[slower], by_name[faster]
        assert more["padded_tokens"] > 1.5 * less["padded_tokens"]
        spread = more["iqr_s"] + less["iqr_s"]
        assert more["median_s"] >= less["median_s"] - spread, (
            f"{slower} ({more['padded_tokens']} padded steps) timed {more['median_s'] * 1e3:.1f} ms, faster "
            f"than {faster} ({less['padded_tokens']} steps) at {less['median_s'] * 1e3:.1f} ms beyond the spread "
            f"{spread * 1e3:.1f} ms: {faster} does work its padded tokens do not explain"
        )
