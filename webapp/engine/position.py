"""One position explained: what a strategy guesses next, and why.

The classroom page and the step API render :func:`describe`; nothing else
decides what a position shows (the candidates, the chosen guess and its
partition, the best guesses by the strategy's own score, and one sentence
saying which rule or tie-break made the choice).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .codes import JSON, Array, Code, Feedback, GameSize, History, feedback, guess_indices
from .strategies import (
    MAX_PAIRS,
    Budget,
    Strategy,
    Suggestion,
    TooSlow,
    best_guess,
    best_rows,
    budget_of,
    criteria_columns,
    played_mask,
    pool_of,
)
from .tables import candidates, feedback_table

# The codes still possible are listed (in a position, on a line's row) when
# there are at most this many.
LISTED_CODES = 20
# How many of the best guesses a position lists.
TOP = 10
# The top list scores every code when that is this many (guess, code) pairs
# or fewer; otherwise one guess per set of guesses that symmetry makes alike.
FULL_POOL_PAIRS = 8_000_000


@dataclass(frozen=True)
class Ranked:
    """A guess in the top list, with the strategy's score of it."""

    guess: Code
    score: JSON
    is_candidate: bool


@dataclass(frozen=True)
class Why:
    """The facts behind a position's guess, free of any language (the web
    layer words them): ``kind`` is ``solved`` (``guess`` found in ``n``
    guesses), ``one-left``, ``tree`` (read off the exact optimal tree),
    ``searched`` (a position off the shipped optimal tree: searched from there),
    ``searched-tree`` (read off a tree searched by ``mastermind improve``),
    ``off-tree`` (a game that left that tree: the entropy rule plays),
    ``first-candidate`` (a strategy that guesses the first of few codes),
    ``random``, ``first-in-order``, or ``scored``: ``guess`` scores best
    (``score``), tied with ``ties - 1`` others of the ``scored`` guesses of
    ``pool``, ``tied_candidates`` of the tied could be the secret, and the
    strategy does or does not prefer those. ``none``: nothing to explain."""

    kind: str
    guess: str = ""
    n: int = 0
    strategy: str = ""
    score: JSON = field(default_factory=dict)
    ties: int = 1
    tied_candidates: int = 0
    scored: int = 0
    pool: str = ""
    prefer_candidates: bool = True
    is_candidate: bool = False


# Which guesses a position's top list scored: every code, every code the rule
# allows, the codes still possible, one per pattern (before any guess), or one
# per set that differs only in colours not yet played.
POOLS = ("every", "every-distinct", "candidates", "patterns", "unplayed")


@dataclass
class Position:
    """Everything the classroom shows about one position."""

    size: GameSize
    strategy: Strategy
    history: tuple[tuple[Code, Feedback], ...]
    candidates: np.ndarray
    suggestion: Suggestion | None  # None once the code has been found
    why: Why
    top: list[Ranked] = field(default_factory=list)
    scored: int = 0  # how many guesses the top list ranked
    pool: str = ""  # which guesses those were: one of POOLS

    @property
    def solved(self) -> bool:
        return bool(self.history) and self.history[-1][1].black == self.size.pegs

    @property
    def remaining(self) -> int:
        return int(self.candidates.shape[0])

    def codes(self, limit: int = LISTED_CODES) -> list[Code]:
        """The candidates as codes when there are at most ``limit``, else none."""
        if self.remaining > limit:
            return []
        return [Code.from_index(i, self.size) for i in self.candidates]

    def json(self) -> JSON:
        """The step API's answer."""
        data = {
            "pegs": self.size.pegs,
            "colors": self.size.colors,
            "distinct": self.size.distinct,
            "distinct_guesses": self.size.distinct_guesses,
            "strategy": self.strategy.name,
            "history": [{"guess": str(g), "black": r.black, "white": r.white} for g, r in self.history],
            "solved": self.solved,
            "candidates": self.remaining,
        }
        if self.remaining <= LISTED_CODES:
            data["codes"] = [str(c) for c in self.codes()]
        if self.suggestion is not None:
            s = self.suggestion
            data.update(
                {
                    "guess": str(s.guess),
                    "score": s.score,
                    "is_candidate": s.is_candidate,
                    "partition": {r.key: n for r, n in sorted(s.partition.items())},
                }
            )
        data["top"] = [{"guess": str(r.guess), "score": r.score, "is_candidate": r.is_candidate} for r in self.top]
        return data


