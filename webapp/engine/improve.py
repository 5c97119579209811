"""A strategy better than any one-step rule, for boards too large to solve
exactly (Super Mastermind's 32,768 codes): a rollout over a heuristic, with
every small position solved exactly.

The *base* policy plays the entropy rule, except that a position with at most
``small`` codes is played optimally (the exact search of ``optimal``). Its
total from any position is computed by building its subtree.

The *improved* policy, at each position with more than ``small`` codes,
scores the ``width`` guesses of highest entropy (the base's own choice among
them) by what they would cost if the base policy played on: the codes of the
position plus the base totals of the classes each guess leaves. It plays the
cheapest, then does the same in every class. With ``deep`` above
``small`` the rollout is nested: a class of at most ``deep`` codes is
weighed by the improved policy's own total, itself found by a rollout,
rather than by the base's (a second rollout step, as iterated rollouts do).
Since the base's choice is always among those scored, no position ends up
worse than the base would play it, and the improved tree's total is at most the base's (the rollout
algorithm of Bertsekas, Tsitsiklis and Wu, 1997).

Given a Dask cluster (``fanout``), the base totals the root's scoring needs
are worked out there, each class on its own, then each class of the root's
guess is improved whole by a worker; both come back with every fact learned
on the way: the same totals and tree, sooner.

Finally (``exact`` above ``small``), the finished tree is polished: from
the top down, every position of at most ``exact`` codes is given to the
exact search with the tree's own total there as its cut-off and a budget of
``exact_nodes`` positions (from an empty table each time, so the outcome
does not depend on the order of work). Where the search finds a smaller total, that is
the position's optimum and its optimal subtree replaces the tree's; where it
does not (or runs out of budget), the position's classes are tried in turn.
The tree's total can only fall. With a cluster, the searches of each level
of the tree run there at once.

What is learned is kept in a checkpoint file, one line per fact: the base
total of a position (``b``), a finished position's guess and improved total
(``c``), a polished position's optimum (``x``) and a position the polish
could not better within a budget (``k``), each under a digest of the
position's codes. A later run with the same file continues where the last
one stopped.

This is an offline computation: the exact search reads the whole feedback
matrix (1 GiB at 5 × 8). The app reads the resulting tree (``best``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import optimal
from .codes import JSON, Array, GameSize, secret_indices
from .optimal import EXACT_NODES, NO_WORK_LIMIT, UNBOUNDED, OptimalSolver
from .optimal import position_digest as digest
from .strategies import TooSlow, choose, get_strategy, negative_entropy, pool_of
from .tables import compiled

if TYPE_CHECKING:
    from .fanout import Fanout

# Guesses left, as the exact search counts them, for every position solved
# here: there is no limit, and one key per position lets solved positions be
# found again whatever the depth they are met at.
DEPTH_LEFT = UNBOUNDED - 2
BASE = "entropy"
# Positions of at least this many codes have the base totals their scoring
# needs worked out on the cluster, when there is one; smaller ones here.
FANOUT_CODES = 200

# progress(codes placed, codes, current total, seconds)
Report = Callable[[int, int, int, float], None]


class Checkpoint(optimal.Checkpoint):
    """What an improvement has learned: ``b`` the base total of a position,
    ``c`` a finished position's guess and improved total, ``x`` a position's
    optimum found by the polish, ``k`` the budget within which the polish
    found nothing better than the tree at a position."""

    def __init__(self, path: Path | None, settings: str, every: float = 10.0):
        self.base: dict[str, int] = {}
        self.done: dict[str, tuple[int, int]] = {}
        self.optimum: dict[str, tuple[int, list[int]]] = {}
        self.kept: dict[str, int] = {}
        super().__init__(path, settings, every)

    def read(self, kind: str, *values: str) -> None:
        if kind == "b":
            self.base[values[0]] = int(values[1])
        elif kind == "c":
            self.done[values[0]] = (int(values[1]), int(values[2]))
        elif kind == "x":
            self.optimum[values[0]] = (int(values[1]), [int(g) for g in values[2].split(",") if g])
        elif kind == "k":
            self.kept[values[0]] = max(self.kept.get(values[0], 0), int(values[1]))

    def learn_base(self, key: str, total: int) -> None:
        self.base[key] = total
        self.note(f"b {key} {total}", save=False)

    def learn_done(self, key: str, guess: int, total: int) -> None:
        self.done[key] = (guess, total)
        self.note(f"c {key} {guess} {total}")

    def learn_optimum(self, key: str, total: int, guesses: list[int]) -> None:
        self.optimum[key] = (total, guesses)
        self.note(f"x {key} {total} {','.join(map(str, guesses))},")

    def learn_kept(self, key: str, nodes: int) -> None:
        self.kept[key] = nodes
        self.note(f"k {key} {nodes}")


class Improver:
    """The improved policy for one board (see the module's docstring)."""

    def __init__(
        self,
        size: GameSize,
        small: int = 20,
        width: int = 6,
        checkpoint: Path | None = None,
        report: Report | None = None,
        fanout: Fanout | None = None,
        deep: int = 0,
        exact: int = 0,
        exact_nodes: int = EXACT_NODES,
    ):
        self.size, self.small, self.width = size, small, width
        self.deep = max(deep, small)
        self.exact_limit, self.exact_nodes = max(exact, small), exact_nodes
        self.fanout = fanout
        self.solver = OptimalSolver(size, offline=True)
        self.table = self.solver.table
        self.base_strategy = get_strategy(BASE)
        self.kernels = compiled(size.n_codes**2)
        self.base_guesses: dict[str, int] = {}
        self.memory = Checkpoint(checkpoint, f"{size.pegs}x{size.colors} {settings(small, width, self.deep)}")
        self.report = report
        self.placed = 0
        self.current = 0
        self.weighing = 0  # how deep in weighing classes by their own rollout
        self.started = time.perf_counter()
        self.last_report = 0.0

    # --- the pieces -------------------------------------------------------------------------

    def classes(self, guess: int, cands: Array) -> list[Array]:
        """The codes of each reply to ``guess`` but the winning one, by ascending reply."""
        members, values, starts = self.table.split(guess, cands)
        return [
            members[a:b]
            for v, a, b in zip(values.tolist(), starts[:-1].tolist(), starts[1:].tolist())
            if v != self.size.solved
        ]

    def exact(self, cands: Array, played: int) -> int:
        """The optimal total of a small position."""
        return int(self.solver._run(np.ascontiguousarray(cands, dtype=np.int64), played, DEPTH_LEFT))

    def exact_choice(self, cands: Array, played: int) -> int:
        """An optimal guess for a small position."""
        from .search_kernels import position_key, table_get

        self.exact(cands, played)
        key = int(position_key(np.ascontiguousarray(cands, dtype=np.int64), self.solver.zobrist, DEPTH_LEFT))
        return int(table_get(self.solver.table_t, key))

    def base_choice(self, cands: Array, played: int) -> int:
        """The base rule's guess (remembered: the rollout asks for it again)."""
        key = digest(cands)
        guess = self.base_guesses.get(key)
        if guess is None:
            guess = self.base_guesses[key] = int(
                choose(self.base_strategy, self.table, cands, pool_of(self.size, played), size=self.size, played=played)
            )
        return guess

    def next_played(self, played: int, guess: int) -> int:
        return played | int(self.solver.colmask[guess])

    def base(self, cands: Array, played: int) -> int:
        """The base policy's total over ``cands``."""
        n = int(cands.shape[0])
        if n <= 2:
            return 2 * n - 1
        key = digest(cands)
        known = self.memory.base.get(key)
        if known is not None:
            return known
        if n <= self.small:
            total = self.exact(cands, played)
        else:
            guess = self.base_choice(cands, played)
            after = self.next_played(played, guess)
            total = n + sum(self.base(c, after) for c in self.classes(guess, cands))
        self.memory.learn_base(key, total)
        return total

    def weight(self, cands: Array, played: int) -> int:
        """What a class left by a contender counts for when guesses are
        weighed: the improved total up to ``deep`` codes, else the base's."""
        n = int(cands.shape[0])
        if n <= self.small or n > self.deep:
            return self.base(cands, played)
        key = digest(cands)
        if key in self.memory.done:
            return self.memory.done[key][1]
        # Weighing must not move the running figures, nor report them: they
        # follow the tree.
        current, placed = self.current, self.placed
        self.weighing += 1
        try:
            return self.improved(cands, played)
        finally:
            self.current, self.placed = current, placed
            self.weighing -= 1

    def contenders(self, cands: Array, played: int) -> list[int]:
        """The ``width`` guesses of highest entropy (ties to codes still
        possible, then ascending), and the base's own choice."""
        pool = pool_of(self.size, played)
        if self.kernels is not None:
            pool = self.kernels.without_dead_variants(self.table.digits, pool, cands, self.table.colors)
        counts = self.table.class_counts(pool, cands)
        score = negative_entropy(counts, cands.shape[0])
        is_candidate = np.isin(pool, cands, assume_unique=True)
        order = np.lexsort((~is_candidate, np.round(score, 9)))[: self.width]
        guesses = [int(pool[i]) for i in order]
        own = self.base_choice(cands, played)
        return guesses if own in guesses else [own, *guesses]

    # --- the search -------------------------------------------------------------------------

    def improved(self, cands: Array, played: int, spread: bool = False) -> int:
        """The improved policy's total over ``cands``; the current total
        (``self.current``) moves from the base's figure to the improved one.
        ``spread``: with a cluster, each class of the guess chosen here is
        worked out whole by a worker."""
        n = int(cands.shape[0])
        if n <= self.small:
            total = self.base(cands, played)
            self.placed += n
            self._tell()
            return total
        key = digest(cands)
        if key in self.memory.done:
            _, total = self.memory.done[key]
            # What this position counted for so far: its own total if it was
            # weighed by its rollout (nested), else the base's.
            self.current += total - (total if n <= self.deep else self.base(cands, played))
            self.placed += n
            self._tell()
            return total
        contenders = self.contenders(cands, played)
        if self.fanout is not None and n >= FANOUT_CODES:
            self.fan_out(cands, played, contenders)
        scored = []
        for guess in contenders:
            after = self.next_played(played, guess)
            scored.append((n + sum(self.weight(c, after) for c in self.classes(guess, cands)), guess))
        estimate, guess = min(scored)
        self.current += estimate - self.base(cands, played)
        if np.isin(guess, cands):  # the guess itself is found here
            self.placed += 1
        after = self.next_played(played, guess)
        if spread and self.fanout is not None:
            total = n + sum(self.spread(self.classes(guess, cands), after))
        else:
            total = n + sum(self.improved(c, after) for c in self.classes(guess, cands))
        self.memory.learn_done(key, guess, int(total))
        return total

    def spread(self, classes: list[Array], played: int) -> list[int]:
        """The improved totals of ``classes``, each worked out whole on the
        cluster (those not already known), with every fact learned there."""
        assert self.fanout is not None
        totals = [
            self.improved(c, played) if c.shape[0] <= self.small or digest(c) in self.memory.done else None
            for c in classes
        ]
        asked = [i for i, total in enumerate(totals) if total is None]
        jobs = [(self.size, self.small, self.width, self.deep, classes[i], played) for i in asked]

        def learned(index: int, result: tuple[int, list[str]]) -> None:
            total, facts = result
            for line in facts:
                kind, key, *values = line.split()
                if kind == "b" and key not in self.memory.base:
                    self.memory.learn_base(key, int(values[0]))
                elif kind == "c" and key not in self.memory.done:
                    self.memory.learn_done(key, int(values[0]), int(values[1]))
            members = classes[asked[index]]
            totals[asked[index]] = total
            self.current += total - self.base(members, played)
            self.placed += int(members.shape[0])
            self._tell()

        self.fanout.map(improved_total, jobs, learned)
        return [int(t) for t in totals if t is not None]

    def fan_out(self, cands: Array, played: int, contenders: list[int]) -> None:
        """Work out on the cluster the base totals scoring ``contenders``
        needs (each class they leave), and learn them."""
        assert self.fanout is not None
        wanted: dict[str, tuple[Array, int]] = {}
        for guess in contenders:
            after = self.next_played(played, guess)
            for members in self.classes(guess, cands):
                key = digest(members)
                if members.shape[0] > 2 and key not in self.memory.base:
                    wanted.setdefault(key, (members, after))
        jobs = [(self.size, self.small, self.width, self.deep, members, after) for members, after in wanted.values()]

        def learned(_index: int, result: tuple[int, list[tuple[str, int]]]) -> None:
            _total, facts = result
            for key, total in facts:
                if key not in self.memory.base:
                    self.memory.learn_base(key, total)

        self.fanout.map(base_total, jobs, learned)

    def run(self) -> int:
        """The improved total over every secret (continuing a checkpoint)."""
        secrets = secret_indices(self.size).astype(np.int64)
        self.placed = 0
        if self.fanout is not None:  # the root's base total too, from the classes worked out on the cluster
            self.fan_out(secrets, 0, self.contenders(secrets, 0))
        self.current = self.base(secrets, 0)
        try:
            total = self.improved(secrets, 0, spread=True)
        finally:
            self.memory.save()
        self._tell(force=True)
        return total

    # --- the polish -------------------------------------------------------------------------

    def polish(self, total: int) -> int:
        """The tree's total once each position of at most ``exact`` codes is
        solved exactly where the exact search beats the tree there, from the
        top down (after :meth:`run`, which gave ``total``). With a cluster,
        the searches run there first, a level of the tree at a time."""
        if self.exact_limit <= self.small:
            return total
        self.placed, self.current, self.started = 0, total, time.perf_counter()
        secrets = secret_indices(self.size).astype(np.int64)
        report = self.report
        if self.fanout is not None:
            self.polish_on_cluster(secrets)
            self.report = None  # what follows only reads back what the cluster found
        self.placed, self.current = 0, total

        def visit(cands: Array, played: int) -> int:
            n = int(cands.shape[0])
            if n <= self.small:
                self.placed += n
                self._tell()
                return self.base(cands, played)
            key = digest(cands)
            guess, own = self.memory.done[key]
            if n <= self.exact_limit:
                found = self.optimum_below(cands, played, key, own)
                if found is not None:
                    self.current -= own - found
                    self.placed += n
                    self._tell()
                    return found
            if np.isin(guess, cands):
                self.placed += 1
            after = self.next_played(played, guess)
            return n + sum(visit(c, after) for c in self.classes(guess, cands))

        try:
            polished = visit(secrets, 0)
        finally:
            self.report = report
            self.memory.save()
        self._tell(force=True)
        return polished

    def polish_on_cluster(self, secrets: Array) -> None:
        """Run the polish's searches on the cluster, one level of the tree at
        a time (a position's classes are asked about only when the position
        itself was not bettered), and learn every answer."""
        wave: list[tuple[Array, int]] = [(secrets, 0)]
        while wave:
            wave = self.polish_level(wave)

    def polish_level(self, wave: list[tuple[Array, int]]) -> list[tuple[Array, int]]:
        """The searches of one level of the tree on the cluster; the positions
        of the next level to look at."""
        assert self.fanout is not None
        asked: list[tuple[Array, int, str, int]] = []
        following: list[tuple[Array, int]] = []

        def descend(cands: Array, played: int, guess: int) -> None:
            if np.isin(guess, cands):
                self.placed += 1
            after = self.next_played(played, guess)
            following.extend((c, after) for c in self.classes(guess, cands))

        for cands, played in wave:
            n = int(cands.shape[0])
            if n <= self.small:
                self.placed += n
                continue
            key = digest(cands)
            guess, own = self.memory.done[key]
            settled, found = self.settled(key, own) if n <= self.exact_limit else (True, None)
            if found is not None:
                self.current -= own - found
                self.placed += n
            elif not settled:
                asked.append((cands, played, key, own))
            else:
                descend(cands, played, guess)
        jobs = [(self.size, self.small, self.width, self.deep, self.exact_nodes, c, p, own) for c, p, _, own in asked]

        def learned(index: int, result: tuple[int | None, int, list[int]]) -> None:
            cands, played, key, own = asked[index]
            found, kept, subtree = result
            if found is None:
                self.memory.learn_kept(key, kept)
                descend(cands, played, self.memory.done[key][0])
            else:
                self.memory.learn_optimum(key, found, subtree)
                self.current -= own - found
                self.placed += int(cands.shape[0])
            self._tell()

        self.fanout.map(polished_position, jobs, learned)
        self._tell()
        return following

    def optimum_below(self, cands: Array, played: int, key: str, own: int) -> int | None:
        """The optimum of a position if it is below ``own`` and the exact
        search finds it within its budget, else None (what is found is
        learned)."""
        settled, known = self.settled(key, own)
        if settled:
            return known
        found, kept, subtree = self.search_below(cands, played, own)
        if found is None:
            self.memory.learn_kept(key, kept)
        else:
            self.memory.learn_optimum(key, found, subtree)
        return found

    def settled(self, key: str, own: int) -> tuple[bool, int | None]:
        """Whether what the polish has learned settles a position whose tree
        needs ``own`` guesses, and its optimum when that is below ``own``: a
        known optimum does, and so does a search kept within this budget or
        a larger one."""
        known = self.memory.optimum.get(key)
        if known is not None:
            return True, known[0] if known[0] < own else None
        return self.memory.kept.get(key, 0) >= self.exact_nodes, None

    def search_below(self, cands: Array, played: int, own: int) -> tuple[int | None, int, list[int]]:
        """The exact search of one position against the tree's total there:
        (its optimum, 0, an optimal subtree) where that is below ``own``,
        else (None, the budget within which nothing better exists, [])."""
        codes = np.ascontiguousarray(cands, dtype=np.int64)
        # From an empty table, what the search finds within its budget does
        # not hang on the positions searched before: any order of work (a
        # cluster's, a resumed run's) polishes the same tree.
        self.solver.forget()
        try:
            found = int(self.solver._run(codes, played, DEPTH_LEFT, bound=own, nodes=self.exact_nodes))
        except TooSlow:
            return None, self.exact_nodes, []
        if found >= own:  # proven: no budget would do better
            return None, NO_WORK_LIMIT, []
        # Below the cut-off the result is exact, and the search's table holds
        # the optimal guess of every position on the way: read the subtree now.
        return found, 0, self.exact_subtree(codes, played)

    def exact_subtree(self, cands: Array, played: int) -> list[int]:
        """An optimal subtree's guesses, in the preorder of the shipped trees."""
        out: list[int] = []

        def visit(cands: Array, played: int) -> None:
            if cands.shape[0] <= 2:
                return
            guess = self.exact_choice(cands, played)
            out.append(guess)
            after = self.next_played(played, guess)
            for members in self.classes(guess, cands):
                visit(members, after)

        visit(cands, played)
        return out

    def _tell(self, force: bool = False) -> None:
        now = time.perf_counter()
        if self.report is not None and not self.weighing and (force or now - self.last_report >= 0.2):
            self.last_report = now
            self.report(self.placed, self.size.n_codes, self.current, now - self.started)

    # --- the tree ---------------------------------------------------------------------------

    def guesses(self) -> list[int]:
        """The improved tree in the compact preorder form of the shipped
        trees (after :meth:`run`, and :meth:`polish` if asked for)."""
        out: list[int] = []

        def visit(cands: Array, played: int) -> None:
            n = cands.shape[0]
            if n <= 2:
                return
            if n <= self.small:  # solved exactly, as the run left it
                out.extend(self.exact_subtree(cands, played))
                return
            key = digest(cands)
            polished = self.memory.optimum.get(key) if n <= self.exact_limit else None
            if polished is not None and polished[0] < self.memory.done[key][1]:
                out.extend(polished[1])
                return
            guess = self.memory.done[key][0]
            out.append(guess)
            after = self.next_played(played, guess)
            for members in self.classes(guess, cands):
                visit(members, after)

        visit(secret_indices(self.size).astype(np.int64), 0)
        return out

    def document(self, total: int) -> JSON:
        """What a shipped data file of the ``best`` strategy holds."""
        size = self.size
        return {
            "about": "Mastermind decision tree found by `mastermind improve`: the guesses of every node "
            "with three or more codes, in preorder, children by ascending reply (black, then white); "
            "codes are indices in ascending order (11111 is 0). Generated, do not edit. Regenerate with: "
            + improve_command(size, self.small, self.width, self.deep, self.exact_limit, self.exact_nodes),
            "pegs": size.pegs,
            "colors": size.colors,
            "distinct": size.distinct,
            "max_guesses": None,
            "method": method(self.small, self.width, self.deep, self.exact_limit, self.exact_nodes),
            "total": total,
            "guesses": self.guesses(),
        }


# --- jobs a Dask cluster's workers run (``fanout``) --------------------------------------------------


@lru_cache(maxsize=2)
def worker_improver(size: GameSize, small: int, width: int, deep: int) -> Improver:
    """This worker process's improver (kept between jobs)."""
    improver = Improver(size, small=small, width=width, deep=deep)
    improver.memory.every = float("inf")  # what a job learns goes back to the caller, never to a file
    return improver


def forget_worker_improvers() -> None:
    """Drop this worker process's improvers and what earlier jobs taught them
    (run on every worker: ``client.run(forget_worker_improvers)``)."""
    worker_improver.cache_clear()


def base_total(job: tuple[Any, ...]) -> tuple[int, list[tuple[str, int]]]:
    """The base policy's total of one position, and every base total the
    worker learned on the way (so the caller need not learn them again)."""
    size, small, width, deep, cands, played = job
    improver = worker_improver(size, small, width, deep)
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
    size, small, width, deep, cands, played = job
    improver = worker_improver(size, small, width, deep)
    improver.memory.pending.clear()
    # Every finished position of the subtree must come back (the caller builds
    # the tree from them), even those an earlier job here already finished.
    improver.memory.done.clear()
    total = improver.improved(np.asarray(cands, dtype=np.int64), played)
    facts = list(improver.memory.pending)
    improver.memory.pending.clear()
    return int(total), facts


def polished_position(job: tuple[Any, ...]) -> tuple[int | None, int, list[int]]:
    """The polish's exact search of one position of the tree (see
    :meth:`Improver.search_below`)."""
    size, small, width, deep, nodes, cands, played, own = job
    improver = worker_improver(size, small, width, deep)
    improver.exact_nodes = nodes
    return improver.search_below(np.asarray(cands, dtype=np.int64), played, own)


def method(small: int, width: int, deep: int, exact: int = 0, exact_nodes: int = EXACT_NODES) -> dict[str, Any]:
    """The settings of an improvement, as its data file records them."""
    found: dict[str, Any] = {"base": BASE, "small": small, "width": width}
    if deep > small:
        found["deep"] = deep
    if exact > small:
        found["exact"] = exact
        found["exact_nodes"] = exact_nodes
    return found


def settings(small: int, width: int, deep: int) -> str:
    """The settings line of a checkpoint file."""
    nested = f" deep={deep}" if deep > small else ""
    return f"small={small} width={width}{nested} base={BASE}"


def improve_command(
    size: GameSize, small: int, width: int, deep: int = 0, exact: int = 0, exact_nodes: int = EXACT_NODES
) -> str:
    from .best import data_name

    nested = f" --deep {deep}" if deep > small else ""
    if exact > small:
        nested += f" --exact {exact}" + (f" --exact-nodes {exact_nodes}" if exact_nodes != EXACT_NODES else "")
    return (
        f"mastermind improve --pegs {size.pegs} --colors {size.colors} --small {small} --width {width}{nested} "
        f"--checkpoint improve-{size.pegs}x{size.colors}.txt --data webapp/engine/data/{data_name(size)}"
    )
