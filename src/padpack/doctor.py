"""The padding doctor: run the book's tests for padding bugs on your own model, in seconds, without training.

`check_padding(model, sequences)` feeds your model padded batches of your sequences and reports, one plain
sentence each with the book's page that explains it:

- **batch independence**: each sequence alone gives what it gives inside a batch of other lengths and orders
  (catches `output[:, -1]` on right-padded output, lengths computed after padding, a mean pooled over pads, a
  sort without the unsort);
- **pad values**: random values in the pad positions change nothing;
- **the end is read**: changing a sequence's last real step changes its output;
- **both directions** (for each bidirectional RNN inside the model): the output depends on the forward AND the
  backward direction (catches `h_n[-1]` of a bidirectional RNN, which is the backward direction alone);
- **masked loss** (for a tagger, with `loss_fn`): the loss and its gradients are the token-weighted mean of each
  sequence's own, so pads count for nothing.

The calling convention is the book's: `model(padded, lengths)` with `padded` of shape (batch, longest, ...)
(`batch_first=False`: (longest, batch, ...)) and `lengths` a CPU int64 tensor, returning one output per sequence,
shape (batch, ...), or with `per_token=True` one per step, shape (batch, longest, ...) (or (longest, batch, ...)).
Anything else goes through `forward(model, padded, lengths)`, a small function you write.

It never trains, restores the model's train/eval mode and the global random generators, and raises
`PaddingCheckError`, one sentence naming the argument, for input it cannot use.

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
['batch independence', 'pad values']
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pad_sequence

from padpack.checks import labelled, link
from padpack.i18n import N_, gettext, wrap

__all__ = ["Finding", "PaddingCheckError", "PaddingReport", "check_padding"]

PAGES = {
    "batch independence": (
        "07_padding_bug_ablation#the-test-that-catches-it-a-reviews-prediction-must-not-depend-on-its-batch"
    ),
    "pad values": "03_lstm_hidden_state_extraction#zeros-do-change-the-state",
    "the end is read": "03_lstm_hidden_state_extraction#three-correct-ways-to-the-last-valid-state",
    "both directions": "04_bidirectional_pitfalls#pitfall-1-output--1-is-not-a-summary-of-a-bidirectional-rnn",
    "masked loss": "08_sequence_labelling_and_loss_masking#the-wrong-loss-averaging-over-the-pads-too",
}
CHECK_NAMES = {
    "batch independence": N_("batch independence"),
    "pad values": N_("pad values"),
    "the end is read": N_("the end is read"),
    "both directions": N_("both directions"),
    "masked loss": N_("masked loss"),
}


class PaddingCheckError(ValueError):
    """Input that check_padding cannot use; the message names the argument and what to change.

    >>> import torch
    >>> from torch import nn
    >>> same_length = [torch.tensor([1, 2]), torch.tensor([3, 4])]
    >>> check_padding(nn.Identity(), same_length)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    padpack.doctor.PaddingCheckError: all the sequences have the same length...
    """


@dataclass(frozen=True)
class Finding:
    """One check: its name, whether it passed (None: it did not apply), and the sentence that says why.

    Printed, a finding is one line (wrapped at 79 columns): ✓ passed, ✗ failed (with the page that explains
    the bug), – did not apply.

    >>> finding = Finding("pad values", True, "random pads change no output.")
    >>> finding.check, finding.passed
    ('pad values', True)
    >>> print(finding)
    ✓ pad values: random pads change no output.
    """

    check: str
    passed: bool | None
    sentence: str

    @property
    def page(self) -> str:
        """The address of the book's section that explains this check (in the current language's edition).

        >>> page = Finding("pad values", False, "the model reads its pads.").page
        >>> page.startswith("https://")
        True
        >>> print(page.rsplit("/", 1)[-1])
        03_lstm_hidden_state_extraction.html#zeros-do-change-the-state
        """
        return link(PAGES[self.check])

    def __str__(self) -> str:
        mark = {True: "✓", False: "✗", None: "–"}[self.passed]
        name = gettext(N_("{check}:")).format(check=gettext(CHECK_NAMES[self.check]))
        text = f"{mark} {labelled(name, self.sentence)}"
        if self.passed is False:
            text += f" {labelled(gettext(N_('See:')), self.page)}"
        return wrap(text, 79, indent="  ")


class PaddingReport(list):
    """The findings of check_padding (a list of Finding), printed one sentence each.

    >>> report = PaddingReport([
    ...     Finding("pad values", True, "random values change no output."),
    ...     Finding("both directions", None, "no bidirectional RNN."),
    ... ])
    >>> print(report)
    ✓ pad values: random values change no output.
    – both directions: no bidirectional RNN.
    """

    @property
    def ok(self) -> bool:
        """True when no check failed (a check that did not apply does not count).

        >>> PaddingReport([Finding("both directions", None, "no RNN.")]).ok
        True
        >>> PaddingReport([Finding("pad values", False, "it reads pads.")]).ok
        False
        """
        return all(finding.passed is not False for finding in self)

    def __str__(self) -> str:
        return "\n".join(str(finding) for finding in self)

    def _repr_pretty_(self, printer, cycle) -> None:  # how IPython and Jupyter show it
        printer.text(str(self))


# ------------------------------------------------------------------------------------------- the batches
@dataclass
class _Setup:
    model: nn.Module
    forward: Callable
    batch_first: bool
    per_token: bool
    pad_value: float
    atol: float
    rtol: float


def _as_sequences(sequences, lengths, batch_first: bool) -> list[torch.Tensor]:
    """The sequences as a list of tensors (steps first), from a list or from a padded batch and its lengths."""
    if isinstance(sequences, torch.Tensor):
        if lengths is None:
            raise PaddingCheckError(
                "sequences is a padded tensor, so lengths is needed too: pass lengths=..., one per sequence, or "
                "pass the sequences as a list of tensors of their real lengths"
            )
        lengths = torch.as_tensor(lengths).tolist()
        padded = sequences if batch_first else sequences.transpose(0, 1)
        if len(lengths) != padded.shape[0]:
            raise PaddingCheckError(
                f"lengths has {len(lengths)} entries but the padded batch holds {padded.shape[0]} sequences "
                f"(its {'first' if batch_first else 'second'} dimension): give one length per sequence"
            )
        if max(lengths) > padded.shape[1]:
            raise PaddingCheckError(
                f"lengths has {max(lengths)}, longer than the padded width {padded.shape[1]}: a length counts the "
                "real steps of a sequence, which fit in the padded batch"
            )
        sequences = [row[:n] for row, n in zip(padded, lengths, strict=True)]
    elif lengths is not None:
        raise PaddingCheckError("lengths is only for a padded tensor: a list of sequences carries its own lengths")
    if not isinstance(sequences, Sequence) or len(sequences) < 2:
        raise PaddingCheckError(
            "sequences must be a list of at least two tensors (or a padded tensor with lengths): the checks "
            "compare sequences of different lengths in one batch"
        )
    for index, sequence in enumerate(sequences):
        if not isinstance(sequence, torch.Tensor):
            raise PaddingCheckError(f"sequences[{index}] is a {type(sequence).__name__}, not a tensor")
        if sequence.dim() == 0 or len(sequence) == 0:
            raise PaddingCheckError(
                f"sequences[{index}] has length 0: every sequence needs at least one real step (packing refuses "
                "a length of 0)"
            )
    if len({len(sequence) for sequence in sequences}) < 2:
        raise PaddingCheckError(
            "all the sequences have the same length, so a batch of them has no pads to test: give sequences of "
            "different lengths"
        )
    return list(sequences)


def _pad(sequences: list[torch.Tensor], setup: _Setup, fill: Callable | None = None) -> tuple:
    """A padded batch of `sequences` in the model's layout, its lengths, and the mask of the pads."""
    padded = pad_sequence(sequences, batch_first=True, padding_value=setup.pad_value)
    lengths = torch.tensor([len(sequence) for sequence in sequences], dtype=torch.int64)
    is_pad = torch.arange(padded.shape[1])[None, :] >= lengths[:, None]
    if fill is not None:
        padded = padded.clone()
        padded[is_pad] = fill(padded[is_pad])
    return (padded if setup.batch_first else padded.transpose(0, 1)), lengths, is_pad


