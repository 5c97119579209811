"""Rate limits on creating routes: a clear 429 with Retry-After, and playing
is never limited."""

import pytest

from tests.records import sql
from webapp import create_app


@pytest.fixture
def limited(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite3"), "TESTING": True, "CREATE_RATE_LIMIT": "5 per minute"})
    yield app
    app.extensions["jobs"].stop()


def test_game_creation_is_limited_per_client(limited):
    client = limited.test_client()
    games = [client.post("/api/games", json={}) for _ in range(5)]
    assert all(r.status_code == 201 for r in games)
    refused = client.post("/api/games", json={})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert "new games" in refused.get_json()["error"] and "try again in 1 minute" in refused.get_json()["error"]
    page = client.post("/games", data={"preset": "classic"})
    assert page.status_code == 429 and "try again in 1 minute" in page.get_data(as_text=True)
    # Playing the games already made is never limited.
    game = games[0].get_json()
    for guess in ["1111", "2222", "3333", "4444", "5555", "6666", "1122"]:
        assert client.post(f"/api/games/{game['id']}/guesses", json={"guess": guess}).status_code in (200, 409)
    # Another address has its own count.
    other = client.post("/api/games", json={}, environ_overrides={"REMOTE_ADDR": "10.9.8.7"})
    assert other.status_code == 201


def test_each_429_names_the_limit_that_refused_it(tmp_path):
    """A new live session past the creation limit is told about creations
    (not join codes, joins or votes); proposals past a session's limit are
    told about that session's proposals; and every sentence names a wait
    no shorter than Retry-After."""
    app = create_app(
        {
            "DATABASE": str(tmp_path / "db.sqlite3"),
            "TESTING": True,
            "CREATE_RATE_LIMIT": "2 per minute;3 per hour",
            "LIVE_VOTE_RATE_LIMIT": "2 per minute",
        }
    )
    client = app.test_client()
    made = client.post("/api/live", json={"source": "random"}).get_json()
    assert client.post("/api/games", json={}).status_code == 201
    minute = client.post("/api/live", json={"source": "random"})
    assert minute.status_code == 429 and "live sessions from this address" in minute.get_json()["error"]
    assert "join codes" not in minute.get_json()["error"]
    assert "try again in 1 minute." in minute.get_json()["error"] and int(minute.headers["Retry-After"]) <= 60
    page = client.post("/live", data={})
    assert page.status_code == 429 and "live sessions from this address" in page.get_data(as_text=True)
    with app.app_context():  # a minute later, for the counters: the minute's window is over, the hour's is not
        sql("UPDATE rate_limits SET expires = expires - 61")
    assert client.post("/api/games", json={}).status_code == 201
    hour = client.post("/api/live", json={"source": "random"})
    assert hour.status_code == 429 and "try again in 59 minutes." in hour.get_json()["error"]
    assert 58 * 60 < int(hour.headers["Retry-After"]) <= 59 * 60
    student = client.post(f"/api/live/{made['code']}/students", json={}).get_json()["student_token"]
    voter = {"Authorization": f"Bearer {student}"}
    votes = [client.post(f"/api/live/{made['code']}/votes", json={"guess": "1122"}, headers=voter) for _ in range(3)]
    assert [v.status_code for v in votes] == [201, 201, 429]
    assert "proposals in this session" in votes[2].get_json()["error"]
    assert "address" not in votes[2].get_json()["error"]
    app.extensions["jobs"].stop()


def test_challenges_and_codemaker_share_the_limit(limited):
    client = limited.test_client()
    for url in ["/api/challenges", "/api/codemaker", "/api/challenges", "/api/codemaker", "/api/games"]:
        assert client.post(url, json={}).status_code == 201
    assert client.post("/api/codemaker", json={}).status_code == 429


def test_limits_can_be_turned_off(tmp_path):
    app = create_app(
        {"DATABASE": str(tmp_path / "db.sqlite3"), "RATELIMIT_ENABLED": False, "CREATE_RATE_LIMIT": "1 per minute"}
    )
    client = app.test_client()
    assert [client.post("/api/games", json={}).status_code for _ in range(3)] == [201] * 3
    app.extensions["jobs"].stop()


@pytest.mark.parametrize("proxies", [0, 1])
def test_behind_a_proxy_the_client_address_counts(tmp_path, proxies):
    """With PROXIES=1 (behind nginx) each client named by X-Forwarded-For has
    its own count; without it the header is ignored, so nobody can dodge the
    limit by sending one."""
    app = create_app(
        {"DATABASE": str(tmp_path / "db.sqlite3"), "CREATE_RATE_LIMIT": "2 per minute", "PROXIES": proxies}
    )
    client = app.test_client()
    codes = [
        client.post("/api/games", json={}, headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code for i in range(4)
    ]
    assert codes == ([201, 201, 201, 201] if proxies else [201, 201, 429, 429])
    app.extensions["jobs"].stop()


def test_four_gunicorn_workers_count_together(tmp_path):
    """Under gunicorn with 4 workers, one address gets the limit once, not
    once per worker: 40 creations at once, a limit of 10, exactly 10 made,
    and X-RateLimit-Remaining is the same count whichever worker answers."""
    import concurrent.futures
    import http.client
    import json

    from benchmarks.load import gunicorn

    database = str(tmp_path / "games.sqlite3")
    with gunicorn(database, workers=4, threads=4, config={"CREATE_RATE_LIMIT": "10 per minute"}) as (port, _):

        def create(_):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.request("POST", "/api/games", body=json.dumps({}), headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                return resp.status, resp.getheader("X-RateLimit-Remaining")
            finally:
                conn.close()

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(create, range(40)))
        # Afterwards, one at a time (each on a new connection, so on any worker):
        # every worker reports the same count.
        after = [create(i) for i in range(8)]
    statuses = [status for status, _ in answers]
    assert statuses.count(201) == 10 and statuses.count(429) == 30
    assert all(0 <= int(left) <= 9 for status, left in answers if status == 201)
    assert after == [(429, "0")] * 8
