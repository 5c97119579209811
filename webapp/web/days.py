"""The daily puzzle: one secret a day per board, the same for everyone.

The secret of day ``n`` on a board is drawn from an HMAC-SHA256 of the day
and the board under a server-side key (``DAILY_KEY``, or a random key the
database keeps, shared by every server), so nothing a visitor can see before
the end of their game reveals or predicts it. Days change at midnight UTC
and are numbered from :data:`EPOCH` (day 1).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from flask import current_app
from flask_babel import gettext

from .. import store
from ..engine import Code, rules
from ..engine.codes import secret_indices
from ..settings import BOARDS_BY_KEY, Board
from .links import external_url
from .sharing import key_line

EPOCH = dt.date(2026, 1, 1)
# The boards that have a daily puzzle, in the order the page shows them.
DAILY_BOARDS = ("classic", "super")
TITLES = {"classic": "Mastermind", "super": "Super Mastermind"}


def clock() -> dt.datetime:
    """The time now, in UTC: the one clock the day numbers read."""
    return dt.datetime.now(dt.UTC)


def today(now: dt.datetime | None = None) -> int:
    """Today's day number (UTC)."""
    now = now or clock()
    return (now.date() - EPOCH).days + 1


def day_of(timestamp: float) -> int:
    """The day number of a Unix time."""
    return today(dt.datetime.fromtimestamp(timestamp, dt.UTC))


def date_of(number: int) -> dt.date:
    return EPOCH + dt.timedelta(days=number - 1)


def seconds_to_next(now: dt.datetime | None = None) -> int:
    """Seconds until the next puzzle (midnight UTC)."""
    now = now or dt.datetime.now(dt.UTC)
    tomorrow = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(), dt.UTC)
    return int((tomorrow - now).total_seconds())


def board(key: str) -> Board:
    return BOARDS_BY_KEY[key]


def board_for(pegs, colors) -> str | None:
    """The daily board of a size, or None when that size has no daily puzzle."""
    for key in DAILY_BOARDS:
        size = BOARDS_BY_KEY[key].size
        if (pegs, colors) == (size.pegs, size.colors):
            return key
    return None


def key() -> bytes:
    configured = current_app.config.get("DAILY_KEY")
    return (configured or store.players.server_key("daily")).encode()


def secret(number: int, board_key: str) -> Code:
    """The secret of day ``number`` on ``board_key``."""
    size = board(board_key).size
    digest = hmac.new(key(), f"daily:{number}:{board_key}".encode(), hashlib.sha256).digest()
    codes = secret_indices(size)
    return Code.from_index(int(codes[int.from_bytes(digest[:8], "big") % len(codes)]), size)


def play(player: str, number: int, board_key: str) -> tuple[store.games.Game, bool]:
    """``player``'s game of the day's puzzle (made on first play)."""
    b = board(board_key)
    return store.players.daily_game(player, number, board_key, b.size, b.max_guesses, secret(number, board_key))


def share_text(game: store.games.Game, number: int, board_key: str, skill: int | None) -> str:
    """``Mastermind daily #12 4/10``, the key-peg rows, the skill, the link
    to the day's puzzle (never the answer)."""
    won = game.status == rules.WON
    score = f"{len(game.moves)}/{game.max_guesses}" if won else f"X/{game.max_guesses}"
    lines = [gettext("%(game)s daily #%(number)d %(score)s", game=TITLES[board_key], number=number, score=score)]
    lines += [key_line(m.reply, game.size.pegs) for m in game.moves]
    if skill is not None:
        lines.append(gettext("Skill %(skill)d/100", skill=skill))
    lines.append(external_url("daily.day", number=number))
    return "\n".join(lines)
