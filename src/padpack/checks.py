"""The exercise checks: call a check on your function and read ✓, the mistake it makes, or exactly what differs.

An `Exercise` holds the cases to try (each an input and its right answer, found another way), the table of known
`Mistake`s (wrong answers learners write, what each one is, and the page that explains it) and a hint. Calling
it on the learner's function prints one of:
  - "Not attempted yet", only for the untouched stub (its body is `raise NotImplementedError` or `...`);
  - "✓ ... is right", with the cases it was checked on (hidden cases are checked too, not listed, so that an
    answer hard-coded to the listed ones fails);
  - "✗ ... is wrong on <case>" (a listed case, or "a case that is not listed", whose inputs stay hidden), then
    the mistake's sentence and link when the answer is the table's wrong answer on every case it gets wrong
    (one case could not tell two mistakes apart), else what differs: the place of a tuple, list or dict as one
    path (what it returned[1][2]), its type (a NumPy array or a list for a tensor, a tensor for a list), shape,
    dtype, values, the right rows in another order (of a whole answer, or of half a pair), two dimensions glued
    by a view, or for a boolean mask the positions; an exception, with what torch's in-place and out-of-range
    errors mean; None; an argument changed in place; missing gradients, a graph freed by a backward() inside,
    or wrong gradients.
It never raises, so Colab's Run all goes on past an exercise left unfilled.

>>> check = Exercise(
...     lambda: [Case(N_("two numbers"), (2, 3), 5)],
...     [Mistake(lambda a, b: a * b, N_("That multiplies."), "01_why_padding_wastes_compute#why-pack")],
...     N_("Use +."),
... )
>>> def add(a, b):
...     return a + b
>>> check(add)
✓ add is right. Checked:
  - two numbers
"""

from __future__ import annotations

import ast
import copy
import dis
import inspect
import itertools
import math
import re
import textwrap
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np
import torch

from padpack.i18n import N_, edition_path, gettext, wrap

SITE = "https://pad-pack-train.github.io/pad-pack-train/"
WIDTH = 79  # the columns the site shows


class Case(NamedTuple):
    """An input to try and its right answer, found another way.

    `label` (English, marked with N_) is printed in the list of checked cases unless `shown` is False: a hidden
    case is checked like the others, so that an answer written for the listed inputs fails.
    """

    label: str
    args: tuple
    want: Any
    shown: bool = True


class Failure(NamedTuple):
    """What a learner's function gave on a case it gets wrong: its answer (or error), whether that has the right
    values, the argument it changed in place (or None), and what is wrong with its gradients (or None)."""

    case: Case
    got: object
    right: bool
    mutated: str | None
    gradients: str | None = None


class Mistake(NamedTuple):
    """A wrong answer learners write, what it is (English, marked with N_), and where it is taught.

    `see` is "notebook_stem#anchor" of the section that explains it. A mistake whose function raises on a case
    is skipped there, unless `raises` says the error is the mistake (then the learner's error must match it in
    type and message): a mistake that crashes by accident must not be named for another answer's crash.
    """

    wrong: Callable
    message: str
    see: str
    raises: bool = False


