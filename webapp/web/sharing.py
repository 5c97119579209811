"""The share text: a finished game in the manner of word-game results, with no
secret."""

from __future__ import annotations

from flask_babel import gettext

from .. import store
from ..engine import Feedback, GameSize, rules
from ..words import size_label
from .wording import reply_words

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
