"""Benchmarks for "Pad, Pack, Train": padded vs packed vs length-bucketed RNN batches on CPU and GPU.

``python -m benchmarks --quick`` (about 2 min), ``python -m benchmarks`` (the full grid) and
``python -m benchmarks.report`` (figures and book/performance.md from the committed results).
"""
