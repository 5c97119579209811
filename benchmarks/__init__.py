"""Speed and memory of the engine: ``make bench`` (``python -m benchmarks``)."""
