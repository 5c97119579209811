"""Every address the pages build: a size as query parameters, the classroom
at a position, a line, a tree, a replay. One function per kind of link, so a
link reads the same wherever it is made."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from flask import current_app, url_for

from ..engine import Code, GameSize
from ..engine.codes import conceal, format_history

# A replay link without ``l`` is a game of this many guesses at most.
DEFAULT_LIMIT = 10


def external_url(endpoint: str, **values) -> str:
    """An absolute link to give out (to paste in a chat, to scan): on the
    configured ``PUBLIC_URL``, else on the request's own host (one that
    ``TRUSTED_HOSTS`` admits), never on an arbitrary ``Host`` header."""
    public = current_app.config.get("PUBLIC_URL")
    if public:
        return public.rstrip("/") + url_for(endpoint, **values)
    return url_for(endpoint, _external=True, **values)


def size_args(size: GameSize) -> dict:
    """The query parameters of a size, as the pages write them."""
    args: dict = {"pegs": size.pegs, "colors": size.colors}
    if size.distinct:
        args["distinct"] = 1
    if size.distinct_guesses:
        args["distinct_guesses"] = 1
    return args


def classroom_url(
    size: GameSize,
    strategy: str,
    history=(),
    secret: Code | None = None,
    hidden: str | None = None,
    presenter: bool = False,
) -> str:
    """The classroom at the position after ``history``, with the secret
    (``secret``, or already written as ``hidden``) when it is known."""
    args = {**size_args(size), "strategy": strategy}
    if secret is not None:
        hidden = conceal(secret, size)
    if hidden:
        args["s"] = hidden
    if history:
        args["history"] = format_history(history)
    if presenter:
        args["presenter"] = 1
    return url_for("solver.classroom") + "?" + urlencode(args)


def line_url(size: GameSize, strategy: str | None, adversary: str | None, step: int | None = None) -> str:
    """The optimal-game page of a line (``strategy`` None for the default
    codebreaker, ``adversary`` None for the default adversary), at ``step``."""
    args = size_args(size)
    if strategy:
        args["strategy"] = strategy
    if adversary:
        args["adversary"] = adversary
    if step is not None:
        args["step"] = step
    return url_for("solver.optimal_game", **args)


def tree_url(size: GameSize, strategy: str, path=()) -> str:
    """The tree page with the branches along ``path`` (replies) open."""
    args = {**size_args(size), "strategy": strategy}
    if path:
        args["open"] = " ".join(r.key for r in path)
    return url_for("solver.tree") + "?" + urlencode(args)


def size_slug(size: GameSize) -> str:
    """``4x6``; ``4x6d`` when the secret uses different colours, ``4x10dd``
    when every guess does too (Bulls and Cows)."""
    return f"{size.pegs}x{size.colors}" + ("dd" if size.distinct_guesses else "d" if size.distinct else "")


def size_from_slug(text: str) -> GameSize | None:
    """The size a slug names (ASCII digits only), or None."""
    match = re.fullmatch(r"([0-9])x(10|[0-9])(d{0,2})", text or "")
    if not match:
        return None
    return GameSize(int(match[1]), int(match[2]), bool(match[3]), len(match[3]) == 2)


def replay_url(
    size: GameSize,
    secret: Code,
    guesses,
    limit: int = DEFAULT_LIMIT,
    external: bool = False,
    step: int | None = None,
    endpoint: str = "share.replay",
) -> str:
    """The permalink that replays a finished game (``endpoint``
    ``share.review``: the fragment of its review, at the same arguments)."""
    guesses = list(guesses)
    if guesses and guesses[-1] == secret:
        guesses = guesses[:-1]  # the winning guess is the secret: implied, not spelled out
    args: dict = {"g": ".".join(str(g) for g in guesses)}
    if limit != DEFAULT_LIMIT:
        args["l"] = limit
    if step is not None:
        args["step"] = step
    values = {"size": size_slug(size), "code": conceal(secret, size), **args}
    return external_url(endpoint, **values) if external else url_for(endpoint, **values)


def game_replay_url(game, external: bool = False) -> str | None:
    """The replay link of a finished game; None while it is played."""
    if not game.over:
        return None
    return replay_url(game.size, game.secret, [m.guess for m in game.moves], game.max_guesses, external=external)
