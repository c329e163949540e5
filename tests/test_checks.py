"""The exercise-check engine (padpack.checks) under the attack of exercise_checks_attack.md, class by class (issue
#36, deliverable 5), on small toy exercises built here rather than on the chapters, in English and in Chinese:

- a question about gradients checks gradients: a detached or rebuilt answer is named as such, and an answer with
  the right values but other gradients is caught;
- hidden cases are checked, counted and not listed, so an answer hard-coded to the listed ones fails;
- an argument changed in place is named, unless the question asks for it (`mutates=True`);
- tuples, lists and dicts are compared element by element, and the message says which element and how it differs;
- "Not attempted yet" only for the untouched stub, however it was defined;
- correct alternatives pass through `normalize=`;
- a known mistake is named only for the answer it describes, never for a crash it happens to share;
- the check never raises, and leaves torch's RNG and grad mode as they were;
- Chinese output fits 79 display columns;
- the package's doctests run.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import itertools
import linecache
import textwrap

import numpy as np
import pytest
import torch

from padpack import checks, i18n
from padpack.checks import TEXT, Case, Exercise, Mistake, difference, link, same, untouched
from padpack.course import helpers
from padpack.i18n import N_, display_width, gettext, use_language

LANGUAGES = ("en", "zh_CN")
WIDTH = 79
SEE = "01_why_padding_wastes_compute#why-pack"
_cells = itertools.count()


@pytest.fixture(autouse=True)
def english_afterwards():
    """Every test may change the language; English again afterwards."""
    yield
    use_language("en")


@pytest.fixture(params=LANGUAGES)
def language(request):
    use_language(request.param)
    return request.param


def printed(check: Exercise, function) -> str:
    """What calling the check prints."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        check(function)
    return buffer.getvalue()


def said(key: str, /, **values: object) -> str:
    """A check's sentence in the current language, as the engine fills it in (a name in Latin letters spaced from
    the Chinese after it: test_a_name_ending_in_latin_letters_is_spaced_from_the_chinese_that_follows)."""
    return checks._text(key, **values)


def squash(text: str) -> str:
    """`text` without whitespace, so that a sentence matches however it was wrapped."""
    return "".join(text.split())


def tells(output: str, key: str, /, **values: object) -> bool:
    return squash(said(key, **values)) in squash(output)


def right(output: str, name: str) -> bool:
    return output.startswith(said("right", name=name) + "\n")


def wrong_on(output: str, name: str, label: str) -> bool:
    return squash(output).startswith(squash(said("wrong", name=name, case=label)))


def define(text: str, name: str, *, source: bool = True):
    """The function `name` that `text` defines, run by exec as a notebook cell is: its source registered in
    linecache (as IPython and tests/exercise_harness.py do), or, with source=False, nowhere to be found."""
    filename = f"<test-checks-cell-{next(_cells)}>"
    text = textwrap.dedent(text)
    if source:
        linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    namespace = {"torch": torch}
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


# ---------------------------------------------------------------------------------------------------------------
# Toy exercises


def _square_sum_cases() -> list[Case]:
    x = torch.randn(5, requires_grad=True)
    y = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    return [
        Case(N_("five numbers"), (x,), (x * x).sum()),
        Case(N_("a 2 × 3 float64 matrix"), (y,), (y * y).sum(), shown=False),
    ]


square_sum = Exercise(_square_sum_cases, [], N_("Square each number, then add them up."))


def _double_cases() -> list[Case]:
    x = torch.randn(4, requires_grad=True)
    return [Case(N_("four numbers"), (x,), x * 2)]


double = Exercise(_double_cases, [], N_("Multiply by two."))


def _loss_and_count_cases() -> list[Case]:
    """A tuple mixing a tensor with gradients, an int tensor and a float tensor without."""
    x = torch.tensor([1.5, -2.0, 0.5, 3.0], requires_grad=True)
    with torch.no_grad():
        largest = x.abs().max()
    return [Case(N_("four numbers"), (x,), ((x * x).sum(), (x > 0).sum(), largest))]


loss_and_count = Exercise(_loss_and_count_cases, [], N_("Three things."))


def _linear_loss_cases() -> list[Case]:
    """The gradients flow to a model's parameters, not to a tensor argument."""
    model = torch.nn.Linear(3, 1)
    rows = torch.randn(4, 3)
    return [Case(N_("a linear model and four rows"), (model, rows), model(rows).pow(2).mean())]


linear_loss = Exercise(_linear_loss_cases, [], N_("Mean squared output."))


def _pads_cases() -> list[Case]:
    return [
        Case(N_("lengths 3, 1, 2"), (torch.tensor([3, 1, 2]),), 3),
        Case(N_("lengths 4, 4"), (torch.tensor([4, 4]),), 0),
        Case(N_("lengths 5, 1, 9, 3, 2"), (torch.tensor([5, 1, 9, 3, 2]),), 25, shown=False),
        Case(N_("a batch of one"), (torch.tensor([7]),), 0, shown=False),
    ]


ALL_SLOTS = N_("That counts every slot, real tokens too.")
pads = Exercise(
    _pads_cases,
    [Mistake(lambda lengths: int(lengths.max()) * len(lengths), ALL_SLOTS, SEE)],
    N_("Count max - length for each sequence."),
)


def _clip_cases() -> list[Case]:
    return [Case(N_("five numbers"), (torch.tensor([1.0, 5.0, 2.0, 7.0, 3.0]),), torch.tensor([1.0, 3, 2, 3, 3]))]


