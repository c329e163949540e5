"""The per-chapter tests of the exercise checks. A package, so that its conftest.py is `exercises.conftest` and
does not take the place of tests/conftest.py, which other test modules import as `conftest`."""
