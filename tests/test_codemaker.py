"""The computer as codebreaker: honest answers, impossible ones, undo."""

import random

import pytest

from webapp.engine import Code, Feedback, GameSize, analyse, feedback
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
        state = client.post(
            f"/api/codemaker/{state['id']}/feedback", json={"black": reply.black, "white": reply.white}
        ).get_json()
        guesses += 1
    return state, guesses


@pytest.mark.parametrize(
    "size,strategy", [(GameSize(3, 4), "knuth"), (GameSize(3, 4), "entropy"), (GameSize(3, 5, True), "knuth")]
)
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
    impossible = next(
        (b, w)
        for b in range(5)
        for w in range(5 - b)
        if (b, w) != (3, 1) and (b, w) not in {(r.black, r.white) for r in possible}
    )
    resp = client.post(f"/api/codemaker/{gid}/feedback", json={"black": impossible[0], "white": impossible[1]})
    assert resp.status_code == 422
    said = f"1122 → 1 black, 0 white; {second} → {Feedback(*impossible).describe()}."
    assert f"No code gives all of these answers: {said}" in resp.get_json()["error"]
    after = client.get(f"/api/codemaker/{gid}").get_json()
    assert after["history"] == state["history"] and after["guess"] == second


@pytest.mark.parametrize(
    "body,status,words",
    [
        ({"black": 3, "white": 1}, 422, "can never happen"),
        ({"black": 5, "white": 0}, 422, "impossible with 4 pegs"),
        ({"black": "two", "white": 0}, 400, "whole number"),
        ({"black": "1", "white": 0}, 400, "whole number"),
        ({"black": "0001", "white": 0}, 400, "whole number"),
        ({"black": True, "white": 0}, 400, "whole number"),
        ({"black": 1.0, "white": 0.0, "move": 7}, 409, "not 7"),
        ({"white": 0}, 400, "whole number"),
        ({"black": 0, "white": 0, "move": 5}, 409, "not 5"),
    ],
)
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
    assert again.get_json()["error"] == "The code is already found: start a new game to play again."
    german = client.post(
        f"/api/codemaker/{gid}/feedback", json={"black": 0, "white": 0}, headers={"Accept-Language": "de"}
    )
    assert german.status_code == 409 and german.get_json()["error"].startswith("Der Code ist schon gefunden")
    back = client.post(f"/api/codemaker/{gid}/undo", json={"move": 2}).get_json()
    assert back["status"] == "guessing" and len(back["history"]) == 1 and back["guess"] == "3345"
    stale = client.post(f"/api/codemaker/{gid}/undo", json={"move": 2})  # the same undo again
    assert stale.status_code == 409 and "not the last one" in stale.get_json()["error"]
    empty = client.post(f"/api/codemaker/{gid}/undo", json={"move": 1}).get_json()
    assert empty["history"] == [] and empty["guess"] == "1122"
    nothing = client.post(f"/api/codemaker/{gid}/undo", json={"move": 1})
    assert nothing.status_code == 409 and "no answer to take back" in nothing.get_json()["error"]


@pytest.mark.parametrize(
    "body,words",
    [
        ({}, "from 1"),
        ({"move": None}, "from 1"),
        ({"move": 0}, "from 1"),
        ({"move": -1}, "from 1"),
        ({"move": "1"}, "from 1"),
        ({"move": True}, "from 1"),
        ({"move": 1.5}, "from 1"),
    ],
)
def test_undo_needs_a_move_number(client, body, words):
    gid = client.post("/api/codemaker", json={}).get_json()["id"]
    client.post(f"/api/codemaker/{gid}/feedback", json={"black": 0, "white": 0})
    resp = client.post(f"/api/codemaker/{gid}/undo", json=body)
    assert resp.status_code == 400 and words in resp.get_json()["error"]
    assert len(client.get(f"/api/codemaker/{gid}").get_json()["history"]) == 1


@pytest.mark.parametrize("move", [0, -1, "2", True])
def test_feedback_move_must_be_a_number_from_one(client, move):
    gid = client.post("/api/codemaker", json={}).get_json()["id"]
    resp = client.post(f"/api/codemaker/{gid}/feedback", json={"black": 0, "white": 0, "move": move})
    assert resp.status_code == 400 and "from 1" in resp.get_json()["error"]
    assert client.get(f"/api/codemaker/{gid}").get_json()["history"] == []


@pytest.mark.parametrize("move", ["0", "-1", "", "١", "x"])
def test_form_move_must_be_a_number_from_one(client, move):
    gid = client.post("/api/codemaker", json={}).get_json()["id"]
    form = client.post(f"/codemaker/{gid}/feedback", data={"black": "0", "white": "0", "move": move})
    assert form.status_code == 400 and "reload the page" in text(form)
    undo = client.post(f"/codemaker/{gid}/undo", data={"move": move})
    assert undo.status_code == 400
    assert client.get(f"/api/codemaker/{gid}").get_json()["history"] == []


