"""Every request, counted: its route's template (``/games/<game_id>``,
never the path, which may hold a game's id or a private key), its method,
its status and how long it took until its answer started (for an event
stream, until the stream began), into the app's metrics; each 429 by the
limit that refused it; and each puzzle answer recorded (an answer route's
success, the page's and the API's alike)."""

from __future__ import annotations

import time

from flask import current_app, g, request, request_started

from .limits import limiter


def started(sender, **_) -> None:
    """Flask's ``request_started`` signal: before every ``before_request``
    hook, so a request refused by one is timed too."""
    g.request_started = time.perf_counter()


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
    return response


def init_app(app) -> None:
    request_started.connect(started, app, weak=False)
    app.after_request(answered)
