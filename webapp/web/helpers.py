"""What the views share, so that no view imports another: the colour
palette, fragment or page (``render``), the request's engine budget, a
form's move number, the game object of the API, the loaders that
answer 404, the share text, the player token, and the hooks every page gets
(no caching of game state, forms only on form routes)."""

from __future__ import annotations

import hashlib
import secrets
import threading
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import numpy as np
from cachetools import LRUCache
from flask import abort, current_app, g, render_template, request, url_for
from flask_babel import format_decimal, get_locale, gettext, lazy_gettext, ngettext

from .. import store
from ..engine import Code, Feedback, GameSize, MastermindError, Strategy, rules
from ..engine.codes import format_history, peg_digit
from ..engine.position import Position, describe
from ..engine.strategies import Budget, Suggestion, TooSlow
from ..settings import MAX_NAME, PLAYER_TOKEN, SettingsError, small_number
from ..words import error_words, size_label
from .errors import error_response
from .links import game_replay_url


@dataclass(frozen=True)
class Color:
    """How colour ``number`` is named and marked, so that no peg relies on
    colour alone. Its fill and ink are the stylesheet's ``.c1`` … ``.c10``;
    the tenth is written 0 (``digit``)."""

    number: int
    name: Any  # a lazy string, in the page's language when shown
    symbol: str

    @property
    def digit(self) -> str:
        return peg_digit(self.number)


PALETTE = (
    Color(1, lazy_gettext("red"), "●"),
    Color(2, lazy_gettext("blue"), "■"),
    Color(3, lazy_gettext("green"), "▲"),
    Color(4, lazy_gettext("yellow"), "◆"),
    Color(5, lazy_gettext("purple"), "★"),
    Color(6, lazy_gettext("orange"), "✚"),
    Color(7, lazy_gettext("cyan"), "⬟"),
    Color(8, lazy_gettext("pink"), "♥"),
    Color(9, lazy_gettext("brown"), "✖"),
    Color(10, lazy_gettext("white"), "✿"),
)


def color(number: int) -> Color:
    """The look of colour ``number`` (1-based)."""
    return PALETTE[number - 1]


# --- words in the page's language (see ``i18n``) -----------------------------------------------


def current_language() -> str:
    """The request's language code, for ``<html lang>``."""
    return str(get_locale() or "en")


def number(value) -> str:
    """A whole number with the locale's grouping: 1,296 in English, 1.296 in German."""
    return format_decimal(value)


def reply_words(reply: Feedback, bulls: bool = False) -> str:
    """A reply in words, for a screen reader and beside the key pegs:
    "2 black, 1 white", or in Bulls and Cows "2 bulls, 1 cow"."""
    if bulls:
        first = ngettext("%(num)d bull", "%(num)d bulls", reply.black)
        second = ngettext("%(num)d cow", "%(num)d cows", reply.white)
    else:
        first = ngettext("%(num)d black", "%(num)d black", reply.black)
        second = ngettext("%(num)d white", "%(num)d white", reply.white)
    return gettext("%(first)s, %(second)s", first=first, second=second)


def here_without_lang() -> str:
    """This page's address without ``lang``, for the switcher to come back to
    (a ``lang`` in it would outrank the choice just made)."""
    if request.method != "GET":
        return request.path
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    return request.path + ("?" + urlencode(args) if args else "")


def back_to(target: str | None) -> str:
    """Where to return after choosing (a form's ``next``): a path on this
    site, else the home page. A line break in it is a 400: no answer
    carries it into a header. Browsers drop tabs and line breaks from an
    address (``/%09/example.com`` is ``//example.com``), so any space or
    control character makes the target the home page."""
    if not target:
        return "/"
    if "\r" in target or "\n" in target:
        abort(400, gettext("That return address is not a path on this site."))
    parts = urlsplit(target)
    on_this_site = target.startswith("/") and not target.startswith("//") and not (parts.scheme or parts.netloc)
    plain = "\\" not in target and all(c.isprintable() and not c.isspace() for c in target)
    return target if on_this_site and plain else "/"


def game_or_404(game_id: str) -> store.games.Game:
    """The game with this id, or a 404 that says so."""
    try:
        return store.games.load_game(game_id)
    except store.games.GameNotFound:
        abort(404, gettext("There is no game with that id. It may have been mistyped."))


def play_guess(game_id: str, guess: Code, move: int | None = None) -> store.games.Game:
    """Play ``guess`` as move ``move`` (the next one when None): judged by
    the rules (``engine.rules``) against the game as stored, then recorded.
    A move another request recorded first is a stale move; without a move
    number, the guess is judged again as the move after it."""
    while True:
        game = game_or_404(game_id)
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


def inconsistent_sentence(exc: rules.Inconsistent, bulls: bool = False) -> str:
    """Why hard mode refuses a guess, in words."""
    return gettext(
        "%(guess)s cannot be the secret: %(earlier)s got %(reply)s, and %(guess)s would get %(would)s.",
        guess=str(exc.guess),
        earlier=str(exc.earlier),
        reply=reply_words(exc.reply, bulls),
        would=reply_words(exc.would, bulls),
    )


