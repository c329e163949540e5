"""The exercise checks of chapter 07: the last real step by gather, left padding, the logits' shift under pads."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from padpack.checks import Case, Exercise, Mistake
from padpack.course.classifier import SequenceClassifier
from padpack.course.reviews import Vocabulary
from padpack.i18n import N_

_LAST_STEP = "03_lstm_hidden_state_extraction#index-the-padded-output-at-lengths-1"
_ABLATION = "07_padding_bug_ablation#the-padding-bug-ablation-output-1"


def gather_last_step_cases() -> list:
    """Batch-first LSTM outputs, each with the packed run's h_n[-1]."""
    cases = []
    for label, lengths, extra, hidden, dtype, shown in [
        (N_("lengths 5, 2, 7, 3, padded one step past the longest"), [5, 2, 7, 3], 1, 4, torch.float32, True),
        (N_("a length of 1"), [3, 1, 4], 0, 4, torch.float32, True),
        (N_("a batch of one review"), [4], 0, 4, torch.float32, True),
        (N_("float64 inputs"), [4, 2, 5], 0, 4, torch.float64, True),
        (N_("six reviews, hidden size 3"), [2, 6, 6, 1, 3, 5], 2, 3, torch.float32, False),
        (N_("a batch of one review without pads"), [1], 0, 2, torch.float64, False),
    ]:
        lstm = nn.LSTM(3, hidden, batch_first=True, dtype=dtype)
        lengths = torch.tensor(lengths)
        padded = torch.randn(len(lengths), int(lengths.max()) + extra, 3, dtype=dtype)
        with torch.no_grad():
            output, _ = lstm(padded)
            packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
            _, (h_n, _) = lstm(packed)
        cases.append(Case(label, (output, lengths), h_n[-1], shown))
    return cases


def _gathered(output, lengths, expand=True):
    index = (lengths - 1).view(-1, 1, 1)
    if expand:
        index = index.expand(-1, 1, output.shape[2])
    return output.gather(1, index)


check_gather_last_step = Exercise(
    gather_last_step_cases,
    [
        Mistake(
            lambda output, lengths: output[:, -1],
            N_("output[:, -1] is the last padded step: for every review shorter than the longest, that step is a pad."),
            _ABLATION,
        ),
        Mistake(
            lambda output, lengths: output[torch.arange(len(lengths)), lengths],
            N_("Off by one: the last real step of a review of length L is at index L - 1."),
            _LAST_STEP,
        ),
        Mistake(
            lambda output, lengths: output[:, lengths - 1],
            N_("output[:, lengths - 1] takes every chosen step for every review: pair each step with its own row."),
            _LAST_STEP,
        ),
        Mistake(
            lambda output, lengths: _gathered(output, lengths, expand=False).squeeze(1),
            N_(
                "The gather index has one column where the output has hidden "
                "ones: expand it to (batch, 1, hidden) first."
            ),
            _LAST_STEP,
        ),
        Mistake(
            lambda output, lengths: _gathered(output, lengths).squeeze(),
            N_(
                "squeeze() drops every dimension of size 1, the batch too when it holds one review: "
                "squeeze(1) drops only the time step."
            ),
            _LAST_STEP,
        ),
        Mistake(
            lambda output, lengths: _gathered(output, lengths),
            N_("The result keeps the time dimension, (batch, 1, hidden): squeeze(1) it away."),
            _LAST_STEP,
        ),
        Mistake(
            lambda output, lengths: output[lengths - 1, torch.arange(len(lengths))],
            N_(
                "This indexes a time-major (time, batch, hidden) output, but this one is batch-first, "
                "(batch, time, hidden): the batch index comes first, output[rows, lengths - 1]."
            ),
            _LAST_STEP,
            raises=True,
        ),
    ],
    N_(
        "torch.gather along dim 1 needs an index shaped like the result "
        "before squeezing: (batch, 1, hidden), filled with lengths - 1."
    ),
    answer=N_(
        "A forward RNN has not seen the pads yet at step lengths - 1, so the pads that follow cannot change it."
        " A backward RNN starts at the last padded step and reads every pad before it reaches the real tokens: "
        "its state at position 0 depends on the pads. Packing is what saves it (chapter 4)."
    ),
)


