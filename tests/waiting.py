"""Waiting for something another thread or process makes true (a job done,
a server ready, a scrape seen): the one place the tests poll. The patience
bounds how long a broken run hangs before it fails; nothing here measures
or asserts how long the work took."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# How long a test waits for a condition before it fails (never how long work takes).
PATIENCE = 60.0
# How often the condition is asked again.
EVERY = 0.05


def eventually(condition: Callable[[], T], what: str, patience: float = PATIENCE) -> T:
    """The first truthy value of ``condition()``; the test fails, naming
    ``what`` and the last value seen, if none comes within ``patience``."""
    deadline = time.monotonic() + patience
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still {found!r}")
        time.sleep(EVERY)
    return found
