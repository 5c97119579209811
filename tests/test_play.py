"""The HTML pages: home, new games, the board, guesses with and without htmx."""

import html as html_lib
import re

import pytest

from webapp import store
from webapp.engine import Code, GameSize

HX = {"HX-Request": "true"}


def error_text(html: str) -> str:
    return html_lib.unescape(" ".join(m.strip() for m in re.findall(r'class="error"[^>]*>([^<]*)<', html) if m.strip()))


def test_home_lists_presets(client):
    html = client.get("/").get_data(as_text=True)
    for title in ("Classic", "Brain Breaker", "Super Mastermind", "Distinct"):
        assert title in html
    assert 'action="/games"' in html


@pytest.mark.parametrize(
    "preset, pegs, colors, limit, distinct",
    [
        ("classic", 4, 6, 10, False),
        ("brain-breaker", 4, 5, 10, False),
        ("super", 5, 8, 12, False),
        ("distinct", 4, 6, 10, True),
    ],
)
def test_presets_create_games(client, app, preset, pegs, colors, limit, distinct):
    resp = client.post("/games", data={"preset": preset})
    assert resp.status_code == 303
    game_id = resp.headers["Location"].rsplit("/", 1)[1]
    with app.app_context():
        game = store.games.load_game(game_id)
    assert (game.size.pegs, game.size.colors, game.max_guesses, game.size.distinct) == (pegs, colors, limit, distinct)
    if distinct:
        assert game.secret.is_distinct()


def test_custom_game_and_errors(client):
    resp = client.post("/games", data={"pegs": "3", "colors": "5", "max_guesses": "8", "distinct": "1"})
    assert resp.status_code == 303
    resp = client.post("/games", data={"pegs": "9", "colors": "5", "max_guesses": "8"})
    assert resp.status_code == 400 and "Pegs must be from 2 to 6" in error_text(resp.get_data(as_text=True))
    resp = client.post("/games", data={"pegs": "four", "colors": "5", "max_guesses": "8"})
    assert resp.status_code == 400 and "whole number" in error_text(resp.get_data(as_text=True))


@pytest.mark.parametrize(
    "form,words",
    [
        ({"max_guesses": "99999999"}, "Guesses allowed must be a whole number from 1 to 30, not '99999999'."),
        ({"pegs": "-1"}, "Pegs must be a whole number from 2 to 6, not '-1'."),
        ({"colors": "x" * 5000}, "not 'xxxxxxxxxxxx'."),
        ({"distinct": "maybe"}, "with on or off"),
        ({"preset": "mega"}, "There is no game called 'mega'"),
    ],
)
def test_errors_in_words(client, form, words):
    resp = client.post("/games", data=form)
    text = error_text(resp.get_data(as_text=True))
    assert resp.status_code == 400 and words in text
    assert "max_guesses" not in text and len(text) < 200


@pytest.fixture
def game(app):
    with app.app_context():
        return store.games.create_game(GameSize(), 3, Code.parse("6543", GameSize()))


def moves(app, game_id):
    with app.app_context():
        return [str(m.guess) for m in store.games.load_game(game_id).moves]


def test_guess_without_htmx_redirects(client, app, game):
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": "1"})
    assert resp.status_code == 303 and resp.headers["Location"] == f"/games/{game.id}"
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert 'data-guess="1122" data-black="0" data-white="0"' in html
    assert "0 black, 0 white" in html
    assert moves(app, game.id) == ["1122"]


def test_guess_with_htmx_returns_the_new_row(client, game):
    """With htmx a guess answers with its row, appended to the list, and
    out-of-band swaps of what else changed; not the whole board."""
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "3456", "move": "1"}, headers=HX)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert re.match(r'\s*<title>Guess 2 of 3: Mastermind 4×6</title>\s*<li class="row" data-guess="3456"', html)
    assert html.count('<li class="row"') == 1 and '<section id="game"' not in html
    assert "<html" not in html
    assert 'hx-swap-oob="outerHTML:#guess-form"' in html and 'name="move" value="2"' in html
    assert 'hx-swap-oob="innerHTML">Guess 1: 3456 gave 0 black, 4 white.' in html
    assert "HX-Request" in resp.headers["Vary"]


def test_winning_guess_swaps_in_the_outcome(client, game):
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "6543", "move": "1"}, headers=HX)
    html = resp.get_data(as_text=True)
    assert 'id="guess-form" hx-swap-oob="outerHTML"' in html and "You cracked it in 1 guess" in html
    assert 'id="suggest-panel" hx-swap-oob="delete"' in html and 'id="counter" hx-swap-oob="delete"' in html
    # htmx takes the first <title> of an answer as the page's: the review's charts have titles of their own.
    titles = re.findall(r"<title[^>]*>([^<]*)</title>", html)
    assert len(titles) > 1 and titles[0] == "Won in 1: Mastermind 4×6"


