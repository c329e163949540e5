"""Chapter 10's exercise checks under the attack of ../shared/reviews/exercise_checks_attack.md: the wrong answers
it found accepted now fail (a `deal_batches` that pads the caller's list in place, a detached `scaled_losses`),
and correct answers written another way pass (tests/test_exercises.py names each known mistake, in English and
Chinese). Also: the
worker modules that chapter 10 writes in visible cells are the package's code that deep dive 17 imports."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from exercise_harness import each_is_told, each_passes, notebook_path, printed

from padpack.course import bucket_sampler, review_model

# ---- deal_batches: padding the caller's list in place passed (other observations: in-place mutation) ----
IN_PLACE = """
def deal_batches(batches, world_size):
    repeats = -len(batches) % world_size
    batches += [batches[i % len(batches)] for i in range(repeats)]
    return [batches[rank::world_size] for rank in range(world_size)]
"""


def test_deal_batches_hard_coded_to_the_listed_cases_fails(chapter):
    check = chapter.check("deal_batches")
    listed = {tuple(map(tuple, case.args[0])): case.want for case in check.make_cases() if case.shown}
    lookup = {key: [list(map(list, rank)) for rank in value] for key, value in listed.items()}

    def deal_batches(batches, world_size):
        return lookup.get(tuple(map(tuple, batches)), [[] for _ in range(world_size)])

    assert printed(check, deal_batches).startswith("✗")


# ---- scaled_losses: a detached loss passed (attack finding 1) ----
DETACHED = {
    "rebuilt": """
def scaled_losses(sums, counts):
    return torch.tensor([s * len(sums) / int(counts.sum()) for s in sums.tolist()], dtype=sums.dtype)
""",
    "no_grad": """
@torch.no_grad()
def scaled_losses(sums, counts):
    return sums * len(sums) / counts.sum()
""",
    "detach": """
def scaled_losses(sums, counts):
    return (sums * len(sums) / counts.sum()).detach()
""",
}


def test_the_cases_of_scaled_losses_require_grad(chapter):
    for case in chapter.check("scaled_losses").make_cases():
        assert case.args[0].requires_grad and case.want.requires_grad


# ---- step_counts: a batch of one, hidden cases, other forms of the same answer ----


def test_step_counts_hard_coded_to_the_listed_cases_fails(chapter):
    check = chapter.check("step_counts")
    listed = {len(case.args[0]): case.want for case in check.make_cases() if case.shown}

    def step_counts(batches, world_size):
        return listed.get(len(batches), [])

    assert printed(check, step_counts).startswith("✗")


# ---- one source: the worker modules chapter 10 writes are the package's ----
@pytest.mark.parametrize("module", [bucket_sampler, review_model], ids=lambda m: m.__name__)
def test_the_written_worker_module_is_the_packages(module):
    name = module.__name__.rsplit(".", 1)[1]
    nb = json.loads(notebook_path("10").read_text(encoding="utf-8"))
    header = f"%%writefile ddp_run/{name}.py\n"
    (cell,) = [c for c in nb["cells"] if "".join(c["source"]).startswith(header)]
    written = "".join(cell["source"])[len(header) :]
    held = Path(module.__file__).read_text(encoding="utf-8")
    assert ast.dump(ast.parse(written)) == ast.dump(ast.parse(held))


# Correct answers written differently from the solutions, which the checks must accept.
CORRECT = {
    "deal_batches": [
        # cycle
        """
def deal_batches(batches, world_size):
    import itertools

    total = -(-len(batches) // world_size) * world_size
    padded = list(itertools.islice(itertools.cycle(batches), total))
    return [padded[r::world_size] for r in range(world_size)]
""",
        # a while loop, returning a tuple
        """
def deal_batches(batches, world_size):
    padded = list(batches)
    while len(padded) % world_size:
        padded.append(batches[(len(padded) - len(batches)) % len(batches)])
    return tuple(padded[r::world_size] for r in range(world_size))
""",
    ],
    "scaled_losses": [
        "def scaled_losses(sums, counts):\n    return sums / counts.sum() * sums.numel()\n",
        "def scaled_losses(sums, counts):\n    return sums * (len(counts) / counts.sum().item())\n",
        "def scaled_losses(sums, counts):\n    return torch.stack([s * len(sums) / counts.sum() for s in sums])\n",
    ],
    "step_counts": [
        # a zip of the ranks
        """
def step_counts(batches, world_size):
    ranks = [batches[r::world_size] for r in range(world_size)]
    return [sum(len(b) for b in step) for step in zip(*ranks)]
""",
        # a list of NumPy integers, which == [...] compares as ints
        """
def step_counts(batches, world_size):
    import numpy as np

    sizes = np.array([len(b) for b in batches])
    return list(sizes.reshape(-1, world_size).sum(1))
""",
    ],
}
test_correct_answers_pass = each_passes(CORRECT)


# Wrong answers, each with words the check's rejection must say.
SAID = {
    "deal_batches": [(IN_PLACE, "changed its argument `batches` in place")],
    "scaled_losses": [(source, "no gradient: it was detached") for source in DETACHED.values()],
    # a tensor of sizes: the chapter's next cell compares the answer with == [...], which a tensor fails
    "step_counts": [
        (
            """
def step_counts(batches, world_size):
    sizes = torch.tensor([len(b) for b in batches])
    return sizes.view(-1, world_size).sum(1)
""",
            "What it returned is a tensor; the right answer is a Python list",
        )
    ],
}
test_wrong_answers_are_told_why = each_is_told(SAID)
