"""The rules of a game in progress: whether a guess may be played now, the
reply it gets, and how the game stands after it. The store keeps games; this
is where they are judged.

>>> size = GameSize(2, 3)
>>> secret = Code.parse("12", size)
>>> judge_guess(size, secret, [], Code.parse("21", size), max_guesses=2)
(Feedback(black=0, white=2), 'playing')
>>> judge_guess(size, secret, [(Code.parse("21", size), Feedback(0, 2))], Code.parse("12", size), max_guesses=2)
(Feedback(black=2, white=0), 'won')
"""

from __future__ import annotations

from .codes import Code, Feedback, GameSize, History, MastermindError, check_guess, contradiction, feedback

PLAYING, WON, LOST = "playing", "won", "lost"


class GameOver(MastermindError):
    """The game has ended; it takes no more guesses."""


class StaleMove(MastermindError):
    """The move number posted is not the next one: a repeated or late post."""


class Inconsistent(ValueError):
    """Hard mode: the guess could not be the secret. ``earlier`` got ``reply``,
    and would have got ``would`` if the guess were the secret."""

    def __init__(self, guess: Code, earlier: Code, reply: Feedback, would: Feedback):
        super().__init__(f"{guess} contradicts {earlier} {reply}")
        self.guess, self.earlier, self.reply, self.would = guess, earlier, reply, would


def status_after(size: GameSize, reply: Feedback, moves: int, max_guesses: int) -> str:
    """How a game stands after its ``moves``-th guess got ``reply``."""
    if reply.black == size.pegs:
        return WON
    return LOST if moves >= max_guesses else PLAYING


def judge_guess(
    size: GameSize,
    secret: Code,
    history: History,
    guess: Code,
    *,
    max_guesses: int,
    status: str = PLAYING,
    hard: bool = False,
    move: int | None = None,
) -> tuple[Feedback, str]:
    """The reply ``guess`` gets as the next move of a game with ``history``,
    and the game's status after it. Raises :class:`GameOver` when the game
    has ended, :class:`StaleMove` when ``move`` (if given) is not the next
    move's number, ``CodeError`` for a guess the size forbids, and
    :class:`Inconsistent` in hard mode for a guess that contradicts a reply."""
    if status != PLAYING:
        raise GameOver("game-over")
    next_move = len(history) + 1
    if move is not None and move != next_move:
        if move < next_move:
            raise StaleMove("guess-recorded", move=move)
        raise StaleMove("move-stale", next=next_move, given=move)
    check_guess(guess, size)
    if hard:
        found = contradiction(history, guess)
        if found is not None:
            raise Inconsistent(guess, *found)
    reply = feedback(guess, secret)
    return reply, status_after(size, reply, next_move, max_guesses)
