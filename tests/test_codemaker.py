"""The computer as codebreaker: honest answers, impossible ones, undo."""

import random

import pytest

from webapp.engine import Code, GameSize, analyse, feedback
from webapp.engine.codes import secret_indices

HX = {"HX-Request": "true"}


def text(resp):
    return resp.get_data(as_text=True)


def play_honestly(client, size, secret, strategy="knuth"):
    body = {"pegs": size.pegs, "colors": size.colors, "distinct": size.distinct, "strategy": strategy}
    state = client.post("/api/codemaker", json=body).get_json()
    guesses = 0
    while state["status"] == "guessing":
        reply = feedback(Code.parse(state["guess"], size), secret)
        state = client.post(f"/api/codemaker/{state['id']}/feedback",
                            json={"black": reply.black, "white": reply.white}).get_json()
        guesses += 1
    return state, guesses


@pytest.mark.parametrize("size,strategy", [(GameSize(3, 4), "knuth"), (GameSize(3, 4), "entropy"),
                                           (GameSize(3, 5, True), "knuth")])
def test_every_secret_found_as_the_tree_says(client, size, strategy):
    depths = analyse(strategy, size).depths
    for index, depth in zip(secret_indices(size), depths):
        secret = Code.from_index(int(index), size)
        state, guesses = play_honestly(client, size, secret, strategy)
        assert state["status"] == "solved" and state["history"][-1]["guess"] == str(secret)
        assert guesses == depth


def test_classic_never_needs_more_than_knuths_worst_case(client):
    size = GameSize()
    worst = analyse("knuth", size).max
    for index in random.Random(7).sample(range(size.n_codes), 25):
        state, guesses = play_honestly(client, size, Code.from_index(index, size))
        assert state["status"] == "solved" and guesses <= worst


def test_contradiction_is_explained_and_changes_nothing(client):
    state = client.post("/api/codemaker", json={}).get_json()
    gid = state["id"]
    state = client.post(f"/api/codemaker/{gid}/feedback", json={"black": 1, "white": 0}).get_json()
    second = state["guess"]
    # A reply to the second guess that no code left can give, found by the engine.
    from webapp.engine import candidates
    from webapp.engine.codes import parse_history
    size = GameSize()
    history = parse_history("1122:1,0", size)
    possible = {feedback(Code.parse(second, size), Code.from_index(int(i), size)) for i in candidates(size, history)}
    impossible = next((b, w) for b in range(5) for w in range(5 - b)
                      if (b, w) != (3, 1) and (b, w) not in {(r.black, r.white) for r in possible})
    resp = client.post(f"/api/codemaker/{gid}/feedback", json={"black": impossible[0], "white": impossible[1]})
    assert resp.status_code == 400
    assert f"No code gives 1122 → 1,0, {second} → {impossible[0]},{impossible[1]} together" in resp.get_json()["error"]
    after = client.get(f"/api/codemaker/{gid}").get_json()
    assert after["history"] == state["history"] and after["guess"] == second


@pytest.mark.parametrize("body,status,words", [
    ({"black": 3, "white": 1}, 400, "can never happen"),
    ({"black": 5, "white": 0}, 400, "impossible with 4 pegs"),
    ({"black": "two", "white": 0}, 400, "whole number"),
    ({"black": True, "white": 0}, 400, "whole number"),
    ({"white": 0}, 400, "whole number"),
    ({"black": 0, "white": 0, "move": 5}, 409, "not 5"),
])
def test_bad_answers(client, body, status, words):
    gid = client.post("/api/codemaker", json={}).get_json()["id"]
    resp = client.post(f"/api/codemaker/{gid}/feedback", json=body)
    assert resp.status_code == status and words in resp.get_json()["error"]
    assert client.get(f"/api/codemaker/{gid}").get_json()["history"] == []


def test_undo_and_solved_state(client):
    gid = client.post("/api/codemaker", json={}).get_json()["id"]
    client.post(f"/api/codemaker/{gid}/feedback", json={"black": 0, "white": 0})
    solved = client.post(f"/api/codemaker/{gid}/feedback", json={"black": 4, "white": 0}).get_json()
    assert solved["status"] == "solved" and "guess" not in solved
    again = client.post(f"/api/codemaker/{gid}/feedback", json={"black": 0, "white": 0})
    assert again.status_code == 409
    back = client.post(f"/api/codemaker/{gid}/undo").get_json()
    assert back["status"] == "guessing" and len(back["history"]) == 1 and back["guess"] == "3345"
    empty = client.post(f"/api/codemaker/{gid}/undo").get_json()
    assert empty["history"] == [] and empty["guess"] == "1122"
    assert client.post(f"/api/codemaker/{gid}/undo").get_json()["history"] == []


def test_bad_new_games(client):
    assert client.post("/api/codemaker", json={"pegs": 8}).status_code == 400
    resp = client.post("/api/codemaker", json={"strategy": "psychic"})
    assert resp.status_code == 400 and "Unknown strategy" in resp.get_json()["error"]
    resp = client.post("/api/codemaker", json={"pegs": 5, "colors": 8, "strategy": "optimal"})
    assert resp.status_code == 400 and "not offered" in resp.get_json()["error"]
    assert client.post("/api/codemaker/nope/feedback", json={"black": 0, "white": 0}).status_code == 404


def test_pages_without_javascript(client):
    resp = client.post("/codemaker", data={"pegs": "4", "colors": "6", "strategy": "knuth"})
    assert resp.status_code == 303
    url = resp.headers["Location"]
    html = text(client.get(url))
    assert '<span class="code-text current-guess">1122</span>' in html
    resp = client.post(url + "/feedback", data={"black": "1", "white": "0", "move": "1"})
    assert resp.status_code == 303
    html = text(client.get(url))
    assert '<span class="code-text current-guess">1344</span>' in html and "256" in html
    repeat = client.post(url + "/feedback", data={"black": "1", "white": "0", "move": "1"})
    assert repeat.status_code == 409  # a repeated post changes nothing
    bad = client.post(url + "/feedback", data={"black": "3", "white": "1", "move": "2"}, headers=HX)
    assert bad.status_code == 400 and "can never happen" in text(bad)
    assert text(bad).lstrip().startswith('<section id="codemaker"')
    client.post(url + "/undo")
    assert '<span class="code-text current-guess">1122</span>' in text(client.get(url))