def unscored_reason(strategy: Strategy, size: GameSize, cands: Array, guess: Code) -> Why:
    """Why a strategy that compares no scores here chose ``guess``."""
    n = int(cands.shape[0])
    if n == 1:
        kind = "one-left"
    elif strategy.chooser is not None:
        kind = strategy.source(size, cands)
    elif n <= strategy.first_candidate_at:
        kind = "first-candidate"
    elif strategy.random:
        kind = "random"
    else:
        kind = "first-in-order"
    return Why(kind, str(guess), n, strategy.name)


def _sort_keys(
    strategy: Strategy, counts: np.ndarray, n: int, pool: np.ndarray, is_candidate: np.ndarray
) -> list[np.ndarray]:
    """Keys that rank the rows as the strategy does, most significant first.
    Values within a criterion's tolerance are rounded together."""
    keys = []
    for column, tolerance in criteria_columns(strategy, counts, n):
        keys.append(np.round(column / tolerance) if tolerance else column)
    if strategy.prefer_candidates:
        keys.append(~is_candidate)
    keys.append(pool)
    return keys


def why_facts(
    strategy: Strategy, suggestion: Suggestion, ties: int, tied_candidates: int, scored: int, pool: str
) -> Why:
    """Which score and which tie-break chose the guess."""
    return Why(
        "scored",
        str(suggestion.guess),
        suggestion.remaining,
        strategy.name,
        suggestion.score,
        ties,
        tied_candidates,
        scored,
        pool,
        strategy.prefer_candidates,
        suggestion.is_candidate,
    )


def describe(
    strategy: Strategy,
    size: GameSize,
    history: History = (),
    *,
    rng: np.random.Generator | None = None,
    max_pairs: Budget | int = MAX_PAIRS,
    top: int = TOP,
    suggestion: Suggestion | None = None,
) -> Position:
    """The position after ``history``: its candidates, the guess ``strategy``
    makes, the partition and the ``top`` best guesses by its score, and why.
    ``suggestion``: the strategy's choice here, already worked out (by a
    background search), so it is not chosen again.

    >>> from webapp.engine import get_strategy
    >>> p = describe(get_strategy("knuth"), GameSize())
    >>> str(p.suggestion.guess), p.remaining, p.top[0].score
    ('1122', 1296, {'largest class': 256})
    """
    history = tuple(history)
    budget = budget_of(max_pairs)
    cands = candidates(size, history).astype(np.int64)
    if history and history[-1][1].black == size.pegs:
        return Position(
            size,
            strategy,
            history,
            cands,
            None,
            Why("solved", str(history[-1][0]), len(history), strategy.name),
        )
    if suggestion is None:
        if not strategy.quick(size, cands):
            raise TooSlow("position-needs-search", strategy=strategy.name)
        suggestion = best_guess(strategy, size, history, rng=rng, table=feedback_table(size), max_pairs=budget)
    n = int(cands.shape[0])
    if top == 0:  # only the choice is wanted (the tree view)
        return Position(size, strategy, history, cands, suggestion, Why("none"))
    if not strategy.criteria or n <= strategy.first_candidate_at or strategy.chooser is not None:
        return Position(
            size, strategy, history, cands, suggestion, unscored_reason(strategy, size, cands, suggestion.guess)
        )

    chosen = suggestion.guess.index(size)
    played = played_mask(size, history)
    if strategy.candidates_only:
        pool, words = cands, "candidates"
    elif size.n_codes * n <= FULL_POOL_PAIRS:
        pool = guess_indices(size).astype(np.int64)
        words = "every-distinct" if size.distinct_guesses else "every"
    else:
        pool = pool_of(size, played)
        words = "patterns" if played == 0 else "unplayed"
        pool = np.union1d(pool, [chosen]).astype(np.int64)
    budget.spend(pool.shape[0] * n, TooSlow("ranking-too-slow", codes=n, guesses=pool.shape[0]))
    counts = feedback_table(size).class_counts(pool, cands)
    is_candidate = np.isin(pool, cands, assume_unique=True)
    alive = best_rows(strategy, counts, n)
    order = np.lexsort(tuple(reversed(_sort_keys(strategy, counts, n, pool, is_candidate))))
    chosen_row = int(np.searchsorted(pool, chosen))
    rows = [chosen_row] + [int(r) for r in order[: top + 1] if r != chosen_row][: top - 1]
    ranked = [Ranked(Code.from_index(pool[r], size), strategy.score(counts[r], n), bool(is_candidate[r])) for r in rows]
    why = why_facts(
        strategy, suggestion, int(alive.sum()), int((alive & is_candidate).sum()), int(pool.shape[0]), words
    )
    return Position(size, strategy, history, cands, suggestion, why, ranked, int(pool.shape[0]), words)


