"""The database: an SQLAlchemy engine on SQLite (the embedded default, WAL
mode so several worker processes share the file) or on PostgreSQL when
``DATABASE_URL`` names one, and the connection each unit of work uses.

A unit of work (a web request, a background job, a command) opens a
:func:`scope`; the store's functions use :func:`connection` inside it, one
connection for the whole scope, in autocommit mode: a single statement
commits at once, and :func:`transaction` groups several into one
transaction taken at once (``BEGIN IMMEDIATE`` on SQLite, so writers queue
rather than fail midway)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine


def engine_url(url: str) -> sa.URL:
    """The SQLAlchemy URL of a database: ``postgresql://…`` (or
    ``postgres://``), ``sqlite:///path``, or a plain path to an SQLite file.

    >>> engine_url("games.sqlite3").render_as_string()
    'sqlite:///games.sqlite3'
    >>> engine_url("postgresql://u@db/mm").drivername
    'postgresql+psycopg'
    """
    if url.startswith(("postgresql://", "postgres://")):
        return sa.make_url("postgresql+psycopg://" + url.split("://", 1)[1])
    if url.startswith("sqlite:///"):
        return sa.make_url(url)
    if "://" in url:
        raise ValueError(f"DATABASE_URL must be a postgresql:// URL, an sqlite:/// URL or a path, not {url!r}")
    return sa.URL.create("sqlite", database=url)


@dataclass
class Database:
    """One database and its pool of connections (one pool per process)."""

    url: str
    pool_size: int = 8
    pool_timeout: float = 5.0
    engine: Engine = field(init=False)

    def __post_init__(self) -> None:
        target = engine_url(self.url)
        if target.get_backend_name() == "sqlite":
            os.makedirs(os.path.dirname(os.path.abspath(target.database or ".")), exist_ok=True)
            self.engine = sa.create_engine(target, isolation_level="AUTOCOMMIT", connect_args={"timeout": 10})
            sa.event.listen(self.engine, "connect", _sqlite_settings)
        else:
            self.engine = sa.create_engine(
                target,
                isolation_level="AUTOCOMMIT",
                pool_size=self.pool_size,
                max_overflow=0,
                pool_timeout=self.pool_timeout,
                pool_pre_ping=True,  # a server restarted meanwhile: a fresh connection, not an error
            )

    @property
    def name(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    @property
    def begin(self) -> str:
        """The statement that opens a write transaction."""
        return "BEGIN IMMEDIATE" if self.name == "sqlite" else "BEGIN"

    @property
    def unavailable(self) -> tuple[type[Exception], ...]:
        """The errors that mean the database cannot be used just now (down,
        read-only, locked, out of connections), as opposed to a bug."""
        return (sa.exc.OperationalError, sa.exc.InternalError, sa.exc.TimeoutError)

    def connect(self, read_only: bool = False) -> Connection:
        db = self.engine.connect()
        if read_only:  # maintenance, such as a backup: every write fails
            if self.name == "sqlite":
                db.exec_driver_sql("PRAGMA query_only = ON")
            else:
                db.exec_driver_sql("SET default_transaction_read_only = on")
        return db

    def release(self, db: Connection, read_only: bool = False) -> None:
        if read_only:
            with contextlib.suppress(Exception):  # the pool replaces a broken connection
                if self.name == "sqlite":
                    db.exec_driver_sql("PRAGMA query_only = OFF")
                else:
                    db.exec_driver_sql("SET default_transaction_read_only = off")
        db.close()

    def close(self) -> None:
        """Close this process's pooled connections."""
        self.engine.dispose()


def _sqlite_settings(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout = 10000")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.close()


@dataclass
class Scope:
    """A unit of work's database and the one connection it opened, if any."""

    database: Database
    read_only: bool = False  # maintenance, such as a backup: every write fails
    db: Connection | None = None

    def connection(self) -> Connection:
        if self.db is None:
            self.db = self.database.connect(self.read_only)
        return self.db

    def close(self) -> None:
        if self.db is not None:
            self.database.release(self.db, self.read_only)
            self.db = None


_scope: ContextVar[Scope | None] = ContextVar("mastermind_store_scope", default=None)


def enter(database: Database, read_only: bool = False) -> object:
    """Begin a unit of work on ``database``; returns the token :func:`leave` takes."""
    return _scope.set(Scope(database, read_only))


def leave(token: object) -> None:
    """End the unit of work :func:`enter` began, handing its connection back."""
    scope = _scope.get()
    if scope is not None:
        scope.close()
    _scope.reset(token)  # type: ignore[arg-type]


@contextlib.contextmanager
def scope(database: Database, read_only: bool = False) -> Iterator[Scope]:
    """A unit of work outside a web request (a job, a command, a test)."""
    token = enter(database, read_only)
    try:
        yield _scope.get()  # type: ignore[misc]
    finally:
        leave(token)


def current() -> Scope:
    found = _scope.get()
    if found is None:
        raise RuntimeError("no unit of work: the store is used inside store.scope() or a request")
    return found


def database() -> Database:
    """The database of the current unit of work."""
    return current().database


def connection() -> Connection:
    """The current unit of work's connection (opened on first use)."""
    return current().connection()


@contextlib.contextmanager
def transaction() -> Iterator[Connection]:
    """The unit of work's connection inside one write transaction, taken at
    once: committed at the end, rolled back on any error."""
    db = connection()
    db.exec_driver_sql(database().begin)
    try:
        yield db
        db.exec_driver_sql("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):  # keep the error that matters, not the rollback's
            db.exec_driver_sql("ROLLBACK")
        raise


def locked(query: sa.Select) -> sa.Select:
    """``query`` taking its rows' locks until the transaction ends (on
    PostgreSQL; SQLite's write transaction is already one at a time)."""
    return query.with_for_update() if database().name == "postgresql" else query


def upsert(table: sa.Table) -> Any:
    """An INSERT that can say what to do on a conflict (``on_conflict_do_…``),
    in the dialect of the current database."""
    from sqlalchemy.dialects import postgresql, sqlite

    return (postgresql.insert if database().name == "postgresql" else sqlite.insert)(table)
