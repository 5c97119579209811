"""What every page shares: the colour palette, and one helper that answers
htmx with a fragment and everyone else with the whole page."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from flask import abort, current_app, g, render_template, request

from . import store
from .engine.strategies import Budget


@dataclass(frozen=True)
class Color:
    """How colour ``number`` is named and marked, so that no peg relies on
    colour alone. Its fill and ink are the stylesheet's ``.c1`` … ``.c9``."""

    number: int
    name: str
    symbol: str


PALETTE = (
    Color(1, "red", "●"),
    Color(2, "blue", "■"),
    Color(3, "green", "▲"),
    Color(4, "yellow", "◆"),
    Color(5, "purple", "★"),
    Color(6, "orange", "✚"),
    Color(7, "cyan", "⬟"),
    Color(8, "pink", "♥"),
    Color(9, "brown", "✖"),
)


def color(number: int) -> Color:
    """The look of colour ``number`` (1-based)."""
    return PALETTE[number - 1]


def game_or_404(game_id: str) -> store.Game:
    """The game with this id, or a 404 that says so."""
    try:
        return store.load_game(game_id)
    except store.GameNotFound:
        abort(404, "There is no game with that id. It may have been mistyped.")


def budget() -> Budget:
    """The engine work this request may still do: ``REQUEST_BUDGET`` pairs
    shared by every engine call it makes, and no exact search."""
    if "budget" not in g:
        g.budget = Budget(current_app.config["REQUEST_BUDGET"], search=False)
    return g.budget


def move_number(value, typed: bool, required: bool = True) -> int | None:
    """The move number a form (``typed`` False) or a JSON body posts, from 1;
    None when it is missing and not ``required``; otherwise a 400 that says
    what is wrong. Only ASCII digits count in a form."""
    if value is None or (not typed and value == ""):
        if required:
            abort(400, "Say which move this is: \"move\" is the guess's number, from 1."
                  if typed else "The form was incomplete: reload the page and try again.")
        return None
    if typed:
        number = value if isinstance(value, int) and not isinstance(value, bool) else None
    else:
        text = str(value).strip()
        number = int(text) if text.isascii() and text.isdigit() and len(text) <= 4 else None
    if number is None or number < 1:
        abort(400, "\"move\" must be a whole number from 1 (the guess's number)." if typed
              else "The form was incomplete: reload the page and try again.")
    return number


# An anonymous player: a random token, no account and nothing personal. Pages
# keep it in a cookie; API clients send back the one they were given.
PLAYER_COOKIE = "player"
PLAYER_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
PLAYER_COOKIE_DAYS = 365


def player_token(raw=None) -> tuple[str, bool]:
    """The player token ``raw`` when it is one, else a new one; and whether
    it is new. A value that is not a token at all is a 400."""
    if raw is None or raw == "":
        return secrets.token_urlsafe(16), True
    if not isinstance(raw, str) or not PLAYER_TOKEN.fullmatch(raw):
        abort(400, "\"player\" must be the token an earlier answer gave you, or left out.")
    return raw, False


def cookie_player() -> tuple[str, bool]:
    """This browser's player token (from its cookie), or a new one."""
    raw = request.cookies.get(PLAYER_COOKIE, "")
    return player_token(raw if PLAYER_TOKEN.fullmatch(raw) else None)


def remember_player(response, token: str):
    """Keep the player token in an HttpOnly, SameSite=Lax cookie for a year."""
    response.set_cookie(PLAYER_COOKIE, token, max_age=PLAYER_COOKIE_DAYS * 86400, httponly=True,
                        samesite="Lax", secure=request.is_secure)
    return response


def is_htmx() -> bool:
    """True for a request htmx made to swap part of a page (not a history restore)."""
    return request.headers.get("HX-Request") == "true" and not request.headers.get(
        "HX-History-Restore-Request"
    )


def render(page: str, fragment: str, status: int = 200, **context):
    """The fragment for htmx, the full page otherwise; both get the same context."""
    return render_template(fragment if is_htmx() else page, **context), status


def no_store(response):
    """An ``after_request`` hook for every view of a game's state: never
    shown from a cache (after Back, a stale board would offer a move that was
    already played, and a shared cache must not keep anyone's game)."""
    response.headers["Cache-Control"] = "no-store"
    return response


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
    where = (f"POST it to {twin} instead" if twin
             else f"the JSON API is described at {current_app.url_map.bind('').build('apidocs.page')}")
    abort(415, f"This address takes form fields, not {request.mimetype or 'that body'}: {where}.")


def init_app(app) -> None:
    app.jinja_env.globals.update(color=color, palette=PALETTE)
    app.before_request(forms_only)

    @app.after_request
    def vary_on_htmx(response):
        response.vary.add("HX-Request")
        return response
