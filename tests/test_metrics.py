"""``/metrics``: off unless the operator turns it on, then only to the
addresses allowed; requests counted by route template, jobs by kind,
refusals by limit; live streams, sessions and students, database errors.
A scrape is read series by series: no label holds a token, a secret, an id
or a raw path."""

from __future__ import annotations

import re
import threading

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.waiting import eventually
from webapp import create_app, store

BOTH = pytest.mark.backends("sqlite", "postgresql")
# How long a test waits for a state it causes (never how long work takes).
PATIENCE = 30


@pytest.fixture
def make_app(db_config):
    """Apps on this test's database with metrics on, stopped at its end."""
    made = []

    def make(**config):
        app = create_app(
            {
                **db_config,
                "TESTING": True,
                "JOBS_PERIODIC": False,
                "JOBS_REDIS_WAIT": 0.1,
                "LIVE_KEEPALIVE_SECONDS": 0.2,
                "METRICS_ENABLED": True,
                **config,
            }
        )
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["jobs"].stop()
        app.extensions["live"].stop()
        app.extensions["store"].close()


def scrape(client, **kwargs) -> list:
    """Every sample of a scrape, as (name, labels, value)."""
    answer = client.get("/metrics", **kwargs)
    assert answer.status_code == 200 and answer.content_type.startswith("text/plain; version=0.0.4")
    return [
        (sample.name, sample.labels, sample.value)
        for family in text_string_to_metric_families(answer.get_data(as_text=True))
        for sample in family.samples
    ]


def value(samples, name: str, **labels) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels``."""
    return sum(v for n, found, v in samples if n == name and labels.items() <= found.items())


def test_off_by_default_and_then_only_to_the_addresses_allowed(db_path):
    base = {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "TESTING": True, "JOBS_CONSUMER": "none"}
    assert create_app(base).test_client().get("/metrics").status_code == 404
    app = create_app({**base, "METRICS_ENABLED": True, "METRICS_ALLOW": "127.0.0.1, 10.1.0.0/16"})
    client = app.test_client()
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 200
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 200
    refused = client.get("/metrics", environ_base={"REMOTE_ADDR": "203.0.113.9"})
    assert refused.status_code == 404 and b"mastermind_" not in refused.data
    # Behind nginx (PROXIES = 1) the address is the client's, whoever passes it on.
    proxied = create_app({**base, "METRICS_ENABLED": True, "PROXIES": 1}).test_client()
    behind = {"REMOTE_ADDR": "127.0.0.1"}
    assert proxied.get("/metrics", environ_base=behind, headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 404
    assert proxied.get("/metrics", environ_base=behind).status_code == 200


def test_a_wrong_address_stops_the_app_naming_the_setting(db_path):
    with pytest.raises(ValueError, match=r"^METRICS_ALLOW must be .* of addresses and networks .*, not 'localhost'$"):
        create_app({"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "METRICS_ALLOW": ["localhost"]})


class Stream:
    """A live events stream read by a thread of its own (where it was asked
    for, as a server's worker thread reads it) until told to stop."""

    def __init__(self, client, path: str):
        self.opened, self.stopping = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._read, args=(client, path), daemon=True)
        self.thread.start()
        assert self.opened.wait(PATIENCE)

    def _read(self, client, path: str) -> None:
        response = client.get(path, buffered=False)
        try:
            for _ in response.response:  # the first chunk comes once the stream is followed
                self.opened.set()
                if self.stopping.is_set():  # checked at each keepalive
                    break
        finally:
            response.close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(PATIENCE)