def left_pad_cases() -> list:
    """Right-padded id batches; the answer built row by row with cat."""
    cases = []
    for label, lengths, width, shown in [
        (N_("lengths 3, 1, 4, 2"), [3, 1, 4, 2], 4, True),
        (N_("no pads at all"), [3, 3], 3, True),
        (N_("the longest review first, two extra pad columns"), [5, 2, 4], 7, True),
        (N_("a batch of one review"), [2], 5, True),
        (N_("six reviews, one extra pad column"), [1, 6, 3, 2, 6, 4], 7, False),
    ]:
        rows = [torch.randint(2, 9, (n,)) for n in lengths]
        padded = torch.stack([torch.cat([r, torch.zeros(width - len(r), dtype=r.dtype)]) for r in rows])
        want = torch.stack([torch.cat([torch.zeros(width - len(r), dtype=r.dtype), r]) for r in rows])
        cases.append(Case(label, (padded, torch.tensor(lengths)), want, shown))
    return cases


def _rolled(padded, shifts):
    return torch.stack([row.roll(s) for row, s in zip(padded, shifts, strict=True)])


def _float_pads_in_front(padded, lengths):
    width = padded.shape[1]
    return torch.stack([torch.cat([torch.zeros(width - n), row[:n]]) for row, n in zip(padded, lengths.tolist())])


_LEFT_PADDING = "04_bidirectional_pitfalls#pitfall-5-left-padding-does-not-rescue-an-unpacked-bidirectional-rnn"
check_left_pad = Exercise(
    left_pad_cases,
    [
        Mistake(
            lambda padded, lengths: _rolled(padded, lengths.tolist()),
            N_(
                "Each row went the wrong way: rolling right by the length (or left by the number of pads) "
                "puts the pads back at the end. Roll each row right by its number of pads, width - length, "
                "or left by its length."
            ),
            _LEFT_PADDING,
        ),
        Mistake(
            lambda padded, lengths: padded.flip(1),
            N_(
                "flip reverses the order of the tokens too: the review would be "
                "read backwards; move the tokens without reordering them."
            ),
            _LEFT_PADDING,
        ),
        Mistake(
            lambda padded, lengths: padded.roll(padded.shape[1] - int(lengths[0]), dims=1),
            N_(
                "Every row is rolled by the same amount: each review has its own "
                "number of pads, so roll each row by its own."
            ),
            _LEFT_PADDING,
        ),
        Mistake(
            lambda padded, lengths: _rolled(padded, (lengths.max() - lengths).tolist()),
            N_(
                "Each row is rolled by the longest length minus its own, but the batch can be wider than its "
                "longest review: roll by padded.shape[1] - length, so the last token reaches the last column."
            ),
            _LEFT_PADDING,
        ),
        Mistake(
            lambda padded, lengths: _float_pads_in_front(padded, lengths),
            N_(
                "The ids became floats: torch.zeros makes float32 pads, and cat promotes the int64 ids to "
                "them. Make the pads with dtype=padded.dtype (or torch.zeros_like)."
            ),
            _LEFT_PADDING,
        ),
    ],
    N_("A row with n real tokens in a batch of width w has w - n pads; roll that row right by w - n."),
    answer=N_(
        "No. The pads now come first. Their embeddings are zero, but the LSTM's biases still move the state "
        "away from zero at every pad step (chapter 3), so the real tokens start from a state that depends on "
        "how many pads came before."
    ),
)


class _LastPaddedStep(SequenceClassifier):
    """The output[:, -1] bug, for the checks."""

    def encode(self, padded, lengths):
        return self.rnn(self.embedding(padded))[0][:, -1]


