"""The live classroom without a browser: the API a class's screens use, who
may do what, the limits, the end of idle sessions, and the live events
(read from real streams, waiting on each event rather than on a clock)."""

from __future__ import annotations

import contextlib
import queue
import re
import threading
import time
from collections import Counter

import pytest

from tests.records import sql
from webapp import create_app, jobs, store
from webapp.engine import Code, GameSize
from webapp.web.live.screens import value_of
from webapp.web.schemas import LIVE_ALPHABET

LOOK_ALIKES = set("0O1IL2Z5S8B")
# How long a test waits for an event before it fails (never how long work takes).
PATIENCE = 20
# Streams of the apps these tests make wake often, so a stream a test stops reading ends soon after.
QUICK_KEEPALIVE = {"TESTING": True, "LIVE_KEEPALIVE_SECONDS": 0.2}


# Knuth needs five guesses for this secret: a test that steps three or four
# times finds the game still open (a random secret is solved by the third guess
# about once in twenty games).
LONG_GAME = {"source": "teacher", "secret": "1116"}


def create(client, **settings) -> dict:
    response = client.post("/api/live", json={"source": "random", **settings})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def join(client, code: str, nickname: str | None = None) -> str:
    body = {} if nickname is None else {"nickname": nickname}
    response = client.post(f"/api/live/{code}/students", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["student_token"]


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def state(client, code: str, token: str | None = None) -> dict:
    response = client.get(f"/api/live/{code}", headers=bearer(token) if token else {})
    assert response.status_code == 200
    return response.get_json()


def step(client, session: dict, **body):
    return client.post(f"/api/live/{session['code']}/step", json=body, headers=bearer(session["teacher_token"]))


def vote(client, code: str, token: str, guess: str):
    return client.post(f"/api/live/{code}/votes", json={"guess": guess}, headers=bearer(token))


class Events:
    """The events of one live stream, read as they come by a thread of its
    own (which makes the request too: a stream is read where it was asked
    for, as a server's worker thread does)."""

    def __init__(self, client, path: str, headers: dict | None = None, address: str = "127.0.0.1"):
        self.queue: queue.Queue = queue.Queue()
        self.opened: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(client, path, headers or {}, address), daemon=True)
        self.thread.start()
        status, mimetype = self.opened.get(timeout=PATIENCE)
        assert (status, mimetype) == (200, "text/event-stream")

    def _read(self, client, path: str, headers: dict, address: str) -> None:
        response = client.get(path, headers=headers, buffered=False, environ_base={"REMOTE_ADDR": address})
        self.opened.put((response.status_code, response.mimetype))
        buffer = ""
        try:
            for chunk in response.response:
                buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    fields: dict = {"data": []}
                    for line in block.split("\n"):
                        name, _, value = line.partition(": ")
                        if name == "data":
                            fields["data"].append(value)
                        elif name in ("event", "id"):
                            fields[name] = value
                    if "event" in fields:
                        self.queue.put((fields["event"], int(fields["id"]), "\n".join(fields["data"])))
                if self.stopping.is_set():  # checked at each event or keepalive comment
                    break
        finally:
            response.close()

    def next(self) -> tuple[str, int, str]:
        return self.queue.get(timeout=PATIENCE)

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(PATIENCE)


def shown_step(html: str) -> int:
    return int(re.search(r'data-step="(\d+)"', html).group(1))


# --- the API -------------------------------------------------------------------------------------


def test_a_class_follows_the_teacher_and_proposes_guesses(client):
    session = create(client, source="teacher", secret="3456")
    code = session["code"]
    assert session["join_url"].endswith(f"/join/{code}")
    ann, bo = join(client, code, "Ann"), join(client, code)
    assert vote(client, code, ann, "1123").status_code == 201
    assert vote(client, code, bo, "1123").status_code == 201
    replaced = vote(client, code, ann, "1234")
    assert replaced.status_code == 201 and replaced.get_json() == {"step": 0, "guess": "1234", "replaced": True}

    public = state(client, code)
    assert public["step"] == 0 and public["joined"] == 2 and public["remaining"] == 1296
    assert "votes" not in public and "strategy_guess" not in public
    teacher = state(client, code, session["teacher_token"])
    assert teacher["votes"] == {"1123": 1, "1234": 1}
    first = teacher["strategy_guess"]

    moved = step(client, session)
    assert moved.status_code == 200
    after = moved.get_json()
    assert after["step"] == 1 and after["history"][0]["guess"] == first
    assert after["votes"] == {}  # a new step, no proposals yet
    assert state(client, code)["history"] == after["history"]
    # Back to the start and forward again: the same line, not a new one.
    assert step(client, session, to=0).get_json()["step"] == 0
    assert state(client, code, session["teacher_token"])["votes"] == {"1123": 1, "1234": 1}
    assert step(client, session, to=1).get_json()["history"] == after["history"]


def test_the_game_ends_with_the_secret_and_no_step_past_it(client):
    session = create(client, source="teacher", secret="6543")
    for _ in range(12):
        now = step(client, session).get_json()
        if now["solved"]:
            break
    assert now["solved"] and now["history"][-1]["guess"] == "6543" and now["history"][-1]["black"] == 4
    past = step(client, session)
    assert past.status_code == 409 and "solved" in past.get_json()["error"]
    too_far = step(client, session, to=now["step"] + 1)
    assert too_far.status_code == 409
    fresh = create(client, **LONG_GAME)
    skipped = step(client, fresh, to=2)  # step 1 has not been reached
    assert skipped.status_code == 422 and "not reached" in skipped.get_json()["error"]
    assert state(client, fresh["code"])["steps"] == 0
    student = join(client, session["code"])
    refused = vote(client, session["code"], student, "1111")
    assert refused.status_code == 409