@pytest.mark.backends("sqlite", "postgresql")
def test_concurrent_undos_take_back_one_answer(db_config):
    """Five undos of the same answer at once: the game's lock lets one
    through; the others are stale (409) and the other answers stay."""
    import threading

    from webapp import create_app

    app = create_app({**db_config, "TESTING": True, "CREATE_RATE_LIMIT": "5000 per minute"})
    client = app.test_client()
    gid = client.post("/api/codemaker", json={}).get_json()["id"]
    for black, white in ((0, 0), (1, 0), (0, 1)):
        assert client.post(f"/api/codemaker/{gid}/feedback", json={"black": black, "white": white}).status_code == 200
    start, statuses = threading.Barrier(5), []

    def undo():
        start.wait()
        statuses.append(app.test_client().post(f"/api/codemaker/{gid}/undo", json={"move": 3}).status_code)

    threads = [threading.Thread(target=undo) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 409, 409, 409, 409]
    assert len(client.get(f"/api/codemaker/{gid}").get_json()["history"]) == 2
    app.extensions["jobs"].stop()
    app.extensions["store"].close()


@pytest.mark.backends("sqlite", "postgresql")
def test_answer_racing_an_undo_stores_nothing_impossible(db_config, monkeypatch):
    """An answer to guess 2 is checked against answer 1; before it is stored,
    answer 1 is taken back and replaced. The late answer was checked against
    a history that no longer exists: it is refused (409), and what is stored
    stays a history some secret fits."""
    import threading

    from webapp import create_app
    from webapp.engine.codes import parse_history
    from webapp.web import codemaker

    app = create_app({**db_config, "TESTING": True, "CREATE_RATE_LIMIT": "5000 per minute"})
    client = app.test_client()
    gid = client.post("/api/codemaker", json={"pegs": 6, "colors": 6}).get_json()["id"]
    first = client.post(f"/api/codemaker/{gid}/feedback", json={"black": 2, "white": 2, "move": 1}).get_json()
    checked, release = threading.Event(), threading.Event()
    real = codemaker.candidates

    def paused(size, history):  # the racing answer stops after its check, before it is stored
        result = real(size, history)
        if len(history) == 2 and threading.current_thread().name == "late answer":
            checked.set()
            assert release.wait(30)
        return result

    monkeypatch.setattr(codemaker, "candidates", paused)
    statuses = {}

    def late_answer():
        resp = app.test_client().post(f"/api/codemaker/{gid}/feedback", json={"black": 5, "white": 0, "move": 2})
        statuses["late"] = resp.status_code

    thread = threading.Thread(target=late_answer, name="late answer")
    thread.start()
    assert checked.wait(30)
    assert client.post(f"/api/codemaker/{gid}/undo", json={"move": 1}).status_code == 200
    assert client.post(f"/api/codemaker/{gid}/feedback", json={"black": 0, "white": 0, "move": 1}).status_code == 200
    release.set()
    thread.join(30)
    assert statuses["late"] == 409
    final = client.get(f"/api/codemaker/{gid}")
    assert final.status_code == 200
    history = final.get_json()["history"]
    assert [(h["black"], h["white"]) for h in history] == [(0, 0)]
    size = GameSize(6, 6)
    text_history = " ".join(f"{h['guess']}:{h['black']},{h['white']}" for h in history)
    assert len(real(size, parse_history(text_history, size))) > 0
    assert first["guess"] != "" and statuses  # the first answer's guess was shown before the race
    app.extensions["jobs"].stop()
    app.extensions["store"].close()


def test_bad_new_games(client):
    assert client.post("/api/codemaker", json={"pegs": 8}).status_code == 400
    resp = client.post("/api/codemaker", json={"strategy": "psychic"})
    assert resp.status_code == 400 and '"strategy" must be one of' in resp.get_json()["error"]
    resp = client.post("/api/codemaker", json={"pegs": 5, "colors": 8, "strategy": "optimal"})
    assert resp.status_code == 422 and "not offered" in resp.get_json()["error"]
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
    client.post(url + "/undo", data={"move": "1"})
    assert '<span class="code-text current-guess">1122</span>' in text(client.get(url))


def test_the_strategy_is_named_for_people(client):
    """The form offers names with the keys as values; the game's page names
    its strategy, and the address and the API keep the key."""
    form = text(client.get("/codemaker?lang=de"))
    assert '<option value="most-parts" >Meiste Teile</option>' in form
    assert '<option value="knuth" selected>Knuth</option>' in form
    made = client.post("/codemaker", data={"pegs": "3", "colors": "4", "strategy": "most-parts"})
    assert made.status_code == 303
    page = text(client.get(made.headers["Location"]))
    assert "<small>3×4, Most parts</small>" in page
    game_id = made.headers["Location"].rsplit("/", 1)[1]
    assert client.get(f"/api/codemaker/{game_id}").get_json()["strategy"] == "most-parts"
