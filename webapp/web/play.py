"""Playing in the browser: the home page, new games and the board."""

from __future__ import annotations

import json
import time

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext, ngettext

from .. import jobs, store
from ..computations import hint_result
from ..engine import DEFAULT_STRATEGY, Code, MastermindError, candidates, get_strategy, rules
from ..engine import PRESETS as STRATEGIES
from ..engine.position import partition_bars
from ..engine.strategies import fitting
from ..settings import BOARDS, BOARDS_BY_KEY, SettingsError, parse_hard, parse_settings
from ..words import error_words, strategy_title
from . import days, hints
from . import review as reviews
from .answers import is_htmx, no_store, render
from .forms import move_number
from .limits import creating
from .links import classroom_url, external_url, game_replay_url
from .loaders import game_or_404, play_guess
from .players import cookie_player, remember_player
from .refusals import busy_response
from .sharing import share_context
from .wording import inconsistent_sentence, number, reply_words

bp = Blueprint("play", __name__)
# "Show codes still possible" lists the codes themselves up to this many.
BOARD_LISTED_CODES = 50


def board_context(game: store.games.Game, **extra) -> dict:
    """What the board templates need; the secret only once the game is over."""
    context = {
        "game": game,
        "pegs": game.size.pegs,
        "bulls": game.size.is_bulls_and_cows,
        "colors": game.size.colors,
        "secret": game.secret if game.over else None,
        "remaining": None,
        "remaining_codes": [],
        "error": None,
        "draft": "",
        "announcement": announcement(game),
        # In hard mode, those that can choose among the codes still possible.
        "strategies": [
            s for s in STRATEGIES.values() if s.available(game.size) and not (game.hard and s.chooser is not None)
        ],
        "strategy": game.hint_strategy or DEFAULT_STRATEGY,
        "suggestion": None,
        "suggestion_error": None,
    }
    if game.show_count and not game.over:
        cands = candidates(game.size, game.history())
        context["remaining"] = int(cands.shape[0])
        if cands.shape[0] <= BOARD_LISTED_CODES:
            context["remaining_codes"] = [Code.from_index(int(i), game.size) for i in cands]
    daily = store.players.daily_of(game.id)
    context["daily_number"] = daily[0] if daily is not None else None
    if game.over:
        context.update(outcome_context(game, daily))
    if not game.over and game.hint_move == game.next_move and "suggestion" not in extra:
        try:
            hint = suggest(game, game.hint_strategy or DEFAULT_STRATEGY)
            context["suggestion"] = hint
            if "result" in hint and "draft" not in extra:
                context["draft"] = str(hint["result"].guess)
        except (MastermindError, jobs.Busy) as exc:
            context["suggestion_error"] = error_words(exc)
    context["watch_link"] = external_url("play.watch", token=store.games.watch_token(game.id))
    context.update(extra)
    return context


def outcome_context(game: store.games.Game, daily: tuple[int, str] | None) -> dict:
    """The end of a game: the share panel, the links and the review. A
    daily puzzle's share text carries its number and the skill once the
    review has it, and links to the day's puzzle (not the answer).
    ``daily``: its day and board (``store.players.daily_of``), or None."""
    part = reviews.section(game.size, game.secret, [m.guess for m in game.moves], game.max_guesses)
    part.poll_url = url_for("play.review", game_id=game.id)
    context = {
        **reviews.template_context(part),
        "refresh_url": url_for("play.board", game_id=game.id),
        "replay_link": game_replay_url(game),
        "classroom_link": classroom_url(game.size, "knuth", secret=game.secret),
    }
    challenge = store.challenges.challenge_of(game.id)
    if daily is not None:  # everyone plays the same secret today: the replay would show it
        number, board = daily
        link = external_url("daily.day", number=number)
        context.update(share_context(game, link), share_label=gettext("Daily Mastermind #%(number)d", number=number))
        skill = part.review["skill"] if part.review else None
        context["share_text"] = days.share_text(game, number, board, skill)
        context["share_description"] = gettext(
            "Daily Mastermind #%(number)d: %(result)s", number=number, result=context["share_description"]
        )
    elif challenge is not None:  # friends play the same secret; the replay would show it
        link = external_url("challenges.challenge", challenge_id=challenge)
        context.update(share_context(game, link), share_label=gettext("Challenge link"))
    else:
        context.update(
            share_context(game, game_replay_url(game, external=True) or ""), share_label=gettext("Replay link")
        )
    return context