def test_the_adversary_keeps_the_most_codes(client):
    session = create(client, source="adversary")
    first = step(client, session).get_json()
    # Knuth's 1122 against the adversary: the reply that keeps the most codes (256, the first such in order).
    assert first["history"][0] == {"guess": "1122", "black": 0, "white": 0}
    assert first["remaining"] == 256


@pytest.mark.parametrize(
    "token, status",
    [(None, 401), ("student", 403), ("made-up-token-0123456789", 403)],
)
def test_only_the_teachers_token_steps(client, token, status):
    session = create(client)
    code = session["code"]
    student = join(client, code)
    before = state(client, code)
    headers = {} if token is None else bearer(student if token == "student" else token)
    response = client.post(f"/api/live/{code}/step", json={}, headers=headers)
    assert response.status_code == status and response.get_json()["error"]
    assert state(client, code) == before
    page = client.post(f"/live/{code}/step", data={"to": "1"})
    assert page.status_code == 403 and state(client, code) == before


@pytest.mark.parametrize(
    "settings, guess, status",
    [
        ({}, "12", 422),
        ({}, "1237", 422),
        ({}, "abcd", 422),
        ({"pegs": 4, "colors": 10, "distinct": True, "distinct_guesses": True, "strategy": "entropy"}, "1123", 422),
        ({}, "", 422),
    ],
)
def test_a_bad_proposal_gets_a_sentence_and_changes_nothing(client, settings, guess, status):
    session = create(client, **settings)
    code = session["code"]
    student = join(client, code)
    before = state(client, code, session["teacher_token"])
    response = vote(client, code, student, guess)
    assert response.status_code == status
    assert response.get_json()["error"].endswith(".")
    assert state(client, code, session["teacher_token"]) == before


def test_voting_needs_a_students_token(client):
    session = create(client)
    code = session["code"]
    assert client.post(f"/api/live/{code}/votes", json={"guess": "1122"}).status_code == 401
    assert vote(client, code, session["teacher_token"], "1122").status_code == 403
    other = create(client)
    stranger = join(client, other["code"])
    assert vote(client, code, stranger, "1122").status_code == 403
    assert state(client, code, session["teacher_token"])["votes"] == {}


def test_a_proposal_for_a_step_the_class_has_left_is_refused(client):
    session = create(client)
    code = session["code"]
    assert client.post("/join", data={"code": code, "nickname": ""}).status_code == 303
    step(client, session)
    late = client.post(f"/live/{code}/vote", data={"guess": "1122", "step": "0"})
    assert late.status_code == 409
    assert "moved on" in late.get_data(as_text=True)
    for damaged in ("x", "-1", "1.0", "１"):  # not a step at all: the form itself is wrong
        resp = client.post(f"/live/{code}/vote", data={"guess": "1122", "step": damaged})
        assert resp.status_code == 400 and "reload the page" in resp.get_data(as_text=True)
    assert state(client, code, session["teacher_token"])["votes"] == {}


def test_an_empty_join_code_says_what_to_type(strict_app):
    client = strict_app.test_client()
    for _ in range(6):  # past the lookup limit (5): an empty code looks nothing up
        resp = client.post("/join", data={"code": " - ", "nickname": "Ann"})
        assert resp.status_code == 400 and "Enter the join code" in resp.get_data(as_text=True)
    assert client.get(f"/join/{create(client)['code']}").status_code == 200


def test_join_codes_avoid_look_alikes(client):
    codes = [create(client)["code"] for _ in range(40)]
    assert len(set(codes)) == len(codes)
    assert all(re.fullmatch(f"[{LIVE_ALPHABET}]{{6}}", code) for code in codes)
    assert not set("".join(codes)) & LOOK_ALIKES and not set(LIVE_ALPHABET) & LOOK_ALIKES
    # Typed in lower case, with a space: the same session.
    code = codes[0]
    spaced = client.post("/join", data={"code": f" {code[:3].lower()} {code[3:]}", "nickname": ""})
    assert spaced.status_code == 303 and spaced.headers["Location"].endswith(f"/live/{code}")


@pytest.fixture
def strict_app(db_config):
    with app_with(db_config, LIVE_LOOKUP_RATE_LIMIT="5 per minute") as app:
        yield app


def test_codes_cannot_be_enumerated(strict_app):
    """Past its limit of wrong codes an address learns nothing more: every
    code gets 429, a real session's too, unless the address has met that
    session (a school whose teacher started it, whose pupils joined it) or
    the request carries one of its tokens."""
    client = strict_app.test_client()
    session = create(client)  # from 127.0.0.1: the school
    pupil = join(client, session["code"])
    for _ in range(10):  # codes that exist do not count
        assert client.get(f"/api/live/{session['code']}").status_code == 200
    stranger = {"REMOTE_ADDR": "10.0.0.9"}
    misses = [client.get(f"/join/{code}", environ_base=stranger).status_code for code in ("AAAAAA", "CCCCCC")]
    misses += [
        client.get(f"/join/{code}", environ_base=stranger).status_code for code in ("DDDDDD", "EEEEEE", "FFFFFF")
    ]
    assert misses == [404] * 5
    blocked = client.get("/api/live/GGGGGG", environ_base=stranger)
    assert blocked.status_code == 429 and "Too many join codes" in blocked.get_json()["error"]
    assert client.get(f"/api/live/{session['code']}", environ_base=stranger).status_code == 429  # no leak
    assert client.post("/join", data={"code": session["code"]}, environ_base=stranger).status_code == 429
    # The school makes as many typos, and keeps its session, its pupils and its teacher.
    school_misses = [client.get(f"/join/{code}").status_code for code in ("HHHHHH", "JJJJJJ", "KKKKKK")]
    school_misses += [client.get(f"/join/{code}").status_code for code in ("MMMMMM", "NNNNNN", "PPPPPP")]
    assert school_misses == [404] * 5 + [429]
    assert client.post("/join", data={"code": session["code"]}).status_code == 303
    assert client.get(f"/api/live/{session['code']}").status_code == 200
    assert vote(client, session["code"], pupil, "1122").status_code == 201
    assert step(client, session).status_code == 200
    # A token of the session passes from any address.
    assert client.get(f"/api/live/{session['code']}", headers=bearer(pupil), environ_base=stranger).status_code == 200


