"""Best-guess puzzles: positions where one guess is clearly best.

A **puzzle** is a position (a board size and the guesses and replies so far)
whose question is "what is the best next guess?". Its answer is every guess
whose E equals V, exactly as the review measures them (:mod:`.review`): a
position is a puzzle only when

- E and V are exact there (:meth:`Values.searchable`),
- at most :data:`MOST_BEST` guesses are best, up to renaming the colours
  never played (the guesses :func:`pool_of` keeps), and
- every other guess costs at least :data:`MARGIN` guesses more in
  expectation: one good move, the rest clearly worse, and
- it has something to teach (:func:`insight`): a one-step strategy misses
  the best guess, or the best guess cannot be the secret, or there are more
  codes than one counts at a glance; and at most half the codes still
  possible are best guesses.

Positions come from games played by the one-step strategies and by a player
who guesses a random code that could be the secret, against random secrets
(:func:`positions`); :func:`examine` measures every guess of one and keeps it
or says why not. Themes are computed from the position (:func:`themes_of`).
A puzzle's first rating comes from how many one-step strategies miss its
answer, how many codes are left and whether the answer can be the secret
(:func:`first_rating`). Nothing here knows of the store or the web.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .codes import JSON, Array, Code, Feedback, GameSize, History, code_digits, secret_indices
from .review import SMALL_EXACT_PAIRS, Values
from .search_kernels import child_group, orbit_minima
from .strategies import PRESETS, Budget, TooSlow, choose, colors_mask, played_mask, pool_of
from .tables import candidates, consistent, feedback_table

# At most this many best guesses, up to the position's symmetries.
MOST_BEST = 3
# Measuring every guess of one position may score at most this many
# (guess, code) pairs in the small search; past them it is not a puzzle.
WORK_PAIRS = 20_000_000
# The second-best guess costs at least this much more, in expected guesses.
MARGIN = 0.1
# A position with fewer codes than this has nothing to find out.
FEWEST_CODES = 3
# "Few codes left": a puzzle of at most this many codes.
FEW_CODES = 8
# Positions of fewer codes than this are mostly counting: generation
# examines only SMALL_SHARE of them, so that a set is not mostly small
# puzzles.
SMALL_CODES = 9
SMALL_SHARE = 0.3
# The one-step strategies whose choices rate a puzzle (the more of them
# miss its answer, the harder it starts) and whose games give positions.
RATING_STRATEGIES = ("knuth", "entropy", "most-parts", "irving", "minimax-avg", "simple")
# A puzzle's rating before anyone answers it (:func:`first_rating`) comes
# from a difficulty score: the share of RATING_STRATEGIES that miss the
# answer, the codes left (from FEWEST_CODES up to MANY_CODES, on a log
# scale) and an answer that cannot be the secret, weighted so; a score of
# EASY_SCORE or less starts at EASIEST, HARD_SCORE or more at HARDEST.
MISSED_WEIGHT, CODES_WEIGHT, OUTSIDE_WEIGHT = 0.5, 0.25, 0.25
MANY_CODES = 30
EASY_SCORE, HARD_SCORE = 0.08, 0.54
EASIEST, HARDEST = 800, 2400
# Where positions come from, and how often: these strategies' games, a
# player who guesses a random code that could still be the secret, and
# games that open with a random first guess and a random code that could
# be the secret, then go on by one of the strategies (the strategies alone
# soon give the same positions again).
SOURCES = ("knuth", "entropy", "most-parts", "simple", "random", "opening")
SOURCE_WEIGHTS = (1, 1, 1, 1, 3, 3)
OPENING_STRATEGIES = ("knuth", "entropy", "most-parts", "simple")


@dataclass(frozen=True)
class Board:
    """A size puzzles are made on, and how many codes its positions may have
    (every guess of such a position is measured exactly in a blink)."""

    key: str
    size: GameSize
    most_codes: int
    weight: int  # how often generation picks it


BOARDS = (
    Board("classic", GameSize(4, 6), 120, 6),
    Board("brain-breaker", GameSize(4, 5), 120, 3),
    Board("three", GameSize(3, 6), 60, 2),
    Board("distinct", GameSize(4, 6, distinct=True), 120, 2),
    Board("bulls-and-cows", GameSize(4, 10, distinct=True, distinct_guesses=True), 16, 1),
    Board("super", GameSize(5, 8), 12, 1),
)
BOARDS_BY_KEY = {b.key: b for b in BOARDS}

THEMES = (
    "not-a-candidate",  # every best guess cannot be the secret
    "candidate",  # every best guess could be the secret
    "few-codes",
    "zero-reply",  # a reply of no pegs at all in the history
    "repeat-colour",  # every best guess repeats a colour
    "brain-breaker",
    "super-mastermind",
    "bulls-and-cows",
    "distinct",
)


class Rejected(Exception):
    """A position that is not a puzzle, and why (a short key)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Puzzle:
    """A position, its exact value and its best guesses."""

    size: GameSize
    history: History
    codes: int  # codes still possible
    total: int  # n × V
    best: tuple[Code, ...]  # the best guesses, one per renaming of unplayed colours
    second: int  # n × E of the next best guess (at least this much)
    themes: tuple[str, ...]
    rating: int
    source: str = ""
    seed: int = -1
    missed: int = -1  # how many of RATING_STRATEGIES miss the answer (-1: not known)

    @property
    def key(self) -> str:
        return puzzle_key(self.size, self.history)

    @property
    def value(self) -> float:
        """V: the expected number of guesses from here, the next included."""
        return self.total / self.codes

    def json(self) -> JSON:
        return {
            "id": self.key,
            "pegs": self.size.pegs,
            "colors": self.size.colors,
            "distinct": self.size.distinct,
            "distinct_guesses": self.size.distinct_guesses,
            "history": [[str(g), r.black, r.white] for g, r in self.history],
            "codes": self.codes,
            "total": self.total,
            "best": [str(c) for c in self.best],
            "second": self.second,
            "themes": list(self.themes),
            "rating": self.rating,
            "source": self.source,
            "seed": self.seed,
            "missed": self.missed,
        }

    @classmethod
    def from_json(cls, data: JSON) -> Puzzle:
        size = GameSize.from_params(data)
        history = tuple((Code.parse(g, size), Feedback(int(b), int(w))) for g, b, w in data["history"])
        return cls(
            size,
            history,
            int(data["codes"]),
            int(data["total"]),
            tuple(Code.parse(c, size) for c in data["best"]),
            int(data["second"]),
            tuple(data["themes"]),
            int(data["rating"]),
            str(data.get("source", "")),
            int(data.get("seed", -1)),
            int(data.get("missed", -1)),
        )


