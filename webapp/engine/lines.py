"""The lines of the "optimal game" page: a codebreaker's guesses answered by
a codemaker who never fixed a secret and replies as an adversary.

- **greedy**: the reply that keeps the most candidates alive (ties to the
  first reply in the order black ascending, then white ascending);
- **deepest**: with the codebreaker's whole decision tree in hand, the reply
  whose subtree needs the most further guesses (ties to the larger class,
  then the same order), so the line is as long as the strategy's worst case.

The default codebreaker, :data:`BEST_CANDIDATE`, plays the best guess among
the candidates only: the one whose largest class is smallest, ties to the
first in ascending order.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from cachetools import LRUCache

from .codes import (
    JSON,
    MAX_GUESSES,
    Code,
    Feedback,
    GameSize,
    Indices,
    MastermindError,
    Progress,
    feedback,
    secret_indices,
)
from .position import LISTED_CODES
from .strategies import (
    MAX_PAIRS,
    PRESETS,
    Budget,
    Criterion,
    Strategy,
    TooSlow,
    best_guess,
    budget_of,
    choose,
    colors_mask,
    get_strategy,
    largest,
    pool_of,
)
from .tables import feedback_table
from .tree import Analysis, Node, analyse

GREEDY, DEEPEST = "greedy", "deepest"
ADVERSARIES = {
    GREEDY: "replies so as to keep the most codes possible",
    DEEPEST: "replies so as to need the most further guesses in the codebreaker's whole tree",
}
# The deepest adversary needs the codebreaker's whole tree: built within a
# request up to this many codes (4 pegs × 8 colours takes well under a second).
DEEPEST_LINE_CODES = 4096
# Every codebreaker's lines side by side: up to this many codes (the classic
# game's two dozen lines take under a second, once per process).
SUMMARY_CODES = 1296

BEST_CANDIDATE = Strategy(
    "best-candidate",
    "Among the codes still possible only, the one whose largest class is smallest; "
    "ties to the first in ascending order.",
    'the classic "show the optimal game" line',
    (Criterion("largest class", largest, int),),
    candidates_only=True,
)


class LineError(MastermindError):
    """An unknown adversary, or a line too slow to compute now."""


def codebreaker(name: str | None) -> Strategy:
    """The default best-candidate codebreaker, or the preset called ``name``."""
    if not name or name == BEST_CANDIDATE.name:
        return BEST_CANDIDATE
    return get_strategy(name)


def offered(strategy: Strategy, size: GameSize) -> bool:
    """Whether ``strategy`` plays ``size`` from the first guess without a long
    search (optimal play only where its tree ships, or the size is tiny)."""
    return strategy.available(size) and strategy.quick(size, secret_indices(size))


def codebreakers(size: GameSize) -> list[Strategy]:
    """Every codebreaker whose line can be shown for ``size``."""
    return [BEST_CANDIDATE] + [s for s in PRESETS.values() if offered(s, size)]


def check_adversary(name: str) -> str:
    if name not in ADVERSARIES:
        raise LineError("unknown-adversary", given=str(name)[:20], choices=[GREEDY, DEEPEST])
    return name


@dataclass(frozen=True)
class Row:
    """One guess of a line and the adversary's answer."""

    guess: Code
    reply: Feedback
    before: int  # codes possible before the guess
    remaining: int  # codes possible after the reply
    was_candidate: bool  # whether the guess could have been the secret
    left: tuple[Code, ...]  # the codes still possible, when few


@dataclass(frozen=True)
class Line:
    size: GameSize
    strategy: Strategy
    adversary: str
    rows: tuple[Row, ...]
    worst: int | None = None  # the strategy's worst case, known for the deepest line

    def to_dict(self) -> JSON:
        """Everything needed to show the line again (a stored job result)."""
        return {
            **self.json(),
            "worst": self.worst,
            "details": [
                {"before": r.before, "was_candidate": r.was_candidate, "left": [str(c) for c in r.left]}
                for r in self.rows
            ],
        }

    @classmethod
    def from_dict(cls, data: JSON, size: GameSize, strategy: Strategy) -> Line:
        rows = tuple(
            Row(
                Code.parse(r["guess"], size),
                Feedback(r["black"], r["white"]),
                d["before"],
                r["remaining"],
                d["was_candidate"],
                tuple(Code.parse(c, size) for c in d["left"]),
            )
            for r, d in zip(data["rows"], data["details"])
        )
        return cls(size, strategy, data["adversary"], rows, data["worst"])

    def json(self) -> JSON:
        return {
            "pegs": self.size.pegs,
            "colors": self.size.colors,
            "distinct": self.size.distinct,
            "distinct_guesses": self.size.distinct_guesses,
            "strategy": self.strategy.name,
            "adversary": self.adversary,
            "rows": [
                {"guess": str(r.guess), "black": r.reply.black, "white": r.reply.white, "remaining": r.remaining}
                for r in self.rows
            ],
        }


