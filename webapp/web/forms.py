"""Reading forms: only form bodies on form routes, a move or step number, a
solver form's values as typed."""

from __future__ import annotations

from flask import abort, current_app, request
from flask_babel import gettext

from ..settings import small_number


def form_defaults(args) -> dict:
    """What a solver page's settings form shows: the query as typed, within reason."""
    return {
        key: str(args.get(key, ""))[:20]
        for key in ("pegs", "colors", "distinct", "distinct_guesses", "strategy", "adversary", "history")
    }


def move_number(value: str, least: int = 1) -> int:
    """The move (or step) number a form posts, at least ``least``, or a 400:
    only ASCII digits count."""
    number = small_number(value)
    if number is None or number < least:
        abort(400, gettext("The form was incomplete: reload the page and try again."))
    return number


# An anonymous player: a random token, no account and nothing personal. Pages
# keep it in a cookie; API clients send back the one they were given.


FORM_TYPES = {"", "application/x-www-form-urlencoded", "multipart/form-data"}


def forms_only():
    """A ``before_request`` hook: the pages' POST routes take form fields;
    a JSON (or any other) body gets 415 and the address of the API route
    that takes it."""
    if request.method != "POST" or request.path.startswith("/api/") or request.mimetype in FORM_TYPES:
        return None
    twin = "/api" + request.path
    try:
        current_app.url_map.bind("").match(twin, method="POST")
    except Exception:  # no API route at that address: point at the API's index
        twin = None
    where = (
        gettext("POST it to %(address)s instead", address=twin)
        if twin
        else gettext(
            "the JSON API is described at %(address)s", address=current_app.url_map.bind("").build("apidocs.page")
        )
    )
    body = request.mimetype or gettext("that body")
    abort(415, gettext("This address takes form fields, not %(body)s: %(where)s.", body=body, where=where))
