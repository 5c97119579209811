"""Codebreaking strategies: a guess pool, a score of the partition a guess
makes, and the tie-breaks of the rules document.

A strategy is data: a list of :class:`Criterion` (each a key where smaller is
better, compared in order) plus a few switches. :func:`best_guess` and the
whole-game tree builder use one mechanism for all of them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
from cachetools import LRUCache, cached

from .codes import JSON, Array, Code, Feedback, GameSize, History, MastermindError, code_digits, color_counts
from .tables import FeedbackTable, compiled, feedback_table
from .tables import candidates as candidates_after

# Scoring more (guess, candidate) pairs than this in one step takes seconds:
# such a request gets a clear refusal instead of a hang.
MAX_PAIRS = 2_000_000_000


class StrategyError(MastermindError):
    """An unknown strategy, or a position too large to score."""


class TooSlow(StrategyError):
    """Work that would take too long to do while someone waits for a page."""


class Budget:
    """How much work a caller can wait for, shared by every engine call it
    makes: ``pairs`` (guess, code) pairs scored in all, and whether an exact
    search (optimal play off its shipped tree) may run. A web request holds
    one small budget for all its engine calls; background jobs and the
    command line use an unbounded one.

    >>> b = Budget(100, search=False)
    >>> b.spend(60, TooSlow("a-step")); b.left
    40
    >>> b.spend(60, TooSlow("another-step"))
    Traceback (most recent call last):
    ...
    webapp.engine.strategies.TooSlow: another-step
    """

    def __init__(self, pairs: float = float("inf"), search: bool = True):
        self.pairs, self.search, self.spent = pairs, search, 0

    @property
    def left(self) -> float:
        return self.pairs - self.spent

    def spend(self, pairs: int, refusal: TooSlow) -> None:
        """Count ``pairs`` against the budget, or raise ``refusal`` (and
        count nothing) when they do not fit."""
        if pairs > self.left:
            raise refusal
        self.spent += int(pairs)

    def allow_search(self, refusal: TooSlow) -> None:
        """Raise ``refusal`` unless an exact search may run."""
        if not self.search:
            raise refusal


def budget_of(limit: Budget | int | None) -> Budget:
    """``limit`` as a :class:`Budget`: a number of pairs (for one call
    alone) becomes a fresh budget; None is unbounded."""
    if isinstance(limit, Budget):
        return limit
    return Budget() if limit is None else Budget(limit)


@dataclass(frozen=True)
class Criterion:
    """One comparison between guesses. ``key(counts, n)`` maps the class sizes
    of each guess (``(guesses, slots)``) to a key where smaller is better:
    one column, or several compared left to right. ``shown`` turns a key back
    into the value a person reads."""

    label: str
    key: Callable[[np.ndarray, int], np.ndarray]
    shown: Callable[[Any], Any] = lambda value: value
    tolerance: float = 0.0
    # The key's first column, when it is much cheaper than the whole key: the
    # rows that lose on it are dropped before the rest is worked out.
    first: Callable[[np.ndarray, int], np.ndarray] | None = None
    # The whole key as one column that orders rows as the key does, when
    # ``n`` is small enough for that (else None): one comparison, not many.
    packed: Callable[[np.ndarray, int], np.ndarray | None] | None = None


@dataclass(frozen=True)
class Strategy:
    """A named way of choosing the next guess."""

    name: str
    description: str
    reference: str
    criteria: tuple[Criterion, ...] = ()
    # Guess pool: every code, or only the candidates.
    candidates_only: bool = False
    # Ties go first to candidates, then to the first in ascending order.
    prefer_candidates: bool = True
    # Guess the first candidate outright when this many or fewer remain.
    first_candidate_at: int = 1
    # A guess that splits the candidates into single codes is best by every
    # criterion, so the search may stop at the first one the tie-breaks allow.
    perfect_split_wins: bool = True
    # No score at all: pick a candidate (first, or at random).
    random: bool = False
    # A strategy that is not one step deep (optimal play) chooses for itself:
    # ``chooser(size, cands, played, depth)`` returns the guess's index.
    chooser: Callable[[GameSize, Array, int, int], int] | None = None
    # Whether the strategy can answer for a size in reasonable time.
    available: Callable[[GameSize], bool] = lambda size: True
    # Whether choosing from candidate set ``cands`` is quick (no long search).
    quick: Callable[[GameSize, np.ndarray], bool] = lambda size, cands: True
    # Where a chooser's guess for ``cands`` comes from, for the explanation:
    # ``tree`` (the exact optimum), ``searched-tree`` or ``off-tree``.
    source: Callable[[GameSize, np.ndarray], str] = lambda size, cands: "tree"

    @property
    def first_of_two(self) -> bool:
        """Whether, with two codes left, :func:`choose` always guesses the
        first: no chooser and no chance, and either the first candidate is
        taken outright or a candidate that splits the codes perfectly (the
        first always does) wins."""
        return (
            self.chooser is None
            and not self.random
            and (self.first_candidate_at >= 2 or (self.perfect_split_wins and self.prefer_candidates))
        )

    def score(self, counts_row: Array, n: int) -> JSON:
        """The named values this strategy compares, for one guess."""
        out = {}
        for crit in self.criteria:
            key = np.asarray(crit.key(counts_row[None, :], n))[0]
            out[crit.label] = crit.shown(key)
        return out


# --- scores of partitions (rows of class sizes) -------------------------------------------


def largest(counts: Array, n: int) -> Array:
    """Size of the largest class."""
    kernels = compiled(counts.size)
    if kernels is not None and counts.dtype == np.int32 and counts.flags.c_contiguous and counts.shape[1]:
        return np.asarray(kernels.row_max(counts))
    return np.asarray(counts.max(axis=1))


def sizes_descending(counts: Array, n: int) -> Array:
    """All class sizes, largest first, up to the most classes any row has:
    the empty classes after them tie in every row."""
    ordered = -np.sort(-counts, axis=1)
    used = np.flatnonzero(ordered.any(axis=0))
    return ordered[:, : used[-1] + 1 if used.size else 1]


@lru_cache(maxsize=64)
def _size_weights(n: int) -> np.ndarray | None:
    """Weights that read how many classes of each size a row has as one
    number, the largest size the most significant digit (a size ``s``
    occurs at most ``n // s`` times: the digit's base is one more), or None
    when that number would not be exact in a float (``n`` over 30)."""
    weights, total = np.zeros(n + 1), 1
    for size in range(1, n + 1):
        weights[size] = total
        total *= n // size + 1
        if total > 2**53:
            return None
    return weights


def sizes_packed(counts: Array, n: int) -> Array | None:
    """:func:`sizes_descending` as one number a row, ordered alike: rows
    compare on their classes of the largest size first, then the next."""
    weights = _size_weights(int(n))
    if weights is None:
        return None
    return np.asarray(np.take(weights, counts.T.astype(np.intp)).sum(axis=0))


@lru_cache(maxsize=4)
def _xlog2x(limit: int) -> np.ndarray:
    """``c * log2(c)`` for every class size ``c`` up to ``limit`` (0 for 0)."""
    c = np.arange(limit + 1, dtype=np.float64)
    return c * np.log2(np.maximum(c, 1))


def negative_entropy(counts: Array, n: int) -> Array:
    """``sum p log2 p``: minus the Shannon entropy of the class sizes.
    With ``p = c / n`` this is ``sum(c log2 c) / n - log2 n``."""
    table = _xlog2x(1 << max(int(n), 1).bit_length())
    kernels = compiled(counts.size)
    if kernels is not None and counts.dtype == np.int32 and counts.flags.c_contiguous:
        sums = kernels.table_sums(counts, table)
    else:  # by columns of replies (the layout numpy counts in), with indices numpy need not convert
        sums = np.take(table, counts.T.astype(np.intp)).sum(axis=0)
    return np.asarray(sums / n - np.log2(n))


def _squares(counts: Array, n: int) -> Array:
    """``sum size²`` of each row, exactly: in int32 while ``n²`` fits (the
    class sizes sum to ``n``), which numpy multiplies and adds several times
    faster."""
    if counts.dtype == np.int32 and n <= 46_340:
        return np.asarray(np.einsum("ij,ij->i", counts, counts))
    return np.asarray((counts.astype(np.int64) ** 2).sum(axis=1))


def _parts(counts: Array) -> Array:
    """The number of non-empty classes of each row (bytes added up in
    int16: a row has far fewer than 32,768 classes)."""
    return np.asarray((counts > 0).view(np.int8).sum(axis=1, dtype=np.int16))


def expected_size(counts: Array, n: int) -> Array:
    """Expected size of the class that remains: ``sum size² / n``."""
    return np.asarray(_squares(counts, n) / n)


def sum_squares(counts: Array, n: int) -> Array:
    """``sum size²``."""
    return _squares(counts, n)


def fewer_parts(counts: Array, n: int) -> Array:
    """Minus the number of non-empty classes."""
    return np.asarray(-_parts(counts))


def spread(counts: Array, n: int) -> Array:
    """Standard deviation of the non-empty class sizes (population)."""
    parts = _parts(counts)
    mean = n / parts
    return np.asarray(np.sqrt(np.maximum(_squares(counts, n) / parts - mean**2, 0.0)))


def _sizes_shown(key: Array) -> list[int]:
    return [int(v) for v in key if v]


PRESETS: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    """Add a strategy to :data:`PRESETS` under its name."""
    PRESETS[strategy.name] = strategy
    return strategy


register(
    Strategy(
        "simple",
        "Always guess the first code still possible, in ascending order.",
        "Shapiro 1983, “Playing Mastermind logically”, SIGART Newsletter 85; Kooi 2005",
        candidates_only=True,
    )
)
register(
    Strategy(
        "random",
        "Guess a code still possible, chosen uniformly at random (seedable).",
        "common folklore; a classic blog solver",
        candidates_only=True,
        random=True,
    )
)
register(
    Strategy(
        "knuth",
        "Minimise the size of the largest class the guess can leave.",
        "Knuth 1976, “The computer as master mind”, J. Recreational Mathematics 9",
        (Criterion("largest class", largest, int),),
    )
)
register(
    Strategy(
        "minimax-lex",
        "Minimise the largest class, then the second largest, and so on.",
        "a refinement of Knuth's rule",
        (Criterion("class sizes", sizes_descending, _sizes_shown, first=largest, packed=sizes_packed),),
    )
)
register(
    Strategy(
        "entropy",
        "Maximise the Shannon entropy of the class sizes (information gained).",
        "Neuwirth 1982, “Some strategies for Mastermind”, Zeitschrift für Operations Research 26; "
        "Bestavros & Belal 1986, “MasterMind: a game of diagnosis strategies”",
        (Criterion("entropy (bits)", negative_entropy, lambda v: round(-float(v), 6), 1e-9),),
    )
)
register(
    Strategy(
        "irving",
        "Minimise the expected size of the class that remains.",
        "Irving 1979, “Towards an optimum Mastermind strategy”, J. Recreational Mathematics 11",
        (Criterion("expected size", expected_size, lambda v: round(float(v), 6), 1e-9),),
    )
)
register(
    Strategy(
        "most-parts",
        "Maximise the number of non-empty classes.",
        "Kooi 2005, “Yet another Mastermind strategy”, ICGA Journal 28",
        (Criterion("classes", fewer_parts, lambda v: -int(v)),),
    )
)
register(
    Strategy(
        "widedev",
        "Maximise the number of classes, then minimise the spread of their sizes.",
        "Dowell",
        (
            Criterion("classes", fewer_parts, lambda v: -int(v)),
            Criterion("std dev of sizes", spread, lambda v: round(float(v), 6), 1e-9),
        ),
    )
)
register(
    Strategy(
        "longrect",
        "Maximise the number of classes, then minimise the largest class.",
        "Dowell",
        (Criterion("classes", fewer_parts, lambda v: -int(v)), Criterion("largest class", largest, int)),
    )
)
register(
    Strategy(
        "minimax-avg",
        "Minimise the largest class, then the sum of squared class sizes; no preference for codes still possible.",
        "a Brain Breaker solver",
        (Criterion("largest class", largest, int), Criterion("sum of squares", sum_squares, int)),
        prefer_candidates=False,
        first_candidate_at=2,
    )
)


# What a page or a command plays when no strategy is named: Knuth's algorithm.
DEFAULT_STRATEGY = "knuth"


def get_strategy(name: str) -> Strategy:
    """The preset called ``name``."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        shown = str(name)[:24] + ("…" if len(str(name)) > 24 else "")
        raise StrategyError("unknown-strategy", given=shown, choices=list(PRESETS)) from None


def fitting(strategy: Strategy) -> Strategy:
    """``strategy`` for hard mode, where every guess must fit every reply so
    far: the same scores and tie-breaks over the codes still possible alone.
    A strategy that chooses for itself (optimal play) has no such form.

    >>> size = GameSize()
    >>> history = [(Code.parse("1122", size), Feedback(1, 1))]
    >>> hard = fitting(get_strategy("knuth"))
    >>> str(best_guess("knuth", size, history).guess), str(best_guess(hard, size, history).guess)
    ('1134', '1314')
    """
    if strategy.chooser is not None:
        raise StrategyError("no-hard-mode", strategy=strategy.name)
    return replace(strategy, candidates_only=True)


# --- the guess pool, reduced by symmetry --------------------------------------------------


def colors_mask(size: GameSize, index: int) -> int:
    """Bit mask of the (0-based) colours in the code at ``index``."""
    mask = 0
    for color in code_digits(size.pegs, size.colors)[index]:
        mask |= 1 << int(color)
    return mask


# Guess pools kept per process, in bytes (a 6×9 pool after one guess is
# about 4 MiB; the classic game's are a few kilobytes).
POOL_CACHE_BYTES = 32 * 2**20


# The pools' lock is taken across every fork and released on both sides, so
# a forked process (a tree's classes shared, see ``tree.fork``) never starts
# with it held by another thread of its parent, which it does not have.
POOLS_LOCK = threading.Lock()
os.register_at_fork(before=POOLS_LOCK.acquire, after_in_parent=POOLS_LOCK.release, after_in_child=POOLS_LOCK.release)


@cached(LRUCache(maxsize=POOL_CACHE_BYTES, getsizeof=lambda pool: pool.nbytes + 64), lock=POOLS_LOCK)
def guess_pool(pegs: int, colors: int, played: int, distinct: bool = False) -> np.ndarray:
    """Indices of the guesses worth scoring when the colours in bit mask
    ``played`` have been used so far (with ``distinct``, only guesses of
    different colours are allowed).

    Colours never played are interchangeable, so of each set of guesses that
    differ only by renaming them we keep the first in ascending order: the
    unplayed colours must first appear as the smallest unplayed ones, in
    increasing order. Before any guess, positions are interchangeable too and
    one code per pattern remains (``1111, 1112, 1122, 1123, 1234``).
    """
    digits = code_digits(pegs, colors)
    if played == 0:
        pool = np.array(sorted(pattern_codes(pegs, colors)), dtype=np.int64)
    else:
        n = digits.shape[0]
        unplayed = [c for c in range(colors) if not played >> c & 1]
        expected = np.full(colors + 1, 255, dtype=np.int16)
        expected[: len(unplayed)] = unplayed
        seen = np.zeros(n, dtype=np.int64)
        fresh = np.zeros(n, dtype=np.int64)
        keep = np.ones(n, dtype=bool)
        for i in range(pegs):
            color = digits[:, i].astype(np.int64)
            bit = np.left_shift(1, color)
            is_new = ((played & bit) == 0) & ((seen & bit) == 0)
            keep &= ~is_new | (color == expected[fresh])
            fresh += is_new
            seen |= bit
        pool = np.flatnonzero(keep).astype(np.int64)
    if distinct:
        pool = pool[color_counts(pegs, colors)[pool].max(axis=1) <= 1]
    pool.flags.writeable = False
    return pool


def pool_of(size: GameSize, played: int) -> np.ndarray:
    """:func:`guess_pool` for a game size and its rule for guesses."""
    return guess_pool(size.pegs, size.colors, played, size.distinct_guesses)


def pattern_codes(pegs: int, colors: int, largest: int | None = None, first: int = 0) -> Iterator[int]:
    """The index of one code per pattern: colour ``first`` repeated as often
    as the pattern's largest part, the next colour for the next part, and so
    on (parts non-increasing, at most ``colors`` of them): the integer
    partitions of ``pegs``.

    >>> sorted(pattern_codes(4, 6))  # 1111, 1112, 1122, 1123, 1234
    [0, 1, 7, 8, 51]
    """
    if pegs == 0:
        yield 0
        return
    if first >= colors:
        return
    for part in range(min(pegs, largest or pegs), 0, -1):
        for rest in pattern_codes(pegs - part, colors, part, first + 1):
            # ``part`` pegs of colour ``first``, then the rest's pegs.
            yield first * sum(colors**i for i in range(pegs - part, pegs)) + rest


# --- choosing ------------------------------------------------------------------------------


def criteria_columns(strategy: Strategy, counts: Array, n: int) -> Iterator[tuple[Array, float]]:
    """Every key column the strategy compares, in order, with its tolerance."""
    for crit in strategy.criteria:
        key = np.asarray(crit.key(counts, n), dtype=np.float64)
        columns = key[:, None] if key.ndim == 1 else key
        for j in range(columns.shape[1]):
            yield columns[:, j], crit.tolerance


def best_rows(strategy: Strategy, counts: np.ndarray, n: int) -> np.ndarray:
    """Mask of the rows of ``counts`` that tie for best on every criterion,
    before the tie-breaks. Each column is compared among the rows still in
    the running only (the same answer as comparing every row, column by
    column, for far less work when the first column already decides)."""
    rows = np.arange(counts.shape[0])

    def running() -> Array:  # the rows still in the running (no copy while that is all of them)
        return counts if rows.size == counts.shape[0] else counts[rows]

    for crit in strategy.criteria:
        if crit.first is not None and rows.size > 1:
            column = np.asarray(crit.first(running(), n), dtype=np.float64)
            rows = rows[column <= column.min() + crit.tolerance]
        if rows.size <= 1:
            break
        packed = crit.packed(running(), n) if crit.packed is not None else None
        key = np.asarray(crit.key(running(), n) if packed is None else packed, dtype=np.float64)
        columns = key[:, None] if key.ndim == 1 else key
        for j in range(columns.shape[1]):
            column = columns[:, j]
            keep = column <= column.min() + crit.tolerance
            if not keep.all():
                columns, rows = columns[keep], rows[keep]
            if rows.size <= 1:
                break
    alive = np.zeros(counts.shape[0], dtype=bool)
    alive[rows] = True
    return alive


def without_dead_variants(digits: Array, pool: Array, cands: Array, colors: int, distinct: bool) -> Array:
    """The guesses of ``pool`` (ascending) worth scoring against ``cands``
    when some colours are "dead", in no candidate: a dead peg never matches,
    whichever dead colour it holds, so guesses that differ only there split
    the candidates alike (and none is a candidate). Of each such set the
    smallest is kept, which the tie-breaks would take: with every dead peg
    turned to the smallest dead colour, when that code is in the pool; when
    guesses use different colours, the one whose dead pegs, left to right,
    hold the smallest dead colours in increasing order (in the pool too:
    colours never played are all dead or all alive, and the pool writes
    them in that order). numpy; the compiled kernels have their own."""
    alive = np.zeros(colors, dtype=bool)
    alive[digits[cands].ravel()] = True
    dead_colors = np.flatnonzero(~alive)
    if dead_colors.shape[0] < 2:  # one dead colour makes no twins
        return pool
    if distinct:
        codes = digits[pool]
        dead = ~alive[codes]
        rank = np.cumsum(dead, axis=1) - 1  # the how-manieth dead peg each is
        wanted = dead_colors[np.minimum(rank, dead_colors.shape[0] - 1)]
        kept: Array = pool[(~dead | (codes == wanted)).all(axis=1)]
        return kept
    # Each guess's twin, its dead pegs turned to the lowest dead colour, from
    # two small tables: the twins of its first pegs and of its last ones.
    pegs, lowest = digits.shape[1], int(dead_colors[0])
    half = pegs // 2
    tail = colors ** (pegs - half)

    def twins_of_parts(k: int) -> Array:
        parts = code_digits(k, colors).astype(np.int64)
        folded: Array = np.where(alive[parts], parts, lowest) @ (colors ** np.arange(k - 1, -1, -1))
        return folded

    twins = twins_of_parts(half)[pool // tail] * tail + twins_of_parts(pegs - half)[pool % tail]
    in_pool = np.zeros(digits.shape[0], dtype=bool)
    in_pool[pool] = True
    kept = pool[~((twins != pool) & in_pool[twins])]
    return kept


def _select(strategy: Strategy, counts: np.ndarray, n: int, is_candidate: np.ndarray) -> int:
    """Row of ``counts`` that wins on the criteria and the tie-breaks; rows are
    in ascending order of code."""
    alive = best_rows(strategy, counts, n)
    if strategy.prefer_candidates and (alive & is_candidate).any():
        alive &= is_candidate
    return int(np.argmax(alive))


def choose(
    strategy: Strategy,
    table: FeedbackTable,
    cands: np.ndarray,
    pool: np.ndarray,
    rng: np.random.Generator | None = None,
    max_pairs: Budget | int = MAX_PAIRS,
    *,
    size: GameSize | None = None,
    played: int = 0,
    depth: int = 1,
) -> int:
    """Index of the next guess for candidate indices ``cands`` (ascending),
    at guess number ``depth`` after the colours in ``played`` were used.
    ``max_pairs`` bounds the scoring: a number of pairs, or a :class:`Budget`
    shared with other calls."""
    n = cands.shape[0]
    budget = budget_of(max_pairs)
    if strategy.chooser is not None:
        if size is None:
            raise StrategyError("strategy-needs-size", strategy=strategy.name)
        if strategy.available(size) and not strategy.quick(size, cands):
            budget.allow_search(TooSlow("guess-needs-search", strategy=strategy.name))
        return strategy.chooser(size, cands, played, depth)
    if n <= strategy.first_candidate_at or (strategy.candidates_only and not strategy.criteria):
        if strategy.random and n > 1:
            rng = rng if rng is not None else np.random.default_rng()
            return int(cands[rng.integers(n)])
        return int(cands[0])
    if strategy.candidates_only:
        pool = cands
    if strategy.perfect_split_wins and strategy.prefer_candidates and n <= table.replies:
        # A guess that gives every candidate its own reply beats any other;
        # among such guesses the tie-breaks pick a candidate, then the first.
        first = table.first_perfect_split(cands, cands)
        if first >= 0:
            return int(cands[first])
    scored = pool.shape[0] * n  # what the budget counts (the pool before reduction)
    kernels = compiled(scored)
    if not strategy.candidates_only:
        # Guesses that differ only in colours no candidate has score alike:
        # only the first of them (the one the tie-breaks would take) is
        # scored. The first to split the candidates perfectly is never
        # dropped either: a smaller twin would split them alike.
        # (In numpy, only where each pair's reply is worked out, not read off
        # a kept matrix: reading is cheaper than the sorting out.)
        distinct = size is not None and size.distinct_guesses
        if kernels is not None and not distinct:
            pool = kernels.without_dead_variants(table.digits, pool, cands, table.colors)
        elif kernels is None and table.kept(pool, cands) is None:
            pool = without_dead_variants(table.digits, pool, cands, table.colors, distinct)
    counts = None
    if strategy.perfect_split_wins:
        first, counts = table.perfect_or_counts(pool, cands)
        if first >= 0:
            return int(pool[first])
    budget.spend(scored, TooSlow("guess-too-slow", codes=n, guesses=scored // n))
    if counts is None:
        counts = table.class_counts(pool, cands)
    in_cands = np.zeros(table.digits.shape[0], dtype=bool)
    in_cands[cands] = True
    return int(pool[_select(strategy, counts, n, in_cands[pool])])


@dataclass
class Suggestion:
    """A strategy's next guess, its score and the partition it makes."""

    strategy: Strategy
    guess: Code
    remaining: int
    score: JSON
    partition: dict[Feedback, int] = field(default_factory=dict)

    @property
    def is_candidate(self) -> bool:
        return self.partition.get(Feedback(len(self.guess.pegs), 0), 0) > 0


def played_mask(size: GameSize, history: History) -> int:
    """Bit mask of every colour used in the history's guesses."""
    mask = 0
    for guess, _ in history:
        for peg in guess.pegs:
            mask |= 1 << (peg - 1)
    return mask


def best_guess(
    strategy: Strategy | str,
    size: GameSize,
    history: History = (),
    rng: np.random.Generator | None = None,
    table: FeedbackTable | None = None,
    max_pairs: Budget | int = MAX_PAIRS,
    cands: np.ndarray | None = None,
) -> Suggestion:
    """The guess ``strategy`` makes after ``history`` (``(Code, Feedback)``
    pairs), with its score and the partition of the candidates it makes
    (``cands``: the codes still possible, when the caller has them)."""
    if isinstance(strategy, str):
        strategy = get_strategy(strategy)
    table = table or feedback_table(size)
    cands = (candidates_after(size, history) if cands is None else cands).astype(np.int64)
    played = played_mask(size, history)
    pool = pool_of(size, played)
    index = choose(strategy, table, cands, pool, rng, max_pairs, size=size, played=played, depth=len(history) + 1)
    counts = table.class_counts(np.array([index]), cands)[0]
    partition = {Feedback.decode(fb, size.pegs): int(c) for fb, c in enumerate(counts) if c}
    return Suggestion(
        strategy,
        Code.from_index(index, size),
        int(cands.shape[0]),
        strategy.score(counts, int(cands.shape[0])),
        partition,
    )
