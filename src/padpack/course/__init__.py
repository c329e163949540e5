"""The book's own code: what the chapters of *Pad, Pack, Train* teach, reuse and need, apart from the tools.

- the helpers every page calls: `set_seed`, `print_table`, `expect_error` (an error shown without stopping Run
  all), `sharp_white_figures`, and `use_language` (the same as `padpack.use_language`);
- recaps of the code that chapters teach and later pages import: `reviews` (chapter 5's data, tokenizer,
  `Dataset`, `collate_fn`s and samplers), `classifier` (chapter 6's model and training loop), `lengths`,
  `hidden_state`, `tagging`, `attention` and `simple_reviews`;
- chapter 10's worker files, which its training processes import: `bucket_sampler`, `review_model`, and the
  `processes` that start them;
- per chapter: `chapters.chNN`, what its setup cell needs and no page teaches, and `exercises.chNN`, its checks.

A chapter's setup cell reads, for example:

    from padpack.course import expect_error, set_seed, use_language
    from padpack.course.chapters.ch05 import *
    from padpack.course.exercises.ch05 import check_sorted_collate
"""

from padpack.course.helpers import expect_error, print_table, set_seed, sharp_white_figures
from padpack.i18n import use_language

__all__ = ["expect_error", "print_table", "set_seed", "sharp_white_figures", "use_language"]
