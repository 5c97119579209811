"""Challenges: one secret, many players, and a private results page."""

import re
import threading

import pytest
from werkzeug.serving import make_server

from webapp.engine import Code, GameSize, analyse, best_guess, feedback

SIZE = GameSize()

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def text(resp):
    return resp.get_data(as_text=True)


@pytest.fixture
def challenge(client):
    resp = client.post("/api/challenges", json={"pegs": 4, "colors": 6, "secret": "5241"})
    assert resp.status_code == 201
    return resp.get_json()


def play(client, game_id, guesses):
    for guess in guesses:
        data = client.post(f"/api/games/{game_id}/guesses", json={"guess": guess}).get_json()
    return data


def test_secret_stays_hidden_until_each_game_ends(client, challenge):
    assert set(challenge) == {"id", "url", "results_url", "results_page"}
    for url in (challenge["url"], challenge["results_page"], challenge["results_url"]):
        assert "5241" not in text(client.get(url))
    ann = client.post(f"/api/challenges/{challenge['id']}/games", json={"name": "Ann"})
    assert ann.status_code == 201 and "secret" not in ann.get_json()
    game = ann.get_json()
    board = text(client.get(game["url"]))
    assert "5241" not in board
    done = play(client, game["id"], ["1122", "5241"])
    assert done["status"] == "won" and done["secret"] == "5241"
    # Bob's game is still on: nothing Bob can read shows the secret.
    bob = client.post(f"/api/challenges/{challenge['id']}/games", json={}).get_json()
    assert "5241" not in text(client.get(bob["url"]))
    assert "5241" not in text(client.get(challenge["url"]))


def test_results_list_each_player(client, challenge):
    ids = []
    for name, guesses in (("Ann", ["1122", "5241"]), ("", ["1111"] * 10), ("Cy", ["1234"])):
        game = client.post(f"/api/challenges/{challenge['id']}/games", json={"name": name}).get_json()
        play(client, game["id"], guesses)
        ids.append(game["id"])
    data = client.get(challenge["results_url"]).get_json()
    players = data["players"]
    assert [(p["name"], p["status"], p["guesses"]) for p in players] == [
        ("Ann", "won", 2),
        ("anonymous", "lost", 10),
        ("Cy", "playing", 1),
    ]
    assert players[0]["replay_url"].startswith("/replay/4x6/") and players[2]["replay_url"] is None
    knuth = analyse("knuth", SIZE)
    assert data["benchmarks"]["knuth"] == knuth.depths[Code.parse("5241", SIZE).index(SIZE)]
    assert data["benchmarks"]["optimal"] == analyse("optimal", SIZE).depths[Code.parse("5241", SIZE).index(SIZE)]
    page = text(client.get(challenge["results_page"]))
    assert "3 players: 2 finished, 1 still playing" in page
    knuth_needs = data["benchmarks"]["knuth"]
    assert f'<span data-strategy="knuth">Knuth needs {knuth_needs} guesses</span>' in page  # named for people
    assert '<span data-strategy="optimal">Optimal needs' in page
    assert '<th scope="row">anonymous</th>' in page
    german = text(client.get(challenge["results_page"], headers={"Accept-Language": "de"}))
    assert '<th scope="row">anonym</th>' in german  # the page's word; the API keeps "anonymous"
    assert "2 fertig, 1 spielt noch" in german
    assert 'hx-trigger="every 3s"' in page and "<svg" in page
    fragment = text(client.get(challenge["results_page"], headers={"HX-Request": "true"}))
    assert fragment.lstrip().startswith('<section id="challenge-results"')


def test_wrong_results_key_is_not_found(client, challenge):
    bad = challenge["results_url"][:-3] + "xyz"
    assert client.get(bad).status_code == 404
    assert client.get(challenge["results_page"][:-3] + "xyz").status_code == 404
    assert client.get("/c/nope").status_code == 404


