"""The probes a host's machines call: ``/healthz`` answers while the process
does (no database work, never rate-limited, whatever Host it names), and
``/readyz`` answers 200 only when the database, its schema, Redis and a job
consumer are all there, else 503 naming what is missing. On SQLite with
everything embedded, and on real PostgreSQL and Redis servers, stopped in
the middle of a test."""

from __future__ import annotations

import time

import pytest

from tests.waiting import eventually
from webapp import create_app, store
from webapp.web.limits import limiter

BOTH = pytest.mark.backends("sqlite", "postgresql")
# How long a test waits for a state it causes (never how long work takes).
PATIENCE = 20


def ready(client) -> tuple[int, dict]:
    answer = client.get("/readyz")
    assert answer.mimetype == "application/json" and answer.headers["Cache-Control"] == "no-store"
    return answer.status_code, answer.get_json()


@BOTH
def test_the_process_answers_whatever_the_host_and_never_past_a_limit(db_config):
    app = create_app({**db_config, "TESTING": True, "JOBS_PERIODIC": False, "RATELIMIT_APPLICATION": "2 per minute"})
    client = app.test_client()
    try:
        for host in ("127.0.0.1:8000", "10.0.0.11:8000", "somewhere.example"):
            for _ in range(3):  # past the limit every other route meets
                answer = client.get("/healthz", headers={"Host": host})
                assert answer.status_code == 200 and answer.get_json() == {"status": "ok"}
                assert answer.headers["Cache-Control"] == "no-store"
        assert [client.get("/api").status_code for _ in range(3)][-1] == 429
        status, body = ready(client)
        assert status == 200 and body["status"] == "ready" and body["not_ready"] == []
        expected = {"database", "schema", "jobs"} | ({"redis"} if db_config["REDIS_URL"] else set())
        assert set(body["checks"]) == expected and all(check["ok"] for check in body["checks"].values())
    finally:
        # Flask-Limiter's limiter is the module's: the next app must not inherit this limit.
        limiter.limit_manager.set_application_limits([])
        app.extensions["jobs"].stop()
        app.extensions["store"].close()


def test_health_does_no_database_work():
    """With its database server stopped, the process still answers
    ``/healthz`` at once; ``/readyz`` names the database."""
    from benchmarks.servers import postgresql

    with postgresql() as url:  # a server of this test's own, to stop
        app = create_app({"DATABASE_URL": str(url), "REDIS_URL": None, "JOBS_CONSUMER": "none", "TESTING": True})
        client = app.test_client()
        url.stop()
        try:
            assert client.get("/healthz").status_code == 200
            status, body = ready(client)
            assert status == 503 and "database" in body["not_ready"] and not body["checks"]["database"]["ok"]
            assert "postgresql database did not answer" in body["checks"]["database"]["detail"]
            assert str(url) not in str(body) and "mastermind@" not in str(body)  # no address, no user
        finally:
            app.extensions["store"].close()


def test_a_stopped_redis_is_named(postgresql_url):
    """A Redis of the test's own stops: ``/readyz`` turns 503 naming it,
    while the database still answers."""
    from benchmarks.servers import redis

    with redis() as redis_url:
        app = create_app(
            {"DATABASE_URL": postgresql_url, "REDIS_URL": redis_url, "TESTING": True, "JOBS_REDIS_WAIT": 0.1}
        )
        client = app.test_client()
        try:
            assert ready(client)[0] == 200
        finally:
            app.extensions["jobs"].stop()
    try:
        status, body = ready(client)
        assert status == 503 and "redis" in body["not_ready"]
        assert body["checks"]["redis"]["detail"].startswith("Redis did not answer")
        assert body["checks"]["database"]["ok"] and body["checks"]["schema"]["ok"]
        assert client.get("/healthz").status_code == 200
    finally:
        app.extensions["live"].stop()
        app.extensions["store"].close()


@BOTH
def test_a_server_without_its_consumer_is_not_ready_until_one_beats(db_config):
    """``JOBS_CONSUMER = "none"`` expects a consumer elsewhere: until one
    has beaten in the queue the server says so; once one runs (here an
    embedded one on the same queue, as ``huey_consumer`` would), it is ready."""
    web = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
    client = web.test_client()
    status, body = ready(client)
    assert status == 503 and body["not_ready"] == ["jobs"] and "start huey_consumer" in body["checks"]["jobs"]["detail"]
    consumer = create_app({**db_config, "TESTING": True, "JOBS_PERIODIC": False, "JOBS_REDIS_WAIT": 0.1})
    try:
        eventually(lambda: ready(client)[0] == 200, "the server ready once the consumer beats")
    finally:
        consumer.extensions["jobs"].stop()
        consumer.extensions["store"].close()
        web.extensions["store"].close()


def test_a_consumer_silent_too_long_is_named(db_path):
    app = create_app(
        {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "TESTING": True, "JOBS_CONSUMER": "none"}
    )
    from webapp.jobs import CONSUMER_HEARTBEAT

    app.extensions["jobs"].huey.put(CONSUMER_HEARTBEAT, time.time() - 3600)
    status, body = ready(app.test_client())
    assert status == 503 and "been heard for 3600 s" in body["checks"]["jobs"]["detail"]


def test_a_schema_behind_is_named_and_the_process_still_answers(db_path):
    """A database at an older revision: every page says the server is being
    upgraded, ``/healthz`` answers, and ``/readyz`` names the schema and
    the command that brings it up."""
    config = {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "TESTING": True, "JOBS_CONSUMER": "none"}
    made = create_app(config)
    with made.app_context():
        store.connection().exec_driver_sql("UPDATE alembic_version SET version_num = '0001'")
    app = create_app({**config, "JOBS_CONSUMER": "embedded", "JOBS_PERIODIC": False})
    client = app.test_client()
    try:
        assert client.get("/api/games/x").status_code == 503
        assert client.get("/healthz").status_code == 200
        status, body = ready(client)
        assert status == 503 and body["not_ready"] == ["schema"]
        assert "at revision 0001" in body["checks"]["schema"]["detail"]
        assert "db upgrade" in body["checks"]["schema"]["detail"]
    finally:
        app.extensions["jobs"].stop()