def _row(size: GameSize, guess: int, reply: int, before: int, kept: np.ndarray, was_candidate: bool) -> Row:
    left = tuple(Code.from_index(i, size) for i in kept) if kept.shape[0] <= LISTED_CODES else ()
    return Row(
        Code.from_index(guess, size), Feedback.decode(reply, size.pegs), before, int(kept.shape[0]), was_candidate, left
    )


def step_cost(strategy: Strategy, size: GameSize, cands: np.ndarray, played: int) -> int:
    """(guess, code) pairs the strategy scores to choose from ``cands``."""
    n = cands.shape[0]
    if strategy.chooser is not None or not strategy.criteria or n <= strategy.first_candidate_at:
        return 0
    pool = n if strategy.candidates_only else pool_of(size, played).shape[0]
    return int(pool * n)


def too_slow(size: GameSize, strategy: Strategy, why: str, **details: object) -> TooSlow:
    """The line is more work than a page may do; ``why`` names the work
    (``"pairs"``, ``"search"`` or ``"tree"``)."""
    return TooSlow("line-too-slow", strategy=strategy.name, size=size.params(), why=why, **details)


def greedy_line(
    strategy: Strategy, size: GameSize, max_pairs: Budget | int = MAX_PAIRS, progress: Progress | None = None
) -> Line:
    """The codebreaker's guesses, each answered by the reply that keeps the
    most codes; ``max_pairs`` bounds the scoring work of the whole line.
    ``progress(done, total)`` counts the codes ruled out so far."""
    table = feedback_table(size)
    cands = secret_indices(size).astype(np.int64)
    rng = np.random.default_rng(0)
    played, rows, budget = 0, [], budget_of(max_pairs)
    for depth in range(1, MAX_GUESSES + 1):
        cost = step_cost(strategy, size, cands, played)
        budget.spend(cost, too_slow(size, strategy, "pairs", pairs=cost, depth=depth))
        if not strategy.quick(size, cands):
            raise too_slow(size, strategy, "search")
        pool = pool_of(size, played)
        guess = choose(strategy, table, cands, pool, rng, size=size, played=played, depth=depth)
        replies = table.row(guess, cands)
        counts = np.bincount(replies, minlength=size.n_replies)
        reply = int(np.argmax(counts))  # replies are encoded in the rule order
        kept = cands[replies == reply]
        rows.append(_row(size, guess, reply, cands.shape[0], kept, bool(counts[size.solved])))
        if progress:
            total = secret_indices(size).shape[0]
            progress(total - kept.shape[0] if reply != size.solved else total, total)
        if reply == size.solved:
            return Line(size, strategy, GREEDY, tuple(rows))
        cands, played = kept, played | colors_mask(size, guess)
    raise LineError("line-too-long", strategy=strategy.name, most=MAX_GUESSES)


