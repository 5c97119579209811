"""How good was each guess: a finished game measured against optimal play.

For a position (the ``n`` codes still possible) and a guess ``g``:

- **E(g)** = 1 + Σ over g's classes other than the winning one of
  (class size / n) × V(that class's position): the expected number of
  guesses from this move on, this one included, if every later guess is
  optimal and every code still possible is equally likely;
- **V** = the least E over every code (any code may be guessed), and V = 0
  once the secret is found.

Both are kept as totals over the ``n`` codes (integers, ``n × E`` and
``n × V``), so "best" is an exact comparison. They are exact wherever the
optimal search answers in reasonable time (see :func:`exact_fits`):
positions of boards up to :data:`EXACT_BOARD_CODES` codes, positions with at
most :data:`EXACT_POSITION_CODES` codes on boards the optimal search takes,
positions the shipped optimal trees contain (V, and E of the tree's own
guess), and positions with at most :data:`SMALL_EXACT_CODES` codes on any
board (a branch and bound of its own, over every code as a guess).
On Super Mastermind, where no optimum is known, a position on the searched
tree of the ``best`` strategy is measured against that tree (``known``):
V is the tree's total, and E of another guess is that guess followed by the
best strategy (:data:`KNOWN_METHOD`). Elsewhere E and V are **estimates**,
labelled as such: one guess ahead, each class counted at the counting lower
bound (:func:`estimate`).

The engine states facts; the web layer words them. Nothing here imports
Flask or the store: a caller that keeps results passes ``memo``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .codes import JSON, Array, Code, Feedback, GameSize, History, secret_indices
from .optimal import (
    MAX_OPTIMAL_CODES,
    _classes,
    _solvers_lock,
    bounds_tables,
    set_key,
    shared_solver,
    shipped_choices,
)
from .strategies import Budget, TooSlow, colors_mask, played_mask, pool_of
from .tables import candidates, consistent, feedback_table

# Every position of a board with at most this many codes is reviewed exactly
# (the classic board's slowest first guess, 1111, takes about a second).
EXACT_BOARD_CODES = 1296
# On larger boards the optimal search takes (up to 7,776 codes), positions
# with at most this many codes are reviewed exactly.
EXACT_POSITION_CODES = 1000
# On any board, positions with at most this many codes are solved exactly by
# a small search over every code as a guess.
SMALL_EXACT_CODES = 30
# The small search may score at most this many (guess, code) pairs for one
# position (about ten seconds here): on a board of many codes (6 pegs, 6
# colours) even 20 codes can be out of its reach, and that move is estimated.
SMALL_EXACT_PAIRS = 50_000_000
# The exact search may visit at most this many positions for one reviewed
# position (about a minute here); past them that move is estimated.
EXACT_SEARCH_NODES = 4_000_000
# A best guess that could be the secret is looked for among the candidates
# of positions with at most this many codes.
CANDIDATE_CHECK_CODES = 200
# An estimate scores at most this many (guess, code) pairs.
ESTIMATE_PAIRS = 100_000_000

# A rating is the first whose largest loss (E - V, in guesses) is not exceeded.
RATINGS: tuple[tuple[str, float], ...] = (
    ("best", 0.0),
    ("excellent", 0.05),
    ("good", 0.15),
    ("inaccuracy", 0.35),
    ("mistake", 0.75),
    ("blunder", float("inf")),
)
ESTIMATE_METHOD = (
    "one guess ahead: each class the guess leaves is counted at the fewest guesses any "
    "strategy could need for it (the counting bound), so the figures are lower than "
    "optimal play's and only compare guesses with one another"
)
KNOWN_METHOD = (
    "the best strategy known: V is the searched tree's total for the position, and E of another guess is "
    "that guess followed by the tree where the game stays on it and by the entropy rule elsewhere; both are "
    "totals a player can reach, not the optimum"
)


def rating(loss: float, best: bool) -> str:
    """The word for a move that loses ``loss`` guesses on average (``best``:
    E equals V exactly)."""
    if best:
        return "best"
    for word, most in RATINGS[1:]:
        if loss <= most:
            return word
    return RATINGS[-1][0]  # pragma: no cover  (the last bound is infinite)


@dataclass(frozen=True)
class MoveReview:
    """One move: E of the guess, V of the position, a best guess, the luck of
    the reply (``None`` when only one reply was possible)."""

    move: int
    guess: Code
    reply: Feedback
    candidates: int
    expected_total: float  # n × E (an integer when exact)
    best_total: float  # n × V
    best_guess: Code
    luck: int | None
    exact: bool
    # Figures from the best strategy known (a searched tree), not estimates.
    known: bool = False

    @property
    def expected(self) -> float:
        return self.expected_total / self.candidates

    @property
    def best_expected(self) -> float:
        return self.best_total / self.candidates

    @property
    def loss(self) -> float:
        return max(0.0, self.expected - self.best_expected)

    @property
    def is_best(self) -> bool:
        return self.expected_total <= self.best_total

    @property
    def rating(self) -> str:
        return rating(self.loss, self.is_best)

    def json(self) -> JSON:
        return {
            "move": self.move,
            "guess": str(self.guess),
            "black": self.reply.black,
            "white": self.reply.white,
            "candidates": self.candidates,
            "expected": round(self.expected, 6),
            "best_expected": round(self.best_expected, 6),
            "best_guess": str(self.best_guess),
            "rating": self.rating,
            "luck": self.luck,
            "exact": self.exact,
            "known": self.known,
        }

    @classmethod
    def from_json(cls, data: JSON, size: GameSize) -> MoveReview:
        return cls(
            data["move"],
            Code.parse(data["guess"], size),
            Feedback(data["black"], data["white"]),
            data["candidates"],
            data["expected_total"],
            data["best_total"],
            Code.parse(data["best_guess"], size),
            data["luck"],
            data["exact"],
            data.get("known", False),
        )

    def stored(self) -> JSON:
        """What is kept per position: the totals, so nothing is rounded twice."""
        return {**self.json(), "expected_total": self.expected_total, "best_total": self.best_total}


@dataclass
class Review:
    size: GameSize
    moves: list[MoveReview]
    knuth: list[Code] | None = None  # Knuth's algorithm's game on the same secret
    won: bool = True

    @property
    def exact(self) -> bool:
        return all(m.exact for m in self.moves)

    @property
    def method(self) -> str | None:
        """How the figures that are not exact were had (None when all are)."""
        kinds = [KNOWN_METHOD if m.known else ESTIMATE_METHOD for m in self.moves if not m.exact]
        return "; ".join(dict.fromkeys(kinds)) or None

    @property
    def skill(self) -> int:
        """100 less a hundred times the guesses lost per move on average (at least 0)."""
        if not self.moves:
            return 100
        lost = sum(m.loss for m in self.moves) / len(self.moves)
        return max(0, min(100, round(100 - 100 * lost)))

    @property
    def luck(self) -> int | None:
        """The average luck of the replies that could have gone either way."""
        values = [m.luck for m in self.moves if m.luck is not None]
        return round(sum(values) / len(values)) if values else None

    @property
    def optimal_expected(self) -> float:
        """Optimal play's expected guesses for the whole game (V before the first guess)."""
        return self.moves[0].best_expected if self.moves else 0.0

    @property
    def player_expected(self) -> float:
        """The expected guesses of a player who plays as this one did: optimal
        play's, plus every guess's loss."""
        return self.optimal_expected + sum(m.loss for m in self.moves)

    def json(self) -> JSON:
        return {
            "exact": self.exact,
            "method": self.method,
            "skill": self.skill,
            "luck": self.luck,
            "guesses": len(self.moves),
            "won": self.won,
            "expected_guesses": round(self.player_expected, 4),
            "optimal_expected_guesses": round(self.optimal_expected, 4),
            "knuth": None if self.knuth is None else [str(g) for g in self.knuth],
            "moves": [m.json() for m in self.moves],
        }


