"""The JSON API, for bots, classroom exercises and tests."""

from __future__ import annotations

from flask import Blueprint, abort, request, url_for

from .limits import creating
from . import store
from .engine import Code, MastermindError
from .errors import error_response
from .settings import parse_settings
from .share import game_replay_url
from .web import game_or_404, move_number, no_store

bp = Blueprint("api", __name__, url_prefix="/api")


def game_json(game: store.Game) -> dict:
    """The game object; ``secret`` only once the game is over."""
    data = {
        "id": game.id,
        "pegs": game.size.pegs,
        "colors": game.size.colors,
        "max_guesses": game.max_guesses,
        "distinct": game.size.distinct,
        "status": game.status,
        "guesses": [
            {"guess": str(m.guess), "black": m.reply.black, "white": m.reply.white}
            for m in game.moves
        ],
        "url": url_for("play.board", game_id=game.id),
        "watch_url": url_for("play.watch", token=store.watch_token(game.id)),
    }
    if game.over:
        data["secret"] = str(game.secret)
        data["replay_url"] = game_replay_url(game)
    return data


def json_body(default=None):
    """The request's JSON, or a 400 with a readable reason."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        if default is None:
            abort(400, "Send a JSON object in the request body.")
        return default
    try:
        body = request.get_json(force=True, silent=True)
    except RecursionError:  # json's decoder gives up on a deeply nested body
        abort(400, "The request body is nested too deeply to be read.")
    if body is None:
        abort(400, "The request body is not valid JSON.")
    if not isinstance(body, dict):
        abort(400, "The request body must be a JSON object.")
    return body



@bp.post("/games")
@creating
def create():
    body = json_body(default={})
    try:
        size, limit = parse_settings(body, typed=True)
    except MastermindError as exc:
        return error_response(400, str(exc))
    game = store.create_game(size, limit)
    from .play import sweep_abandoned
    sweep_abandoned()
    return game_json(game), 201


@bp.get("/games/<game_id>")
def show(game_id):
    return game_json(game_or_404(game_id))


@bp.post("/games/<game_id>/guesses")
def guess(game_id):
    game = game_or_404(game_id)
    body = json_body()
    move = move_number(body.get("move"), typed=True, required=False)
    if "guess" not in body:
        return error_response(400, 'Send the guess as {"guess": "1122"}.')
    try:
        code = Code.parse(body["guess"], game.size)
        game = store.add_guess(game.id, code, move)
    except (store.GameOver, store.StaleMove) as exc:
        return error_response(409, str(exc))
    except MastermindError as exc:
        return error_response(400, str(exc))
    return game_json(game)


bp.after_request(no_store)


def init_app(app) -> None:
    app.register_blueprint(bp)
