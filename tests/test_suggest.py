"""The board's suggestion button (the strategy engine in the web app)."""

import re
import time

import pytest

from webapp import store
from webapp.engine import Code, Feedback, GameSize, best_guess, feedback
from webapp.web.loaders import play_guess

HX = {"HX-Request": "true"}


@pytest.fixture
def game(app):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("6543", GameSize()))
        play_guess(game.id, Code.parse("1122", GameSize()))
        return store.games.load_game(game.id)


def suggested(html):
    return re.search(r'class="suggested-code">(\d+)<', html)[1]


@pytest.mark.parametrize("name", ["knuth", "entropy", "most-parts", "minimax-avg", "simple"])
def test_suggestion_matches_the_engine(client, game, name):
    resp = client.post(f"/games/{game.id}/suggestion", data={"strategy": name}, headers=HX)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    expected = best_guess(name, GameSize(), [(Code.parse("1122", GameSize()), Feedback(0, 0))])
    assert suggested(html) == str(expected.guess)
    assert f'name="guess" value="{expected.guess}"' in html  # filled in, ready to play
    for reply, count in expected.partition.items():
        assert f"{reply.describe()}: {count} {'code' if count == 1 else 'codes'}" in html


def test_suggestion_without_javascript_survives_reload(client, app, game):
    resp = client.post(f"/games/{game.id}/suggestion", data={"strategy": "irving"})
    assert resp.status_code == 303
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "<strong>Irving</strong> suggests" in html
    # After the next guess the old suggestion is gone.
    client.post(f"/games/{game.id}/guesses", data={"guess": "3456", "move": "2"})
    assert "suggests" not in client.get(f"/games/{game.id}").get_data(as_text=True)


def test_the_strategies_are_named_for_people(client, game):
    """The select shows names (a person's as it is, a description translated);
    its values are the keys the form posts."""
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert re.search(r'<option value="knuth" [^>]*selected>Knuth</option>', html)
    assert re.search(r'<option value="most-parts" [^>]*>Most parts</option>', html)
    german = client.get(f"/games/{game.id}?lang=de").get_data(as_text=True)
    assert re.search(r'<option value="most-parts" [^>]*>Meiste Teile</option>', german)
    answer = client.post(f"/games/{game.id}/suggestion?lang=es", data={"strategy": "most-parts"}, headers=HX)
    spanish = answer.get_data(as_text=True)
    assert "<strong>Más partes</strong> sugiere" in spanish
    assert "La estrategia «Más partes» sugiere" in spanish  # the announcement


def test_suggestions_are_counted_per_move(client, game):
    """Asking twice on one move counts once; a hint on another move counts again."""
    for name in ("knuth", "entropy"):
        client.post(f"/games/{game.id}/suggestion", data={"strategy": name}, headers=HX)
    client.post(f"/games/{game.id}/guesses", data={"guess": "3456", "move": "2"})
    client.post(f"/games/{game.id}/suggestion", data={"strategy": "knuth"}, headers=HX)
    client.post(f"/games/{game.id}/guesses", data={"guess": "6543", "move": "3"})
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "Hints shown on 2 moves." in html
    resp = client.post(f"/games/{game.id}/suggestion", data={"strategy": "knuth"})
    assert resp.status_code == 409


def test_a_shown_hint_is_stored_not_recomputed(client, app, game, monkeypatch):
    client.post(f"/games/{game.id}/suggestion", data={"strategy": "entropy"})
    first = client.get(f"/games/{game.id}").get_data(as_text=True)
    from webapp.web import hints

    def refuse(*args, **kwargs):
        raise AssertionError("the hint was worked out again")

    monkeypatch.setattr(hints, "best_guess", refuse)
    again = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert suggested(again) == suggested(first)
    # Without JavaScript the hint also fills the guess field.
    assert f'value="{suggested(first)}"' in again


def test_unknown_strategy_is_a_clear_400(client, game):
    resp = client.post(f"/games/{game.id}/suggestion", data={"strategy": "psychic"}, headers=HX)
    assert resp.status_code == 400
    assert "Unknown strategy" in resp.get_data(as_text=True)


def wait_for_suggestion(client, game, seconds=60):
    """Poll the suggestion panel, as the page does, until the guess is there."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        panel = client.get(f"/games/{game.id}/suggestion", headers=HX).get_data(as_text=True)
        if 'class="suggested-code"' in panel:
            return panel
        assert 'id="hint-job"' in panel
        time.sleep(0.1)
    raise AssertionError("the suggestion never arrived")


def test_slow_hint_runs_in_the_background(tmp_path):
    """A suggestion that would score more than a request may answers at once
    with its progress; the background job's result then shows on the board."""
    from webapp import create_app

    # No consumer until the waiting answer is seen, however fast the machine.
    app = create_app(
        {
            "DATABASE": str(tmp_path / "db.sqlite3"),
            "REQUEST_BUDGET": 1000,
            "JOBS_CONSUMER": "none",
            "JOBS_PERIODIC": False,
        }
    )
    client = app.test_client()
    size = GameSize(5, 8)
    with app.app_context():
        game = store.games.create_game(size, 12, Code.parse("12345", size))
        play_guess(game.id, Code.parse("11223", size))
    resp = client.post(f"/games/{game.id}/suggestion", data={"strategy": "knuth"}, headers=HX)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and 'id="hint-job"' in html and "searching for its guess" in html
    app.extensions["jobs"].start(1)
    expected = best_guess(
        "knuth", size, [(Code.parse("11223", size), feedback(Code.parse("11223", size), Code.parse("12345", size)))]
    )
    assert suggested(wait_for_suggestion(client, game)) == str(expected.guess)
    assert suggested(client.get(f"/games/{game.id}").get_data(as_text=True)) == str(expected.guess)
    app.extensions["jobs"].stop()


@pytest.fixture
def waiting_app(db_config):
    """No job consumer until a test starts one: a background job is always
    seen waiting first, however fast the machine."""
    from webapp import create_app

    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none", "JOBS_PERIODIC": False})
    yield app
    app.extensions["jobs"].stop()
    app.extensions["live"].stop()
    app.extensions["store"].close()


def test_optimal_offered_where_it_answers(waiting_app):
    app, client = waiting_app, waiting_app.test_client()
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("6543", GameSize()))
        play_guess(game.id, Code.parse("1122", GameSize()))
    html = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert '<option value="optimal"' in html and '<option value="optimal-5"' in html
    resp = client.post(f"/games/{game.id}/suggestion", data={"strategy": "optimal"}, headers=HX)
    # After 1122 the game is off the shipped tree: the exact search runs in
    # the background and the request answers at once.
    assert resp.status_code == 200 and 'id="hint-job"' in resp.get_data(as_text=True)
    app.extensions["jobs"].start(1)
    expected = best_guess("optimal", GameSize(), [(Code.parse("1122", GameSize()), Feedback(0, 0))])
    assert suggested(wait_for_suggestion(client, game)) == str(expected.guess)
    with app.app_context():
        big = store.games.create_game(GameSize(5, 8), 12)
    html = client.get(f"/games/{big.id}").get_data(as_text=True)
    assert '<option value="knuth"' in html and '<option value="optimal"' not in html
    resp = client.post(f"/games/{big.id}/suggestion", data={"strategy": "optimal"}, headers=HX)
    assert resp.status_code == 400 and "computed on demand up to" in resp.get_data(as_text=True)
