"""The padding doctor: run the book's tests for padding bugs on your own model, in seconds, without training.

`check_padding(model, sequences)` feeds your model padded batches of your sequences and reports, one plain
sentence each with the book's page that explains it. Each check rests on one principle:

- **batch independence**: each sequence gives the same output alone (no pads) as in a batch, in the given
  order and in reverse order (and, with `max_length=`, next to the doctor's own longer companion). Catches
  `output[:, -1]` on right-padded output, lengths measured after padding inside the model, a mean or an
  attention over pads, a sort without the unsort.
- **pad values**: what the pads hold changes nothing, as far as the model's way of finding its pads allows.
  The doctor first fills the pads with random real tokens (random numbers for features): a model that finds
  its pads from `lengths` must not move. A model that moves then may find its pads by their id
  (`padded != pad_value`, the Hugging Face-style mask, `Embedding(padding_idx=...)`): it passes when pads
  holding the pad id change nothing, which batch independence measured. `pads_from="lengths"` or `"ids"`
  says which to expect.
- **pad id** (token ids): the pad id is no real token. Where it is one, a model that finds pads by their id
  (or an `Embedding` whose `padding_idx` is the pad id) takes that token for a pad.
- **the end is read** (each one-direction RNN) and **both directions** (each bidirectional RNN): the output
  reads each direction's summary of each sequence. The doctor adds a large random shift to a direction's
  state where that direction ends (the forward direction at each sequence's last real step, the backward
  direction at its first step, and the final states `h_n` and `c_n`), and the output must move. Pooling over
  the real steps (mean, max, attention) sees the shift at any length; `h_n[-1]` of a bidirectional RNN (its
  backward half alone), a bidirectional `output[:, 0]` (its forward half after one step) and `output[:, -1]`
  of right-padded output do not.
- **training mode** (for a model that passed *pad values* by finding its pads from `lengths`): in training
  mode, with the random generators reseeded before each call so that dropout draws the same masks, random
  values in the pads change no output (catches BatchNorm statistics over pads, and paths that only one mode
  takes, such as the encoder's nested-tensor fast path in eval mode). Buffers such as running statistics are
  restored.
- **masked loss** (with `labels` and `loss_fn`): pads count for nothing. The loss and its gradients with
  respect to the model's outputs (hence to its parameters) do not change when the outputs at the pads are
  random, and the pads' labels are either ignored (a loss that masks from `lengths`) or `pad_label` is no
  real class. Catches pads labelled as a real class and a mean over every position, pads included.
- **loss normalisation** (information, never a failure): how much a token weighs in its batch's loss, read
  from the gradients of the batch against each sequence alone: a sum or a sum over a fixed count, a mean
  over the batch's real tokens, a mean of per-sequence means, or another weighting (deep dive 15 says which
  divisor keeps tokens equal across batches).

The calling convention is the book's: `model(padded, lengths)` with `padded` of shape (batch, longest, ...)
(`batch_first=False`: (longest, batch, ...)) on the model's device and `lengths` a CPU int64 tensor. The model
returns one output per sequence or one per step (a tagger: the doctor tells which from the shapes, or
`per_token=` says it), as a tensor, a tuple whose first item is the tensor, or an object or dict with
`logits`. Anything else goes through `forward(model, padded, lengths)`, a function you write; for a Hugging
Face model it builds the attention mask (from `lengths` here) and takes the logits::

    def hugging_face(model, padded, lengths):
        is_real = torch.arange(padded.shape[1])[None, :] < lengths[:, None]
        return model(input_ids=padded,
                     attention_mask=is_real.long().to(padded.device)).logits

It never trains: it runs eval mode, then training mode, restores every submodule's mode, the buffers, and the
global random generators, and raises `PaddingCheckError`, one sentence, for input it cannot use. The report
says which modes it checked and how many forward passes it ran.

Out of reach, by design: bugs that are batch independent and pad-free, such as a summary copied to every token
of a tagger, or a model that has not learned (the held-out accuracy says that); in training mode, a model that
finds its pads by id (its pads can hold nothing but the pad id, so there is nothing to vary), and BatchNorm over
the zeros that `pad_packed_sequence` puts back (their number follows the batch's lengths, as a correct
BatchNorm's statistics do, so no comparison tells the two apart); a bug of the data pipeline (lengths measured
after padding in a `collate_fn`): the doctor builds its own batches.

>>> import torch
>>> from torch import nn
>>> class Last(nn.Module):  # the classic bug: the last padded step
...     def __init__(self):
...         super().__init__()
...         self.embedding = nn.Embedding(10, 4)
...         self.rnn = nn.GRU(4, 5, batch_first=True)
...     def forward(self, padded, lengths):
...         return self.rnn(self.embedding(padded))[0][:, -1]
>>> torch.manual_seed(0) and None
>>> sequences = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
>>> report = check_padding(Last(), sequences)
>>> report.ok
False
>>> [finding.check for finding in report if finding.passed is False]
['batch independence', 'pad values', 'the end is read']
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence, pad_sequence

from padpack.checks import labelled, link
from padpack.i18n import N_, display_width, gettext, wrap

__all__ = ["Finding", "PaddingCheckError", "PaddingReport", "check_batches", "check_padding"]

_TEST = "07_padding_bug_ablation#the-test-that-catches-it-a-review-s-prediction-must-not-depend-on-its-batch"
_ZEROS = "03_lstm_hidden_state_extraction#zeros-do-change-the-state"
_COLLATE = "05_batches_and_bucketing#a-collate-fn-that-returns-padded-lengths-labels"
_ATTENTION = "09_transformers_masks_and_packing#a-padded-batch-through-a-transformer-encoder"
_TAGGER = "08_sequence_labelling_and_loss_masking#a-bidirectional-packed-tagger"
PAGES = {
    "batch independence": _TEST,
    "pad values": _ZEROS,
    "pad id": _ATTENTION,
    "the end is read": "03_lstm_hidden_state_extraction#three-correct-ways-to-the-last-valid-state",
    "both directions": "04_bidirectional_pitfalls#pitfall-1-output-1-is-not-a-summary-of-a-bidirectional-rnn",
    "training mode": _TEST,
    "masked loss": "08_sequence_labelling_and_loss_masking#the-wrong-loss-averaging-over-the-pads-too",
    "loss normalisation": (
        "15_deep_dive_loss_normalisation#divide-by-a-fixed-or-global-token-count-not-by-each-batch-s-own"
    ),
    "lengths": _COLLATE,
    "lengths tensor": _COLLATE,
    "labels": "08_sequence_labelling_and_loss_masking#padding-the-labels-with-an-ignore-value",
    "layout": _COLLATE,
    "padding efficiency": "05_batches_and_bucketing#a-length-bucketing-batch-sampler",
}
CHECK_NAMES = {
    "batch independence": N_("batch independence"),
    "pad values": N_("pad values"),
    "pad id": N_("pad id"),
    "the end is read": N_("the end is read"),
    "both directions": N_("both directions"),
    "training mode": N_("training mode"),
    "masked loss": N_("masked loss"),
    "loss normalisation": N_("loss normalisation"),
    "lengths": N_("lengths"),
    "lengths tensor": N_("lengths tensor"),
    "labels": N_("labels"),
    "layout": N_("layout"),
    "padding efficiency": N_("padding efficiency"),
}
# Checks whose finding is information: printed with its page whatever it says, never a failure.
INFORMATION = {"loss normalisation", "padding efficiency"}
# How close two outputs of one model must be, relative to the outputs' scale, by the outputs' dtype: float
# rounding differs between batch sizes, more so in half precision.
RTOL = {torch.float16: 1e-2, torch.bfloat16: 5e-2, torch.float32: 1e-4, torch.float64: 1e-9}
# The shift the end checks add to a direction's state: far beyond the range of an RNN's tanh-bounded outputs.
SHIFT = 10.0


class PaddingCheckError(ValueError):
    """Input that check_padding cannot use; the message says what to change, in one sentence.

    >>> import torch
    >>> from torch import nn
    >>> same_length = [torch.tensor([1, 2]), torch.tensor([3, 4])]
    >>> check_padding(nn.Identity(), same_length)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    padpack.doctor.PaddingCheckError: all the sequences have the same length...
    """


def _error(message: str, /, **values: object) -> PaddingCheckError:
    return PaddingCheckError(gettext(message).format(**values))


def _shape_error(message: str, /, output: torch.Tensor, sequences: list, **values: object) -> PaddingCheckError:
    """An error about the shape the model returned for a batch of `sequences` (its message names them)."""
    width = max(len(sequence) for sequence in sequences)
    return _error(message, shape=tuple(output.shape), count=len(sequences), width=width, **values)


@dataclass(frozen=True)
class Finding:
    """One check: its name, whether it passed (None: it did not apply, or it informs), and why, in a sentence.

    Printed, a finding is one line (wrapped at 79 columns): ✓ passed, ✗ failed (with the page that explains
    the bug), – did not apply or informs (an information finding shows its page too).

    >>> finding = Finding("pad values", True, "random pads change no output.")
    >>> finding.check, finding.passed
    ('pad values', True)
    >>> print(finding)
    ✓ pad values: random pads change no output.
    """

    check: str
    passed: bool | None
    sentence: str
    see: str = field(default="", compare=False)

    @property
    def page(self) -> str:
        """The address of the book's section that explains this finding (in the current language's edition).

        >>> page = Finding("pad values", False, "the model reads its pads.").page
        >>> page.startswith("https://")
        True
        >>> print(page.rsplit("/", 1)[-1])
        03_lstm_hidden_state_extraction.html#zeros-do-change-the-state
        """
        return link(self.see or PAGES[self.check])

    def __str__(self) -> str:
        return self.describe()

    def describe(self, page: bool = True) -> str:
        """The finding as it prints, wrapped at 79 display columns; `page=False` leaves out the address of its
        page (a line wider than the 79 columns of a notebook's output).

        >>> finding = Finding("pad values", False, "the model reads its pads.")
        >>> print(finding.describe(page=False))
        ✗ pad values: the model reads its pads.
        """
        mark = {True: "✓", False: "✗", None: "–"}[self.passed]
        name = gettext(N_("{check}:")).format(check=gettext(CHECK_NAMES[self.check]))
        text = f"{mark} {labelled(name, self.sentence)}"
        if page and (self.passed is False or self.check in INFORMATION):
            space = "" if display_width(text[-1]) == 2 else " "  # none after a full-width stop: "…顺序。参见："
            text += f"{space}{labelled(gettext(N_('See:')), self.page)}"
        return wrap(text, 79, indent="  ")


class PaddingReport(list):
    """The findings of check_padding (a list of Finding), printed one sentence each, then what was run.

    >>> report = PaddingReport([
    ...     Finding("pad values", True, "random values change no output."),
    ...     Finding("both directions", None, "no bidirectional RNN."),
    ... ])
    >>> print(report)
    ✓ pad values: random values change no output.
    – both directions: no bidirectional RNN.
    """

    modes: tuple[str, ...] = ()  # check_padding's: ("eval",) or ("eval", "train")
    forward_passes: int = 0  # check_padding's calls of the model
    efficiencies: tuple[float, ...] = ()  # check_batches': each batch's real steps over its padded steps

    @property
    def ok(self) -> bool:
        """True when no check failed (a check that did not apply, or informs, does not count).

        >>> PaddingReport([Finding("both directions", None, "no RNN.")]).ok
        True
        >>> PaddingReport([Finding("pad values", False, "it reads pads.")]).ok
        False
        """
        return all(finding.passed is not False for finding in self)

    def __str__(self) -> str:
        lines = [str(finding) for finding in self]
        if self.forward_passes:
            sentence = (
                N_("Checked in eval mode and training mode, with {count} forward passes.")
                if "train" in self.modes
                else N_("Checked in eval mode, with {count} forward passes.")
            )
            lines.append(wrap(gettext(sentence).format(count=self.forward_passes), 79))
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle) -> None:  # how IPython and Jupyter show it
        printer.text(str(self))


# ------------------------------------------------------------------------------------------- the batches
@dataclass
class _Setup:
    model: object
    call: Callable
    batch_first: bool
    pad_value: float
    device: torch.device
    rtol: float | None
    atol: float | None
    longest: int = 0
    per_token: bool | None = None
    kind: str = "other"
    seed: int = 0
    scale: float = 1.0
    passes: int = 0
    lengths: torch.Tensor | None = None  # of the batch the model is running on, for the end checks' hooks


def _as_sequences(sequences, lengths, batch_first: bool) -> list[torch.Tensor]:
    """The sequences as a list of CPU tensors (steps first), from a list or from a padded batch and its lengths."""
    if isinstance(sequences, torch.Tensor):
        if lengths is None:
            raise _error(
                N_(
                    "sequences is a padded tensor, so lengths is needed too: pass lengths=..., one per sequence, "
                    "or pass the sequences as a list of tensors of their real lengths"
                )
            )
        if sequences.dim() < 2:
            raise _error(
                N_("sequences is a tensor of {dims} dimensions: a padded batch has at least two"), dims=sequences.dim()
            )
        lengths = _integers(lengths)
        padded = sequences if batch_first else sequences.transpose(0, 1)
        if len(lengths) != padded.shape[0]:
            raise _error(
                N_(
                    "lengths has {count} entries but the padded batch holds {sequences} sequences: give one "
                    "length per sequence"
                ),
                count=len(lengths),
                sequences=padded.shape[0],
            )
        if max(lengths) > padded.shape[1]:
            raise _error(
                N_(
                    "lengths has {length}, longer than the padded width {width}: a length counts the real "
                    "steps of a sequence, which fit in the padded batch"
                ),
                length=max(lengths),
                width=padded.shape[1],
            )
        sequences = [row[:n] for row, n in zip(padded, lengths, strict=True)]
    elif lengths is not None:
        raise _error(N_("lengths is only for a padded tensor: a list of sequences carries its own lengths"))
    if not isinstance(sequences, Sequence) or len(sequences) < 2:
        raise _error(
            N_(
                "sequences must be a list of at least two tensors (or a padded tensor with lengths): the checks "
                "compare sequences of different lengths in one batch"
            )
        )
    for index, sequence in enumerate(sequences):
        if not isinstance(sequence, torch.Tensor):
            raise _error(N_("sequences[{index}] is not a tensor"), index=index)
        if sequence.dim() == 0 or len(sequence) == 0:
            raise _error(
                N_(
                    "sequences[{index}] has length 0: every sequence needs at least one real step (packing "
                    "refuses a length of 0)"
                ),
                index=index,
            )
    first = sequences[0]
    if any(s.shape[1:] != first.shape[1:] or s.dtype != first.dtype for s in sequences):
        raise _error(N_("the sequences differ in dtype or in the size of a step: they must fit in one batch"))
    if len({len(sequence) for sequence in sequences}) < 2:
        raise _error(
            N_(
                "all the sequences have the same length, so a batch of them has no pads to test: give sequences "
                "of different lengths"
            )
        )
    return [sequence.detach().cpu() for sequence in sequences]


def _integers(lengths) -> list[int]:
    """Lengths as a list of ints, from a tensor, a list or a tuple."""
    try:
        values = torch.as_tensor(lengths).flatten()
    except (TypeError, ValueError, RuntimeError) as error:
        raise _error(N_("lengths must be whole numbers, one per sequence (a list or an int64 tensor)")) from error
    if values.is_floating_point() or values.is_complex() or values.dtype == torch.bool or not len(values):
        raise _error(N_("lengths must be whole numbers, one per sequence (a list or an int64 tensor)"))
    return [int(n) for n in values.tolist()]


def _pad_mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    return torch.arange(width)[None, :] >= lengths[:, None]


def _tensor_of(output) -> torch.Tensor | None:
    """The output tensor of what a model returned: a tensor, a PackedSequence, `.logits`, or a tuple's first."""
    if isinstance(output, PackedSequence):
        return output
    if isinstance(output, torch.Tensor):
        return output
    logits = output.get("logits") if isinstance(output, dict) else getattr(output, "logits", None)
    if isinstance(logits, torch.Tensor):
        return logits
    if isinstance(output, (tuple, list)) and output and isinstance(output[0], (torch.Tensor, PackedSequence)):
        return _tensor_of(output[0])
    return None


def _run(setup: _Setup, sequences: list[torch.Tensor], fill: Callable | None = None) -> torch.Tensor:
    """The model's output tensor on one padded batch of `sequences` (pads: pad_value, or `fill`'s values)."""
    lengths = torch.tensor([len(sequence) for sequence in sequences], dtype=torch.int64)
    padded = pad_sequence(sequences, batch_first=True, padding_value=setup.pad_value)
    if fill is not None:
        is_pad = _pad_mask(lengths, padded.shape[1])
        padded[is_pad] = fill(padded[is_pad])
    padded = (padded if setup.batch_first else padded.transpose(0, 1)).to(setup.device)
    setup.passes += 1
    setup.lengths = lengths
    try:
        output = setup.call(padded, lengths)
    except Exception as error:
        message = (
            N_(
                "the model raised {error} on a batch the doctor built with its own companion of {longest} steps "
                "(lengths {lengths}, padded shape {shape}, on {device}): {message}. Lower max_length to what the "
                "model takes."
            )
            if int(lengths.max()) > setup.longest
            else N_(
                "the model raised {error} on a batch the doctor built from your sequences (lengths {lengths}, "
                "padded shape {shape}, on {device}): {message}. check_padding calls model(padded, lengths); for "
                "another signature pass forward=lambda model, padded, lengths: ..."
            )
        )
        raise _error(
            message,
            error=type(error).__name__,
            longest=int(lengths.max()),
            lengths=lengths.tolist(),
            shape=tuple(padded.shape),
            device=setup.device,
            message=str(error).splitlines()[0] if str(error) else "",
        ) from error
    tensor = _tensor_of(output)
    if tensor is None:
        raise _error(
            N_(
                "the model returned a {kind}, not a tensor: pass forward=... that returns the output tensor "
                "(for a Hugging Face model, its .logits)"
            ),
            kind=type(output).__name__,
        )
    if isinstance(tensor, PackedSequence):
        tensor = pad_packed_sequence(tensor, batch_first=setup.batch_first, total_length=int(lengths.max()))[0]
    return tensor.detach()


def _split(setup: _Setup, output: torch.Tensor, lengths: list[int]) -> list[torch.Tensor]:
    """One output per sequence, on the CPU (a tagger's: its real steps)."""
    output = output.cpu()
    if setup.per_token:
        rows = output if setup.batch_first else output.transpose(0, 1)
        return [row[:n] for row, n in zip(rows, lengths, strict=True)]
    return list(output)


def _shapes_fit(setup: _Setup, output: torch.Tensor, batch: int, width: int, per_token: bool) -> bool:
    if per_token:
        wanted = (batch, width) if setup.batch_first else (width, batch)
        return output.dim() >= 2 and tuple(output.shape[:2]) == wanted
    return output.dim() >= 1 and output.shape[0] == batch


def _outputs(setup: _Setup, sequences: list[torch.Tensor], fill: Callable | None = None) -> list:
    lengths = [len(sequence) for sequence in sequences]
    output = _run(setup, sequences, fill)
    if not _shapes_fit(setup, output, len(sequences), max(lengths), setup.per_token):
        raise _shape_error(
            N_(
                "the model returned shape {shape} for a batch of {count} sequences padded to {width} steps, "
                "unlike its other outputs: it must return one output per sequence, or with per_token=True one "
                "per step"
            ),
            output,
            sequences,
        )
    return _split(setup, output, lengths)


def _detect(setup: _Setup, sequences: list[torch.Tensor], per_token: bool | None) -> tuple[list, list]:
    """Each sequence's output alone and in the given batch; per_token read from their shapes when not given."""
    lengths = [len(sequence) for sequence in sequences]
    batch = _run(setup, sequences)
    alone = [_run(setup, [sequence]) for sequence in sequences]
    shapes = [(batch, len(sequences), max(lengths))] + [(a, 1, n) for a, n in zip(alone, lengths, strict=True)]
    fits = {
        choice: all(_shapes_fit(setup, output, size, width, choice) for output, size, width in shapes)
        for choice in (False, True)
    }
    fits[False] = fits[False] and len({tuple(output.shape[1:]) for output, _, _ in shapes}) == 1  # no time axis
    if per_token is None:
        per_token = fits[True] or not fits[False]
        if fits[True] == fits[False]:
            raise _shape_error(
                N_(
                    "the model returned shape {shape} for a batch of {count} sequences padded to {width} steps: "
                    "check_padding cannot tell one output per sequence from one per step; pass per_token=True "
                    "for one output per step (a tagger), per_token=False for one per sequence"
                ),
                batch,
                sequences,
            )
    if not fits[per_token]:
        raise _shape_error(
            N_(
                "the model returned shape {shape} for a batch of {count} sequences padded to {width} steps: "
                "per_token={per_token} needs {wanted} first"
            ),
            batch,
            sequences,
            per_token=per_token,
            wanted=((len(sequences), max(lengths)) if setup.batch_first else (max(lengths), len(sequences)))
            if per_token
            else (len(sequences),),
        )
    setup.per_token = per_token
    outputs = _split(setup, batch, lengths)
    scale = max(float(output.double().abs().max()) if output.numel() else 0.0 for output in outputs)
    setup.scale = scale if scale > 0 else 1.0
    if setup.rtol is None:
        setup.rtol = RTOL.get(batch.dtype, 0.0)
    if setup.atol is None:
        setup.atol = setup.rtol * setup.scale
    return outputs, [_split(setup, output, [n])[0] for output, n in zip(alone, lengths, strict=True)]


def _gap(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).abs().max()) if a.numel() else 0.0


