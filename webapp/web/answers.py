"""How a view answers: the fragment htmx asked for or the whole page, never
from a cache for a game's state, and Vary: HX-Request."""

from __future__ import annotations

from flask import render_template, request


def is_htmx() -> bool:
    """True for a request htmx made to swap part of a page (not a history restore)."""
    return request.headers.get("HX-Request") == "true" and not request.headers.get("HX-History-Restore-Request")


def render(page: str, fragment: str, status: int = 200, **context):
    """The fragment for htmx, the full page otherwise; both get the same context."""
    return render_template(fragment if is_htmx() else page, **context), status


def no_store(response):
    """An ``after_request`` hook for every view of a game's state: never
    shown from a cache (after Back, a stale board would offer a move that was
    already played, and a shared cache must not keep anyone's game)."""
    response.headers["Cache-Control"] = "no-store"
    return response


def vary_on_htmx(response):
    """An ``after_request`` hook: answers differ for htmx and for others."""
    response.vary.add("HX-Request")
    return response
