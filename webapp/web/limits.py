"""Rate limits on the routes that create something (games, challenges,
codemaker games), per client address, with Flask-Limiter. A player never
meets them; a script creating hundreds of games a second does, and gets 429
with ``Retry-After``. Puzzle answers, and new puzzle players, have limits
of their own (``answering``, :func:`count_new_player`).

The counters must be the same for every worker process and every server, or
each worker would allow the whole limit again. They live in the app's own
database by default (``mastermind://``: one upsert per hit through the store,
so SQLite counts across the workers of a machine and PostgreSQL across
servers), in ``REDIS_URL``'s Redis when it is set, or wherever
``RATELIMIT_STORAGE_URI`` says. Behind a proxy, let it set
``X-Forwarded-For`` and trust it with werkzeug's ``ProxyFix`` (``PROXIES``),
so the client's own address is counted."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from flask import current_app, g, request
from flask_babel import ngettext
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from limits.storage import Storage

from .. import store
from ..jobs import Starts

limiter = Limiter(key_func=get_remote_address)


class StoreCounters(Storage):
    """Fixed-window counters in the app's database (the store's
    ``rate_limits`` table), for ``mastermind://``. Used inside requests only:
    each call goes through the request's database connection."""

    STORAGE_SCHEME = ["mastermind"]

    @property
    def base_exceptions(self):
        return current_app.extensions["store"].unavailable

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return store.counters.hit_counter(key, expiry, amount, time.time())

    def get(self, key: str) -> int:
        return store.counters.read_counter(key, time.time())[0]

    def get_expiry(self, key: str) -> float:
        return store.counters.read_counter(key, time.time())[1]

    def check(self) -> bool:
        return True

    def reset(self) -> int | None:
        return store.counters.clear_counters()

    def clear(self, key: str) -> None:
        store.counters.clear_counters(key)


def minutes_until(reset: float) -> int:
    """Whole minutes from now until ``reset`` (a time), at least one: the
    wait a refusal names, never shorter than the real one."""
    return max(1, math.ceil((reset - time.time()) / 60))


def worded(words: Callable[[int], str]) -> Callable[[], str]:
    """A limit's refusal: ``words`` given the minutes until the window the
    request went past ends (Flask-Limiter's ``error_message``)."""

    def refusal() -> str:
        passed = limiter.current_limit
        return words(minutes_until(passed.window.reset_time if passed is not None else time.time()))

    return refusal


def too_many_creations(minutes: int) -> str:
    return ngettext(
        "Too many new games, challenges and live sessions from this address just now: try again in %(num)d minute.",
        "Too many new games, challenges and live sessions from this address just now: try again in %(num)d minutes.",
        minutes,
    )


def too_many_answers(minutes: int) -> str:
    return ngettext(
        "Too many puzzle answers from this address just now: try again in %(num)d minute.",
        "Too many puzzle answers from this address just now: try again in %(num)d minutes.",
        minutes,
    )


def too_many_new_players(minutes: int) -> str:
    return ngettext(
        "Too many new puzzle players from this address just now: answer as a player you already have, or try "
        "again in %(num)d minute.",
        "Too many new puzzle players from this address just now: answer as a player you already have, or try "
        "again in %(num)d minutes.",
        minutes,
    )


def too_many_joins(minutes: int) -> str:
    return ngettext(
        "Too many students joined this session just now: try again in %(num)d minute.",
        "Too many students joined this session just now: try again in %(num)d minutes.",
        minutes,
    )


def too_many_votes(minutes: int) -> str:
    return ngettext(
        "Too many proposals in this session just now: try again in %(num)d minute.",
        "Too many proposals in this session just now: try again in %(num)d minutes.",
        minutes,
    )


def creation_limit() -> str:
    return current_app.config["CREATE_RATE_LIMIT"]


# The decorator every creating route wears: one count shared by all of them.
creating = limiter.shared_limit(
    creation_limit, scope="create", methods=["POST"], error_message=worded(too_many_creations)
)


def config_limit(name: str):
    return lambda: current_app.config[name]


# Puzzle answers and streaks started: a count of their own, not new games.
answering = limiter.shared_limit(
    config_limit("PUZZLE_ANSWER_RATE_LIMIT"),
    scope="puzzle-answer",
    methods=["POST"],
    error_message=worded(too_many_answers),
)


