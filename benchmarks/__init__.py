"""Reproducible performance runs (``python -m benchmarks`` or ``make bench``); not timed tests."""