class ViewError(MastermindError):
    """A URL whose state cannot be shown (a step past the end, a history that
    does not fit the secret)."""


def status_of(exc: MastermindError) -> int:
    """422 for work too large to do now, 400 for anything malformed."""
    return 422 if isinstance(exc, TooSlow) else 400


def busy_response(exc, page=None):
    """The 503 of a full job queue, with ``Retry-After``: ``page`` (HTML) or JSON."""
    response = error_response(503, error_words(exc)) if page is None else current_app.make_response((page, 503))
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


def form_defaults(args) -> dict:
    """What a solver page's settings form shows: the query as typed, within reason."""
    return {
        key: str(args.get(key, ""))[:20]
        for key in ("pegs", "colors", "distinct", "distinct_guesses", "strategy", "adversary", "history")
    }


# --- the share text: a finished game in the manner of word-game results -----------------------

EMOJI = {"black": "⚫", "white": "⚪", "none": "▫"}


def key_line(reply: Feedback, pegs: int) -> str:
    """One guess as key-peg emoji: ``⚫⚪▫▫``."""
    return (
        EMOJI["black"] * reply.black + EMOJI["white"] * reply.white + EMOJI["none"] * (pegs - reply.black - reply.white)
    )


def game_title(size: GameSize) -> str:
    """What the share text calls the game: ``Mastermind 4×6``, or ``Bulls and Cows``."""
    return gettext("Bulls and Cows") if size.is_bulls_and_cows else f"Mastermind {size_label(size)}"


def key_legend(size: GameSize) -> str:
    """The share text's key to its emoji in Bulls and Cows, where black and white are bulls and cows."""
    if not size.is_bulls_and_cows:
        return ""
    return gettext("%(black)s bull %(white)s cow", black=EMOJI["black"], white=EMOJI["white"])


def share_text(size: GameSize, replies, won: bool, limit: int, link: str, hard: bool = False) -> str:
    """The result to paste in a chat: no secret, one emoji line per guess."""
    score = f"{len(replies)}/{limit}" if won else f"X/{limit}"
    lines = [f"{game_title(size)} {score}" + (" " + gettext("(hard mode)") if hard else "")]
    lines += [key_line(r, size.pegs) for r in replies]
    if key_legend(size):
        lines.append(key_legend(size))
    lines.append(link)
    return "\n".join(lines)


def share_description(size: GameSize, replies, won: bool, limit: int, hard: bool = False) -> str:
    """The same result in words, for screen readers."""
    if won:
        outcome = gettext("solved in %(num)d of %(limit)d guesses", num=len(replies), limit=limit)
    else:
        outcome = gettext("not solved in %(limit)d guesses", limit=limit)
    steps = "; ".join(
        gettext("guess %(number)d: %(reply)s", number=i, reply=reply_words(r, size.is_bulls_and_cows))
        for i, r in enumerate(replies, start=1)
    )
    title = gettext("%(game)s in hard mode", game=game_title(size)) if hard else game_title(size)
    return f"{title}, {outcome}. {steps}."


def share_context(game: store.games.Game, link: str) -> dict:
    """What the share panel of a finished game shows."""
    replies = [m.reply for m in game.moves]
    won = game.status == rules.WON
    return {
        "share_link": link,
        "share_text": share_text(game.size, replies, won, game.max_guesses, link, game.hard),
        "share_description": share_description(game.size, replies, won, game.max_guesses, game.hard),
    }


def budget() -> Budget:
    """The engine work this request may still do: ``REQUEST_BUDGET`` pairs
    shared by every engine call it makes, and no exact search."""
    if "budget" not in g:
        g.budget = Budget(current_app.config["REQUEST_BUDGET"], search=False)
    return g.budget


def move_number(value: str, least: int = 1) -> int:
    """The move (or step) number a form posts, at least ``least``, or a 400:
    only ASCII digits count."""
    number = small_number(value)
    if number is None or number < least:
        abort(400, gettext("The form was incomplete: reload the page and try again."))
    return number


# An anonymous player: a random token, no account and nothing personal. Pages
# keep it in a cookie; API clients send back the one they were given.
PLAYER_COOKIE = "player"
PLAYER_COOKIE_DAYS = 365


def player_token(raw: str | None = None) -> tuple[str, bool]:
    """The player token ``raw`` (already checked against ``PLAYER_TOKEN``),
    else a new one; and whether it is new."""
    if not raw:
        return secrets.token_urlsafe(16), True
    return raw, False


def browser_player() -> str | None:
    """This browser's player token (from its cookie), or None before its first game."""
    raw = request.cookies.get(PLAYER_COOKIE, "")
    return raw if PLAYER_TOKEN.fullmatch(raw) else None


def cookie_player() -> tuple[str, bool]:
    """This browser's player token (from its cookie), or a new one."""
    return player_token(browser_player())