# --- exact values -----------------------------------------------------------------------------


def subtree_totals(size: GameSize, choices: dict[bytes, int]) -> dict[bytes, tuple[int, int]]:
    """Candidate set → (the tree's total, its guess) for every node of a
    stored tree (``choices``: candidate set → guess)."""
    table = feedback_table(size)
    totals: dict[bytes, tuple[int, int]] = {}

    def visit(cands: Array) -> int:
        n = int(cands.shape[0])
        if n <= 2:
            return 2 * n - 1
        key = set_key(cands)
        guess = int(choices[key])
        total: int = n + sum(visit(c) for c in _classes(table.row(guess, cands), cands, size.solved))
        totals[key] = (total, guess)
        return total

    visit(secret_indices(size).astype(np.int64))
    return totals


@lru_cache(maxsize=8)
def tree_totals(size: GameSize) -> dict[bytes, tuple[int, int]] | None:
    """Candidate set → (optimal total, the tree's guess) for every node of the
    shipped optimal tree of ``size`` (its subtrees are optimal for their own
    positions, or the whole would not be), or None without one."""
    choices = shipped_choices(size, None)
    return None if choices is None else subtree_totals(size, choices)


@lru_cache(maxsize=4)
def searched_totals(size: GameSize) -> dict[bytes, tuple[int, int]] | None:
    """The same for the searched tree of the ``best`` strategy (Super
    Mastermind), whose totals are reachable but not known to be optimal."""
    from .best import searched, searched_choices

    return subtree_totals(size, searched_choices(size)) if searched(size) else None


