"""Security headers, never-stale boards, and inputs that once gave a 500."""

import re
import time

import pytest
from records import sql

from webapp import store
from webapp.engine import Code, GameSize

PAGES = [
    "/",
    "/solver/optimal-game",
    "/solver/classroom",
    "/solver/compare",
    "/solver/tree",
    "/challenges/new",
    "/codemaker",
    "/api/solver/optimal-game",
]


@pytest.mark.parametrize("url", PAGES)
def test_security_headers(client, url):
    resp = client.get(url)
    csp = resp.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["Referrer-Policy"] in ("same-origin", "no-referrer")


def test_no_inline_script_or_style(client, app):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10)
    for url in PAGES[:-1] + [f"/games/{game.id}"]:
        html = client.get(url).get_data(as_text=True)
        assert "<script>" not in html and " style=" not in html, url


def test_game_pages_are_never_cached(client, app):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
    assert client.get(f"/games/{game.id}").headers["Cache-Control"] == "no-store"
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": "1"}, headers={"HX-Request": "true"})
    assert resp.headers["Cache-Control"] == "no-store"


def test_results_page_keeps_its_key_to_itself(client):
    data = client.post("/api/challenges", json={}).get_json()
    resp = client.get(data["results_page"])
    assert resp.headers["Referrer-Policy"] == "no-referrer"
    assert resp.headers["Cache-Control"] == "no-store"


def test_deeply_nested_json_is_a_400(client):
    deep = "[" * 1000 + "]" * 1000
    for url in ("/api/games", "/api/challenges", "/api/codemaker"):
        resp = client.post(url, data=deep, content_type="application/json")
        assert resp.status_code == 400 and "nested too deeply" in resp.get_json()["error"]


def test_chunked_body_over_the_limit_is_a_413(client):
    import io
    import json

    big = json.dumps({"pegs": 4, "pad": "x" * 20_000}).encode()
    env = {
        "wsgi.input": io.BytesIO(big),
        "HTTP_TRANSFER_ENCODING": "chunked",
        "wsgi.input_terminated": True,
        "CONTENT_TYPE": "application/json",
    }
    assert client.post("/api/games", environ_overrides=env).status_code == 413
    small = json.dumps({"pegs": 3}).encode()
    env = {**env, "wsgi.input": io.BytesIO(small)}
    resp = client.post("/api/games", environ_overrides=env)
    assert resp.status_code == 201 and resp.get_json()["pegs"] == 3


@pytest.mark.parametrize("move", ["²", "9" * 5000, "-1", "1.0", "٣"])
def test_odd_move_numbers_are_refused_plainly(client, app, move):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": move})
    assert resp.status_code == 400 and "form was incomplete" in resp.get_data(as_text=True)
    with app.app_context():
        assert store.games.load_game(game.id).moves == []


@pytest.mark.parametrize("query", ["step=²", "l=²", "step=" + "9" * 5000, "l=-3"])
def test_odd_numbers_in_replay_links(client, query):
    assert client.get(f"/replay/4x6/aot?g=1122&{query}").status_code == 400


def test_odd_numbers_in_codemaker_answers(client):
    gid = client.post("/api/codemaker", json={}).get_json()["id"]
    resp = client.post(f"/codemaker/{gid}/feedback", data={"black": "²", "white": "0", "move": "1"})
    assert resp.status_code == 400
    resp = client.post(f"/api/codemaker/{gid}/feedback", json={"black": 10**6, "white": 0})
    assert resp.status_code == 400


@pytest.mark.backends("sqlite", "postgresql")
def test_read_only_database_is_a_503_and_loses_nothing(client, app):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
    client.post(f"/api/games/{game.id}/guesses", json={"guess": "1122"})
    app.config["DATABASE_READ_ONLY"] = True
    try:
        resp = client.post(f"/api/games/{game.id}/guesses", json={"guess": "3456"})
        assert resp.status_code == 503 and resp.headers["Retry-After"] == "30"
        assert "could not be saved just now" in resp.get_json()["error"]
        page = client.post(f"/games/{game.id}/guesses", data={"guess": "3456", "move": "2"})
        assert page.status_code == 503 and "Nothing was lost" in page.get_data(as_text=True)
        assert client.post("/api/games", json={}).status_code == 503
        assert client.get(f"/api/games/{game.id}").status_code == 200  # reading still works
    finally:
        app.config["DATABASE_READ_ONLY"] = False
    with app.app_context():
        assert [str(m.guess) for m in store.games.load_game(game.id).moves] == ["1122"]
    assert client.post(f"/api/games/{game.id}/guesses", json={"guess": "3456"}).status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "/solver/classroom?history=1122:٣,0",
        "/solver/tree?open=٣,٠",
        "/replay/٤x٦/aot",
        "/replay/４x６/aot",
        "/api/solver/step?history=1122:1,٠",
        "/solver/classroom?pegs=٤",
        "/solver/optimal-game?colors=６",
    ],
)
def test_only_ascii_digits_are_digits(client, url):
    resp = client.get(url)
    assert resp.status_code in (400, 404), (url, resp.status_code)


