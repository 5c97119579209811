"""Exact optimal play: the decision tree with the fewest guesses in total,
optionally never needing more than K guesses.

A depth-first branch and bound over candidate sets, compiled with numba:

- the guess pool is reduced by symmetry: colours never played are
  interchangeable; before the first guess one code per pattern remains; and
  in a whole-game search, of the guesses that a permutation of positions and
  colours fixing every guess played so far makes alike, only the smallest is
  scored (after 1234, for instance, 24 permutations fix the history). Dead
  colours (ones no candidate contains) never match, so guesses that differ only
  in them split the candidates alike. None of this changes the tree: the guess
  kept is the one the full search would choose;
- every guess gets a lower bound, ``n`` plus a bound per class of its
  partition, and guesses are tried best bound first; a guess is dropped as
  soon as its classes solved so far plus the bounds of the rest reach the best
  total found (the cut-off), and classes are solved smallest first;
- closed forms at the leaves: one code costs 1, two cost 3; for sets no larger
  than the number of replies, a candidate that splits the rest into single
  codes costs ``2n - 1``, any other guess that does, or a candidate that leaves
  one pair, ``2n``, and a guess that reaches ``2n + 1`` with classes of one or
  two codes is taken at once;
- candidate sets already solved are remembered (a transposition table keyed by
  a 64-bit Zobrist hash of the set), with exact totals and lower bounds.

A whole-game search shares its root's work between two threads (see
``OptimalSolver._run_split``). Not used (yet): lower bounds stronger than the
branching count.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from cachetools import LRUCache

from .codes import JSON, Array, GameSize, MastermindError, SizeError, code_digits, guess_indices, secret_indices
from .strategies import Strategy, StrategyError, TooSlow, pool_of, register
from .tables import feedback_table

if TYPE_CHECKING:
    from .fanout import Fanout

# The search's transposition table (``search_kernels.new_table``).
Table = Any
T = TypeVar("T")

INF = 1 << 40  # no total: the kernels' own INF (search_kernels.py), the same value
UNBOUNDED = 99  # guesses left when no limit is set
STATS = ("nodes", "guesses scored", "guesses expanded", "table hits", "closed-form leaves")
# A search given no bound on the positions it visits.
NO_WORK_LIMIT = 2**62
# The search keeps the whole feedback matrix (one byte per pair of codes) and
# scores every guess the rules allow. It takes boards of up to this many codes
# (5 x 6: a matrix of 60 MB, which the feedback table keeps anyway),
MAX_OPTIMAL_CODES = 7776
# and boards whose guesses use different colours (Bulls and Cows: 5,040
# guesses) of up to this many guesses and this many codes (4 pegs, 10 colours).
MAX_OPTIMAL_GUESSES = 5040
MAX_MATRIX_CODES = 10_000
# Positions `mastermind improve --exact` lets the search visit for each
# position of the tree it polishes, by default.
EXACT_NODES = 2_000_000


def searchable(size: GameSize) -> bool:
    """Whether the exact search takes this size."""
    if size.distinct_guesses:
        return size.n_codes <= MAX_MATRIX_CODES and len(guess_indices(size)) <= MAX_OPTIMAL_GUESSES
    return size.n_codes <= MAX_OPTIMAL_CODES


def search_refusal(size: GameSize) -> SizeError:
    """Why the exact search does not take ``size``."""
    return SizeError(
        "too-large-to-search",
        size=size.params(),
        codes=size.n_codes,
        most=MAX_OPTIMAL_CODES,
        most_distinct=MAX_OPTIMAL_GUESSES,
    )


# Without a shipped tree, the optimal presets compute positions on demand up to
# this many codes (the classic game from scratch takes a few seconds).
ON_DEMAND_CODES = 1296
DATA = Path(__file__).with_name("data")
# A shared solver's table is emptied (its memory given back) once it holds
# more than this many positions; its size (``table_rows``) bounds it anyway.
MAX_TABLE_ENTRIES = 1_000_000


# Whole-game searches of at least this many codes share their work between
# threads (below it, starting them costs more than they save).
PARALLEL_CODES = 500


def search_workers() -> int:
    """Threads for a whole-game search: every core, or ``NUMBA_NUM_THREADS``."""
    import os

    return max(1, int(os.environ.get("NUMBA_NUM_THREADS") or os.cpu_count() or 1))


def table_rows(size: GameSize) -> int:
    """Rows of a solver's transposition table (16 bytes each; the system
    gives the memory as rows are first written): more for larger boards,
    whose searches meet more positions."""
    if size.n_codes <= 1296:
        return 1 << 18
    if size.n_codes <= 3125:  # up to 5 x 5
        return 1 << 20
    # 4 x 8 on 2^20 rows forgot so much that building its tree after the
    # search (which asks the table for each position's guess) took 510 s
    # beside the search's 42 s; on 2^22 rows, nothing.
    return 1 << 22


def _table(size: GameSize, rows: int | None = None) -> Table:
    from .search_kernels import new_table

    return new_table(rows or table_rows(size))


# Rows of the table a worker builds a subtree with (``subtree``): 2^25 rows,
# 512 MiB, keep what the search of a 5 x 6 class stored, so that reading the
# tree off it rarely searches a position again.
TREE_ROWS = 1 << 25


class OptimalSolver:
    """Exact optimal totals and choices for one game size.

    ``max_guesses`` bounds the depth (optimal worst case); ``candidates_only``
    restricts guesses to codes still possible. ``offline`` takes boards too
    large to search whole, for a computation that solves positions within
    them and can afford the whole matrix (1 GiB at 5 × 8; see ``improve``).
    ``rows``: the transposition table's rows (``table_rows`` by default).
    """

    def __init__(
        self,
        size: GameSize,
        max_guesses: int | None = None,
        candidates_only: bool = False,
        *,
        offline: bool = False,
        rows: int | None = None,
    ):
        if not (offline or searchable(size)):
            raise search_refusal(size)
        self.size = size
        self.max_guesses = max_guesses
        self.candidates_only = candidates_only
        self.offline = offline
        self.rows = rows
        self.table = feedback_table(size, size.n_codes**2 if offline else MAX_MATRIX_CODES**2)
        self.matrix: Array = self.matrix_of(size, offline)
        pegs, colors = size.pegs, size.colors
        self.replies = (pegs + 1) * (pegs + 2) // 2 - 1
        self.slots = (pegs + 1) ** 2
        self.solved = size.solved
        masks = 1 << colors
        pools = [pool_of(size, mask) for mask in range(masks)]
        self.pool_lens = np.array([len(p) for p in pools], dtype=np.int64)
        self.pools = np.zeros((masks, int(self.pool_lens.max())), dtype=np.int64)
        for mask, pool in enumerate(pools):
            self.pools[mask, : len(pool)] = pool
        self.digits = np.ascontiguousarray(code_digits(pegs, colors), dtype=np.int64)
        self.colmask = np.bitwise_or.reduce(np.left_shift(1, self.digits), axis=1)
        self.zobrist = (
            np.random.default_rng(20261122).integers(0, 2**63, size=size.n_codes, dtype=np.int64).astype(np.uint64)
        )
        self.lbtab, self.cap = bounds_tables(size.n_codes, self.replies - 1)
        self.table_t = _table(size, rows)
        self.stats = np.zeros(len(STATS), dtype=np.int64)
        # What bound_memory last counted in the table, and the positions visited then.
        self.counted, self.counted_at = 0, 0
        self.thread_stats: list[np.ndarray] = []
        # Symmetries of the whole game (every position permutation; colours
        # are free until played), and the trivial group for a lone position.
        perms = np.array(list(itertools.permutations(range(pegs))), dtype=np.int64)
        self.all_symmetries = np.hstack([perms, np.full((len(perms), colors), -1, np.int64)])
        self.no_symmetry = self.all_symmetries[:1]
        self.secrets = secret_indices(size).astype(np.int64)
        # The first guess of the tree a whole-game search found (``_run_split``).
        self.root_guess: int | None = None

    @staticmethod
    def matrix_of(size: GameSize, offline: bool = False) -> Array:
        """The whole feedback matrix of ``size``, which the exact search reads."""
        limit = size.n_codes**2 if offline else MAX_MATRIX_CODES**2 if searchable(size) else 0
        matrix = feedback_table(size, limit).matrix
        if matrix is None:  # kept for every size this search takes
            raise search_refusal(size)
        return matrix

    def bound_memory(self, entries: int = MAX_TABLE_ENTRIES) -> None:
        """Forget the positions solved so far once the table holds more than
        ``entries`` of them (the table never grows: this only frees the
        memory of a long-lived process that has touched much of it). The
        table gains at most one entry a position visited, so it is counted
        again only once it may have passed ``entries``."""
        from .search_kernels import table_size

        visited = int(self.stats[0])
        if self.counted + visited - self.counted_at <= entries:
            return
        self.counted, self.counted_at = table_size(self.table_t), visited
        if self.counted > entries:
            self.forget()
            self.counted = 0

    def forget(self) -> None:
        """Start again from an empty table."""
        self.table_t = _table(self.size, self.rows)

    def depth_left(self, depth: int) -> int:
        """Guesses still allowed at a node whose guess is number ``depth``
        (without a limit, ``UNBOUNDED`` less the guesses made, as the search
        counts them, so that a position is found under the key it was stored with)."""
        limit = UNBOUNDED if self.max_guesses is None else self.max_guesses
        return limit - depth + 1

    def _search(
        self,
        cands: Array,
        played: int,
        depth_left: int,
        bound: int,
        group: Array,
        table: Table,
        stats: Array,
        work_limit: int = NO_WORK_LIMIT,
    ) -> int:
        """The compiled search from one position, with the given tables and counters."""
        from .search_kernels import solve

        return int(
            solve(
                self.matrix,
                np.ascontiguousarray(cands, dtype=np.int64),
                played,
                depth_left,
                bound,
                self.pools,
                self.pool_lens,
                self.colmask,
                self.zobrist,
                self.lbtab,
                self.cap,
                self.slots,
                self.replies,
                self.solved,
                self.candidates_only,
                self.size.distinct_guesses,
                (1 << self.size.colors) - 1,
                table,
                stats,
                self.digits,
                group,
                work_limit,
            )
        )

    def _run(
        self,
        cands: Array,
        played: int,
        depth_left: int,
        bound: int = INF,
        group: Array | None = None,
        nodes: int | None = None,
    ) -> int:
        """The search from one position; ``group``: the symmetries that fix its
        history (none known by default). With ``nodes``, the search visits at
        most that many positions: past them it forgets what it stored (the
        table would hold bounds it never proved) and raises :class:`TooSlow`."""
        limit = NO_WORK_LIMIT if nodes is None else int(self.stats[0]) + nodes
        total = self._search(
            cands,
            played,
            depth_left,
            bound,
            self.no_symmetry if group is None else group,
            self.table_t,
            self.stats,
            limit,
        )
        if self.stats[0] > limit:
            self.table_t = _table(self.size, self.rows)
            raise TooSlow("exact-search-too-long", codes=int(cands.shape[0]), most=nodes)
        return total

    def total(
        self,
        cands: Array | None = None,
        played: int = 0,
        depth: int = 1,
        progress: Callable[[Array, float], None] | None = None,
        fanout: Fanout | None = None,
        checkpoint: Path | None = None,
    ) -> int | None:
        """The optimal total for ``cands`` (every secret by default), or None
        when no tree stays within the guess limit. ``progress(stats, seconds)``
        is called from time to time while the search runs. The whole game is
        searched on every core (``workers``), or on a Dask cluster's workers
        (``fanout``, recording each finished subtree in ``checkpoint``); a
        position within it, on one."""
        whole = cands is None
        cands = self.secrets if cands is None else cands
        depth_left = self.depth_left(depth)
        workers = search_workers()
        if whole and fanout is not None:

            def run() -> int:
                return self._run_split(cands, played, depth_left, workers, fanout, RootCheckpoint(checkpoint, self))
        elif whole and workers > 1 and cands.shape[0] >= PARALLEL_CODES:

            def run() -> int:
                return self._run_split(cands, played, depth_left, workers)
        else:

            def run() -> int:
                return self._run(cands, played, depth_left, group=self.all_symmetries if whole else None)

        if progress is None:
            value = run()
        else:
            started = time.perf_counter()
            value = polled(run, lambda: progress(self.all_stats(), time.perf_counter() - started))
        return None if value >= INF else value

    def all_stats(self) -> np.ndarray:
        """The search's counters, summed over the threads working on it."""
        return self.stats + sum(self.thread_stats) if self.thread_stats else self.stats

    def spec(self) -> SolverSpec:
        return SolverSpec(self.size, self.max_guesses, self.candidates_only, self.offline, self.rows)

    def ordered_guesses(self, cands: Array, played: int, depth_left: int) -> tuple[Array, Array, list[int]]:
        """The guesses worth trying at a position (one of each set alike in
        colours no code has), each one's lower bound from its class sizes, and
        their order of trial (by bound; ties in the order of the pool)."""
        from .search_kernels import bounds_by_classes, pool_without_dead_variants

        pool = pool_without_dead_variants(
            self.pools[played, : self.pool_lens[played]],
            cands,
            self.colmask,
            played,
            (1 << self.size.colors) - 1,
            self.digits,
            self.size.distinct_guesses,
        )
        bounds = np.empty(pool.shape[0], np.int64)
        bounds_by_classes(
            self.matrix,
            cands,
            pool,
            bounds,
            np.zeros(self.slots, np.int64),
            self.lbtab,
            self.cap[depth_left - 1],
            self.slots,
            self.solved,
        )
        return pool, bounds, [int(i) for i in np.argsort(bounds, kind="mergesort")]

    def _run_split(
        self,
        cands: Array,
        played: int,
        depth_left: int,
        workers: int,
        fanout: Fanout | None = None,
        memory: RootCheckpoint | None = None,
    ) -> int:
        """The root of the search with its work shared by ``workers`` threads,
        each with tables of its own (numba's dictionaries are not shared), all
        merged into the solver's at the end.

        The root's guesses are ordered as the one-thread search orders them.
        The first has nothing to beat, so each class it leaves is solved
        exactly; the classes are disjoint (no position is shared between
        them), so they are solved at once. Every other guess must then beat
        that total: they are tried at once, each on one thread against the best
        total known when it starts, smallest classes first. A guess replaces the
        best only when strictly better, in the one-thread order, so the totals
        and the choices are the one-thread search's.

        With ``fanout`` the same two rounds run as jobs on a Dask cluster,
        each finished one recorded in ``memory`` (and skipped when a resumed
        run finds it there); the tree is then built on the cluster too
        (``tree_guesses``)."""
        from concurrent.futures import ThreadPoolExecutor

        from .search_kernels import child_group, merge_tables

        F, n = self.matrix, cands.shape[0]
        if depth_left <= 1 or n > self.cap[depth_left]:
            return INF
        pool, bounds, order = self.ordered_guesses(cands, played, depth_left)
        if bounds[order[0]] >= INF:  # no guess can stay within the limit
            return INF
        self.thread_stats = []

        def threads_tables(seed: Table | None) -> tuple[Callable[[], tuple[Table, Array]], list[Table]]:
            """Each thread's own table (new, or a copy of ``seed``), made on first use."""
            local, made = threading.local(), []

            def tables() -> tuple[Table, Array]:
                if not hasattr(local, "table"):
                    local.table = seed.copy() if seed is not None else _table(self.size, self.rows)
                    local.stats = np.zeros(len(STATS), dtype=np.int64)
                    made.append(local.table)
                    self.thread_stats.append(local.stats)
                return local.table, local.stats

            return tables, made

        def group_of(guess: int) -> Array:
            return child_group(self.all_symmetries, self.digits, guess, played)

        def after(guess: int) -> int:
            return played | int(self.colmask[guess])

        def solved_classes(guess: int) -> list[int]:
            """The exact total of every class ``guess`` leaves, largest first
            (with a fanout, classes the checkpoint knows are not solved again)."""
            classes = sorted(classes_of(F, cands, guess, self.solved), key=len, reverse=True)
            if fanout is None:
                tables, made = threads_tables(None)
                with ThreadPoolExecutor(workers, thread_name_prefix="optimal") as threads:
                    values = list(
                        threads.map(
                            lambda sub: self._search(
                                sub, after(guess), depth_left - 1, INF, group_of(guess), *tables()
                            ),
                            classes,
                        )
                    )
                for made_table in made:
                    merge_tables(self.table_t, made_table)
                return values
            assert memory is not None
            known = [memory.classes.get(position_digest(sub)) for sub in classes]
            asked = [i for i, value in enumerate(known) if value is None]
            jobs = [(self.spec(), classes[i], after(guess), depth_left - 1, group_of(guess)) for i in asked]

            def done(index: int, result: tuple[int, Array]) -> None:
                value, stats = result
                known[asked[index]] = value
                memory.learn_class(position_digest(classes[asked[index]]), value)
                self.stats += stats

            fanout.map(solve_class, jobs, done)
            return [int(v) for v in known if v is not None]

        # The first guess: every class solved exactly, at once.
        first = int(pool[order[0]])
        classes = sorted(classes_of(F, cands, first, self.solved), key=len, reverse=True)
        values = solved_classes(first)
        best = int(bounds[order[0]]) + sum(v - int(self.lbtab[len(sub)]) for sub, v in zip(classes, values))
        best_guess = first

        # Every other guess, at once, each against the best known.
        rest = [i for i in order[1:] if int(bounds[i]) < best]
        results: list[int | None]
        if fanout is None:
            tables, made = threads_tables(self.table_t)

            def attempt_one(i: int) -> int:
                guess = int(pool[i])
                return attempt(
                    self, cands, after(guess), depth_left, guess, int(bounds[i]), best, group_of(guess), *tables()
                )

            with ThreadPoolExecutor(workers, thread_name_prefix="optimal") as threads:
                results = list(threads.map(attempt_one, rest))
            for made_table in made:
                merge_tables(self.table_t, made_table)
            self.stats += sum(self.thread_stats)
            self.thread_stats = []
        else:
            assert memory is not None
            results = [memory.attempts.get((int(pool[i]), best)) for i in rest]
            asked = [j for j, value in enumerate(results) if value is None]
            jobs = []
            for j in asked:
                guess = int(pool[rest[j]])
                jobs.append(
                    (self.spec(), cands, after(guess), depth_left, guess, int(bounds[rest[j]]), best, group_of(guess))
                )

            def tried(index: int, result: tuple[int, Array]) -> None:
                value, stats = result
                j = asked[index]
                results[j] = value
                memory.learn_attempt(int(pool[rest[j]]), best, value)
                self.stats += stats

            fanout.map(attempt_guess, jobs, tried)
        # In the one-thread search's order, a guess replaces the best only when
        # strictly better (its total is exact whenever it is below ``best``).
        for i, value in zip(rest, results):
            if value is not None and value < best:
                best, best_guess = value, int(pool[i])
        if memory is not None:
            memory.save()
        self.root_guess = best_guess if best < INF else None
        if best < INF:
            from .search_kernels import position_key, store_exact

            key = int(position_key(np.ascontiguousarray(cands, dtype=np.int64), self.zobrist, depth_left))
            store_exact(self.table_t, key, best, best_guess)
        return best

    def choose(self, cands: np.ndarray, played: int, depth: int, nodes: int | None = None) -> int:
        """An optimal guess for ``cands`` at guess number ``depth``; with
        ``nodes``, :class:`TooSlow` once the search has visited that many
        positions."""
        if cands.shape[0] <= 2:
            return int(cands[0])
        depth_left = self.depth_left(depth)
        if self._run(cands, played, depth_left, nodes=nodes) >= INF:
            raise SizeError("no-strategy-within", most=self.max_guesses)
        from .search_kernels import position_key

        key = int(position_key(np.ascontiguousarray(cands, dtype=np.int64), self.zobrist, depth_left))
        from .search_kernels import table_get

        return int(table_get(self.table_t, key))

    def tree_guesses(
        self,
        fanout: Fanout,
        checkpoint: Path | None = None,
        rows: int = TREE_ROWS,
        report: Callable[[int, int], None] | None = None,
    ) -> list[int]:
        """The optimal tree of the whole game in the compact form, after a
        fanned-out ``total``: each class of the chosen first guess is solved
        again on a worker, whose table (of ``rows`` rows) then gives the
        class's subtree, kept in ``checkpoint`` as it comes. ``report(done,
        classes)`` follows the classes; a class's total must be the one the
        search found."""
        from .search_kernels import child_group

        first = self.root_guess
        if first is None:
            raise MastermindError("The tree is built after a whole-game search that found one.")
        memory = RootCheckpoint(checkpoint, self)
        classes = classes_of(self.matrix, self.secrets, first, self.solved)
        keys = [position_digest(sub) for sub in classes]
        asked = sorted((i for i, key in enumerate(keys) if key not in memory.subtrees), key=lambda i: -len(classes[i]))
        spec = SolverSpec(self.size, self.max_guesses, self.candidates_only, self.offline, rows)
        group = child_group(self.all_symmetries, self.digits, first, 0)
        played = int(self.colmask[first])
        jobs = [(spec, classes[i], played, 2, group) for i in asked]
        finished = len(classes) - len(asked)

        def done(index: int, result: tuple[int, list[int], Array]) -> None:
            nonlocal finished
            value, guesses, stats = result
            memory.learn_subtree(keys[asked[index]], value, guesses)
            memory.save()
            self.stats += stats
            finished += 1
            if report is not None:
                report(finished, len(classes))

        if report is not None:
            report(finished, len(classes))
        fanout.map(subtree, jobs, done)
        out = [first]
        for key in keys:
            value, guesses = memory.subtrees[key]
            if key in memory.classes and memory.classes[key] != value:
                raise MastermindError(f"A class's subtree totals {value}, its search {memory.classes[key]}.")
            out += guesses
        return out