def pad_shift_cases() -> list:
    """Small models; pads appended by hand, slot by slot."""
    cases = []
    for label, model_class, lengths, extra, shown in [
        (N_("a packed model, 3 more pads"), SequenceClassifier, [4, 2, 5], 3, True),
        (N_("an output[:, -1] model, 3 more pads"), _LastPaddedStep, [4, 2, 5], 3, True),
        (N_("an output[:, -1] model, 1 more pad"), _LastPaddedStep, [1, 3], 1, True),
        (N_("an output[:, -1] model, a batch of one, 2 more pads"), _LastPaddedStep, [3], 2, False),
        (N_("an output[:, -1] GRU model, 4 more pads"), _LastPaddedStep, [2, 5, 1, 4], 4, False),
    ]:
        cell = "gru" if "GRU" in label else "lstm"
        model = model_class(10, 4, hidden_size=5, cell=cell).eval()
        lengths = torch.tensor(lengths)
        padded = torch.zeros(len(lengths), int(lengths.max()), dtype=torch.int64)
        longer = torch.zeros(len(lengths), padded.shape[1] + extra, dtype=torch.int64)
        for row, n in enumerate(lengths.tolist()):
            padded[row, :n] = longer[row, :n] = torch.randint(2, 10, (n,))
        with torch.no_grad():
            if model_class is SequenceClassifier:
                want = torch.zeros(len(lengths), 4)
            else:
                want = model(longer, lengths) - model(padded, lengths)
        cases.append(Case(label, (model, padded, lengths, extra), want, shown))
    return cases


@torch.no_grad()
def _shift(model, padded, lengths, extra, pad=0, left=False, count=False, subtract=True, softmax=False):
    more = torch.full((len(padded), extra), pad)
    longer = torch.cat([more, padded] if left else [padded, more], dim=1)
    with_pads = model(longer, lengths + extra * count)
    if not subtract:
        return with_pads
    without = model(padded, lengths)
    if softmax:
        return with_pads.softmax(dim=1) - without.softmax(dim=1)
    return with_pads - without


_PAD_SWEEP = "07_padding_bug_ablation#accuracy-against-the-number-of-pads"
check_pad_shift = Exercise(
    pad_shift_cases,
    [
        Mistake(
            lambda *args: _shift(*args, count=True),
            N_("The new pads are counted in the lengths: they are pads, so the lengths stay the same."),
            _PAD_SWEEP,
        ),
        Mistake(
            lambda *args: _shift(*args, left=True),
            N_(
                "The pads went in front of the reviews: append them after the "
                "last column, where right padding puts them."
            ),
            _PAD_SWEEP,
        ),
        Mistake(
            lambda *args: _shift(*args, pad=Vocabulary.UNK_ID),
            N_("The appended ids are 1, <unk>, not the pad id 0: use Vocabulary.PAD_ID."),
            "05_batches_and_bucketing#a-tiny-tokenizer-and-vocabulary",
        ),
        Mistake(
            lambda model, padded, lengths, extra: _shift(model, padded, lengths, extra).neg(),
            N_("The difference has the wrong sign: return the logits with the pads minus the logits without them."),
            _PAD_SWEEP,
        ),
        Mistake(
            lambda *args: _shift(*args, subtract=False),
            N_(
                "It returned the logits with the pads, not how far they moved: subtract the logits of the "
                "batch without the extra pads."
            ),
            _PAD_SWEEP,
        ),
        Mistake(
            lambda *args: _shift(*args, softmax=True),
            N_(
                "This is the change of the probabilities (after softmax): the question asks for the change "
                "of the logits, the model's raw outputs."
            ),
            _PAD_SWEEP,
        ),
    ],
    N_(
        "Build the longer batch with torch.cat (or nn.functional.pad) on "
        "dim 1, keep the lengths as they are, and subtract the two logits."
    ),
)