def later(app, seconds: float) -> None:
    """As if ``seconds`` had passed for the rate limits: every counter's
    window, kept in the app's database, ends that much sooner."""
    with app.app_context():
        sql("UPDATE rate_limits SET expires = expires - :s", s=seconds)


def minutes_said(answer) -> int:
    """The wait a 429's sentence names, in minutes; it is never shorter than its Retry-After."""
    minutes = int(re.search(r"try again in (\d+) minutes?\b", answer.get_json()["error"]).group(1))
    assert answer.status_code == 429 and 0 < int(answer.headers["Retry-After"]) <= minutes * 60
    return minutes


def test_a_schools_real_code_is_refused_no_longer_than_its_sentence_says(db_config):
    """The probe: a school (one address, its teacher elsewhere) types 20
    codes that find no session, then its class retries the real code again
    and again. Those retries are refused for the minute the sentence names
    and never counted, so the real code passes once that minute is over;
    and when the hour's limit is used up too, the sentence says so."""
    with app_with(db_config) as app:  # the shipped limit: 20 a minute, 100 an hour
        client = app.test_client()
        code = create(client)["code"]  # the teacher, from 127.0.0.1
        school = {"REMOTE_ADDR": "192.0.2.7"}
        assert [client.get(f"/api/live/ZZZZ{i:02d}", environ_base=school).status_code for i in range(20)] == [404] * 20
        retries = [client.get(f"/api/live/{code}", environ_base=school) for _ in range(100)]
        assert {minutes_said(answer) for answer in retries} == {1}
        assert client.post("/join", data={"code": code}, environ_base=school).status_code == 429
        later(app, 61)
        assert client.get(f"/api/live/{code}", environ_base=school).status_code == 200
        for _ in range(30):  # retries of a code that finds its session never count
            assert client.get(f"/api/live/{code}", environ_base=school).status_code == 200
        assert client.get("/api/live/ZZZZZZ", environ_base=school).status_code == 404  # its limit is whole again
        # Four more minutes of 20 wrong codes each: the hour's 100 are used up.
        misses = []
        for minute in range(4):
            later(app, 61)
            misses += [client.get(f"/join/YY{minute}{i:03d}", environ_base=school).status_code for i in range(20)]
        assert misses == [404] * 79 + [429]
        minutes = minutes_said(client.get(f"/api/live/{code}", environ_base=school))
        assert minutes == 55  # the hour's window began 5 × 61 seconds ago
        later(app, (minutes - 1) * 60)
        assert client.get(f"/api/live/{code}", environ_base=school).status_code == 429
        later(app, 60)
        assert client.get(f"/api/live/{code}", environ_base=school).status_code == 200


def test_nicknames_are_short_and_shown_escaped(client):
    session = create(client)
    code = session["code"]
    too_long = client.post(f"/api/live/{code}/students", json={"nickname": "x" * 21})
    assert too_long.status_code == 400
    join(client, code, "<script>x()</script>")
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    page = client.get(f"/live/{code}/teach").get_data(as_text=True)
    assert "<script>x()</script>" not in page
    assert "&lt;script&gt;x()&lt;/script&gt;" in page


def test_the_secret_stays_on_the_server_until_it_is_found(client):
    secret = "6543"
    session = create(client, source="teacher", secret=secret)
    code = session["code"]
    joined = client.post("/join", data={"code": code, "nickname": "Ann"})
    cookies = joined.headers.getlist("Set-Cookie")
    seen = [
        str(session),
        *cookies,
        *joined.headers.values(),
        client.get(f"/live/{code}").get_data(as_text=True),
        str(state(client, code)),
        str(state(client, code, session["teacher_token"])),
    ]
    assert not any(secret in text for text in seen)


def test_the_classroom_starts_a_session_for_the_teacher(client):
    response = client.post(
        "/live", data={"pegs": "4", "colors": "6", "strategy": "knuth", "source": "teacher", "secret": "1234"}
    )
    assert response.status_code == 303
    code = response.headers["Location"].split("/")[-2]
    assert re.fullmatch(f"[{LIVE_ALPHABET}]{{6}}", code)
    page = client.get(response.headers["Location"])
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert code in html and "<svg" in html and f"/join/{code}" in html
    # Another browser (no teacher cookie) is not the teacher.
    other = client.application.test_client()
    assert other.get(response.headers["Location"]).status_code == 403
    refused = client.post("/live", data={"source": "teacher", "secret": "99", "pegs": "5", "strategy": "entropy"})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422 and 'role="alert"' in html and "Start a live session" in html
    assert 'name="pegs" min="2" max="6" value="5"' in html and 'value="entropy" selected' in html
    assert "99" not in re.findall(r'name="secret"[^>]*', html)[0]


