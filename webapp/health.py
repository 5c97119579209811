"""Whether this server can do its work, as a load balancer, systemd or a
Kubernetes probe asks (``/readyz``): its database answers a query and its
schema is this release's, Redis answers when one is configured, and a job
consumer takes the queue's jobs when one is expected (this process's own
threads when embedded, else a recent heartbeat of ``huey_consumer``).

Each check states a fact for the operator, in English like a log line, and
never the text of an error (a URL, a user name): only its type, the whole
error going to the log."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from . import store

LOGGER = logging.getLogger("mastermind.health")

# Seconds a probe waits for Redis before it says Redis does not answer.
REDIS_PATIENCE = 2.0


@dataclass(frozen=True)
class Check:
    """One thing the server needs, and whether it has it."""

    name: str
    ok: bool
    detail: str

    def json(self) -> dict:
        return {"ok": self.ok, "detail": self.detail}


def failed(name: str, what: str, exc: Exception) -> Check:
    LOGGER.warning("not ready: %s", what, exc_info=exc)
    return Check(name, False, f"{what} ({type(exc).__name__})")


def database_answers() -> Check:
    """The current unit of work's database answers ``SELECT 1``."""
    try:
        store.connection().exec_driver_sql("SELECT 1").scalar_one()
    except Exception as exc:
        return failed("database", f"the {store.database().name} database did not answer", exc)
    return Check("database", True, f"the {store.database().name} database answers")


def schema_current(database: store.Database, head: str) -> Check:
    """The database's schema is at revision ``head``, this release's."""
    try:
        found = store.schema.revision(database)
    except Exception as exc:
        return failed("schema", "the schema's revision could not be read", exc)
    if found != head:
        return Check(
            "schema",
            False,
            f"the database is at revision {found or 'none'}, this release needs {head}: "
            "run `flask --app webapp db upgrade`",
        )
    return Check("schema", True, f"revision {head}")


def redis_answers(client) -> Check:
    """The configured Redis answers PING."""
    try:
        client.ping()
    except Exception as exc:
        return failed("redis", "Redis did not answer", exc)
    return Check("redis", True, "Redis answers")


def consumer_alive(jobs, embedded: bool, stale_seconds: float, now: float) -> Check:
    """A consumer takes the queue's jobs: this process's threads when
    ``embedded``, else one whose heartbeat is at most ``stale_seconds`` old."""
    if embedded:
        if jobs.embedded_alive():
            return Check("jobs", True, "this process's job threads run")
        return Check("jobs", False, "this process's job threads have stopped")
    try:
        heard = jobs.consumer_heard()
    except Exception as exc:
        return failed("jobs", "the job queue could not be read", exc)
    if heard is None:
        return Check("jobs", False, "no job consumer has ever taken this queue's jobs: start huey_consumer")
    silent = now - heard
    if silent > stale_seconds:
        return Check("jobs", False, f"no job consumer has been heard for {silent:.0f} s: start huey_consumer")
    return Check("jobs", True, f"a job consumer was heard {max(silent, 0):.1f} s ago")


class Readiness:
    """An app's checks, with what they need made once (the release's
    schema revision, a Redis client that gives up soon)."""

    def __init__(self, config, database: store.Database, jobs):
        self.database, self.jobs = database, jobs
        self.head = store.schema.head()
        self.embedded = config["JOBS_CONSUMER"] == "embedded"
        self.stale_seconds = float(config["JOBS_STALE_SECONDS"])
        self.redis = None
        if config.get("REDIS_URL"):
            import redis

            self.redis = redis.Redis.from_url(
                config["REDIS_URL"], socket_connect_timeout=REDIS_PATIENCE, socket_timeout=REDIS_PATIENCE
            )

    def checks(self) -> list[Check]:
        """Every check, inside a unit of work of the store (a request)."""
        found = [database_answers(), schema_current(self.database, self.head)]
        if self.redis is not None:
            found.append(redis_answers(self.redis))
        found.append(consumer_alive(self.jobs, self.embedded, self.stale_seconds, time.time()))
        return found

    def close(self) -> None:
        if self.redis is not None:
            self.redis.close()