def suggest(game: store.games.Game, strategy_name: str) -> dict:
    """A strategy's next guess for this game, with how long it took to work
    out. A hint worked out before for this move is read back, not computed
    again. A guess beyond the request's budget is worked out in the
    background: then ``job`` holds its progress until it is done."""
    strategy = fitting(get_strategy(strategy_name)) if game.hard else get_strategy(strategy_name)
    stored = store.games.load_hint(game.id, game.next_move, strategy.name)
    if stored is not None:
        data = json.loads(stored)
        suggestion = hints.suggestion_from(data, game.size, strategy)
        return {"result": suggestion, "ms": data["ms"], "bars": partition_bars(suggestion.partition, game.size.pegs)}
    started = time.perf_counter()
    found = hints.next_guess(strategy, game.size, game.history(), f"{game.id}:{game.next_move}", game.hard)
    ms = (time.perf_counter() - started) * 1000
    if isinstance(found, jobs.Job):
        if not found.done:
            return {"job": found, "strategy": strategy}
        result, ms = hints.suggestion_from(found.result, game.size, strategy), found.elapsed * 1000
    else:
        result = found
    store.games.save_hint(game.id, game.next_move, strategy.name, json.dumps({**hint_result(result), "ms": ms}))
    return {"result": result, "ms": ms, "bars": partition_bars(result.partition, game.size.pegs)}


def announcement(game: store.games.Game) -> str:
    """What the live region says after the latest move."""
    if not game.moves:
        return ""
    last = game.moves[-1]
    text = gettext(
        "Guess %(number)d: %(guess)s gave %(reply)s.",
        number=len(game.moves),
        guess=str(last.guess),
        reply=reply_words(last.reply, game.size.is_bulls_and_cows),
    )
    if game.status == rules.WON:
        text += " " + ngettext(
            "You cracked the code in %(num)d guess.", "You cracked the code in %(num)d guesses.", len(game.moves)
        )
    elif game.status == rules.LOST:
        text += " " + gettext("Out of guesses. The secret was %(code)s.", code=str(game.secret))
    return text


def show_board(game: store.games.Game, status: int = 200, **extra):
    return render("board.html", "_game.html", status, **board_context(game, **extra))


@bp.get("/")
def index():
    return render_template("index.html", presets=BOARDS, error=None, form={})


@bp.post("/games")
@creating
def new_game():
    form = request.form
    preset = BOARDS_BY_KEY.get(form.get("preset", ""))
    try:
        if "preset" in form and preset is None:
            raise SettingsError(
                gettext("There is no game called '%(given)s': choose one of the presets.", given=form["preset"][:20])
            )
        if preset:
            size, limit = preset.size, preset.max_guesses
        else:
            size, limit = parse_settings(form)
        hard = parse_hard(form)
    except MastermindError as exc:
        return render_template("index.html", presets=BOARDS, error=error_words(exc), form=form), 400
    player, _ = cookie_player()
    game = store.games.create_game(size, limit, hard=hard, player=player)
    return remember_player(redirect(url_for("play.board", game_id=game.id), 303), player)


@bp.get("/games/<game_id>")
def board(game_id):
    return show_board(game_or_404(game_id))


@bp.get("/games/<game_id>/review")
def review(game_id):
    """The review part of a finished board (what its progress polls), with
    the share panel again: a daily's share text gains the skill."""
    game = game_or_404(game_id)
    if not is_htmx():  # opened as an address: the board, where the review is a part
        return redirect(url_for("play.board", game_id=game.id) + "#review", 303)
    if not game.over:
        return render_template(
            "error.html", status=409, message=gettext("The review is ready once the game is over.")
        ), 409
    return render_template("_board_review.html", **board_context(game))


@bp.post("/games/<game_id>/guesses")
def guess(game_id):
    game = game_or_404(game_id)
    text = request.form.get("guess", "")
    move = move_number(request.form.get("move", ""))
    try:
        code = Code.parse(text, game.size)
        game = play_guess(game, code, move)
    except rules.GameOver as exc:
        return board_instead(game, 409, error=error_words(exc))
    except rules.StaleMove as exc:
        return board_instead(store.games.load_game(game.id), 409, error=error_words(exc))
    except rules.Inconsistent as exc:  # hard mode: nothing is stored
        return board_instead(game, 422, error=inconsistent_sentence(exc, game.size.is_bulls_and_cows), draft=text[:64])
    except MastermindError as exc:
        return board_instead(game, 400, error=error_words(exc), draft=text[:64])
    if is_htmx():  # the new row, and only what else changed
        return render_template("_guessed.html", **board_context(game))
    return redirect(url_for("play.board", game_id=game.id), 303)


