"""The daily game, Daily Mastermind (``/daily``), and a player's statistics (``/me``).

Each browser is an anonymous player token (an HttpOnly, SameSite=Lax
cookie made on first play; no account, no personal data). It ties the
browser to its daily games and its statistics; API clients send it back in
the body (``player``) or the query."""

from __future__ import annotations

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import store
from ..settings import small_number
from . import days
from .answers import no_store
from .contract import GAME_LINKS, LIMITED, NO_STORE, Documented, operation
from .limits import creating
from .links import external_url
from .loaders import game_json
from .players import PLAYER_TOKEN, browser_player, player_token, remember_player
from .puzzles.service import dashboard as puzzle_dashboard
from .schemas import Daily, DailyGame, Stats, StatsQuery
from .stats import player_stats

bp = Blueprint("daily", __name__)
# The token a carry link replaced, kept so the browser can switch back.
PREVIOUS_COOKIE = "previous_player"
api = Blueprint("daily_api", __name__, url_prefix="/api")


def day_or_404(number: int) -> int:
    if not 1 <= number <= days.today():
        abort(
            404,
            gettext(
                "There is no Daily Mastermind #%(number)s yet: today's is #%(today)d.",
                number=number,
                today=days.today(),
            ),
        )
    return number


def page(number: int, status: int = 200, error: str | None = None):
    player = browser_player()
    mine = store.players.daily_games_of(player, number) if player else {}
    boards = [
        {"key": k, "board": days.board(k), "title": days.TITLES[k], "game": mine.get(k)} for k in days.DAILY_BOARDS
    ]
    seconds = days.seconds_to_next()
    context = {
        "number": number,
        "date": days.date_of(number),
        "today": days.today(),
        "boards": boards,
        "next_hours": seconds // 3600,
        "next_minutes": seconds % 3600 // 60,
        "error": error,
    }
    return render_template("daily.html", **context), status


@bp.get("/daily")
def today():
    return page(days.today())


@bp.get("/daily/<int:number>")
def day(number):
    return page(day_or_404(number))


@bp.post("/daily")
@creating
def play():
    number = days.today()
    raw_day = request.form.get("day", "")
    if raw_day:
        day = small_number(raw_day, digits=6)
        if day is None:
            return page(number, 400, gettext("The day must be the number of a Daily Mastermind, such as 12."))
        number = day_or_404(day)
    board = request.form.get("board", "")
    if board not in days.DAILY_BOARDS:
        return page(number, 400, gettext("Choose one of the daily boards: classic or super."))
    player, _ = player_token(browser_player())
    game, _ = days.play(player, number, board)
    return remember_player(redirect(url_for("play.board", game_id=game.id), 303), player)


@api.post("/daily")
@creating
@operation(
    id="playDaily",
    tag="daily",
    summary="Today's Daily Mastermind",
    description="One secret a day (UTC) per board, the same for everyone: the player's game of today's "
    "puzzle, made the first time (201), the same game after that (200). Guess in it with "
    "POST /api/games/{game_id}/guesses.",
    body=Daily,
    answers={
        201: Documented("A new game of today's Daily Mastermind.", DailyGame, LIMITED, GAME_LINKS),
        200: Documented("The player's game of today's Daily Mastermind.", DailyGame, LIMITED, GAME_LINKS),
    },
    errors=(400, 429, 503),
)
def play_json(body: Daily):
    board = days.board_for(*body.size)
    assert board is not None  # the model admits only the daily sizes
    player, _ = player_token(body.player)
    number = days.today()
    game, created = days.play(player, number, board)
    return {**game_json(game), "player": player, "day": number, "date": days.date_of(number).isoformat()}, (
        201 if created else 200
    )


# --- statistics ------------------------------------------------------------------------------


@bp.get("/me")
def me():
    player = browser_player()
    stats = player_stats(player) if player else None
    carry = external_url("daily.carry", token=player) if player else None
    previous = request.cookies.get(PREVIOUS_COOKIE, "")
    previous = previous if PLAYER_TOKEN.fullmatch(previous) and previous != player else None
    return render_template(
        "me.html",
        stats=stats,
        carry=carry,
        previous=held_by(previous) and previous,
        puzzles=puzzle_dashboard(player),
    )


@api.get("/me/stats")
@operation(
    id="getStats",
    tag="daily",
    summary="A player's statistics",
    query=StatsQuery,
    query_defaults=lambda: {"player": browser_player()},
    answers={200: Documented("The statistics.", Stats, NO_STORE)},
    errors=(400, 503),
)
def stats_json(query: StatsQuery):
    return {"player": query.player, **player_stats(query.player)}


def held_by(player: str | None) -> dict | None:
    """What a browser's own token holds (finished games, Daily Mastermind
    games, today's still being played), or None when it holds nothing."""
    if not player:
        return None
    games = store.players.finished_games(player)
    held = {
        "games": len(games),
        "daily": sum(1 for g in games if g.daily is not None),
        "playing": sum(1 for g in store.players.daily_games_of(player, days.today()).values() if not g.over),
    }
    return held if any(held.values()) else None


def carry_page(token: str, status: int = 200):
    mine = browser_player()
    left_behind = held_by(mine) if mine != token else None
    g.no_referrer = True  # the token stays off other sites' logs
    return render_template("carry.html", token=token, same=token == mine, left_behind=left_behind), status


@bp.get("/me/carry/<token>")
def carry(token):
    """The private link that carries statistics to another browser: a
    button, so that merely opening the link changes nothing; and when this
    browser holds statistics of its own, it says what they are and asks."""
    if not PLAYER_TOKEN.fullmatch(token):
        abort(404)
    return carry_page(token)


@bp.post("/me/carry")
def carry_here():
    """Use the statistics of ``token`` here. The browser's own token, if it
    held anything, is kept in a second cookie: /me offers the way back."""
    token = request.form.get("token", "")
    if not PLAYER_TOKEN.fullmatch(token):
        abort(400, gettext("This link is not a statistics link: copy it again from the other browser."))
    mine = browser_player()
    if mine != token and held_by(mine) and request.form.get("replace") != "1":
        return carry_page(token, 409)  # asked, not yet answered
    response = remember_player(redirect(url_for("daily.me"), 303), token)
    if mine and mine != token:
        remember_player(response, mine, PREVIOUS_COOKIE)
    return response


bp.after_request(no_store)
api.after_request(no_store)