def _outputs(setup: _Setup, sequences: list[torch.Tensor], fill: Callable | None = None) -> list[torch.Tensor]:
    """One output per sequence (a tagger's: its real steps), from one padded batch of them."""
    padded, lengths, _ = _pad(sequences, setup, fill)
    try:
        output = setup.forward(setup.model, padded, lengths)
    except Exception as error:
        raise PaddingCheckError(
            f"model raised {type(error).__name__} on a padded batch of {len(sequences)} sequences of lengths "
            f"{lengths.tolist()}: {error}. check_padding calls model(padded, lengths) with padded of shape "
            f"{tuple(padded.shape)}; for another signature pass forward=lambda model, padded, lengths: ..."
        ) from error
    if not isinstance(output, torch.Tensor):
        raise PaddingCheckError(
            f"model returned a {type(output).__name__}, not a tensor: pass forward=... that returns the output "
            "tensor (for example lambda model, padded, lengths: model(padded, lengths)[0])"
        )
    if setup.per_token:
        rows = output if setup.batch_first else output.transpose(0, 1) if output.dim() > 1 else output
        if output.dim() < 2 or rows.shape[:2] != (len(sequences), padded.shape[1 if setup.batch_first else 0]):
            raise PaddingCheckError(
                f"model returned shape {tuple(output.shape)} for a batch of {len(sequences)} sequences padded to "
                f"{int(lengths.max())} steps: per_token=True needs one output per step, shape "
                f"{(len(sequences), int(lengths.max())) if setup.batch_first else (int(lengths.max()), len(sequences))}"
                "..."
            )
        return [row[:n].detach() for row, n in zip(rows, lengths.tolist(), strict=True)]
    if output.dim() == 0 or output.shape[0] != len(sequences):
        raise PaddingCheckError(
            f"model returned shape {tuple(output.shape)} for a batch of {len(sequences)} sequences: it must return "
            f"one output per sequence, shape ({len(sequences)}, ...); for a tagger pass per_token=True"
        )
    return [row.detach() for row in output]


