"""Background jobs: one computation per question, kept across restarts,
restarted when its process dies, and a cap on how many run at once. Real
huey queues, on SQLite files and on a real Redis (with the records on a real
PostgreSQL); the consumers are real threads or a real `huey_consumer` process."""

import os
import signal
import subprocess
import sys
import time

import pytest
from records import sql

from webapp import create_app, store
from webapp.computations import ROW_FIELDS
from webapp.engine import GameSize, analyse

FORCED = {"JOBS_QUICK_INLINE": False, "TESTING": True, "JOBS_PERIODIC": False, "JOBS_REDIS_WAIT": 0.1}
pytestmark = pytest.mark.backends("sqlite", "postgresql")


def make_app(db_config, **config):
    return create_app({**db_config, **FORCED, **config})


def job_row(app, key_part):
    with app.app_context():
        rows = sql("SELECT * FROM jobs WHERE key LIKE :k", k=f"%{key_part}%").mappings().all()
    return [dict(r) for r in rows]


def wait_done(client, url, seconds=120):
    deadline = time.time() + seconds
    seen = []
    while time.time() < deadline:
        resp = client.get(url)
        if resp.status_code == 200:
            return resp.get_json(), seen
        assert resp.status_code == 202, resp.get_data(as_text=True)
        seen.append(resp.get_json())
        time.sleep(0.1)
    raise AssertionError(f"{url} never finished: {seen[-1:]}")


def expected_rows(size):
    from webapp.computations import compared

    return [{k: v for k, v in analyse(s, size).summary().items() if k in ROW_FIELDS} for s in compared(size)]


def test_shared_computation_and_progress(db_config):
    url = "/api/solver/compare?pegs=4&colors=5"
    # A server with no consumer yet: whatever the machine's speed, both
    # visitors find the question queued, one job between them.
    idle = make_app(db_config, JOBS_CONSUMER="none")
    a, b = idle.test_client(), idle.test_client()
    first = a.get(url)
    assert first.status_code == 202 and first.get_json()["status"] == "queued"
    second = b.get(url)  # another visitor, same question
    assert second.status_code == 202 and second.get_json()["status"] == "queued"
    assert len(job_row(idle, "compare")) == 1
    # A server with a consumer on the same queue takes the job to the end.
    app = make_app(db_config)
    data, seen = wait_done(app.test_client(), url)
    assert data["rows"] == expected_rows(GameSize(4, 5))
    rows = job_row(app, "compare")
    assert len(rows) == 1 and rows[0]["attempts"] == 1 and rows[0]["status"] == "done"
    progress = [s["progress"] for s in seen if s["progress"] is not None]
    assert progress == sorted(progress)  # progress only moves forward
    assert b.get(url).get_json() == data  # later visitors get it at once
    app.extensions["jobs"].stop()


def test_result_kept_after_restart(db_config):
    app = make_app(db_config)
    data, _ = wait_done(app.test_client(), "/api/solver/compare?pegs=3&colors=5")
    app.extensions["jobs"].stop()
    # A new server on the same database, with no consumer at all: the stored
    # result is all it can answer with, and it answers at once.
    again = make_app(db_config, JOBS_CONSUMER="none")
    resp = again.test_client().get("/api/solver/compare?pegs=3&colors=5")
    assert resp.status_code == 200 and resp.get_json() == data
    assert job_row(again, "compare")[0]["attempts"] == 1


def test_concurrency_cap(db_config):
    app = make_app(db_config, JOBS_CONSUMER="none", JOBS_MAX=1, JOBS_RETRY_AFTER=7)
    client = app.test_client()
    assert client.get("/api/solver/compare?pegs=4&colors=7").status_code == 202
    busy = client.get("/api/solver/compare?pegs=4&colors=8")
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "7"
    assert "busy" in busy.get_json()["error"]
    page = client.get("/solver/compare?pegs=4&colors=8")
    assert page.status_code == 503 and page.headers["Retry-After"] == "7"
    assert "try again in a moment" in page.get_data(as_text=True)
    # The queued one is still reported, not refused.
    assert client.get("/api/solver/compare?pegs=4&colors=7").status_code == 202


