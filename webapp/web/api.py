"""The JSON API, for bots, classroom exercises and tests."""

from __future__ import annotations

from flask import Blueprint

from .. import store
from ..engine import Code, MastermindError
from ..settings import parse_hard, parse_settings
from .errors import error_response
from .helpers import game_json, game_or_404, inconsistent_sentence, json_body, move_number, no_store, sweep_abandoned
from .limits import creating

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.post("/games")
@creating
def create():
    body = json_body(default={})
    try:
        size, limit = parse_settings(body, typed=True)
        hard = parse_hard(body, typed=True)
    except MastermindError as exc:
        return error_response(400, str(exc))
    game = store.create_game(size, limit, hard=hard)
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
    except store.Inconsistent as exc:  # hard mode: nothing is stored
        return error_response(422, inconsistent_sentence(exc))
    except MastermindError as exc:
        return error_response(400, str(exc))
    return game_json(game)


bp.after_request(no_store)
