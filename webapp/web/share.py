"""Replays: a self-contained link to a finished game, and the page that
replays it beside what Knuth's algorithm would have done (the share text
beside a finished game is :func:`sharing.share_text`).

A replay link holds the size, the secret (written by :func:`conceal`, so a
glance spoils nothing) and the guesses: the feedback is recomputed from them,
so a link works on any server, with an empty database, forever. The winning
guess is left out, since it is the secret: a link with fewer guesses than the
limit is a won game, one with as many as the limit a lost one.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, render_template, request
from flask_babel import gettext

from ..engine import (
    Code,
    Feedback,
    GameSize,
    MastermindError,
    best_guess,
    consistent,
    feedback,
    get_strategy,
    secret_indices,
)
from ..engine.codes import MAX_GUESSES, reveal
from ..engine.lines import play_against
from ..engine.strategies import TooSlow
from ..settings import small_number
from ..words import error_words
from . import review as reviews
from .answers import render
from .links import DEFAULT_LIMIT, classroom_url, replay_url, size_from_slug
from .positions import budget
from .sharing import share_description

bp = Blueprint("share", __name__)

KNUTH = "knuth"


class ReplayError(MastermindError):
    """A replay link that is mangled or describes no finished game."""


def parse_slug(text: str) -> GameSize:
    size = size_from_slug(text)
    if size is None:
        raise ReplayError(
            gettext(
                "'%(given)s' is not a game size: links say 4x6, or 4x6d when the secret uses different colours.",
                given=str(text)[:12],
            )
        )
    return size


@dataclass
class Move:
    """One move of a replay, beside what Knuth's algorithm would have done."""

    number: int
    guess: Code
    reply: Feedback
    before: int  # codes still possible before the guess
    was_candidate: bool
    knuth: Code | None  # Knuth's guess in the same position (None: too slow to work out)
    knuth_worst: int | None  # the most codes Knuth's guess could have left


def parse_replay(slug: str, code: str, args) -> dict:
    """The finished game a replay link describes, checked."""
    size = parse_slug(slug)
    secret = reveal(code, size)
    limit = small_number(args.get("l", DEFAULT_LIMIT))
    if limit is None or not 1 <= limit <= MAX_GUESSES:
        raise ReplayError(gettext("The guess limit must be from 1 to %(most)d.", most=MAX_GUESSES))
    raw = str(args.get("g", ""))
    items = raw.split(".") if raw else []
    if len(items) > limit:
        raise ReplayError(
            gettext("This link has %(num)d guesses, more than the %(most)d allowed.", num=len(items), most=limit)
        )
    guesses = [Code.parse(item, size) for item in items]
    for number, guess in enumerate(guesses, start=1):
        if not size.allows_guess(guess):
            raise ReplayError(
                gettext(
                    "Guess %(number)d (%(guess)s) repeats a colour, which this game does not allow.",
                    number=number,
                    guess=str(guess),
                )
            )
        if guess == secret:
            raise ReplayError(
                gettext(
                    "Guess %(number)d already found the secret: the link goes on after the winning guess.",
                    number=number,
                )
            )
    won = len(guesses) < limit
    if won:
        guesses.append(secret)
    history = [(g, feedback(g, secret)) for g in guesses]
    step = args.get("step")
    if step is None or step == "":
        step = 0
    else:
        step = small_number(step)
        if step is None or step > len(history):
            raise ReplayError(gettext("The step must be a whole number from 0 to %(last)d.", last=len(history)))
    return {
        "size": size,
        "secret": secret,
        "history": history,
        "won": won,
        "limit": limit,
        "step": int(step),
        "code": code,
        "slug": slug,
    }


def moves_of(size: GameSize, history) -> list[Move]:
    """Every move with the position before it, beside Knuth's guess there as
    long as the request's budget lasts (the rest of the column stays empty)."""
    knuth = get_strategy(KNUTH)
    moves = []
    cands = secret_indices(size)
    within_budget = True
    for number, (guess, reply) in enumerate(history, start=1):
        best = worst = None
        if within_budget:  # once a move is beyond it, the rest of the column is left out
            try:
                suggestion = best_guess(knuth, size, history[: number - 1], max_pairs=budget(), cands=cands)
                best, worst = suggestion.guess, max(suggestion.partition.values())
            except TooSlow:
                within_budget = False
        moves.append(
            Move(number, guess, reply, int(cands.shape[0]), bool((cands == guess.index(size)).any()), best, worst)
        )
        cands = consistent(size, cands, guess, reply)
    return moves


def knuth_game(size: GameSize, secret: Code):
    """Knuth's own game on the same secret, or None when it is too slow here."""
    try:
        return play_against(get_strategy(KNUTH), size, secret, budget())
    except TooSlow:
        return None


@bp.get("/replay/<size>/<code>")
def replay(size, code):
    try:
        state = parse_replay(size, code, request.args)
    except MastermindError as exc:
        return render_template("error.html", status=400, message=error_words(exc)), 400
    size, secret, history = state["size"], state["secret"], state["history"]
    moves = moves_of(size, history)
    knuth = knuth_game(size, secret)
    step = state["step"]

    def link(to: int) -> str:
        return replay_url(size, secret, [g for g, _ in history], state["limit"], step=to)

    links = {"first": 0, "prev": step - 1, "next": step + 1, "last": len(history)}
    context = {
        **state,
        "moves": moves,
        "knuth": knuth,
        "pegs": size.pegs,
        "bulls": size.is_bulls_and_cows,
        "links": {k: link(v) if 0 <= v <= len(history) and v != step else None for k, v in links.items()},
        "knuth_url": replay_url(size, secret, [g for g, _ in knuth], max(state["limit"], len(knuth)))
        if knuth
        else None,
        "classroom_url": classroom_url(size, KNUTH, secret=secret),
        "description": share_description(size, [r for _, r in history], state["won"], state["limit"]),
    }
    if step == len(history):
        part = reviews.section(size, secret, [g for g, _ in history], state["limit"])
        context.update(reviews.template_context(part), refresh_url=link(step))
    return render("replay.html", "_replay.html", **context)


@bp.get("/replay/<size>/<code>/review")
def review(size, code):
    """The review of the game a replay link describes (the same arguments):
    the fragment a replay's end polls while the job works."""
    try:
        state = parse_replay(size, code, request.args)
    except MastermindError as exc:
        return render_template("error.html", status=400, message=error_words(exc)), 400
    guesses = [g for g, _ in state["history"]]
    part = reviews.section(state["size"], state["secret"], guesses, state["limit"])
    end = replay_url(state["size"], state["secret"], guesses, state["limit"], step=len(guesses))
    return render_template("_review.html", refresh_url=end, **reviews.template_context(part))
