"""Security headers, never-stale boards, and inputs that once gave a 500."""

import pytest

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
        game = store.create_game(GameSize(), 10)
    for url in PAGES[:-1] + [f"/games/{game.id}"]:
        html = client.get(url).get_data(as_text=True)
        assert "<script>" not in html and " style=" not in html, url


def test_game_pages_are_never_cached(client, app):
    with app.app_context():
        game = store.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
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
        game = store.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": move})
    assert resp.status_code == 400 and "form was incomplete" in resp.get_data(as_text=True)
    with app.app_context():
        assert store.load_game(game.id).moves == []


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
        game = store.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
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
        assert [str(m.guess) for m in store.load_game(game.id).moves] == ["1122"]
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
        from webapp import store

        assert store.get_db().execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


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
