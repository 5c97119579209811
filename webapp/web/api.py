"""The JSON API, for bots, classroom exercises and tests: games against a
secret the server keeps. Each view's contract (``contract.operation``) says
what it reads and answers; ``schemas`` holds the models."""

from __future__ import annotations

from flask import Blueprint
from flask_babel import gettext

from .. import jobs, store
from ..engine import Code, GameSize, MastermindError, rules
from ..words import error_words
from . import review as reviews
from .answers import no_store
from .contract import GAME_LINKS, LIMITED, NO_STORE, Documented, operation
from .errors import error_response
from .limits import creating
from .loaders import game_json, game_or_404, play_guess
from .refusals import busy_response
from .schemas import Game, GameSettings, Guess, Job, Review
from .wording import inconsistent_sentence

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.post("/games")
@creating
@operation(
    id="createGame",
    tag="games",
    summary="Start a game",
    description="The server draws a secret; guess it with POST /api/games/{game_id}/guesses.",
    body=GameSettings,
    answers={201: Documented("The new game.", Game, LIMITED, GAME_LINKS)},
    errors=(400, 422, 429, 503),
)
def create(body: GameSettings):
    try:
        size = GameSize(body.pegs, body.colors, body.distinct, body.distinct_guesses)
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    game = store.games.create_game(size, body.max_guesses, hard=body.hard)
    return game_json(game), 201


@bp.get("/games/<game_id>")
@operation(
    id="getGame",
    tag="games",
    summary="A game's state",
    answers={200: Documented("The game.", Game, NO_STORE)},
    errors=(404, 503),
)
def show(game_id):
    return game_json(game_or_404(game_id))


@bp.post("/games/<game_id>/guesses")
@operation(
    id="guess",
    tag="games",
    summary="Play a guess",
    body=Guess,
    body_required=True,
    answers={
        200: Documented("The game after the guess.", Game, links=GAME_LINKS),
        422: Documented(
            "The guess does not fit the game (its length, a colour the game does not have, a repeat the "
            "rules forbid); or, in hard mode, it could not be the secret: the sentence names the earlier "
            "guess and reply it contradicts. Nothing is stored."
        ),
    },
    errors=(400, 404, 409, 503),
)
def guess(game_id, body: Guess):
    game = game_or_404(game_id)
    try:
        code = Code.parse(body.guess, game.size)
        game = play_guess(game, code, body.move)
    except (rules.GameOver, rules.StaleMove) as exc:
        return error_response(409, error_words(exc))
    except rules.Inconsistent as exc:  # hard mode: nothing is stored
        return error_response(422, inconsistent_sentence(exc, game.size.is_bulls_and_cows))
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    return game_json(game)


@bp.get("/games/<game_id>/review")
@operation(
    id="getReview",
    tag="games",
    summary="How good each guess was",
    description="The review of a finished game: every guess against optimal play, the luck of each reply, "
    "the game's skill and luck. Worked out in the background when it takes a while (202 with the "
    "progress; ask again), then kept.",
    answers={
        200: Documented("The review.", Review, NO_STORE),
        202: Documented("The answer is being worked out in the background: ask again later.", Job),
        409: Documented("The game is still being played: the review would give the secret away."),
    },
    errors=(404, 422, 503),
)
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
