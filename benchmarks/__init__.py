"""Benchmarks for "Pad, Pack, Train": padded vs packed vs length-bucketed RNN batches on CPU and GPU.

``python -m benchmarks --quick`` (fewer configurations, the same rounds; its time: ``results.QUICK_RUN_TIME``),
``python -m benchmarks`` (the full grid and recipe; the committed run's time is ``wall_s`` in its machine JSON,
shown on the page), ``python -m benchmarks.gap`` (where a recipe epoch's time goes against the ideal's) and
``python -m benchmarks.report``
(figures and book/performance.md from the committed results).

Modules: ``data`` (lengths and batching), ``timing`` (interleaved rounds), ``recipe`` and ``grid`` (what is
measured), ``results`` (result files, the noise and more-work checks), ``cli`` (measure, check, write), ``gap``
(the recipe's time taken apart);
``findings`` (numbers read off results), ``figures``, ``page`` and ``report`` (writes both). Imports run one
way: ``cli`` calls ``report`` after a full run; nothing on the report side imports ``cli`` or ``gap``.
"""
