"""Every record the app keeps, and the only package that speaks SQL: games,
players and their daily puzzles, challenges, codemaker games, background
jobs and rate counters, one module each, on SQLAlchemy Core. It stores and
does not judge: whether a move is allowed is the engine's question
(``engine.rules``), how a refusal is worded the web layer's.

A unit of work (a request, a job, a command) runs inside :func:`scope`; the
web app enters one for every app context. The schema is kept by Alembic
(:mod:`.schema`): ``flask --app webapp db upgrade``."""

from __future__ import annotations

from . import live
from .challenges import (
    Challenge,
    ChallengeNotFound,
    Joined,
    Player,
    challenge_of,
    challenge_players,
    create_challenge,
    join_challenge,
    load_challenge,
)
from .codemaker import (
    AnswersChanged,
    CodemakerGame,
    CodemakerNotFound,
    add_codemaker_reply,
    create_codemaker,
    load_codemaker,
    undo_codemaker_reply,
)
from .counters import clear_counters, expire_counters, hit_counter, read_counter
from .database import Database, connection, current, database, enter, leave, scope, transaction
from .games import (
    Game,
    GameNotFound,
    Move,
    MoveTaken,
    create_game,
    expire_abandoned,
    load_game,
    load_hint,
    new_id,
    record_guess,
    record_suggestion,
    save_hint,
    set_show_count,
    watch_token,
    watched_game,
)
from .jobs import (
    DONE,
    FAILED,
    QUEUED,
    RUNNING,
    ClientJobsFull,
    JobsFull,
    admit_job,
    beat_job,
    claim_job,
    fail_job,
    finish_job,
    load_job,
    requeue_stale_job,
)
from .players import Played, daily_game, daily_games_of, daily_of, finished_games, forget_idle_players, server_key
from .schema import upgrade


def hand_back() -> None:
    """Return the current unit of work's connection to the pool until it is
    next used (a long-lived answer, such as a live stream, between reads)."""
    current().close()


def database_url(config) -> str:
    """Where the app keeps its records: ``DATABASE_URL`` when set, else the
    SQLite file ``DATABASE``."""
    return config.get("DATABASE_URL") or config["DATABASE"]


def open_database(config) -> Database:
    """The database a configuration names, its schema brought up to date."""
    found = Database(
        database_url(config),
        pool_size=config.get("DATABASE_POOL_SIZE", 8),
        pool_timeout=config.get("DATABASE_POOL_TIMEOUT", 5.0),
    )
    if not config.get("DATABASE_READ_ONLY"):
        upgrade(found)
    return found


__all__ = [
    "live",
    "DONE",
    "FAILED",
    "QUEUED",
    "RUNNING",
    "AnswersChanged",
    "Challenge",
    "ChallengeNotFound",
    "ClientJobsFull",
    "CodemakerGame",
    "CodemakerNotFound",
    "Database",
    "Game",
    "GameNotFound",
    "JobsFull",
    "Joined",
    "Move",
    "MoveTaken",
    "Played",
    "Player",
    "add_codemaker_reply",
    "admit_job",
    "beat_job",
    "challenge_of",
    "challenge_players",
    "claim_job",
    "clear_counters",
    "expire_counters",
    "connection",
    "create_challenge",
    "create_codemaker",
    "create_game",
    "current",
    "daily_game",
    "daily_games_of",
    "daily_of",
    "database",
    "database_url",
    "enter",
    "expire_abandoned",
    "fail_job",
    "finish_job",
    "finished_games",
    "forget_idle_players",
    "hand_back",
    "hit_counter",
    "join_challenge",
    "leave",
    "load_challenge",
    "load_codemaker",
    "load_game",
    "load_hint",
    "load_job",
    "new_id",
    "open_database",
    "read_counter",
    "record_guess",
    "record_suggestion",
    "requeue_stale_job",
    "save_hint",
    "scope",
    "server_key",
    "set_show_count",
    "transaction",
    "undo_codemaker_reply",
    "upgrade",
    "watch_token",
    "watched_game",
]