# The words of every check, in English; each one is a msgid of the package's catalogue.
TEXT = {
    "todo": N_(
        "Not attempted yet: fill in the body of {name} above\n"
        "(and return its result), run that cell, then run this one again."
    ),
    "right": N_("✓ {name} is right. Checked:"),
    "hidden": N_("  - and {count} more cases, not listed, with other inputs"),
    "hidden_one": N_("  - and 1 more case, not listed, with other inputs"),
    "wrong": N_("✗ {name} is wrong on {case}."),
    "wrong_hidden": N_("✗ {name} is wrong on a case that is not listed (its inputs stay hidden)."),
    "none": N_("It returned None: is a `return` missing, or a branch that returns nothing?"),
    "not_implemented": N_("It raised NotImplementedError: {error} (your code raised it, not the unfilled stub)."),
    "raised": N_("It raised {error}"),
    "mutated": N_(
        "It changed its argument `{argument}` in place: the caller's data must stay as it was. "
        "Work on a copy (.clone(), list(...)) or build a new result."
    ),
    "type": N_("{what} has type {got}; the right type is {want}."),
    "length": N_("{what} has length {got}; the right length is {want}."),
    "keys": N_("{what} has the keys {got}; the right answer has {want}."),
    "shape": N_("{what} has shape {got}; the right shape is {want}."),
    "dtype": N_("{what} has dtype {got}; the right dtype is {want}."),
    "positions": N_("{what} is wrong at {count} of {total} positions; the first: {positions}."),
    "more_positions": N_("{first} ..."),  # the first three positions, when more are wrong
    "values": N_(
        "{what} has other values: the largest difference is {diff}, at index {index} ({got} instead of {want})."
    ),
    "other": N_("{what} is {got}; the right answer is {want}."),
    "detached": N_(
        "{what} has the right values but no gradient: it was detached from the inputs (torch.no_grad, .detach(), "
        ".item() or torch.tensor(...) rebuild it from plain numbers), so backward() cannot reach them."
    ),
    "graph_freed": N_(
        "{what} has the right values, but backward() was already called through it inside the function, which "
        "freed its graph: return the result and leave backward() to the caller."
    ),
    "inplace_modified": N_(
        "{what} has the right values, but backward() through it fails: a tensor that autograd saved was changed "
        "in place afterwards (+=, x[i] = ..., an op ending in _). Compute a new tensor instead."
    ),
    "no_backward": N_("{what} has the right values, but backward() through it fails: {error}"),
    "inplace_leaf": N_(
        "An in-place operation (x /= ..., x.div_(...), x[i] = ...) changed an input that requires grad: autograd "
        "must keep it as it is. Compute a new tensor instead (x = x / ...)."
    ),
    "index_dimension": N_(
        "An index is out of range along dimension {dim}. Do your indices count along that dimension (gather, "
        "index_select and scatter take them along the dimension you pass: time, or batch?), and do they stop at "
        "its size - 1 (lengths - 1 for the last real step)?"
    ),
    "index_range": N_(
        "An index is out of range. Do your indices count along the dimension you index (gather, index_select "
        "and scatter take them along the dimension you pass: time, or batch?), and do they stop at its size - 1 "
        "(lengths - 1 for the last real step)?"
    ),
    "numpy_for_tensor": N_(
        "{what} is a NumPy array; the right answer is a torch.Tensor. Build it with torch operations "
        "(torch.as_tensor turns an array into a tensor)."
    ),
    "list_for_tensor": N_(
        "{what} is a Python list; the right answer is a torch.Tensor. Build it with torch operations, or turn "
        "the list into one: torch.tensor for numbers, torch.stack for tensors."
    ),
    "tensor_for_list": N_(
        "{what} is a tensor; the right answer is a Python list, which the chapter's next cells compare with "
        "== [...]: .tolist() turns it into one."
    ),
    "glued": N_(
        "{what} holds the right numbers, but two dimensions are mixed up: view and reshape keep the memory "
        "order, so where dimensions must change places (transpose, permute) or be joined (torch.cat) they glue "
        "together rows that do not belong together."
    ),
    "rows_reordered": N_(
        "{what} holds the right rows in another order along dimension {dim}: the batch was reordered (sorted, "
        "indexed) and not put back, or put back twice."
    ),
    "half_sorted": N_(
        "{what} holds the right rows in another order along dimension {dim}, while the rest of the answer is "
        "right: reorder everything that belongs together with the same order."
    ),
    "gradients": N_(
        "{what} has the right values but not the right gradients: backward() through it gives the inputs other "
        "gradients (largest difference {diff})."
    ),
    "result": N_("What it returned"),
    "see": N_("See:"),
    "hint": N_("Hint:"),
    "answer": N_("Answer:"),
}


# Where a translation puts a Chinese character right after {what} (返回值的…), a name that ends in Latin letters,
# digits or brackets (返回值[0], lengths) takes the space the book puts between the two: 返回值[0] 的…
_WHAT_BEFORE_CJK = re.compile(r"\{what\}(?=[\u4e00-\u9fff])")


def _text(name: str, /, **values: object) -> str:
    template = gettext(TEXT[name])
    what = values.get("what")
    if isinstance(what, str) and what[-1:].isascii() and not what[-1:].isspace():
        template = _WHAT_BEFORE_CJK.sub("{what} ", template)
    return template.format(**values)  # positional-only: "key" is a placeholder too