def test_a_students_phone_shows_the_session_without_the_site_menu(client):
    """A student's screen follows one session: the site's menu, which could
    take a phone away from it, is left out; the teacher's keeps it."""
    created = client.post("/live", data={"pegs": "4", "colors": "6", "strategy": "knuth", "source": "random"})
    code = created.headers["Location"].split("/")[-2]
    teacher = client.get(created.headers["Location"]).get_data(as_text=True)
    phone = client.application.test_client()
    joined = phone.post("/join", data={"code": code, "nickname": "Ada"}, follow_redirects=True)
    assert joined.status_code == 200 and joined.request.path == f"/live/{code}"
    html = joined.get_data(as_text=True)
    assert "You are Ada." in html and 'class="brand"' in html
    assert 'aria-label="Site"' not in html and 'aria-label="Site"' in teacher


def test_idle_sessions_end_and_their_records_go(app, client):
    session = create(client)
    code = session["code"]
    student = join(client, code)
    assert vote(client, code, student, "1122").status_code == 201
    other = create(client)
    hours = app.config["LIVE_IDLE_HOURS"]
    later = time.time() + hours * 3600 + 60
    with app.app_context():
        jobs.sweep(app.config, app.logger, later)
    with app.app_context():
        tables = ("live_sessions", "live_students", "live_votes")
        assert [sql(f"SELECT COUNT(*) FROM {table}").scalar() for table in tables] == [0, 0, 0]
    assert client.get(f"/api/live/{other['code']}").status_code == 404


def test_expire_games_runs_the_whole_sweep(app, client):
    """``flask expire-games`` is the hourly sweep run by hand: an idle live
    session goes with the abandoned games, and so do ended rate-limit counters."""
    idle, fresh = create(client)["code"], create(client)["code"]
    with app.app_context():
        then = time.time() - app.config["LIVE_IDLE_HOURS"] * 3600 - 60
        sql("UPDATE live_sessions SET touched_at = :t WHERE code = :c", t=then, c=idle)
        sql("INSERT INTO rate_limits (key, hits, expires) VALUES ('ended', 1, :t)", t=then)
    output = app.test_cli_runner().invoke(args=["expire-games"]).output
    assert "removed 1 idle live sessions and 1 ended rate-limit counters" in output
    with app.app_context():
        assert sql("SELECT code FROM live_sessions").scalars().all() == [fresh]
        assert sql("SELECT COUNT(*) FROM rate_limits WHERE key = 'ended'").scalar() == 0


def test_a_session_idle_too_long_is_gone_before_the_sweep(app, client):
    session = create(client)
    app.config["LIVE_IDLE_HOURS"] = 0  # every session is idle now
    response = client.get(f"/api/live/{session['code']}")
    assert response.status_code == 404 and "idle" in response.get_json()["error"]


def test_e_of_each_proposal_is_the_reviews(app, client):
    """The projector's E of a first guess on the classic board: 1123 leads
    to the optimum of 5,625 guesses over the 1,296 secrets (Koyama and Lai),
    Knuth's 1122 to more. The projector shows the review's own figures
    (``value_of``), exact on this board."""
    session = create(client)
    code = session["code"]
    for guess in ("1123", "1123", "1122"):
        assert vote(client, code, join(client, code), guess).status_code == 201
    with app.test_request_context():
        size = GameSize(4, 6)
        values = {g: value_of(size, [], Code.parse(g, size)) for g in ("1123", "1122")}
    assert all(v.exact for v in values.values())
    assert round(values["1123"].expected.value * 1296) == 5625
    assert values["1122"].expected.value > values["1123"].expected.value
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    html = client.get(f"/live/{code}/votes").get_data(as_text=True)
    assert "4.340" in html and "would save 0.059 guesses" in html


# --- live events ---------------------------------------------------------------------------------


def test_each_step_is_one_event_to_every_student(client):
    session = create(client, **LONG_GAME)
    code = session["code"]
    token = join(client, code)
    client.set_cookie(f"live_student_{code}", token)
    stream = Events(client, f"/live/{code}/events?after=0")
    try:
        for n in (1, 2, 3):
            version = step(client, session).get_json()["version"]
            name, event_id, html = stream.next()
            assert (name, event_id, shown_step(html)) == ("step", version, n)
        # A proposal changes nothing a student sees: the next event is the next step.
        assert vote(client, code, token, "1111").status_code == 201
        version = step(client, session, to=1).get_json()["version"]
        assert stream.next()[:2] == ("step", version)
    finally:
        stream.close()


def test_the_teacher_hears_each_change_of_the_votes(client):
    session = create(client)
    code = session["code"]
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    stream = Events(client, f"/live/{code}/events?after={state(client, code)['version']}")
    try:
        student = join(client, code, "Ann")
        name, _, html = stream.next()
        assert name == "votes" and "Ann" in html
        assert vote(client, code, student, "1123").status_code == 201
        name, _, html = stream.next()
        assert name == "votes" and "1123" in html
        step(client, session)
        name, _, html = stream.next()
        assert name == "step" and shown_step(html) == 1 and "Next: Knuth guesses" in html
    finally:
        stream.close()


