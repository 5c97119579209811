"""Hard mode: every guess must fit every reply so far. A guess that could not
be the secret is refused with 422 and a sentence naming the earlier guess
and reply it contradicts; nothing is stored."""

import random
import re

import pytest

from webapp import store
from webapp.engine import Code, GameSize, candidates, feedback
from webapp.engine.codes import secret_indices

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def hard_game(app, size: GameSize, secret: str) -> store.games.Game:
    with app.app_context():
        return store.games.create_game(size, 10, Code.parse(secret, size), hard=True)


def test_an_inconsistent_guess_is_refused_with_the_reason(client, app):
    size = GameSize()
    game = hard_game(app, size, "1234")
    first = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1122"}).get_json()
    assert first["hard"] is True and len(first["guesses"]) == 1
    got = feedback(Code.parse("1122", size), Code.parse("1234", size))
    would = feedback(Code.parse("1122", size), Code.parse("3345", size))
    assert got != would
    refused = client.post(f"/api/games/{game.id}/guesses", json={"guess": "3345", "move": 2})
    assert refused.status_code == 422
    assert refused.get_json()["error"] == (
        f"3345 cannot be the secret: 1122 got {got.describe()}, and 3345 would get {would.describe()}."
    )
    assert len(client.get(f"/api/games/{game.id}").get_json()["guesses"]) == 1  # nothing stored
    fits = next(
        Code.from_index(int(i), size) for i in candidates(size, [(Code.parse("1122", size), got)]) if int(i) != 0
    )
    accepted = client.post(f"/api/games/{game.id}/guesses", json={"guess": str(fits), "move": 2})
    assert accepted.status_code == 200 and len(accepted.get_json()["guesses"]) == 2


def test_accepted_exactly_when_the_guess_could_be_the_secret(client, app):
    """On 3 pegs and 4 colours, after a history of two consistent guesses,
    every one of the 64 codes is tried: accepted if and only if it is still
    a candidate."""
    size = GameSize(3, 4)
    rng = random.Random(17)
    codes = [Code.from_index(int(i), size) for i in secret_indices(size)]
    for secret in rng.sample(codes, 2):
        history = []
        for _ in range(2):
            possible = [Code.from_index(int(i), size) for i in candidates(size, history)]
            guess = rng.choice(possible)
            history.append((guess, feedback(guess, secret)))
            if guess == secret:
                break
        if history[-1][0] == secret:
            continue
        still = {int(i) for i in candidates(size, history)}
        for code in codes:
            game = hard_game(app, size, str(secret))
            for guess, _ in history:
                assert client.post(f"/api/games/{game.id}/guesses", json={"guess": str(guess)}).status_code == 200
            resp = client.post(f"/api/games/{game.id}/guesses", json={"guess": str(code)})
            assert resp.status_code == (200 if code.index(size) in still else 422), (str(secret), str(code))


def test_an_ordinary_game_takes_any_guess(client):
    game = client.post("/api/games", json={}).get_json()
    assert game["hard"] is False
    for guess in ("1111", "1111", "6666"):
        assert client.post(f"/api/games/{game['id']}/guesses", json={"guess": guess}).status_code == 200


def test_the_board_form_and_the_share_text(client, app):
    resp = client.post("/games", data={"pegs": "4", "colors": "6", "max_guesses": "10", "hard": "1"})
    assert resp.status_code == 303
    board = resp.headers["Location"]
    game_id = board.rsplit("/", 1)[1]
    with app.app_context():
        secret = store.games.load_game(game_id).secret
        assert store.games.load_game(game_id).hard
    html = client.get(board).get_data(as_text=True)
    assert "hard mode" in html
    first = "1122" if str(secret) != "1122" else "3456"
    client.post(board + "/guesses", data={"guess": first, "move": "1"})
    got = feedback(Code.parse(first, GameSize()), secret)
    wrong = next(
        c
        for c in (Code.from_index(i, GameSize()) for i in range(1296))
        if feedback(Code.parse(first, GameSize()), c) != got
    )
    refused = client.post(board + "/guesses", data={"guess": str(wrong), "move": "2"}, headers={"HX-Request": "true"})
    assert refused.status_code == 422 and f"{wrong} cannot be the secret" in refused.get_data(as_text=True)
    won = client.post(board + "/guesses", data={"guess": str(secret), "move": "2"})
    assert won.status_code == 303
    page = client.get(board).get_data(as_text=True)
    assert "(hard mode)" in page and "in hard mode" in page  # share text and its description


@pytest.mark.parametrize("body", [{"hard": "yes"}, {"hard": 1}, {"hard": None}])
def test_hard_must_be_true_or_false(client, body):
    resp = client.post("/api/games", json=body)
    assert resp.status_code == 400 and '"hard" must be true or false' in resp.get_json()["error"]


def test_the_form_flag_must_be_on_or_off(client):
    resp = client.post("/games", data={"pegs": "4", "colors": "6", "hard": "maybe"})
    assert resp.status_code == 400 and "hard mode" in resp.get_data(as_text=True)


def test_every_hint_offered_in_hard_mode_is_a_guess_hard_mode_takes(client, app):
    """After 1122 gets 1 black and 1 white, Knuth's own choice (1134) could
    not be the secret. In hard mode each strategy the board offers chooses
    among the codes still possible, and its hint is accepted when played;
    optimal play, which chooses among every code, is not offered and is
    refused with a sentence."""
    size = GameSize()
    opening = Code.parse("1122", size)
    still = {int(i) for i in candidates(size, [(opening, feedback(opening, Code.parse("1341", size)))])}
    page = client.get(f"/games/{hard_game(app, size, '1341').id}").get_data(as_text=True)
    offered = re.findall(r'<option value="([\w-]+)"', page[page.index('id="strategy-select"') :])
    assert "knuth" in offered and "entropy" in offered and "optimal" not in offered
    for name in offered:
        game = hard_game(app, size, "1341")
        client.post(f"/api/games/{game.id}/guesses", json={"guess": "1122"})
        hinted = client.post(f"/games/{game.id}/suggestion", data={"strategy": name}, headers={"HX-Request": "true"})
        assert hinted.status_code == 200, name
        guess = re.search(r'class="suggested-code">(\d+)<', hinted.get_data(as_text=True))[1]
        assert Code.parse(guess, size).index(size) in still, name
        played = client.post(f"/api/games/{game.id}/guesses", json={"guess": guess, "move": 2})
        assert played.status_code == 200, name
    game = hard_game(app, size, "1341")
    refused = client.post(f"/games/{game.id}/suggestion", data={"strategy": "optimal"})
    assert refused.status_code == 400 and "in hard mode every guess must fit" in refused.get_data(as_text=True)


def test_play_again_after_a_hard_game_is_hard_again(client, app):
    game = hard_game(app, GameSize(), "1341")
    client.post(f"/api/games/{game.id}/guesses", json={"guess": "1341"})
    board = client.get(f"/games/{game.id}").get_data(as_text=True)
    again = board[board.index('class="again"') : board.index("</form>", board.index('class="again"'))]
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', again))
    started = client.post("/games", data=fields)
    assert started.status_code == 303
    new_id = started.headers["Location"].rstrip("/").split("/")[-1]
    assert new_id != game.id and client.get(f"/api/games/{new_id}").get_json()["hard"] is True
