"""Independent subtree searches fanned out on a Dask cluster, for the long
offline computations (``mastermind improve`` and ``mastermind optimal``).

A search hands the cluster jobs that share nothing: the exact total of one
class a guess leaves, whether one guess beats the best total known, the base
policy's total of one position. Each worker process keeps one solver for the
board between jobs (its feedback matrix and transposition table), so a job
costs its search and little else. Results come back as they finish and the
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
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .codes import Array, GameSize

if TYPE_CHECKING:
    from .improve import Improver
    from .optimal import OptimalSolver


@dataclass(frozen=True)
class SolverSpec:
    """What a worker needs to build the same solver as the caller's."""

    size: GameSize
    max_guesses: int | None = None
    candidates_only: bool = False
    offline: bool = False


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


# --- jobs, run on the workers ------------------------------------------------------------------------


@lru_cache(maxsize=2)
def worker_solver(spec: SolverSpec) -> OptimalSolver:
    """This worker process's solver for ``spec`` (kept between jobs)."""
    from .optimal import OptimalSolver

    return OptimalSolver(spec.size, spec.max_guesses, spec.candidates_only, offline=spec.offline)


def solve_class(job: tuple[Any, ...]) -> tuple[int, Array, Array]:
    """The exact total of one position, the solved rows of the worker's
    table when asked for (to build the tree from), and the work counted."""
    spec, cands, played, depth_left, group, rows = job
    from .optimal import INF
    from .search_kernels import KEY

    solver = worker_solver(spec)
    before = solver.stats.copy()
    value = solver._search(cands, played, depth_left, INF, group, solver.table_t, solver.stats)
    table = solver.table_t
    kept = table[table[:, KEY] != 0] if rows else table[:0]
    return value, kept, solver.stats - before


def attempt_guess(job: tuple[Any, ...]) -> tuple[int, Array]:
    """Whether one guess beats ``against`` (its exact total if so, INF if
    not), and the work counted."""
    spec, cands, played, depth_left, guess, lower, against, group = job
    from .optimal import attempt

    solver = worker_solver(spec)
    before = solver.stats.copy()
    value = attempt(solver, cands, played, depth_left, guess, lower, against, group, solver.table_t, solver.stats)
    return value, solver.stats - before


@lru_cache(maxsize=2)
def worker_improver(size: GameSize, small: int, width: int) -> Improver:
    from .improve import Improver

    improver = Improver(size, small=small, width=width)
    improver.memory.every = float("inf")  # what a job learns goes back to the caller, never to a file
    return improver


def base_total(job: tuple[Any, ...]) -> tuple[int, list[tuple[str, int]]]:
    """The base policy's total of one position, and every base total the
    worker learned on the way (so the caller need not learn them again)."""
    size, small, width, cands, played = job
    improver = worker_improver(size, small, width)
    improver.memory.pending.clear()
    total = improver.base(np.asarray(cands, dtype=np.int64), played)
    facts = []
    for line in improver.memory.pending:
        kind, key, value = line.split()
        if kind == "b":
            facts.append((key, int(value)))
    improver.memory.pending.clear()
    return total, facts


def improved_total(job: tuple[Any, ...]) -> tuple[int, list[str]]:
    """The improved policy's total of one position, and every fact learned
    on the way (checkpoint lines: base totals and finished positions)."""
    size, small, width, cands, played = job
    improver = worker_improver(size, small, width)
    improver.memory.pending.clear()
    # Every finished position of the subtree must come back (the caller builds
    # the tree from them), even those an earlier job here already finished.
    improver.memory.done.clear()
    total = improver.improved(np.asarray(cands, dtype=np.int64), played)
    facts = list(improver.memory.pending)
    improver.memory.pending.clear()
    return int(total), facts
