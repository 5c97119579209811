"""Error answers: JSON under /api/, a readable page everywhere else, and a
4xx status for anything a client got wrong."""

from __future__ import annotations

from urllib.parse import quote

from flask import jsonify, make_response, render_template, request
from flask.globals import request_ctx
from flask_babel import gettext, lazy_gettext
from flask_limiter import RateLimitExceeded
from werkzeug.exceptions import HTTPException, MethodNotAllowed

MESSAGES = {
    400: lazy_gettext("That request could not be understood."),
    404: lazy_gettext("There is nothing at this address."),
    405: lazy_gettext("That method is not allowed here."),
    413: lazy_gettext("That request is too large."),
    429: lazy_gettext("Too many new games from this address just now: wait a minute, then try again."),
}

# Routes outside /api/ that the API's description covers (a live session's events).
JSON_ENDPOINTS = {"live.events"}


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.endpoint in JSON_ENDPOINTS


def error_response(status: int, message: str, page: str = "error.html", **context):
    """A JSON or HTML error with ``message`` and ``status`` (``page``, a
    template extending error.html, may say more with ``context``); plain
    text when no page can be drawn (no address to build its links on)."""
    if wants_json():
        return make_response(jsonify(error=message), status)
    if request_ctx.url_adapter is None:
        return make_response((message, status, {"Content-Type": "text/plain; charset=utf-8"}))
    return make_response(render_template(page, status=status, message=message, **context), status)


def init_app(app) -> None:
    def store_unavailable(exc):
        """A database that cannot be written (read-only, disk full, locked):
        a 503 the player understands, never a 500."""
        app.logger.error("database unavailable: %s", exc)
        app.extensions["metrics"].database_errors.labels(type(exc).__name__).inc()
        unavailable = gettext(
            "The game could not be saved just now (the server cannot write its records). "
            "Nothing was lost: try again in a moment."
        )
        response = error_response(503, unavailable)
        response.headers["Retry-After"] = "30"
        response.headers["X-Message"] = quote(unavailable)  # a header is ASCII: the page's script decodes it
        return response

    for error in app.extensions["store"].unavailable:
        app.register_error_handler(error, store_unavailable)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        status = exc.code or 500
        # A 429 says what its limit words (which count, how long to wait), never the count itself.
        worded = isinstance(exc, RateLimitExceeded) and exc.limit.error_message is not None
        custom = exc.description != type(exc).description and (status != 429 or worded)
        message = exc.description if custom and exc.description else str(MESSAGES.get(status, exc.name))
        response = error_response(status, message)
        if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response