def _close(a: torch.Tensor, b: torch.Tensor, setup: _Setup) -> bool:
    if a.shape != b.shape:
        return False
    a, b = a.double(), b.double()
    return bool(((a - b).abs() <= setup.atol + setup.rtol * b.abs()).all()) or bool(torch.equal(a, b))


def _first_apart(setup: _Setup, these: list, those: list) -> int | None:
    """The index of the first sequence whose two outputs differ, or None."""
    for index, (a, b) in enumerate(zip(these, those, strict=True)):
        if not _close(a, b, setup):
            return index
    return None


def _random_fill(sequences: list[torch.Tensor], setup: _Setup) -> Callable:
    """What to put in the pads instead of pad_value: real tokens of the sequences (never the pad id), or random
    numbers of the features' scale."""
    values = torch.cat([sequence.flatten() for sequence in sequences])
    generator = torch.Generator().manual_seed(setup.seed)  # its own: training mode reseeds the global one
    if values.is_floating_point():
        scale = float(values.abs().max()) or 1.0
        return lambda pads: (torch.randn(pads.shape, generator=generator) * scale).to(pads.dtype)
    choices = values.unique()
    choices = choices[choices != setup.pad_value] if (choices != setup.pad_value).any() else choices + 1
    return lambda pads: choices[torch.randint(len(choices), pads.shape, generator=generator)]


