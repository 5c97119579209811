"""A proven lower bound on the optimal total: the fewest guesses, summed over
every secret, that any strategy can need (``docs/lower-bound.md`` gives
the proof).

A set of ``m`` codes needs at least ``counting(m)`` guesses in total (one code
found at the first guess, at most ``b`` at the second, ``b²`` at the third,
and so on, where ``b`` is the number of replies other than all black). The
bound replaces that count by a minimum over the guesses actually possible,
``levels`` guesses deep: over every first guess (one per pattern, as any
other is one of these with positions and colours renamed), every reply's
class is bounded by the best second guess for it, whose classes are bounded
by the best third guess for each, whose classes are bounded by counting.
Guesses alike by a symmetry of what has been played are tried once.

The third level is a minimum over every second guess of a sum over its
classes: second guesses are tried in the order of their two-level bound
(never above their three-level one), and the minimum is exact once the next
one's two-level bound reaches the best found. ``effort``, when given, caps
how many are tried for one class; the rest count at their two-level bound,
so a capped bound is still a bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .codes import Array, Code, GameSize, code_digits, secret_indices
from .optimal import bounds_tables
from .strategies import colors_mask, pool_of
from .tables import FeedbackTable, feedback_table

# Sets of at most this many codes are bounded by counting alone (exact there:
# one code takes 1 guess, two take 3).
COUNTED_EXACTLY = 2


@dataclass(frozen=True)
class FirstGuessBound:
    """What any strategy opening with ``guess`` needs at least: by counting
    alone, over the best second guesses, and over the best third guesses;
    ``exact`` when no class's third-level minimum was cut short."""

    guess: Code
    classes: int
    counting: int
    second: int
    # None when not worked out: the second level's bound already reaches
    # another first guess's third-level bound.
    third: int | None
    exact: bool

    @property
    def total(self) -> int:
        return max(self.counting, self.second, self.third or 0)


@dataclass(frozen=True)
class LowerBound:
    """The bound for a size: the smallest over every first guess, next to the
    bound by counting alone."""

    size: GameSize
    levels: int
    effort: int | None
    counting: int
    branching: int  # replies a guess can get other than all black
    first_guesses: tuple[FirstGuessBound, ...]

    @property
    def total(self) -> int:
        return min(first.total for first in self.first_guesses)

    @property
    def exact(self) -> bool:
        """Whether every third-level minimum was completed."""
        return all(first.exact for first in self.first_guesses)


