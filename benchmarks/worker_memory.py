"""How much one app process (a gunicorn worker) grows as it serves the whole
space of sizes: its RSS after start-up, after 46 classroom requests on 6×9
(each a different position), and after the sweep of every size-taking route
for all 70 sizes (the requests of ``tests/test_sweep.py``). The engine's
per-process caches are bounded in bytes, so the growth levels off.

    python -m benchmarks --worker-memory
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time


def rss_mib() -> float:
    """This process's resident memory now, in MiB."""
    with open(f"/proc/{os.getpid()}/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(sizes: list | None = None, positions: int = 46) -> None:
    """``positions`` classroom requests on 6×9, then the sweep of ``sizes``
    (every size of ``tests/test_sweep.py`` unless given)."""
    from tests.test_sweep import SIZES, sweep_size
    from webapp import create_app

    from .sweep import TimedSweep

    folder = tempfile.mkdtemp(prefix="mastermind-memory-")
    app = create_app(
        {
            "DATABASE": os.path.join(folder, "games.sqlite3"),
            "DATABASE_URL": None,
            "REDIS_URL": None,
            "CREATE_RATE_LIMIT": "1000000 per minute",
            "JOBS_CONSUMER": "none",
            "JOBS_MAX": 1_000_000,
            "WARM_UP": True,
        }
    )
    rows = [("started, kernels loaded", 0, 0.0, rss_mib(), peak_mib())]
    sweep = TimedSweep(app.test_client())
    started = time.perf_counter()
    sizes = SIZES if sizes is None else sizes
    for first in range(positions):  # positions one guess into 6×9 (46 by default), each a different reply
        guess = "112233"
        reply = f"{first % 4},{(first // 4) % 3}"
        sweep.get(
            "/solver/classroom",
            {
                "pegs": 6,
                "colors": 9,
                "strategy": "knuth" if first % 2 else "entropy",
                "history": f"{guess}:{reply}" if first else "",
            },
        )
    rows.append(
        (f"{positions} classroom requests, 6×9", sweep.count, time.perf_counter() - started, rss_mib(), peak_mib())
    )
    before, started = sweep.count, time.perf_counter()
    for size in sizes:
        sweep_size(sweep, size)
    rows.append(
        (f"sweep of {len(sizes)} sizes", sweep.count - before, time.perf_counter() - started, rss_mib(), peak_mib())
    )
    app.extensions["jobs"].stop()
    app.extensions["store"].close()
    shutil.rmtree(folder, ignore_errors=True)
    print("one app process (a gunicorn worker's share), SQLite, jobs queued but not run")
    print(f"{'after':34} {'requests':>9} {'seconds':>8} {'RSS MiB':>8} {'peak MiB':>9}")
    for label, count, seconds, rss, peak in rows:
        print(f"{label:34} {count:>9} {seconds:>8.1f} {rss:>8.0f} {peak:>9.0f}")
    print(f"5xx answers: {len(sweep.problems)}; slowest {sweep.slowest[0]:.2f} s ({sweep.slowest[1][:80]})")


if __name__ == "__main__":
    main()