@pytest.mark.parametrize(
    "body,status,words",
    [
        ({"secret": "1279"}, 422, "Colours 7, 9 are not in this game"),
        ({"secret": "12"}, 422, "A code has 4 pegs"),
        ({"secret": 1234}, 400, "written as digits"),
        ({"secret": None}, 400, "written as digits"),
        ({"pegs": 9}, 400, "Pegs must be from 2 to 6"),
        ({"secret": "1123", "distinct": True}, 422, "different colours"),
        ({"max_guesses": 0}, 400, "Guesses allowed must be from 1 to 30"),
    ],
)
def test_bad_challenges(client, body, status, words):
    resp = client.post("/api/challenges", json=body)
    assert resp.status_code == status and words in resp.get_json()["error"]


def test_form_flow_and_share_text(client):
    resp = client.post("/challenges", data={"pegs": "4", "colors": "6", "max_guesses": "8", "secret": "6612"})
    assert resp.status_code == 303
    results_page = resp.headers["Location"]
    page = text(client.get(results_page))
    link = re.search(r'id="challenge-link">([^<]+)<', page)[1]
    challenge_path = link.split("localhost", 1)[1]
    assert "6612" not in page
    resp = client.post(challenge_path + "/games", data={"name": "Dana"})
    assert resp.status_code == 303
    board_url = resp.headers["Location"]
    game_id = board_url.rsplit("/", 1)[1]
    play(client, game_id, ["1122", "6612"])
    board = text(client.get(board_url))
    share = re.search(r'<textarea id="share-text"[^>]*>(.*?)</textarea>', board, re.S)[1]
    assert share.splitlines()[0] == "Mastermind 4×6 2/8"
    assert share.splitlines()[-1].endswith(challenge_path)  # friends get the challenge, not the replay
    assert "Dana" in text(client.get(results_page))
    bad = client.post("/challenges", data={"secret": "9999"})
    assert bad.status_code == 400 and "9999" not in text(bad)
    long_name = client.post(challenge_path + "/games", data={"name": "x" * 41})
    assert long_name.status_code == 400 and "at most 40 characters" in text(long_name)


def test_thirty_players_at_once(app, challenge):
    """Thirty players on a real threaded server, each playing Knuth's game to
    the end at the same time: every result is recorded, right."""
    import http.client
    import json

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_port
    errors = []

    def player(number):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

            def post(path, body):
                conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
                resp = conn.getresponse()
                return resp.status, json.loads(resp.read())

            status, game = post(f"/api/challenges/{challenge['id']}/games", {"name": f"p{number}"})
            assert status == 201
            history = []
            while game["status"] == "playing":
                guess = best_guess("knuth", SIZE, history).guess
                status, game = post(f"/api/games/{game['id']}/guesses", {"guess": str(guess)})
                assert status == 200
                history.append((guess, feedback(guess, Code.parse("5241", SIZE))))
        except Exception as exc:  # collected and reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=player, args=(n,)) for n in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    server.shutdown()
    assert not errors
    from webapp import store

    with app.app_context():
        players = store.challenges.challenge_players(store.challenges.load_challenge(challenge["id"]))
    depth = int(analyse("knuth", SIZE).depths[Code.parse("5241", SIZE).index(SIZE)])
    assert len(players) == 30
    assert all(p.status == "won" and len(p.guesses) == depth for p in players)


def test_one_counted_game_per_player(client, challenge):
    """Losing a throwaway game, reading the secret and joining again to "win
    in 1" does not work: the same player token gets its game in progress
    back, and after it ended a practice game the results never count."""
    join = f"/api/challenges/{challenge['id']}/games"
    first = client.post(join, json={"name": "Eve"})
    assert first.status_code == 201
    eve = first.get_json()
    assert eve["counted"] is True and len(eve["player"]) >= 16
    again = client.post(join, json={"name": "Eve", "player": eve["player"]})
    assert again.status_code == 200 and again.get_json()["id"] == eve["id"]  # the same game, still on
    lost = play(client, eve["id"], ["1111"] * 10)
    assert lost["status"] == "lost" and lost["secret"] == "5241"
    retry = client.post(join, json={"name": "Eve", "player": eve["player"]})
    assert retry.status_code == 201 and retry.get_json()["counted"] is False
    assert play(client, retry.get_json()["id"], ["5241"])["status"] == "won"
    players = client.get(challenge["results_url"]).get_json()["players"]
    assert [(p["name"], p["status"], p["guesses"]) for p in players] == [("Eve", "lost", 10)]
    page = text(client.get(challenge["results_page"]))
    assert "1 player: 1 finished" in page and "practice" in page


