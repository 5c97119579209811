"""Rate limits on the routes that create something (games, challenges,
codemaker games), per client address, with Flask-Limiter. A player never
meets them; a script creating hundreds of games a second does, and gets 429
with ``Retry-After``. The counters live in memory by default, or where
``RATELIMIT_STORAGE_URI`` says: ``REDIS_URL``'s Redis when it is set, so that
several servers count together.
Behind a proxy, let it set ``X-Forwarded-For`` and trust it with werkzeug's
``ProxyFix``, so the client's own address is counted."""

from __future__ import annotations

from flask import current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

limiter = Limiter(key_func=get_remote_address)

DEFAULTS = {
    "RATELIMIT_ENABLED": True,
    "RATELIMIT_STORAGE_URI": "memory://",
    "RATELIMIT_HEADERS_ENABLED": True,
    # New games, challenges and codemaker games per client address.
    "CREATE_RATE_LIMIT": "30 per minute;300 per hour",
}


def creation_limit() -> str:
    return current_app.config["CREATE_RATE_LIMIT"]


# The decorator every creating route wears: one count shared by all of them.
creating = limiter.shared_limit(creation_limit, scope="create", methods=["POST"])


def init_app(app) -> None:
    if app.config.get("REDIS_URL"):  # counters shared by every server
        app.config.setdefault("RATELIMIT_STORAGE_URI", app.config["REDIS_URL"])
    for name, value in DEFAULTS.items():
        app.config.setdefault(name, value)
    limiter.init_app(app)
