"""The JSON API, for bots, classroom exercises and tests."""

from __future__ import annotations

from flask import Blueprint
from flask_babel import gettext

from .. import jobs, store
from ..engine import Code, MastermindError
from ..settings import parse_hard, parse_settings
from . import review as reviews
from .errors import error_response
from .helpers import (
    busy_response,
    game_json,
    game_or_404,
    inconsistent_sentence,
    json_body,
    move_number,
    no_store,
    sweep_abandoned,
)
from .limits import creating
from .words import error_words

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.post("/games")
@creating
def create():
    body = json_body(default={})
    try:
        size, limit = parse_settings(body, typed=True)
        hard = parse_hard(body, typed=True)
    except MastermindError as exc:
        return error_response(400, error_words(exc))
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
        return error_response(400, gettext('Send the guess as {"guess": "1122"}.'))
    try:
        code = Code.parse(body["guess"], game.size)
        game = store.add_guess(game.id, code, move)
    except (store.GameOver, store.StaleMove) as exc:
        return error_response(409, error_words(exc))
    except store.Inconsistent as exc:  # hard mode: nothing is stored
        return error_response(422, inconsistent_sentence(exc, game.size.is_bulls_and_cows))
    except MastermindError as exc:
        return error_response(400, error_words(exc))
    return game_json(game)


@bp.get("/games/<game_id>/review")
def review(game_id):
    """How good each guess was against optimal play; 409 while the game is on
    (the review would give the secret away), 202 while it is worked out."""
    game = game_or_404(game_id)
    if not game.over:
        return error_response(409, gettext("The review is ready once the game is over: it would give the secret away."))
    try:
        job = jobs.get("review", reviews.review_params(game.size, game.secret, [m.guess for m in game.moves]))
    except jobs.Busy as exc:
        return busy_response(exc)
    if job.done:
        return {"id": game.id, **job.result}
    if job.failed:
        return error_response(422, error_words(job.problem))
    return job.json(), 202


bp.after_request(no_store)
