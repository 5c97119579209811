"""Challenges: one secret, many players. The creator gets a link to share
and a private results link; everyone who opens the challenge plays a game of
their own against that secret, which no page shows before their game ends."""

from __future__ import annotations

from collections import Counter

from flask import Blueprint, current_app, g, redirect, render_template, request, url_for

from .. import store
from ..computations import secret_lengths
from ..engine import Code, GameSize, MastermindError, get_strategy, rules
from ..engine.codes import check_secret
from ..settings import BOARDS, parse_settings
from ..words import error_words
from . import review as reviews
from .answers import is_htmx, no_store, render
from .contract import GAME_LINKS, LIMITED, NO_STORE, Documented, link, operation
from .errors import error_response
from .limits import creating
from .links import replay_url
from .loaders import challenge_or_404, game_json
from .names import player_name
from .players import cookie_player, player_token, remember_player
from .positions import budget
from .schemas import Challenge, ChallengeGame, ChallengeResults, ChallengeSettings, Join

bp = Blueprint("challenges", __name__)
api = Blueprint("challenges_api", __name__, url_prefix="/api/challenges")


def read_secret(text, size) -> Code | None:
    """The creator's secret, or None to let the server draw one."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    secret = Code.parse(text, size)
    check_secret(secret, size)
    return secret


def benchmarks(challenge: store.challenges.Challenge) -> list[tuple[str, int | None]]:
    """How many guesses Knuth's algorithm, and optimal play where offered,
    need for this secret: worked out within the request's budget and then
    kept; None where that is too much for a page."""
    lengths = secret_lengths(challenge.size, challenge.secret, budget())
    names = ["knuth"] + (["optimal"] if get_strategy("optimal").available(challenge.size) else [])
    return [(name, None if lengths is None else lengths[name]) for name in names]


def results(challenge: store.challenges.Challenge) -> dict:
    players = store.challenges.challenge_players(challenge)
    rows = []
    for p in players:
        over = p.status != rules.PLAYING
        rows.append(
            {
                "name": p.name or None,  # None: anonymous, in the reader's language
                "status": p.status,
                "guesses": len(p.guesses),
                "replay_url": replay_url(challenge.size, challenge.secret, p.guesses, challenge.max_guesses)
                if over and p.guesses
                else None,
                "skill": reviews.skill(challenge.size, challenge.secret, p.guesses) if over and p.guesses else None,
            }
        )
    counts = Counter(r["guesses"] if r["status"] == rules.WON else "X" for r in rows if r["status"] != rules.PLAYING)
    bars = [(str(k), counts.get(k, 0)) for k in range(1, challenge.max_guesses + 1)] + [("X", counts.get("X", 0))]
    return {
        "players": rows,
        "bars": bars,
        "finished": sum(counts.values()),
        "playing": sum(1 for r in rows if r["status"] == rules.PLAYING),
    }


def challenge_links(challenge: store.challenges.Challenge) -> dict:
    return {
        "url": url_for("challenges.challenge", challenge_id=challenge.id),
        "results_page": url_for("challenges.results_page", challenge_id=challenge.id, key=challenge.results_key),
        "results_url": url_for("challenges_api.results_json", challenge_id=challenge.id, key=challenge.results_key),
    }


@bp.get("/challenges/new")
def new():
    return render_template("challenge_new.html", presets=BOARDS, error=None, form={})


@bp.post("/challenges")
@creating
def create():
    form = request.form
    try:
        size, limit = parse_settings(form)
        secret = read_secret(form.get("secret"), size)
    except MastermindError as exc:
        kept = {k: v for k, v in form.items() if k != "secret"}
        return render_template("challenge_new.html", presets=BOARDS, error=error_words(exc), form=kept), 400
    challenge = store.challenges.create_challenge(size, limit, secret)
    return redirect(challenge_links(challenge)["results_page"], 303)


@bp.get("/c/<challenge_id>")
def challenge(challenge_id):
    c = challenge_or_404(challenge_id)
    return render_template(
        "challenge.html", challenge=c, players=len(store.challenges.challenge_players(c)), error=None
    )


@bp.post("/c/<challenge_id>/games")
@creating
def join(challenge_id):
    c = challenge_or_404(challenge_id)
    try:
        name = player_name(request.form.get("name"))
    except MastermindError as exc:
        return render_template(
            "challenge.html", challenge=c, error=error_words(exc), players=len(store.challenges.challenge_players(c))
        ), 400
    player, _ = cookie_player()
    joined = store.challenges.join_challenge(c, name, player)
    return remember_player(redirect(url_for("play.board", game_id=joined.game.id), 303), player)


@bp.get("/challenges/<challenge_id>/results/<key>")
def results_page(challenge_id, key):
    c = challenge_or_404(challenge_id, key)
    context = {"challenge": c, **results(c), **challenge_links(c)}
    if not is_htmx():  # the polled fragment only needs the players
        context["benchmarks"] = benchmarks(c)
    response = current_app.make_response(render("challenge_results.html", "_challenge_results.html", **context))
    g.no_referrer = True  # the key stays off other sites' logs
    return response


CHALLENGE_LINKS = {"Join": link("joinChallenge", "Play it.", challenge_id="$response.body#/id")}


@api.post("")
@creating
@operation(
    id="createChallenge",
    tag="challenges",
    summary="Create a challenge",
    description="One secret, many players: share the challenge's url, keep results_page to yourself.",
    body=ChallengeSettings,
    answers={201: Documented("The challenge and its links.", Challenge, LIMITED, CHALLENGE_LINKS)},
    errors=(400, 422, 429, 503),
)
def create_json(body: ChallengeSettings):
    try:
        size = GameSize(body.pegs, body.colors, body.distinct, body.distinct_guesses)
        challenge = store.challenges.create_challenge(size, body.max_guesses, read_secret(body.secret, size))
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    return {"id": challenge.id, **challenge_links(challenge)}, 201


@api.post("/<challenge_id>/games")
@creating
@operation(
    id="joinChallenge",
    tag="challenges",
    summary="Play a challenge",
    description="A new game against the challenge's secret (201), or, given the player's token, the "
    "player's game in progress (200). Guess in it with POST /api/games/{game_id}/guesses.",
    body=Join,
    answers={
        201: Documented("A new game.", ChallengeGame, LIMITED, GAME_LINKS),
        200: Documented("The player's game in progress.", ChallengeGame, LIMITED, GAME_LINKS),
    },
    errors=(400, 404, 429, 503),
)
def join_json(challenge_id, body: Join):
    c = challenge_or_404(challenge_id)
    player, _ = player_token(body.player)
    joined = store.challenges.join_challenge(c, player_name(body.name), player)
    return {**game_json(joined.game), "player": player, "counted": joined.counted}, 201 if joined.created else 200


@api.get("/<challenge_id>/results/<key>")
@operation(
    id="getChallengeResults",
    tag="challenges",
    summary="A challenge's results",
    answers={200: Documented("Every player's result.", ChallengeResults, NO_STORE)},
    errors=(404, 503),
)
def results_json(challenge_id, key):
    c = challenge_or_404(challenge_id, key)
    data = results(c)
    return {
        "id": c.id,
        **c.size.params(),
        "max_guesses": c.max_guesses,
        "players": [{**row, "name": row["name"] or "anonymous"} for row in data["players"]],
        "benchmarks": {name: n for name, n in benchmarks(c)},
    }


bp.after_request(no_store)  # the challenge page, the results page
api.after_request(no_store)