# The characters of a puzzle's key.
KEY_LENGTH = 12


def puzzle_key(size: GameSize, history: History) -> str:
    """A short stable name for a position (the same on every machine)."""
    text = json.dumps([size.params(), [[str(g), r.black, r.white] for g, r in history]], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def canonical(size: GameSize, history: History) -> str:
    """The position up to the board's symmetries: the same text for every
    position that renaming colours, permuting the pegs and reordering the
    guesses turn into one another, and a different one otherwise.

    Each guess is written with its reply; over every order of the pegs and
    every order of the guesses that keeps their invariants (the reply, and
    how many pegs each colour takes), colours are renamed in the order they
    first appear, and the least text wins.

    >>> size = GameSize(4, 6)
    >>> one = [(Code.parse("1123", size), Feedback(0, 1))]
    >>> other = [(Code.parse("4565", size), Feedback(0, 1))]  # colours renamed, pegs moved
    >>> canonical(size, one) == canonical(size, other)
    True
    >>> canonical(size, one) == canonical(size, [(Code.parse("1234", size), Feedback(0, 1))])
    False
    """
    Move = tuple[tuple[int, ...], tuple[int, int]]
    moves: list[Move] = [(tuple(g.pegs), (r.black, r.white)) for g, r in history]
    if not moves:
        return ""

    def shape(move: Move) -> tuple[tuple[int, int], tuple[int, ...]]:
        pegs, reply = move
        return (reply, tuple(sorted((pegs.count(c) for c in set(pegs)), reverse=True)))

    # Guesses of different shapes keep their order; those of one shape are tried in every order.
    groups: dict[tuple[tuple[int, int], tuple[int, ...]], list[Move]] = {}
    for move in moves:
        groups.setdefault(shape(move), []).append(move)
    ordered = [groups[key] for key in sorted(groups)]
    best: str | None = None
    for orders in itertools.product(*(itertools.permutations(group) for group in ordered)):
        sequence = [move for group in orders for move in group]
        for perm in itertools.permutations(range(size.pegs)):
            names: dict[int, int] = {}
            parts = []
            for pegs, (black, white) in sequence:
                named = "".join(str(names.setdefault(pegs[i], len(names) + 1)) for i in perm)
                parts.append(f"{named}:{black},{white}")
            text = " ".join(parts)
            if best is None or text < best:
                best = text
    assert best is not None
    return best


def margin_total(n: int) -> int:
    """The least n × (E − V) a second-best guess may cost (:data:`MARGIN`)."""
    return int(np.ceil(MARGIN * n - 1e-9))


def symmetries(size: GameSize, history: History) -> Array:
    """The symmetries of the position (a position permutation and a map of
    the colours played, one per row, as :func:`child_group` keeps them)."""
    digits = code_digits(size.pegs, size.colors)
    perms = np.array(list(itertools.permutations(range(size.pegs))), dtype=np.int64)
    group = np.hstack([perms, np.full((len(perms), size.colors), -1, np.int64)])
    played = 0
    for guess, _ in history:
        index = guess.index(size)
        group = child_group(group, digits, index, played)
        played |= colors_mask(size, index)
    return group


def distinct_guesses(size: GameSize, history: History, guesses: Array) -> Array:
    """One guess of ``guesses`` per orbit of the position's symmetries: two
    guesses a symmetry maps onto each other are the same move."""
    digits = np.ascontiguousarray(code_digits(size.pegs, size.colors), dtype=np.int64)
    played = played_mask(size, history)
    group = symmetries(size, history)
    return orbit_minima(np.sort(guesses).astype(np.int64), group, digits, played, size.colors, size.n_codes)


def candidates_of(size: GameSize, history: History) -> Array:
    """The codes still possible after ``history`` (:func:`candidates`), as
    the 64-bit indices the search takes."""
    return candidates(size, history).astype(np.int64)


def guess_total(size: GameSize, history: History, guess: Code, values: Values) -> int:
    """n × E of ``guess`` in the position, exactly."""
    cands = candidates_of(size, history)
    played = played_mask(size, history)
    return int(
        values.of_guess(
            guess.index(size), cands, played, len(history) + 1, values.group(history), work=Budget(SMALL_EXACT_PAIRS)
        )
    )


def best_of(
    size: GameSize, history: History, values: Values, work: Budget | None = None, close: bool = True
) -> tuple[int, list[int], int]:
    """(n × V, the best guesses, n × E of the next best or more). Guesses
    are :func:`pool_of`'s, one per orbit of the position's symmetries; those
    that split the codes alike are scored once, each cut off at
    n × V + :func:`margin_total` (past it, "at least that much"). With
    ``close`` false, a second-best guess within that margin is
    :class:`Rejected` at once (the rest is not scored): the guesses that
    split the codes into the most classes are scored first, as they are the
    likeliest to come close."""
    work = Budget(WORK_PAIRS) if work is None else work
    cands = candidates_of(size, history)
    n = int(cands.shape[0])
    played = played_mask(size, history)
    depth = len(history) + 1
    group = values.group(history)
    total, _ = values.best(cands, played, depth, group, work)
    pool = distinct_guesses(size, history, pool_of(size, played))
    rows = np.ascontiguousarray(feedback_table(size).rows(pool, cands), dtype=np.int8)
    keys = [k.tobytes() for k in rows.view(np.dtype((np.void, n))).ravel()]
    limit = total + margin_total(n)
    width = int(rows.max()) + 1
    flat = (rows.astype(np.int64) + np.arange(len(pool), dtype=np.int64)[:, None] * width).ravel()
    classes = (np.bincount(flat, minlength=len(pool) * width).reshape(len(pool), width) > 0).sum(axis=1)
    by_row: dict[bytes, int] = {}
    for i in np.argsort(-classes, kind="stable"):
        key = keys[i]
        if key not in by_row:
            by_row[key] = int(values.of_guess(int(pool[i]), cands, played, depth, group, bound=limit, work=work))
            if not close and total != by_row[key] < limit:
                raise Rejected("close-second")
    best = [int(g) for g, key in zip(pool, keys) if by_row[key] == total]
    second = min((t for t in by_row.values() if t != total), default=1 << 40)
    return total, best, second


def themes_of(size: GameSize, history: History, cands: Array, best: list[int]) -> tuple[str, ...]:
    """The computed themes of a puzzle whose best guesses are ``best``."""
    in_cands = np.isin(np.array(best, dtype=np.int64), cands)
    codes = [Code.from_index(g, size) for g in best]
    themes = []
    if not in_cands.any():
        themes.append("not-a-candidate")
    elif in_cands.all():
        themes.append("candidate")
    if cands.shape[0] <= FEW_CODES:
        themes.append("few-codes")
    if any(r.black == 0 and r.white == 0 for _, r in history):
        themes.append("zero-reply")
    if all(len(set(c.pegs)) < len(c.pegs) for c in codes):
        themes.append("repeat-colour")
    if size == GameSize(4, 5):
        themes.append("brain-breaker")
    if size == GameSize(5, 8):
        themes.append("super-mastermind")
    if size.is_bulls_and_cows:
        themes.append("bulls-and-cows")
    elif size.distinct:
        themes.append("distinct")
    return tuple(themes)


def strategy_choices(size: GameSize, history: History) -> dict[str, int]:
    """The guess each of :data:`RATING_STRATEGIES` makes in the position."""
    cands = candidates_of(size, history)
    played = played_mask(size, history)
    table = feedback_table(size)
    pool = pool_of(size, played)
    return {
        name: choose(PRESETS[name], table, cands, pool, size=size, played=played, depth=len(history) + 1)
        for name in RATING_STRATEGIES
    }


def missed_by(size: GameSize, history: History, values: Values, total: int) -> int:
    """How many of :data:`RATING_STRATEGIES` play a guess that is not best."""
    cands = candidates_of(size, history)
    played = played_mask(size, history)
    group = values.group(history)
    choices = strategy_choices(size, history)
    best = {
        g: values.of_guess(g, cands, played, len(history) + 1, group, bound=total + 1) == total
        for g in set(choices.values())
    }
    return sum(1 for g in choices.values() if not best[g])


def first_rating(missed: int, codes: int, themes: tuple[str, ...]) -> int:
    """A puzzle's rating before anyone answers, from :data:`EASIEST` (every
    one-step strategy finds the answer among few codes, and it could be the
    secret) to :data:`HARDEST` (most miss it among many codes, and it cannot
    be the secret).

    >>> first_rating(0, 3, ("candidate",)), first_rating(6, 60, ("not-a-candidate",))
    (800, 2400)
    """
    spread = np.log(min(codes, MANY_CODES) / FEWEST_CODES) / np.log(MANY_CODES / FEWEST_CODES)
    score = (
        MISSED_WEIGHT * missed / len(RATING_STRATEGIES)
        + CODES_WEIGHT * max(0.0, float(spread))
        + OUTSIDE_WEIGHT * ("not-a-candidate" in themes)
    )
    share = min(1.0, max(0.0, (score - EASY_SCORE) / (HARD_SCORE - EASY_SCORE)))
    return int(round(EASIEST + (HARDEST - EASIEST) * share))


def best_candidates(size: GameSize, history: History, values: Values, total: int) -> int:
    """How many of the codes still possible are best guesses themselves."""
    cands = candidates_of(size, history)
    played = played_mask(size, history)
    group = values.group(history)
    depth = len(history) + 1
    return sum(1 for c in cands if values.of_guess(int(c), cands, played, depth, group, bound=total + 1) == total)


def insight(missed: int, codes: int, themes: tuple[str, ...]) -> bool:
    """Whether a puzzle has something to teach, in the spirit of lichess's
    puzzle filter: a one-step strategy misses its answer, or the answer
    cannot be the secret, or more than :data:`FEW_CODES` codes are left (no
    counting them on one's fingers)."""
    return missed > 0 or "not-a-candidate" in themes or codes > FEW_CODES


def examine(size: GameSize, history: History, values: Values, source: str = "", seed: int = -1) -> Puzzle:
    """The puzzle at this position, or :class:`Rejected` saying why not."""
    cands = candidates_of(size, history)
    n = int(cands.shape[0])
    if n < FEWEST_CODES:
        raise Rejected("too-few-codes")
    if not values.searchable(n):
        raise Rejected("not-exact")
    try:
        total, best, second = best_of(size, history, values, close=False)
    except TooSlow:
        raise Rejected("not-exact") from None
    if len(best) > MOST_BEST:
        raise Rejected("many-best")
    if second - total < margin_total(n):
        raise Rejected("close-second")
    themes = themes_of(size, history, cands, best)
    missed = missed_by(size, history, values, total)
    if not insight(missed, n, themes):
        raise Rejected("no-insight")
    if 2 * best_candidates(size, history, values, total) > n:
        raise Rejected("mostly-best")
    return Puzzle(
        size,
        tuple(history),
        n,
        total,
        tuple(Code.from_index(g, size) for g in best),
        second,
        themes,
        first_rating(missed, n, themes),
        source,
        seed,
        missed,
    )


def positions(size: GameSize, source: str, rng: np.random.Generator, most_codes: int) -> Iterator[History]:
    """The positions of one game by ``source`` against a random secret that
    have between :data:`FEWEST_CODES` and ``most_codes`` codes left."""
    table = feedback_table(size)
    cands = secret_indices(size).astype(np.int64)
    secret = int(cands[rng.integers(cands.shape[0])])
    history: list[tuple[Code, Feedback]] = []
    opening = source == "opening"
    strategy = PRESETS[OPENING_STRATEGIES[int(rng.integers(len(OPENING_STRATEGIES)))] if opening else source]
    while cands.shape[0] > 1:
        played = played_mask(size, history)
        if opening and not history:
            pool = pool_of(size, played)
            guess = int(pool[rng.integers(pool.shape[0])])
        elif source == "random" or (opening and len(history) == 1):
            guess = int(cands[rng.integers(cands.shape[0])])
        else:
            guess = choose(
                strategy, table, cands, pool_of(size, played), rng, size=size, played=played, depth=len(history) + 1
            )
        code = Code.from_index(guess, size)
        reply = Feedback.decode(int(table.row(guess, np.array([secret]))[0]), size.pegs)
        if reply.black == size.pegs:
            return
        history.append((code, reply))
        cands = consistent(size, cands, code, reply).astype(np.int64)
        if FEWEST_CODES <= cands.shape[0] <= most_codes:
            yield tuple(history)


def played_positions(size: GameSize, history: History) -> Iterator[History]:
    """The positions of a game played (its guesses and replies) that a board
    of :data:`BOARDS` makes puzzles of: none on other sizes."""
    board = next((b for b in BOARDS if b.size == size), None)
    if board is None:
        return
    for k in range(1, len(history) + 1):
        before = tuple(history[:k])
        if before[-1][1].black == size.pegs:
            return
        if FEWEST_CODES <= candidates_of(size, before).shape[0] <= board.most_codes:
            yield before


def generate(
    count: int,
    start_seed: int = 0,
    seen: set[str] | None = None,
    boards: tuple[Board, ...] = BOARDS,
    progress: Callable[[Puzzle | None, int, str], None] | None = None,
    forms: set[tuple[GameSize, str]] | None = None,
) -> Iterator[Puzzle]:
    """Up to ``count`` new puzzles, one game per seed from ``start_seed`` on
    (the board and source drawn from the seed), skipping positions in ``seen``
    and any position the board's symmetries turn into one already made
    (or in ``forms``, the :func:`canonical` forms of a run resumed).
    ``progress(puzzle or None, seed, reason)`` hears of every position examined."""
    seen = set() if seen is None else seen
    forms = set() if forms is None else forms  # positions kept, up to the board's symmetries
    weights = np.array([b.weight for b in boards], dtype=float)
    made, seed = 0, start_seed
    values: dict[GameSize, Values] = {}
    while made < count:
        rng = np.random.default_rng(seed)
        board = boards[int(rng.choice(len(boards), p=weights / weights.sum()))]
        source = SOURCES[int(rng.choice(len(SOURCES), p=np.array(SOURCE_WEIGHTS) / sum(SOURCE_WEIGHTS)))]
        size = board.size
        if size not in values:
            values[size] = Values(size)
        for history in positions(size, source, rng, board.most_codes):
            key = puzzle_key(size, history)
            form = (size, canonical(size, history))
            if key in seen or form in forms:
                continue
            if candidates_of(size, history).shape[0] < SMALL_CODES and rng.random() >= SMALL_SHARE:
                continue
            seen.add(key)
            try:
                puzzle = examine(size, history, values[size], source, seed)
            except Rejected as no:
                if progress is not None:
                    progress(None, seed, no.reason)
                continue
            if progress is not None:
                progress(puzzle, seed, "")
            forms.add(form)
            made += 1
            yield puzzle
            if made >= count:
                return
        seed += 1


# --- sets of puzzles --------------------------------------------------------------------------

# The set the app ships, remade by ``mastermind puzzles generate``.
SHIPPED = Path(__file__).parent / "data" / "puzzles.jsonl.gz"


def distinct_positions(puzzles: Iterable[Puzzle]) -> list[Puzzle]:
    """One puzzle of each position up to the board's symmetries
    (:func:`canonical`): the first by id, so the choice never changes."""
    kept: dict[tuple[GameSize, str], Puzzle] = {}
    for puzzle in sorted(puzzles, key=lambda p: p.key):
        kept.setdefault((puzzle.size, canonical(puzzle.size, puzzle.history)), puzzle)
    return list(kept.values())


def merged(sets: Iterable[Iterable[Puzzle]]) -> list[Puzzle]:
    """The puzzles of several sets, one of each position (:func:`distinct_positions`),
    each rated afresh by :func:`first_rating` where it says how many strategies miss it."""
    return distinct_positions(
        dataclasses.replace(p, rating=first_rating(p.missed, p.codes, p.themes)) if p.missed >= 0 else p
        for puzzles in sets
        for p in puzzles
    )


def read_set(path: Path) -> list[Puzzle]:
    """The puzzles of a set file (JSON lines, gzip-compressed when the name ends in .gz)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [Puzzle.from_json(json.loads(line)) for line in lines if line.strip()]


def write_set(path: Path, puzzles: list[Puzzle]) -> None:
    """Write a set file, ordered by id (the same puzzles give the same bytes)."""
    text = "".join(json.dumps(p.json(), sort_keys=True) + "\n" for p in sorted(puzzles, key=lambda p: p.key))
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text, encoding="utf-8")