def test_a_reconnect_resumes_at_the_current_step(client):
    session = create(client, **LONG_GAME)
    code = session["code"]
    client.set_cookie(f"live_student_{code}", join(client, code))
    step(client, session)
    now = step(client, session).get_json()
    # Missed both steps: the current one at once.
    stream = Events(client, f"/live/{code}/events", {"Last-Event-ID": "0"})
    try:
        name, event_id, html = stream.next()
        assert (name, event_id, shown_step(html)) == ("step", now["version"], 2)
    finally:
        stream.close()
    # Up to date: nothing is sent again; the next event is the next step.
    stream = Events(client, f"/live/{code}/events?after=0", {"Last-Event-ID": str(now["version"])})
    try:
        later = step(client, session).get_json()
        assert stream.next()[:2] == ("step", later["version"])
    finally:
        stream.close()


@contextlib.contextmanager
def app_with(db_config, **settings):
    """An app of the test's own, with ``settings``, shut down after."""
    app = create_app({**db_config, **QUICK_KEEPALIVE, **settings})
    try:
        yield app
    finally:
        app.extensions["jobs"].stop()
        app.extensions["live"].stop()
        app.extensions["store"].close()


@contextlib.contextmanager
def followed_stream(client):
    """A new session's code, with one stream of it open from 127.0.0.1 that
    the worker follows (it has heard a step), for the length of the ``with``."""
    session = create(client)
    code = session["code"]
    stream = Events(client, f"/live/{code}/events")
    try:
        step(client, session)
        assert stream.next()[0] == "step"
        yield code
    finally:
        stream.close()


def test_a_stream_past_the_workers_limit_is_refused(db_config):
    with app_with(db_config, LIVE_STREAMS_PER_WORKER=1) as app:
        client = app.test_client()
        with followed_stream(client) as code:  # it holds the worker's one place
            second = client.get(f"/live/{code}/events")
            assert second.status_code == 503 and int(second.headers["Retry-After"]) > 0


def test_one_address_cannot_take_every_stream(db_config):
    with app_with(db_config, LIVE_STREAMS_PER_ADDRESS=1) as app:
        client = app.test_client()
        with followed_stream(client) as code:  # it holds its address's one place
            again = client.get(f"/live/{code}/events")
            assert again.status_code == 503 and int(again.headers["Retry-After"]) > 0
            other = Events(client, f"/live/{code}/events", address="10.0.0.2")
            try:
                assert other.next()[0] == "step"  # another address is followed
            finally:
                other.close()


def test_streams_without_a_token_leave_the_room_its_places(db_config):
    """The probe: someone who knows only the join code opens 299 streams.
    A few are followed (LIVE_ANONYMOUS_STREAMS, 5), the rest get 503 with
    Retry-After, and the room's places (3 here: the teacher and two
    students) all stay free for the room, which still has no more."""
    with app_with(db_config, LIVE_STREAMS_PER_SESSION=3) as app:
        client = app.test_client()
        session = create(client)
        code = session["code"]
        tokens = [session["teacher_token"], join(client, code, "Ann"), join(client, code, "Bo")]
        path = f"/live/{code}/events?after={state(client, code)['version']}"
        watchers = [Events(client, path, address="203.0.113.9") for _ in range(5)]
        room: list[Events] = []
        try:
            for _ in range(294):
                refused = client.get(path, buffered=False, environ_base={"REMOTE_ADDR": "203.0.113.9"})
                refused.close()
                assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
            room = [Events(client, path, headers=bearer(token)) for token in tokens]
            extra = client.get(path, headers=bearer(join(client, code, "Cy")), buffered=False)
            extra.close()
            assert extra.status_code == 503  # the room's own places are all taken
            moved = step(client, session).get_json()
            for stream in room + watchers:
                name, version, _ = stream.next()
                while name != "step":  # the teacher hears the room change first
                    name, version, _ = stream.next()
                assert version == moved["version"]
        finally:
            for stream in room + watchers:
                stream.close()