def _then(first: str, second: str) -> str:
    """Two sentences of the current language, one after the other (no space after a Chinese full stop)."""
    return f"{first}{'' if first.endswith('。') else ' '}{second}"


def _advice(setup: _Setup, reads_pads: bool = True) -> tuple[str, str]:
    """What to change when the model reads its pads, and the page that shows it, for this kind of model.

    `reads_pads` is False for a model whose pads' values change nothing and whose RNN is read where each sequence
    ends: it packs (or gathers) already, and what still depends on the batch is how it pools or orders the steps.
    """
    if setup.kind == "rnn" and not setup.per_token and not reads_pads:
        return (
            gettext(
                N_(
                    "Random pads change nothing and the RNN is read where each sequence ends, so the model packs "
                    "already: pool (mean, max, attention) over each sequence's real steps only (a mean over the "
                    "padded output divides by the padded width), and unsort what you sorted."
                )
            ),
            _TEST,
        )
    if setup.kind == "rnn" and setup.per_token:
        return (
            gettext(
                N_(
                    "Pack the batch and unpack the RNN's output with pad_packed_sequence(..., total_length=...), "
                    "so that the backward direction starts at each sequence's last real step."
                )
            ),
            _TAGGER,
        )
    if setup.kind == "rnn":
        return (
            gettext(
                N_(
                    "Pack the batch or take each sequence's last real step, pool (mean, max, attention) over the real "
                    "steps only, and unsort what you sorted."
                )
            ),
            _TEST,
        )
    if setup.kind == "attention":
        return (
            gettext(
                N_(
                    "Give attention a padding mask (key_padding_mask, or attention_mask for a Hugging Face "
                    "model) and pool over the real tokens only."
                )
            ),
            _ATTENTION,
        )
    return (
        gettext(N_("Leave the pads out of every sum, mean, max and attention, and pack what an RNN reads.")),
        _TEST,
    )