def _gap(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).abs().max()) if a.numel() else 0.0


def _close(a: torch.Tensor, b: torch.Tensor, setup: _Setup) -> bool:
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=setup.rtol, atol=setup.atol)


def _random_fill(sequences: list[torch.Tensor], setup: _Setup) -> Callable:
    """What to put in the pads instead of pad_value: other ids of the sequences' own, or random numbers."""
    values = torch.cat([sequence.flatten() for sequence in sequences])
    if values.is_floating_point():
        scale = float(values.abs().max()) or 1.0
        return lambda pads: torch.randn(pads.shape, dtype=pads.dtype) * scale
    choices = values.unique()
    choices = choices[choices != setup.pad_value] if (choices != setup.pad_value).any() else choices
    return lambda pads: choices[torch.randint(len(choices), pads.shape)]


def _changed_end(sequence: torch.Tensor, others: torch.Tensor) -> torch.Tensor:
    """The sequence with its last real step replaced by another value."""
    changed = sequence.clone()
    if changed.is_floating_point():
        changed[-1] = changed[-1] + 1.0 + changed[-1].abs()
    else:
        candidates = others[others != changed[-1]]
        changed[-1] = candidates[0] if len(candidates) else changed[-1] + 1
    return changed


# ------------------------------------------------------------------------------------------- the checks
def _batch_independence(setup: _Setup, sequences: list[torch.Tensor]) -> Finding:
    alone = [_outputs(setup, [sequence])[0] for sequence in sequences]
    longest = max(sequences, key=len)
    companion = torch.cat([longest, longest])  # a longer neighbour: every sequence gets more pads
    orders = {
        N_("in the given order"): list(range(len(sequences))),
        N_("in reverse order"): list(reversed(range(len(sequences)))),
        N_("next to a longer sequence"): [*range(len(sequences)), None],
    }
    for description, order in orders.items():
        batch = [companion if index is None else sequences[index] for index in order]
        outputs = _outputs(setup, batch)
        for position, index in enumerate(order):
            if index is None:
                continue
            if not _close(outputs[position], alone[index], setup):
                return Finding(
                    "batch independence",
                    False,
                    gettext(
                        N_(
                            "sequence {index} (length {length}) gives another output in a batch {where} than "
                            "alone (largest difference {gap:.2g}): the model reads pads or mixes up sequences. "
                            "Pack the batch, or take each sequence's last real step, and unsort what you sorted."
                        )
                    ).format(
                        index=index,
                        length=len(sequences[index]),
                        where=gettext(description),
                        gap=_gap(outputs[position], alone[index]),
                    ),
                )
    return Finding(
        "batch independence",
        True,
        gettext(N_("each sequence gives the same output alone and in batches of other lengths and orders.")),
    )