def board_instead(game: store.games.Game, status: int, **extra):
    """An answer to a guess that adds no row (an error): htmx swaps the
    whole board in place of the row it expected."""
    response = current_app.make_response(show_board(game, status, **extra))
    if is_htmx():
        response.headers["HX-Retarget"] = "#game"
        response.headers["HX-Reswap"] = "outerHTML"
    return response


@bp.post("/games/<game_id>/suggestion")
def suggestion(game_id):
    game = game_or_404(game_id)
    if game.over:
        return show_board(game, 409, error=gettext("This game is over: there is nothing left to suggest."))
    name = request.form.get("strategy", DEFAULT_STRATEGY)
    try:
        result = suggest(game, name)
    except jobs.Busy as exc:
        return busy_response(exc, show_board(game, 503, suggestion_error=error_words(exc), suggestion=None)[0])
    except MastermindError as exc:
        return show_board(game, 400, suggestion_error=error_words(exc), suggestion=None)
    store.games.record_suggestion(game, name)
    if is_htmx():
        if "result" in result:
            s = result["result"]
            said = gettext(
                "%(strategy)s suggests %(guess)s; it is now in the guess field.",
                strategy=strategy_title(s.strategy),
                guess=str(s.guess),
            )
            return show_board(game, suggestion=result, draft=str(s.guess), announcement=said)
        return show_board(
            game,
            suggestion=result,
            draft="",
            announcement=gettext(
                "%(strategy)s is working out its suggestion.", strategy=strategy_title(result["strategy"])
            ),
        )
    return redirect(url_for("play.board", game_id=game.id), 303)


@bp.get("/games/<game_id>/suggestion")
def suggestion_panel(game_id):
    """The suggestion panel alone: what a pending hint polls until it is done."""
    game = game_or_404(game_id)
    if not is_htmx():
        return redirect(url_for("play.board", game_id=game.id), 303)
    return render_template("_suggestion.html", **board_context(game))


@bp.post("/games/<game_id>/counter")
def counter(game_id):
    game = game_or_404(game_id)
    show = request.form.get("show") == "1"
    store.games.set_show_count(game.id, show)
    game.show_count = show
    if is_htmx():
        said = (
            gettext("Codes still possible: %(count)s.", count=number(len(candidates(game.size, game.history()))))
            if show
            else gettext("The count of codes still possible is hidden.")
        )
        return show_board(game, announcement=said)
    return redirect(url_for("play.board", game_id=game.id), 303)


bp.after_request(no_store)  # a board is never shown from the browser's cache


@bp.get("/watch/<token>")
def watch(token):
    """A game seen by others: its rows as they come, no way to play, no link
    to the board, and the secret only once the game is over."""
    try:
        game = store.games.watched_game(token)
    except store.games.GameNotFound:
        abort(404, gettext("There is no game to watch at this address. It may have been mistyped."))
    context = {
        "game": game,
        "pegs": game.size.pegs,
        "bulls": game.size.is_bulls_and_cows,
        "secret": game.secret if game.over else None,
        "replay_link": game_replay_url(game),
        "token": token,
        "shared_by": None,
    }
    if game.over:
        # Others still play the secret of the day's puzzle or a challenge:
        # the link is to their game, not a replay, and the secret (a won
        # game's last row) shows only when asked for.
        daily, challenge = store.players.daily_of(game.id), store.challenges.challenge_of(game.id)
        if daily is not None:
            context["shared_by"] = {
                "link": url_for("daily.day", number=daily[0]),
                "words": gettext("Play Daily Mastermind #%(number)d", number=daily[0]),
                "warning": gettext("Show the secret: everyone plays this Daily Mastermind's secret."),
                "warning_won": gettext(
                    "Show the winning guess: it is the secret everyone plays in this Daily Mastermind."
                ),
            }
        elif challenge is not None:
            context["shared_by"] = {
                "link": url_for("challenges.challenge", challenge_id=challenge),
                "words": gettext("Open the challenge"),
                "warning": gettext("Show the secret: everyone in this challenge plays the same one."),
                "warning_won": gettext("Show the winning guess: it is the secret everyone in this challenge plays."),
            }
    return render("watch.html", "_watch.html", **context)