class Bounder:
    """The bound's working state for one size: the feedback table, the
    counting bound of every set size, and the symmetries of the board."""

    def __init__(self, size: GameSize):
        self.size = size
        self.table: FeedbackTable = feedback_table(size)
        self.secrets = secret_indices(size).astype(np.int64)
        self.slots, self.solved = self.table.slots, size.solved
        self.counting, _cap = bounds_tables(self.secrets.shape[0], self.table.replies - 1)
        self.digits = np.ascontiguousarray(code_digits(size.pegs, size.colors), dtype=np.int64)
        perms = np.array(list(itertools.permutations(range(size.pegs))), dtype=np.int64)
        self.symmetries = np.hstack([perms, np.full((len(perms), size.colors), -1, np.int64)])

    def classes(self, guess: int, codes: Array) -> list[Array]:
        """The classes ``guess`` splits ``codes`` into, but the solved one."""
        members, values, starts = self.table.split(guess, codes)
        return [
            members[a:b]
            for v, a, b in zip(values.tolist(), starts[:-1].tolist(), starts[1:].tolist())
            if v != self.solved
        ]

    def pool(self, codes: Array, played: int, group: Array) -> Array:
        """The guesses worth trying on ``codes`` after the colours in
        ``played``: one per set of guesses alike by renaming unplayed colours,
        by a symmetry in ``group`` (which fixes every guess played), or by
        colours no code of ``codes`` has."""
        from .kernels import without_dead_variants
        from .search_kernels import orbit_minima

        pool = np.ascontiguousarray(pool_of(self.size, played), dtype=np.int64)
        if group.shape[0] > 1:
            pool = orbit_minima(pool, group, self.digits, played, self.size.colors, self.size.n_codes)
        return np.asarray(without_dead_variants(self.table.digits, pool, codes, self.size.colors))

    def second_level(self, codes: Array, pool: Array) -> Array:
        """For each guess of ``pool``: ``len(codes)`` plus the counting bound
        of each class it leaves (every code pays for this guess, then its
        class needs at least its counting bound)."""
        counts = np.ascontiguousarray(self.table.class_counts(pool, codes))
        sizes = self.counting[counts]
        sizes[:, self.solved] = 0
        return np.asarray(codes.shape[0] + sizes.sum(axis=1))

    def two_levels(self, codes: Array, played: int, group: Array) -> int:
        """The fewest guesses ``codes`` can need, bounded over every next guess."""
        if codes.shape[0] <= COUNTED_EXACTLY:
            return int(self.counting[codes.shape[0]])
        return int(self.second_level(codes, self.pool(codes, played, group)).min())

    def three_levels(self, codes: Array, played: int, group: Array, effort: int | None) -> tuple[int, int, bool]:
        """The two-level and three-level bounds for ``codes``, and whether the
        three-level minimum is complete (not cut short by ``effort``)."""
        if codes.shape[0] <= COUNTED_EXACTLY:
            value = int(self.counting[codes.shape[0]])
            return value, value, True
        from .search_kernels import child_group

        pool = self.pool(codes, played, group)
        second = self.second_level(codes, pool)
        order = np.argsort(second, kind="stable")
        best = None
        for tried, i in enumerate(order.tolist()):
            if best is not None and second[i] >= best:
                return int(second[order[0]]), best, True
            if effort is not None and tried >= effort:
                cut = int(second[i])  # every guess not tried needs at least this
                return int(second[order[0]]), cut if best is None else min(best, cut), False
            guess = int(pool[i])
            inner = child_group(group, self.digits, guess, played) if group.shape[0] > 1 else group
            inner_played = played | colors_mask(self.size, guess)
            running = int(second[i])
            for members in sorted(self.classes(guess, codes), key=len, reverse=True):
                if members.shape[0] <= COUNTED_EXACTLY:
                    break
                running += self.two_levels(members, inner_played, inner) - int(self.counting[members.shape[0]])
                if best is not None and running >= best:
                    break
            best = running if best is None else min(best, running)
        assert best is not None  # the pool is never empty
        return int(second[order[0]]), best, True


def lower_bound(
    size: GameSize,
    levels: int = 3,
    effort: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LowerBound:
    """A lower bound on the optimal total of ``size``, ``levels`` guesses
    deep (1 to 3), trying at most ``effort`` second guesses per class at the
    third level (no limit by default). First guesses are bounded two levels
    deep first; then, in that order, three levels deep, except those whose
    two-level bound already reaches the smallest three-level one (they
    cannot lower the minimum). ``progress(done, total)`` counts classes."""
    from .search_kernels import child_group

    if not 1 <= levels <= 3:
        raise ValueError("levels must be 1, 2 or 3")
    bounder = Bounder(size)
    n = bounder.secrets.shape[0]
    openings = []
    for guess in (int(g) for g in pool_of(size, 0)):
        group = child_group(bounder.symmetries, bounder.digits, guess, 0)
        openings.append((guess, bounder.classes(guess, bounder.secrets), colors_mask(size, guess), group))
    total_classes, done = sum(len(opening[1]) for opening in openings) * (1 if levels < 3 else 2), 0
    bounds: dict[int, FirstGuessBound] = {}
    for guess, classes, played, group in openings:
        counting = second = n + sum(int(bounder.counting[c.shape[0]]) for c in classes)
        if levels >= 2:
            second = n
            for members in classes:
                second += bounder.two_levels(members, played, group)
                done += 1
                if progress:
                    progress(done, total_classes)
        bounds[guess] = FirstGuessBound(Code.from_index(guess, size), len(classes), counting, second, None, True)
    if levels == 3:
        best = None
        for guess, classes, played, group in sorted(openings, key=lambda o: bounds[o[0]].second):
            if best is not None and bounds[guess].second >= best:
                done += len(classes)
                continue
            third, exact = n, True
            for members in classes:
                _two, three, complete = bounder.three_levels(members, played, group, effort)
                third, exact = third + three, exact and complete
                done += 1
                if progress:
                    progress(done, total_classes)
            old = bounds[guess]
            bounds[guess] = FirstGuessBound(old.guess, old.classes, old.counting, old.second, third, exact)
            best = third if best is None else min(best, third)
    first_guesses = tuple(bounds[o[0]] for o in openings)
    branching = bounder.table.replies - 1
    return LowerBound(size, levels, effort, int(bounder.counting[n]), branching, first_guesses)
