"""Security headers, never-stale boards, and inputs that once gave a 500."""

import pytest

from webapp import store
from webapp.engine import Code, GameSize

PAGES = ["/", "/solver/optimal-game", "/solver/classroom", "/solver/compare", "/solver/tree",
         "/challenges/new", "/codemaker", "/api/solver/optimal-game"]


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
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": "1"},
                       headers={"HX-Request": "true"})
    assert resp.headers["Cache-Control"] == "no-store"


def test_results_page_keeps_its_key_to_itself(client):
    data = client.post("/api/challenges", json={}).get_json()
    resp = client.get(data["results_page"])
    assert resp.headers["Referrer-Policy"] == "no-referrer"
    assert resp.headers["Cache-Control"] == "no-store"
