"""``python -m benchmarks``: see ``benchmarks.cli``."""

from .cli import main

main()
