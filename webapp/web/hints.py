"""A strategy's next guess as a page shows it: worked out within the
request's budget, or by the background job ``hint`` when it needs more (a
large board early on, an exact search off the shipped tree). The board's
hints and the codemaker's guesses both come from here."""

from __future__ import annotations

import hashlib

import numpy as np

from .. import jobs
from ..computations import hint_params
from ..engine import Code, Feedback, GameSize, Strategy, StrategyError, Suggestion, best_guess
from ..engine.strategies import TooSlow
from ..words import error_words
from .positions import budget


def suggestion_from(result: dict, size: GameSize, strategy: Strategy) -> Suggestion:
    return Suggestion(
        strategy,
        Code.parse(result["guess"], size),
        result["remaining"],
        result["score"],
        {Feedback.parse(k, size): n for k, n in result["partition"].items()},
    )


def next_guess(strategy: Strategy, size: GameSize, history, seed: str, hard: bool = False) -> Suggestion | jobs.Job:
    """``strategy``'s guess after ``history``, or the job that works it out
    (done or not: its result is read with :func:`suggestion_from`). ``seed``
    names the position (a game and move), so the random strategy guesses the
    same on every reload. ``hard``: a guess that fits every reply so far
    (``strategy`` is then its :func:`fitting` form). Raises :class:`jobs.Busy`
    when the job cannot be queued now."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big"))
    try:
        return best_guess(strategy, size, history, rng=rng, max_pairs=budget())
    except TooSlow:
        job = jobs.get("hint", hint_params(size, strategy.name, history, hard))
    if job.failed:
        raise StrategyError(error_words(job.problem))
    return job