def _leaves(value: object) -> Iterator[torch.Tensor]:
    """The tensors inside a (nested) tuple, list or dict, in order."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)


def _inputs(args: object) -> list[torch.Tensor]:
    """The tensors that gradients can reach in a case's arguments: those that require grad, and the parameters
    of a model among them, in order."""
    if isinstance(args, torch.Tensor):
        return [args] if args.requires_grad else []
    if isinstance(args, torch.nn.Module):
        return [parameter for parameter in args.parameters() if parameter.requires_grad]
    if isinstance(args, (tuple, list)):
        return [leaf for item in args for leaf in _inputs(item)]
    if isinstance(args, dict):
        return [leaf for item in args.values() for leaf in _inputs(item)]
    return []


def _outcome(function: Callable, args: tuple) -> object:
    """What `function(*args)` returns, or the exception it raises (any but an interrupt: SystemExit too)."""
    try:
        return function(*args)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 (an error is an answer too)
        return error


def _raised(value: object) -> bool:
    return isinstance(value, BaseException)


def _str(value: object) -> str:
    """str(value), or a stand-in when its __str__ raises."""
    try:
        return str(value)
    except Exception:  # noqa: BLE001
        return f"<unprintable {_type_name(value)} object>"


# Tolerances for float answers: float32's and float64's, looser for the half-precision types (torch.testing's).
_TOLERANCES = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}


def _close(got: torch.Tensor, want: torch.Tensor) -> bool:
    got, want = got.detach().cpu(), want.detach().cpu()
    if want.dtype == torch.bool or not (want.is_floating_point() or want.is_complex()):
        return torch.equal(got, want)
    rtol, atol = _TOLERANCES.get(want.dtype, (1e-4, 1e-5))
    return torch.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def same(got: object, want: object) -> bool:
    """Whether `got` is the right answer `want`: same types, shapes and dtypes, values up to float rounding.

    An answer that cannot be compared (its == raises, its tensor cannot be read) is not the right one.
    """
    try:
        return bool(_same(got, want))
    except Exception:  # noqa: BLE001 (RecursionError, a meta or sparse tensor, an == that raises)
        return False


def _same(got: object, want: object) -> bool:
    if isinstance(want, BaseException):
        return type(got) is type(want) and _str(got) == _str(want)
    if isinstance(want, torch.Tensor):
        return (
            isinstance(got, torch.Tensor) and got.shape == want.shape and got.dtype == want.dtype and _close(got, want)
        )
    if isinstance(want, np.ndarray):
        return (
            isinstance(got, np.ndarray)
            and got.shape == want.shape
            and got.dtype == want.dtype
            and (
                _close(torch.from_numpy(got), torch.from_numpy(want))
                if want.dtype.kind in "biufc"
                else bool(np.array_equal(got, want))
            )
        )
    if isinstance(want, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, float):
        return (
            isinstance(got, (int, float))
            and not isinstance(got, bool)
            and math.isclose(got, want, rel_tol=1e-4, abs_tol=1e-6)
        )
    if isinstance(want, torch.nn.Module):
        return isinstance(got, torch.nn.Module) and _same(got.state_dict(), want.state_dict())
    return type(got) is type(want) and bool(got == want)


def _short(value: object) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 (an object that cannot be printed is named by its type)
        text = f"<{_type_name(value)}>"
    return textwrap.shorten(text, 60, placeholder=" ...")


def _type_name(value: object) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _index(flat_index: int, shape: torch.Size) -> tuple[int, ...]:
    index = []
    for size in reversed(shape):
        flat_index, rest = divmod(flat_index, size)
        index.append(rest)
    return tuple(reversed(index))


def _numbers(got: float, want: float) -> tuple[str, str]:
    """Two floats printed with 4 significant digits, or as many more as it takes to tell them apart."""
    for digits in range(4, 18):
        shown = f"{got:.{digits}g}", f"{want:.{digits}g}"
        if shown[0] != shown[1]:
            break
    return shown


def _tensor_difference(got: torch.Tensor, want: torch.Tensor, what: str) -> str:
    got_cpu, want_cpu = got.detach().cpu(), want.detach().cpu()
    if want.dtype == torch.bool:
        wrong = got_cpu != want_cpu
        count = int(wrong.sum())
        first = wrong.nonzero()[:3].tolist()
        shown = ", ".join(str(tuple(index)) for index in first)
        if count > 3:
            shown = _text("more_positions", first=shown)
        return _text("positions", what=what, count=count, total=want.numel(), positions=shown)
    exact = not (want.is_floating_point() or want.is_complex())
    wide = torch.complex128 if want.is_complex() else torch.float64
    gap = (got_cpu.to(wide) - want_cpu.to(wide)).abs().nan_to_num(nan=math.inf)
    gap[got_cpu == want_cpu] = 0  # equal infinities
    if not exact:
        gap[got_cpu.isnan() & want_cpu.isnan()] = 0  # NaN where NaN is right
    flat = int(gap.flatten().argmax())
    got_value, want_value = got_cpu.flatten()[flat].item(), want_cpu.flatten()[flat].item()
    if exact:
        diff, shown = str(int(gap.flatten()[flat])), (str(got_value), str(want_value))
    else:
        diff, shown = f"{float(gap.flatten()[flat]):.3g}", _numbers(got_value, want_value)
    index = _index(flat, want.shape) if want.dim() else "()"
    return _text("values", what=what, diff=diff, index=index, got=shown[0], want=shown[1])


def difference(got: object, want: object, what: str | None = None) -> str:
    """One sentence that says where and how `got` differs from `want` (the first difference inside containers).

    >>> difference((torch.tensor([0, 2, 5]), torch.tensor([0, 1, 0, 1, 2], dtype=torch.int32)),
    ...            (torch.tensor([0, 2, 5]), torch.tensor([0, 1, 0, 1, 2])))
    'What it returned[1] has dtype torch.int32; the right dtype is torch.int64.'
    """
    what = what or _text("result")
    try:
        return _difference(got, want, what)
    except Exception:  # noqa: BLE001 (a tensor that cannot be read, a list that holds itself...)
        if type(got) is not type(want):
            return _text("type", what=what, got=_type_name(got), want=_type_name(want))
        return _text("other", what=what, got=_short(got), want=_short(want))


def _difference(got: object, want: object, what: str) -> str:
    if isinstance(want, torch.Tensor):
        if isinstance(got, np.ndarray):
            return _text("numpy_for_tensor", what=what)
        if isinstance(got, list):
            return _text("list_for_tensor", what=what)
        if not isinstance(got, torch.Tensor):
            return _text("type", what=what, got=_type_name(got), want="torch.Tensor")
        if got.shape != want.shape:
            return _text("shape", what=what, got=tuple(got.shape), want=tuple(want.shape))
        if got.dtype != want.dtype:
            return _text("dtype", what=what, got=got.dtype, want=want.dtype)
        dim = _reordered_dim(got, want)
        if dim is not None:
            return _text("rows_reordered", what=what, dim=dim)
        if _glued(got, want):
            return _text("glued", what=what)
        return _tensor_difference(got, want, what)
    if isinstance(want, list) and isinstance(got, torch.Tensor):
        return _text("tensor_for_list", what=what)
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)):
            return _text("type", what=what, got=_type_name(got), want=_type_name(want))
        if len(got) != len(want):
            return _text("length", what=what, got=len(got), want=len(want))
        for index, (item, right) in enumerate(zip(got, want, strict=True)):
            if not same(item, right):
                return _element_difference(got, want, index, f"{what}[{index}]")
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return _text("type", what=what, got=_type_name(got), want="dict")
        if got.keys() != want.keys():
            return _text("keys", what=what, got=sorted(map(str, got)), want=sorted(map(str, want)))
        for key, right in want.items():
            if not same(got[key], right):
                return _difference(got[key], right, f"{what}[{key!r}]")
    if isinstance(want, float) and not isinstance(got, (int, float)):
        return _text("type", what=what, got=_type_name(got), want="float")
    if isinstance(want, int) and type(got) is not type(want) and not isinstance(got, float):
        return _text("type", what=what, got=_type_name(got), want=_type_name(want))
    return _text("other", what=what, got=_short(got), want=_short(want))


def _element_difference(got: list | tuple, want: list | tuple, index: int, what: str) -> str:
    """What differs in element `index` of a tuple or list answer; "half sorted" when its rows are reordered while
    another element, of rows that an order changes too, is right."""
    item, right = got[index], want[index]
    dim = _reordered_dim(item, right) if isinstance(item, torch.Tensor) and isinstance(right, torch.Tensor) else None
    if dim is not None and any(
        isinstance(other, torch.Tensor) and other.dim() > dim and other.size(dim) > 1 and same(mine, other)
        for position, (mine, other) in enumerate(zip(got, want, strict=True))
        if position != index
    ):
        return _text("half_sorted", what=what, dim=dim)
    return _difference(item, right, what)


def _rows(tensor: torch.Tensor, dim: int) -> torch.Tensor:
    return tensor.detach().cpu().movedim(dim, 0).reshape(tensor.size(dim), -1)


def _reordered_dim(got: torch.Tensor, want: torch.Tensor) -> int | None:
    """The first dimension that can hold the batch (0, or 1 of a time-major tensor of 3 or more dimensions) along
    which `got`, of `want`'s shape and dtype, holds `want`'s rows in another order; None if there is none. The
    columns of a (batch, features) answer in another order are not a batch put in another order."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return None
    for dim in range(min(want.dim(), 1 if want.dim() < 3 else 2)):
        mine, right = _rows(got, dim), _rows(want, dim)
        unused = list(range(len(right)))
        for row in mine:
            match = next((i for i in unused if _close(row, right[i])), None)
            if match is None:
                break
            unused.remove(match)
        else:
            if not _close(mine, right):
                return dim
    return None