@pytest.mark.parametrize(
    "path,twin", [("/games", "/api/games"), ("/challenges", "/api/challenges"), ("/codemaker", "/api/codemaker")]
)
def test_a_form_route_refuses_json(client, app, path, twin):
    resp = client.post(path, json={"pegs": 4, "colors": 6})
    assert resp.status_code == 415 and twin in resp.get_data(as_text=True)
    with app.app_context():
        assert sql("SELECT COUNT(*) FROM games").scalar() == 0


def test_game_state_is_never_cached(client):
    game = client.post("/api/games", json={}).get_json()
    maker = client.post("/api/codemaker", json={}).get_json()
    challenge = client.post("/api/challenges", json={}).get_json()
    for url in (
        f"/api/games/{game['id']}",
        f"/api/codemaker/{maker['id']}",
        challenge["results_url"],
        challenge["url"],
        challenge["results_page"],
        game["url"],
        maker["url"],
    ):
        resp = client.get(url)
        assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store", url


# --- only the site acts for its visitors -------------------------------------------------------

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
# What a browser sends with a form another site's page submits.
HOSTILE = [
    {"Sec-Fetch-Site": "cross-site", "Origin": "http://attacker.example"},
    {"Sec-Fetch-Site": "same-site", "Origin": "http://sub.localhost"},
    {"Sec-Fetch-Site": "cross-site", "Origin": "http://localhost"},  # the browser's word outranks Origin
    {"Origin": "http://attacker.example"},
    {"Origin": "null"},  # a sandboxed frame
]
FRIENDLY = [
    {"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"},
    {"Sec-Fetch-Site": "same-origin", "Origin": "null"},  # a no-referrer page posting to its own site
    {},
]


def record_counts(db_path: str) -> dict[str, int]:
    """Rows per table of the app's SQLite file: what a request stored."""
    import sqlite3

    with sqlite3.connect(db_path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}


@pytest.fixture
def unsafe_requests(app, client):
    """Every unsafe route of the app, with real ids and a body it would act
    on; the client is the teacher and a student of a live session."""
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
        challenge = store.challenges.create_challenge(GameSize(), 10, Code.parse("1234", GameSize()))
        maker = store.codemaker.create_codemaker(GameSize(), "knuth")
        live = store.live.create_live(
            lambda: "ACDEFG",
            "teacher-token",
            GameSize(),
            "knuth",
            "random",
            Code.parse("1234", GameSize()),
            time.time(),
        )
        store.live.add_student(live.code, "student-token-for-tests", "", time.time(), 10)
        store.live.add_student(live.code, "another-student-for-tests", "", time.time(), 10)  # the one removed
    client.set_cookie(f"live_teacher_{live.code}", "teacher-token")
    client.set_cookie(f"live_student_{live.code}", "student-token-for-tests")
    ids = {"game_id": game.id, "challenge_id": challenge.id, "code": live.code, "seat": "2", "student": "2"}
    form = {"guess": "1122", "move": "1", "pegs": "4", "colors": "6", "board": "classic", "theme": "dark"}
    form |= {"language": "de", "token": "A" * 22, "black": "0", "white": "0", "strategy": "knuth", "source": "random"}
    found = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods & UNSAFE):
            values = {name: ids.get(name, maker.id) for name in rule.arguments}
            if rule.rule.startswith("/codemaker/"):
                values["game_id"] = maker.id
            path = rule.rule
            for name, value in values.items():
                path = re.sub(f"<(int:)?{name}>", value, path)
            body = (
                {"json": {"guess": "1122", "black": 0, "white": 0, "move": 1, "locked": True, "nickname": "Ann"}}
                if path.startswith("/api/")
                else {}
            )
            found.append((method, path, body or {"data": form}))
    assert len(found) == 45  # every form and every API route that changes something
    return found