clip = Exercise(_clip_cases, [], N_("Clip at 3."))


def _join_cases() -> list[Case]:
    return [Case(N_("two lists"), ([1, 2], [3]), [1, 2, 3])]


join = Exercise(_join_cases, [], N_("Join them."))
join_in_place = Exercise(_join_cases, [], N_("Extend the first."), mutates=True)


class Box:
    """An argument of a class that defines no equality: deep copies of it are never ==."""

    def __init__(self, value: int):
        self.value = value


unbox = Exercise(lambda: [Case(N_("a box of 3"), (Box(3), float("nan")), 3)], [], N_("Open it."))


def _offsets_cases() -> list[Case]:
    """A tuple of two int64 tensors (cu_seqlens and positions of documents of lengths 2 and 3)."""
    return [
        Case(N_("documents of lengths 2 and 3"), ([2, 3],), (torch.tensor([0, 2, 5]), torch.tensor([0, 1, 0, 1, 2])))
    ]


offsets = Exercise(_offsets_cases, [], N_("cumsum, then arange."))


def _mask_cases() -> list[Case]:
    lengths = torch.tensor([3, 1])
    return [Case(N_("lengths 3 and 1"), (lengths, 4), torch.arange(4) < lengths[:, None])]


mask = Exercise(_mask_cases, [], N_("Compare an arange with the lengths."))


def _long_words_cases() -> list[Case]:
    return [Case(N_("three words"), (["pad", "a", "batch"],), ["batch", "pad"])]


ONE_LETTER = N_("That keeps the one-letter words.")
long_words = Exercise(
    _long_words_cases,
    [Mistake(lambda words: [word for word in words if len(word) >= 1], ONE_LETTER, SEE)],
    N_("Keep the words longer than one letter, in any order."),
    normalize=sorted,
)


def _second_cases() -> list[Case]:
    return [
        Case(N_("three numbers"), ([4, 5, 6],), 5),
        Case(N_("one number"), ([4],), None),
    ]


FIRST = N_("That takes the first, not the second.")
THIRD = N_("That takes the third number.")
SHORT = N_("A one-element list has no second number: return None for it.")
second = Exercise(
    _second_cases,
    [
        Mistake(lambda numbers: numbers[0] if len(numbers) > 1 else None, FIRST, SEE),
        # Raises IndexError on "one number" by accident: it must not name a learner's IndexError there.
        Mistake(lambda numbers: numbers[2], THIRD, SEE),
    ],
    N_("numbers[1]"),
)

NEEDS_SORTED = "lengths must be sorted"


def _sorted_only(lengths: list[int]) -> list[int]:
    if lengths != sorted(lengths, reverse=True):
        raise RuntimeError(NEEDS_SORTED)
    return lengths


packed_lengths = Exercise(
    lambda: [Case(N_("unsorted lengths"), ([2, 5, 3],), [5, 3, 2])],
    [Mistake(_sorted_only, N_("That packs with enforce_sorted=True."), SEE, raises=True)],
    N_("Sort first, or pass enforce_sorted=False."),
)


# ---------------------------------------------------------------------------------------------------------------
# Gradients


def test_a_case_whose_answer_needs_gradients_requires_them():
    (case, hidden) = square_sum.make_cases()
    assert case.want.requires_grad and case.want.grad_fn is not None
    assert hidden.args[0].requires_grad


def squares_right(x):
    return (x**2).sum()


@torch.no_grad()
def squares_no_grad(x):
    return (x**2).sum()


def squares_detached(x):
    return (x**2).sum().detach()


def squares_rebuilt(x):
    return torch.tensor((x**2).sum().item(), dtype=x.dtype)


def squares_item(x):
    return (x**2).sum().item()


def squares_new_leaf(x):
    return torch.tensor((x**2).sum().item(), dtype=x.dtype, requires_grad=True)


def squares_list_rebuilt(x):
    return torch.tensor([v * v for v in x.tolist()], dtype=x.dtype).sum()


@pytest.mark.parametrize(
    "attempt",
    [squares_no_grad, squares_detached, squares_rebuilt, squares_item, squares_new_leaf, squares_list_rebuilt],
    ids=lambda f: f.__name__,
)
def test_a_detached_answer_is_named_detached(attempt, language):
    output = printed(square_sum, attempt)
    assert wrong_on(output, attempt.__name__, "five numbers"), output
    assert tells(output, "detached", what=said("result")), output


def squares_constant_trick(x):
    """Right value, but the gradient of x.sum(): the rest is added as a detached constant."""
    return x.sum() + ((x**2).sum() - x.sum()).detach()


def test_right_values_with_other_gradients_are_caught(language):
    output = printed(square_sum, squares_constant_trick)
    assert wrong_on(output, "squares_constant_trick", "five numbers"), output
    assert squash(said("gradients", what=said("result"), diff="").split("(")[0]) in squash(output), output
    assert not tells(output, "detached", what=said("result"))

    def doubled(x):
        return x.detach() * 2 + x - x.detach()  # 2x, but the gradient of x

    output = printed(double, doubled)
    assert wrong_on(output, "doubled", "four numbers"), output
    assert squash(said("gradients", what=said("result"), diff="").split("(")[0]) in squash(output), output


def test_right_answers_with_gradients_pass(language):
    assert right(printed(square_sum, squares_right), "squares_right")

    def doubled(x):
        return x + x

    assert right(printed(double, doubled), "doubled")


