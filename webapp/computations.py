"""What each kind of background job computes: a function from the job's
parameters (plain JSON) to its result (plain JSON), reporting progress as it
goes. These import only the engine and the store, so the job consumer
(``webapp.worker``) runs them without building the web app; ``jobs`` queues
them and the pages word their results.

A kind may also say it is ``quick`` for some parameters: then the request
that asks computes it at once and stores it like any other result."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import store
from .engine import PRESETS, Code, GameSize, MastermindError, analyse, best_guess, get_strategy
from .engine.codes import feedback, format_history, parse_history
from .engine.lines import GREEDY, LineError, codebreaker, deepest_line, greedy_line, line_lengths, play_against
from .engine.optimal import QUICK_SEARCH_CODES, on_demand, searching, set_key, shipped
from .engine.review import Review, position_params, positions, quick, review_game, review_move, shared_values
from .engine.strategies import Budget, Suggestion, TooSlow, fitting
from .engine.tables import candidates, feedback_table
from .engine.tree import ANALYSABLE_CODES

Progress = Callable[[float | None], None]


@dataclass(frozen=True)
class Kind:
    """A kind of job: ``compute(params, progress)`` returns a JSON-able result
    and calls ``progress(fraction)`` as it goes (fraction from 0 to 1, or None
    when it cannot tell); ``quick(params)`` says whether a request may simply
    compute it."""

    name: str
    compute: Callable[[dict, Progress], Any]
    quick: Callable[[dict], bool] = lambda params: False


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    return kind


def job_key(kind: str, params: dict) -> str:
    """The name of a computation: its kind and its parameters, canonically."""
    return kind + ":" + json.dumps(params, sort_keys=True, separators=(",", ":"))


# A job's parts worked out here are written together: at most this often
# while it goes on, and at its end. On SQLite every write waits its turn for
# the one write lock, so a quick review's ten moves are one write, not ten.
KEEP_SECONDS = 1.0


class Parts:
    """Parts of a larger job that other jobs share (each reviewed position),
    kind ``kind``: :meth:`get` reads one stored before or computes it here;
    those computed here are stored every ``KEEP_SECONDS`` and by
    :meth:`keep`, for every later caller."""

    def __init__(self, kind: str):
        self.kind = kind
        self.pending: dict[str, tuple[str, Any]] = {}  # key: (params as JSON, result)
        self.kept_at = time.monotonic()

    def get(self, params: dict, compute: Callable[[], Any]) -> Any:
        """The result stored for ``params``, or ``compute()`` done here."""
        key = job_key(self.kind, params)
        if key in self.pending:
            return self.pending[key][1]
        row = store.jobs.load_job(key)
        if row is not None and row["status"] == store.jobs.DONE:
            return json.loads(row["result"])
        result = compute()
        self.pending[key] = (json.dumps(params, sort_keys=True), result)
        if time.monotonic() - self.kept_at >= KEEP_SECONDS:
            self.keep()
        return result

    def keep(self) -> None:
        """Store the parts computed here since the last time, in one write."""
        done = [(key, params, json.dumps(result)) for key, (params, result) in self.pending.items()]
        if len(done) == 1:
            store.jobs.finish_job(done[0][0], self.kind, done[0][1], done[0][2], time.time())
        elif done:
            store.jobs.finish_jobs(self.kind, done, time.time())
        self.pending, self.kept_at = {}, time.monotonic()


def remembered(kind: str, params: dict, compute: Callable[[], Any]) -> Any:
    """The result stored for ``kind`` and ``params``, or ``compute()`` done
    here and stored under that name at once, for every later caller."""
    part = Parts(kind)
    result = part.get(params, compute)
    part.keep()
    return result


def is_stored(kind: str, params: dict) -> bool:
    """Whether a finished result is stored for ``kind`` and ``params``."""
    row = store.jobs.load_job(job_key(kind, params))
    return row is not None and row["status"] == store.jobs.DONE


# --- a finished game's review ---------------------------------------------------------------------

# Knuth's game on the same secret gets this much work in a review job
# (about a second and a half); beyond it the review leaves it out.
KNUTH_PAIRS = 1_500_000_000
# A board of at most this many codes whose optimal tree ships with the engine
# (the classic board, 4 pegs and 6 colours, among them) is reviewed while the
# page waits, whatever was played: V is read off the tree, and the searches E
# needs take at most about a third of a second for a first guess (1111, the
# slowest) and milliseconds for most later moves.
AT_ONCE_BOARD_CODES = 1296


def review_params(size: GameSize, secret: Code, guesses: list[Code]) -> dict:
    return {**size.params(), "secret": str(secret), "guesses": [str(g) for g in guesses]}


def reviewed_game(params: dict) -> tuple[GameSize, Code, list]:
    """The size, secret and history a review's parameters name."""
    size = GameSize.from_params(params)
    secret = Code.parse(params["secret"], size)
    history = [(g, feedback(g, secret)) for g in (Code.parse(t, size) for t in params["guesses"])]
    return size, secret, history