class SmallSolver:
    """Exact totals of small candidate sets on any board, every code a
    possible guess (those that split the set alike are tried once)."""

    def __init__(self, size: GameSize):
        self.size = size
        self.table = feedback_table(size)
        self.lbtab, _ = bounds_tables(SMALL_EXACT_CODES + 1, self.table.replies - 1)
        self.memo: dict[bytes, tuple[int, int]] = {}

    def total(self, cands: Array, played: int, bound: int = 1 << 40, work: Budget | None = None) -> tuple[int, int]:
        """(optimal total, a guess reaching it) for ``cands``; a total at or
        above ``bound`` only says it is at least that much. Every position
        scored counts its pairs against ``work`` (``SMALL_EXACT_PAIRS`` for
        one call by default): past it, :class:`TooSlow`, and what was solved
        exactly on the way stays remembered."""
        work = Budget(SMALL_EXACT_PAIRS) if work is None else work
        n = int(cands.shape[0])
        if n <= 2:
            return 2 * n - 1, int(cands[0])
        key = set_key(cands)
        if key in self.memo:
            return self.memo[key]
        pool = pool_of(self.size, played)
        work.spend(len(pool) * n, TooSlow("small-search-too-long", codes=n, most=SMALL_EXACT_PAIRS))
        rows = np.ascontiguousarray(self.table.rows(pool, cands), dtype=np.int8)
        _, first = np.unique(rows.view(np.dtype((np.void, n))).ravel(), return_index=True)
        solved = self.size.solved
        # Every distinct row's class sizes at once: one count per (row, reply).
        width = max(self.table.replies, solved + 1)
        unique_rows = rows[first].astype(np.int64)
        flat = (unique_rows + np.arange(len(first), dtype=np.int64)[:, None] * width).ravel()
        sizes = np.bincount(flat, minlength=len(first) * width).reshape(len(first), width)
        wins = sizes[:, solved] > 0
        sizes[:, solved] = 0
        floors = n + self.lbtab[sizes].sum(axis=1)
        learns = wins | ((sizes > 0).sum(axis=1) > 1)  # one class and no win: learns nothing
        options = [
            (int(floors[k]), not bool(wins[k]), int(pool[index]), rows[index])
            for k, index in enumerate(first)
            if learns[k]
        ]
        options.sort(key=lambda o: (o[0], o[1], o[2]))
        best, best_guess, found = bound, int(cands[0]), False
        for floor, _, guess, row in options:
            if floor >= best:
                break
            running = floor
            played_next = played | colors_mask(self.size, guess)
            for members in sorted((cands[row == v] for v in np.unique(row) if v != solved), key=len):
                least = int(self.lbtab[members.shape[0]])
                value, _ = self.total(members, played_next, best - running + least, work)
                running += value - least
                if running >= best:
                    break
            if running < best:
                best, best_guess, found = running, guess, True
        if found:
            self.memo[key] = (best, best_guess)
        return best, best_guess


