"""The sweep of every size-taking route for every size (the requests of
``tests/test_sweep.py``), timed: the whole sweep, each size and the slowest
answers, in one app process with its kernels loaded first. The test counts
the engine's work in each answer; how long that work takes on a machine is
measured here.

    python -m benchmarks --sweep
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import TYPE_CHECKING

from tests.test_sweep import SIZES, Sweep, sweep_config, sweep_size

if TYPE_CHECKING:
    from webapp.engine import GameSize


class TimedSweep(Sweep):
    """The test's sweep, each answer timed."""

    def __init__(self, client):
        super().__init__(client)
        self.times: list[tuple[float, str]] = []

    def send(self, method: str, url: str, **kwargs):
        started = time.perf_counter()
        resp = super().send(method, url, **kwargs)
        self.times.append((time.perf_counter() - started, f"{method} {url}"))
        return resp

    @property
    def slowest(self) -> tuple[float, str]:
        return max(self.times, default=(0.0, ""))


def main(shown: int = 8, sizes: list[GameSize] | None = None) -> None:
    """The sweep of ``sizes`` (every size of ``tests/test_sweep.py`` unless given)."""
    from webapp import create_app

    sizes = SIZES if sizes is None else sizes

    with tempfile.TemporaryDirectory(prefix="mastermind-sweep-") as folder:
        app = create_app(sweep_config(os.path.join(folder, "games.sqlite3")))
        sweep = TimedSweep(app.test_client())
        timed = []
        for size in sizes:
            started = time.perf_counter()
            sweep_size(sweep, size)
            timed.append((time.perf_counter() - started, size.label()))
        app.extensions["jobs"].stop()
    total = sum(seconds for seconds, _ in timed)
    print(f"sweep: {sweep.count} requests over {len(timed)} sizes in {total:.1f} s (kernels loaded before)")
    print(f"{'slowest sizes':40} {'seconds':>8}")
    for seconds, label in sorted(timed, reverse=True)[:shown]:
        print(f"{label:40} {seconds:8.2f}")
    print(f"{'slowest answers':100} {'seconds':>8}")
    for seconds, what in sorted(sweep.times, reverse=True)[:shown]:
        print(f"{what[:100]:100} {seconds:8.2f}")
    print(f"5xx answers: {len(sweep.problems)}")


if __name__ == "__main__":
    main()