def _pad_values(setup: _Setup, sequences: list[torch.Tensor]) -> Finding:
    plain = _outputs(setup, sequences)
    noisy = _outputs(setup, sequences, fill=_random_fill(sequences, setup))
    for index, (a, b) in enumerate(zip(plain, noisy, strict=True)):
        if not _close(a, b, setup):
            return Finding(
                "pad values",
                False,
                gettext(
                    N_(
                        "random values in the pads change the output of sequence {index} (largest difference "
                        "{gap:.2g}): the model reads its pads. Pack the batch, or mask the pads out."
                    )
                ).format(index=index, gap=_gap(a, b)),
            )
    return Finding("pad values", True, gettext(N_("random values in the pad positions change no output.")))


def _end_is_read(setup: _Setup, sequences: list[torch.Tensor]) -> Finding:
    plain = _outputs(setup, sequences)
    values = torch.cat([sequence.flatten() for sequence in sequences]).unique()
    changed = [_changed_end(sequence, values) for sequence in sequences]
    after = _outputs(setup, changed)
    for index, (a, b) in enumerate(zip(plain, after, strict=True)):
        a, b = (a[-1], b[-1]) if setup.per_token else (a, b)
        if _close(a, b, setup):
            return Finding(
                "the end is read",
                False,
                gettext(
                    N_(
                        "changing the last real step of sequence {index} does not change its output: the model "
                        "does not read the end of each sequence (it reads a padded step, or the final state of "
                        "a direction that ends elsewhere)."
                    )
                ).format(index=index),
            )
    return Finding("the end is read", True, gettext(N_("changing a sequence's last real step changes its output.")))


@contextlib.contextmanager
def _perturbed(rnn: nn.RNNBase, direction: int) -> Iterator[None]:
    """Add noise to one direction's half of a bidirectional RNN's outputs and final states while inside."""
    size = rnn.proj_size or rnn.hidden_size if isinstance(rnn, nn.LSTM) else rnn.hidden_size

    def shifted(tensor: torch.Tensor, half_of_last: bool) -> torch.Tensor:
        tensor = tensor.clone()
        noise = 1.0 + torch.rand((), dtype=tensor.dtype)
        if half_of_last:
            tensor[..., direction * size : (direction + 1) * size] += noise
        else:
            tensor[direction::2] += noise  # h_n's rows: layer * 2 + direction
        return tensor

    def hook(module, inputs, outputs):
        output, state = outputs
        if isinstance(output, PackedSequence):
            output = output._replace(data=shifted(output.data, True))
        else:
            output = shifted(output, True)
        state = tuple(shifted(s, False) for s in state) if isinstance(state, tuple) else shifted(state, False)
        return output, state

    handle = rnn.register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()