def description_cost(strategy: Strategy, size: GameSize, remaining: int, played: int) -> int:
    """At most how many (guess, code) pairs :func:`describe` scores at a
    position of ``remaining`` codes after the colours in bit mask ``played``
    were guessed: the strategy's choice and the ranking of its top list.
    More colours played, or more codes, never cost less; with every colour
    played it bounds every later position of the game.

    >>> from webapp.engine import get_strategy
    >>> knuth, spent = get_strategy("knuth"), Budget()
    >>> _ = describe(knuth, GameSize(), max_pairs=spent)  # five patterns scored, then every code ranked
    >>> spent.spent, description_cost(knuth, GameSize(), 1296, 0)
    (1686096, 1686096)
    """
    if strategy.chooser is not None or not strategy.criteria or remaining <= strategy.first_candidate_at:
        return 0
    if strategy.candidates_only:
        return 2 * remaining * remaining
    pool = int(pool_of(size, played).shape[0])
    ranked = int(guess_indices(size).shape[0]) if size.n_codes * remaining <= FULL_POOL_PAIRS else pool + 1
    return (pool + ranked) * remaining


def partition_bars(partition: dict[Feedback, int], pegs: int) -> list[JSON]:
    """Every possible reply in order (black, then white) with its class size,
    zero included: the bars of a partition chart."""
    return [
        {"reply": Feedback(b, w), "count": partition.get(Feedback(b, w), 0)}
        for b in range(pegs + 1)
        for w in range(pegs + 1 - b)
        if (b, w) != (pegs - 1, 1)
    ]


@dataclass(frozen=True)
class Branch:
    """One reply to a node's guess: the codes that give it."""

    reply: Feedback
    codes: np.ndarray  # candidate indices, ascending

    @property
    def count(self) -> int:
        return int(self.codes.shape[0])


def branches(size: GameSize, guess: Code, cands: np.ndarray) -> list[Branch]:
    """The classes ``guess`` splits ``cands`` into, by reply in order (black,
    then white ascending); empty classes left out."""
    replies = feedback_table(size).row(guess.index(size), cands)
    return [Branch(Feedback.decode(r, size.pegs), cands[replies == r]) for r in np.unique(replies)]


def adversary_reply(partition: dict[Feedback, int]) -> Feedback:
    """The reply that keeps the most codes; ties to the first in order."""
    return max(sorted(partition.items()), key=lambda item: item[1])[0]


def following_move(position: Position, secret: Code | None) -> tuple[Code, Feedback] | None:
    """The strategy's next guess from ``position`` and the reply it gets:
    the secret's, or the adversary's when there is none (None once solved)."""
    if position.suggestion is None:
        return None
    guess = position.suggestion.guess
    if secret is not None:
        return guess, feedback(guess, secret)
    return guess, adversary_reply(position.suggestion.partition)