def test_a_tuple_mixing_tensors_with_and_without_gradients(language):
    def three(x):  # the float element without gradients in the answer may carry them here: it is not checked
        return (x * x).sum(), (x > 0).sum(), x.abs().max()

    assert right(printed(loss_and_count, three), "three")

    def three_detached(x):
        return (x * x).sum().detach(), (x > 0).sum(), x.abs().max()

    output = printed(loss_and_count, three_detached)
    assert tells(output, "detached", what=said("result")), output


def test_gradients_that_reach_a_model_s_parameters(language):
    def linear(model, rows):
        return (model(rows) ** 2).mean()

    assert right(printed(linear_loss, linear), "linear")

    @torch.no_grad()
    def linear_no_grad(model, rows):
        return (model(rows) ** 2).mean()

    assert tells(printed(linear_loss, linear_no_grad), "detached", what=said("result"))


def test_the_check_runs_with_gradients_on_inside_no_grad():
    with torch.no_grad():
        assert tells(printed(square_sum, squares_detached), "detached", what=said("result"))
        assert right(printed(square_sum, squares_right), "squares_right")
        assert not torch.is_grad_enabled()


# ---------------------------------------------------------------------------------------------------------------
# Hidden cases


def count_pads(lengths):
    return int((lengths.max() - lengths).sum())


def test_hidden_cases_are_counted_not_listed(language):
    output = printed(pads, count_pads)
    assert right(output, "count_pads"), output
    assert "lengths 3, 1, 2" in output and "lengths 4, 4" in output
    assert "5, 1, 9" not in output and "a batch of one" not in output
    assert said("hidden", count=2) in output.splitlines()


def test_an_answer_hard_coded_to_the_listed_cases_fails_on_a_hidden_one(language):
    def count_pads(lengths):
        return {(3, 1, 2): 3, (4, 4): 0}.get(tuple(lengths.tolist()), 0)

    output = printed(pads, count_pads)
    assert output.startswith(said("wrong_hidden", name="count_pads") + "\n"), output
    assert "5, 1, 9" not in output, "a hidden case's inputs are not printed"
    assert tells(output, "other", what=said("result"), got="0", want="25"), output


def test_a_named_mistake_gives_its_sentence_and_its_link(language):
    def count_pads(lengths):
        return int(lengths.max()) * len(lengths)

    output = printed(pads, count_pads)
    assert wrong_on(output, "count_pads", "lengths 3, 1, 2"), output
    assert squash(gettext(ALL_SLOTS)) in squash(output)
    # no space after a full-width colon (参见：https://...), one after an English one
    assert output.splitlines()[-1] == f"{said('see')}{'' if language == 'zh_CN' else ' '}{link(SEE)}"
    assert ("/zh/notebooks/" in link(SEE)) == (language == "zh_CN")


# ---------------------------------------------------------------------------------------------------------------
# In-place mutation


def test_a_tensor_changed_in_place_is_named(language):
    def clipped(values):
        return values.clamp_(max=3)

    output = printed(clip, clipped)
    assert wrong_on(output, "clipped", "five numbers"), output
    assert tells(output, "mutated", argument="values"), output

    def clipped_copy(values):
        return values.clamp(max=3)

    assert right(printed(clip, clipped_copy), "clipped_copy")


def test_a_list_changed_in_place_is_named_unless_the_question_asks_for_it(language):
    def joined(first, second):
        first.extend(second)
        return first

    output = printed(join, joined)
    assert tells(output, "mutated", argument="first"), output
    assert right(printed(join_in_place, joined), "joined")

    def joined_copy(first, second):
        return first + second

    assert right(printed(join, joined_copy), "joined_copy")


def test_a_wrong_answer_that_changes_its_argument_is_told_so(language):
    def joined(*lists):
        lists[1].append(0)  # and returns None

    assert tells(printed(join, joined), "mutated", argument="lists[1]")


def test_an_argument_without_equality_or_equal_to_itself_is_not_taken_for_changed(language):
    def opened(box, nan):
        return box.value

    assert right(printed(unbox, opened), "opened")


# ---------------------------------------------------------------------------------------------------------------
# Element by element


def test_a_tuple_s_element_with_another_dtype_is_named(language):
    def varlen(doc_lengths):
        lengths = torch.tensor(doc_lengths, dtype=torch.int32)
        cu = torch.cat([torch.zeros(1, dtype=torch.int32), lengths.cumsum(0, dtype=torch.int32)])
        return cu.long(), torch.cat([torch.arange(n, dtype=torch.int32) for n in doc_lengths])

    output = printed(offsets, varlen)
    element = said("result") + "[1]"
    assert tells(output, "dtype", what=element, got=torch.int32, want=torch.int64), output
    assert "..." not in output and "tensor(" not in output


def test_element_differences_name_the_element_and_how(language):
    cu, positions = torch.tensor([0, 2, 5]), torch.tensor([0, 1, 0, 1, 2])
    first, second = said("result") + "[0]", said("result") + "[1]"
    assert difference((cu[:2], positions), (cu, positions)) == said("shape", what=first, got=(2,), want=(3,))
    assert difference([cu, positions + 10**6], [cu, positions]) == said(
        "values", what=second, diff="1000000", index=(0,), got="1000000", want="0"
    )
    assert difference((cu,), (cu, positions)) == said("length", what=said("result"), got=1, want=2)
    assert difference(cu, (cu, positions)) == said("type", what=said("result"), got="torch.Tensor", want="tuple")
    nested = difference([[cu, positions]], [[cu, positions.float()]])
    assert nested == said("dtype", what=f"{first}[1]", got=torch.int64, want=torch.float32)
    # one path, outermost first: what it returned[1][2], not "element 1 of what it returned[2]"
    inner = [cu, cu, positions]
    nested = difference([inner, [cu, cu, positions + 1]], [inner, inner])
    assert nested.startswith(said("result") + "[1][2]") and "[2][1]" not in nested, nested


