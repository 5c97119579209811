"""Playing in the browser: the home page, new games and the board."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for

from . import store
from .engine import Code, MastermindError, candidates
from .settings import PRESETS, PRESETS_BY_KEY, parse_settings
from .web import is_htmx, render

bp = Blueprint("play", __name__)


def load_or_404(game_id: str) -> store.Game:
    try:
        return store.load_game(game_id)
    except store.GameNotFound:
        abort(404, "There is no game with that id. It may have been mistyped.")


def board_context(game: store.Game, **extra) -> dict:
    """What the board templates need; the secret only once the game is over."""
    context = {
        "game": game,
        "pegs": game.size.pegs,
        "colors": game.size.colors,
        "secret": game.secret if game.over else None,
        "remaining": len(candidates(game.size, game.history())) if game.show_count else None,
        "error": None,
        "draft": "",
        "announcement": announcement(game),
        "suggestion": None,
    }
    context.update(extra)
    return context


def announcement(game: store.Game) -> str:
    """What the live region says after the latest move."""
    if not game.moves:
        return ""
    last = game.moves[-1]
    text = f"Guess {len(game.moves)}: {last.guess} gave {last.reply.describe()}."
    if game.status == store.WON:
        text += f" You cracked the code in {len(game.moves)} guesses."
    elif game.status == store.LOST:
        text += f" Out of guesses. The secret was {game.secret}."
    return text


def show_board(game: store.Game, status: int = 200, **extra):
    return render("board.html", "_game.html", status, **board_context(game, **extra))


@bp.get("/")
def index():
    return render_template("index.html", presets=PRESETS, error=None, form={})


@bp.post("/games")
def new_game():
    form = request.form
    preset = PRESETS_BY_KEY.get(form.get("preset", ""))
    try:
        if preset:
            size, limit = preset.size, preset.max_guesses
        else:
            size, limit = parse_settings(form, typed=False)
    except MastermindError as exc:
        return render_template("index.html", presets=PRESETS, error=str(exc), form=form), 400
    game = store.create_game(size, limit)
    return redirect(url_for("play.board", game_id=game.id), 303)


@bp.get("/games/<game_id>")
def board(game_id):
    return show_board(load_or_404(game_id))


@bp.post("/games/<game_id>/guesses")
def guess(game_id):
    game = load_or_404(game_id)
    text = request.form.get("guess", "")
    move = request.form.get("move", "")
    try:
        code = Code.parse(text, game.size)
        move_number = int(move) if move.strip().isdigit() else None
        if move_number is None:
            raise store.StaleMove("The form was incomplete: reload the board and try again.")
        game = store.add_guess(game.id, code, move_number)
    except store.GameOver as exc:
        return show_board(game, 409, error=str(exc))
    except store.StaleMove as exc:
        return show_board(store.load_game(game.id), 409, error=str(exc))
    except MastermindError as exc:
        return show_board(game, 400, error=str(exc), draft=text[:64])
    if is_htmx():
        return show_board(game)
    return redirect(url_for("play.board", game_id=game.id), 303)


@bp.post("/games/<game_id>/counter")
def counter(game_id):
    game = load_or_404(game_id)
    show = request.form.get("show") == "1"
    store.set_show_count(game.id, show)
    game.show_count = show
    if is_htmx():
        return show_board(game)
    return redirect(url_for("play.board", game_id=game.id), 303)


def init_app(app) -> None:
    app.register_blueprint(bp)
