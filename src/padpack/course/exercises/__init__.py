"""The exercise checks of every chapter: `padpack.course.exercises.ch07` holds chapter 7's `check_...` objects.

Each module builds its cases and its table of known mistakes on `padpack.checks`; the solutions stay in the
notebooks, folded, and the student edition leaves them out.
"""