def test_the_browser_cookie_ties_page_games(client, challenge):
    page = f"/c/{challenge['id']}/games"
    first = client.post(page, data={"name": "Flo"})
    assert first.status_code == 303
    cookie = first.headers["Set-Cookie"]
    assert "player=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    again = client.post(page, data={"name": "Flo"})
    assert again.headers["Location"] == first.headers["Location"]  # the game in progress
    fresh = client.application.test_client()  # another browser: its own game
    assert fresh.post(page, data={"name": "Gus"}).headers["Location"] != first.headers["Location"]


@pytest.mark.parametrize(
    "name,status,kept",
    [
        (["Ann"], 400, None),
        ({"n": 1}, 400, None),
        (7, 400, None),
        (True, 400, None),
        ("An\u202en", 201, "Ann"),
        ("A\x00n\x1bn", 201, "Ann"),
        ("  Ann \u2066 ", 201, "Ann"),
    ],
)
def test_names_are_plain_text(client, challenge, name, status, kept):
    resp = client.post(f"/api/challenges/{challenge['id']}/games", json={"name": name})
    assert resp.status_code == status
    if kept is not None:
        players = client.get(challenge["results_url"]).get_json()["players"]
        assert players[-1]["name"] == kept
    else:
        assert "name" in resp.get_json()["error"].lower()


@pytest.mark.parametrize("player", [5, "short", "x" * 65, "bad token!", ["a" * 20]])
def test_player_must_be_a_token(client, challenge, player):
    resp = client.post(f"/api/challenges/{challenge['id']}/games", json={"player": player})
    assert resp.status_code == 400 and "player" in resp.get_json()["error"]


def test_a_watched_challenge_game_keeps_its_secret_behind_a_warning(client):
    """Friends still play the challenge's secret: its watch page shows a lost
    game's secret only when asked, and links to the challenge, not a replay."""
    created = client.post("/api/challenges", json={"secret": "6543", "max_guesses": 2}).get_json()
    game = client.post(f"/api/challenges/{created['id']}/games", json={"name": "ann"}).get_json()
    for _ in range(2):
        answer = client.post(f"/api/games/{game['id']}/guesses", json={"guess": "1111"}).get_json()
    assert answer["status"] == "lost"
    html = client.get(answer["watch_url"]).get_data(as_text=True)
    shown, hidden = html.split('<details class="spoiler">', 1)
    assert "6543" not in shown.split("<main", 1)[1]
    assert '<span class="secret-text">6543</span>' in hidden.split("</details>", 1)[0]
    assert "/replay/" not in html and f'href="/c/{created["id"]}"' in html
    won = client.post(f"/api/challenges/{created['id']}/games", json={"name": "bob"}).get_json()
    answer = client.post(f"/api/games/{won['id']}/guesses", json={"guess": "6543"}).get_json()
    html = client.get(answer["watch_url"]).get_data(as_text=True)
    shown, hidden = html.split('<details class="spoiler">', 1)  # the last row is the secret: asked for too
    assert "/replay/" not in html and "6543" not in shown.split("<main", 1)[1] and 'data-guess="6543"' in hidden


def test_a_secret_with_a_colour_twice_is_refused_where_secrets_differ(client):
    """The same engine check and sentence wherever a person types a secret."""
    words = "This game's secret uses different colours: no colour twice."
    refused = client.post("/api/challenges", json={"secret": "1123", "distinct": True})
    assert refused.status_code == 422 and refused.get_json()["error"] == words
    classroom = client.post("/solver/classroom", data={"pegs": "4", "colors": "6", "distinct": "1", "secret": "1123"})
    assert classroom.status_code == 400 and words.replace("'", "&#39;") in classroom.get_data(as_text=True)
    live = client.post(
        "/api/live", json={"pegs": 4, "colors": 6, "distinct": True, "source": "teacher", "secret": "1123"}
    )
    assert live.status_code == 422 and live.get_json()["error"] == words
    assert client.post("/api/challenges", json={"secret": "1123"}).status_code == 201  # colours may repeat here