def _both_directions(setup: _Setup, sequences: list[torch.Tensor]) -> list[Finding]:
    rnns = [(name, m) for name, m in setup.model.named_modules() if isinstance(m, nn.RNNBase) and m.bidirectional]
    if not rnns:
        return [Finding("both directions", None, gettext(N_("the model has no bidirectional RNN: nothing to check.")))]
    findings = []
    plain = _outputs(setup, sequences)
    for name, rnn in rnns:
        ignored = []
        for direction, label in ((0, N_("forward")), (1, N_("backward"))):
            with _perturbed(rnn, direction):
                moved = _outputs(setup, sequences)
            if all(_close(a, b, setup) for a, b in zip(plain, moved, strict=True)):
                ignored.append(gettext(label))
        module = name or type(rnn).__name__
        if len(ignored) == 1:
            kept = gettext(N_("backward")) if ignored == [gettext(N_("forward"))] else gettext(N_("forward"))
            findings.append(
                Finding(
                    "both directions",
                    False,
                    gettext(
                        N_(
                            "the output ignores the {ignored} direction of the bidirectional {module}: the model "
                            "keeps only the {kept} direction (h_n[-1] alone is the backward one). Concatenate "
                            "the last layer's two final states, h_n[-2] and h_n[-1]."
                        )
                    ).format(ignored=ignored[0], module=module, kept=kept),
                )
            )
        else:
            findings.append(
                Finding(
                    "both directions",
                    True,
                    gettext(N_("the output uses both directions of the bidirectional {module}.")).format(module=module),
                )
            )
    return findings


def _masked_loss(setup: _Setup, sequences: list[torch.Tensor], labels: list[torch.Tensor], loss_fn, pad_label):
    takes_lengths = len(inspect.signature(loss_fn).parameters) >= 3
    parameters = [p for p in setup.model.parameters() if p.requires_grad]

    def loss_and_grads(batch: list[int], fill=None, label_fill=None):
        padded, lengths, is_pad = _pad([sequences[i] for i in batch], setup, fill)
        targets = pad_sequence([labels[i] for i in batch], batch_first=True, padding_value=pad_label)
        if label_fill is not None:
            targets = targets.clone()
            targets[is_pad] = label_fill(targets[is_pad])
        if not setup.batch_first:
            targets = targets.transpose(0, 1)
        with torch.enable_grad():
            output = setup.forward(setup.model, padded, lengths)
            loss = loss_fn(output, targets, lengths) if takes_lengths else loss_fn(output, targets)
            grads = torch.autograd.grad(loss, parameters, allow_unused=True)
        return loss.detach(), [torch.zeros_like(p) if g is None else g for g, p in zip(grads, parameters, strict=True)]

    everyone = list(range(len(sequences)))
    loss, grads = loss_and_grads(everyone)
    counts = torch.tensor([len(sequence) for sequence in sequences], dtype=torch.float64)
    weights = counts / counts.sum()
    alone = [loss_and_grads([i]) for i in everyone]
    want_loss = sum(w * l.double() for w, (l, _) in zip(weights, alone, strict=True))
    want_grads = [sum(w * g[k].double() for w, (_, g) in zip(weights, alone, strict=True)) for k in range(len(grads))]
    variants = [(N_("random values in the pads"), _random_fill(sequences, setup), None)]
    if takes_lengths:
        classes = torch.cat(labels).unique()
        variants.append(
            (N_("other labels in the pads"), None, lambda pads: classes[torch.randint(len(classes), pads.shape)])
        )
    for what, fill, label_fill in variants:
        other_loss, other_grads = loss_and_grads(everyone, fill, label_fill)
        if not _close(other_loss, loss, setup) or not all(_close(a, b, setup) for a, b in zip(other_grads, grads)):
            return Finding(
                "masked loss",
                False,
                gettext(N_("{what} change the loss or its gradients: the loss reads the pads.")).format(
                    what=gettext(what)
                ),
            )
    if not _close(loss, want_loss.to(loss.dtype), setup) or not all(
        _close(a, b.to(a.dtype), setup) for a, b in zip(grads, want_grads, strict=True)
    ):
        return Finding(
            "masked loss",
            False,
            gettext(
                N_(
                    "the batch's loss ({loss:.4g}) is not the mean over its real tokens of each sequence's own "
                    "({want:.4g}): it averages over pads too, or weights sequences unequally. Sum the loss over "
                    "real tokens and divide by their number (ignore_index for the pads' labels)."
                )
            ).format(loss=float(loss), want=float(want_loss)),
        )
    return Finding(
        "masked loss",
        True,
        gettext(N_("the loss and its gradients are the mean over real tokens; the pads count for nothing.")),
    )


