"""Independent subtree searches fanned out on a Dask cluster, for the long
offline computations (``mastermind improve`` and ``mastermind optimal``).

A search hands the cluster jobs that share nothing: the exact total of one
class a guess leaves, whether one guess beats the best total known, the base
policy's total of one position (the jobs are the searches' own functions,
in ``optimal`` and ``improve``). Each worker process keeps one solver for
the board between jobs (its feedback matrix and transposition table), so a
job costs its search and little else. Results come back as they finish and the
caller records each one (its checkpoint), so an interrupted run resumes.

    with cluster(workers=2) as fan:           # a LocalCluster of two processes
        OptimalSolver(size).total(fanout=fan)
    with cluster("tcp://10.0.0.5:8786") as fan:   # a running cluster
        Improver(size, fanout=fan).run()

The answers are the single process's: every job is a pure function of the
position it names, and the caller combines them in the same order.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any


class Fanout:
    """A Dask client, used as a map that reports each result as it comes."""

    def __init__(self, client: Any):
        self.client = client

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info()["workers"])

    def map(
        self, function: Callable[[Any], Any], jobs: list[Any], done: Callable[[int, Any], None] | None = None
    ) -> list[Any]:
        """``function`` of every job, run on the cluster; ``done(index,
        result)`` is called here as each finishes, in the order they finish."""
        dask = untyped_distributed()
        if not jobs:
            return []
        futures = self.client.map(function, jobs, pure=False)
        where = {future.key: index for index, future in enumerate(futures)}
        results: list[Any] = [None] * len(jobs)
        for future in dask.as_completed(futures):
            index = where[future.key]
            results[index] = future.result()
            if done is not None:
                done(index, results[index])
        return results


def untyped_distributed() -> Any:
    """Dask distributed (imported when a cluster is used: it is slow to load)."""
    import distributed

    return distributed


@contextlib.contextmanager
def cluster(scheduler: str | None = None, workers: int | None = None) -> Iterator[Fanout]:
    """A client of the cluster at ``scheduler`` (``tcp://host:8786``), or of
    a LocalCluster of ``workers`` processes (every core by default), closed
    afterwards."""
    dask = untyped_distributed()
    local = None
    if scheduler:
        client = dask.Client(scheduler)
    else:
        local = dask.LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
        )
        client = dask.Client(local)
    try:
        yield Fanout(client)
    finally:
        client.close()
        if local is not None:
            local.close()
