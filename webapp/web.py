"""What every page shares: the colour palette, and one helper that answers
htmx with a fragment and everyone else with the whole page."""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort, render_template, request

from . import store


@dataclass(frozen=True)
class Color:
    """How colour ``number`` looks: its name, fill, text colour and symbol,
    so that no peg relies on colour alone."""

    number: int
    name: str
    fill: str
    ink: str
    symbol: str


PALETTE = (
    Color(1, "red", "#d7263d", "#fff", "●"),
    Color(2, "blue", "#1b65c4", "#fff", "■"),
    Color(3, "green", "#2e9e44", "#fff", "▲"),
    Color(4, "yellow", "#f4d03f", "#222", "◆"),
    Color(5, "purple", "#7d3cb5", "#fff", "★"),
    Color(6, "orange", "#f08a24", "#222", "✚"),
    Color(7, "cyan", "#2bc4c9", "#222", "⬟"),
    Color(8, "pink", "#f28fc2", "#222", "♥"),
    Color(9, "brown", "#7b4a2a", "#fff", "✖"),
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