def _splits(size: int) -> list[tuple[int, ...]]:
    """A dimension of `size` as it is, or split in two (a (B, 2H) row read as (B, 2, H))."""
    return [(size,)] + [(first, size // first) for first in range(2, size) if size % first == 0]


def _glued(got: torch.Tensor, want: torch.Tensor) -> bool:
    """Whether `got` is `want` with two of its dimensions (or halves of them) swapped and then read back in its
    shape by a view or reshape: what a reshape gives where a transpose or a torch.cat was needed."""
    if got.shape != want.shape or want.numel() < 2 or want.dim() > 4:
        return False
    mine, right = got.detach().cpu(), want.detach().cpu()
    if not _close(mine.flatten().sort().values, right.flatten().sort().values):
        return False  # not the same numbers
    for tried, shape in enumerate(itertools.product(*map(_splits, want.shape))):
        if tried == 512:
            break
        fine = [size for part in shape for size in part]
        grid = right.reshape(fine)
        for first, second in itertools.combinations(range(len(fine)), 2):
            if fine[first] > 1 and fine[second] > 1 and _close(grid.transpose(first, second).reshape(want.shape), mine):
                return True
    return False


# What torch's own errors mean, for the sentence after "It raised ...": a pattern of the error and its entry.
_ERRORS = {
    r"leaf Variable that requires grad is being used in an in-place operation": "inplace_leaf",
    r"out of bounds for dimension (?P<dim>-?\d+)": "index_dimension",
    r"INDICES element is out of DATA bounds": "index_range",
}


def _explained(error: BaseException) -> str:
    """The line "It raised ...", then what the error means when it is one of _ERRORS."""
    line = (f"{type(error).__name__}: {_str(error)}".splitlines() or [""])[0]
    sentence = _text("raised", error=textwrap.shorten(line, 200))
    for pattern, name in _ERRORS.items():
        found = re.search(pattern, _str(error))
        if found:
            return f"{sentence}\n{_text(name, **found.groupdict())}"
    return sentence


def _backward_failed(error: Exception) -> str:
    """Why backward() through a learner's answer raised."""
    message = _str(error)
    if "backward through the graph a second time" in message:
        return _text("graph_freed", what=_text("result"))
    if "modified by an inplace operation" in message:
        return _text("inplace_modified", what=_text("result"))
    line = (f"{type(error).__name__}: {message}".splitlines() or [""])[0]
    return _text("no_backward", what=_text("result"), error=textwrap.shorten(line, 200))


def _gradients(got: object, want: object, got_args: tuple, want_args: tuple) -> str | None:
    """None when `got` carries the gradients `want` carries; else the sentence that says how it does not.

    Only the tensors of `want` that require grad are checked, each weighted by random numbers so that a
    gradient sent to the wrong output also shows: their gradients, with respect to the arguments that require
    grad and the parameters of a model among them, must be those of `want`.
    """
    want_leaves = list(_leaves(want))
    got_leaves = list(_leaves(got))
    if len(got_leaves) != len(want_leaves):
        return None  # a model's state, compared by value: nothing to differentiate
    pairs = [(mine, right) for mine, right in zip(got_leaves, want_leaves, strict=True) if right.requires_grad]
    if not pairs:
        return None
    detached = _text("detached", what=_text("result"))
    if not all(mine.requires_grad for mine, _ in pairs):
        return detached
    inputs, copies = _inputs(want_args), _inputs(got_args)
    if not inputs or len(inputs) != len(copies):
        return None
    generator = torch.Generator().manual_seed(0)
    weights = [torch.randn(right.shape, generator=generator, dtype=torch.float64) for _, right in pairs]

    def grads(tensors: list[torch.Tensor], leaves: list[torch.Tensor]) -> tuple[torch.Tensor | None, ...]:
        total = sum((t.double() * w.to(t.device)).sum() for t, w in zip(tensors, weights, strict=True))
        return torch.autograd.grad(total, leaves, allow_unused=True, retain_graph=True)

    try:
        want_grads = grads([right for _, right in pairs], inputs)
    except Exception:  # noqa: BLE001 (the case's own answer cannot be differentiated: nothing to compare)
        return None
    if all(grad is None for grad in want_grads):
        return None
    try:
        got_grads = grads([mine for mine, _ in pairs], copies)
    except Exception as error:  # noqa: BLE001 (its graph cannot be differentiated back to the inputs)
        return _backward_failed(error)
    if all(grad is None for grad in got_grads):
        return detached  # a new tensor that requires grad, built from plain numbers
    gap = 0.0
    for mine, right, leaf in zip(got_grads, want_grads, inputs, strict=True):
        mine = torch.zeros_like(leaf) if mine is None else mine
        right = torch.zeros_like(leaf) if right is None else right
        if not _close(mine, right):
            gap = max(gap, (mine.detach().cpu().double() - right.detach().cpu().double()).abs().max().item())
    return None if gap == 0.0 else _text("gradients", what=_text("result"), diff=f"{gap:.3g}")


def _plain(got: object, want: object) -> object:
    """`got` with plain numbers (or lists of them) made tensors where `want` holds a tensor that requires grad:
    an answer taken out of the graph by .item() or .tolist() reads as a detached tensor."""
    if isinstance(want, torch.Tensor):
        if want.requires_grad and _plain_numbers(got):
            try:
                return torch.tensor(got, dtype=want.dtype)
            except Exception:  # noqa: BLE001
                return got
        return got
    if isinstance(want, (tuple, list)) and isinstance(got, (tuple, list)) and len(got) == len(want):
        return [_plain(mine, right) for mine, right in zip(got, want, strict=True)]
    if isinstance(want, dict) and isinstance(got, dict) and got.keys() == want.keys():
        return {key: _plain(got[key], right) for key, right in want.items()}
    return got


def _plain_numbers(value: object) -> bool:
    """Whether `value` is a number or a (nested) list of numbers, with no tensor inside."""
    if isinstance(value, list):
        return all(map(_plain_numbers, value))
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _detached(got: object, want: object) -> bool:
    """Whether `got`, a wrong answer, has `want`'s values once its plain numbers are read as tensors: the values
    are right, but they left the graph."""
    try:
        return any(leaf.requires_grad for leaf in _leaves(want)) and same(_plain(got, want), want)
    except RecursionError:  # a list that holds itself
        return False


def _unchanged(old: object, new: object) -> bool:
    """Whether an argument is as it was before the call: compared by value inside tuples, lists and dicts, and
    wherever its type defines ==; an object whose type does not (a DataLoader, a tokenizer) cannot be compared."""
    if old is new:
        return True  # deepcopy shares what cannot change: a number (NaN too), a string, a function
    if type(old) is not type(new):
        return False
    if isinstance(old, (tuple, list)):
        return len(old) == len(new) and all(map(_unchanged, old, new))
    if isinstance(old, dict):
        return old.keys() == new.keys() and all(_unchanged(old[key], new[key]) for key in old)
    if isinstance(old, (torch.Tensor, torch.nn.Module, np.ndarray)) or type(old).__eq__ is not object.__eq__:
        return same(new, old)
    return True


def _argument(function: Callable, position: int) -> str:
    """The name of `function`'s positional argument at `position` ("lists[1]" inside *lists, else "#3")."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    for index, parameter in enumerate(parameters):
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return f"{parameter.name}[{position - index}]" if position >= index else parameter.name
        if index == position and parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            return parameter.name
    return f"#{position + 1}"


def _mutated(function: Callable, before: tuple, after: tuple) -> str | None:
    """The name of the first argument that the call changed in place, or None."""
    for position, (old, new) in enumerate(zip(before, after, strict=True)):
        if not _unchanged(old, new):
            return _argument(function, position)
    return None


# What the bytecode of an untouched stub is once the no-ops are left out: `pass`, `...` or a docstring alone, or
# `raise NotImplementedError` with or without (), across the Python versions Colab has had.
_NO_OPS = {"RESUME", "NOP", "CACHE", "PUSH_NULL", "PRECALL", "EXTENDED_ARG", "COPY_FREE_VARS", "MAKE_CELL"}
_NOT_IMPLEMENTED = ("NotImplementedError", NotImplementedError)


def _stub_code(function: Callable) -> bool:
    """Whether `function`'s compiled body is a stub's: for a function whose source cannot be read."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None:
        return False
    ops = [(op.opname, op.argval) for op in dis.get_instructions(code) if op.opname not in _NO_OPS]
    if ops in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)]):
        return True
    if len(ops) not in (2, 3) or ops[0][0] not in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_COMMON_CONSTANT"):
        return False
    called = ops[1:-1] in ([], [("CALL", 0)])
    return ops[0][1] in _NOT_IMPLEMENTED and called and ops[-1][0] == "RAISE_VARARGS"