def test_htmx_error_swaps_the_board_instead(client, game):
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "12", "move": "1"}, headers=HX)
    assert resp.status_code == 400 and resp.headers["HX-Retarget"] == "#game"
    assert re.match(r'\s*<title>Guess 1 of 3: Mastermind 4×6</title>\s*<section id="game"', resp.get_data(as_text=True))


@pytest.mark.parametrize(
    "guess, status, words",
    [
        ("12", 400, "has 2"),
        ("1279", 400, "Colours 7, 9 are not"),
        ("", 400, "Enter 4 colours"),
        ("12ab", 400, "are not colours"),
    ],
)
def test_bad_guess_says_why_and_changes_nothing(client, app, game, guess, status, words):
    for headers in ({}, HX):
        resp = client.post(f"/games/{game.id}/guesses", data={"guess": guess, "move": "1"}, headers=headers)
        assert resp.status_code == status
        assert words in error_text(resp.get_data(as_text=True))
    assert moves(app, game.id) == []


def test_double_submit_is_recorded_once(client, app, game):
    client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": "1"})
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": "1"})
    assert resp.status_code == 409 and "already recorded" in error_text(resp.get_data(as_text=True))
    assert moves(app, game.id) == ["1122"]


def test_missing_move_number(client, app, game):
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122"})
    assert resp.status_code == 400 and moves(app, game.id) == []
    for move in ("0", "-1", "٣", "１"):  # only ASCII digits from 1 number a move
        resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": move})
        assert resp.status_code == 400 and "reload the page" in resp.get_data(as_text=True)
    assert moves(app, game.id) == []


def secret_visible(html: str, secret: str, game_id: str) -> bool:
    html = html.replace(game_id, "")
    return secret in html or 'aria-label="Secret' in html


def test_secret_hidden_until_the_end(client, game):
    pages = [client.get(f"/games/{game.id}")]
    for n, guess in enumerate(("1111", "2222"), start=1):
        pages.append(client.post(f"/games/{game.id}/guesses", data={"guess": guess, "move": str(n)}, headers=HX))
        pages.append(client.get(f"/games/{game.id}"))
        pages.append(client.get(f"/api/games/{game.id}"))
    pages.append(client.post(f"/games/{game.id}/counter", data={"show": "1"}, headers=HX))
    for resp in pages:
        assert not secret_visible(resp.get_data(as_text=True), "6543", game.id)
        assert "Set-Cookie" not in resp.headers
        assert not any("6543" in v for k, v in resp.headers.items())
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "3333", "move": "3"}, headers=HX)
    html = resp.get_data(as_text=True)
    assert secret_visible(html, "6543", game.id) and "Out of guesses" in html


def test_winning_reveals_and_congratulates(client, game):
    client.post(f"/games/{game.id}/guesses", data={"guess": "6543", "move": "1"})
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "You cracked it in 1 guess" in html and 'id="guess-form"' not in html
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "6543", "move": "2"})
    assert resp.status_code == 409 and "over" in error_text(resp.get_data(as_text=True))


def test_counter_toggle(client, game):
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "possible-count" not in html
    client.post(f"/games/{game.id}/guesses", data={"guess": "1122", "move": "1"})
    resp = client.post(f"/games/{game.id}/counter", data={"show": "1"})
    assert resp.status_code == 303
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert re.search(r'id="possible-count">(\d+)<', html)[1] == "256"  # 1122 → 0 black, 0 white
    client.post(f"/games/{game.id}/counter", data={"show": "0"})
    assert "possible-count" not in client.get(f"/games/{game.id}").get_data(as_text=True)


def test_unknown_game_pages(client):
    assert client.get("/games/nope").status_code == 404
    resp = client.post("/games/nope/guesses", data={"guess": "1122", "move": "1"})
    assert resp.status_code == 404 and "no game" in resp.get_data(as_text=True)


def test_oversized_form(client, game):
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "1" * 40000, "move": "1"})
    assert resp.status_code == 413


def test_watch_link_shows_moves_but_cannot_play(client, app):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("6543", GameSize()))
    data = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1122"}).get_json()
    watch = data["watch_url"]
    assert game.id not in watch
    html = client.get(watch).get_data(as_text=True)
    assert 'data-guess="1122"' in html and game.id not in html
    assert "6543" not in html and "<form" not in html.split("<main", 1)[1]
    assert 'hx-trigger="every 3s"' in html
    board = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert watch in board  # the board offers it, and says which link is which
    client.post(f"/api/games/{game.id}/guesses", json={"guess": "6543"})
    done = client.get(watch).get_data(as_text=True)
    assert '<span class="secret-text">6543</span>' in done and "Solved in 2 guesses." in done
    assert client.get("/watch/nope").status_code == 404


def test_a_review_part_opened_as_an_address_leads_to_its_board(client):
    game = client.post("/api/games", json={}).get_json()
    opened = client.get(f"/games/{game['id']}/review")
    assert opened.status_code == 303 and opened.headers["Location"].endswith(f"/games/{game['id']}#review")
    part = client.get(f"/games/{game['id']}/review", headers={"HX-Request": "true"})
    assert part.status_code == 409  # the part itself, for the board's script: not over yet
