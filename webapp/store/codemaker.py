"""Codemaker games: the computer guesses, the player keeps the secret in
mind and answers; what is stored is the guesses and the answers."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ..engine import Code, Feedback, GameSize
from .database import connection, locked, transaction, upsert
from .games import Move, new_id, size_of, size_values
from .tables import codemaker_games, codemaker_replies


class CodemakerNotFound(LookupError):
    """No codemaker game has that id."""


class AnswersChanged(LookupError):
    """The stored answers are not the ones the caller worked from (another
    answer or a take-back came in meanwhile): nothing was stored."""


@dataclass
class CodemakerGame:
    id: str
    size: GameSize
    strategy: str
    moves: list[Move] = field(default_factory=list)

    def history(self):
        return [(m.guess, m.reply) for m in self.moves]

    @property
    def solved(self) -> bool:
        return bool(self.moves) and self.moves[-1].reply.black == self.size.pegs


def create_codemaker(size: GameSize, strategy: str) -> CodemakerGame:
    game_id = new_id()
    connection().execute(
        codemaker_games.insert().values(id=game_id, **size_values(size), strategy=strategy, created_at=time.time())
    )
    return load_codemaker(game_id)


def load_codemaker(game_id: str, db: Connection | None = None, lock: bool = False) -> CodemakerGame:
    db = db or connection()
    query = sa.select(codemaker_games).where(codemaker_games.c.id == str(game_id))
    row = db.execute(locked(query) if lock else query).first()
    if row is None:
        raise CodemakerNotFound(game_id)
    size = size_of(row)
    game = CodemakerGame(row.id, size, row.strategy)
    replies = sa.select(codemaker_replies).where(codemaker_replies.c.game_id == game.id)
    for move in db.execute(replies.order_by(codemaker_replies.c.move)):
        game.moves.append(Move(Code.parse(move.guess, size), Feedback(move.black, move.white)))
    return game


def add_codemaker_reply(game_id: str, guess: Code, reply: Feedback, seen: list[Move]) -> CodemakerGame:
    """Record the player's ``reply`` to ``guess`` as the move after ``seen``
    (the answers the caller worked from), under the game's lock;
    :class:`AnswersChanged` if the stored answers differ."""
    with transaction() as db:
        game = load_codemaker(game_id, db, lock=True)
        if game.moves != seen:
            raise AnswersChanged(game_id)
        added = db.execute(
            upsert(codemaker_replies)
            .values(game_id=game.id, move=len(seen) + 1, guess=str(guess), black=reply.black, white=reply.white)
            .on_conflict_do_nothing()
        ).rowcount
        if not added:
            raise AnswersChanged(game_id)
    game.moves.append(Move(guess, reply))
    return game


def undo_codemaker_reply(game_id: str, seen: list[Move]) -> CodemakerGame:
    """Take back the last answer of ``seen`` (the answers the caller worked
    from); :class:`AnswersChanged` if the stored answers differ."""
    with transaction() as db:
        game = load_codemaker(game_id, db, lock=True)
        if game.moves != seen or not seen:
            raise AnswersChanged(game_id)
        db.execute(
            codemaker_replies.delete().where(
                codemaker_replies.c.game_id == game.id, codemaker_replies.c.move == len(seen)
            )
        )
        game.moves.pop()
    return game