def _kind(model) -> str:
    if not isinstance(model, nn.Module):
        return "other"
    modules = list(model.modules())
    rnn = any(isinstance(module, nn.RNNBase) for module in modules)
    attention = any("Attention" in type(module).__name__ for module in modules)
    return "rnn" if rnn and not attention else "attention" if attention and not rnn else "other"


# ------------------------------------------------------------------------------------------- the checks
def _batch_independence(setup, sequences, batch, alone, max_length) -> Finding:
    everyone = list(range(len(sequences)))
    batches = [
        (
            N_(
                "sequence {index} (length {length}) gives another output in a batch in the given order than alone "
                "(largest difference {gap:.2g}): the model reads pads or mixes up sequences."
            ),
            everyone,
            batch,
        ),
        (
            N_(
                "sequence {index} (length {length}) gives another output in a batch in reverse order than alone "
                "(largest difference {gap:.2g}): the model reads pads or mixes up sequences."
            ),
            everyone[::-1],
            None,
        ),
    ]
    longest = max(sequences, key=len)
    if max_length is not None and max_length > len(longest):  # a longer neighbour: every sequence gets more pads
        times = (-(-max_length // len(longest)),) + (1,) * (longest.dim() - 1)
        companion = longest.repeat(times)[:max_length]
        batches.append(
            (
                N_(
                    "sequence {index} (length {length}) gives another output next to the doctor's own companion "
                    "of {companion} steps than alone (largest difference {gap:.2g}): the model reads pads or mixes "
                    "up sequences."
                ),
                [*everyone, None],
                None,
            )
        )
    for sentence, order, outputs in batches:
        if outputs is None:
            outputs = _outputs(setup, [companion if i is None else sequences[i] for i in order])
        for position, index in enumerate(order):
            if index is not None and not _close(outputs[position], alone[index], setup):
                found = gettext(sentence).format(
                    index=index,
                    length=len(sequences[index]),
                    companion=max_length,
                    gap=_gap(outputs[position], alone[index]),
                )
                return Finding("batch independence", False, found)  # check_padding adds the advice
    return Finding(
        "batch independence",
        True,
        gettext(N_("each sequence gives the same output alone and in batches of other lengths and orders.")),
    )


def _pad_values(setup, sequences, batch, independent: bool, pads_from: str | None) -> tuple[Finding, str | None]:
    """The finding, and how the model finds its pads ("lengths", "ids", or None when it reads them)."""
    ids = not sequences[0].is_floating_point()
    advice, see = _advice(setup)

    def reads_its_pads(what_moved: str) -> tuple[Finding, None]:
        return Finding("pad values", False, _then(what_moved, advice), _ZEROS if setup.kind == "rnn" else see), None

    if pads_from != "ids":
        noisy = _outputs(setup, sequences, _random_fill(sequences, setup))
        index = _first_apart(setup, batch, noisy)
        if index is None:
            return Finding(
                "pad values",
                True,
                gettext(N_("random values in the pads change no output: the model finds its pads from lengths.")),
            ), "lengths"
        if pads_from == "lengths" or not ids:
            return reads_its_pads(
                gettext(
                    N_(
                        "random values in the pads change the output of sequence {index} (largest difference "
                        "{gap:.2g}): the model reads its pads."
                    )
                ).format(index=index, gap=_gap(batch[index], noisy[index]))
            )
    if independent:
        return Finding(
            "pad values",
            True,
            gettext(
                N_(
                    "pads that hold the pad id {pad} change no output (random tokens there do): the model finds "
                    "its pads by their id."
                )
            ).format(pad=setup.pad_value),
        ), "ids"
    return reads_its_pads(
        gettext(
            N_(
                "random tokens in the pads change the outputs, and so do pads that hold the pad id {pad} (see "
                "batch independence): the model reads its pads."
            )
        ).format(pad=setup.pad_value)
    )


def _pad_id(setup, sequences, found_by: str | None, pads_from: str | None) -> Finding | None:
    """Whether the pad id is also a real token, and what that does: a bug where the model finds its pads by id
    (found so, or `pads_from="ids"`) or its Embedding's padding_idx is the pad id; harmless only where random pads
    showed that it finds them from lengths; not to be told where the model reads its pads."""
    if sequences[0].is_floating_point():
        return None
    embedding_pads = isinstance(setup.model, nn.Module) and any(
        isinstance(m, nn.Embedding) and m.padding_idx is not None and m.padding_idx == setup.pad_value
        for m in setup.model.modules()
    )
    for index, sequence in enumerate(sequences):
        hits = (sequence == setup.pad_value).nonzero()
        if len(hits):
            step = int(hits[0, 0])
            if "ids" in (found_by, pads_from) or embedding_pads:
                return Finding(
                    "pad id",
                    False,
                    gettext(
                        N_(
                            "the pad id {pad} is also a real token (sequence {index}, step {step}): the model "
                            "takes it for a pad, by its mask or by its Embedding's padding_idx. Give the pads an "
                            "id no real token has."
                        )
                    ).format(pad=setup.pad_value, index=index, step=step),
                )
            if found_by == "lengths":
                return Finding(
                    "pad id",
                    True,
                    gettext(
                        N_(
                            "the pad id {pad} is also a real token (sequence {index}), which is harmless here: the "
                            "model finds its pads from lengths."
                        )
                    ).format(pad=setup.pad_value, index=index),
                )
            return Finding(
                "pad id",
                None,
                gettext(
                    N_(
                        "the pad id {pad} is also a real token (sequence {index}, step {step}); while the model "
                        "reads its pads (see pad values), whether it takes this token for a pad cannot be told. "
                        "Give the pads an id no real token has."
                    )
                ).format(pad=setup.pad_value, index=index, step=step),
            )
    return Finding(
        "pad id", True, gettext(N_("the pad id {pad} is no real token of these sequences.")).format(pad=setup.pad_value)
    )


@contextlib.contextmanager
def _shifted_ends(setup: _Setup, rnn: nn.RNNBase, directions: Sequence[int], everywhere: bool = False) -> Iterator:
    """Add a large random shift to the given directions' states where they end (or at every step)."""
    size = rnn.proj_size if isinstance(rnn, nn.LSTM) and rnn.proj_size else rnn.hidden_size
    count = 2 if rnn.bidirectional else 1
    last_layer = (rnn.num_layers - 1) * count

    def noise(like: torch.Tensor, width: int) -> torch.Tensor:
        return (SHIFT * (1 + torch.rand(width))).to(like.device, like.dtype)

    def shift_output(data: torch.Tensor, rows: torch.Tensor, direction: int) -> None:
        columns = slice(direction * size, (direction + 1) * size)
        if everywhere:
            data[..., columns] += noise(data, size)
        else:
            data[rows.to(data.device), columns] += noise(data, size)

    def hook(module, inputs, outputs):
        output, state = outputs
        if isinstance(output, PackedSequence):
            data = output.data.clone()
            sizes = output.batch_sizes
            starts = torch.cumsum(sizes, 0) - sizes
            ranks = torch.arange(int(sizes[0]))
            lengths = (sizes[None, :] > ranks[:, None]).sum(1)
            for direction in directions:
                step = lengths - 1 if direction == 0 else torch.zeros_like(lengths)
                shift_output(data, starts[step] + ranks, direction)
            output = output._replace(data=data)
        elif output.dim() == 3:
            data = output.clone()
            time_first = not module.batch_first
            flat = data.transpose(0, 1) if time_first else data  # a view: (batch, time, features)
            lengths = setup.lengths
            if lengths is None or len(lengths) != flat.shape[0]:
                lengths = torch.full((flat.shape[0],), flat.shape[1], dtype=torch.int64)
            for direction in directions:
                step = lengths - 1 if direction == 0 else torch.zeros_like(lengths)
                columns = slice(direction * size, (direction + 1) * size)
                if everywhere:
                    flat[..., columns] += noise(flat, size)
                else:
                    flat[torch.arange(flat.shape[0]), step.to(flat.device), columns] += noise(flat, size)
            output = data

        def shift_state(tensor: torch.Tensor) -> torch.Tensor:
            tensor = tensor.clone()
            for direction in directions:
                tensor[last_layer + direction] += noise(tensor, tensor.shape[-1])
            return tensor

        state = tuple(shift_state(s) for s in state) if isinstance(state, tuple) else shift_state(state)
        return output, state

    handle = rnn.register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()


def _ends(setup: _Setup, sequences: list[torch.Tensor], batch: list) -> list[Finding]:
    rnns = []
    if isinstance(setup.model, nn.Module):
        rnns = [(name or type(m).__name__, m) for name, m in setup.model.named_modules() if isinstance(m, nn.RNNBase)]
    if not rnns:
        return [Finding("the end is read", None, gettext(N_("the model has no RNN: nothing to check.")))]
    findings = []
    for module, rnn in rnns:
        check = "both directions" if rnn.bidirectional else "the end is read"
        directions = (0, 1) if rnn.bidirectional else (0,)
        ignored = {}
        for direction in directions:
            with _shifted_ends(setup, rnn, [direction]):
                moved = _outputs(setup, sequences)
            unread = [i for i, (a, b) in enumerate(zip(batch, moved, strict=True)) if _close(a, b, setup)]
            if unread:
                ignored[direction] = unread[0]
        if len(ignored) == len(directions):
            with _shifted_ends(setup, rnn, directions, everywhere=True):
                moved = _outputs(setup, sequences)
            if _first_apart(setup, batch, moved) is None:
                findings.append(
                    Finding(
                        check,
                        None,
                        gettext(N_("the output does not depend on the {module} at all: nothing to check.")).format(
                            module=module
                        ),
                    )
                )
                continue
        if not ignored:
            sentence = (
                N_("the output reads both directions of the bidirectional RNN submodule {module} where each ends.")
                if rnn.bidirectional
                else N_("the output reads the {module}'s state at each sequence's last real step.")
            )
            findings.append(Finding(check, True, gettext(sentence).format(module=module)))
        elif not rnn.bidirectional:
            index = ignored[0]
            findings.append(
                Finding(
                    check,
                    False,
                    gettext(
                        N_(
                            "the output of sequence {index} (length {length}) does not read the {module}'s state "
                            "at its last real step: it reads a padded step or a step before the end. Take h_n "
                            "of a packed batch, or gather output at lengths - 1."
                        )
                    ).format(index=index, length=len(sequences[index]), module=module),
                )
            )
        else:
            direction, index = next(iter(ignored.items()))
            sentence = (
                N_(
                    "the output of sequence {index} does not read the forward direction of the bidirectional "
                    "RNN submodule {module} at its last real step: h_n[-1] alone is the backward direction, and "
                    "output[:, 0] holds the forward one after one step. Concatenate the last layer's two final "
                    "states, h_n[-2] and h_n[-1]."
                )
                if direction == 0
                else N_(
                    "the output of sequence {index} does not read the backward direction of the bidirectional "
                    "RNN submodule {module} at its first step, where it ends: output[:, -1] holds the backward "
                    "direction after one step. Concatenate the last layer's two final states, h_n[-2] and h_n[-1]."
                )
            )
            findings.append(Finding(check, False, gettext(sentence).format(index=index, module=module)))
    return findings


@contextlib.contextmanager
def _training(model) -> Iterator[None]:
    """Training mode for every submodule, with the buffers (running statistics) restored afterwards."""
    if not isinstance(model, nn.Module):
        yield
        return
    buffers = [(buffer, buffer.detach().clone()) for buffer in model.buffers()]
    model.train()
    try:
        yield
    finally:
        with torch.no_grad():
            for buffer, saved in buffers:
                buffer.copy_(saved)


def _training_mode(setup, sequences, pads_from: str | None, seed: int) -> Finding:
    if not isinstance(setup.model, nn.Module):
        return Finding("training mode", None, gettext(N_("the model is not an nn.Module: it has no training mode.")))
    if pads_from is None:
        return Finding(
            "training mode",
            None,
            gettext(
                N_("the model reads its pads in eval mode already (see pad values): not checked in training mode.")
            ),
        )
    if pads_from == "ids":
        return Finding(
            "training mode",
            None,
            gettext(
                N_(
                    "the model finds its pads by their id, so its pads can hold nothing else: not checked in "
                    "training mode."
                )
            ),
        )
    with _training(setup.model):
        runs = []
        for fill in (None, None, _random_fill(sequences, setup)):
            torch.manual_seed(seed)  # the same dropout masks in every call
            runs.append(_outputs(setup, sequences, fill))
    plain, again, noisy = runs
    if _first_apart(setup, plain, again) is not None:
        return Finding(
            "training mode",
            None,
            gettext(
                N_(
                    "in training mode the output changes from one call to the next even with the random "
                    "generators reseeded: not checked in training mode."
                )
            ),
        )
    index = _first_apart(setup, plain, noisy)
    if index is not None:
        return Finding(
            "training mode",
            False,
            gettext(
                N_(
                    "in training mode, random values in the pads change the output of sequence {index} (largest "
                    "difference {gap:.2g}): a layer reads the pads only in training, as BatchNorm's batch "
                    "statistics do. Normalise over the real steps only (for example on the packed data)."
                )
            ).format(index=index, gap=_gap(plain[index], noisy[index])),
        )
    return Finding(
        "training mode",
        True,
        gettext(N_("in training mode, with the same dropout masks, random values in the pads change no output.")),
    )


def _masked_loss(setup, sequences, output, alone_outputs, labels, loss_fn, pad_label) -> list[Finding]:
    """Pads count for nothing in the loss: its value and its gradient with respect to the model's outputs do not
    move when the outputs at the pads do, and the pads' labels are ignored. Then how the loss weighs tokens:
    each sequence's gradient in the batch against its gradient alone (one ratio per sequence)."""
    try:
        parameters = inspect.signature(loss_fn).parameters.values()
    except (TypeError, ValueError):  # a callable without a signature (some builtins): called with two
        parameters = []
    positional = [
        parameter
        for parameter in parameters
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD, parameter.VAR_POSITIONAL)
    ]
    takes_lengths = len(positional) >= 3 or any(parameter.kind == parameter.VAR_POSITIONAL for parameter in positional)
    lengths = torch.tensor([len(sequence) for sequence in sequences], dtype=torch.int64)
    width = int(lengths.max())
    device = output.device
    is_pad = _pad_mask(lengths, width)

    def masked_loss(passed: bool, message: str, /, **values: object) -> Finding:
        return Finding("masked loss", passed, gettext(message).format(**values))

    def layout(tensor):
        return tensor if setup.batch_first else tensor.transpose(0, 1)

    def evaluate(output, targets, lengths):
        leaf = output.detach().clone().requires_grad_(True)
        try:
            with torch.enable_grad():
                loss = (
                    loss_fn(leaf, targets.to(device), lengths) if takes_lengths else loss_fn(leaf, targets.to(device))
                )
                if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                    raise _error(N_("loss_fn must return the loss as a tensor of one value"))
                (grad,) = torch.autograd.grad(loss, leaf, allow_unused=True)
        except PaddingCheckError:
            raise
        except Exception as error:
            raise _error(
                N_("loss_fn raised {error} on the doctor's batch of the model's outputs and padded labels: {message}"),
                error=type(error).__name__,
                message=str(error).splitlines()[0] if str(error) else "",
            ) from error
        grad = torch.zeros_like(leaf) if grad is None else grad
        return loss.detach().double().cpu().reshape(()), layout(grad.double().cpu())

    targets = layout(pad_sequence(labels, batch_first=True, padding_value=pad_label))
    loss, grad = evaluate(output, targets, lengths)
    pad_grad = grad[is_pad]
    scale = float(grad.abs().max()) or 1.0
    tolerance = max(setup.rtol, 1e-6)

    def same(a_loss, a_grad):
        return bool(
            (a_loss - loss).abs() <= tolerance * (loss.abs() + 1e-12)
            and ((a_grad - grad).abs() <= tolerance * scale).all()
        )

    noisy = output.detach().clone()
    noisy_rows = layout(noisy)  # a view: writing it writes noisy
    generator = torch.Generator().manual_seed(setup.seed)
    shape = noisy_rows[is_pad.to(device)].shape
    noisy_rows[is_pad.to(device)] = (torch.randn(shape, generator=generator) * setup.scale).to(device, noisy.dtype)
    if (pad_grad.abs() > tolerance * scale).any() or not same(*evaluate(noisy, targets, lengths)):
        return [
            masked_loss(
                False,
                N_(
                    "the loss reads the model's outputs at the pads: its gradient there is not zero. Give "
                    "the pads' labels the ignored value (ignore_index={pad_label}) or mask them out."
                ),
                pad_label=pad_label,
            )
        ]
    classes = torch.cat(labels).unique()
    other_labels = targets.clone()
    layout(other_labels)[is_pad] = classes[torch.randint(len(classes), (int(is_pad.sum()),), generator=generator)]
    if same(*evaluate(output, other_labels, lengths)):
        found = masked_loss(
            True, N_("the pads count for nothing: the loss masks them from lengths, whatever their labels.")
        )
    elif bool((classes == pad_label).any()):
        found = masked_loss(
            False,
            N_(
                "the pads' label {pad_label} is also a real class: the loss cannot tell a pad from a token of "
                "that class. Pad the labels with a value no class has (-100, cross_entropy's ignore_index)."
            ),
            pad_label=pad_label,
        )
    else:
        found = masked_loss(
            True,
            N_("the pads count for nothing: the loss ignores the label {pad_label} that they hold."),
            pad_label=pad_label,
        )
    # How much each sequence's tokens weigh in the batch's loss, against the loss of the sequence alone.
    ratios = []  # (length, the sequence's weight in the batch over its weight alone)
    for index, (alone, n) in enumerate(zip(alone_outputs, lengths.tolist(), strict=True)):
        _, alone_grad = evaluate(
            layout(alone.to(device)[None]), layout(labels[index][None]), lengths[index : index + 1]
        )
        reference = alone_grad[0]
        norm = float((reference * reference).sum())
        if norm > 0:
            ratios.append((n, float((grad[index, :n] * reference).sum()) / norm))
    total, count = int(lengths.sum()), len(sequences)

    def fits(weight: Callable) -> bool:
        return bool(ratios) and all(abs(r - weight(n)) <= 1e-3 * abs(weight(n)) for n, r in ratios)

    if fits(lambda n: n / (count * width)):
        return [
            masked_loss(
                False,
                N_(
                    "the loss divides by every position of the batch ({positions}), pads included: a token's "
                    "weight depends on how many pads its batch has. Divide the sum over real tokens by a "
                    "count of real tokens."
                ),
                positions=count * width,
            )
        ]
    if fits(lambda n: 1.0):
        information = N_(
            "a sum over the real tokens, or a sum over a fixed count: every token weighs the same in every batch."
        )
    elif fits(lambda n: n / total):
        information = N_(
            "a mean over each batch's real tokens: a token weighs one over its batch's token count, which changes "
            "from batch to batch."
        )
    elif fits(lambda n: 1 / count):
        information = N_(
            "a mean of each sequence's mean: a token of a short sequence weighs more than one of a long one."
        )
    else:
        information = N_("the tokens weigh by another rule (class weights, for example).")
    return [found, Finding("loss normalisation", None, gettext(information))]


def _device(model) -> torch.device:
    if isinstance(model, nn.Module):
        for tensor in (*model.parameters(), *model.buffers()):
            return tensor.device
    return torch.device("cpu")


def check_padding(
    model: nn.Module | Callable,
    sequences: Sequence[torch.Tensor] | torch.Tensor,
    *,
    lengths: Sequence[int] | torch.Tensor | None = None,
    batch_first: bool = True,
    per_token: bool | None = None,
    pad_value: float = 0,
    pads_from: str | None = None,
    forward: Callable | None = None,
    labels: Sequence[torch.Tensor] | None = None,
    loss_fn: Callable | None = None,
    pad_label: int = -100,
    max_length: int | None = None,
    training: bool = True,
    atol: float | None = None,
    rtol: float | None = None,
    seed: int = 0,
) -> PaddingReport:
    """Test a model that reads padded batches for the padding bugs the book teaches; print the report.

    Args:
        model: called as `model(padded, lengths)` (or through `forward(model, padded, lengths)`); an
            `nn.Module`, or any callable.
        sequences: a list of at least two tensors of different lengths (token ids of shape (length,), or
            features of shape (length, features)); or one padded tensor with `lengths`.
        lengths: the real length of each sequence, when `sequences` is one padded tensor.
        batch_first: the layout the model takes, (batch, longest, ...) or (longest, batch, ...).
        per_token: the model returns one output per step (a tagger), not one per sequence; None: read
            from the shapes of its outputs.
        pad_value: what the pads hold in your batches: the pad id, for token ids.
        pads_from: how the model finds its pads, `"lengths"` or `"ids"` (its mask compares the tokens with the
            pad id); None: the doctor tries both.
        forward: `forward(model, padded, lengths)` returns the output, for a model with another signature.
        labels: for a tagger, each sequence's labels (with `loss_fn`).
        loss_fn: for a tagger, `loss_fn(output, padded_labels)` or `loss_fn(output, padded_labels,
            lengths)`; the pads' labels are `pad_label`.
        pad_label: the label the pads get in `padded_labels`.
        max_length: the longest sequence the model takes; when it is longer than your longest, batch
            independence also puts each sequence next to a companion of this length.
        training: also check in training mode.
        atol: how close two outputs must be to count as equal, in absolute terms; None: `rtol` times the
            largest output.
        rtol: the same, relative to the outputs; None: by the outputs' dtype (1e-4 for float32, 1e-2 for
            float16, 5e-2 for bfloat16).
        seed: the seed of the random values the checks put in the pads (the global generators are restored).

    Returns:
        The report, which prints itself one line per check; `report.ok` is False when one failed;
        `report.modes` and `report.forward_passes` say what it ran.

    Raises:
        PaddingCheckError: input it cannot use, in one sentence.

    >>> import torch
    >>> from torch import nn
    >>> from torch.nn.utils.rnn import pack_padded_sequence
    >>> class Packed(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.embedding = nn.Embedding(10, 4)
    ...         self.rnn = nn.LSTM(4, 5, batch_first=True)
    ...     def forward(self, padded, lengths):
    ...         packed = pack_padded_sequence(
    ...             self.embedding(padded), lengths, batch_first=True,
    ...             enforce_sorted=False)
    ...         return self.rnn(packed)[1][0][-1]
    >>> sequences = [torch.tensor([1, 2, 3]), torch.tensor([4, 5]),
    ...              torch.tensor([6])]
    >>> print(check_padding(Packed(), sequences))
    ✓ batch independence: each sequence gives the same output alone and in batches
      of other lengths and orders.
    ✓ pad values: random values in the pads change no output: the model finds its
      pads from lengths.
    ✓ pad id: the pad id 0 is no real token of these sequences.
    ✓ the end is read: the output reads the rnn's state at each sequence's last
      real step.
    ✓ training mode: in training mode, with the same dropout masks, random values
      in the pads change no output.
    Checked in eval mode and training mode, with 10 forward passes.
    """
    if forward is None and not callable(model):
        raise _error(N_("model is not callable: pass an nn.Module or a function, or pass forward=... that calls it"))
    if forward is not None and not callable(forward):
        raise _error(N_("forward must be a function forward(model, padded, lengths)"))
    if pads_from not in (None, "lengths", "ids"):
        raise _error(N_('pads_from must be "lengths", "ids" or None'))
    if (labels is None) != (loss_fn is None):
        raise _error(N_("labels and loss_fn go together: pass both to check a tagger's masked loss"))
    sequences = _as_sequences(sequences, lengths, batch_first)
    if labels is not None:
        if not isinstance(labels, Sequence):
            raise _error(N_("labels must give one label tensor per sequence, as long as that sequence"))
        if per_token is False:
            raise _error(N_("labels and loss_fn are for a tagger, which returns one output per step"))
        labels = list(labels)
        if len(labels) != len(sequences) or any(
            not isinstance(l, torch.Tensor) or len(l) != len(s) for l, s in zip(labels, sequences, strict=False)
        ):
            raise _error(N_("labels must give one label tensor per sequence, as long as that sequence"))
        labels = [label.detach().cpu() for label in labels]
        per_token = True
    longest = max(len(sequence) for sequence in sequences)
    if max_length is not None and max_length < longest:
        raise _error(
            N_("max_length is {max_length}, shorter than the longest sequence ({longest})"),
            max_length=max_length,
            longest=longest,
        )
    setup = _Setup(
        model,
        (lambda padded, lengths: forward(model, padded, lengths)) if forward else model,
        batch_first,
        pad_value,
        _device(model),
        rtol,
        atol,
        longest=longest,
        kind=_kind(model),
        seed=seed,
    )
    modes = {m: m.training for m in model.modules()} if isinstance(model, nn.Module) else {}
    devices = [setup.device.index or 0] if setup.device.type == "cuda" else []
    report = PaddingReport()
    with torch.random.fork_rng(devices=devices), torch.no_grad():
        torch.manual_seed(seed)
        try:
            if isinstance(model, nn.Module):
                model.eval()  # dropout would make every comparison differ
            batch, alone = _detect(setup, sequences, per_token)
            independence = _batch_independence(setup, sequences, batch, alone, max_length)
            finding, found_by = _pad_values(setup, sequences, batch, independence.passed, pads_from)
            pad_id = _pad_id(setup, sequences, found_by, pads_from)
            ends = _ends(setup, sequences, batch)
            if not independence.passed:  # the advice depends on whether the model reads its pads at all
                reads_pads = not finding.passed or any(end.passed is False for end in ends)
                advice, see = _advice(setup, reads_pads)
                independence = replace(independence, sentence=_then(independence.sentence, advice), see=see)
            report.extend([independence, finding, *([pad_id] if pad_id is not None else []), *ends])
            report.modes = ("eval",)
            if training and isinstance(model, nn.Module):
                in_training = _training_mode(setup, sequences, found_by, seed)
                report.append(in_training)
                if in_training.passed is not None:
                    report.modes = ("eval", "train")
                model.eval()
            if loss_fn is not None:
                batch_raw = _run(setup, sequences)
                report.extend(_masked_loss(setup, sequences, batch_raw, alone, labels, loss_fn, pad_label))
        finally:
            for module, mode in modes.items():
                module.training = mode
    report.forward_passes = setup.passes
    return report


# ------------------------------------------------------------------------------------------- the data side
def _batch_parts(index: int, batch) -> tuple:
    if not isinstance(batch, (tuple, list)) or len(batch) not in (2, 3):
        raise _error(
            N_("batch {index} is not (padded, lengths) or (padded, lengths, labels): check_batches reads those"),
            index=index,
        )
    padded, lengths, *labels = batch
    if not isinstance(padded, torch.Tensor) or padded.dim() < 2:
        raise _error(N_("batch {index}: padded must be a tensor of at least two dimensions"), index=index)
    return padded, lengths, labels[0] if labels else None


def check_batches(
    batches: Iterable[Sequence[torch.Tensor]],
    *,
    pad_value: float = 0,
    pad_label: int = -100,
    batch_first: bool = True,
) -> PaddingReport:
    """Check the batches a DataLoader (or any iterable) yields, as (padded, lengths) or (padded, lengths, labels).

    The data side of the padding doctor: check_padding builds its own batches, this call reads yours. It checks
    that **lengths** equal each row's steps before its trailing pads (catches lengths measured after padding),
    that the **pad id** is no real token, that **labels** of a tagger hold the ignored value `pad_label` at the
    pads and that this value is no real class (per-sequence labels are not checked), that the **lengths
    tensor** is a CPU int64 tensor (what `pack_padded_sequence` wants), and that the **layout** holds: one length
    per row and none past the padded width. It reports each batch's **padding efficiency** (real steps over
    padded steps) in `report.efficiencies`. A batch whose layout is wrong is left out of the checks that read its
    rows (lengths, pad id, labels), which then say how many batches they could not check.

    Args:
        batches: a DataLoader, or any iterable of (padded, lengths) or (padded, lengths, labels).
        pad_value: what the pads hold (the pad id, for token ids).
        pad_label: the ignored label of a tagger's pads.
        batch_first: the layout of `padded`, (batch, longest, ...) or (longest, batch, ...).

    Returns:
        The report, one finding per check, printed one line each; `report.efficiencies` per batch.

    Raises:
        PaddingCheckError: batches it cannot read, in one sentence.

    >>> import torch
    >>> padded = torch.tensor([[4, 5, 6], [7, 0, 0]])
    >>> report = check_batches([(padded, torch.tensor([3, 3]))])  # after padding
    >>> [finding.check for finding in report if finding.passed is False]
    ['lengths']
    >>> check_batches([(padded, torch.tensor([3, 1]))]).ok
    True
    """
    findings: dict[str, Finding] = {}

    def fail(check: str, sentence: str) -> None:
        findings.setdefault(check, Finding(check, False, sentence))

    efficiencies = []
    labels_checked = False
    labels_unread = False  # a tagger's labels in a batch whose layout is wrong
    unread = 0  # batches whose layout is wrong
    for index, batch in enumerate(batches):
        padded, lengths, labels = _batch_parts(index, batch)
        if not isinstance(lengths, torch.Tensor) or lengths.dtype != torch.int64 or lengths.device.type != "cpu":
            fail(
                "lengths tensor",
                gettext(
                    N_(
                        "batch {index}'s lengths is a {kind}, not a CPU int64 tensor: pack_padded_sequence wants "
                        "torch.tensor(lengths, dtype=torch.int64) on the CPU, measured before padding."
                    )
                ).format(
                    index=index,
                    kind=f"{lengths.dtype} ({lengths.device})"
                    if isinstance(lengths, torch.Tensor)
                    else type(lengths).__name__,
                ),
            )
            if (
                isinstance(lengths, torch.Tensor)
                and lengths.is_floating_point()
                and bool((lengths == lengths.round()).all())
            ):
                lengths = lengths.round().long()  # whole numbers in a float tensor: that finding, then read on
        lengths = torch.tensor(_integers(lengths.cpu() if isinstance(lengths, torch.Tensor) else lengths))
        rows = (padded if batch_first else padded.transpose(0, 1)).cpu()
        if len(lengths) != rows.shape[0] or int(lengths.max()) > rows.shape[1] or int(lengths.min()) < 1:
            fail(
                "layout",
                gettext(
                    N_(
                        "batch {index} has {rows} rows of {width} steps but lengths {lengths}: one length per "
                        "row, each from 1 to the padded width (is batch_first right?)."
                    )
                ).format(index=index, rows=rows.shape[0], width=rows.shape[1], lengths=lengths.tolist()),
            )
            unread += 1  # its rows cannot be matched with its lengths: the checks below skip it
            labels_unread |= isinstance(labels, torch.Tensor) and labels.dim() >= 2
            continue
        is_pad_value = (rows == pad_value).flatten(2).all(2) if rows.dim() > 2 else rows == pad_value
        steps = torch.arange(rows.shape[1])[None, :]
        real = steps < lengths[:, None]
        trailing = is_pad_value.flip(1).cumprod(1).sum(1)  # pads at the end of each row
        before = rows.shape[1] - trailing
        # A length past the row's last non-pad step is the padded width where it was measured after padding;
        # shorter than the width, those steps are real tokens that hold the pad id.
        after_padding = ((lengths > before) & (lengths == rows.shape[1])).nonzero().flatten()
        values_after = (~is_pad_value & ~real).any(1).nonzero().flatten()
        if len(after_padding):
            row = int(after_padding[0])
            fail(
                "lengths",
                gettext(
                    N_(
                        "batch {index}, row {row}: lengths says {length} but the row has {steps} steps before "
                        "its pads: measure each length before padding."
                    )
                ).format(index=index, row=row, length=int(lengths[row]), steps=int(before[row])),
            )
        elif len(values_after):
            row = int(values_after[0])
            fail(
                "lengths",
                gettext(
                    N_(
                        "batch {index}, row {row}: lengths says {length} but the row has other values than "
                        "{pad} after it: lengths and padding disagree."
                    )
                ).format(index=index, row=row, length=int(lengths[row]), pad=pad_value),
            )
        collisions = is_pad_value & real
        collisions[after_padding] = False
        if bool(collisions.any()):
            row, step = (int(i) for i in collisions.nonzero()[0])
            fail(
                "pad id",
                gettext(
                    N_(
                        "batch {index}, row {row}, step {step}: a real step holds the pad value {pad}, so a model "
                        "that finds pads by their id takes it for a pad. Give the pads an id no real token has."
                    )
                ).format(index=index, row=row, step=step, pad=pad_value),
            )
        if labels is not None and isinstance(labels, torch.Tensor) and labels.dim() >= 2:
            label_rows = (labels if batch_first else labels.transpose(0, 1)).cpu()
            if label_rows.shape[:2] == rows.shape[:2]:
                labels_checked = True
                if bool((label_rows[real] == pad_label).any()):
                    fail(
                        "labels",
                        gettext(
                            N_(
                                "batch {index}: the ignored label {pad_label} is also a label of a real step: pad "
                                "the labels with a value no class has."
                            )
                        ).format(index=index, pad_label=pad_label),
                    )
                elif not bool((label_rows[~real] == pad_label).all()):
                    fail(
                        "labels",
                        gettext(
                            N_(
                                "batch {index}: the labels of the pads are not the ignored value {pad_label}: the "
                                "loss counts them as a real class."
                            )
                        ).format(index=index, pad_label=pad_label),
                    )
        efficiencies.append(float(lengths.sum()) / (rows.shape[0] * rows.shape[1]))
    if not efficiencies and not findings:
        raise _error(N_("batches yielded no batch: give a DataLoader or a list of (padded, lengths) batches"))
    passes = {
        "lengths": N_("each length equals its row's steps before the pads."),
        "pad id": N_("no real step holds the pad value {pad}."),
        "labels": N_("the pads' labels are the ignored value {pad_label}, which no real step has."),
        "lengths tensor": N_("lengths is a CPU int64 tensor in every batch."),
        "layout": N_("every batch has one length per row, none past the padded width."),
    }
    # the checks that read the rows passed the batches they read; a batch of the wrong layout they could not read
    if efficiencies:
        unchecked = N_(
            "not checked in {unread} of {total} batches, whose layout is wrong (see {layout}); the others pass."
        )
    else:
        unchecked = N_("not checked, since the layout of every batch is wrong (see {layout}).")
    report = PaddingReport()
    for check, sentence in passes.items():
        if check in findings:
            report.append(findings[check])
        elif check == "labels" and not (labels_checked or labels_unread):
            continue  # no tagger's labels in the batches
        elif unread and check in ("lengths", "pad id", "labels"):
            report.append(
                Finding(
                    check,
                    None,
                    gettext(unchecked).format(
                        unread=unread, total=unread + len(efficiencies), layout=gettext(CHECK_NAMES["layout"])
                    ),
                )
            )
        else:
            report.append(Finding(check, True, gettext(sentence).format(pad=pad_value, pad_label=pad_label)))
    if efficiencies:
        report.append(
            Finding(
                "padding efficiency",
                None,
                gettext(
                    N_(
                        "{count} batches, real steps over padded steps: mean {mean:.2f}, lowest {low:.2f}, "
                        "highest {high:.2f}."
                    )
                ).format(
                    count=len(efficiencies),
                    mean=sum(efficiencies) / len(efficiencies),
                    low=min(efficiencies),
                    high=max(efficiencies),
                ),
            )
        )
    report.efficiencies = tuple(efficiencies)
    return report