def count_new_player() -> int:
    """Count a new puzzle player against the client's address: 0 while it
    is within ``PUZZLE_PLAYER_RATE_LIMIT``, else the seconds until the
    window it used up ends (and nothing is counted)."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return 0
    address, now = get_remote_address(), time.time()
    items = parse_many(config_limit("PUZZLE_PLAYER_RATE_LIMIT")())
    waits = [
        limiter.limiter.get_window_stats(item, "puzzle-players", address).reset_time - now
        for item in items
        if not limiter.limiter.test(item, "puzzle-players", address)
    ]
    if waits:
        return max(1, math.ceil(max(waits)))
    for item in items:
        limiter.limiter.hit(item, "puzzle-players", address)
    return 0


def wrong_code_limits():
    return parse_many(config_limit("LIVE_LOOKUP_RATE_LIMIT")())


def wrong_codes_wait() -> int:
    """Seconds until the client's address may try join codes that find no
    session again: 0 while it is within its limit. Past the limit nothing
    more is counted, so each window it used up ends when it was going to."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return 0
    address, now = get_remote_address(), time.time()
    waits = [
        limiter.limiter.get_window_stats(item, "live-lookup", address).reset_time - now
        for item in wrong_code_limits()
        if not limiter.limiter.test(item, "live-lookup", address)
    ]
    return max(0, math.ceil(max(waits, default=0)))


def hold_off(seconds: int) -> None:
    """Send ``Retry-After: seconds`` with this request's 429."""
    g.retry_after = max(int(seconds), g.get("retry_after", 0))


def count_wrong_code() -> bool:
    """Count a join code that found no session against the client's
    address; whether the address is still within its limit."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return True
    address = get_remote_address()
    hits = [limiter.limiter.hit(item, "live-lookup", address) for item in wrong_code_limits()]
    return all(hits)


def known_key(code: str) -> str:
    return f"LIMITER/live-known/{get_remote_address()}/{code}"


def know_session(code: str) -> None:
    """Remember that the client's address has met session ``code`` (started
    it, or joined it): past the limit of wrong codes, it still passes."""
    if current_app.config["RATELIMIT_ENABLED"]:
        limiter.limiter.storage.incr(known_key(code), int(float(current_app.config["LIVE_IDLE_HOURS"]) * 3600))


def knows_session(code: str) -> bool:
    return not current_app.config["RATELIMIT_ENABLED"] or limiter.limiter.storage.get(known_key(code)) > 0


def stream_key(code: str, anonymous: bool = False) -> str:
    return f"LIMITER/live-streams/{code}" + ("/anonymous" if anonymous else "")


def enter_stream(code: str, anonymous: bool = False) -> bool:
    """Count one more event stream of session ``code`` where every worker
    and server counts (the rate limits' storage); False, and nothing
    counted, past ``LIVE_STREAMS_PER_SESSION``. A stream without a token of
    the session (``anonymous``) is counted apart, against
    ``LIVE_ANONYMOUS_STREAMS``, so such streams never take the room's
    places. Each stream entered is left with :func:`leave_stream`. The
    count lives in windows of a few stream lengths, so a count a crashed
    worker never gave back ends with its window."""
    config = current_app.config
    if not config["RATELIMIT_ENABLED"]:
        return True
    storage, key = limiter.limiter.storage, stream_key(code, anonymous)
    window = int(3 * float(config["LIVE_STREAM_SECONDS"])) + 60
    most = int(config["LIVE_ANONYMOUS_STREAMS" if anonymous else "LIVE_STREAMS_PER_SESSION"])
    if storage.incr(key, window) > most:
        storage.incr(key, window, -1)
        return False
    return True


def leave_stream(app, code: str, anonymous: bool = False) -> None:
    """Give back a stream's place in its session's count (called as its
    response closes, after the request: so with the app given)."""
    if not app.config["RATELIMIT_ENABLED"]:
        return
    with app.app_context():
        window = int(3 * float(app.config["LIVE_STREAM_SECONDS"])) + 60
        limiter.limiter.storage.incr(stream_key(code, anonymous), window, -1)


def live_session_key() -> str:
    """The session a live request names (in its address or its form), as
    typed; the client's address when it names none."""
    code = (request.view_args or {}).get("code") or request.form.get("code", "")
    return "".join(c for c in str(code).upper() if c not in " -")[:32] or get_remote_address()


live_joining = limiter.shared_limit(
    config_limit("LIVE_JOIN_RATE_LIMIT"),
    scope="live-join",
    methods=["POST"],
    key_func=live_session_key,
    error_message=worded(too_many_joins),
)
live_voting = limiter.shared_limit(
    config_limit("LIVE_VOTE_RATE_LIMIT"),
    scope="live-vote",
    methods=["POST"],
    key_func=live_session_key,
    error_message=worded(too_many_votes),
)


def init_app(app) -> None:
    limiter.init_app(app)

    @app.after_request
    def retry_after(response):
        if response.status_code == 429 and g.get("retry_after"):
            response.headers["Retry-After"] = str(g.retry_after)
        return response

    if app.config["RATELIMIT_ENABLED"]:
        app.extensions["jobs"].starts = Starts(limiter.limiter, parse_many(app.config["JOBS_START_RATE_LIMIT"]))
    else:  # no limits, so no storage to count in: every client may start jobs
        app.extensions["jobs"].starts = Starts(None, [])
