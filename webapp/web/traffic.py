"""Every request, counted and logged: its route's template
(``/games/<game_id>``, never the path, which may hold a game's id or a
private key, nor its query), its method, its status and how long it took
until its answer started (for an event stream, until the stream began),
into the app's metrics and as one line of ``mastermind.requests``; each
429 by the limit that refused it; and each puzzle answer recorded (an
answer route's success, the page's and the API's alike).

Each request goes by an id: the ``X-Request-ID`` it came with (nginx sets
one), or one made here; the answer carries it back in ``X-Request-ID``,
every log line of the request carries it, and so do the lines of a job
the request starts (``jobs``)."""

from __future__ import annotations

import logging
import time

from flask import current_app, g, request, request_started

from ..logs import REQUEST_ID, request_id
from ..metrics import UNMATCHED
from .limits import limiter

LOGGER = logging.getLogger("mastermind.requests")


def started(sender, **_) -> None:
    """Flask's ``request_started`` signal: before every ``before_request``
    hook, so a request refused by one is timed and named too."""
    g.request_started = time.perf_counter()
    g.request_id = request_id(request.headers.get("X-Request-ID"))
    REQUEST_ID.set(g.request_id)


def finished(_exc=None) -> None:
    """A ``teardown_request`` hook: what runs next on this thread is not this request's."""
    REQUEST_ID.set(None)


def route() -> str | None:
    """The template of the route the request matched, or None."""
    rule = request.url_rule
    return rule.rule if rule is not None else None


# The routes that record a puzzle answer when they succeed.
PUZZLE_ANSWERS = frozenset({"puzzles.answer", "puzzles_api.answer"})


def refusing_limit() -> str:
    """The name of the limit that refused this request's 429: the scope of
    Flask-Limiter's (``create``, ``live-join``, ``live-vote``; never its
    key, which holds the client's address), else the live sessions' count
    of join codes that found none (``live-lookup``)."""
    passed = limiter.current_limit
    if passed is not None and passed.breached and passed.request_args:
        return str(passed.request_args[-1])
    return "live-lookup" if (request.blueprint or "").startswith("live") else "other"


def answered(response):
    """An ``after_request`` hook: count the request (and its refusal)."""
    began = g.get("request_started")
    seconds = time.perf_counter() - began if began is not None else 0.0
    metrics = current_app.extensions["metrics"]
    metrics.request(route(), request.method, response.status_code, seconds)
    if response.status_code == 429:
        metrics.refused(refusing_limit())
    elif request.endpoint in PUZZLE_ANSWERS and response.status_code < 400:
        metrics.puzzle_answers.inc()
    if g.get("request_id"):
        response.headers["X-Request-ID"] = g.request_id
    if current_app.config["LOG_REQUESTS"]:
        log_request(response.status_code, seconds)
    return response


def log_request(status: int, seconds: float) -> None:
    """One line: ``GET /games/<game_id> 200 3.1 ms`` (the id is the line's own field)."""
    method, template, ms = request.method, route() or UNMATCHED, round(seconds * 1000, 1)
    LOGGER.info(
        "%s %s %d %.1f ms",
        method,
        template,
        status,
        ms,
        extra={"method": method, "route": template, "status": status, "duration_ms": ms},
    )


def init_app(app) -> None:
    request_started.connect(started, app, weak=False)
    app.after_request(answered)
    app.teardown_request(finished)
