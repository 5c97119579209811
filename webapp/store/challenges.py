"""Challenges: one secret, many players, each with one game that counts."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

import sqlalchemy as sa

from ..engine import Code, GameSize
from ..engine.codes import random_secret
from ..engine.rules import PLAYING
from .database import connection, locked, transaction
from .games import Game, insert_game, load_game, new_id, size_of, size_values
from .tables import challenge_games, challenges, games, guesses


class ChallengeNotFound(LookupError):
    """No challenge has that id (or the results key is wrong)."""


@dataclass
class Challenge:
    id: str
    size: GameSize
    max_guesses: int
    secret: Code
    results_key: str


@dataclass
class Player:
    """One challenger's game as the results page shows it."""

    game_id: str
    name: str
    status: str
    guesses: list[Code] = field(default_factory=list)


@dataclass
class Joined:
    """What joining a challenge gave a player: a game, whether the results
    count it (only a player's first game does), and whether it is new."""

    game: Game
    counted: bool
    created: bool


def create_challenge(size: GameSize, max_guesses: int, secret: Code | None = None) -> Challenge:
    secret = secret or random_secret(size)
    challenge = Challenge(new_id(), size, max_guesses, secret, secrets.token_urlsafe(16))
    connection().execute(
        challenges.insert().values(
            id=challenge.id,
            **size_values(size),
            max_guesses=max_guesses,
            secret=str(secret),
            results_key=challenge.results_key,
            created_at=time.time(),
        )
    )
    return challenge


def load_challenge(challenge_id: str, results_key: str | None = None) -> Challenge:
    """The challenge; with ``results_key``, only if the key is right."""
    row = connection().execute(sa.select(challenges).where(challenges.c.id == str(challenge_id))).first()
    if row is None or (
        results_key is not None and not secrets.compare_digest(str(results_key).encode(), row.results_key.encode())
    ):
        raise ChallengeNotFound(challenge_id)
    size = size_of(row)
    return Challenge(row.id, size, row.max_guesses, Code.parse(row.secret, size), row.results_key)


def join_challenge(challenge: Challenge, name: str, player: str) -> Joined:
    """The game of ``player`` (an anonymous token) against the challenge's
    secret: the one in progress if there is one; otherwise a new game, counted
    if it is the player's first, a practice game if not. The challenge's row
    is locked meanwhile, so two joins at once make one counted game."""
    with transaction() as db:
        db.execute(locked(sa.select(challenges.c.id).where(challenges.c.id == challenge.id)))
        earlier = db.execute(
            sa.select(challenge_games.c.game_id, games.c.status)
            .join(games, games.c.id == challenge_games.c.game_id)
            .where(challenge_games.c.challenge_id == challenge.id, challenge_games.c.player == player)
            .order_by(challenge_games.c.joined_at, challenge_games.c.game_id)
        ).all()
        playing = [row.game_id for row in earlier if row.status == PLAYING]
        if playing:
            game_id, counted, created = playing[-1], earlier[0].game_id == playing[-1], False
        else:
            game_id = insert_game(db, challenge.size, challenge.max_guesses, challenge.secret, player=player)
            counted, created = not earlier, True
            db.execute(
                challenge_games.insert().values(
                    game_id=game_id,
                    challenge_id=challenge.id,
                    name=name,
                    joined_at=time.time(),
                    player=player,
                    counted=int(counted),
                )
            )
    return Joined(load_game(game_id), counted, created)


def challenge_of(game_id: str) -> str | None:
    """The id of the challenge a game belongs to, if any."""
    return (
        connection()
        .execute(sa.select(challenge_games.c.challenge_id).where(challenge_games.c.game_id == str(game_id)))
        .scalar()
    )


def challenge_players(challenge: Challenge) -> list[Player]:
    """Everyone who opened the challenge, first come first, with the guesses
    of their first game (practice games after it do not count; one query)."""
    players: dict[str, Player] = {}
    rows = connection().execute(
        sa.select(challenge_games.c.game_id, challenge_games.c.name, games.c.status, guesses.c.guess)
        .join(games, games.c.id == challenge_games.c.game_id)
        .outerjoin(guesses, guesses.c.game_id == challenge_games.c.game_id)
        .where(challenge_games.c.challenge_id == challenge.id, challenge_games.c.counted == 1)
        .order_by(challenge_games.c.joined_at, challenge_games.c.game_id, guesses.c.move)
    )
    for row in rows:
        player = players.setdefault(row.game_id, Player(row.game_id, row.name, row.status))
        if row.guess is not None:
            player.guesses.append(Code.parse(row.guess, challenge.size))
    return list(players.values())
