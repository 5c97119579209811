"""The records a view answers about, or its 404: a game, a codemaker game, a
challenge; a guess played on a game; a game as the API's JSON."""

from __future__ import annotations

from flask import abort, url_for
from flask_babel import gettext

from .. import store
from ..engine import Code, rules
from .links import game_replay_url


def game_or_404(game_id: str) -> store.games.Game:
    """The game with this id, or a 404 that says so."""
    try:
        return store.games.load_game(game_id)
    except store.games.GameNotFound:
        abort(404, gettext("There is no game with that id. It may have been mistyped."))


def play_guess(game: store.games.Game | str, guess: Code, move: int | None = None) -> store.games.Game:
    """Play ``guess`` as move ``move`` (the next one when None) on ``game``,
    as the view loaded it (or its id): judged by the rules
    (``engine.rules``) against the game as stored, then recorded. A move
    another request recorded first is a stale move; without a move number,
    the guess is judged again, on the game read afresh, as the move after it."""
    if isinstance(game, str):
        game = game_or_404(game)
    while True:
        reply, status = rules.judge_guess(
            game.size,
            game.secret,
            game.history(),
            guess,
            max_guesses=game.max_guesses,
            status=game.status,
            hard=game.hard,
            move=move,
        )
        try:
            return store.games.record_guess(game, guess, reply, status)
        except store.games.MoveTaken:
            if move is not None:
                raise rules.StaleMove("guess-recorded", move=move) from None
            game = game_or_404(game.id)


def codemaker_or_404(game_id: str) -> store.codemaker.CodemakerGame:
    """The codemaker game with this id, or a 404 that says so."""
    try:
        return store.codemaker.load_codemaker(game_id)
    except store.codemaker.CodemakerNotFound:
        abort(404, gettext("There is no such game. It may have been mistyped."))


def challenge_or_404(challenge_id: str, key: str | None = None) -> store.challenges.Challenge:
    """The challenge (with ``key``, only if it is the right results key), or a 404."""
    try:
        return store.challenges.load_challenge(challenge_id, key)
    except store.challenges.ChallengeNotFound:
        abort(404, gettext("There is no challenge at this address. It may have been mistyped."))


def game_json(game: store.games.Game) -> dict:
    """The API's game object; ``secret`` only once the game is over."""
    data = {
        "id": game.id,
        "pegs": game.size.pegs,
        "colors": game.size.colors,
        "max_guesses": game.max_guesses,
        "distinct": game.size.distinct,
        "distinct_guesses": game.size.distinct_guesses,
        "hard": game.hard,
        "status": game.status,
        "guesses": [{"guess": str(m.guess), "black": m.reply.black, "white": m.reply.white} for m in game.moves],
        "url": url_for("play.board", game_id=game.id),
        "watch_url": url_for("play.watch", token=store.games.watch_token(game.id)),
    }
    if game.over:
        data["secret"] = str(game.secret)
        data["replay_url"] = game_replay_url(game)
    return data
