"""padpack: tools for batching variable-length sequences in PyTorch, from the course book *Pad, Pack, Train*.

The tools a reader takes to their own model and data:

- `padpack.doctor`: `check_padding(model, sequences)` tests a model that takes `model(padded, lengths)` for the
  padding bugs the book teaches, in seconds and without training;
- `padpack.batching`: `plan_batches(lengths, ...)` compares random batches, sorted chunks, whole-epoch buckets
  and a token budget on your lengths and recommends one; `python -m padpack plan` does it from the command line;
- `padpack.checks` and `padpack.i18n`, for other course authors: exercise checks that name a learner's mistake,
  with their messages in gettext catalogues (`use_language` picks English or Chinese).

The book's own lesson code and plumbing live apart, in `padpack.course`: the helpers every page calls, the code
that chapters teach and later pages reuse, each chapter's setup plumbing and its exercise checks.
"""

from padpack.i18n import use_language

__version__ = "2026.12"
# The tools first; `from padpack import *` imports them (they import torch, which `import padpack` alone does not:
# the book's scripts read padpack.i18n without it).
__all__ = ["batching", "checks", "doctor", "i18n", "use_language"]