def test_dict_differences_name_the_key(language):
    want = {"lengths": torch.tensor([3, 1]), "tokens": torch.zeros(2, 3)}
    key = said("result") + "['lengths']"
    got = {"lengths": torch.tensor([3, 1], dtype=torch.int32), "tokens": torch.zeros(2, 3)}
    assert difference(got, want) == said("dtype", what=key, got=torch.int32, want=torch.int64)
    assert difference({"lengths": want["lengths"]}, want) == said(
        "keys", what=said("result"), got=["lengths"], want=["lengths", "tokens"]
    )


def test_a_bool_mask_is_told_by_its_positions(language):
    def key_mask(lengths, width):
        return torch.arange(width) <= lengths[:, None]  # one too many

    output = printed(mask, key_mask)
    assert tells(output, "positions", what=said("result"), count=2, total=8, positions="(0, 3), (1, 1)"), output


def test_value_differences_are_exact_for_ints_and_skip_matching_nans(language):
    big = torch.tensor([10_000, 20_000])
    assert difference(big + torch.tensor([0, 1]), big) == said(
        "values", what=said("result"), diff="1", index=(1,), got="20001", want="20000"
    )
    nan = float("nan")
    got, want = torch.tensor([nan, 1.0, 3.5]), torch.tensor([nan, 1.0, 2.0])
    assert difference(got, want) == said("values", what=said("result"), diff="1.5", index=(2,), got="3.5", want="2")
    assert difference(torch.tensor(2.5), torch.tensor(2.0)) == said(
        "values", what=said("result"), diff="0.5", index="()", got="2.5", want="2"
    )


def test_same_compares_types_shapes_dtypes_and_values():
    assert same((torch.tensor([1.0]), 2), [torch.tensor([1.0 + 1e-7]), 2])  # a list for a tuple is fine
    assert not same(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2]))
    assert not same(True, 1) and not same(1.0, 1) and same(1, 1.0) and not same(True, 1.0)
    assert same({"a": [1, 2]}, {"a": [1, 2]}) and not same({"a": [1, 2]}, {"b": [1, 2]})
    assert same(ValueError("x"), ValueError("x")) and not same(ValueError("x"), ValueError("y"))
    assert same(np.array([1.0, np.nan]), np.array([1.0, np.nan])) and same(np.array(["a"]), np.array(["a"]))
    assert not same(np.array([1, 2]), np.array([1, 3])) and not same(np.array([1, 2]), [1, 2])


def test_bfloat16_answers_are_compared_at_their_own_precision():
    # seeded: a few draws in a thousand round a row sum just past bfloat16's tolerance
    x = torch.rand(64, 64, generator=torch.Generator().manual_seed(0)) + 0.5
    want = (x.bfloat16() * x.bfloat16()).sum(-1)
    got = (x * x).sum(-1).bfloat16()  # the same, rounded at the end (0.8% apart)
    assert same(got, want)
    assert not same(got + 1, want)


def _cubes_cases() -> list[Case]:
    x = (torch.rand(32) + 0.5).bfloat16().requires_grad_()
    return [Case(N_("32 bfloat16 numbers"), (x,), (x * x * x).sum())]


cubes = Exercise(_cubes_cases, [], N_("Cube, then add."))


def test_bfloat16_gradients_are_compared_at_their_own_precision():
    def cubed(x):
        return (x**3).sum()

    def cubed_in_float32(x):
        return x.float().pow(3).sum().bfloat16()

    assert right(printed(cubes, cubed), "cubed")
    assert right(printed(cubes, cubed_in_float32), "cubed_in_float32")
    assert tells(printed(cubes, lambda x: x.detach().pow(3).sum()), "detached", what=said("result"))


# ---------------------------------------------------------------------------------------------------------------
# Not attempted yet


STUBS = {
    "raise": "def answer(x):\n    raise NotImplementedError  # your code here\n",
    "raise()": "def answer(x):\n    raise NotImplementedError()\n",
    "ellipsis": "def answer(x):\n    ...\n",
    "pass": "def answer(x):\n    pass\n",
    "docstring raise": 'def answer(x):\n    """Square, then add."""\n    raise NotImplementedError\n',
    "docstring ellipsis": 'def answer(x):\n    """Square, then add."""\n    ...\n',
    "docstring pass": 'def answer(x):\n    """Square, then add."""\n    pass\n',
    "docstring only": 'def answer(x):\n    """Square, then add."""\n',
    "decorated": "@torch.no_grad()\ndef answer(x):\n    raise NotImplementedError\n",
}


@pytest.mark.parametrize("source", [True, False], ids=["with source", "without source"])
@pytest.mark.parametrize("stub", STUBS.values(), ids=STUBS.keys())
def test_the_untouched_stub_is_not_attempted_yet(stub, source, language):
    function = define(stub, "answer", source=source)
    assert untouched(function)
    assert printed(square_sum, function) == said("todo", name="answer") + "\n"


