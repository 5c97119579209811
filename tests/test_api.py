"""The JSON API, including a bot that plays hundreds of games."""

from collections import Counter

import pytest

from webapp import store
from webapp.engine import Code, Feedback, GameSize, best_guess

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_create_with_defaults(client):
    resp = client.post("/api/games")
    assert resp.status_code == 201
    data = resp.get_json()
    assert {k: data[k] for k in ("pegs", "colors", "max_guesses", "distinct", "status", "guesses")} == {
        "pegs": 4,
        "colors": 6,
        "max_guesses": 10,
        "distinct": False,
        "status": "playing",
        "guesses": [],
    }
    assert "secret" not in data
    assert data["url"] == f"/games/{data['id']}"


def test_create_custom_and_fetch(client):
    data = client.post("/api/games", json={"pegs": 5, "colors": 8, "max_guesses": 12}).get_json()
    again = client.get(f"/api/games/{data['id']}")
    assert again.status_code == 200 and again.get_json() == data


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"pegs": 99}, 400, "Pegs must be from 2 to 6, not 99."),
        ({"colors": 1}, 400, "Colours must be from 2 to 10"),
        ({"pegs": "4"}, 400, "Pegs must be a whole number from 2 to 6"),
        ({"pegs": 4.5}, 400, "Pegs must be a whole number from 2 to 6"),
        ({"max_guesses": 0}, 400, "Guesses allowed must be from 1 to 30, not 0."),
        ({"distinct": "yes"}, 400, "true or false"),
        ({"hard": None}, 400, "true or false"),
        ({"pegs": 5, "colors": 4, "distinct": True}, 422, "at least 5 colours"),
        ([1, 2], 400, "object"),
    ],
)
def test_create_rejects_bad_settings(client, body, status, words):
    """400 for a body the document does not allow, 422 for one it allows
    that the game's rules refuse."""
    resp = client.post("/api/games", json=body)
    assert resp.status_code == status
    assert words in resp.get_json()["error"]


def test_bad_json_and_oversized_body(client):
    resp = client.post("/api/games", data="{nope", content_type="application/json")
    assert resp.status_code == 400 and "not valid JSON" in resp.get_json()["error"]
    resp = client.post("/api/games", data="[" + "1," * 20000 + "1]", content_type="application/json")
    assert resp.status_code == 413 and "too large" in resp.get_json()["error"]


@pytest.fixture
def game(app):
    with app.app_context():
        return store.games.create_game(GameSize(), 3, Code.parse("1234", GameSize()))


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"guess": "112"}, 422, "has 3"),
        ({"guess": "1172"}, 422, "Colour 7"),
        ({"guess": 1122}, 400, "digits"),
        ({"guess": None}, 400, "digits"),
        ({"guess": "abcd"}, 422, "are not colours"),
        ({"guess": "12a4"}, 422, "is not a colour"),
        ({"guess": "11\u202e22\u0000"}, 422, "'U+0000', 'U+202E' are not colours"),  # shown, not acted on
        ({}, 400, "Send the guess"),
        ({"guess": "1122", "move": "1"}, 400, "move"),
        ({"guess": "1122", "move": " 1 "}, 400, "move"),
        ({"guess": "1122", "move": None}, 400, "move"),
        ({"guess": "1122", "move": True}, 400, "move"),
        ({"guess": "1122", "move": 31}, 400, "move"),  # past any game's last move
        ({"guess": "1122", "move": 1e308}, 400, "move"),
        ({"guess": "x" * 5000}, 400, "digits"),
    ],
)
def test_guess_rejects_bad_input_and_changes_nothing(client, game, body, status, words):
    resp = client.post(f"/api/games/{game.id}/guesses", json=body)
    assert resp.status_code == status
    assert words in resp.get_json()["error"]
    assert client.get(f"/api/games/{game.id}").get_json()["guesses"] == []


def test_guess_needs_a_body(client, game):
    resp = client.post(f"/api/games/{game.id}/guesses")
    assert resp.status_code == 400 and "JSON object" in resp.get_json()["error"]


def test_unknown_game(client):
    assert client.get("/api/games/nope").status_code == 404
    resp = client.post("/api/games/nope/guesses", json={"guess": "1122"})
    assert resp.status_code == 404 and "no game" in resp.get_json()["error"]


def test_finished_game_takes_no_guess(client, game):
    for guess in ("1111", "2222", "3333"):
        data = client.post(f"/api/games/{game.id}/guesses", json={"guess": guess}).get_json()
    assert data["status"] == "lost" and data["secret"] == "1234"
    resp = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1234"})
    assert resp.status_code == 409 and "over" in resp.get_json()["error"]
    assert len(client.get(f"/api/games/{game.id}").get_json()["guesses"]) == 3


def test_stale_move_number(client, game):
    client.post(f"/api/games/{game.id}/guesses", json={"guess": "1111", "move": 1})
    resp = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1111", "move": 1})
    assert resp.status_code == 409 and "already recorded" in resp.get_json()["error"]


def test_wrong_method_is_json(client):
    resp = client.delete("/api/games")
    assert resp.status_code == 405 and "error" in resp.get_json()


def independent_feedback(guess: str, secret: str):
    black = sum(a == b for a, b in zip(guess, secret))
    common = sum((Counter(guess) & Counter(secret)).values())
    return black, common - black


def test_knuth_bot_wins_every_game_in_five(client, backend):
    """150 classic games through the API with Knuth's rule (50 on the
    PostgreSQL run, which checks the same code on the other database; that
    Knuth's rule wins every one of the 1,296 games in five is the engine's
    test); every
    reply checked against an independent implementation once the secret is
    revealed."""
    size = GameSize()
    for _ in range(150 if backend == "sqlite" else 50):
        game = client.post("/api/games", json={}).get_json()
        history = []
        while game["status"] == "playing":
            guess = best_guess("knuth", size, history).guess
            game = client.post(
                f"/api/games/{game['id']}/guesses", json={"guess": str(guess), "move": len(history) + 1}
            ).get_json()
            row = game["guesses"][-1]
            history.append((guess, Feedback(row["black"], row["white"])))
            if game["status"] == "playing":
                assert "secret" not in game
        assert game["status"] == "won"
        assert len(game["guesses"]) <= 5
        for row in game["guesses"]:
            assert (row["black"], row["white"]) == independent_feedback(row["guess"], game["secret"])
