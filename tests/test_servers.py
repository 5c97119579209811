"""Several app servers, one site: two gunicorn processes on one real
PostgreSQL database and one real Redis, as a site outgrowing one machine runs.
Players, challengers, background jobs and the rate limit all cross between
the two servers."""

from __future__ import annotations

import contextlib
import http.client
import json
import time

import psycopg
import pytest

from benchmarks.load import Milestones, gunicorn, load, verify
from webapp.engine import GameSize, analyse, best_guess, feedback
from webapp.engine.codes import Code


@contextlib.contextmanager
def two_servers(database: str, redis_url: str, **config):
    settings = {"REDIS_URL": redis_url, **config}
    with (
        gunicorn(database, workers=2, threads=4, config=settings) as (a, _),
        gunicorn(database, workers=2, threads=4, config=settings) as (b, _),
    ):
        yield a, b


def call(port: int, method: str, path: str, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"null")
    finally:
        conn.close()


@pytest.fixture
def servers(postgresql_url, redis_url):
    with two_servers(postgresql_url, redis_url) as ports:
        yield ports


def test_players_alternate_between_servers(servers, postgresql_url):
    """Eight players, every request to the other server than the last, play
    until 60 guesses are stored (a count, not a number of seconds): every
    acknowledged guess is stored once, with the right feedback."""
    acknowledged = Milestones()
    # The players stop at 60 acknowledged guesses; ``seconds`` only bounds a broken test.
    result = load(list(servers), players=8, seconds=600, until=acknowledged.reached(60), milestones=acknowledged)
    check = verify(postgresql_url, result["acks"])
    assert check["acknowledged"] >= 60 and result["errors"] == 0
    assert (check["missing"], check["duplicated"], check["wrong"]) == (0, 0, 0)


def test_one_move_posted_to_both_servers_at_once(servers, postgresql_url):
    """The same move sent to both servers at the same moment, many times:
    exactly one of each pair is accepted and stored."""
    from concurrent.futures import ThreadPoolExecutor

    a, b = servers
    status, game = call(a, "POST", "/api/games", {"max_guesses": 30})
    assert status == 201
    with ThreadPoolExecutor(2) as pool:
        for move in range(1, 21):
            body = {"guess": "1122" if move % 2 else "3344", "move": move}
            codes = sorted(
                pool.map(
                    lambda port, body=body: call(port, "POST", f"/api/games/{game['id']}/guesses", body)[0], (a, b)
                )
            )
            assert codes == [200, 409], (move, codes)
    with psycopg.connect(postgresql_url) as conn:
        moves = [r[0] for r in conn.execute("SELECT move FROM guesses WHERE game_id = %s ORDER BY move", (game["id"],))]
    assert moves == list(range(1, 21))


def test_challenge_made_on_one_server_is_played_on_the_other(servers):
    a, b = servers
    size = GameSize()
    status, challenge = call(a, "POST", "/api/challenges", {"pegs": 4, "colors": 6, "secret": "5241"})
    assert status == 201
    status, game = call(b, "POST", f"/api/challenges/{challenge['id']}/games", {"name": "Ada"})
    assert status == 201, game
    history = []
    for move in range(1, 11):
        guess = best_guess("knuth", size, history).guess
        port = (a, b)[move % 2]
        status, game = call(port, "POST", f"/api/games/{game['id']}/guesses", {"guess": str(guess), "move": move})
        assert status == 200
        history.append((guess, feedback(guess, Code.parse("5241", size))))
        if game["status"] != "playing":
            break
    assert game["status"] == "won"
    status, results = call(a, "GET", challenge["results_url"])
    assert status == 200
    player = next(p for p in results["players"] if p["name"] == "Ada")
    assert player["status"] == "won" and player["guesses"] == len(history)


def test_job_started_on_one_server_is_seen_on_the_other(servers, postgresql_url):
    a, b = servers
    url = "/api/solver/compare?pegs=4&colors=7"
    status, first = call(a, "GET", url)
    assert status == 202
    status, second = call(b, "GET", url)
    assert status in (200, 202)
    deadline = time.time() + 120
    while status == 202 and time.time() < deadline:
        time.sleep(0.2)
        status, second = call(b, "GET", url)
    assert status == 200
    expected = analyse("knuth", GameSize(4, 7)).summary()["total"]
    assert next(r for r in second["rows"] if r["strategy"] == "knuth")["total"] == expected
    with psycopg.connect(postgresql_url) as conn:
        rows = conn.execute("SELECT status, attempts FROM jobs WHERE kind = 'compare'").fetchall()
    assert rows == [("done", 1)]  # one job, computed once, for both servers
    assert call(a, "GET", url) == (200, second)


def test_rate_limit_counts_across_servers(postgresql_url, redis_url):
    with two_servers(postgresql_url, redis_url, CREATE_RATE_LIMIT="4 per minute") as (a, b):
        codes = [call(port, "POST", "/api/games", {})[0] for port in (a, b, a, b, a, b)]
    assert codes == [201, 201, 201, 201, 429, 429]
