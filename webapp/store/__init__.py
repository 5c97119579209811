"""Every record the app keeps, and the only package that speaks SQL: games,
players and their daily puzzles, best-guess puzzles, challenges, codemaker
games, background jobs and rate counters, one module each, on SQLAlchemy
Core. It stores and
does not judge: whether a move is allowed is the engine's question
(``engine.rules``), how a refusal is worded the web layer's.

A unit of work (a request, a job, a command) runs inside :func:`scope`; the
web app enters one for every app context. The schema is kept by Alembic
(:mod:`.schema`): ``flask --app webapp db upgrade``."""

from __future__ import annotations

from . import challenges, codemaker, counters, games, jobs, live, players, puzzles, schema
from .database import Database, connection, current, database, enter, leave, scope, transaction
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
    """The database a configuration names. A new (empty) one gets this
    release's schema here; an existing one is upgraded only by the
    operator's command (``flask --app webapp db upgrade``, ``make upgrade``),
    never silently as the app starts: :func:`schema.behind` says whether it
    needs it."""
    found = Database(
        database_url(config),
        pool_size=config["DATABASE_POOL_SIZE"],
        pool_timeout=config["DATABASE_POOL_TIMEOUT"],
    )
    if not config["DATABASE_READ_ONLY"]:
        schema.make_if_new(found)
    return found


__all__ = [
    "Database",
    "challenges",
    "codemaker",
    "connection",
    "counters",
    "current",
    "database",
    "database_url",
    "enter",
    "games",
    "hand_back",
    "jobs",
    "leave",
    "live",
    "open_database",
    "players",
    "puzzles",
    "scope",
    "transaction",
    "upgrade",
]
