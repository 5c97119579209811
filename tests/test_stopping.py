"""A clean stop: a gunicorn server with live event streams open and two
jobs running gets SIGTERM, as a deploy or ``systemctl restart`` sends it.
Every stream ends with a ``retry`` of a few seconds (the browser reconnects,
spread out, to whichever server answers); the job that can finish within
the graceful timeout finishes there, the other is handed back to the queue
and run to its end by the next consumer: nothing lost, nothing stored
twice. The jobs are gates the test opens, so "running" is a state, not a
moment."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys

from benchmarks.load import gunicorn
from tests.waiting import eventually
from webapp import create_app, jobs, store
from webapp.events import RECONNECT_MS

sys.path.insert(0, os.path.dirname(__file__))
import gate_job  # noqa: E402, F401  (registers the "gate" kind here too)

# How long the test waits for a state it causes (never how long work takes).
PATIENCE = 30


def call(port: int, method: str, path: str, body=None) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
    try:
        conn.request(method, path, json.dumps(body or {}), {"Content-Type": "application/json"})
        answer = conn.getresponse()
        assert answer.status < 300, answer.status
        return json.loads(answer.read())
    finally:
        conn.close()


class Stream:
    """A live events stream over HTTP, its lines read as they come."""

    def __init__(self, port: int, path: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.readline() == b"retry: 1000\n"  # followed from here on

    def rest(self) -> list[str]:
        """Every line until the stream ends (the server closes it)."""
        found = []
        while line := self.response.readline():
            found.append(line.decode().rstrip("\n"))
        return found


def job_rows(app) -> dict[str, dict]:
    with app.app_context():
        rows = store.connection().exec_driver_sql("SELECT key, status, attempts, result FROM jobs WHERE kind = 'gate'")
        return {json.loads(row.key.partition(":")[2])["go"]: dict(row._mapping) for row in rows}


def wait_until(condition, what: str):
    return eventually(condition, what)


def test_sigterm_ends_streams_and_loses_no_job(db_path, tmp_path):
    here = create_app(
        {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "TESTING": True, "JOBS_CONSUMER": "none"}
    )
    finishing, handed_back = str(tmp_path / "finishing"), str(tmp_path / "handed-back")
    config = {"JOBS_WORKERS": 2, "LIVE_KEEPALIVE_SECONDS": 3600, "LIVE_FREE_THREADS": 2, "JOBS_PERIODIC": False}
    with gunicorn(db_path, workers=1, threads=8, config=config, factory="tests.gate_job:create_app", graceful=4) as (
        port,
        server,
    ):
        session = call(port, "POST", "/api/live", {"source": "teacher", "secret": "1116"})
        streams = [Stream(port, f"/live/{session['code']}/events") for _ in range(3)]
        with here.app_context():  # two jobs queued, as two requests would; the server's consumer takes both
            for go in (finishing, handed_back):
                assert jobs.get("gate", {"go": go}).status == "queued"
        wait_until(lambda: {r["status"] for r in job_rows(here).values()} == {"running"}, "both jobs running")

        server.send_signal(signal.SIGTERM)  # to gunicorn's master, as systemd sends it
        open(finishing, "w").close()  # one job can finish within the graceful timeout; the other cannot
        for stream in streams:
            lines = stream.rest()
            retry = [int(line.split(": ")[1]) for line in lines if line.startswith("retry: ")]
            assert len(retry) == 1 and RECONNECT_MS[0] <= retry[0] <= RECONNECT_MS[1], lines
            assert not any(line.startswith("event: ended") for line in lines)  # not "stop listening"
        assert server.wait(PATIENCE) == 0

    rows = job_rows(here)
    assert (rows[finishing]["status"], rows[finishing]["attempts"]) == ("done", 1)  # finished where it ran
    assert (rows[handed_back]["status"], rows[handed_back]["attempts"]) == ("queued", 1)  # back in the queue
    open(handed_back, "w").close()
    here.extensions["jobs"].start(1)  # the next consumer takes it from the queue
    try:
        wait_until(lambda: job_rows(here)[handed_back]["status"] == "done", "the handed-back job done")
    finally:
        here.extensions["jobs"].stop()
    rows = job_rows(here)
    assert rows[handed_back]["attempts"] == 2 and json.loads(rows[handed_back]["result"]) == {"opened": handed_back}
    assert json.loads(rows[finishing]["result"]) == {"opened": finishing}


def test_a_stopping_job_consumer_hands_its_job_back(db_path, tmp_path):
    """``huey_consumer`` as the mastermind-jobs unit runs it (SIGTERM is
    graceful, for a while): a job that does not finish in that while is
    handed back, and the next consumer runs it to its end."""
    here = create_app(
        {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "TESTING": True, "JOBS_CONSUMER": "none"}
    )
    go = str(tmp_path / "go")
    with here.app_context():
        assert jobs.get("gate", {"go": go}).status == "queued"
    consumer = subprocess.Popen(
        [
            sys.executable,
            os.path.join(os.path.dirname(__file__), "gate_job.py"),
            "webapp.worker.huey",
            "--workers",
            "1",
            "--worker-type",
            "thread",
            "--graceful-signal",
            "TERM",
            "--shutdown-timeout",
            "1",
        ],
        env={**os.environ, "MASTERMIND_DATABASE": db_path, "MASTERMIND_JOBS_PERIODIC": "false"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: job_rows(here)[go]["status"] == "running", "the job running")
        consumer.send_signal(signal.SIGTERM)
        assert consumer.wait(PATIENCE) == 0
    finally:
        if consumer.poll() is None:
            os.killpg(consumer.pid, signal.SIGKILL)
            consumer.wait()
    assert (job_rows(here)[go]["status"], job_rows(here)[go]["attempts"]) == ("queued", 1)
    open(go, "w").close()
    here.extensions["jobs"].start(1)
    try:
        wait_until(lambda: job_rows(here)[go]["status"] == "done", "the handed-back job done")
    finally:
        here.extensions["jobs"].stop()
    assert job_rows(here)[go]["attempts"] == 2
