"""Games: their settings and secret, their moves, the hint a board shows,
and the read-only link others watch them by."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ..engine import Code, Feedback, GameSize
from ..engine.codes import History, random_secret
from ..engine.rules import PLAYING
from .database import connection, locked, transaction, upsert
from .tables import challenge_games, daily_games, games, guesses, hints, watch_links

# The statements a guess runs (six of them), built once: SQLAlchemy works
# out a statement's cache key each time one is built, which costs more than
# running it on SQLite.
GAME = sa.select(games).where(games.c.id == sa.bindparam("game_id"))
GAME_ID = sa.select(games.c.id).where(games.c.id == sa.bindparam("game_id"))
MOVES = (
    sa.select(guesses.c.guess, guesses.c.black, guesses.c.white)
    .where(guesses.c.game_id == sa.bindparam("game_id"))
    .order_by(guesses.c.move)
)
MOVES_STORED = sa.select(sa.func.count()).where(guesses.c.game_id == sa.bindparam("game_id"))
ADD_MOVE = guesses.insert()
SET_STATUS = games.update().where(games.c.id == sa.bindparam("game_id")).values(status=sa.bindparam("new_status"))
WATCH_TOKEN = sa.select(watch_links.c.token).where(watch_links.c.game_id == sa.bindparam("game_id"))


class GameNotFound(LookupError):
    """No game has that id."""


class MoveTaken(LookupError):
    """Another request recorded this move number first."""


@dataclass
class Move:
    guess: Code
    reply: Feedback


@dataclass
class Game:
    """A game as stored: its size, its moves, and a secret kept server-side."""

    id: str
    size: GameSize
    max_guesses: int
    secret: Code
    status: str
    show_count: bool
    suggestions: int
    hint_move: int | None = None
    hint_strategy: str | None = None
    moves: list[Move] = field(default_factory=list)
    # Hard mode: every guess must fit every reply so far.
    hard: bool = False

    @property
    def over(self) -> bool:
        return self.status != PLAYING

    @property
    def next_move(self) -> int:
        return len(self.moves) + 1

    def history(self):
        return [(m.guess, m.reply) for m in self.moves]


def size_of(row) -> GameSize:
    """The game size a row of games, challenges or codemaker_games holds."""
    return GameSize(row.pegs, row.colors, bool(row.distinct_), bool(row.distinct_guesses))


def size_values(size: GameSize) -> dict:
    return {
        "pegs": size.pegs,
        "colors": size.colors,
        "distinct_": int(size.distinct),
        "distinct_guesses": int(size.distinct_guesses),
    }


def new_id() -> str:
    """A random id of 128 bits, URL-safe."""
    return secrets.token_urlsafe(16)


def create_game(
    size: GameSize, max_guesses: int, secret: Code | None = None, hard: bool = False, player: str | None = None
) -> Game:
    """Store a new game (and its watch link) and return it; ``hard``: every
    guess must fit every reply so far; ``player``: the anonymous token of the
    browser that plays it (for its statistics)."""
    with transaction() as db:
        game_id = insert_game(db, size, max_guesses, secret or random_secret(size), hard, player)
    return load_game(game_id)


def create_game_from(size: GameSize, max_guesses: int, secret: Code, moves: History, player: str | None = None) -> Game:
    """Store a new game whose first ``moves`` (guesses and their replies,
    as ``secret`` answers them) are already played."""
    with transaction() as db:
        game_id = insert_game(db, size, max_guesses, secret, False, player)
        now = time.time()
        for number, (guess, reply) in enumerate(moves, 1):
            db.execute(
                guesses.insert().values(
                    game_id=game_id, move=number, guess=str(guess), black=reply.black, white=reply.white, at=now
                )
            )
    return load_game(game_id)


def insert_game(
    db: Connection, size: GameSize, max_guesses: int, secret: Code, hard: bool = False, player: str | None = None
) -> str:
    """Write a new game and its watch link inside the caller's transaction."""
    game_id = new_id()
    db.execute(
        games.insert().values(
            id=game_id,
            **size_values(size),
            max_guesses=max_guesses,
            secret=str(secret),
            created_at=time.time(),
            hard=int(hard),
            player=player,
        )
    )
    db.execute(watch_links.insert().values(token=new_id(), game_id=game_id))
    return game_id


def load_game(game_id: str, db: Connection | None = None, lock: bool = False) -> Game:
    """The game with ``game_id``, with its moves; :class:`GameNotFound` if none.
    With ``lock`` (inside a transaction), other writers of this game wait for it."""
    db = db or connection()
    row = db.execute(locked(GAME) if lock else GAME, {"game_id": str(game_id)}).first()
    if row is None:
        raise GameNotFound(game_id)
    size = size_of(row)
    game = Game(
        row.id,
        size,
        row.max_guesses,
        Code.parse(row.secret, size),
        row.status,
        bool(row.show_count),
        row.suggestions,
        row.hint_move,
        row.hint_strategy,
        hard=bool(row.hard),
    )
    for move in db.execute(MOVES, {"game_id": game.id}):
        game.moves.append(Move(Code.parse(move.guess, size), Feedback(move.black, move.white)))
    return game