def _heights(node: Node, memo: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(guesses the subtree needs at most, secrets below it)."""
    key = id(node)
    if key not in memo:
        height, total = 1, 0
        for child in node.children.values():
            if isinstance(child, Node):
                h, t = _heights(child, memo)
                height, total = max(height, h + 1), total + t
            else:
                total += 1
        memo[key] = (height, total)
    return memo[key]


def _secrets(child: Node | int) -> Indices:
    """Every secret at or below a tree child, ascending."""
    if not isinstance(child, Node):
        return np.array([child], dtype=np.int64)
    found, stack = [], [child]
    while stack:
        node = stack.pop()
        for c in node.children.values():
            if isinstance(c, Node):
                stack.append(c)
            else:
                found.append(c)
    return np.sort(np.array(found, dtype=np.int64))


@lru_cache(maxsize=32)
def _tree(strategy: Strategy, size: GameSize) -> Analysis:
    return analyse(strategy, size)


def deepest_line(
    strategy: Strategy, size: GameSize, max_codes: int = DEEPEST_LINE_CODES, progress: Progress | None = None
) -> Line:
    """Down the codebreaker's decision tree, always to the reply whose subtree
    needs the most further guesses; ties to the larger class, then the first
    reply in order."""
    if size.n_codes > max_codes:
        raise too_slow(size, strategy, "tree")
    if not strategy.quick(size, secret_indices(size)):
        raise too_slow(size, strategy, "search")
    analysis = _tree(strategy, size) if progress is None else analyse(strategy, size, progress=progress)
    memo: dict[int, tuple[int, int]] = {}
    node, before, rows = analysis.root, analysis.depths.shape[0], []
    while True:

        def weight(item: tuple[int, Node | int]) -> tuple[int, int, int]:
            reply, child = item
            further, count = _heights(child, memo) if isinstance(child, Node) else (0, 1)
            return (further, count, -reply)

        reply, child = max(node.children.items(), key=weight)
        kept = _secrets(child)
        rows.append(_row(size, node.guess, reply, before, kept, size.solved in node.children))
        if not isinstance(child, Node):
            return Line(size, strategy, DEEPEST, tuple(rows), analysis.max)
        node, before = child, kept.shape[0]


# Lines already worked out in this process (a line is a few kilobytes at most).
_lines: LRUCache[tuple[Strategy, GameSize, str], Line] = LRUCache(maxsize=256)
_lines_lock = threading.Lock()


def adversary_line(
    strategy: Strategy,
    size: GameSize,
    adversary: str = GREEDY,
    max_pairs: Budget | int = MAX_PAIRS,
    max_codes: int = DEEPEST_LINE_CODES,
) -> Line:
    """The line of ``strategy`` against ``adversary``, remembered per process
    (a remembered line costs nothing against ``max_pairs``)."""
    key = (strategy, size, check_adversary(adversary))
    with _lines_lock:
        line = _lines.get(key)
    if line is None:
        if adversary == GREEDY:
            line = greedy_line(strategy, size, max_pairs)
        else:
            line = deepest_line(strategy, size, max_codes)
        with _lines_lock:
            _lines[key] = line
    return line


@dataclass(frozen=True)
class Lengths:
    """How many guesses a codebreaker needs against each adversary (None
    where it cannot play this size, with ``failure`` saying why)."""

    strategy: Strategy
    greedy: int | None
    deepest: int | None
    failure: MastermindError | None = None


def line_lengths(size: GameSize, max_pairs: Budget | int = MAX_PAIRS) -> list[Lengths]:
    """Every offered codebreaker's line length against both adversaries, for
    sizes up to :data:`SUMMARY_CODES` codes (an empty list beyond). A
    codebreaker that cannot play the size (optimal play within 5 guesses
    where no strategy finds every secret in 5) gets no lengths and the
    reason; work beyond ``max_pairs`` raises :class:`TooSlow`."""
    if size.n_codes > SUMMARY_CODES:
        return []
    out = []
    for s in codebreakers(size):
        try:
            out.append(
                Lengths(
                    s,
                    len(adversary_line(s, size, GREEDY, max_pairs).rows),
                    len(adversary_line(s, size, DEEPEST, max_pairs).rows),
                )
            )
        except TooSlow:
            raise
        except MastermindError as exc:
            out.append(Lengths(s, None, None, exc))
    return out


def play_against(
    strategy: Strategy, size: GameSize, secret: Code, max_pairs: Budget | int = MAX_PAIRS, limit: int = MAX_GUESSES
) -> list[tuple[Code, Feedback]]:
    """The game ``strategy`` plays against a known ``secret``: its guesses and
    the replies, up to the one that finds it."""

    history: list[tuple[Code, Feedback]] = []
    rng = np.random.default_rng(0)
    while len(history) < limit:
        guess = best_guess(strategy, size, history, rng=rng, max_pairs=max_pairs).guess
        history.append((guess, feedback(guess, secret)))
        if guess == secret:
            return history
    raise LineError("line-too-long", strategy=strategy.name, most=limit)