def test_restart_mid_job(db_config, tmp_path):
    """A consumer process dies in the middle of a job: the job is noticed as
    abandoned and run again, to the end. The job is a gate the test opens, so
    "in the middle" is a state, not a moment: it holds on any machine."""
    sys.path.insert(0, os.path.dirname(__file__))
    import gate_job  # noqa: F401  (registers the "gate" kind here too)

    from webapp import jobs

    # Stale only after an hour: the dead process's heartbeat is fresh however slow the machine.
    app = make_app(db_config, JOBS_CONSUMER="none", JOBS_STALE_SECONDS=3600.0)
    go = str(tmp_path / "go")
    with app.app_context():
        assert jobs.get("gate", {"go": go}).status == "queued"
    env = {**os.environ, "MASTERMIND_DATABASE": app.config["DATABASE"]}
    if db_config.get("DATABASE_URL"):  # the worker finds PostgreSQL and Redis as a server would
        env.update(DATABASE_URL=db_config["DATABASE_URL"], REDIS_URL=db_config["REDIS_URL"])
    worker = subprocess.Popen(
        [
            sys.executable,
            os.path.join(os.path.dirname(__file__), "gate_job.py"),
            "webapp.worker.huey",
            "--workers",
            "1",
            "--worker-type",
            "thread",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 60  # bounds a broken test; the state is reached at any speed
        while time.time() < deadline:
            row = job_row(app, "gate")[0]
            if row["status"] == "running" and (row["progress"] or 0) > 0:
                break
            time.sleep(0.05)
        assert row["status"] == "running" and row["progress"] == 0.5  # waiting at the gate
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    assert job_row(app, "gate")[0]["status"] == "running"  # left behind by the dead process
    with app.app_context():
        assert jobs.get("gate", {"go": go}).status == "running"  # its heartbeat is still fresh
        # Its heartbeat grows old (written back, not waited for): abandoned.
        sql("UPDATE jobs SET heartbeat = heartbeat - 7200 WHERE kind = 'gate'")
    open(go, "w").close()  # this time the gate is open
    app.extensions["jobs"].start(1)  # a consumer comes back
    with app.app_context():
        job = jobs.get("gate", {"go": go})  # the next request to ask queues it again
        deadline = time.time() + 60
        while not job.done and time.time() < deadline:
            time.sleep(0.05)
            job = jobs.get("gate", {"go": go})
    assert job.done and job.result == {"opened": go}
    row = job_row(app, "gate")[0]
    assert row["status"] == "done" and row["attempts"] == 2
    app.extensions["jobs"].stop()


def test_failed_job_is_reported(db_config, monkeypatch):
    from webapp import jobs

    def broken(params, progress):
        raise ValueError("No secret fits that.")

    monkeypatch.setitem(jobs.KINDS, "compare", jobs.Kind("compare", broken))
    app = make_app(db_config)
    client = app.test_client()
    deadline = time.time() + 20
    while time.time() < deadline:
        resp = client.get("/api/solver/compare?pegs=3&colors=3")
        if resp.status_code != 202:
            break
        time.sleep(0.05)
    assert resp.status_code == 422 and resp.get_json()["error"] == "No secret fits that."
    app.extensions["jobs"].stop()


@pytest.mark.parametrize(
    "query,words,api_status",
    [("pegs=7", "Pegs must be from 2 to 6", 400), ("pegs=6&colors=9", "whole-game analysis goes up to", 422)],
)
def test_compare_bad_parameters(client, query, words, api_status):
    resp = client.get(f"/api/solver/compare?{query}")
    assert resp.status_code == api_status and words in resp.get_json()["error"]
    page = client.get(f"/solver/compare?{query}")
    assert page.status_code == 400 and words in page.get_data(as_text=True)


def test_job_cap_holds_under_concurrent_requests(db_config):
    """Eight requests for eight new jobs at once, on two servers sharing one
    database, with room for three: exactly three are admitted, the others
    get 503, on SQLite and on PostgreSQL."""
    import threading

    apps = [make_app(db_config, JOBS_CONSUMER="none", JOBS_MAX=3) for _ in range(2)]
    start, statuses = threading.Barrier(8), []
    sizes = [(4, 7), (4, 8), (5, 5), (5, 6), (5, 7), (4, 9), (3, 9), (5, 4)]

    def ask(i):
        pegs, colors = sizes[i]
        client = apps[i % 2].test_client()
        client.environ_base["REMOTE_ADDR"] = f"192.0.2.{i + 1}"  # eight visitors: the total cap is what holds
        start.wait()
        statuses.append(client.get(f"/api/solver/compare?pegs={pegs}&colors={colors}").status_code)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [202] * 3 + [503] * 5
    assert len([r for r in job_row(apps[0], "compare") if r["status"] == "queued"]) == 3
    for app in apps:
        app.extensions["jobs"].stop()


SIZES = [(4, 7), (4, 8), (5, 5), (5, 6), (5, 7)]


def visitor(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def compare_url(pegs: int, colors: int) -> str:
    return f"/api/solver/compare?pegs={pegs}&colors={colors}"


def test_one_client_cannot_take_every_slot(db_config):
    """A client flooding the queue holds all but one slot; a second client
    still gets one; a job already queued is never refused, whoever asks."""
    app = make_app(db_config, JOBS_CONSUMER="none", JOBS_MAX=3, JOBS_RETRY_AFTER=9)
    flood, other = visitor(app, "192.0.2.10"), visitor(app, "192.0.2.20")
    answers = [flood.get(compare_url(*size)).status_code for size in SIZES]
    assert answers == [202, 202, 503, 503, 503]
    refused = flood.get(compare_url(*SIZES[2]))
    assert refused.headers["Retry-After"] == "9" and "as many long computations" in refused.get_json()["error"]
    assert other.get(compare_url(*SIZES[2])).status_code == 202  # the slot the flood could not take
    assert other.get(compare_url(*SIZES[0])).status_code == 202  # started by the flood: shared, not refused
    full = other.get(compare_url(*SIZES[3]))
    assert full.status_code == 503 and "busy with other long computations" in full.get_json()["error"]
    queued = [r for r in job_row(app, "compare") if r["status"] == "queued"]
    assert sorted(r["client"] for r in queued) == ["192.0.2.10", "192.0.2.10", "192.0.2.20"]
    app.extensions["jobs"].stop()


def test_starting_jobs_is_rate_limited_per_client(db_config):
    """Only starts count: asking again for a job, running or done, never
    does, and another client has a count of its own."""
    app = make_app(db_config, JOBS_CONSUMER="none", JOBS_MAX=100, JOBS_START_RATE_LIMIT="2 per minute")
    one, two = visitor(app, "192.0.2.30"), visitor(app, "192.0.2.40")
    assert [one.get(compare_url(*size)).status_code for size in SIZES[:2]] == [202, 202]
    assert [one.get(compare_url(*size)).status_code for size in SIZES[:2] * 3] == [202] * 6  # the same jobs
    third = one.get(compare_url(*SIZES[2]))
    assert third.status_code == 503 and "wait a minute" in third.get_json()["error"]
    assert 0 < int(third.headers["Retry-After"]) <= 60
    assert two.get(compare_url(*SIZES[2])).status_code == 202
    assert len(job_row(app, "compare")) == 3
    app.extensions["jobs"].stop()


def test_the_sweep_is_an_hourly_periodic_task(app, db_config):
    """Abandoned games go by huey's periodic task (the consumer's scheduler
    starts it once an hour), not by whatever request comes along. The
    server's apps run that scheduler; the tests' apps leave it off and call
    the sweep."""
    import datetime

    from webapp.engine import Code

    queue = app.extensions["jobs"]
    assert not queue.consumer.scheduler.is_alive()  # this app's sweep runs below, not on the clock
    clocked = make_app(db_config, JOBS_PERIODIC=True)
    try:
        assert clocked.extensions["jobs"].consumer.scheduler.is_alive()  # as the server runs it
    finally:
        clocked.extensions["jobs"].stop()
        clocked.extensions["store"].close()
    hour = datetime.datetime(2026, 1, 1, 5, 0)
    due = [minute for minute in range(60) if queue.sweep.s().validate_datetime(hour.replace(minute=minute))]
    assert len(due) == 1
    with app.app_context():
        old = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
        fresh = store.games.create_game(GameSize(), 10)
        sql("UPDATE games SET created_at = :t WHERE id = :g", t=time.time() - 40 * 86400, g=old.id)
        app.test_client().post("/api/games", json={})  # a request sweeps nothing
        assert store.games.load_game(old.id).status == "playing"
    queue.sweep.call_local()
    with app.app_context():
        with pytest.raises(store.games.GameNotFound):
            store.games.load_game(old.id)
        assert store.games.load_game(fresh.id).status == "playing"
