"""The reviews of chapter 10 and deep dive 17: a simpler variant of chapter 5's generator.

The distributed pages train on 1,200 reviews drawn by `make_simple_review`: the same toy language, labels and
long-tailed lengths as chapter 5's `make_review` (`padpack.course.reviews`), with 16 filler words instead of 22 and 1, 3
or 5 opinion words drawn from both lists at once. It draws its random numbers in another order, so the reviews
differ from chapter 5's; the distributed pages' stored outputs were computed on these.
"""

import random

from padpack.course.reviews import NEGATIVE, POSITIVE, label_of

__all__ = ["SIMPLE_FILLERS", "make_simple_review"]

SIMPLE_FILLERS = ("the", "a", "movie", "film", "plot", "cast", "story", "music")
SIMPLE_FILLERS += ("acting", "script", "was", "is", "and", "but", "very", "so")


def make_simple_review(rng: random.Random, label: int, fillers: tuple[str, ...] = SIMPLE_FILLERS) -> str:
    """Draw reviews (long-tailed lengths) until one has the wanted label."""
    while True:
        length = min(max(round(rng.lognormvariate(2.4, 0.75)), 1), 80)
        words = [rng.choice(fillers) for _ in range(length)]
        opinions = min(rng.choice((1, 3, 5)), length - (length % 2 == 0))
        for position in rng.sample(range(length - 1), opinions - 1):
            words[position] = rng.choice(POSITIVE + NEGATIVE)
        words[-1] = rng.choice(POSITIVE + NEGATIVE)
        if label_of(words) == label:
            return " ".join(words).capitalize() + rng.choice(".!")
