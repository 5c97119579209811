"""Several app servers, one site: two gunicorn processes on one real
PostgreSQL database and one real Redis, as a site outgrowing one machine runs.
Players, challengers, background jobs and the rate limit all cross between
the two servers."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time

import psycopg
import pytest

from benchmarks.load import Milestones, gunicorn, load, verify
from webapp.engine import GameSize, analyse, best_guess, feedback
from webapp.engine.codes import Code


@contextlib.contextmanager
def two_servers(database: str, redis_url: str, threads: int = 4, **config):
    settings = {"REDIS_URL": redis_url, **config}
    with (
        gunicorn(database, workers=2, threads=threads, config=settings) as (a, _),
        gunicorn(database, workers=2, threads=threads, config=settings) as (b, _),
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

    def post(port: int, body: dict, start: threading.Barrier) -> int:
        start.wait()  # both requests leave together
        return call(port, "POST", f"/api/games/{game['id']}/guesses", body)[0]

    with ThreadPoolExecutor(2) as pool:
        for move in range(1, 21):
            body = {"guess": "1122" if move % 2 else "3344", "move": move}
            start = threading.Barrier(2, timeout=PATIENCE)
            codes = sorted(pool.map(lambda port, body=body, start=start: post(port, body, start), (a, b)))
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


# --- a live classroom across servers ---------------------------------------------------------------

# How long a stream is read before the test fails (never how long work takes).
PATIENCE = 30


class Stream:
    """One live events stream read over HTTP, event by event."""

    def __init__(self, port: int, path: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        if self.status == 200:
            # The stream's first line, sent once the worker follows it (with Redis, once subscribed).
            assert self.response.readline() == b"retry: 1000\n"

    def next_event(self) -> tuple[str, int]:
        """The next event's name and id (keepalive comments are skipped)."""
        fields: dict = {}
        while True:
            line = self.response.readline().decode()
            if not line:
                raise AssertionError("the stream ended")
            if line == "\n" and "event" in fields:
                return fields["event"], int(fields["id"])
            name, _, value = line.rstrip("\n").partition(": ")
            if name in ("event", "id"):
                fields[name] = value

    def close(self) -> None:
        self.conn.close()


def test_a_step_on_one_server_reaches_a_student_streaming_from_the_other(postgresql_url, redis_url):
    """Two gunicorn servers, one database, one Redis: the teacher steps on
    one, the students follow on the other. Streams read the state again
    only when signalled (no keepalive or database poll within the test), so only Redis
    pub/sub can carry the step across."""
    with two_servers(postgresql_url, redis_url, threads=16, LIVE_KEEPALIVE_SECONDS=3600, LIVE_POLL_SECONDS=3600) as (
        a,
        b,
    ):
        # Knuth needs five guesses for 1116: the game is still open after three steps.
        status, session = call(a, "POST", "/api/live", {"source": "teacher", "secret": "1116"})
        assert status == 201
        code = session["code"]
        status, now = call(b, "GET", f"/api/live/{code}")
        streams = [Stream(b, f"/live/{code}/events?after={now['version']}") for _ in range(3)]
        try:
            assert [s.status for s in streams] == [200, 200, 200]
            for step in (1, 2, 3):
                conn = http.client.HTTPConnection("127.0.0.1", a, timeout=PATIENCE)
                conn.request(
                    "POST",
                    f"/api/live/{code}/step",
                    json.dumps({}),
                    {"Content-Type": "application/json", "Authorization": f"Bearer {session['teacher_token']}"},
                )
                answer = conn.getresponse()
                moved = json.loads(answer.read())
                conn.close()
                assert answer.status == 200 and moved["step"] == step
                for stream in streams:
                    assert stream.next_event() == ("step", moved["version"])
        finally:
            for stream in streams:
                stream.close()


def test_a_worker_keeps_threads_for_other_requests(db_path):
    """Each stream holds a thread of its gthread worker; past the worker's
    threads less LIVE_FREE_THREADS a stream is refused with 503, and every
    other request is still served."""
    free = 3
    with gunicorn(db_path, workers=1, threads=free + 2, config={"LIVE_FREE_THREADS": free}) as (port, _):
        status, session = call(port, "POST", "/api/live", {"source": "random"})
        code = session["code"]
        held = [Stream(port, f"/live/{code}/events") for _ in range(2)]
        try:
            assert [s.status for s in held] == [200, 200]
            refused = Stream(port, f"/live/{code}/events")
            assert refused.status == 503 and int(refused.response.getheader("Retry-After")) > 0
            refused.close()
            for _ in range(2 * free):  # more requests than free threads, one after another
                assert call(port, "GET", f"/api/live/{code}")[0] == 200
        finally:
            for stream in held:
                stream.close()