def keep_cookie(response, name: str, value: str, seconds: float):
    """Keep ``value`` in the cookie ``name`` for ``seconds``, as every cookie
    of the site is kept: HttpOnly, SameSite=Lax, and Secure over HTTPS."""
    response.set_cookie(name, value, max_age=int(seconds), httponly=True, samesite="Lax", secure=request.is_secure)
    return response


def remember_player(response, token: str, cookie: str = PLAYER_COOKIE):
    """Keep the player token in a cookie for a year."""
    return keep_cookie(response, cookie, token, PLAYER_COOKIE_DAYS * 86400)


def is_htmx() -> bool:
    """True for a request htmx made to swap part of a page (not a history restore)."""
    return request.headers.get("HX-Request") == "true" and not request.headers.get("HX-History-Restore-Request")


def render(page: str, fragment: str, status: int = 200, **context):
    """The fragment for htmx, the full page otherwise; both get the same context."""
    return render_template(fragment if is_htmx() else page, **context), status


def no_store(response):
    """An ``after_request`` hook for every view of a game's state: never
    shown from a cache (after Back, a stale board would offer a move that was
    already played, and a shared cache must not keep anyone's game)."""
    response.headers["Cache-Control"] = "no-store"
    return response


FORM_TYPES = {"", "application/x-www-form-urlencoded", "multipart/form-data"}


def forms_only():
    """A ``before_request`` hook: the pages' POST routes take form fields;
    a JSON (or any other) body gets 415 and the address of the API route
    that takes it."""
    if request.method != "POST" or request.path.startswith("/api/") or request.mimetype in FORM_TYPES:
        return None
    twin = "/api" + request.path
    try:
        current_app.url_map.bind("").match(twin, method="POST")
    except Exception:  # no API route at that address: point at the API's index
        twin = None
    where = (
        gettext("POST it to %(address)s instead", address=twin)
        if twin
        else gettext(
            "the JSON API is described at %(address)s", address=current_app.url_map.bind("").build("apidocs.page")
        )
    )
    body = request.mimetype or gettext("that body")
    abort(415, gettext("This address takes form fields, not %(body)s: %(where)s.", body=body, where=where))


def vary_on_htmx(response):
    """An ``after_request`` hook: answers differ for htmx and for others."""
    response.vary.add("HX-Request")
    return response


# --- positions explained -------------------------------------------------------------------------

# Positions described lately, by strategy, size and history: the classroom's
# links and a live class's many screens ask for the same few again and again.
_explained: LRUCache = LRUCache(maxsize=256)
_explained_lock = threading.Lock()


def explained(
    strategy: Strategy, size: GameSize, history: list[tuple[Code, Feedback]], suggestion: Suggestion | None = None
) -> Position:
    """The engine's description of the position after ``history`` (within
    the request's budget; a random tie-break is seeded by the position, so
    the same position is always described the same way). ``suggestion``:
    the strategy's guess here, when a background search found it."""
    key = (strategy.name, size, format_history(history))
    with _explained_lock:
        found = _explained.get(key)
    if found is not None:
        return found
    seed = int.from_bytes(hashlib.sha256(f"{size}:{format_history(history)}".encode()).digest()[:8], "big")
    position = describe(
        strategy, size, history, rng=np.random.default_rng(seed), max_pairs=budget(), suggestion=suggestion
    )
    with _explained_lock:
        _explained[key] = position
    return position


# --- names people give ------------------------------------------------------------------------

# Characters that show nothing yet are letters or symbols to Unicode: the
# Hangul fillers and the blank Braille pattern (a name of them looks empty).
BLANK_LETTERS = set("\u115f\u1160\u3164\uffa0\u2800")
# Combining marks one character may carry in a name (a stack of dozens
# spills over the lines around it).
MOST_MARKS = 2


def shown_characters(text: str) -> str:
    """``text`` without what a reader cannot see or that changes the text
    around it: control and format characters (zero-width spaces and joiners,
    direction marks, tag characters), blank letters, and the combining marks
    past the second on one character."""
    kept: list[str] = []
    marks = 0
    for c in text:
        kind = unicodedata.category(c)
        if kind in ("Cc", "Cf", "Co", "Cs", "Cn") or c in BLANK_LETTERS:
            continue
        if kind.startswith("M"):
            marks += 1
            if marks > MOST_MARKS or not kept:
                continue
        else:
            marks = 0
        kept.append(c)
    return "".join(kept)


def player_name(raw, most: int = MAX_NAME) -> str:
    """A player's name: plain text, with what a reader cannot see removed
    (:func:`shown_characters`) and spaces folded; at most ``most`` characters.

    >>> player_name("A\u200bnn"), player_name("\u200b\u200b\u200b"), player_name("  Ann   Lee ")
    ('Ann', '', 'Ann Lee')
    """
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise SettingsError(gettext('A name is text, such as "Ann".'))
    name = " ".join(shown_characters(raw).split())
    if len(name) > most:
        raise SettingsError(gettext("A name has at most %(num)d characters.", num=most))
    return name