def test_a_stub_defined_in_this_file_is_untouched():
    def answer(x):
        """Square, then add."""
        raise NotImplementedError

    assert untouched(answer)
    assert not untouched(squares_right) and not untouched(lambda x: None) and not untouched(print)


LEARNERS = {
    "a message": ('def answer(x):\n    raise NotImplementedError("later")\n', "not_implemented", {"error": "later"}),
    "after some code": (
        "def answer(x):\n    if x.dtype == torch.float32:\n        return (x * x).sum()\n    raise NotImplementedError",
        "not_implemented",
        {"error": "-"},
    ),
    "None": ("def answer(x):\n    total = (x * x).sum()\n", "none", {}),
    "return None": ("def answer(x):\n    (x * x).sum()\n    return None\n", "none", {}),
}


@pytest.mark.parametrize("source", [True, False], ids=["with source", "without source"])
@pytest.mark.parametrize(("text", "key", "values"), LEARNERS.values(), ids=LEARNERS.keys())
def test_a_learner_s_not_implemented_error_or_none_is_reported_as_such(text, key, values, source, language):
    function = define(text, "answer", source=source)
    assert not untouched(function)
    output = printed(square_sum, function)
    assert said("todo", name="answer") not in output
    rejected = (gettext(TEXT[key]).split("{case}")[0].format(name="answer") for key in ("wrong", "wrong_hidden"))
    assert any(squash(output).startswith(squash(start)) for start in rejected), output
    assert tells(output, key, **values), output


# ---------------------------------------------------------------------------------------------------------------
# Correct alternatives and named mistakes under normalize=


def test_an_order_the_question_allows_passes_through_normalize(language):
    def in_any_order(words):
        return [word for word in reversed(words) if len(word) > 1]

    assert right(printed(long_words, in_any_order), "in_any_order")

    def every_word(words):
        return list(reversed(words))  # the mistake's answer, in another order: still named

    output = printed(long_words, every_word)
    assert squash(gettext(ONE_LETTER)) in squash(output), output


def test_a_normalizer_that_raises_compares_the_answer_as_it_is(language):
    def not_a_list(words):
        return 3  # sorted(3) raises

    output = printed(long_words, not_a_list)
    assert tells(output, "type", what=said("result"), got="int", want="list"), output


# ---------------------------------------------------------------------------------------------------------------
# No misattribution


def test_a_mistake_that_raises_by_accident_does_not_name_another_crash(language):
    def second_number(numbers):
        return numbers[1]  # IndexError on a one-element list, as the mistake numbers[2] raises there by accident

    output = printed(second, second_number)
    assert wrong_on(output, "second_number", "one number"), output
    assert gettext(FIRST) not in output and gettext(THIRD) not in output
    assert tells(output, "raised", error="IndexError: list index out of range"), output

    def first_number(numbers):
        return numbers[0] if len(numbers) > 1 else None

    assert squash(gettext(FIRST)) in squash(printed(second, first_number))


def test_a_mistake_with_raises_is_named_only_for_the_same_error(language):
    named = gettext("That packs with enforce_sorted=True.")

    def same_error(lengths):
        raise RuntimeError(NEEDS_SORTED)

    def other_message(lengths):
        raise RuntimeError("something else")

    def other_type(lengths):
        raise ValueError(NEEDS_SORTED)

    def wrong_value(lengths):
        return lengths

    assert named in printed(packed_lengths, same_error)
    for attempt in (other_message, other_type, wrong_value):
        assert named not in printed(packed_lengths, attempt), attempt.__name__


# ---------------------------------------------------------------------------------------------------------------
# The check never raises, and leaves the global state as it was


class Unprintable:
    def __repr__(self):
        raise RuntimeError("no repr")

    __str__ = __repr__

    def __eq__(self, other):
        raise RuntimeError("no ==")

    def __bool__(self):
        raise RuntimeError("no bool")

    __hash__ = object.__hash__


class BadError(Exception):
    def __str__(self):
        raise RuntimeError("no str")


def _generator(x):
    yield x


def _recursion(x):
    return _recursion(x)


def _self_containing(x):
    items = []
    items.append(items)
    return items


def _raise(error):
    def attempt(x):
        raise error

    return attempt


ATTACKS = {
    "ValueError": _raise(ValueError("bad")),
    "SystemExit": _raise(SystemExit(1)),
    "an error with no str": _raise(BadError()),
    "a multi-line error": _raise(RuntimeError("first line\n" + "x" * 1000)),
    "unprintable": lambda x: Unprintable(),
    "unprintable in a tuple": lambda x: (Unprintable(),),
    "a generator": _generator,
    "a generator function's answer": lambda x: (v * v for v in x),
    "recursion": _recursion,
    "a list holding itself": _self_containing,
    "a huge tensor": lambda x: torch.zeros(3_000_000),
    "a meta tensor": lambda x: torch.empty((), device="meta"),
    "a sparse tensor": lambda x: torch.tensor(1.0).to_sparse(),
    "a module": lambda x: torch.nn.Linear(1, 1),
    "a NaN": lambda x: (x * float("nan")).sum(),
    "a string": lambda x: "a" * 10_000,
    "not callable": None,
}


@pytest.mark.parametrize("attempt", ATTACKS.values(), ids=ATTACKS.keys())
def test_the_check_never_raises(attempt, language):
    for check in (square_sum, pads, join, second):  # a tensor, an int, a list and None to compare with
        output = printed(check, attempt)
        assert output.startswith("✗"), output
        assert not too_wide(output), output