def review(params: dict, progress: Progress) -> dict:
    size, secret, history = reviewed_game(params)
    reviewed = Parts("review-move")
    try:
        moves = review_game(size, history, memo=reviewed.get, progress=lambda fraction: progress(0.9 * fraction))
    finally:
        reviewed.keep()  # the moves worked out so far serve other reviews, whatever happened next
    try:
        knuth = [g for g, _ in play_against(get_strategy("knuth"), size, secret, Budget(KNUTH_PAIRS))]
    except (TooSlow, LineError):
        knuth = None
    won = bool(history) and history[-1][0] == secret
    return Review(size, moves, knuth, won).json()


def review_is_quick(params: dict) -> bool:
    """Whether the request may review the game itself: a board reviewed at
    once, or every move small or already stored."""
    size, _, history = reviewed_game(params)
    if size.n_codes <= AT_ONCE_BOARD_CODES and shipped(size):
        return True
    return all(
        quick(size, n) or is_stored("review-move", position_params(size, before, guess))
        for before, guess, _, n in positions(size, history)
    )


register(Kind("review", review, review_is_quick))


# --- the guesses the algorithms need for one secret ------------------------------------------------


def secret_lengths(size: GameSize, secret: Code, work: Budget) -> dict | None:
    """How many guesses Knuth's algorithm and optimal play need for
    ``secret`` (optimal None where it is not offered), kept once known for
    every later page (a challenge's results, a player's statistics); None
    when ``work`` is spent before they are (a later visit goes on)."""
    params = {**size.params(), "secret": str(secret)}

    def compute() -> dict:  # raises beyond the budget, so that nothing is kept
        def length(name: str) -> int:
            return len(play_against(get_strategy(name), size, secret, work))

        offered = get_strategy("optimal").available(size)
        return {"knuth": length("knuth"), "optimal": length("optimal") if offered else None}

    try:
        return remembered("secret-lengths", params, compute)
    except (TooSlow, LineError):  # too much for this budget, or no game within the guesses allowed
        return None


# --- every strategy compared --------------------------------------------------------------------

ROW_FIELDS = ("strategy", "total", "mean", "stddev", "max", "first_guess", "histogram")


def compared(size: GameSize) -> list:
    """The strategies the comparison plays: every preset that answers here."""
    return [s for s in PRESETS.values() if s.available(size)]


def compare(params: dict, progress: Progress) -> dict:
    """Play every strategy against every secret; progress runs over them all."""
    size = GameSize.from_params(params)
    strategies = compared(size)
    n = len(strategies)
    table = feedback_table(size, progress=lambda done, total: progress(0.05 * done / total))
    rows, skipped = [], []
    for i, strategy in enumerate(strategies):

        def report(done: int, total: int, i: int = i) -> None:
            progress(0.05 + 0.95 * (i + done / total) / n)

        try:
            result = analyse(strategy, size, table=table, progress=report)
        except MastermindError as exc:  # e.g. no strategy finds every secret within 5 guesses
            skipped.append({"strategy": strategy.name, "reason": exc.record()})
            continue
        summary = result.summary()
        rows.append({key: summary[key] for key in ROW_FIELDS})
    return {"rows": rows, "skipped": skipped}


def compare_is_quick(params: dict) -> bool:
    """Small sizes whose optimal play ships (or is tiny) are compared at once."""
    size = GameSize.from_params(params)
    if size.n_codes > 1296:
        return False
    return all(
        shipped(size, limit) or on_demand(size, QUICK_SEARCH_CODES)
        for limit, name in ((None, "optimal"), (5, "optimal-5"), (None, "best"))
        if PRESETS[name].available(size)
    )


register(Kind("compare", compare, compare_is_quick))


# --- a strategy's line against an adversary, and every line's length -------------------------------

# A line computed in the background may score this many (guess, code) pairs
# (about a minute of work).
JOB_MAX_PAIRS = 60_000_000_000
# Sizes this small have their lengths table worked out by the request that asks.
QUICK_LENGTHS_CODES = 256