@BOTH
def test_every_series_is_labelled_without_a_secret(make_app):
    """A site's worth of requests (games, a challenge's private results, a
    live class with its tokens, refusals, a job), then every series of a
    scrape: the counts moved, and no label holds anything a request carried
    in its path or its headers, only route templates and names."""
    app = make_app(CREATE_RATE_LIMIT="40 per minute", JOBS_QUICK_INLINE=False)
    client = app.test_client()
    secrets_seen: set[str] = set()
    game = client.post("/api/games", json={}).get_json()
    secrets_seen.add(game["id"])
    client.post(f"/api/games/{game['id']}/guesses", json={"guess": "1122", "move": 1})
    client.get(f"/games/{game['id']}")
    challenge = client.post("/api/challenges", json={"pegs": 4, "colors": 6, "secret": "5241"}).get_json()
    secrets_seen |= {challenge["id"], challenge["results_url"].rsplit("/", 1)[-1], "5241"}
    assert client.get(challenge["results_url"]).status_code == 200
    session = client.post("/api/live", json={"source": "teacher", "secret": "1116"}).get_json()
    code, teacher = session["code"], session["teacher_token"]
    students = [
        client.post(f"/api/live/{code}/students", json={"nickname": f"Kid{i}"}).get_json()["student_token"]
        for i in range(3)
    ]
    secrets_seen |= {code, teacher, "1116", *students}
    client.post(f"/api/live/{code}/step", json={}, headers={"Authorization": f"Bearer {teacher}"})
    shown = client.get("/puzzles").get_data(as_text=True)
    puzzle_id = re.search(r'action="/puzzles/([0-9a-f]{12})/answers"', shown).group(1)
    with app.app_context():
        first_guess = str(store.puzzles.get(puzzle_id).history[0][0])
    assert client.post(f"/puzzles/{puzzle_id}/answers", data={"guess": first_guess}).status_code == 303
    secrets_seen.add(puzzle_id)
    stray = "/no/such/place/with-a-secret-4f9c2a"
    secrets_seen.add("with-a-secret-4f9c2a")
    assert client.get(stray).status_code == 404
    codes = [client.post("/api/games", json={}).status_code for _ in range(40)]
    assert codes[-1] == 429  # the creation limit refuses
    job = client.get("/api/solver/compare?pegs=3&colors=5")
    assert job.status_code == 202
    eventually(lambda: client.get("/api/solver/compare?pegs=3&colors=5").status_code != 202, "the job done")
    stream = Stream(client, f"/live/{code}/events")
    try:
        samples = scrape(client)
    finally:
        stream.close()

    routes = {labels["route"] for _, labels, _ in samples if "route" in labels}
    templates = {rule.rule for rule in app.url_map.iter_rules()} | {"unmatched"}
    assert routes <= templates, routes - templates
    for name, labels, _ in samples:
        for label, text in labels.items():
            assert not any(secret in text for secret in secrets_seen), (name, label, text)
            assert "?" not in text and not re.search(r"/[0-9a-f]{8,}", text), (name, label, text)

    requests = "mastermind_http_requests_total"
    assert value(samples, requests, route="/api/games/<game_id>/guesses", method="POST", status="200") == 1
    assert value(samples, requests, route="/challenges/<challenge_id>/results/<key>") == 0
    assert value(samples, requests, route="/api/challenges/<challenge_id>/results/<key>", status="200") == 1
    assert value(samples, requests, route="unmatched", status="404") == 1
    assert value(samples, requests, route="/api/games", status="429") >= 1
    assert value(samples, "mastermind_http_request_duration_seconds_count", route="/games/<game_id>") == 1
    assert value(samples, "mastermind_refusals_total", limit="create") >= 1
    assert value(samples, "mastermind_puzzle_answers_total") == 1
    checks = {labels["check"]: v for name, labels, v in samples if name == "mastermind_ready"}
    assert checks == {"database": 1, "schema": 1, "jobs": 1, **({"redis": 1} if app.config["REDIS_URL"] else {})}
    assert value(samples, "mastermind_job_run_seconds_count", kind="compare", outcome="done") == 1
    assert value(samples, "mastermind_job_wait_seconds_count", kind="compare") == 1
    assert value(samples, "mastermind_live_streams") == 1
    assert value(samples, "mastermind_live_sessions") == 1 and value(samples, "mastermind_live_students") == 3
    assert value(samples, "mastermind_jobs_queued") == 0 and value(samples, "mastermind_jobs_running") == 0
    assert value(samples, "mastermind_live_streams") == 1
    after = scrape(client)
    assert value(after, "mastermind_live_streams") == 0  # the stream closed


def test_jobs_refused_and_database_errors_are_counted(make_app):
    app = make_app(JOBS_CONSUMER="none", JOBS_QUICK_INLINE=False, JOBS_MAX=1, LIVE_LOOKUP_RATE_LIMIT="1 per minute")
    client = app.test_client()
    assert [client.get("/api/live/QQQQQQ").status_code for _ in range(3)][-1] == 429
    assert client.get("/api/solver/compare?pegs=4&colors=7").status_code == 202
    assert client.get("/api/solver/compare?pegs=4&colors=8").status_code == 503
    game = client.post("/api/games", json={}).get_json()
    app.config["DATABASE_READ_ONLY"] = True
    try:
        assert client.post(f"/api/games/{game['id']}/guesses", json={"guess": "1122"}).status_code == 503
    finally:
        app.config["DATABASE_READ_ONLY"] = False
    samples = scrape(client)
    assert value(samples, "mastermind_refusals_total", limit="jobs") == 1
    assert value(samples, "mastermind_refusals_total", limit="live-lookup") >= 1
    assert value(samples, "mastermind_jobs_queued") == 1
    assert value(samples, "mastermind_jobs_oldest_queued_seconds") >= 0
    assert value(samples, "mastermind_database_errors_total", error="OperationalError") == 1
