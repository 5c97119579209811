"""Reading a new game's settings from a form or a link (the JSON API reads
its bodies through ``web.schemas``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext, lazy_gettext

from .engine import GameSize, MastermindError
from .engine.codes import MAX_COLORS, MAX_GUESSES, MAX_PEGS, MIN_COLORS, MIN_GUESSES, MIN_PEGS


class SettingsError(MastermindError):
    """Settings a game cannot be played with."""


@dataclass(frozen=True)
class Board:
    """A board the home page offers by name: its size and guess limit."""

    key: str
    title: Any  # str, or a lazy string translated when shown
    size: GameSize
    max_guesses: int
    blurb: Any


BOARDS = (
    Board("classic", lazy_gettext("Classic"), GameSize(4, 6), 10, lazy_gettext("4 pegs, 6 colours, 10 guesses.")),
    Board(
        "brain-breaker",
        lazy_gettext("Brain Breaker"),
        GameSize(4, 5),
        10,
        lazy_gettext("4 pegs, 5 colours, 10 guesses."),
    ),
    Board(
        "super",
        lazy_gettext("Super Mastermind"),
        GameSize(5, 8),
        12,
        lazy_gettext("5 pegs, 8 colours, 12 guesses."),
    ),
    Board(
        "distinct",
        lazy_gettext("Distinct"),
        GameSize(4, 6, distinct=True),
        10,
        lazy_gettext("4 pegs, 6 colours; the secret uses 4 different colours."),
    ),
    Board(
        "bulls-and-cows",
        lazy_gettext("Bulls and Cows"),
        GameSize(4, 10, distinct=True, distinct_guesses=True),
        10,
        lazy_gettext("4 different digits 0–9, every guess too, 10 guesses."),
    ),
)
BOARDS_BY_KEY = {b.key: b for b in BOARDS}
# A player's name, in a challenge, has at most this many characters.
MAX_NAME = 40
# An anonymous player's token, as the site gives them out (pages and the API).
PLAYER_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
DEFAULTS = {"pegs": 4, "colors": 6, "max_guesses": 10, "distinct": False, "distinct_guesses": False}


def small_number(text, digits: int = 4) -> int | None:
    """A small whole number typed in a form, a link or a header (ASCII
    digits, at most ``digits`` of them), or None: ``"²"`` and 5,000-digit
    strings are not numbers here.

    >>> small_number(" 12 "), small_number("²"), small_number("9" * 5000), small_number("12345", digits=4)
    (12, None, None, None)
    """
    text = str(text).strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= digits else None


FIELDS = {  # what a person calls each setting, and its range
    "pegs": (lazy_gettext("Pegs"), MIN_PEGS, MAX_PEGS),
    "colors": (lazy_gettext("Colours"), MIN_COLORS, MAX_COLORS),
    "max_guesses": (lazy_gettext("Guesses allowed"), MIN_GUESSES, MAX_GUESSES),
}
YES, NO = {"1", "true", "on", "yes"}, {"0", "false", "off", "no", ""}


def _whole(name: str, value) -> int:
    label, low, high = FIELDS[name]
    number = small_number(value)
    if number is None:
        shown = str(value).strip()[:12]
        raise SettingsError(
            gettext(
                "%(field)s must be a whole number from %(low)d to %(high)d, not '%(given)s'.",
                field=label,
                low=low,
                high=high,
                given=shown,
            )
        )
    return number


FLAGS = {  # what each yes-or-no setting asks
    "distinct": lazy_gettext("Say whether the secret uses different colours with on or off."),
    "distinct_guesses": lazy_gettext("Say whether every guess uses different colours with on or off."),
    "hard": lazy_gettext("Say whether to play in hard mode with on or off."),
}


def _flag(name: str, value) -> bool:
    text = str(value).strip().lower()
    if text not in YES | NO:
        raise SettingsError(str(FLAGS[name]))
    return text in YES


def parse_hard(data) -> bool:
    """Hard mode (every guess must fit every reply so far), off when missing."""
    return _flag("hard", data.get("hard", "")) if "hard" in data else False


def parse_size(data) -> GameSize:
    """The game size in ``data`` (a form or a query string); missing fields
    take the classic defaults."""
    pegs = _whole("pegs", data.get("pegs", DEFAULTS["pegs"]))
    colors = _whole("colors", data.get("colors", DEFAULTS["colors"]))
    distinct, guesses = (
        _flag(name, data.get(name, "")) if name in data else False for name in ("distinct", "distinct_guesses")
    )
    return GameSize(pegs, colors, distinct, guesses)


def parse_settings(data) -> tuple[GameSize, int]:
    """Game size and guess limit from a form; missing fields take the classic defaults."""
    size = parse_size(data)
    limit = _whole("max_guesses", data.get("max_guesses", DEFAULTS["max_guesses"]))
    if not MIN_GUESSES <= limit <= MAX_GUESSES:
        raise SettingsError(
            gettext(
                "Guesses allowed must be from %(low)d to %(high)d, not %(given)d.",
                low=MIN_GUESSES,
                high=MAX_GUESSES,
                given=limit,
            )
        )
    return size, limit


def size_params(size: GameSize) -> dict:
    """A size as the plain fields a background job's parameters hold."""
    return size.params()
