"""What deep dive 11's setup cell needs besides its imports: chapter 1's lengths and padding efficiency
(`padpack.course.lengths`), chapter 5's reviews and loaders (`padpack.course.reviews`), chapter 6's model, device
and training loop (`padpack.course.classifier`), and the standard-library and torch names the page's cells use."""

import functools
import itertools
import os
import platform
import textwrap
import warnings

from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from padpack.course.classifier import VAL_LOADER, SequenceClassifier, device, new_model, train_one_epoch
from padpack.course.lengths import dataset_lengths, distributions, efficiency, sample_lengths, split_into_batches
from padpack.course.reviews import bucketed_loader, shuffled_loader, train_set
from padpack.i18n import N_, gettext, say

# chapter 1's lengths, chapters 5 and 6's data and model, the standard library and torch's names
__all__ = [
    "BUCKETING",
    "FASTER",
    "FASTEST",
    "PACKING_IDEAL",
    "PACKING_SLOWER",
    "PER_TOKEN",
    "SLOWER",
    "THREADS",
    "TIMING",
    "VAL_LOADER",
    "VERSUS",
    "SequenceClassifier",
    "bucketed_loader",
    "dataset_lengths",
    "device",
    "distributions",
    "efficiency",
    "functools",
    "gettext",
    "itertools",
    "new_model",
    "os",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "platform",
    "sample_lengths",
    "say",
    "shuffled_loader",
    "split_into_batches",
    "textwrap",
    "train_one_epoch",
    "train_set",
    "warnings",
]


# A row of the timing table of "Measure it on your machine", for one cell (LSTM or GRU): TIMING[pass, strategy]
TIMING = {
    ("forward", "padded"): N_("{cell} forward, padded: {ms} ms"),
    ("forward", "packed"): N_("{cell} forward, packed: {ms} ms"),
    ("forward", "bucketed"): N_("{cell} forward, bucketed: {ms} ms"),
    ("forward+backward", "padded"): N_("{cell} forward+backward, padded: {ms} ms"),
    ("forward+backward", "packed"): N_("{cell} forward+backward, packed: {ms} ms"),
    ("forward+backward", "bucketed"): N_("{cell} forward+backward, bucketed: {ms} ms"),
}

# The sentences that "What the numbers say" and the speed section write from the reader's timings: `say` prints
# them in the notebook's language (the Chinese in ch11.po), and the Chinese notebook stores them translated. Each
# is one catalogue entry with only numbers and names to fill in, so that a translation is a whole sentence. The
# ideal and each model's measured ratios get a line of their own, so that no wrap splits a term in either language.
PACKING_IDEAL = N_(
    "Packing skips {share} of the steps here, so ideally it takes {ideal}x the padded time.\n"
    "Measured: LSTM forward {lstm_forward}; LSTM forward+backward {lstm_both};\n"
    "GRU forward {gru_forward}; GRU forward+backward {gru_both}."
)
FASTER = N_("{ratio}x (faster)")
SLOWER = N_("{ratio}x (slower)")
PACKING_SLOWER = N_(
    "Packing was slower than plain padding in {slower} of {cases} cases; on average {times}x its ideal."
)
BUCKETING = N_(
    "Bucketing computes {ideal}x the steps of random padded batches and took {low}x to {high}x the padded time "
    "(on average {times}x its ideal)."
)
FASTEST = N_("The fastest strategy was bucketing in {count} of {cases} cases.")
THREADS = N_("{count} threads")
# The other setups that the speed section times, as its cells name them; they print each name with gettext
SETUP_NAMES = (N_("shuffled, packed"), N_("bucketed, packed"), N_("bucketed, gather"))
PER_TOKEN = N_("{name}: {median} us per real token ({low} to {high})")
# one setup against another per real token: VERSUS[faster, apart], apart when the rounds' ranges do not overlap
VERSUS = {
    (True, True): N_("{name} vs {baseline}: {ratio}x faster"),
    (False, True): N_("{name} vs {baseline}: {ratio}x slower"),
    (True, False): N_("{name} vs {baseline}: {ratio}x faster (within the noise)"),
    (False, False): N_("{name} vs {baseline}: {ratio}x slower (within the noise)"),
}
