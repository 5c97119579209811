"""What every page shares: the colour palette, and one helper that answers
htmx with a fragment and everyone else with the whole page."""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort, render_template, request

from . import store


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


def is_htmx() -> bool:
    """True for a request htmx made to swap part of a page (not a history restore)."""
    return request.headers.get("HX-Request") == "true" and not request.headers.get(
        "HX-History-Restore-Request"
    )


def render(page: str, fragment: str, status: int = 200, **context):
    """The fragment for htmx, the full page otherwise; both get the same context."""
    return render_template(fragment if is_htmx() else page, **context), status


def init_app(app) -> None:
    app.jinja_env.globals.update(color=color, palette=PALETTE)

    @app.after_request
    def vary_on_htmx(response):
        response.vary.add("HX-Request")
        return response
