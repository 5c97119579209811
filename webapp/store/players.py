"""Players: the anonymous token a browser plays under, its daily puzzles and
its finished games (for statistics), and the installation's own keys."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import sqlalchemy as sa

from ..engine import Code, GameSize
from ..engine.rules import PLAYING
from .database import connection, locked, transaction, upsert
from .games import Game, insert_game, load_game, size_of
from .tables import daily_games, earlier_players, games, guesses, server_keys, watch_links


def server_key(name: str) -> str:
    """A random secret of the installation, made on first use and shared by
    every server on this database (the daily puzzle's key)."""
    query = sa.select(server_keys.c.value).where(server_keys.c.name == name)
    value = connection().execute(query).scalar()
    if value is None:
        with transaction() as db:
            db.execute(upsert(server_keys).values(name=name, value=secrets.token_hex(32)).on_conflict_do_nothing())
        value = connection().execute(query).scalar_one()
    return value


def issued_earlier(token: str) -> bool:
    """Whether ``token`` is one the database held before tokens were signed."""
    query = sa.select(earlier_players.c.player).where(earlier_players.c.player == token)
    return connection().execute(query).first() is not None


def daily_game(player: str, day: int, board: str, size: GameSize, max_guesses: int, secret: Code) -> tuple[Game, bool]:
    """The game ``player`` plays on ``board``'s puzzle of ``day``: made the
    first time, the same one ever after (two requests at once make one);
    and whether it was made now."""
    mine = (daily_games.c.player == player, daily_games.c.day == day, daily_games.c.board == board)
    with transaction() as db:
        game_id = db.execute(locked(sa.select(daily_games.c.game_id).where(*mine))).scalar()
        created = game_id is None
        if created:
            game_id = insert_game(db, size, max_guesses, secret, player=player)
            added = db.execute(
                upsert(daily_games)
                .values(player=player, day=day, board=board, game_id=game_id)
                .on_conflict_do_nothing(index_elements=["player", "day", "board"])
            ).rowcount
            if added == 0:  # a request at the same moment made it first: keep that one
                db.execute(watch_links.delete().where(watch_links.c.game_id == game_id))
                db.execute(games.delete().where(games.c.id == game_id))
                game_id, created = db.execute(sa.select(daily_games.c.game_id).where(*mine)).scalar_one(), False
    return load_game(str(game_id)), created


def daily_of(game_id: str) -> tuple[int, str] | None:
    """The day and board of a daily game, or None for any other game."""
    row = (
        connection()
        .execute(sa.select(daily_games.c.day, daily_games.c.board).where(daily_games.c.game_id == str(game_id)))
        .first()
    )
    return (int(row.day), row.board) if row else None


def daily_games_of(player: str, day: int) -> dict[str, Game]:
    """``player``'s games of ``day``'s puzzles, by board."""
    rows = connection().execute(
        sa.select(daily_games.c.board, daily_games.c.game_id).where(
            daily_games.c.player == player, daily_games.c.day == day
        )
    )
    return {row.board: load_game(row.game_id) for row in rows.all()}


@dataclass
class Played:
    """One finished game of a player, as statistics count it."""

    id: str
    size: GameSize
    max_guesses: int
    secret: Code
    status: str
    guesses: list[Code]
    daily: int | None  # the day number of a daily puzzle
    created_at: float = 0.0


def finished_games(player: str, limit: int = 1000) -> list[Played]:
    """The finished games of ``player`` (the newest ``limit``), oldest first."""
    db = connection()
    rows = db.execute(
        sa.select(games, daily_games.c.day)
        .outerjoin(daily_games, daily_games.c.game_id == games.c.id)
        .where(games.c.player == player, games.c.status != PLAYING)
        .order_by(games.c.created_at.desc(), games.c.id)
        .limit(limit)
    ).all()
    moves: dict[str, list[str]] = {row.id: [] for row in rows}
    if moves:
        for move in db.execute(
            sa.select(guesses.c.game_id, guesses.c.guess)
            .where(guesses.c.game_id.in_(list(moves)))
            .order_by(guesses.c.game_id, guesses.c.move)
        ):
            moves[move.game_id].append(move.guess)
    out = []
    for row in reversed(rows):
        size = size_of(row)
        out.append(
            Played(
                row.id,
                size,
                row.max_guesses,
                Code.parse(row.secret, size),
                row.status,
                [Code.parse(guess, size) for guess in moves[row.id]],
                None if row.day is None else int(row.day),
                float(row.created_at),
            )
        )
    return out


def forget_idle_players(cutoff: float) -> int:
    """Let go of the player tokens whose latest game began before ``cutoff``
    (a Unix time): their games stay, tied to nobody, and their daily records
    go. Returns how many tokens were let go."""
    with transaction() as db:
        idle = list(
            db.execute(
                sa.select(games.c.player)
                .where(games.c.player.is_not(None))
                .group_by(games.c.player)
                .having(sa.func.max(games.c.created_at) < cutoff)
            ).scalars()
        )
        for start in range(0, len(idle), 500):
            chunk = idle[start : start + 500]
            db.execute(daily_games.delete().where(daily_games.c.player.in_(chunk)))
            db.execute(games.update().where(games.c.player.in_(chunk)).values(player=None))
    return len(idle)
