"""Request logs a host can use: one line per request (method, route
template, status, milliseconds, request id), plain text or JSON lines;
the id taken from ``X-Request-ID`` (nginx's recipe sets one) or made, said
back in the answer, and carried into the lines of a job the request
starts. No line holds an id from a path, a key or a query."""

from __future__ import annotations

import http.client
import json
import re

import pytest

from tests.waiting import eventually
from webapp import create_app

# How long a test waits for a state it causes (never how long work takes).
PATIENCE = 30


@pytest.fixture
def make_app(db_path):
    made = []

    def make(**config):
        app = create_app(
            {
                "DATABASE": db_path,
                "DATABASE_URL": None,
                "REDIS_URL": None,
                "TESTING": True,
                "JOBS_PERIODIC": False,
                **config,
            }
        )
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["jobs"].stop()


def lines(capsys, logger: str = "mastermind.requests") -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if f" {logger} " in line]


def test_one_plain_line_per_request_with_its_id(make_app, capsys):
    client = make_app(JOBS_CONSUMER="none").test_client()
    game = client.post("/api/games", json={}, headers={"X-Request-ID": "nginx-7f3a"})
    assert game.headers["X-Request-ID"] == "nginx-7f3a"
    game_id = game.get_json()["id"]
    capsys.readouterr()
    page = client.get(f"/games/{game_id}?secret=1234", headers={"X-Request-ID": "page-1"})
    assert page.status_code == 200 and page.headers["X-Request-ID"] == "page-1"
    (line,) = lines(capsys)
    assert re.fullmatch(r"\S+ \S+ INFO mastermind\.requests page-1 GET /games/<game_id> 200 \d+\.\d ms", line), line
    made = client.get("/healthz", headers={"X-Request-ID": "two words; Injected=line"})
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["X-Request-ID"])  # not as sent: a new one
    missing = client.get("/no/such/page/4f9c2a")
    (refused, unmatched) = lines(capsys)
    assert f" {made.headers['X-Request-ID']} GET /healthz 200 " in refused
    assert unmatched.endswith(" ms") and f" {missing.headers['X-Request-ID']} GET unmatched 404 " in unmatched
    assert "4f9c2a" not in unmatched and "Injected" not in refused


def test_json_lines_hold_the_same_fields(make_app, capsys):
    client = make_app(JOBS_CONSUMER="none", LOG_FORMAT="json").test_client()
    challenge = client.post("/api/challenges", json={"pegs": 4, "colors": 6, "secret": "5241"}).get_json()
    capsys.readouterr()
    results = client.get(challenge["results_url"] + "?key=again", headers={"X-Request-ID": "r-1"})
    assert results.status_code == 200
    (line,) = lines_json(capsys)
    assert line["request_id"] == "r-1" and line["logger"] == "mastermind.requests" and line["level"] == "INFO"
    assert (line["method"], line["route"], line["status"]) == (
        "GET",
        "/api/challenges/<challenge_id>/results/<key>",
        200,
    )
    assert isinstance(line["duration_ms"], float) and line["time"]
    key = challenge["results_url"].rsplit("/", 1)[-1]
    assert key not in json.dumps(line) and challenge["id"] not in json.dumps(line) and "again" not in json.dumps(line)


def lines_json(capsys) -> list[dict]:
    found = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    return [line for line in found if line["logger"] == "mastermind.requests"]


def test_logs_can_leave_requests_out(make_app, capsys):
    make_app(JOBS_CONSUMER="none", LOG_REQUESTS=False).test_client().get("/healthz")
    assert lines(capsys) == []


def test_a_wrong_format_stops_the_app_naming_the_setting(db_path):
    with pytest.raises(ValueError, match="LOG_FORMAT must be one of text, json, not 'xml'"):
        create_app({"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "LOG_FORMAT": "xml"})


def test_a_job_carries_the_id_of_the_request_that_started_it(make_app, capsys):
    client = make_app(JOBS_QUICK_INLINE=False, JOBS_REDIS_WAIT=0.1).test_client()
    url = "/api/solver/compare?pegs=3&colors=5"
    assert client.get(url, headers={"X-Request-ID": "asks-for-a-job"}).status_code == 202
    eventually(lambda: client.get(url).status_code != 202, "the job done")
    jobs = lines(capsys, "mastermind.jobs")
    assert any(re.search(r" asks-for-a-job job compare queued$", line) for line in jobs), jobs
    assert any(re.search(r" asks-for-a-job job compare done in \d+\.\d s$", line) for line in jobs), jobs


def test_nginx_gives_each_request_an_id(db_path):
    """deploy/nginx.conf in front of gunicorn: the app answers with the id
    nginx made (32 hex digits); /metrics never passes, /readyz does from
    this machine."""
    from benchmarks.load import gunicorn
    from benchmarks.slow_clients import nginx

    with (
        gunicorn(db_path, workers=1, threads=4, config={"METRICS_ENABLED": True}) as (port, _),
        nginx(port) as (
            front,
            _,
        ),
    ):
        answers = {}
        for path in ("/healthz", "/readyz", "/metrics"):
            conn = http.client.HTTPConnection("127.0.0.1", front, timeout=PATIENCE)
            conn.request("GET", path, headers={"X-Request-ID": "from-the-client"})
            answer = conn.getresponse()
            answer.read()
            answers[path] = (answer.status, answer.getheader("X-Request-ID"))
            conn.close()
    assert answers["/healthz"][0] == 200 and re.fullmatch(r"[0-9a-f]{32}", answers["/healthz"][1])
    assert answers["/readyz"][0] == 200 and answers["/readyz"][1] != answers["/healthz"][1]
    assert answers["/metrics"] == (404, None)  # nginx's own 404: never reached the app