def test_the_check_restores_torch_s_rng_and_grad_mode():
    def reseeds(x):
        torch.manual_seed(123)
        torch.set_grad_enabled(False)
        return (x * x).sum() + torch.randn(()) * 0

    state = torch.get_rng_state()
    printed(square_sum, reseeds)
    printed(square_sum, lambda x: torch.rand(1000).sum())
    assert torch.equal(torch.get_rng_state(), state)
    assert torch.is_grad_enabled()


# ---------------------------------------------------------------------------------------------------------------
# Width of what is printed, in Chinese above all


def too_wide(text: str) -> list[str]:
    """Lines wider than the page, but for a link's line: an address cannot be broken."""
    return [line for line in text.splitlines() if display_width(line) > WIDTH and "https://" not in line]


LONG_LABEL = N_(
    "a long case label that goes on and on about the lengths 3, 1, 2 and the batch size, past the width of the page"
)
LONG_MISTAKE = N_("This sentence about padding is long enough, in Chinese too, to be wrapped on several lines. " * 3)


def _long_cases() -> list[Case]:
    return [Case(LONG_LABEL, (torch.tensor([3, 1, 2]),), 3)]


long_labels = Exercise(_long_cases, [Mistake(lambda lengths: 0, LONG_MISTAKE, SEE)], N_("A hint. " * 20))


@pytest.fixture
def chinese_catalogue(monkeypatch):
    """The toy exercise's words translated, as a chapter's catalogue would."""
    table = i18n.catalogue("zh_CN")
    monkeypatch.setitem(
        table, LONG_LABEL, "一个很长的情况标签，它一直在说长度 3、1、2 和批大小，" * 2 + "超出了页面的宽度"
    )
    monkeypatch.setitem(table, LONG_MISTAKE, "这句关于填充的话很长，长到要折成好几行，" * 4 + "中文也是如此。")
    monkeypatch.setitem(table, "A hint. " * 20, "提示的内容，" * 30)
    use_language("zh_CN")


def test_case_labels_wrap_under_their_dash(language):
    output = printed(long_labels, count_pads)
    lines = output.splitlines()
    assert lines[1].startswith("  - ") and len(lines) > 2 and all(line.startswith("    ") for line in lines[2:]), output
    assert not too_wide(output), output


def test_chinese_output_fits_the_page_and_keeps_punctuation_off_line_starts(chinese_catalogue):
    outputs = [printed(long_labels, count_pads), printed(long_labels, lambda lengths: 0)]
    hint = io.StringIO()
    with contextlib.redirect_stdout(hint):
        long_labels.hint()
    outputs.append(hint.getvalue())
    for check, attempt in [
        (square_sum, squares_detached),
        (square_sum, squares_constant_trick),
        (square_sum, squares_list_rebuilt),
        (clip, lambda values: values.clamp_(max=3)),
        (offsets, lambda doc_lengths: (torch.tensor([0, 2, 5], dtype=torch.int32), None)),
        (mask, lambda lengths, width: torch.arange(width) <= lengths[:, None]),
        (square_sum, _raise(NotImplementedError("later"))),
        (square_sum, define("def answer(x):\n    raise NotImplementedError\n", "answer")),
    ]:
        outputs.append(printed(check, attempt))
    assert "提示" in outputs[2] and "梯度" in outputs[3]
    for output in outputs:
        assert not too_wide(output), output
        assert not [line for line in output.splitlines() if line.lstrip()[:1] in set("，。、；：？！）》」』】")], (
            output
        )
    assert len(outputs[0].splitlines()) > 2


def test_wrap_counts_display_columns_and_keeps_closing_punctuation_off_line_starts():
    text = "填充" * 19 + "，填充。" + "长度（3）！" * 10
    for width in range(10, 40):
        lines = i18n.wrap(text, width).splitlines()
        assert all(display_width(line) <= width for line in lines), width
        assert not [line for line in lines if line[:1] in "，。）！"], (width, lines)
        assert "".join(lines) == text


def test_wrap_keeps_a_short_expression_on_one_line():
    """Review round 5 (Z5E.24): 当 t >= T -⏎length 时, T⏎x B, 或用 -⏎表示 broke inside their expressions."""
    text = (
        "答案应在 t < length 时等于输入，而当 t >= T - length 时等于零；"
        + "一个标出真实元素的 T x B 掩码，或用 - 表示输入。"
    )
    for width in range(20, 80):
        lines = i18n.wrap(text, width).splitlines()
        assert all(display_width(line) <= width for line in lines), width
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for expression in ("t < length", "t >= T - length", "T x B", "用 - 表"):
            assert any(expression in line for line in lines), (width, expression, lines)


def test_wrap_keeps_a_short_shape_or_index_and_a_modulo_on_one_line():
    """Review round 6 (Z6E.5): batches[i %⏎len(batches)], (B, 1,⏎1, S), lengths[None,⏎:] and (num_layers, 2, batch,⏎
    hidden) broke inside their brackets; a long call in brackets still breaks where it must."""
    expressions = (
        "batches[i % len(batches)]",
        "(B, heads, T, S)",
        "lengths[None, :]",
        "(num_layers, 2, batch, hidden)",
    )
    text = "，".join(f"形状是 {expression} 的张量" for expression in expressions) + "。"
    for width in range(34, 80):
        lines = i18n.wrap(text, width).splitlines()
        assert all(display_width(line) <= width for line in lines), width
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for expression in expressions:
            assert any(expression in line for line in lines), (width, expression, lines)
    long_call = "f(" + ", ".join(["argument"] * 8) + ")"
    assert len(i18n.wrap(long_call, 40).splitlines()) > 1
    remark = "its padded tokens (batch size × longest length)"  # prose in brackets wraps as prose
    assert i18n.wrap(remark, 30).splitlines()[0] == "its padded tokens (batch size"
    assert i18n.wrap("50%，而不是 49%。", 79) == "50%，而不是 49%。"