def untouched(function: Callable) -> bool:
    """Whether `function` is still the stub: its body (after a docstring) is `raise NotImplementedError` (with
    no message), `...` or `pass`. Code that the learner wrote and that raises NotImplementedError or returns None
    is not. A function whose source cannot be read (defined by exec) is judged by its bytecode.

    >>> def stub(x):
    ...     "Square x."
    ...     raise NotImplementedError  # your code here
    >>> untouched(stub), untouched(lambda x: None)
    (True, False)
    """
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except OSError:
        return _stub_code(function)
    except (TypeError, SyntaxError):
        return False
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef):
        return False
    body = node.body
    docstring = body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
    if docstring and isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1:
        return not body
    (statement,) = body
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return statement.value.value is Ellipsis
    if isinstance(statement, ast.Raise) and statement.exc is not None and statement.cause is None:
        raised = statement.exc
        if isinstance(raised, ast.Call) and not raised.args and not raised.keywords:
            raised = raised.func  # NotImplementedError(): no message of the learner's
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def _print(text: str, indent: str = "") -> None:
    print(wrap(text, WIDTH, indent))


def labelled(label: str, text: str) -> str:
    """`label` (a translated "Hint:", "See:") then `text`: a space after an English colon, none after a
    full-width one ("提示：先把…")."""
    return f"{label}{'' if label.endswith('：') else ' '}{text}"


