"""The puzzle pages: the next puzzle, one puzzle, a verdict, today's
puzzle, the streak and the player's history. Every answer is a real form
(htmx swaps the verdict in where it can)."""

from __future__ import annotations

import time

from flask import abort, make_response, redirect, render_template, request, url_for
from flask_babel import gettext

from ... import store
from .. import days
from ..answers import is_htmx
from ..errors import error_response
from ..limits import answering, creating
from ..players import browser_player, cookie_player, issued_player, remember_player
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


def chosen(source) -> tuple[str, str | None]:
    """The difficulty and theme a page was asked for (the offered ones only)."""
    try:
        return service.choice(source.get("difficulty"), source.get("theme"))
    except service.Refused as exc:
        abort(exc.status, str(exc))


def choice_args(difficulty: str, theme: str | None) -> dict:
    """The query that keeps a choice from one puzzle to the next (none for the defaults)."""
    return {k: v for k, v in (("difficulty", difficulty), ("theme", theme)) if v and v != "normal"}


def puzzle_page(
    found: service.StoredPuzzle,
    mode: str,
    status: int = 200,
    error: str | None = None,
    draft: str = "",
    difficulty: str = "normal",
    theme: str | None = None,
    storm: store.puzzles.Storm | None = None,
):
    player = browser_player()
    record = service.streak_of(player)
    hinted = service.hint_of(found, player)
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
        "difficulty": difficulty,
        "chosen_theme": theme,  # not "theme": the page's colour theme is theme()
        "theme_counts": service.themes() if mode == "rated" else [],
        "hint": service.hint_words(hinted) if hinted else None,
        "hint_offered": mode in ("rated", "daily", "again"),
        "choice": choice_args(difficulty, theme),
        "storm": storm,
        "storm_penalty": int(service.STORM_PENALTY),
        "now": time.time(),
    }
    return render_template("puzzles/puzzle.html", **context), status


def found_or_404(puzzle_id: str) -> service.StoredPuzzle:
    found = service.puzzle(puzzle_id)
    if found is None:
        abort(404, service.no_such_puzzle(puzzle_id))
    return found


@bp.get("")
def next_puzzle():
    difficulty, theme = chosen(request.args)
    try:
        found = service.next_for(browser_player(), difficulty=difficulty, theme=theme)
    except service.Refused as exc:
        abort(exc.status, str(exc))
    return puzzle_page(found, "rated", difficulty=difficulty, theme=theme)


@bp.get("/<puzzle_id>")
def show(puzzle_id):
    found = found_or_404(puzzle_id)
    player = browser_player()
    again = player is not None and store.puzzles.answered(player, found.id)
    difficulty, theme = chosen(request.args)
    return puzzle_page(found, "again" if again else "rated", difficulty=difficulty, theme=theme)


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
    asked = asked if asked in service.MODES and asked != "storm" else "rated"
    difficulty, theme = chosen(request.form)
    player, _ = issued_player(browser_player())
    text = request.form.get("guess", "")
    try:
        given = service.answer(found, player, text, asked)
    except service.Refused as exc:
        page = puzzle_page(found, asked, exc.status, str(exc), text[:64], difficulty, theme)
        return remember_player(make_response(page), player)
    target = url_for("puzzles.verdict", answer_id=given.id, **choice_args(difficulty, theme))
    if is_htmx():
        response = make_response(verdict_view(given, found, player, fragment=True))
        response.headers["HX-Push-Url"] = target
    else:
        response = redirect(target, 303)
    return remember_player(response, player)


def verdict_view(given, found: service.StoredPuzzle, viewer: str | None, fragment: bool = False):
    """The verdict of ``given``: its rating change and streak only for its own player (``viewer``)."""
    record = service.streak_of(given.player)
    difficulty, theme = chosen(request.args if request.method == "GET" else request.form)
    context = {
        **board_context(found),
        **service.verdict(found, given),
        "choice": choice_args(difficulty, theme),
        "hinted": service.hint_of(found, given.player) is not None,
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


def begin_run(start, page: str):
    """Start a streak or a storm (``start(player)``) for this browser's
    player, then show its ``page``; a refusal as its sentence."""
    player, _ = issued_player(browser_player())
    try:
        start(player)
    except service.Refused as exc:
        return error_response(exc.status, str(exc))
    return remember_player(redirect(url_for(page), 303), player)


@bp.post("/streak")
@answering
def start_streak():
    return begin_run(service.start_streak, "puzzles.streak")


@bp.post("/<puzzle_id>/hint")
@answering
def hint(puzzle_id):
    """Show a hint (a theme of the best guess): the answer then rates a draw at best."""
    found = found_or_404(puzzle_id)
    difficulty, theme = chosen(request.form)
    player, _ = issued_player(browser_player())
    try:
        service.take_hint(found, player)
    except service.Refused as exc:
        return error_response(exc.status, str(exc))
    target = url_for("puzzles.show", puzzle_id=found.id, **choice_args(difficulty, theme)) + "#hint"
    return remember_player(redirect(target, 303), player)


@bp.post("/<puzzle_id>/play")
@creating
def play_on(puzzle_id):
    """Play on from the puzzle's position: a game whose secret is drawn from
    the codes still possible, its guesses so far already on the board."""
    found = found_or_404(puzzle_id)
    player, _ = cookie_player()
    game = service.play_on(found, player)
    return remember_player(redirect(url_for("play.board", game_id=game.id), 303), player)


@bp.get("/storm")
def storm():
    """A storm under way (its puzzle and the time left), else how it goes and the best so far."""
    player = browser_player()
    run = service.storm_of(player)
    if run is not None and not run.over and run.puzzle:
        found = service.puzzle(run.puzzle)
        if found is not None:
            return puzzle_page(found, "storm", storm=run)
    record = store.puzzles.player(player) if player else None
    return render_template(
        "puzzles/storm.html", run=run, record=record, seconds=service.STORM_SECONDS, penalty=service.STORM_PENALTY
    )


@bp.post("/storm")
@answering
def start_storm():
    return begin_run(service.start_storm, "puzzles.storm")


@bp.post("/storm/answers")
@answering
def storm_answer():
    found = found_or_404(request.form.get("puzzle", "")[:64])
    player, _ = issued_player(browser_player())
    text = request.form.get("guess", "")
    try:
        run, given = service.storm_answer(found, player, text)
    except service.Refused as exc:
        if exc.status == 409:  # the run is over or has moved on: its page says where it stands
            return remember_player(redirect(url_for("puzzles.storm"), 303), player)
        run = service.storm_of(player)
        page = puzzle_page(found, "storm", exc.status, str(exc), text[:64], storm=run)
        return remember_player(make_response(page), player)
    return remember_player(redirect(url_for("puzzles.storm", last="solved" if given.solved else "missed"), 303), player)


@bp.get("/history")
def history():
    player = browser_player()
    answers = store.puzzles.answers_of(player) if player else []
    return render_template("puzzles/history.html", answers=answers, rating=round(service.rating_of(player).rating))
