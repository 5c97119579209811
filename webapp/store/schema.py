"""Keeping a database's schema current with Alembic: :func:`upgrade` applies
the revisions in ``migrations/versions`` that the database has not had. One
process at a time upgrades (an advisory lock on PostgreSQL, a lock file
beside the SQLite file); the others wait, then find nothing to do.

Operators run ``flask --app webapp db upgrade`` (``make upgrade``; ``make
run``, ``make serve`` and ``make classroom`` run it first). The app makes a
new, empty database's schema as it starts, so a fresh install needs no
step; an existing database it never upgrades itself: until the command has
run, it answers 503 and says so."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from .database import Database

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
UPGRADE_LOCK = 4242  # PostgreSQL advisory lock key held while upgrading


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision this release knows."""
    found = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert found is not None
    return found


def make_if_new(database: Database) -> bool:
    """Give a new, empty database this release's schema; whether it was new.
    Decided under the upgrade's lock, so of several processes starting on
    one new database, one makes it and the others then find it made."""
    with upgrading(database) as connection:
        if sa.inspect(connection).get_table_names():
            return False
        command.upgrade(alembic_config(connection), "head")
        return True


def behind(database: Database) -> str | None:
    """The revision an existing database is at when it is not this
    release's (``"none"`` for one made before Alembic); None when current."""
    found = revision(database)
    return None if found == head() else (found or "none")


def revision(database: Database) -> str | None:
    """The revision the database is at (None: not yet made by Alembic)."""
    with database.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


@contextlib.contextmanager
def upgrading(database: Database) -> Iterator[Connection]:
    """A connection in one transaction, held by one process at a time."""
    if database.name == "sqlite":
        lock_path = Path(database.engine.url.database or "db").with_suffix(".upgrade-lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with database.engine.connect().execution_options(isolation_level="SERIALIZABLE") as connection:
                yield connection
                connection.commit()
    else:
        with database.engine.connect().execution_options(isolation_level="READ COMMITTED") as connection:
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({UPGRADE_LOCK})")
            yield connection
            connection.commit()


def upgrade(database: Database, target: str = "head") -> None:
    """Apply the revisions the database has not had, up to ``target``."""
    with upgrading(database) as connection:
        command.upgrade(alembic_config(connection), target)