def check_padding(
    model: nn.Module,
    sequences: Sequence[torch.Tensor] | torch.Tensor,
    *,
    lengths: Sequence[int] | torch.Tensor | None = None,
    batch_first: bool = True,
    per_token: bool = False,
    pad_value: float = 0,
    forward: Callable | None = None,
    labels: Sequence[torch.Tensor] | None = None,
    loss_fn: Callable | None = None,
    pad_label: int = -100,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    seed: int = 0,
) -> PaddingReport:
    """Test a model that reads padded batches for the padding bugs the book teaches; print the report.

    Args:
        model: called as `model(padded, lengths)` (or through `forward(model, padded, lengths)`).
        sequences: a list of at least two tensors of different lengths (token ids of shape (length,), or
            features of shape (length, features)); or one padded tensor with `lengths`.
        lengths: the real length of each sequence, when `sequences` is one padded tensor.
        batch_first: the layout the model takes, (batch, longest, ...) or (longest, batch, ...).
        per_token: the model returns one output per step (a tagger), not one per sequence.
        pad_value: what the pads hold in your batches (the check also tries random values there).
        forward: `forward(model, padded, lengths)` returns the output tensor, for a model with another
            signature.
        labels: for a tagger, each sequence's labels (with `loss_fn`).
        loss_fn: for a tagger, `loss_fn(output, padded_labels)` or `loss_fn(output, padded_labels,
            lengths)`; the pads' labels are `pad_label`.
        pad_label: the label the pads get in `padded_labels`.
        atol: how close two outputs must be to count as equal, in absolute terms (float rounding differs
            between batch sizes).
        rtol: the same, relative to the outputs.
        seed: the seed of the random values the checks put in the pads (the global generators are restored).

    Returns:
        The report, which prints itself one line per check; `report.ok` is False when one failed.

    Raises:
        PaddingCheckError: input it cannot use, in one sentence that names the argument.

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
    ✓ pad values: random values in the pad positions change no output.
    ✓ the end is read: changing a sequence's last real step changes its output.
    – both directions: the model has no bidirectional RNN: nothing to check.
    """
    if not isinstance(model, nn.Module) and forward is None:
        raise PaddingCheckError(
            f"model is a {type(model).__name__}: pass an nn.Module, or pass forward=... that calls it"
        )
    if (labels is None) != (loss_fn is None):
        raise PaddingCheckError("labels and loss_fn go together: pass both to check a tagger's masked loss")
    sequences = _as_sequences(sequences, lengths, batch_first)
    if labels is not None:
        if not per_token:
            raise PaddingCheckError("labels and loss_fn are for a tagger: pass per_token=True as well")
        if len(labels) != len(sequences) or any(len(l) != len(s) for l, s in zip(labels, sequences, strict=False)):
            raise PaddingCheckError("labels must give one label tensor per sequence, as long as that sequence")
    setup = _Setup(
        model,
        forward or (lambda model, padded, lengths: model(padded, lengths)),
        batch_first,
        per_token,
        pad_value,
        atol,
        rtol,
    )
    was_training = model.training if isinstance(model, nn.Module) else None
    report = PaddingReport()
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.manual_seed(seed)
        if isinstance(model, nn.Module):
            model.eval()  # dropout would make every comparison differ
        try:
            report.append(_batch_independence(setup, sequences))
            report.append(_pad_values(setup, sequences))
            report.append(_end_is_read(setup, sequences))
            report.extend(_both_directions(setup, sequences))
            if loss_fn is not None:
                report.append(_masked_loss(setup, sequences, list(labels), loss_fn, pad_label))
        finally:
            if was_training is not None:
                model.train(was_training)
    return report
