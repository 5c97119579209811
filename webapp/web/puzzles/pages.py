"""The puzzle pages: the next puzzle, one puzzle, a verdict, today's
puzzle, the streak and the player's history. Every answer is a real form
(htmx swaps the verdict in where it can)."""

from __future__ import annotations

from flask import abort, make_response, redirect, render_template, request, url_for
from flask_babel import gettext

from ... import store
from .. import days
from ..answers import is_htmx
from ..errors import error_response
from ..limits import answering
from ..players import browser_player, issued_player, remember_player
from . import service
from .blueprints import bp


def board_context(found: service.StoredPuzzle) -> dict:
    size = found.size
    return {
        "puzzle": found,
        "moves": [{"guess": g, "reply": r} for g, r in found.history],
        "pegs": size.pegs,
        "colors": size.colors,
        "bulls": size.is_bulls_and_cows,
        "size": size,
    }


def puzzle_page(found: service.StoredPuzzle, mode: str, status: int = 200, error: str | None = None, draft: str = ""):
    player = browser_player()
    record = service.streak_of(player)
    context = {
        **board_context(found),
        "mode": mode,
        "error": error,
        "draft": draft,
        "rating": round(service.rating_of(player).rating),
        "answered": player is not None and store.puzzles.answered(player, found.id),
        "seen": service.seen(found),
        "streak": record.streak if record is not None and mode == "streak" else None,
        "day": days.today() if mode == "daily" else None,
    }
    return render_template("puzzles/puzzle.html", **context), status


def found_or_404(puzzle_id: str) -> service.StoredPuzzle:
    found = service.puzzle(puzzle_id)
    if found is None:
        abort(404, service.no_such_puzzle(puzzle_id))
    return found


@bp.get("")
def next_puzzle():
    try:
        found = service.next_for(browser_player())
    except service.Refused as exc:
        abort(exc.status, str(exc))
    return puzzle_page(found, "rated")


@bp.get("/<puzzle_id>")
def show(puzzle_id):
    found = found_or_404(puzzle_id)
    player = browser_player()
    again = player is not None and store.puzzles.answered(player, found.id)
    return puzzle_page(found, "again" if again else "rated")


@bp.get("/daily")
def daily():
    try:
        found = service.daily()
    except service.Refused as exc:
        abort(exc.status, str(exc))
    return puzzle_page(found, "daily")


@bp.post("/<puzzle_id>/answers")
@answering
def answer(puzzle_id):
    found = found_or_404(puzzle_id)
    asked = request.form.get("mode", "rated")
    asked = asked if asked in service.MODES else "rated"
    player, _ = issued_player(browser_player())
    text = request.form.get("guess", "")
    try:
        given = service.answer(found, player, text, asked)
    except service.Refused as exc:
        response = make_response(puzzle_page(found, asked, exc.status, str(exc), text[:64]))
        return remember_player(response, player)
    target = url_for("puzzles.verdict", answer_id=given.id)
    if is_htmx():
        response = make_response(verdict_view(given, found, player, fragment=True))
        response.headers["HX-Push-Url"] = target
    else:
        response = redirect(target, 303)
    return remember_player(response, player)


def verdict_view(given, found: service.StoredPuzzle, viewer: str | None, fragment: bool = False):
    """The verdict of ``given``: its rating change and streak only for its own player (``viewer``)."""
    record = service.streak_of(given.player)
    context = {
        **board_context(found),
        **service.verdict(found, given),
        "mode": given.mode,
        "mine_to_see": viewer == given.player,
        "streak_after": record.streak if record is not None else 0,
        "streak_best": record.best_streak if record is not None else 0,
        "streak_on": record is not None and record.streak_puzzle is not None,
    }
    return render_template("puzzles/_verdict_region.html" if fragment else "puzzles/verdict.html", **context)


@bp.get("/answers/<answer_id>")
def verdict(answer_id):
    given = store.puzzles.answer(answer_id)
    if given is None:
        abort(404, gettext("There is no such answer."))
    found = found_or_404(given.puzzle)
    service.shown(found)  # whoever opens the link now knows the best guesses
    return verdict_view(given, found, browser_player())


@bp.get("/streak")
def streak():
    player = browser_player()
    record = service.streak_of(player)
    if record is not None and record.streak_puzzle:
        found = service.puzzle(record.streak_puzzle)
        if found is not None:
            return puzzle_page(found, "streak")
    return render_template("puzzles/streak.html", record=record)


@bp.post("/streak")
@answering
def start_streak():
    player, _ = issued_player(browser_player())
    try:
        service.start_streak(player)
    except service.Refused as exc:
        return error_response(exc.status, str(exc))
    return remember_player(redirect(url_for("puzzles.streak"), 303), player)


@bp.get("/history")
def history():
    player = browser_player()
    answers = store.puzzles.answers_of(player) if player else []
    return render_template("puzzles/history.html", answers=answers, rating=round(service.rating_of(player).rating))
