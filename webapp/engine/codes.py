"""Game sizes, codes and feedback: the vocabulary of Mastermind.

Colours are 1-based in everything a person sees (Knuth's ``1122``); inside the
engine a code is also an integer index into the ascending order of all codes
(``1111`` is 0, ``1112`` is 1, ...), and its pegs are 0-based colours.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..figures import MAX_COLORS as MAX_COLORS
from ..figures import MAX_PEGS as MAX_PEGS
from ..figures import MIN_COLORS as MIN_COLORS
from ..figures import MIN_PEGS as MIN_PEGS
from ..figures import TENTH as TENTH
from ..figures import code_pegs, is_bulls_and_cows, size_label
from ..figures import peg_digit as peg_digit

# Arrays of code indices, any arrays, a game so far, JSON objects, and a
# progress callback (``progress(done, total)``): the engine's shared types.
Indices = npt.NDArray[np.int64]
Array = npt.NDArray[Any]
History = Sequence[tuple["Code", "Feedback"]]
JSON = dict[str, Any]
Progress = Callable[[int, int], None]

# The board's limits, and the tenth colour of ten, typed and shown as 0 (on
# the keyboard after 9), come from ``webapp.figures`` (imported above).
MIN_GUESSES, MAX_GUESSES = 1, 30


class MastermindError(ValueError):
    """Base class of every error the engine reports to a person.

    The engine states the fact, never a sentence: ``fact`` is a short key
    (``"code-length"``) and ``details`` the values a sentence needs. The web
    layer and the command line word it in the reader's language
    (``webapp.words.error_words``). An error raised by the web layer
    itself is already worded: its fact is the sentence.

    >>> str(CodeError("code-length", pegs=4, given="12345"))
    'code-length (pegs=4, given=12345)'
    """

    def __init__(self, fact: str, **details: object):
        super().__init__(fact, details)
        self.fact, self.details = fact, details

    def __str__(self) -> str:
        shown = ", ".join(f"{name}={value}" for name, value in self.details.items())
        return f"{self.fact} ({shown})" if shown else self.fact

    def record(self) -> dict[str, object]:
        """The fact and its details as JSON values (a background job stores
        its failure so, to be worded when someone reads it)."""
        return {
            "fact": self.fact,
            "kind": type(self).__name__,
            "details": {k: v.record() if isinstance(v, MastermindError) else v for k, v in self.details.items()},
        }


class SizeError(MastermindError):
    """A game size the engine does not support."""


class CodeError(MastermindError):
    """A code that cannot be read or does not fit the game."""


class FeedbackError(MastermindError):
    """Feedback that cannot occur, or that no code is consistent with."""


class HistoryError(MastermindError):
    """A history of guesses and replies that cannot be read."""


@dataclass(frozen=True)
class GameSize:
    """How many pegs a code has, how many colours there are, whether the
    secret must use different colours, and whether every guess must too.

    A game whose guesses use different colours can only be won when the
    secret does too, so ``distinct_guesses`` implies ``distinct``.
    """

    pegs: int = 4
    colors: int = 6
    distinct: bool = False
    distinct_guesses: bool = False

    def __post_init__(self) -> None:
        for name, low, high in (("pegs", MIN_PEGS, MAX_PEGS), ("colors", MIN_COLORS, MAX_COLORS)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise SizeError(f"{name}-not-number", low=low, high=high)
            if not low <= value <= high:
                raise SizeError(f"{name}-out-of-range", low=low, high=high, given=value)
        if not isinstance(self.distinct, bool):
            raise SizeError("distinct-not-flag")
        if not isinstance(self.distinct_guesses, bool):
            raise SizeError("distinct-guesses-not-flag")
        if self.distinct_guesses and not self.distinct:
            object.__setattr__(self, "distinct", True)
        if self.distinct and self.colors < self.pegs:
            raise SizeError("too-few-colors", pegs=self.pegs, colors=self.colors)

    def params(self) -> dict[str, object]:
        """The size as JSON values, the way the API writes it."""
        return {
            "pegs": self.pegs,
            "colors": self.colors,
            "distinct": self.distinct,
            "distinct_guesses": self.distinct_guesses,
        }

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> GameSize:
        """The inverse of :meth:`params` (a job stored before the rule for
        guesses existed has no ``distinct_guesses``).

        >>> GameSize.from_params(GameSize(5, 8).params()) == GameSize(5, 8)
        True
        """
        return cls(params["pegs"], params["colors"], params["distinct"], params.get("distinct_guesses", False))

    @property
    def n_codes(self) -> int:
        """How many codes can be guessed (repeats allowed)."""
        return int(self.colors**self.pegs)

    @property
    def n_replies(self) -> int:
        """How many feedback slots the integer encoding uses: ``(pegs + 1) ** 2``."""
        return (self.pegs + 1) ** 2

    @property
    def solved(self) -> int:
        """The encoded feedback of a correct guess (all black)."""
        return Feedback(self.pegs, 0).encode(self.pegs)

    @property
    def is_bulls_and_cows(self) -> bool:
        """Bulls and Cows: four different digits 0-9, every guess too."""
        return is_bulls_and_cows(self.pegs, self.colors, self.distinct_guesses)

    def allows_guess(self, code: Code) -> bool:
        """Whether ``code`` may be guessed in this game."""
        return not self.distinct_guesses or code.is_distinct()

    def label(self) -> str:
        """A short name such as ``4×6``, ``4×6 distinct``, ``4×7 distinct
        guesses``, or ``Bulls and Cows``."""
        return size_label(self.pegs, self.colors, self.distinct, self.distinct_guesses)


@dataclass(frozen=True, order=True)
class Feedback:
    """Black pegs (right colour, right place) and white pegs (right colour,
    wrong place)."""

    black: int
    white: int

    def encode(self, pegs: int) -> int:
        """The small integer the engine stores: ``black * (pegs + 1) + white``."""
        return self.black * (pegs + 1) + self.white

    @classmethod
    def decode(cls, value: int, pegs: int) -> Feedback:
        """Inverse of :meth:`encode`."""
        return cls(*divmod(int(value), pegs + 1))

    @classmethod
    def parse(cls, text: str, size: GameSize) -> Feedback:
        """Read ``"1,2"`` (black, white) and check it can occur in this size.

        >>> Feedback.parse("1,2", GameSize())
        Feedback(black=1, white=2)
        """
        match = re.fullmatch(r"\s*([0-9]+)\s*[,/ ]\s*([0-9]+)\s*", str(text))
        if not match:
            raise FeedbackError("feedback-unreadable", given=str(text)[:24])
        reply = cls(int(match[1]), int(match[2]))
        reply.check(size)
        return reply

    def check(self, size: GameSize) -> None:
        """Raise :class:`FeedbackError` unless this reply can happen in ``size``."""
        pegs = size.pegs
        if self.black < 0 or self.white < 0 or self.black + self.white > pegs:
            raise FeedbackError("feedback-too-many", black=self.black, white=self.white, pegs=pegs)
        if self.black == pegs - 1 and self.white == 1:
            raise FeedbackError("feedback-never", black=pegs - 1, white=1)

    @property
    def key(self) -> str:
        """The ``"black,white"`` form used in tree exports."""
        return f"{self.black},{self.white}"

    def describe(self, bulls: bool = False) -> str:
        """Words for a screen reader: ``"2 black, 1 white"``, or in Bulls and
        Cows ``"2 bulls, 1 cow"``."""
        if bulls:
            bull, cow = ("bull" if self.black == 1 else "bulls"), ("cow" if self.white == 1 else "cows")
            return f"{self.black} {bull}, {self.white} {cow}"
        return f"{self.black} black, {self.white} white"

    def __str__(self) -> str:
        return self.key


@dataclass(frozen=True)
class Code:
    """A row of coloured pegs, colours numbered from 1."""

    pegs: tuple[int, ...]

    @classmethod
    def parse(cls, text: object, size: GameSize) -> Code:
        """Read a code typed by a person: digits, optionally separated by
        spaces, commas or dashes.

        >>> Code.parse("1122", GameSize())
        Code(pegs=(1, 1, 2, 2))
        >>> str(Code.parse("1 2 3 4", GameSize()))
        '1234'
        """
        if not isinstance(text, str):
            raise CodeError("code-not-text", example=example(size))
        if len(text) > 64:
            raise CodeError("code-far-too-long", pegs=size.pegs)
        compact = re.sub(r"[\s,\-]", "", text)
        if not compact:
            raise CodeError("code-empty", pegs=size.pegs, example=example(size), digits=size.is_bulls_and_cows)
        bad = sorted({ch for ch in compact if not ch.isdigit() or not ch.isascii()})
        if bad:
            shown = ", ".join(f"'{ch}'" for ch in bad)
            raise CodeError("code-not-digits", given=shown, count=len(bad), **digit_range(size))
        if len(compact) != size.pegs:
            raise CodeError(
                "code-length", pegs=size.pegs, given=compact, length=len(compact), digits=size.is_bulls_and_cows
            )
        pegs = tuple(digit_value(ch, size) for ch in compact)
        out_of_range = sorted({p for p in pegs if not 1 <= p <= size.colors})
        if out_of_range:
            shown = ", ".join(str(p % 10) for p in out_of_range)
            raise CodeError("code-colour-outside", given=shown, count=len(out_of_range), **digit_range(size))
        return cls(pegs)

    @classmethod
    def from_index(cls, index: int, size: GameSize) -> Code:
        """The code at ``index`` in ascending order."""
        return cls(code_pegs(index, size.pegs, size.colors))

    def index(self, size: GameSize) -> int:
        """Position of this code in ascending order (``1111`` is 0)."""
        value = 0
        for peg in self.pegs:
            value = value * size.colors + (peg - 1)
        return value

    def is_distinct(self) -> bool:
        """True when no colour repeats."""
        return len(set(self.pegs)) == len(self.pegs)

    def __str__(self) -> str:
        return "".join(peg_digit(p) for p in self.pegs)


def digit_value(ch: str, size: GameSize) -> int:
    """The colour a typed digit names: 0 is the tenth colour of a ten-colour
    game, and no colour otherwise (reported as out of range)."""
    value = int(ch)
    return TENTH if value == 0 and size.colors == TENTH else value


def digit_range(size: GameSize) -> dict[str, object]:
    """The digits a code of ``size`` is typed with, for an error's details:
    ``1`` to ``colors`` (with ten colours, 0 after 9 stands for the tenth),
    and whether the game calls them digits (Bulls and Cows) or colours."""
    return {"colors": size.colors, "tenth": size.colors == TENTH, "digits": size.is_bulls_and_cows}


def example(size: GameSize) -> str:
    """An example code for messages: ``1234`` style, within the size."""
    return "".join(peg_digit(1 + i % size.colors) for i in range(size.pegs))


def feedback(guess: Code, secret: Code) -> Feedback:
    """Black and white pegs for ``guess`` against ``secret``.

    >>> feedback(Code((1, 1, 1, 1)), Code((1, 2, 3, 4)))
    Feedback(black=1, white=0)
    """
    if len(guess.pegs) != len(secret.pegs):
        raise CodeError("pegs-differ")
    black = sum(g == s for g, s in zip(guess.pegs, secret.pegs))
    common = sum(min(guess.pegs.count(c), secret.pegs.count(c)) for c in set(guess.pegs))
    return Feedback(black, common - black)


@lru_cache(maxsize=32)
def code_digits(pegs: int, colors: int) -> np.ndarray:
    """Every code in ascending order as an ``(n, pegs)`` array of 0-based colours."""
    n = colors**pegs
    powers = colors ** np.arange(pegs - 1, -1, -1)
    digits = (np.arange(n)[:, None] // powers) % colors
    digits = digits.astype(np.uint8)
    digits.flags.writeable = False
    return digits


@lru_cache(maxsize=32)
def color_counts(pegs: int, colors: int) -> np.ndarray:
    """How often each colour occurs in each code: an ``(n, colors)`` array."""
    digits = code_digits(pegs, colors)
    counts = np.zeros((digits.shape[0], colors), dtype=np.uint8)
    for i in range(pegs):
        counts[np.arange(digits.shape[0]), digits[:, i]] += 1
    counts.flags.writeable = False
    return counts


@lru_cache(maxsize=32)
def _secret_indices(size: GameSize) -> np.ndarray:
    if not size.distinct:
        indices = np.arange(size.n_codes, dtype=np.int32)
    else:
        indices = np.flatnonzero(color_counts(size.pegs, size.colors).max(axis=1) <= 1).astype(np.int32)
    indices.flags.writeable = False
    return indices


def secret_indices(size: GameSize) -> np.ndarray:
    """Indices of every code the codemaker may choose, ascending."""
    return _secret_indices(size)


def guess_indices(size: GameSize) -> np.ndarray:
    """Indices of every code the codebreaker may guess, ascending: every code,
    or with ``distinct_guesses`` the codes of different colours."""
    return _secret_indices(size) if size.distinct_guesses else _secret_indices(GameSize(size.pegs, size.colors))


def check_guess(code: Code, size: GameSize) -> None:
    """Raise :class:`CodeError` when the rules forbid guessing ``code``.

    >>> check_guess(Code.parse("1123", GameSize(4, 6, distinct_guesses=True)), GameSize(4, 6, distinct_guesses=True))
    Traceback (most recent call last):
    ...
    webapp.engine.codes.CodeError: guess-repeats (guess=1123, repeated=1, digits=False)
    """
    if not size.allows_guess(code):
        repeated = next(p for p in code.pegs if code.pegs.count(p) > 1)
        raise CodeError("guess-repeats", guess=str(code), repeated=peg_digit(repeated), digits=size.is_bulls_and_cows)


def random_secret(size: GameSize) -> Code:
    """A secret drawn uniformly, by the operating system's randomness, from
    every code the size allows."""
    choices = secret_indices(size)
    return Code.from_index(int(choices[secrets.randbelow(len(choices))]), size)


def check_secret(code: Code, size: GameSize) -> None:
    """Raise :class:`CodeError` when ``code`` cannot be a secret of ``size``
    (a colour twice where the secret uses different colours).

    >>> check_secret(Code.parse("1123", GameSize(4, 6, distinct=True)), GameSize(4, 6, distinct=True))
    Traceback (most recent call last):
    ...
    webapp.engine.codes.CodeError: secret-repeats
    """
    if size.distinct and not code.is_distinct():
        raise CodeError("secret-repeats")


def contradiction(history: History, guess: Code) -> tuple[Code, Feedback, Feedback] | None:
    """The first move of ``history`` that ``guess`` could not be the secret
    of: that move's guess, the reply it got, and the reply it would have got
    from ``guess``; None when ``guess`` fits every reply (hard mode's rule).

    >>> size = GameSize()
    >>> history = [(Code.parse("1122", size), Feedback(1, 0))]
    >>> [str(x) for x in contradiction(history, Code.parse("3345", size))]
    ['1122', '1,0', '0,0']
    >>> contradiction(history, Code.parse("1344", size)) is None
    True
    """
    for earlier, reply in history:
        would = feedback(earlier, guess)
        if would != reply:
            return earlier, reply, would
    return None


def parse_history(items: str | Sequence[str], size: GameSize) -> list[tuple[Code, Feedback]]:
    """``GUESS:BLACK,WHITE`` items (a list, or one string separated by
    spaces) as ``(Code, Feedback)`` pairs.

    >>> [(str(g), str(r)) for g, r in parse_history("1122:1,0 3456:0,2", GameSize())]
    [('1122', '1,0'), ('3456', '0,2')]
    """
    if isinstance(items, str):
        if len(items) > 16 * (MAX_GUESSES + 1):
            raise HistoryError("history-far-too-long")
        items = items.split()
    if len(items) > MAX_GUESSES:
        raise HistoryError("history-too-long", most=MAX_GUESSES, given=len(items))
    history: list[tuple[Code, Feedback]] = []
    for number, item in enumerate(items, start=1):
        guess, sep, reply = item.partition(":")
        if not sep:
            raise HistoryError("history-unreadable", given=item[:24], example=example(size))
        if history and history[-1][1].black == size.pegs:
            raise HistoryError("history-after-win", number=number)
        code = Code.parse(guess, size)
        try:
            check_guess(code, size)
        except CodeError as exc:
            raise HistoryError("history-guess", number=number, cause=exc) from None
        history.append((code, Feedback.parse(reply, size)))
    return history


def format_history(history: History) -> str:
    """The inverse of :func:`parse_history`: ``"1122:1,0 3456:0,2"``."""
    return " ".join(f"{guess}:{reply}" for guess, reply in history)


# A secret in a link is written so that a glance does not spoil it: the
# code's index, scrambled by a fixed bijection, in lowercase letters. An
# encoding, not a cipher: anyone with this function can read it.
_SCRAMBLE = 7919  # prime, so coprime with every colors ** pegs


def _letters_width(size: GameSize) -> int:
    width, top = 1, 26
    while top < size.n_codes:
        width, top = width + 1, top * 26
    return width


def conceal(code: Code, size: GameSize) -> str:
    """A code written for a link, unreadable at a glance.

    >>> conceal(Code.parse("1122", GameSize()), GameSize())
    'afh'
    >>> str(reveal("afh", GameSize()))
    '1122'
    """
    n = size.n_codes
    value = (code.index(size) * _SCRAMBLE + n // 3) % n
    letters = []
    for _ in range(_letters_width(size)):
        value, digit = divmod(value, 26)
        letters.append(chr(ord("a") + digit))
    return "".join(reversed(letters))


def reveal(text: str, size: GameSize) -> Code:
    """The code :func:`conceal` wrote; :class:`CodeError` for anything else."""
    n = size.n_codes
    if not isinstance(text, str) or len(text) != _letters_width(size) or not re.fullmatch(r"[a-z]+", text):
        raise CodeError("link-secret-letters")
    value = 0
    for ch in text:
        value = value * 26 + ord(ch) - ord("a")
    if value >= n:
        raise CodeError("link-secret-size")
    index = (value - n // 3) * pow(_SCRAMBLE, -1, n) % n
    code = Code.from_index(index, size)
    if size.distinct and not code.is_distinct():
        raise CodeError("link-secret-repeats")
    return code