def polled(work: Callable[[], T], poll: Callable[[], None], every: float = 0.25) -> T:
    """``work()`` on a thread of its own (the compiled search lets go of the
    GIL), with ``poll()`` called here every ``every`` seconds while it runs
    and once when it ends; its result, or its exception raised here."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="search")
    worker.start()
    while worker.is_alive():
        worker.join(every)
        if worker.is_alive():
            poll()
    poll()
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


# What a background job's search off a shipped tree tells of its progress:
# the share of its budget of positions spent so far (see ``searching``).
_search_progress: ContextVar[Callable[[float], None] | None] = ContextVar("search_progress", default=None)


@contextlib.contextmanager
def searching(report: Callable[[float], None]) -> Iterator[None]:
    """Within this block, a search off a large board's shipped tree calls
    ``report`` with the share of its budget spent (a hint job's progress)."""
    token = _search_progress.set(report)
    try:
        yield
    finally:
        _search_progress.reset(token)


def classes_of(matrix: Array, cands: Array, guess: int, solved: int) -> list[Array]:
    """The codes of each reply to ``guess`` but the winning one, by ascending reply."""
    row = matrix[guess, cands]
    return [cands[row == r] for r in np.unique(row) if r != solved]


def attempt(
    solver: OptimalSolver,
    cands: Array,
    played: int,
    depth_left: int,
    guess: int,
    lower: int,
    against: int,
    group: Array,
    table: Table,
    stats: Array,
) -> int:
    """The exact total of playing ``guess`` at a position (``played``: the
    colours played after it), if below ``against``; INF otherwise. Its
    classes are solved smallest first, each within what is left of
    ``against`` over ``lower``, the guess's bound from class sizes."""
    running = lower
    for sub in sorted(classes_of(solver.matrix, cands, guess, solver.solved), key=len):
        k = int(solver.lbtab[len(sub)])
        running += solver._search(sub, played, depth_left - 1, against - running + k, group, table, stats) - k
        if running >= against:
            return INF
    return running


class Checkpoint:
    """The facts a long search has learned, one line each, appended to a
    text file as they come and read back when the search starts again (a
    file made with other settings is refused). Subclasses read their lines."""

    def __init__(self, path: Path | None, settings: str, every: float = 10.0):
        self.path, self.every = path, every
        header = f"# {settings}"
        self.pending: list[str] = [header]
        self.saved = time.monotonic()
        if path is not None and path.exists():
            lines = path.read_text().splitlines()
            if lines and lines[0] != header:
                raise MastermindError(
                    f"The checkpoint {path} was made with other settings ({lines[0][2:]}); "
                    "use another file, or the same settings."
                )
            self.pending = []
            for line in lines[1:]:
                if line.strip():
                    self.read(*line.split())

    def read(self, kind: str, *values: str) -> None:
        """Take in one line read back from the file."""

    def note(self, line: str, save: bool = True) -> None:
        """Keep a line; with ``save``, write what is kept if a while has passed."""
        self.pending.append(line)
        if save and time.monotonic() - self.saved >= self.every:
            self.save()

    def save(self) -> None:
        """Append what was learned since the last save."""
        if self.path is not None and self.pending:
            with self.path.open("a") as fh:
                fh.write("\n".join(self.pending) + "\n")
        self.pending = []
        self.saved = time.monotonic()


class RootCheckpoint(Checkpoint):
    """What a fanned-out search of the whole game has learned: ``a`` the
    exact total of a class of the first round, ``t`` a guess tried against
    a best total, ``g`` the optimal subtree of a class of the chosen first
    guess (its total and its guesses in the compact form, ``-`` for none)."""

    def __init__(self, path: Path | None, solver: OptimalSolver, every: float = 10.0):
        self.classes: dict[str, int] = {}
        self.attempts: dict[tuple[int, int], int] = {}
        self.subtrees: dict[str, tuple[int, list[int]]] = {}
        size = solver.size
        settings = (
            f"optimal {size.pegs}x{size.colors} distinct={size.distinct} distinct_guesses={size.distinct_guesses} "
            f"max={solver.max_guesses} candidates_only={solver.candidates_only}"
        )
        super().__init__(path, settings, every)

    def read(self, kind: str, *values: str) -> None:
        if kind == "a":
            self.classes[values[0]] = int(values[1])
        elif kind == "t":
            self.attempts[(int(values[0]), int(values[1]))] = int(values[2])
        elif kind == "g":
            guesses = [] if values[2] == "-" else [int(g) for g in values[2].split(",")]
            self.subtrees[values[0]] = (int(values[1]), guesses)

    def learn_class(self, key: str, value: int) -> None:
        if self.classes.get(key) != value:
            self.classes[key] = value
            self.note(f"a {key} {value}")

    def learn_attempt(self, guess: int, against: int, value: int) -> None:
        self.attempts[(guess, against)] = value
        self.note(f"t {guess} {against} {value}")

    def learn_subtree(self, key: str, value: int, guesses: list[int]) -> None:
        self.subtrees[key] = (value, guesses)
        self.note(f"g {key} {value} {','.join(map(str, guesses)) or '-'}")


def bounds_tables(n_codes: int, branching: int) -> tuple[Array, Array]:
    """Lower bound of the total for ``m`` codes (``lbtab[m]``) and how many
    codes ``d`` guesses can ever separate (``cap[d]``).

    With a candidate guess one code is found at depth 1, and each of at most
    ``branching`` replies can find one more at depth 2, and so on: at most
    ``branching ** (d - 1)`` codes need exactly ``d`` guesses.
    """
    lbtab = np.zeros(n_codes + 1, dtype=np.int64)
    for m in range(1, n_codes + 1):
        left, depth, width, total = m, 1, 1, 0
        while left > 0:
            take = min(left, width)
            total += take * depth
            left -= take
            depth += 1
            width = min(width * branching, INF)
        lbtab[m] = total
    cap = np.zeros(UNBOUNDED + 1, dtype=np.int64)
    width = 1
    for d in range(1, UNBOUNDED + 1):
        cap[d] = min(cap[d - 1] + width, INF)
        width = min(width * branching, INF)
    return lbtab, cap


# --- shipped trees ---------------------------------------------------------------------------
#
# A tree is stored as the guesses of its nodes with three or more codes, in
# preorder (children by ascending reply); nodes of one or two codes guess their
# first code. Replaying the partitions recovers every node.


def position_digest(cands: Array) -> str:
    """A short name for a set of codes, for a checkpoint file."""
    import hashlib

    return hashlib.blake2b(np.ascontiguousarray(cands, dtype=np.int64).tobytes(), digest_size=12).hexdigest()


def set_key(cands: np.ndarray) -> bytes:
    """A dictionary key for a candidate set."""
    return np.ascontiguousarray(cands, dtype=np.int32).tobytes()


def _classes(replies: Array, cands: Array, solved: int) -> list[Array]:
    """The codes of each reply but the solved one, by ascending reply
    (``replies``: each code's reply to the guess)."""
    order = np.argsort(replies, kind="stable")
    replies, members = replies[order], cands[order]
    values, starts = np.unique(replies, return_index=True)
    stops = list(starts[1:]) + [members.shape[0]]
    return [members[a:b] for v, a, b in zip(values, starts, stops) if v != solved]


def encode_tree(solver: OptimalSolver) -> list[int]:
    """The optimal tree's guesses in the compact preorder form."""
    return encode_subtree(solver, solver.secrets, 0, 1)


def encode_subtree(solver: OptimalSolver, cands: Array, played: int, depth: int) -> list[int]:
    """The compact preorder guesses of an optimal subtree from ``cands``
    (``played``: the colours played so far; ``depth``: the guess's number),
    each node's guess the one the solver's table holds or a search finds."""
    matrix, out = solver.matrix, []

    def visit(cands: Array, played: int, depth: int) -> None:
        if cands.shape[0] <= 2:
            return
        guess = solver.choose(cands, played, depth)
        out.append(guess)
        for members in _classes(matrix[guess, cands], cands, solver.solved):
            visit(members, played | int(solver.colmask[guess]), depth + 1)

    visit(cands, played, depth)
    return out


def tree_nodes(size: GameSize, guesses: list[int]) -> Iterator[tuple[Array, int | None, int]]:
    """Every node of a stored tree, in preorder: its codes, its guess (None
    for a node of one or two codes, which guesses its first) and that
    guess's number in the game."""
    table = feedback_table(size)
    stream = iter(guesses)

    def visit(cands: Array, depth: int) -> Iterator[tuple[Array, int | None, int]]:
        if cands.shape[0] <= 2:
            yield cands, None, depth
            return
        guess = next(stream, None)
        if guess is None:
            raise ValueError("The stored tree has fewer guesses than its nodes.")
        yield cands, guess, depth
        for members in _classes(table.row(guess, cands), cands, size.solved):
            yield from visit(members, depth + 1)

    yield from visit(secret_indices(size).astype(np.int64), 1)
    if next(stream, None) is not None:
        raise ValueError("The stored tree has more guesses than its nodes.")


def decode_tree(size: GameSize, guesses: list[int]) -> dict[bytes, int]:
    """Candidate set → guess for every node of a stored tree."""
    return {set_key(cands): guess for cands, guess, _ in tree_nodes(size, guesses) if guess is not None}


def tree_depths(size: GameSize, guesses: list[int]) -> dict[int, int]:
    """Secret → the guesses a stored tree takes to find it."""
    depths: dict[int, int] = {}
    for cands, guess, depth in tree_nodes(size, guesses):
        if guess is None:
            depths.update((int(code), depth + extra) for extra, code in enumerate(cands))
        elif (cands == guess).any():
            depths[guess] = depth
    return depths


def tree_chooser(choices: dict[bytes, int]) -> Callable[[GameSize, Array, int, int], int]:
    """A chooser that plays a decoded tree (nodes of one or two codes guess their first code)."""

    def choose(_size: GameSize, cands: Array, _played: int, _depth: int) -> int:
        return int(cands[0]) if cands.shape[0] <= 2 else int(choices[set_key(cands)])

    return choose


def data_name(size: GameSize, max_guesses: int | None = None) -> str:
    """File name of a shipped tree, such as ``optimal-4x6-max5.json``."""
    return (
        f"optimal-{size.pegs}x{size.colors}"
        + ("-distinct-guesses" if size.distinct_guesses else "-distinct" if size.distinct else "")
        + (f"-max{max_guesses}" if max_guesses else "")
        + ".json"
    )


def regenerate_command(size: GameSize, max_guesses: int | None, checkpoint: str | None = None) -> str:
    return (
        f"mastermind optimal --pegs {size.pegs} --colors {size.colors}"
        + (" --distinct-guesses" if size.distinct_guesses else " --distinct" if size.distinct else "")
        + (f" --max-guesses {max_guesses}" if max_guesses else "")
        + (f" --checkpoint {checkpoint}" if checkpoint else "")
        + f" --data webapp/engine/data/{data_name(size, max_guesses)}"
    )


def tree_document(
    solver: OptimalSolver, total: int, guesses: list[int] | None = None, checkpoint: str | None = None
) -> JSON:
    """What a shipped data file holds (``guesses``: the tree's, when built
    elsewhere, ``encode_tree`` otherwise; ``checkpoint``: the file a
    fanned-out search kept its work in, named in the command that remakes it)."""
    size = solver.size
    return {
        "about": "Optimal Mastermind decision tree: the guesses of every node with three or "
        "more codes, in preorder, children by ascending reply (black, then white); "
        "codes are indices in ascending order (1111 is 0). Generated, do not edit. "
        "Regenerate with: " + regenerate_command(size, solver.max_guesses, checkpoint),
        "pegs": size.pegs,
        "colors": size.colors,
        "distinct": size.distinct,
        **({"distinct_guesses": True} if size.distinct_guesses else {}),
        "max_guesses": solver.max_guesses,
        "total": total,
        "guesses": encode_tree(solver) if guesses is None else guesses,
    }


@lru_cache(maxsize=32)
def shipped_document(size: GameSize, max_guesses: int | None) -> JSON | None:
    """The stored tree's document (``tree_document``) for this size and limit, or None."""
    path = DATA / data_name(size, max_guesses)
    if not path.exists():
        return None
    document: JSON = json.loads(path.read_text())
    return document


@lru_cache(maxsize=32)
def shipped_choices(size: GameSize, max_guesses: int | None) -> dict[bytes, int] | None:
    """The stored tree for this size and limit, or None."""
    document = shipped_document(size, max_guesses)
    return None if document is None else decode_tree(size, document["guesses"])


# Who first published the exact optimum of a board whose tree ships, by
# board; None: no publication gives it, this project computed it first. Any
# other board's optimum is computed here, with no publication to cite.
OPTIMUM_SOURCES: dict[GameSize, str | None] = {
    GameSize(4, 6): "Koyama and Lai 1993",
    GameSize(4, 7): "Ville 2013",
    GameSize(4, 8): "arfst23/Mastermind",
    GameSize(5, 5): "mmstrat",
    GameSize(5, 6): None,
    GameSize(4, 10, True, True): "mmstrat",
}


@dataclass(frozen=True)
class ShippedOptimum:
    """A board's exact optimum as its shipped tree plays every secret, and
    where the optimum was first published."""

    size: GameSize
    secrets: int
    total: int
    worst: int  # the most guesses a secret needs
    first_guess: int
    within_one_fewer: int | None  # the optimum within worst - 1 guesses, where that tree ships
    published_by: str | None  # who published the optimum first, if anyone did
    first_here: bool  # no publication gives it: this project computed it first


def replayed_depths(size: GameSize, document: JSON) -> dict[int, int]:
    """Secret → guesses, as a shipped document's tree plays it, checked
    against the total the document states."""
    depths = tree_depths(size, document["guesses"])
    if sum(depths.values()) != document["total"]:
        raise ValueError(f"The stored tree takes {sum(depths.values())} guesses, not {document['total']}.")
    return depths


@lru_cache(maxsize=1)
def shipped_optima() -> tuple[ShippedOptimum, ...]:
    """Every board whose exact tree ships, with its figures replayed from
    the tree; smallest boards first."""
    rows = []
    for path in DATA.glob("optimal-*.json"):
        document = json.loads(path.read_text())
        if document["max_guesses"] is not None:
            continue
        size = GameSize(
            document["pegs"], document["colors"], document["distinct"], document.get("distinct_guesses", False)
        )
        depths = replayed_depths(size, document)
        worst = max(depths.values())
        within = None
        fewer = DATA / data_name(size, worst - 1)
        if fewer.exists():
            limited = replayed_depths(size, json.loads(fewer.read_text()))
            if max(limited.values()) >= worst:
                raise ValueError(f"{fewer.name} needs {max(limited.values())} guesses.")
            within = sum(limited.values())
        guesses = document["guesses"]
        rows.append(
            ShippedOptimum(
                size,
                secrets=len(depths),
                total=sum(depths.values()),
                worst=worst,
                first_guess=int(guesses[0]) if guesses else min(depths),
                within_one_fewer=within,
                published_by=OPTIMUM_SOURCES.get(size),
                first_here=size in OPTIMUM_SOURCES and OPTIMUM_SOURCES[size] is None,
            )
        )
    return tuple(
        sorted(rows, key=lambda row: (row.size.pegs, row.size.colors, row.size.distinct, row.size.distinct_guesses))
    )


# Solvers kept per process, the least recently used let go first: each holds
# a table of ``table_rows`` rows (at most 32 MiB for the boards the app
# searches), so a process holds at most this many of them.
SOLVERS_KEPT = 8
_solvers: LRUCache[tuple[GameSize, int | None], OptimalSolver] = LRUCache(maxsize=SOLVERS_KEPT)
_solvers_lock = threading.Lock()


def shared_solver(size: GameSize, max_guesses: int | None) -> OptimalSolver:
    """One solver per size and limit for the process, so positions solved
    once are remembered."""
    with _solvers_lock:
        key = (size, max_guesses)
        solver = _solvers.get(key)
        if solver is None:
            solver = _solvers[key] = OptimalSolver(size, max_guesses)
        return solver


def available(size: GameSize, max_guesses: int | None = None) -> bool:
    """Whether the optimal preset answers for this size without a long wait."""
    return shipped(size, max_guesses) or on_demand(size, ON_DEMAND_CODES)


def on_demand(size: GameSize, codes: int) -> bool:
    """Whether a search of ``size`` scores at most ``codes`` guesses on a board
    of at most :data:`MAX_OPTIMAL_CODES` codes (with guesses of different
    colours, fewer guesses than codes: 840 of 2,401 at 4 × 7)."""
    return size.n_codes <= MAX_OPTIMAL_CODES and len(guess_indices(size)) <= codes


# Sizes whose exact search, from any position, takes a fraction of a second.
QUICK_SEARCH_CODES = 400
# On a shipped board too large to search on demand (5 x 6, 4 x 8, Bulls and
# Cows), a position off the tree of at most this many codes is searched
# (in a hint's background job) within this many positions visited, about a
# minute here; a larger position, or a longer search, is refused.
OFF_TREE_CODES = 1000
OFF_TREE_NODES = 4_000_000


def shipped(size: GameSize, max_guesses: int | None = None) -> bool:
    """Whether a tree for this size and limit ships with the engine."""
    return (DATA / data_name(size, max_guesses)).exists()


def answers_at_once(size: GameSize, max_guesses: int | None, cands: np.ndarray) -> bool:
    """Whether the optimal guess for ``cands`` is read off a shipped tree (or
    found by a search too small to notice), rather than searched for."""
    if cands.shape[0] <= 2 or on_demand(size, QUICK_SEARCH_CODES):
        return True
    choices = shipped_choices(size, max_guesses)
    return choices is not None and set_key(cands) in choices


def optimal_source(max_guesses: int | None) -> Callable[[GameSize, np.ndarray], str]:
    """Where an optimal preset's guess comes from (see ``Strategy.source``):
    its exact tree, or a search from a position off its shipped tree."""

    def source(size: GameSize, cands: np.ndarray) -> str:
        if cands.shape[0] <= 2 or on_demand(size, QUICK_SEARCH_CODES):
            return "tree"
        choices = shipped_choices(size, max_guesses)
        return "searched" if choices is not None and set_key(cands) not in choices else "tree"

    return source


def optimal_chooser(max_guesses: int | None) -> Callable[[GameSize, Array, int, int], int]:
    """The chooser of an optimal preset: the shipped tree where it has the
    position, otherwise a search from that position."""

    def choose(size: GameSize, cands: np.ndarray, played: int, depth: int) -> int:
        if cands.shape[0] <= 2:
            return int(cands[0])
        choices = shipped_choices(size, max_guesses)
        if choices is not None:
            guess = choices.get(set_key(cands))
            if guess is not None:
                return int(guess)
        nodes = None
        if not on_demand(size, ON_DEMAND_CODES):
            if choices is None or not searchable(size):
                raise StrategyError(
                    "optimal-not-here",
                    size=size.params(),
                    codes=len(secret_indices(size)),
                    most=ON_DEMAND_CODES,
                    searchable=searchable(size),
                )
            if cands.shape[0] > OFF_TREE_CODES:
                raise StrategyError("optimal-search-too-long", codes=int(cands.shape[0]), most=OFF_TREE_NODES)
            nodes = OFF_TREE_NODES  # a large board: a position off its tree, within a budget
        solver = shared_solver(size, max_guesses)
        report = _search_progress.get()
        with _solvers_lock:
            try:
                if nodes is None or report is None:
                    return solver.choose(cands, played, depth, nodes)
                budget, start = nodes, int(solver.stats[0])
                return polled(
                    lambda: solver.choose(cands, played, depth, budget),
                    lambda: report(min(1.0, (int(solver.stats[0]) - start) / budget)),
                )
            except SizeError as exc:
                raise StrategyError(exc.fact, **exc.details) from None
            except TooSlow:
                raise StrategyError("optimal-search-too-long", codes=int(cands.shape[0]), most=nodes) from None
            finally:
                solver.bound_memory()

    return choose


KOYAMA_LAI = (
    "Koyama & Lai 1993, “An optimal Mastermind strategy”, J. Recreational Mathematics 25 (computed by this project)"
)
register(
    Strategy(
        "optimal",
        "The exact optimum: fewest guesses in total over every secret.",
        KOYAMA_LAI,
        chooser=optimal_chooser(None),
        available=lambda size: available(size, None),
        quick=lambda size, cands: answers_at_once(size, None, cands),
        source=optimal_source(None),
    )
)
register(
    Strategy(
        "optimal-5",
        "Fewest guesses in total among strategies that never need more than 5.",
        KOYAMA_LAI,
        chooser=optimal_chooser(5),
        available=lambda size: available(size, 5),
        quick=lambda size, cands: answers_at_once(size, 5, cands),
        source=optimal_source(5),
    )
)


# --- jobs a Dask cluster's workers run (``fanout``) --------------------------------------------------


@dataclass(frozen=True)
class SolverSpec:
    """What a worker needs to build the same solver as the caller's."""

    size: GameSize
    max_guesses: int | None = None
    candidates_only: bool = False
    offline: bool = False
    rows: int | None = None


@lru_cache(maxsize=2)
def worker_solver(spec: SolverSpec) -> OptimalSolver:
    """This worker process's solver for ``spec`` (kept between jobs)."""
    return OptimalSolver(spec.size, spec.max_guesses, spec.candidates_only, offline=spec.offline, rows=spec.rows)


def solve_class(job: tuple[Any, ...]) -> tuple[int, Array]:
    """The exact total of one position, and the work counted."""
    spec, cands, played, depth_left, group = job
    solver = worker_solver(spec)
    before = solver.stats.copy()
    value = solver._search(cands, played, depth_left, INF, group, solver.table_t, solver.stats)
    return value, solver.stats - before


def subtree(job: tuple[Any, ...]) -> tuple[int, list[int], Array]:
    """The exact total of one position, its optimal subtree's guesses in the
    compact preorder form (``encode_tree``), and the work counted."""
    spec, cands, played, depth, group = job
    solver = worker_solver(spec)
    before = solver.stats.copy()
    value = solver._search(cands, played, solver.depth_left(depth), INF, group, solver.table_t, solver.stats)
    guesses = encode_subtree(solver, cands, played, depth) if value < INF else []
    return value, guesses, solver.stats - before


def attempt_guess(job: tuple[Any, ...]) -> tuple[int, Array]:
    """Whether one guess beats ``against`` (its exact total if so, INF if
    not), and the work counted."""
    spec, cands, played, depth_left, guess, lower, against, group = job
    solver = worker_solver(spec)
    before = solver.stats.copy()
    value = attempt(solver, cands, played, depth_left, guess, lower, against, group, solver.table_t, solver.stats)
    return value, solver.stats - before
