"""A finished game's review as pages and the API show it.

A review is named by the game alone (size, secret, guesses), so a board, its
replay link on any server and a challenge's results share one computation
(``computations.review``): the background job ``review``, or the request
itself on a board it reviews at once or when every move is quick or already
known. Each move is kept by its position (the job ``review-move``), so a
popular first guess is worked out once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flask_babel import gettext

from .. import jobs
from ..computations import review_params
from ..engine import Code, Feedback, GameSize, get_strategy
from ..engine.review import ESTIMATE_METHOD, RATINGS
from ..words import error_words
from .links import classroom_url, replay_url


@dataclass
class Section:
    """What the review part of a page shows: the review, or the job still at it."""

    review: dict | None
    job: jobs.Job | None
    error: str | None
    poll_url: str
    size: GameSize
    secret: Code


def section(size: GameSize, secret: Code, guesses: list[Code], limit: int) -> Section:
    """The review of a finished game for a page. Never raises: a full queue
    or a failure becomes a sentence."""
    url = replay_url(size, secret, guesses, limit, endpoint="share.review")
    try:
        job = jobs.get("review", review_params(size, secret, guesses))
    except jobs.Busy as exc:
        return Section(None, None, error_words(exc), url, size, secret)
    if job.failed:
        return Section(
            None,
            None,
            gettext("The review could not be worked out: %(why)s", why=error_words(job.problem)),
            url,
            size,
            secret,
        )
    return Section(job.result if job.done else None, None if job.done else job, None, url, size, secret)


def classroom_links(size: GameSize, review: dict) -> list[str]:
    """The classroom at each reviewed move's position (optimal play's view, or the best known)."""
    strategy = next(name for name in ("optimal", "best", "knuth") if get_strategy(name).available(size))
    history: list[tuple[Code, Feedback]] = []
    out: list[str] = []
    for move in review["moves"]:
        out.append(classroom_url(size, strategy, history))
        guess = Code.parse(move["guess"], size)
        history.append((guess, Feedback(move["black"], move["white"])))
    return out


# The chart: E and V move by move, drawn in a box of CHART_WIDTH by
# CHART_HEIGHT units that the page scales to its column (about 360 pixels on
# a phone, at most 480 on a desktop): every move stays in view, and the 12-unit
# labels read at 11 to 15 pixels.
CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, CHART_RIGHT, CHART_BOTTOM, CHART_TOP = 400, 220, 44, 12, 36, 16
# Move numbers closer than this (in units) would run into one another: past
# it only every second (third, ...) move is numbered.
CHART_LABEL_STEP = 20


def chart(review: dict) -> dict:
    """Points of the E-and-V chart (an SVG the template draws)."""
    moves = review["moves"]
    width = CHART_WIDTH
    top = max([m["expected"] for m in moves] + [1.0])
    top = float(int(top) + 1)
    inner_w = width - CHART_LEFT - CHART_RIGHT
    inner_h = CHART_HEIGHT - CHART_BOTTOM - CHART_TOP
    step = inner_w / max(len(moves), 1)
    every = max(1, math.ceil(CHART_LABEL_STEP / step))

    def x(i: int) -> float:
        return round(CHART_LEFT + step * (i + 0.5), 1)

    def y(value: float) -> float:
        return round(CHART_TOP + inner_h * (1 - value / top), 1)

    ticks = [{"value": v, "y": y(v)} for v in range(int(top) + 1)]
    points = [
        {
            "move": m["move"],
            "x": x(i),
            "e": y(m["expected"]),
            "v": y(m["best_expected"]),
            "expected": m["expected"],
            "best": m["best_expected"],
            "rating": m["rating"],
            "labelled": i % every == 0,
        }
        for i, m in enumerate(moves)
    ]
    return {
        "width": width,
        "height": CHART_HEIGHT,
        "left": CHART_LEFT,
        "base": CHART_HEIGHT - CHART_BOTTOM,
        "top": CHART_TOP,
        "right": width - CHART_RIGHT,
        "ticks": ticks,
        "points": points,
        "bar": round(min(step * 0.4, 18), 1),
        "e_line": " ".join(f"{p['x']},{p['e']}" for p in points),
        "v_line": " ".join(f"{p['x']},{p['v']}" for p in points),
    }


def template_context(part: Section) -> dict:
    """What ``_review.html`` needs."""
    context: dict = {"section": part, "ratings": RATINGS, "estimate_method": ESTIMATE_METHOD}
    if part.review is not None:
        context["chart"] = chart(part.review)
        context["classroom"] = classroom_links(part.size, part.review)
    return context


def skill(size: GameSize, secret: Code, guesses: list[Code]) -> int | None:
    """A finished game's skill score, or None while it is worked out (its
    job is started; a full queue just means later)."""
    try:
        job = jobs.get("review", review_params(size, secret, guesses))
    except jobs.Busy:
        return None
    return int(job.result["skill"]) if job.done else None
