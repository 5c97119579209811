"""Replays and sharing: a self-contained link to a finished game, the page
that replays it beside what Knuth's algorithm would have done, and the share
text in the manner of word-game results.

A replay link holds the size, the secret (written by :func:`conceal`, so a
glance spoils nothing) and the guesses: the feedback is recomputed from them,
so a link works on any server, with an empty database, forever. The winning
guess is left out, since it is the secret: a link with fewer guesses than the
limit is a won game, one with as many as the limit a lost one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import Blueprint, render_template, request, url_for

from .engine import (
    Code, Feedback, GameSize, MastermindError, best_guess, consistent, feedback, get_strategy, secret_indices,
)
from .engine.codes import MAX_GUESSES, conceal, reveal
from .engine.lines import play_against
from .engine.strategies import TooSlow
from .settings import small_number
from .web import budget, render

bp = Blueprint("share", __name__)

KNUTH = "knuth"
EMOJI = {"black": "⚫", "white": "⚪", "none": "▫"}
DEFAULT_LIMIT = 10


class ReplayError(MastermindError):
    """A replay link that is mangled or describes no finished game."""


def size_slug(size: GameSize) -> str:
    """``4x6``, or ``4x6d`` when the secret uses different colours."""
    return f"{size.pegs}x{size.colors}" + ("d" if size.distinct else "")


def parse_slug(text: str) -> GameSize:
    match = re.fullmatch(r"([0-9])x([0-9])(d?)", text or "")
    if not match:
        raise ReplayError(f"'{str(text)[:12]}' is not a game size: links say 4x6, or 4x6d when "
                          "the secret uses different colours.")
    return GameSize(int(match[1]), int(match[2]), bool(match[3]))


def replay_url(size: GameSize, secret: Code, guesses, limit: int = DEFAULT_LIMIT,
               external: bool = False, step: int | None = None) -> str:
    """The permalink that replays a finished game."""
    guesses = list(guesses)
    if guesses and guesses[-1] == secret:
        guesses = guesses[:-1]  # the winning guess is the secret: implied, not spelled out
    args = {"g": ".".join(str(g) for g in guesses)}
    if limit != DEFAULT_LIMIT:
        args["l"] = limit
    if step is not None:
        args["step"] = step
    return url_for("share.replay", size=size_slug(size), code=conceal(secret, size),
                   _external=external, **args)


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


def key_line(reply: Feedback, pegs: int) -> str:
    """One guess as key-peg emoji: ``⚫⚪▫▫``."""
    return (EMOJI["black"] * reply.black + EMOJI["white"] * reply.white
            + EMOJI["none"] * (pegs - reply.black - reply.white))


def share_text(size: GameSize, replies, won: bool, limit: int, link: str) -> str:
    """The result to paste in a chat: no secret, one emoji line per guess."""
    score = f"{len(replies)}/{limit}" if won else f"X/{limit}"
    lines = [f"Mastermind {size.label()} {score}"]
    lines += [key_line(r, size.pegs) for r in replies]
    lines.append(link)
    return "\n".join(lines)


def share_description(size: GameSize, replies, won: bool, limit: int) -> str:
    """The same result in words, for screen readers."""
    outcome = (f"solved in {len(replies)} of {limit} guesses" if won
               else f"not solved in {limit} guesses")
    steps = "; ".join(f"guess {i}: {r.describe()}" for i, r in enumerate(replies, start=1))
    return f"Mastermind {size.label()}, {outcome}. {steps}."


def parse_replay(slug: str, code: str, args) -> dict:
    """The finished game a replay link describes, checked."""
    size = parse_slug(slug)
    secret = reveal(code, size)
    limit = small_number(args.get("l", DEFAULT_LIMIT))
    if limit is None or not 1 <= limit <= MAX_GUESSES:
        raise ReplayError(f"The guess limit must be from 1 to {MAX_GUESSES}.")
    raw = str(args.get("g", ""))
    items = raw.split(".") if raw else []
    if len(items) > limit:
        raise ReplayError(f"This link has {len(items)} guesses, more than the {limit} allowed.")
    guesses = [Code.parse(item, size) for item in items]
    for number, guess in enumerate(guesses, start=1):
        if guess == secret:
            raise ReplayError(f"Guess {number} already found the secret: the link goes on after the "
                              "winning guess.")
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
            raise ReplayError(f"The step must be a whole number from 0 to {len(history)}.")
    return {"size": size, "secret": secret, "history": history, "won": won, "limit": limit,
            "step": int(step), "code": code, "slug": slug}


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
                suggestion = best_guess(knuth, size, history[:number - 1], max_pairs=budget(), cands=cands)
                best, worst = suggestion.guess, max(suggestion.partition.values())
            except TooSlow:
                within_budget = False
        moves.append(Move(number, guess, reply, int(cands.shape[0]),
                          bool((cands == guess.index(size)).any()), best, worst))
        cands = consistent(size, cands, guess, reply)
    return moves


def knuth_game(size: GameSize, secret: Code, limit: int):
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
        return render_template("error.html", status=400, message=str(exc)), 400
    size, secret, history = state["size"], state["secret"], state["history"]
    moves = moves_of(size, history)
    knuth = knuth_game(size, secret, state["limit"])
    step = state["step"]

    def link(to: int) -> str:
        return replay_url(size, secret, [g for g, _ in history], state["limit"], step=to)

    links = {"first": 0, "prev": step - 1, "next": step + 1, "last": len(history)}
    context = {
        **state, "moves": moves, "knuth": knuth, "pegs": size.pegs,
        "links": {k: link(v) if 0 <= v <= len(history) and v != step else None for k, v in links.items()},
        "knuth_url": replay_url(size, secret, [g for g, _ in knuth], max(state["limit"], len(knuth)))
        if knuth else None,
        "classroom_url": url_for("solver.classroom", pegs=size.pegs, colors=size.colors,
                                 **({"distinct": 1} if size.distinct else {}), strategy=KNUTH,
                                 s=conceal(secret, size)),
        "description": share_description(size, [r for _, r in history], state["won"], state["limit"]),
    }
    return render("replay.html", "_replay.html", **context)


def share_context(game, link: str) -> dict:
    """What the share panel of a finished game shows."""
    replies = [m.reply for m in game.moves]
    won = game.status == "won"
    return {"share_link": link,
            "share_text": share_text(game.size, replies, won, game.max_guesses, link),
            "share_description": share_description(game.size, replies, won, game.max_guesses)}


def game_replay_url(game, external: bool = False) -> str | None:
    """The replay link of a finished game; None while it is played."""
    if not game.over:
        return None
    return replay_url(game.size, game.secret, [m.guess for m in game.moves], game.max_guesses,
                      external=external)


def init_app(app) -> None:
    app.register_blueprint(bp)
