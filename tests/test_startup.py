"""The app starts and serves in a fresh process under every documented
setting that changes how it starts: rate limits off, the job consumer off
or in the app's own threads, live settings away from their defaults, Redis,
PostgreSQL.
A fresh process, so that nothing another test left initialised (a module's
``Limiter``, a cache) can make a setting look as if it worked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Creates a game, a live session and a student, plays and steps: what a
# setting could break at start-up, and the routes the limits wrap.
SCRIPT = """
import json, sys
from webapp import create_app
app = create_app(json.loads(sys.argv[1]))
client = app.test_client()
answers = [client.get("/").status_code, client.post("/api/games", json={}).status_code]
live = client.post("/api/live", json={})
answers.append(live.status_code)
code, token = live.get_json()["code"], live.get_json()["teacher_token"]
student = client.post(f"/api/live/{code}/students", json={"nickname": "Ann"})
answers.append(student.status_code)
vote = client.post(f"/api/live/{code}/votes", json={"guess": "1122"},
                   headers={"Authorization": "Bearer " + student.get_json()["student_token"]})
step = client.post(f"/api/live/{code}/step", json={}, headers={"Authorization": "Bearer " + token})
answers += [vote.status_code, step.status_code, client.get("/join/AAAAAA").status_code]
embedded = app.extensions["jobs"].embedded_alive()
app.extensions["jobs"].stop()
print(json.dumps({"answers": answers, "job threads run here": embedded}))
"""
SERVED = [200, 201, 201, 201, 201, 200, 404]

SETTINGS = {
    "rate limits off": {"RATELIMIT_ENABLED": False},
    "no job consumer": {"JOBS_CONSUMER": "none"},
    "job consumer in the app's threads": {"JOBS_CONSUMER": "embedded", "JOBS_WORKERS": 1},
    "limits and live settings moved": {
        "CREATE_RATE_LIMIT": "7 per minute",
        "LIVE_LOOKUP_RATE_LIMIT": "3 per minute",
        "LIVE_JOIN_RATE_LIMIT": "5 per minute",
        "LIVE_VOTE_RATE_LIMIT": "9 per minute",
        "LIVE_MAX_STUDENTS": 2,
        "LIVE_STREAMS_PER_SESSION": 4,
        "LIVE_VOTES_SECONDS": 0,
        "LIVE_IDLE_HOURS": 1,
    },
}


def served(config: dict) -> dict:
    """The answers of the script's requests, and whether the app's own job
    threads ran (the embedded consumer, the default)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(config)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(SETTINGS))
def test_the_app_starts_and_serves_under_each_setting(name, db_path):
    embedded = SETTINGS[name].get("JOBS_CONSUMER", "embedded") == "embedded"
    config = {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, **SETTINGS[name]}
    assert served(config) == {"answers": SERVED, "job threads run here": embedded}


def test_the_app_starts_and_serves_on_postgresql_and_redis(postgresql_url, redis_url):
    config = {"DATABASE_URL": postgresql_url, "REDIS_URL": redis_url, "JOBS_CONSUMER": "none"}
    assert served(config) == {"answers": SERVED, "job threads run here": False}