def line_params(size: GameSize, strategy_name: str, adversary: str) -> dict:
    return {**size.params(), "strategy": strategy_name, "adversary": adversary}


def line(params: dict, progress: Progress) -> dict:
    """A line too slow for a request, in the background."""
    size = GameSize.from_params(params)
    strategy = codebreaker(params["strategy"])

    def report(done: int, total: int) -> None:
        progress(done / total)

    if params["adversary"] == GREEDY:
        found = greedy_line(strategy, size, JOB_MAX_PAIRS, report)
    else:
        found = deepest_line(strategy, size, ANALYSABLE_CODES, report)
    return found.to_dict()


register(Kind("line", line))


def lengths(params: dict, progress: Progress) -> dict:
    """Every codebreaker's line length against both adversaries (the table
    under a line): it builds a dozen decision trees."""
    return {
        "rows": [
            {
                "strategy": row.strategy.name,
                "greedy": row.greedy,
                "deepest": row.deepest,
                "failure": None if row.failure is None else row.failure.record(),
            }
            for row in line_lengths(GameSize.from_params(params))
        ]
    }


register(Kind("lengths", lengths, lambda params: params["colors"] ** params["pegs"] <= QUICK_LENGTHS_CODES))


# --- a strategy's next guess ------------------------------------------------------------------------


def hint_result(s: Suggestion) -> dict:
    """A suggestion as stored (a job's result, a board's remembered hint)."""
    return {
        "guess": str(s.guess),
        "remaining": s.remaining,
        "score": s.score,
        "partition": {r.key: n for r, n in s.partition.items()},
    }


def hint_params(size: GameSize, strategy_name: str, history, hard: bool = False) -> dict:
    """``hard``: the guess must fit every reply so far (a hard-mode game's hint)."""
    params = {**size.params(), "strategy": strategy_name, "history": format_history(history)}
    return {**params, "hard": True} if hard else params


def hint(params: dict, progress: Progress) -> dict:
    """A slow suggestion (no budget)."""
    size = GameSize.from_params(params)
    strategy = get_strategy(params["strategy"])
    if params.get("hard"):
        strategy = fitting(strategy)
    with searching(progress):  # a search off a large board's tree tells how much of its budget it spent
        return hint_result(best_guess(strategy, size, parse_history(params["history"], size)))


register(Kind("hint", hint))


# --- a proposed guess's worth (a live class's votes) ------------------------------------------------


def proposal_params(size: GameSize, history, guess: Code) -> dict:
    return {**size.params(), "history": format_history(history), "guess": str(guess)}


def proposal(params: dict, progress: Progress) -> dict:
    """E of one guess at one position, and V there, as the review measures
    them, each exact or a bound and said which (``*_bound``: "exact",
    "at_least" or "at_most"). The review's estimate counts each class at
    its counting bound, so it is a lower bound on E and on V; where the
    shipped optimal tree holds the position, V is exact and E is at least V.
    The best strategy known (Super Mastermind) gives totals a player can
    reach: upper bounds."""
    size = GameSize.from_params(params)
    history = parse_history(params["history"], size)
    guess = Code.parse(params["guess"], size)
    cands = candidates(size, history)
    reply = feedback(guess, Code.from_index(int(cands[0]), size))  # any reply: E does not depend on it
    values = shared_values(size)
    move = review_move(size, history, guess, reply, values)
    if move.exact:
        return {
            "expected": move.expected,
            "expected_bound": "exact",
            "best_expected": move.best_expected,
            "best_bound": "exact",
        }
    if move.known:
        return {
            "expected": move.expected,
            "expected_bound": "at_most",
            "best_expected": move.best_expected,
            "best_bound": "at_most",
        }
    expected, best, best_bound = move.expected, move.best_expected, "at_least"
    hit = values.tree.get(set_key(cands.astype("int64"))) if values.tree is not None else None
    if hit is not None:  # V off the shipped optimal tree: no guess needs fewer
        best, best_bound = hit[0] / int(cands.shape[0]), "exact"
        expected = max(expected, best)
    return {"expected": expected, "expected_bound": "at_least", "best_expected": best, "best_bound": best_bound}


def proposal_is_quick(params: dict) -> bool:
    size = GameSize.from_params(params)
    n = int(candidates(size, parse_history(params["history"], size)).shape[0])
    return quick(size, n) or (size.n_codes <= AT_ONCE_BOARD_CODES and shipped(size))


# Named apart from the first form of this result (with no bounds), which a
# database may still keep.
register(Kind("proposal-value", proposal, proposal_is_quick))
