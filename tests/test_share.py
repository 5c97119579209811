"""Replay links and share texts: self-contained, checked, and spoiler-free."""

import re

import pytest

from webapp import create_app, store
from webapp.engine import Code, GameSize, best_guess, candidates, feedback
from webapp.engine.codes import conceal
from webapp.web.sharing import EMOJI

SIZE = GameSize()
HX = {"HX-Request": "true"}


def text(resp):
    return resp.get_data(as_text=True)


def finished_game(app, client, secret, guesses, limit=10, size=SIZE):
    with app.app_context():
        game = store.games.create_game(size, limit, Code.parse(secret, size))
    for guess in guesses:
        data = client.post(f"/api/games/{game.id}/guesses", json={"guess": guess}).get_json()
    return data


def test_replay_url_only_once_finished(app, client):
    with app.app_context():
        game = store.games.create_game(SIZE, 10, Code.parse("3632", SIZE))
    data = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1122"}).get_json()
    assert "replay_url" not in data
    data = client.post(f"/api/games/{game.id}/guesses", json={"guess": "3632"}).get_json()
    # The winning guess is the secret: the link leaves it out, and spoils nothing.
    assert data["replay_url"] == f"/replay/4x6/{conceal(Code.parse('3632', SIZE), SIZE)}?g=1122"
    assert "3632" not in data["replay_url"]


def test_replay_works_on_an_empty_server(app, client, tmp_path):
    data = finished_game(app, client, "3632", ["1122", "1344", "3526", "3632"])
    empty = create_app({"DATABASE": str(tmp_path / "empty.sqlite3"), "TESTING": True})
    try:
        html = text(empty.test_client().get(data["replay_url"] + "&step=4"))
    finally:
        empty.extensions["jobs"].stop()
    rows = re.findall(r'data-guess="(\d+)" data-black="(\d)" data-white="(\d)" data-before="(\d+)"', html)
    history = []
    for (guess, black, white, before), played in zip(rows, ["1122", "1344", "3526", "3632"]):
        code = Code.parse(played, SIZE)
        reply = feedback(code, Code.parse("3632", SIZE))
        assert guess == played and (int(black), int(white)) == (reply.black, reply.white)
        assert int(before) == len(candidates(SIZE, history))
        history.append((code, reply))
    assert len(rows) == 4
    assert '<span class="secret-text">3632</span>' in html and "You vs Knuth" in html


def test_replay_shows_knuth_beside_each_move(app, client):
    data = finished_game(app, client, "3632", ["1234", "5566", "3632"])
    html = text(client.get(data["replay_url"] + "&step=3"))
    knuth = re.findall(r'class="code-text knuth-guess">(\d+)<', html)
    history = []
    expected = []
    for played in ["1234", "5566", "3632"]:
        s = best_guess("knuth", SIZE, history)
        expected.append(str(s.guess))
        code = Code.parse(played, SIZE)
        history.append((code, feedback(code, Code.parse("3632", SIZE))))
    assert knuth == expected
    assert "leaving at most 256 codes" in html  # Knuth's 1122 at the start
    notes = re.findall(r"this guess (could|could not) have been the secret", html)
    history = []
    for note, played in zip(notes, ["1234", "5566", "3632"]):
        code = Code.parse(played, SIZE)
        assert (note == "could") == (code.index(SIZE) in candidates(SIZE, history))
        history.append((code, feedback(code, Code.parse("3632", SIZE))))


def test_won_in_one(app, client):
    data = finished_game(app, client, "3632", ["3632"])
    assert data["replay_url"].endswith("?g=")
    html = text(client.get(data["replay_url"] + "&step=1"))
    assert "Solved in 1 guess." in html and '<span class="secret-text">3632</span>' in html


def test_replay_steps_and_fragment(app, client):
    data = finished_game(app, client, "3632", ["1122", "3632"])
    start = text(client.get(data["replay_url"]))
    assert 'data-step="0"' in start and "You vs Knuth" not in start
    assert 'class="secret-text"' not in start
    resp = client.get(data["replay_url"] + "&step=1", headers=HX)
    assert text(resp).lstrip().startswith('<section id="replay"') and 'data-step="1"' in text(resp)
    assert "Move 1: 1122 got" in text(resp)


def test_lost_game_replay_and_share_text(app, client):
    data = finished_game(app, client, "3632", ["1111", "2222"], limit=2)
    assert data["status"] == "lost"
    html = text(client.get(data["replay_url"] + "&step=2"))
    assert "not solved" in html
    board = text(client.get(data["url"]))
    share = re.search(r'<textarea id="share-text"[^>]*>(.*?)</textarea>', board, re.S)[1]
    lines = share.strip().split("\n")
    assert lines[0] == "Mastermind 4×6 X/2"
    assert lines[1] == EMOJI["none"] * 4  # 1111 against 3632
    assert lines[2] == EMOJI["black"] + EMOJI["none"] * 3  # 2222: one black
    assert lines[3].startswith("http") and "/replay/4x6/" in lines[3]
    assert "3632" not in share


def test_share_text_of_a_win(app, client):
    data = finished_game(app, client, "3632", ["1122", "1344", "3526", "3632"])
    board = text(client.get(data["url"]))
    share = re.search(r'<textarea id="share-text"[^>]*>(.*?)</textarea>', board, re.S)[1].split("\n")
    assert share[0] == "Mastermind 4×6 4/10"
    for line, guess in zip(share[1:5], ["1122", "1344", "3526", "3632"]):
        reply = feedback(Code.parse(guess, SIZE), Code.parse("3632", SIZE))
        assert line.count(EMOJI["black"]) == reply.black and line.count(EMOJI["white"]) == reply.white
    assert 'id="share-words"' in board and "solved in 4 of 10 guesses" in board


@pytest.mark.parametrize(
    "url,words",
    [
        ("/replay/4x6/{s}?g=112.3632", "A code has 4 pegs"),
        ("/replay/4x6/{s}?g=1172.3632", "Colour 7 is not in this game"),
        ("/replay/7x6/{s}?g=1122", "Pegs must be from 2 to 6"),
        ("/replay/four/{s}?g=1122", "is not a game size"),
        ("/replay/4x6/{s}?g=" + ".".join(["1111"] * 11), "more than the 10 allowed"),
        ("/replay/4x6/{s}?g=3632.1122", "already found the secret"),
        ("/replay/4x6/QQ?g=1122", "damaged"),
        ("/replay/4x6/{s}?g=1122&step=9", "from 0 to 2"),
        ("/replay/4x6/{s}?g=1122&l=99", "limit must be from 1 to 30"),
        ("/replay/4x6/{s}?g=1111.2222&l=1", "more than the 1 allowed"),
        ("/replay/4x6d/{s}?g=1122", "is not a code of this size|repeats a colour"),
    ],
)
def test_mangled_links(client, url, words):
    resp = client.get(url.format(s=conceal(Code.parse("3632", SIZE), SIZE)))
    assert resp.status_code == 400
    assert re.search(words, text(resp))


def test_open_graph_tags_without_the_secret(app, client):
    data = finished_game(app, client, "3632", ["1122", "3632"])
    html = text(client.get(data["replay_url"]))
    head = html[: html.index("</head>")]
    assert 'property="og:title"' in head and 'name="twitter:card"' in head
    assert "3632" not in head
