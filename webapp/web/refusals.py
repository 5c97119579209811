"""How views refuse: an address whose state cannot be shown, the status of an
engine's refusal, the 503 of a full job queue."""

from __future__ import annotations

from flask import current_app

from ..engine import MastermindError
from ..engine.strategies import TooSlow
from ..words import error_words
from .errors import error_response


class ViewError(MastermindError):
    """A URL whose state cannot be shown (a step past the end, a history that
    does not fit the secret)."""


def status_of(exc: MastermindError) -> int:
    """422 for work too large to do now, 400 for anything malformed."""
    return 422 if isinstance(exc, TooSlow) else 400


def busy_response(exc, page=None):
    """The 503 of a full job queue, with ``Retry-After``: ``page`` (HTML) or JSON."""
    response = error_response(503, error_words(exc)) if page is None else current_app.make_response((page, 503))
    response.headers["Retry-After"] = str(exc.retry_after)
    return response