@pytest.mark.parametrize(
    "headers", HOSTILE, ids=["cross-site", "same-site", "cross-site-own-origin", "other-origin", "null-origin"]
)
def test_another_site_can_change_nothing(client, unsafe_requests, db_path, headers):
    """Each unsafe route refuses what another site's page sends: 403, no
    cookie, and not a row stored (rate-limit counters included)."""
    before = record_counts(db_path)
    for method, path, body in unsafe_requests:
        resp = client.open(path, method=method, headers=headers, **body)
        assert resp.status_code == 403, (method, path, resp.status_code)
        assert "Set-Cookie" not in resp.headers, (method, path)
        words = resp.get_json()["error"] if path.startswith("/api/") else resp.get_data(as_text=True)
        assert "another site" in words, (method, path)
    assert record_counts(db_path) == before


@pytest.mark.parametrize("headers", FRIENDLY, ids=["same-origin", "same-origin-no-referrer", "no-headers"])
def test_this_site_and_scripts_still_act(client, unsafe_requests, db_path, headers):
    before = record_counts(db_path)
    statuses = [
        client.open(path, method=method, headers=headers, **body).status_code for method, path, body in unsafe_requests
    ]
    assert 403 not in statuses
    assert record_counts(db_path) != before  # games, players, challenges were made


@pytest.mark.parametrize(
    "content_type, data",
    [
        ("text/plain", '{"pegs": 4}'),
        ("application/x-www-form-urlencoded", "pegs=4"),
        ("multipart/form-data; boundary=x", "--x--"),
        ("application/xml", "<game/>"),
        ("text/plain", ""),
    ],
)
def test_the_api_reads_json_only(client, db_path, content_type, data):
    before = record_counts(db_path)
    resp = client.post("/api/games", data=data, content_type=content_type)
    assert resp.status_code == 415 and "application/json" in resp.get_json()["error"]
    assert record_counts(db_path) == before
    assert client.post("/api/games").status_code == 201  # no body, no type: the defaults


@pytest.mark.parametrize(
    "target, location",
    [
        ("/games", "/games"),
        ("/solver/tree?pegs=3", "/solver/tree?pegs=3"),
        ("//example.com", "/"),
        ("/%09/example.com", "/%09/example.com"),  # encoded, it stays a path on this site
        ("/\t/example.com", "/"),
        ("/\\example.com", "/"),
        ("https://example.com/", "/"),
        ("javascript:alert(1)", "/"),
        ("", "/"),
    ],
)
def test_choices_return_only_to_this_site(client, target, location):
    for path, field in (("/theme", {"theme": "dark"}), ("/language", {"language": "de"})):
        resp = client.post(path, data={**field, "next": target})
        assert resp.status_code == 303 and resp.headers["Location"] == location, (path, target)


@pytest.mark.parametrize("target", ["/\r\nX-Injected: 1", "/%0d%0aX-Injected:1", "/\nx"])
def test_a_line_break_in_a_return_address_is_a_400(client, target):
    from urllib.parse import unquote

    for path, field in (("/theme", {"theme": "dark"}), ("/language", {"language": "de"})):
        resp = client.post(path, data={**field, "next": unquote(target)})
        assert resp.status_code == 400 and "X-Injected" not in resp.headers, (path, target)
        assert "Set-Cookie" not in resp.headers


def test_links_are_never_built_from_a_strange_host(client, app):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10)
    assert client.get(f"/games/{game.id}", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/me", headers={"Host": "evil.example"}).status_code == 400
    page = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "http://localhost/watch/" in page


def test_links_use_the_public_url(db_config):
    from webapp import create_app

    app = create_app({**db_config, "TESTING": True, "PUBLIC_URL": "https://mastermind.example"})
    try:
        with app.app_context():
            game = store.games.create_game(GameSize(), 10)
        client = app.test_client()
        page = client.get(f"/games/{game.id}", headers={"Host": "mastermind.example"}).get_data(as_text=True)
        assert "https://mastermind.example/watch/" in page
        assert client.get(f"/games/{game.id}", headers={"Host": "evil.example"}).status_code == 400
        # The public origin is the only one whose forms are obeyed.
        other = {"Origin": "http://localhost"}
        assert client.post("/theme", data={"theme": "dark"}, headers=other).status_code == 403
        own = {"Origin": "https://mastermind.example"}
        assert client.post("/theme", data={"theme": "dark"}, headers=own).status_code == 303
    finally:
        app.extensions["jobs"].stop()
        app.extensions["store"].close()


@pytest.mark.parametrize("path", ["/daily/٣", "/daily/３", "/daily/1٣"])
def test_day_numbers_are_ascii_digits(client, path):
    assert client.get(path).status_code == 404