def link(see: str) -> str:
    """The address, in the current language's edition, of "notebook_stem#anchor"."""
    page, anchor = see.split("#")
    return f"{SITE}{edition_path()}notebooks/{page}.html#{anchor}"


def _devices() -> list[int]:
    """The GPUs whose random generators a check must restore: those torch has started."""
    return list(range(torch.cuda.device_count())) if torch.cuda.is_initialized() else []


class Exercise:
    """A check to call on the learner's function: it prints ✓, ✗ naming the mistake, or 'not attempted yet'.

    cases: a function that returns the list of Case (called with torch's RNG seeded and restored);
    mistakes: the known wrong answers; hint: what `.hint()` prints.
    answer: the answer to the exercise's question ("why?"), which the solution prints with `.answer()`; its
      {placeholders} are what the solution measured.
    normalize: applied to the learner's answer before it is compared, for an answer the question allows in
      several forms (an order, a float mask of 0 and -inf for a bool one); a mistake's answer is read the same way;
    mutates: the question asks the function to change an argument in place, so that is not a mistake here.
    """

    def __init__(
        self,
        cases: Callable[[], list[Case]],
        mistakes: list[Mistake],
        hint: str,
        *,
        normalize: Callable[[Any], Any] | None = None,
        mutates: bool = False,
        answer: str | None = None,
    ):
        self.cases, self.mistakes, self.hint_text = cases, mistakes, hint
        self.normalize, self.mutates, self.answer_text = normalize, mutates, answer

    def hint(self) -> None:
        """Print the hint in the current language."""
        _print(labelled(_text("hint"), gettext(self.hint_text)))

    def answer(self, **values: object) -> None:
        """Print the answer to the exercise's question in the current language, its placeholders filled with
        `values` (what the solution measured)."""
        if self.answer_text is None:
            raise ValueError("this exercise asks no question that has an answer to print")
        _print(labelled(_text("answer"), gettext(self.answer_text).format(**values)))

    def make_cases(self) -> list[Case]:
        """The cases, built with torch's RNG seeded (so every run checks the same inputs) and restored, and with
        gradients on (so that an answer that needs them has them, even when the caller turned them off)."""
        with torch.random.fork_rng(devices=[]), torch.enable_grad():
            torch.manual_seed(0)
            return self.cases()

    def _normalized(self, got: object) -> object:
        if self.normalize is None or _raised(got):
            return got
        try:
            return self.normalize(got)
        except Exception:  # noqa: BLE001 (an answer the normalizer cannot read is compared as it is)
            return got

    def _matches(self, mistake: Mistake, failure: Failure) -> bool | None:
        """Whether `mistake` gives what the learner's answer gave on the failing case: the same wrong answer (or
        the same error, for a mistake that is an error), or the right values with the same fault in their
        gradients (a loss computed under torch.no_grad, say). None where the case tells nothing: the mistake
        crashed there by accident, or the learner's answer crashed where the mistake is right (a second fault,
        which the mistake's sentence does not claim to explain)."""
        args = copy.deepcopy(failure.case.args)
        answer = _outcome(mistake.wrong, args)
        if _raised(answer) != mistake.raises:
            return None  # a mistake that crashed by accident is skipped there
        if _raised(failure.got) and not mistake.raises and not _raised(failure.case.want):
            return None if same(self._normalized(answer), failure.case.want) else False
        if failure.right and failure.gradients is None:
            return False  # right values, an argument changed in place: no wrong answer of the table gives that
        if failure.gradients is None:
            return _raised(failure.got) == mistake.raises and same(failure.got, self._normalized(answer))
        answer = self._normalized(answer)
        return (
            not mistake.raises
            and same(answer, failure.case.want)
            and _gradients(answer, failure.case.want, args, failure.case.args) == failure.gradients
        )

    def named_mistake(self, failures: list[Failure]) -> tuple[Mistake, Failure] | None:
        """The first known mistake that gives the learner's answer on every case it gets wrong (one case alone
        could not tell two mistakes apart: a sort that is its own inverse, a last batch that is full), and the
        first case that shows it, a listed one if there is one."""
        for mistake in self.mistakes:
            found = [self._matches(mistake, failure) for failure in failures]
            if True in found and False not in found:
                shown = [failure for failure, match in zip(failures, found, strict=True) if match]
                return mistake, next((failure for failure in shown if failure.case.shown), shown[0])
        return None

    def failure(self, function: Callable, case: Case) -> Failure | None:
        """None when `function` is right on `case`; else what it gave there."""
        before = copy.deepcopy(case.args)
        args = copy.deepcopy(case.args)
        got = self._normalized(_outcome(function, args))
        changed = None if self.mutates else _mutated(function, before, args)
        if (not _raised(got) or _raised(case.want)) and same(got, case.want):
            problem = None if changed is not None else _gradients(got, case.want, args, case.args)
            if changed is None and problem is None:
                return None
            return Failure(case, got, True, changed, problem)
        return Failure(case, got, False, changed)

    def _sentence(self, failure: Failure) -> str:
        """What is wrong on the failing case, when no known mistake explains it."""
        got, case = failure.got, failure.case
        if failure.mutated is not None:
            return _text("mutated", argument=failure.mutated)
        if failure.gradients is not None:
            return failure.gradients
        if got is None:
            return _text("none")
        if isinstance(got, NotImplementedError):
            return _text("not_implemented", error=_str(got) or "-")
        if _raised(got):
            return _explained(got)
        if _detached(got, case.want):
            return _text("detached", what=_text("result"))
        return difference(got, case.want)

    def verdict(self, function: Callable, case: Case) -> tuple[Mistake | None, str] | None:
        """None when `function` is right on `case`; else the mistake it makes there (or None) and what is wrong,
        judged from that case alone."""
        failure = self.failure(function, case)
        if failure is None:
            return None
        named = self.named_mistake([failure])
        return (named[0], gettext(named[0].message)) if named is not None else (None, self._sentence(failure))

    def __call__(self, function: Callable) -> None:
        name = getattr(function, "__name__", None) or "your function"
        if untouched(function):
            _print(_text("todo", name=name))
            return
        # The learner's function and the mistakes may draw random numbers, reseed, or turn gradients off: the
        # notebook's generators and grad mode are as they were afterwards.
        with torch.random.fork_rng(devices=_devices()), torch.enable_grad():
            self._check(function, name)

    def _check(self, function: Callable, name: str) -> None:
        cases = self.make_cases()
        failures = [found for found in (self.failure(function, case) for case in cases) if found is not None]
        if failures:
            # The case printed is the first listed one that fails (or that shows the mistake): a hidden case's
            # inputs are not shown.
            named = self.named_mistake(failures)
            mistake, shown = named or (None, next((f for f in failures if f.case.shown), failures[0]))
            if shown.case.shown:
                _print(_text("wrong", name=name, case=gettext(shown.case.label)))
            else:
                _print(_text("wrong_hidden", name=name))
            _print(gettext(mistake.message) if mistake is not None else self._sentence(shown))
            if mistake is not None:
                print(labelled(_text("see"), link(mistake.see)))
            return
        _print(_text("right", name=name))
        for case in cases:
            if case.shown:
                _print("  - " + gettext(case.label), indent="    ")
        hidden = sum(not case.shown for case in cases)
        if hidden:
            _print(_text("hidden", count=hidden) if hidden > 1 else _text("hidden_one"), indent="    ")