def test_wrap_keeps_a_shape_whole_before_full_width_punctuation_and_a_comparison_of_indexes():
    """Review round 7 (Z7E.2): in Chinese the closing bracket carries its punctuation, "hidden)，" and "S)。", and
    the shape still broke inside; so did steps[:, None] < lengths[None, :], an operator between two indexes."""
    expressions = ("(num_layers, 2, batch, hidden)，", "(B, 1, 1, S)。", "steps[:, None] < lengths[None, :]")
    text = "".join(f"要把它看成 {expression} 再取最后一层" for expression in expressions)
    for width in range(36, 80):
        lines = i18n.wrap(text, width).splitlines()
        assert all(display_width(line) <= width for line in lines), width
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for expression in expressions:
            assert any(expression in line for line in lines), (width, expression, lines)


def test_wrap_takes_the_code_before_a_widow_down_with_it():
    """Review round 8 (part B, ch09's check_left_causal_mask): "…(0, 0, 2), (0, 0, 3)⏎等。" left 等。 alone under a
    full line, as the code before it ends in a space and not a Chinese character; the tuple goes down with it, and
    a word too long to join the widow's line stays where it is."""
    text = "返回值在 32 个位置中有 17 个不对；前几个是：(0, 0, 1), (0, 0, 2), (0, 0, 3) 等。"
    assert i18n.wrap(text, 79).splitlines() == [
        "返回值在 32 个位置中有 17 个不对；前几个是：(0, 0, 1), (0, 0, 2),",
        "(0, 0, 3) 等。",
    ]
    for width in range(20, 80):
        lines = i18n.wrap(text, width).splitlines()
        assert all(display_width(line) <= width for line in lines), width
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert lines[-1].endswith("(0, 0, 3) 等。"), (width, lines)
    url = "https://example.org/" + "a" * 55  # 75 columns: with " 等。" the line would be 80
    assert i18n.wrap(f"见 {url} 等。", 79).splitlines() == [f"见 {url}", "等。"]


# ---------------------------------------------------------------------------------------------------------------
# Doctests


@pytest.mark.parametrize("module", [checks, i18n, helpers], ids=lambda module: module.__name__)
def test_the_doctests_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_a_hint_and_an_answer_put_no_space_after_a_full_width_colon(language):
    """提示：先…, 答：…: a full-width colon is followed by no space; an English one by one (zh_round2 P5). An
    exercise's answer, which its solution prints before the check, reads the same way."""
    answered = Exercise(_pads_cases, [], N_("Count max - length for each sequence."), answer=N_("{count} pads in all."))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        answered.hint()
        answered.answer(count=12)
    hint, answer = buffer.getvalue().splitlines()
    space = "" if language == "zh_CN" else " "
    assert hint == f"{said('hint')}{space}{gettext(N_('Count max - length for each sequence.'))}"
    assert answer == f"{said('answer')}{space}{gettext(N_('{count} pads in all.')).format(count=12)}"
    assert said("hint").endswith("：" if language == "zh_CN" else ":")
    with pytest.raises(ValueError, match="no question"):
        pads.answer()


# ---------------------------------------------------------------------------------------------------------------
# Naming the right mistake (issue #47): every failing case, and what torch's errors and layouts mean

TWICE_PLUS_ONE, SQUARE_PLUS_ONE = N_("That adds one to 2x."), N_("That squares x, then adds one.")
twice = Exercise(
    lambda: [Case(N_("x = 2"), (2,), 4), Case(N_("x = 3"), (3,), 6)],
    [Mistake(lambda x: x * x + 1, SQUARE_PLUS_ONE, SEE), Mistake(lambda x: 2 * x + 1, TWICE_PLUS_ONE, SEE)],
    N_("Double it."),
)


def test_a_mistake_is_named_only_when_it_gives_the_answer_on_every_failing_case(language):
    # Both mistakes give 5 on the first case: the second case tells them apart.
    output = printed(twice, lambda x: 2 * x + 1)
    assert wrong_on(output, "<lambda>", gettext("x = 2")), output
    assert gettext(TWICE_PLUS_ONE) in output and gettext(SQUARE_PLUS_ONE) not in output, output
    assert gettext(SQUARE_PLUS_ONE) in printed(twice, lambda x: x * x + 1)
    # 5 whatever x is: the first mistake on the first case, neither on the second
    output = printed(twice, lambda x: 5)
    assert gettext(TWICE_PLUS_ONE) not in output and gettext(SQUARE_PLUS_ONE) not in output, output
    assert tells(output, "other", what=said("result"), got="5", want="4"), output


def test_one_hidden_case_is_one_more_case(language):
    output = printed(square_sum, lambda x: (x * x).sum())
    assert said("hidden_one") in output.splitlines(), output
    if language == "en":
        assert "1 more case," in output and "1 more cases" not in output, output


