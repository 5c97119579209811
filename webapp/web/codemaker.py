"""The computer as codebreaker: the player thinks of a secret, a strategy
guesses, and the player answers with black and white pegs. Answers no code
can satisfy are refused with the reason, and answers can be taken back."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import jobs, store
from ..engine import (
    DEFAULT_STRATEGY,
    PRESETS,
    Code,
    Feedback,
    FeedbackError,
    GameSize,
    MastermindError,
    candidates,
    get_strategy,
    rules,
)
from ..engine.codes import MAX_GUESSES
from ..engine.lines import offered
from ..settings import SettingsError, parse_size, small_number
from ..words import error_words, not_offered, size_label, strategy_title
from . import hints
from .answers import is_htmx, no_store, render
from .contract import LIMITED, NO_STORE, Documented, link, operation
from .errors import error_response
from .forms import move_number
from .limits import creating
from .links import classroom_url
from .loaders import codemaker_or_404
from .schemas import Answer, CodemakerSettings, CodemakerState, TakeBack
from .wording import reply_words

bp = Blueprint("codemaker", __name__, url_prefix="/codemaker")
api = Blueprint("codemaker_api", __name__, url_prefix="/api/codemaker")
# The codes that fit the answers are listed when there are at most this many.
LISTED_FITTING_CODES = 60


def next_guess(game: store.codemaker.CodemakerGame) -> Code | jobs.Job | None:
    """The computer's next guess (the same on every reload), the job still
    working it out, or None once the code is found or the guesses run out."""
    if game.solved or len(game.moves) >= MAX_GUESSES:
        return None
    strategy = get_strategy(game.strategy)
    try:
        found = hints.next_guess(strategy, game.size, game.history(), f"{game.id}:{len(game.moves)}")
    except jobs.Busy:  # every worker is taken: the next look asks again
        return jobs.Job(key="", kind="hint", status=store.jobs.QUEUED)
    if isinstance(found, jobs.Job):
        return hints.suggestion_from(found.result, game.size, strategy).guess if found.done else found
    return found.guess


def check_playable(strategy, size: GameSize) -> None:
    """Refuse a game the strategy cannot play: not offered for the size, or
    unable to make its first guess (optimal play within 5 guesses where no
    strategy finds every secret in 5)."""
    if not offered(strategy, size):
        raise SettingsError(not_offered(strategy, size))
    try:
        hints.next_guess(strategy, size, [], "first guess")
    except jobs.Busy:
        pass  # it can play; the page will show the job when it can be queued
    except MastermindError as exc:
        raise SettingsError(
            gettext(
                "%(strategy)s cannot play %(size)s: %(why)s",
                strategy=strategy_title(strategy),
                size=size_label(size),
                why=error_words(exc),
            )
        ) from None


def contradiction(history, size: GameSize) -> str:
    """Why no code fits: every answer given, in words, one guess after another."""
    answers = "; ".join(f"{g} → {reply_words(r, size.is_bulls_and_cows)}" for g, r in history)
    return gettext(
        "No code gives all of these answers: %(answers)s. One of them is wrong: check your secret, then take "
        "back the answer that was a mistake.",
        answers=answers,
    )


def pegs_question(name: str, size: GameSize) -> str:
    """What to send for the black (bulls) or white (cows) count."""
    bulls = size.is_bulls_and_cows
    if name == "black":
        question = gettext("Say how many bulls") if bulls else gettext("Say how many black pegs")
    else:
        question = gettext("Say how many cows") if bulls else gettext("Say how many white pegs")
    return gettext("%(question)s, as a whole number from 0 to %(pegs)d.", question=question, pegs=size.pegs)


def parse_reply(black: str, white: str, size: GameSize) -> Feedback:
    """The key pegs a form posts."""
    numbers = []
    for name, value in (("black", black), ("white", white)):
        number = small_number(value)
        if number is None:
            raise FeedbackError(pegs_question(name, size))
        numbers.append(number)
    reply = Feedback(*numbers)
    reply.check(size)
    return reply


def answer(game: store.codemaker.CodemakerGame, reply: Feedback, move: int | None) -> store.codemaker.CodemakerGame:
    """Record the player's answer to the current guess, unless no code fits.
    The store checks, under the game's lock, that the answers it holds are
    still the ones this was checked against."""
    if game.solved:
        raise rules.GameOver("code-found")
    if len(game.moves) >= MAX_GUESSES:
        raise rules.GameOver("guesses-used-up", num=MAX_GUESSES)
    guess = next_guess(game)
    if not isinstance(guess, Code):
        raise rules.StaleMove("guess-pending")
    history = game.history() + [(guess, reply)]
    try:
        candidates(game.size, history)
    except FeedbackError:
        raise FeedbackError(contradiction(history, game.size)) from None
    if move is not None and move != len(game.moves) + 1:
        raise rules.StaleMove("move-stale", next=len(game.moves) + 1, given=move)
    try:
        return store.codemaker.add_codemaker_reply(game.id, guess, reply, game.moves)
    except store.codemaker.AnswersChanged:
        raise rules.StaleMove("answers-changed") from None


def take_back(game: store.codemaker.CodemakerGame, move: int | None) -> store.codemaker.CodemakerGame:
    """Take back answer number ``move``, which must be the last one: a stale
    take-back (one already taken back, or repeated) is a stale move."""
    while True:
        if not game.moves:
            raise rules.StaleMove("nothing-to-undo")
        if move != len(game.moves):
            raise rules.StaleMove("answer-not-last", given=move, last=len(game.moves))
        try:
            return store.codemaker.undo_codemaker_reply(game.id, game.moves)
        except store.codemaker.AnswersChanged:  # judged again against the answers stored now
            game = codemaker_or_404(game.id)


def state(game: store.codemaker.CodemakerGame, cands=None) -> tuple[dict, Code | jobs.Job | None]:
    """The game as the API shows it, and its next guess or the job working
    it out (``cands``: the codes that fit the answers, when the caller has
    them already)."""
    cands = candidates(game.size, game.history()) if cands is None else cands
    data = {
        "id": game.id,
        **game.size.params(),
        "strategy": game.strategy,
        "status": "solved" if game.solved else "guessing",
        "history": [{"guess": str(m.guess), "black": m.reply.black, "white": m.reply.white} for m in game.moves],
        "remaining": int(cands.shape[0]),
        "url": url_for("codemaker.page", game_id=game.id),
    }
    following = next_guess(game)
    if isinstance(following, Code):
        data["guess"] = str(following)
    elif following is not None:
        data["job"] = following.json()
    return data, following


def page_context(game, error=None) -> dict:
    cands = candidates(game.size, game.history())
    data, following = state(game, cands)
    codes = [Code.from_index(int(i), game.size) for i in cands] if len(cands) <= LISTED_FITTING_CODES else []
    classroom = classroom_url(game.size, game.strategy, game.history())
    return {
        "game": game,
        "data": data,
        "error": error,
        "pegs": game.size.pegs,
        "bulls": game.size.is_bulls_and_cows,
        "codes": codes,
        "guess": following if isinstance(following, Code) else None,
        "job": following if isinstance(following, jobs.Job) else None,
        "classroom_link": classroom,
    }


def show(game, status: int = 200, error=None):
    return render("codemaker.html", "_codemaker.html", status, **page_context(game, error))


@bp.get("")
def new():
    return render_template(
        "codemaker_new.html", error=None, form={}, strategies=[s for s in PRESETS.values() if offered(s, GameSize())]
    )


@bp.post("")
@creating
def create():
    form = request.form
    try:
        size = parse_size(form)
        strategy = get_strategy(form.get("strategy") or DEFAULT_STRATEGY)
        check_playable(strategy, size)
    except MastermindError as exc:
        return render_template(
            "codemaker_new.html",
            error=error_words(exc),
            form=form,
            strategies=[s for s in PRESETS.values() if offered(s, GameSize())],
        ), 400
    game = store.codemaker.create_codemaker(size, strategy.name)
    return redirect(url_for("codemaker.page", game_id=game.id), 303)


@bp.get("/<game_id>")
def page(game_id):
    return show(codemaker_or_404(game_id))


@bp.post("/<game_id>/feedback")
def feedback_form(game_id):
    game = codemaker_or_404(game_id)
    form = request.form
    move = move_number(form.get("move", ""))
    try:
        reply = parse_reply(form.get("black", ""), form.get("white", ""), game.size)
        game = answer(game, reply, move)
    except (rules.StaleMove, rules.GameOver) as exc:
        return show(codemaker_or_404(game_id), 409, error_words(exc))
    except MastermindError as exc:
        return show(game, 400, error_words(exc))
    if is_htmx():
        return show(game)
    return redirect(url_for("codemaker.page", game_id=game.id), 303)


@bp.post("/<game_id>/undo")
def undo_form(game_id):
    game = codemaker_or_404(game_id)
    move = move_number(request.form.get("move", ""))
    try:
        game = take_back(game, move)
    except rules.StaleMove as exc:
        return show(codemaker_or_404(game_id), 409, error_words(exc))
    if is_htmx():
        return show(game)
    return redirect(url_for("codemaker.page", game_id=game.id), 303)


CODEMAKER_LINKS = {
    "GetCodemakerGame": link("getCodemakerGame", "The game's state.", game_id="$response.body#/id"),
    "Answer": link("answerCodemaker", "Answer the computer's guess.", game_id="$response.body#/id"),
    "TakeBack": link("takeBackAnswer", "Take the last answer back.", game_id="$response.body#/id"),
}


@api.post("")
@creating
@operation(
    id="createCodemakerGame",
    tag="codemaker",
    summary="Start a game where you make the code",
    description="Think of a secret; the computer guesses and you answer with key pegs.",
    body=CodemakerSettings,
    answers={201: Documented("The new game and the computer's first guess.", CodemakerState, LIMITED, CODEMAKER_LINKS)},
    errors=(400, 422, 429, 503),
)
def create_json(body: CodemakerSettings):
    try:
        size = GameSize(body.pegs, body.colors, body.distinct, body.distinct_guesses)
        strategy = get_strategy(body.strategy)
        check_playable(strategy, size)
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    return state(store.codemaker.create_codemaker(size, strategy.name))[0], 201


@api.post("/<game_id>/feedback")
@operation(
    id="answerCodemaker",
    tag="codemaker",
    summary="Answer the computer's guess",
    description="An answer that does not fit the game (more key pegs than pegs), or that no code fits "
    "together with the earlier ones, is refused with 422, saying so.",
    body=Answer,
    body_required=True,
    answers={200: Documented("The game after the answer.", CodemakerState, links=CODEMAKER_LINKS)},
    errors=(400, 404, 409, 422, 503),
)
def feedback_json(game_id, body: Answer):
    game = codemaker_or_404(game_id)
    try:
        reply = Feedback(body.black, body.white)
        reply.check(game.size)
        game = answer(game, reply, body.move)
    except (rules.StaleMove, rules.GameOver) as exc:
        return error_response(409, error_words(exc))
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    return state(game)[0]


@api.post("/<game_id>/undo")
@operation(
    id="takeBackAnswer",
    tag="codemaker",
    summary="Take back the last answer",
    description="409 when the move is not the last answer, or there is nothing to take back.",
    body=TakeBack,
    body_required=True,
    answers={200: Documented("The game without that answer.", CodemakerState, links=CODEMAKER_LINKS)},
    errors=(400, 404, 409, 503),
)
def undo_json(game_id, body: TakeBack):
    game = codemaker_or_404(game_id)
    try:
        return state(take_back(game, body.move))[0]
    except rules.StaleMove as exc:
        return error_response(409, error_words(exc))


@api.get("/<game_id>")
@operation(
    id="getCodemakerGame",
    tag="codemaker",
    summary="A codemaker game's state",
    answers={200: Documented("The game.", CodemakerState, NO_STORE)},
    errors=(404, 503),
)
def show_json(game_id):
    return state(codemaker_or_404(game_id))[0]


bp.after_request(no_store)
api.after_request(no_store)