@pytest.mark.parametrize("signal", ["database", "redis"])
def test_a_step_on_one_server_reaches_a_student_on_another(db_path, redis_url, signal):
    """Two apps (as two worker processes, or two servers) on one database:
    the step taken through one reaches a stream served by the other, through
    the database's versions or through Redis pub/sub."""
    config = {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": redis_url if signal == "redis" else None}
    if signal == "redis":  # the database is not read for versions: only Redis can carry the step
        config["LIVE_POLL_SECONDS"] = 3600
    one, other = (create_app({**config, **QUICK_KEEPALIVE}) for _ in range(2))
    try:
        teacher, student = one.test_client(), other.test_client()
        session = create(teacher)
        code = session["code"]
        student.set_cookie(f"live_student_{code}", join(student, code))
        stream = Events(student, f"/live/{code}/events?after={state(student, code)['version']}")
        try:
            if signal == "redis":
                assert other.extensions["live"].listening.wait(PATIENCE)
            moved = step(teacher, session).get_json()
            name, event_id, html = stream.next()
            assert (name, event_id, shown_step(html)) == ("step", moved["version"], 1)
        finally:
            stream.close()
    finally:
        for app in (one, other):
            app.extensions["jobs"].stop()
            app.extensions["live"].stop()
            app.extensions["store"].close()


def test_votes_are_counted_per_step_in_the_store(app, client):
    session = create(client)
    code = session["code"]
    tokens = [join(client, code) for _ in range(3)]
    for token, guess in zip(tokens, ("1122", "1122", "3456"), strict=True):
        vote(client, code, token, guess)
    step(client, session)
    vote(client, code, tokens[0], "2211")
    with app.app_context():
        assert store.live.votes(code, 1) == {0: Counter({"1122": 2, "3456": 1}), 1: Counter({"2211": 1})}


# --- the room: who is in it, removal, the lock --------------------------------------------------------


def roster(client, session: dict) -> list[dict]:
    return state(client, session["code"], session["teacher_token"])["students"]


def test_the_teacher_lists_and_removes_students_and_their_votes_stop_counting(client):
    session = create(client)
    code = session["code"]
    ann, bo = join(client, code, "Ann"), join(client, code, "Bo")
    assert roster(client, session) == [{"id": 1, "nickname": "Ann"}, {"id": 2, "nickname": "Bo"}]
    vote(client, code, ann, "1122")
    vote(client, code, bo, "3456")
    gone = client.delete(f"/api/live/{code}/students/2", headers=bearer(session["teacher_token"]))
    assert gone.status_code == 204 and gone.get_data() == b""
    assert roster(client, session) == [{"id": 1, "nickname": "Ann"}]
    assert state(client, code, session["teacher_token"])["votes"] == {"1122": 1}
    refused = vote(client, code, bo, "1111")
    assert refused.status_code == 403 and "taken you out" in refused.get_json()["error"]
    again = client.post(f"/api/live/{code}/students", json={"nickname": "Bo"}, headers=bearer(bo))
    assert again.status_code == 403  # that token cannot come back
    twice = client.delete(f"/api/live/{code}/students/2", headers=bearer(session["teacher_token"]))
    assert twice.status_code == 404


@pytest.mark.parametrize("who", ["nobody", "student", "another teacher"])
def test_only_the_teacher_keeps_the_room(client, who):
    session, other = create(client), create(client)
    code = session["code"]
    student = join(client, code, "Ann")
    token = {"nobody": None, "student": student, "another teacher": other["teacher_token"]}[who]
    headers = bearer(token) if token else {}
    removed = client.delete(f"/api/live/{code}/students/1", headers=headers)
    locked = client.post(f"/api/live/{code}/lock", json={"locked": True}, headers=headers)
    report = client.get(f"/api/live/{code}/report", headers=headers)
    expected = 401 if token is None else 403
    assert (removed.status_code, locked.status_code, report.status_code) == (expected,) * 3
    seen = state(client, code, session["teacher_token"])
    assert seen["students"] == [{"id": 1, "nickname": "Ann"}] and seen["locked"] is False
    assert "students" not in state(client, code, student)


def test_a_locked_room_refuses_new_students_with_a_sentence(client):
    session = create(client)
    code = session["code"]
    ann = join(client, code, "Ann")
    locked = client.post(f"/api/live/{code}/lock", json={"locked": True}, headers=bearer(session["teacher_token"]))
    assert locked.status_code == 200 and locked.get_json()["locked"] is True
    refused = client.post(f"/api/live/{code}/students", json={"nickname": "Bo"})
    assert refused.status_code == 409 and "closed this room" in refused.get_json()["error"]
    page = client.post("/join", data={"code": code, "nickname": "Bo"})
    assert page.status_code == 409 and "closed this room" in page.get_data(as_text=True)
    assert vote(client, code, ann, "1122").status_code == 201  # those in the room carry on
    client.post(f"/api/live/{code}/lock", json={"locked": False}, headers=bearer(session["teacher_token"]))
    assert join(client, code, "Bo")


def test_the_teachers_page_removes_and_locks_without_javascript(client):
    response = client.post("/live", data={})
    code = response.headers["Location"].split("/")[-2]
    student = client.application.test_client()
    student.post("/join", data={"code": code, "nickname": "Rude"})
    page = client.get(f"/live/{code}/teach").get_data(as_text=True)
    assert f'action="/live/{code}/students/1/remove"' in page and "Rude" in page
    assert client.post(f"/live/{code}/students/1/remove").status_code == 303
    assert client.post(f"/live/{code}/lock", data={"locked": "1"}).status_code == 303
    page = client.get(f"/live/{code}/teach").get_data(as_text=True)
    assert "Rude" not in page and "The room is locked" in page
    assert student.get(f"/live/{code}").status_code == 403
    assert student.post(f"/live/{code}/vote", data={"guess": "1122"}).status_code == 403
    newcomer = client.application.test_client().post("/join", data={"code": code})
    assert newcomer.status_code == 409


def test_a_phone_that_comes_back_keeps_its_seat_and_vote(client):
    code = create(client)["code"]
    phone = client.application.test_client()
    phone.post("/join", data={"code": code, "nickname": "Ann"})
    phone.post(f"/live/{code}/vote", data={"guess": "1123"})
    # Reloaded, or the QR code scanned again, or the form sent again: the same seat.
    assert phone.get(f"/join/{code}").headers["Location"].endswith(f"/live/{code}")
    assert phone.post("/join", data={"code": code, "nickname": "Other"}).status_code == 303
    page = phone.get(f"/live/{code}").get_data(as_text=True)
    assert "You are Ann." in page and "Your proposal: 1123" in page
    assert state(client, code)["joined"] == 1


def test_a_full_session_refuses_with_a_sentence(db_config):
    with app_with(db_config, LIVE_MAX_STUDENTS=3) as app:
        client = app.test_client()
        session = create(client)
        for name in ("A", "B", "C"):
            join(client, session["code"], name)
        full = client.post(f"/api/live/{session['code']}/students", json={})
        assert full.status_code == 409 and "room for 3 students" in full.get_json()["error"]
        client.set_cookie(f"live_teacher_{session['code']}", session["teacher_token"])
        assert "3 students in the room, of at most 3" in client.get(f"/live/{session['code']}/teach").get_data(
            as_text=True
        )


def test_joins_from_one_address_are_counted_per_session(db_config):
    """A school's pupils share one address: joining one session does not use
    up another's joins, and a flood of one session is refused with a sentence."""
    with app_with(db_config, LIVE_JOIN_RATE_LIMIT="4 per minute") as app:
        client = app.test_client()
        first, second = create(client), create(client)
        for _ in range(4):
            join(client, first["code"])
        flood = client.post(f"/api/live/{first['code']}/students", json={})
        error = flood.get_json()["error"]
        assert flood.status_code == 429 and int(flood.headers["Retry-After"]) > 0
        assert "students joined this session" in error and "address" not in error and "try again in 1 minute" in error
        assert join(client, second["code"])


@pytest.mark.parametrize(
    "typed, shown",
    [
        ("A\u200bnn", "Ann"),
        ("\u200b\u200b\u200b", ""),
        ("\ufeffBo\u2060", "Bo"),
        ("\u3164", ""),
        ("Cy\U000e0041\U000e0042", "Cy"),
        ("Z" + "\u0301" * 15, "Z\u0301\u0301"),
        ("  Ann   Lee ", "Ann Lee"),
    ],
)
def test_invisible_characters_leave_nicknames(client, typed, shown):
    session = create(client)
    join(client, session["code"], typed)
    assert roster(client, session) == [{"id": 1, "nickname": shown}]


def test_the_app_can_name_students_in_their_language(client):
    session = create(client, names="generated")
    code = session["code"]
    made = client.post(f"/api/live/{code}/students", json={"nickname": "Rude"})
    assert made.status_code == 201 and made.get_json()["nickname"] == "Brave Badger"
    german = client.post(f"/api/live/{code}/students", json={}, headers={"Accept-Language": "de"})
    assert german.get_json()["nickname"] == "Ruhiger Kranich"
    assert [s["nickname"] for s in roster(client, session)] == ["Brave Badger", "Ruhiger Kranich"]


def test_a_hidden_room_shows_no_names_on_the_projector(client):
    session = create(client, names="hidden")
    code = session["code"]
    client.post(f"/api/live/{code}/students", json={"nickname": "Ann"})
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    page = client.get(f"/live/{code}/teach").get_data(as_text=True)
    assert "Ann" not in page and "Student 1" in page and "1 student has joined" in page
    form = client.get(f"/join/{code}").get_data(as_text=True)
    assert 'name="nickname"' not in form


# --- the report -----------------------------------------------------------------------------------------


def test_the_report_has_a_row_per_student_and_step_voted(client):
    session = create(client, **LONG_GAME)
    code = session["code"]
    ann, bo = join(client, code, "=Ann"), join(client, code, "Bo")
    vote(client, code, ann, "1122")  # Knuth's own first guess
    vote(client, code, bo, "1234")  # better in expectation (Knuth minimises the largest class)
    step(client, session)
    knuth_second = state(client, code, session["teacher_token"])["strategy_guess"]
    vote(client, code, ann, knuth_second)
    teacher = bearer(session["teacher_token"])
    report = client.get(f"/api/live/{code}/report", headers=teacher).get_json()
    assert report["complete"] is True
    rows = [(r["step"], r["student"], r["guess"], r["strategy_guess"]) for r in report["rows"]]
    assert rows == [(1, 1, "1122", "1122"), (1, 2, "1234", "1122"), (2, 1, knuth_second, knuth_second)]
    first, better = report["rows"][0], report["rows"][1]
    assert first["difference"] == 0 and first["expected"] == first["strategy_expected"]
    assert better["difference"] == pytest.approx(better["expected"] - better["strategy_expected"])
    assert better["difference"] < 0
    assert [(s["id"], s["proposals"], s["as_good"]) for s in report["students"]] == [(1, 2, 2), (2, 1, 1)]
    text = client.get(f"/api/live/{code}/report", headers={**teacher, "Accept": "text/csv"})
    assert text.mimetype == "text/csv" and "attachment" in text.headers["Content-Disposition"]
    data = text.get_data(as_text=True)
    assert data.startswith("\ufeff")  # a byte order mark: spreadsheets read the letters as UTF-8
    lines = data[1:].splitlines()
    assert lines[0] == (
        "game,step,student,nickname,removed,guess,expected,expected_bound,strategy_guess,strategy_expected,"
        "strategy_expected_bound,best_expected,best_expected_bound,difference,difference_bound,points"
    )
    assert len(lines) == 4 and lines[1].startswith("1,1,1,'=Ann,no,1122,")  # no formula reaches a spreadsheet
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    assert client.get(f"/live/{code}/report.csv").get_data(as_text=True) == data
    page = client.get(f"/live/{code}/report").get_data(as_text=True)
    assert "Student by student" in page and knuth_second in page


# --- boards a page cannot draw, and the pace of the teacher's votes --------------------------------


def test_a_board_too_large_to_draw_is_refused_up_front(client):
    refused = client.post("/api/live", json={"pegs": 6, "colors": 8})
    assert refused.status_code == 422 and "smaller board" in refused.get_json()["error"]
    page = client.post("/live", data={"pegs": "6", "colors": "8"})
    assert page.status_code == 422 and 'value="8"' in page.get_data(as_text=True)


@pytest.mark.parametrize("strategy", ["knuth", "minimax-avg", "longrect", "minimax-lex"])
def test_a_board_whose_second_step_cannot_be_drawn_is_refused_up_front(client, strategy):
    """The probe: on 6×7 against the adversary, the first step fits in a
    request but the second takes longer to draw than a page may (with the
    first, on a worker that has drawn neither): refused when created, with
    a sentence, rather than stuck at step 2."""
    refused = client.post("/api/live", json={"pegs": 6, "colors": 7, "strategy": strategy, "source": "adversary"})
    assert refused.status_code == 422 and "smaller board" in refused.get_json()["error"]


def test_the_teachers_votes_come_at_most_once_a_period(db_config):
    """With a period longer than the test, the votes after the first are
    held back, and the step that follows still goes at once."""
    with app_with(db_config, LIVE_VOTES_SECONDS=3600) as app:
        client = app.test_client()
        session = create(client)
        code = session["code"]
        client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
        stream = Events(client, f"/live/{code}/events?after={state(client, code)['version']}")
        try:
            tokens = [join(client, code, name) for name in ("Ann", "Bo", "Cy")]
            assert stream.next()[0] == "votes"
            for token in tokens:
                vote(client, code, token, "1122")
            moved = step(client, session).get_json()
            name, event_id, _ = stream.next()
            assert (name, event_id) == ("step", moved["version"])
        finally:
            stream.close()


def test_a_stream_that_cannot_draw_ends_with_an_event(client, monkeypatch):
    session = create(client)
    code = session["code"]
    from webapp.engine.strategies import TooSlow
    from webapp.web.live import stream as live_stream

    def too_slow(*args, **kwargs):
        raise TooSlow("a-step")

    stream = Events(client, f"/live/{code}/events?after={state(client, code)['version']}")
    try:
        monkeypatch.setattr(live_stream, "student_fragment", too_slow)
        step(client, session)
        name, _, html = stream.next()
        assert name == "ended" and 'role="alert"' in html
    finally:
        stream.close()


def test_a_phone_that_goes_frees_its_place_at_once(tmp_path):
    """Under gunicorn a stream notices its phone has gone while it waits
    (not at its next keepalive, an hour away here), so a session whose one
    place was taken has it again for the next phone."""
    import http.client
    import json
    import socket

    from benchmarks.load import gunicorn

    # The session's one place for a stream without a token, which these are.
    config = {"LIVE_ANONYMOUS_STREAMS": 1, "LIVE_KEEPALIVE_SECONDS": 3600, "JOBS_CONSUMER": "none"}
    with gunicorn(str(tmp_path / "live.sqlite3"), workers=1, threads=16, config=config) as (port, _):

        def call(method, path, body=None):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
            conn.request(
                method, path, json.dumps(body) if body is not None else None, {"Content-Type": "application/json"}
            )
            response = conn.getresponse()
            return response.status, response.read()

        status, body = call("POST", "/api/live", {})
        code = json.loads(body)["code"]

        def open_stream() -> tuple[socket.socket, bytes]:
            sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
            sock.sendall(f"GET /live/{code}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head or (head.startswith(b"HTTP/1.1 200") and b"retry:" not in head):
                chunk = sock.recv(4096)
                if not chunk:
                    break
                head += chunk
            return sock, head

        first, head = open_stream()
        assert head.startswith(b"HTTP/1.1 200")
        second, head = open_stream()
        assert head.startswith(b"HTTP/1.1 503")  # the session's one place is taken
        second.close()
        first.shutdown(socket.SHUT_WR)  # the phone goes: the server reads the end of its connection
        first.settimeout(PATIENCE)
        while first.recv(65536):  # until the server has ended the stream and closed its side
            pass
        first.close()
        third, head = open_stream()
        third.close()
        assert head.startswith(b"HTTP/1.1 200")


def test_the_session_cookies_are_renewed_while_in_use(client):
    """A lesson longer than a cookie's first life keeps its rights: every
    page of the session the teacher or a student opens renews their cookie."""
    made = client.post("/live", data={})
    code = made.headers["Location"].split("/")[-2]
    phone = client.application.test_client()
    phone.post("/join", data={"code": code, "nickname": "Ann"})
    for who, path, cookie in (
        (client, f"/live/{code}/teach", "live_teacher_"),
        (phone, f"/live/{code}", "live_student_"),
    ):
        renewed = [c for c in who.get(path).headers.getlist("Set-Cookie") if c.startswith(cookie + code)]
        assert len(renewed) == 1 and "Max-Age=21600" in renewed[0] and "HttpOnly" in renewed[0]
    stranger = client.application.test_client()
    stranger.set_cookie(f"live_student_{code}", "not-a-token-of-this-session")
    assert not stranger.get(f"/live/{code}").headers.getlist("Set-Cookie")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)
def test_a_sessions_streams_are_counted_across_workers(db_config):
    """Two apps on one database (two workers, or two servers with Redis):
    the session's one place, taken through one, is refused by the other
    until that stream closes."""
    settings = {**db_config, **QUICK_KEEPALIVE, "LIVE_STREAMS_PER_SESSION": 1}
    one, other = (create_app(settings) for _ in range(2))
    try:
        first, second = one.test_client(), other.test_client()
        session = create(first)
        code, teacher = session["code"], bearer(session["teacher_token"])
        stream = Events(first, f"/live/{code}/events", headers=teacher)
        try:
            refused = second.get(f"/live/{code}/events", headers=teacher)
            assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
        finally:
            stream.close()
        again = Events(second, f"/live/{code}/events", headers=teacher)
        again.close()
    finally:
        for app in (one, other):
            app.extensions["jobs"].stop()
            app.extensions["live"].stop()
            app.extensions["store"].close()