def test_a_list_of_tensors_with_gradients_is_a_list_not_detached(language):
    output = printed(double, lambda x: list(x * 2))
    assert tells(output, "list_for_tensor", what=said("result")), output
    assert not tells(output, "detached", what=said("result")), output
    output = printed(double, lambda x: (x * 2).tolist())  # plain numbers: out of the graph
    assert tells(output, "detached", what=said("result")), output


def test_backward_inside_the_function_is_a_freed_graph_not_no_grad(language):
    def square_sum_and_backward(x):
        total = (x * x).sum()
        total.backward()
        return total

    output = printed(square_sum, square_sum_and_backward)
    assert tells(output, "graph_freed", what=said("result")), output
    assert not tells(output, "detached", what=said("result")), output


def test_in_place_changes_that_autograd_cannot_take_are_named(language):
    def leaf_in_place(x):
        x *= x
        return x.sum()

    output = printed(square_sum, leaf_in_place)
    assert tells(output, "inplace_leaf"), output

    def saved_then_changed(x):
        y = x.clone()
        total = (y * y).sum()
        y.add_(0)
        return total

    assert tells(printed(square_sum, saved_then_changed), "inplace_modified", what=said("result"))


def test_an_index_out_of_range_names_its_dimension(language):
    output = printed(pads, lambda lengths: int(lengths[len(lengths)]))
    assert tells(output, "index_dimension", dim="0"), output


def _layout_cases() -> list[Case]:
    values = torch.tensor([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]])
    ids = torch.tensor([10, 11, 12])
    order = torch.tensor([2, 0, 1])
    return [Case(N_("a 2 × 3 matrix"), (values, ids, order), (values.T.contiguous(), ids[order]))]


layout = Exercise(_layout_cases, [], N_("Transpose the matrix; put the ids in the order."))


def test_glued_rows_reordered_rows_and_half_a_pair_sorted_are_named(language):
    glued = printed(layout, lambda values, ids, order: (values.reshape(3, 2), ids[order]))
    assert tells(glued, "glued", what=said("result") + "[0]"), glued
    half = printed(layout, lambda values, ids, order: (values.T, ids))
    assert tells(half, "half_sorted", what=said("result") + "[1]", dim=0), half
    reordered = printed(layout, lambda values, ids, order: (values.T[order], ids))
    assert tells(reordered, "rows_reordered", what=said("result") + "[0]", dim=0), reordered
    # the columns of a (rows, features) answer swapped are neither a batch in another order nor glued rows
    columns = printed(layout, lambda values, ids, order: (values.T[:, [1, 0]], ids[order]))
    assert tells(columns, "values", what=said("result") + "[0]", diff="3", index=(0, 0), got="3.5", want="0.5")
    # nor is a flip, though it holds the same numbers
    flipped = printed(layout, lambda values, ids, order: (values.T.flip(0, 1), ids[order]))
    assert not tells(flipped, "glued", what=said("result") + "[0]"), flipped
    for right in (
        lambda values, ids, order: (values.T, ids[order]),
        lambda values, ids, order: (values.permute(1, 0).contiguous(), ids.index_select(0, order)),
    ):
        assert printed(layout, right).startswith(said("right", name="<lambda>")), printed(layout, right)


def test_numpy_and_lists_for_tensors_and_tensors_for_lists_are_named(language):
    output = printed(clip, lambda x: x.clamp(max=3).numpy())
    assert tells(output, "numpy_for_tensor", what=said("result")), output
    output = printed(join, lambda a, b: torch.tensor(a + b))
    assert tells(output, "tensor_for_list", what=said("result")), output


class _NoBackward(torch.autograd.Function):
    """The identity, whose backward fails."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("this op has no backward")


def test_a_backward_that_fails_otherwise_is_reported_with_its_error(language):
    output = printed(double, lambda x: _NoBackward.apply(x * 2))
    error = "RuntimeError: this op has no backward"
    assert tells(output, "no_backward", what=said("result"), error=error), output
    assert not tells(output, "detached", what=said("result")), output


def test_a_name_ending_in_latin_letters_is_spaced_from_the_chinese_that_follows():
    """Review round 5 (Z5E.16): 返回值[0]的数值不对 is 返回值[0] 的数值不对, as the book spaces code and Chinese."""
    use_language("zh_CN")
    result = checks._text("result")
    assert difference([torch.tensor([1.0, 2.0])], [torch.tensor([1.0, 3.0])], result).startswith("返回值[0] 的数值")
    assert difference(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]), result).startswith("返回值的数值")
    assert difference(torch.zeros(2, 3), torch.zeros(3, 2), "lengths").startswith("lengths 的形状是 (2, 3)；")


@pytest.mark.parametrize(("language", "tail"), [("en", " ...."), ("zh_CN", " 等。")])
def test_a_long_list_of_wrong_positions_ends_in_the_readers_language(language, tail):
    """Review round 7 (Z7B.15): past three wrong positions the list ended in " ...", then 。 in Chinese; it ends
    in 等 there, from the catalogue."""
    use_language(language)
    want = torch.zeros(4, 4, dtype=torch.bool)
    got = want.clone()
    got[0] = True
    message = difference(got, want, "mask")
    assert message.endswith(f"(0, 0), (0, 1), (0, 2){tail}"), message
    got[0, 3] = False  # three wrong: the list is complete
    assert difference(got, want, "mask").endswith("(0, 2)" + ("。" if language == "zh_CN" else ".")), message