def record_guess(game: Game, guess: Code, reply: Feedback, status: str) -> Game:
    """Store ``guess`` and its ``reply`` as the next move of ``game`` (as the
    caller loaded it), and the game's ``status`` after it, in one
    transaction. :class:`MoveTaken` when another request stored that move
    first: nothing is stored then."""
    move = game.next_move
    with transaction() as db:
        db.execute(locked(GAME_ID), {"game_id": game.id})  # one writer per game
        stored = db.execute(MOVES_STORED, {"game_id": game.id}).scalar_one()
        if stored != len(game.moves):
            raise MoveTaken(game.id)
        db.execute(
            ADD_MOVE,
            {
                "game_id": game.id,
                "move": move,
                "guess": str(guess),
                "black": reply.black,
                "white": reply.white,
                "at": time.time(),
            },
        )
        if status != game.status:
            db.execute(SET_STATUS, {"game_id": game.id, "new_status": status})
    game.moves.append(Move(guess, reply))
    game.status = status
    return game


def set_show_count(game_id: str, show: bool) -> None:
    """Remember whether the player wants the "codes still possible" counter."""
    done = connection().execute(games.update().where(games.c.id == str(game_id)).values(show_count=int(show)))
    if done.rowcount == 0:
        raise GameNotFound(game_id)


def record_suggestion(game: Game, strategy: str) -> None:
    """Remember which strategy's hint the board shows for this move, so a
    reload shows it again, and count the moves on which a hint was shown
    (asking again for the same move counts once)."""
    connection().execute(
        games.update()
        .where(games.c.id == game.id, games.c.status == PLAYING)
        .values(
            suggestions=games.c.suggestions + sa.case((games.c.hint_move == game.next_move, 0), else_=1),
            hint_move=game.next_move,
            hint_strategy=strategy,
        )
    )
    if game.hint_move != game.next_move:
        game.suggestions += 1
    game.hint_move, game.hint_strategy = game.next_move, strategy


def save_hint(game_id: str, move: int, strategy: str, result: str) -> None:
    """Keep a worked-out hint, so showing the board again costs nothing."""
    connection().execute(
        upsert(hints).values(game_id=game_id, move=move, strategy=strategy, result=result).on_conflict_do_nothing()
    )


def load_hint(game_id: str, move: int, strategy: str) -> str | None:
    return (
        connection()
        .execute(
            sa.select(hints.c.result).where(
                hints.c.game_id == game_id, hints.c.move == move, hints.c.strategy == strategy
            )
        )
        .scalar()
    )


# --- watch links: a game seen by others, who cannot play in it ----------------------------------


def watch_token(game_id: str) -> str:
    """The game's read-only link token (made the first time it is asked for)."""
    db = connection()
    token = db.execute(WATCH_TOKEN, {"game_id": str(game_id)}).scalar()
    if token is None:  # written once, so showing a board stays a read
        db.execute(
            upsert(watch_links)
            .values(token=new_id(), game_id=str(game_id))
            .on_conflict_do_nothing(index_elements=["game_id"])
        )
        token = db.execute(WATCH_TOKEN, {"game_id": str(game_id)}).scalar_one()
    return token


def watched_game(token: str) -> Game:
    game_id = connection().execute(sa.select(watch_links.c.game_id).where(watch_links.c.token == str(token))).scalar()
    if game_id is None:
        raise GameNotFound(token)
    return load_game(game_id)


# --- retention: games nobody plays any more -----------------------------------------------------


def expire_abandoned(cutoff: float) -> int:
    """Delete the games still being played whose last move (or creation) is
    older than ``cutoff`` (a Unix time), with everything hanging off them.
    Finished games stay (their replays and challenge results point at them)."""
    last_move = sa.select(sa.func.max(guesses.c.at)).where(guesses.c.game_id == games.c.id).scalar_subquery()
    with transaction() as db:
        ids = list(
            db.execute(
                sa.select(games.c.id).where(
                    games.c.status == PLAYING, sa.func.coalesce(last_move, games.c.created_at) < cutoff
                )
            ).scalars()
        )
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for table in (guesses, hints, watch_links, challenge_games, daily_games):
                db.execute(table.delete().where(table.c.game_id.in_(chunk)))
            db.execute(games.delete().where(games.c.id.in_(chunk)))
    return len(ids)


def finished_lines(limit: int) -> list[tuple[GameSize, list[tuple[Code, Feedback]]]]:
    """The guesses and replies of the newest ``limit`` finished games."""
    db = connection()
    rows = db.execute(
        sa.select(games).where(games.c.status != PLAYING).order_by(games.c.created_at.desc()).limit(limit)
    ).all()
    moves: dict[str, list[tuple[Code, Feedback]]] = {row.id: [] for row in rows}
    sizes = {row.id: size_of(row) for row in rows}
    if moves:
        for move in db.execute(
            sa.select(guesses).where(guesses.c.game_id.in_(list(moves))).order_by(guesses.c.game_id, guesses.c.move)
        ):
            size = sizes[move.game_id]
            moves[move.game_id].append((Code.parse(move.guess, size), Feedback(move.black, move.white)))
    return [(sizes[row.id], moves[row.id]) for row in rows]