class Values:
    """Exact totals of positions of one size, wherever they can be had."""

    def __init__(self, size: GameSize):
        self.size = size
        self.solver = shared_solver(size, None) if size.n_codes <= MAX_OPTIMAL_CODES else None
        self.tree = tree_totals(size)
        self.known = searched_totals(size)
        self.small = SmallSolver(size)
        self.followed: dict[bytes, int] = {}  # totals of positions played by the best strategy

    def group(self, history: History) -> Array | None:
        """The symmetries that fix every guess of ``history`` (for the search)."""
        if self.solver is None:
            return None
        from .search_kernels import child_group

        group, played = self.solver.all_symmetries, 0
        for guess, _ in history:
            index = guess.index(self.size)
            group = child_group(group, self.solver.digits, index, played)
            played |= int(self.solver.colmask[index])
        return group

    def searchable(self, n: int) -> bool:
        return n <= SMALL_EXACT_CODES or (
            self.solver is not None and (self.size.n_codes <= EXACT_BOARD_CODES or n <= EXACT_POSITION_CODES)
        )

    def best(
        self, cands: Array, played: int, depth: int, group: Array | None, work: Budget | None = None
    ) -> tuple[int, int]:
        """(V total, an optimal guess) of a position the caller knows is within
        reach (the small search's pairs counted against ``work``)."""
        n = int(cands.shape[0])
        if n <= 2:
            return 2 * n - 1, int(cands[0])
        if self.tree is not None and (hit := self.tree.get(set_key(cands))) is not None:
            return hit
        if self.solver is None:
            return self.small.total(cands, played, work=work)
        from .search_kernels import position_key, table_get

        solver = self.solver
        with _solvers_lock:
            depth_left = solver.depth_left(depth)
            total = solver._run(cands, played, depth_left, group=group, nodes=EXACT_SEARCH_NODES)
            key = int(position_key(np.ascontiguousarray(cands, dtype=np.int64), solver.zobrist, depth_left))
            guess = int(table_get(solver.table_t, key))
            solver.bound_memory()
        return int(total), guess

    def of_guess(
        self,
        guess: int,
        cands: Array,
        played: int,
        depth: int,
        group: Array | None,
        bound: float = float("inf"),
        work: Budget | None = None,
    ) -> float:
        """n × E of ``guess`` (exactly, or at least ``bound`` once it reaches it)."""
        n = int(cands.shape[0])
        table = feedback_table(self.size)
        replies = table.row(guess, cands)
        played_next = played | colors_mask(self.size, guess)
        child = None
        if group is not None and self.solver is not None:
            from .search_kernels import child_group

            child = child_group(group, self.solver.digits, guess, played)
        classes = sorted((cands[replies == r] for r in np.unique(replies) if r != self.size.solved), key=len)
        if len(classes) == 1 and classes[0].shape[0] == n:
            # The guess learns nothing: E = 1 + V of the same position.
            return n + self.best(cands, played_next, depth + 1, child, work)[0]
        running = n
        for members in classes:
            running += self.best(members, played_next, depth + 1, child, work)[0]
            if running >= bound:
                return running
        return running

    def known_of_guess(self, guess: int, cands: Array, played: int) -> int:
        """n × E of ``guess`` when the best strategy plays on after it: the
        searched tree where the position is on it, the entropy rule elsewhere."""
        n = int(cands.shape[0])
        table = feedback_table(self.size)
        played_next = played | colors_mask(self.size, guess)
        return n + sum(
            self.followed_total(c, played_next) for c in _classes(table.row(guess, cands), cands, self.size.solved)
        )

    def followed_total(self, cands: Array, played: int) -> int:
        """The total of the best strategy from this position."""
        from .best import best_chooser

        n = int(cands.shape[0])
        if n <= 2:
            return 2 * n - 1
        key = set_key(cands)
        if self.known is not None and (hit := self.known.get(key)) is not None:
            return hit[0]
        if key not in self.followed:
            table = feedback_table(self.size)
            guess = best_chooser(self.size, cands, played, 0)  # off the tree, the entropy rule
            played_next = played | colors_mask(self.size, guess)
            self.followed[key] = n + sum(
                self.followed_total(c, played_next) for c in _classes(table.row(guess, cands), cands, self.size.solved)
            )
        return self.followed[key]


# --- estimates --------------------------------------------------------------------------------


def estimate(size: GameSize, cands: Array, played: int, guess: int) -> tuple[float, float, int]:
    """(n × E, n × V, best guess) one guess ahead with each class counted at
    its counting bound; V over the colour-symmetry pool (as many guesses as
    :data:`ESTIMATE_PAIRS` allows, the candidates and ``guess`` always among them)."""
    table = feedback_table(size)
    n = int(cands.shape[0])
    lbtab, _ = bounds_tables(n, table.replies - 1)
    pool = pool_of(size, played)
    keep = max(1, ESTIMATE_PAIRS // max(n, 1))
    guesses = np.unique(np.concatenate([pool[:keep], cands[:keep], [guess]])).astype(np.int64)
    counts = table.class_counts(guesses, cands).astype(np.int64)
    counts[:, size.solved] = 0
    totals = n + lbtab[counts].sum(axis=1) - lbtab[0] * counts.shape[1]
    is_candidate = np.isin(guesses, cands)
    order = np.lexsort((guesses, ~is_candidate, totals))
    best = int(order[0])
    mine = int(np.flatnonzero(guesses == guess)[0])
    return float(totals[mine]), float(totals[best]), int(guesses[best])


# --- the review -------------------------------------------------------------------------------


def luck_of(counts: np.ndarray, reply: int, solved: int) -> int | None:
    """Where ``reply`` fell among the replies the guess could get, as a
    percentile: the chance that a reply would have left more codes, plus half
    the chance of one leaving as many (the winning reply leaves none).
    None when only one reply was possible."""
    sizes = counts.astype(np.int64).copy()
    n = int(sizes.sum())
    if np.count_nonzero(sizes) <= 1:
        return None
    left = np.where(np.arange(sizes.shape[0]) == solved, 0, sizes)
    mine = int(left[reply])
    worse = int(sizes[left > mine].sum())
    same = int(sizes[left == mine].sum())
    return round(100 * (worse + same / 2) / n)


def exact_move(
    size: GameSize, values: Values, history: History, cands: Array, guess: Code, reply: Feedback, luck: int | None
) -> MoveReview:
    """A move measured exactly: V of the position and E of the guess, within
    one budget of ``SMALL_EXACT_PAIRS`` for every small search they need
    (:class:`TooSlow` past it)."""
    work = Budget(SMALL_EXACT_PAIRS)
    n = int(cands.shape[0])
    played = played_mask(size, history)
    depth = len(history) + 1
    g = guess.index(size)
    group = values.group(history)
    best_total, best_guess = values.best(cands, played, depth, group, work)
    mine = best_total if g == best_guess else values.of_guess(g, cands, played, depth, group, work=work)
    if not np.isin(best_guess, cands) and values.searchable(n) and n <= CANDIDATE_CHECK_CODES:
        # Prefer a best guess that could be the secret.
        for c in cands:
            if int(c) == best_guess:
                continue
            if values.of_guess(int(c), cands, played, depth, group, bound=best_total + 1, work=work) == best_total:
                best_guess = int(c)
                break
    if mine <= best_total and (np.isin(g, cands) or not np.isin(best_guess, cands)):
        best_guess = g  # the player's own guess is as good, and as likely to be the secret
    return MoveReview(
        depth, guess, reply, n, float(mine), float(best_total), Code.from_index(best_guess, size), luck, True
    )


def review_move(
    size: GameSize,
    history: History,
    guess: Code,
    reply: Feedback,
    values: Values | None = None,
) -> MoveReview:
    """The review of one move: ``guess`` answered by ``reply`` after ``history``."""

    values = values or Values(size)
    cands = candidates(size, history).astype(np.int64)
    n = int(cands.shape[0])
    played = played_mask(size, history)
    depth = len(history) + 1
    g = guess.index(size)
    table = feedback_table(size)
    counts = table.class_counts(np.array([g]), cands)[0]
    luck = luck_of(counts, reply.encode(size.pegs), size.solved)
    in_tree = values.tree.get(set_key(cands)) if values.tree is not None else None
    if values.searchable(n) or (in_tree is not None and in_tree[1] == g):
        try:
            return exact_move(size, values, history, cands, guess, reply, luck)
        except TooSlow:  # beyond the small search's reach on this board: estimated below
            pass
    known = values.known.get(set_key(cands)) if values.known is not None else None
    if known is not None:
        total, tree_guess = known
        mine = total if g == tree_guess else values.known_of_guess(g, cands, played)
        best_guess = g if mine < total else tree_guess
        return MoveReview(
            depth,
            guess,
            reply,
            n,
            float(mine),
            float(min(total, mine)),
            Code.from_index(best_guess, size),
            luck,
            False,
            known=True,
        )
    mine_est, best_est, best_guess = estimate(size, cands, played, g)
    return MoveReview(
        depth, guess, reply, n, mine_est, min(best_est, mine_est), Code.from_index(best_guess, size), luck, False
    )


Memo = Callable[[JSON, Callable[[], JSON]], JSON]


def position_params(size: GameSize, history: History, guess: Code) -> JSON:
    """What names one reviewed move (the position and the guess)."""
    return {
        "pegs": size.pegs,
        "colors": size.colors,
        "distinct": size.distinct,
        "distinct_guesses": size.distinct_guesses,
        "history": [[str(g), r.black, r.white] for g, r in history],
        "guess": str(guess),
    }


_values_lock = threading.Lock()


@lru_cache(maxsize=4)
def _shared_values(size: GameSize) -> Values:
    return Values(size)


def shared_values(size: GameSize) -> Values:
    with _values_lock:
        return _shared_values(size)


def review_game(
    size: GameSize,
    history: History,
    memo: Memo | None = None,
    progress: Callable[[float], None] | None = None,
) -> list[MoveReview]:
    """Every move of a finished game reviewed, in order (``memo`` keeps and
    returns each move's result by its position)."""
    out: list[MoveReview] = []
    values: Values | None = None
    for i, (guess, reply) in enumerate(history):
        before = tuple(history[:i])

        def compute(before: History = before, guess: Code = guess, reply: Feedback = reply) -> JSON:
            nonlocal values
            values = values or shared_values(size)
            return review_move(size, before, guess, reply, values).stored()

        params = position_params(size, before, guess)
        data = memo(params, compute) if memo is not None else compute()
        out.append(MoveReview.from_json(data, size))
        if progress is not None:
            progress((i + 1) / len(history))
    return out


def positions(size: GameSize, history: History) -> list[tuple[History, Code, Feedback, int]]:
    """Each move of ``history`` with the moves before it and how many codes
    were possible before it."""

    out: list[tuple[History, Code, Feedback, int]] = []
    cands = secret_indices(size)
    for i, (guess, reply) in enumerate(history):
        out.append((tuple(history[:i]), guess, reply, int(cands.shape[0])))
        cands = consistent(size, cands, guess, reply)
    return out


# A position with at most this many codes, on a board of at most
# QUICK_BOARD_CODES codes, is reviewed while the page waits; so is every
# position of a board of at most QUICK_ANY_CODES codes.
QUICK_POSITION_CODES = 60
QUICK_BOARD_CODES = 1296
QUICK_ANY_CODES = 81


def quick(size: GameSize, n: int) -> bool:
    """Whether a move whose position has ``n`` codes is reviewed in a blink."""
    return (
        n <= 2 or size.n_codes <= QUICK_ANY_CODES or (n <= QUICK_POSITION_CODES and size.n_codes <= QUICK_BOARD_CODES)
    )
