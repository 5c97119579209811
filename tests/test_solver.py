"""The solver blueprint: the optimal-game and classroom pages and their JSON."""

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from webapp import store
from webapp.engine import PRESETS, Code, GameSize, analyse, best_guess, feedback, get_strategy
from webapp.engine.codes import conceal
from webapp.engine.lines import BEST_CANDIDATE, DEEPEST, GREEDY, adversary_line, greedy_line
from webapp.settings import size_params
from webapp.words import strategy_title

HX = {"HX-Request": "true"}


def text(response):
    return response.get_data(as_text=True)


def line_rows(html):
    return re.findall(
        r'class="row line-row" data-guess="(\d+)" data-black="(\d)" data-white="(\d)" '
        r'data-remaining="(\d+)"',
        html,
    )


# --- the optimal game ----------------------------------------------------------------------


def test_optimal_game_default_is_the_adversary_line(client):
    resp = client.get("/solver/optimal-game?pegs=4&colors=6")
    assert resp.status_code == 200
    line = adversary_line(BEST_CANDIDATE, GameSize(), GREEDY)
    expected = [(str(r.guess), str(r.reply.black), str(r.reply.white), str(r.remaining)) for r in line.rows]
    assert line_rows(text(resp)) == expected
    assert len(expected) == 5
    assert "Solved in 5 guesses" in text(resp)
    assert "proves nothing" in text(resp)


def test_step_is_in_the_url(client):
    html = text(client.get("/solver/optimal-game?step=2"))
    assert len(line_rows(html)) == 2
    assert "Guess 2 of 5" in html
    for step in (1, 3):  # previous and next
        assert f"step={step}" in html
    assert len(line_rows(text(client.get("/solver/optimal-game?step=0")))) == 0


def test_htmx_gets_only_the_line(client):
    resp = client.get("/solver/optimal-game?step=3", headers=HX)
    html = text(resp)
    assert resp.status_code == 200 and "HX-Request" in resp.headers["Vary"]
    assert html.lstrip().startswith('<section id="line"') and "<html" not in html
    assert len(line_rows(html)) == 3
    assert 'id="line-announce" hx-swap-oob' in html and "Guess 3: " in html


@pytest.mark.parametrize(
    "name,adversary", [("knuth", "greedy"), ("knuth", "deepest"), ("entropy", "deepest"), ("optimal", "deepest")]
)
def test_codebreaker_and_adversary_selectors(client, name, adversary):
    html = text(client.get(f"/solver/optimal-game?strategy={name}&adversary={adversary}"))
    line = adversary_line(get_strategy(name), GameSize(), adversary)
    assert [r[0] for r in line_rows(html)] == [str(r.guess) for r in line.rows]
    if adversary == DEEPEST:
        assert f"worst case ({analyse(name, GameSize()).max} guesses)" in html


def test_distinct_and_other_sizes(client):
    html = text(client.get("/solver/optimal-game?pegs=3&colors=5&distinct=1"))
    rows = line_rows(html)
    assert rows and rows[-1][1] == "3"
    assert all(len(set(r[0])) == 3 for r in rows[-1:])  # the secret found uses different colours


@pytest.mark.parametrize(
    "query,words,status,api_words,api_status",
    [
        ("strategy=nope", "Unknown strategy", 400, '"strategy" must be one of', 400),
        ("adversary=sneaky", "Unknown adversary", 400, '"adversary" must be one of: greedy, deepest', 400),
        ("pegs=9", "Pegs must be from 2 to 6", 400, "Pegs must be from 2 to 6", 400),
        ("colors=x", "Colours must be a whole number", 400, "Colours must be a whole number", 400),
        ("step=9", "past the end of this line", 400, "past the end of this line", 422),
        ("step=-1", "whole number from 0 to 5", 400, '"step" must be a whole number from 0 to 999', 400),
        ("step=1&step=x", None, None, '"step" once', 400),
        ("distinct=TRUE", None, None, '"distinct" must be one of', 400),
        ("pegs=6&colors=9", "sizes up to 32,768 codes", 422, "sizes up to 32,768 codes", 422),
        ("pegs=5&colors=8&strategy=optimal", "not offered", 400, "not offered", 422),
        ("pegs=6&colors=8&strategy=knuth&adversary=deepest", "sizes up to 32,768 codes", 422, "32,768 codes", 422),
    ],
)
def test_bad_parameters(client, query, words, status, api_words, api_status):
    """The page says what is wrong; the API refuses a query its document
    does not allow with 400, and one the game's rules refuse with 422."""
    if words is not None:
        resp = client.get(f"/solver/optimal-game?{query}")
        assert resp.status_code == status
        assert words in text(resp)
        assert 'role="alert"' in text(resp)
    api = client.get(f"/api/solver/optimal-game?{query}")
    assert api.status_code == api_status and api_words in api.get_json()["error"]


def test_every_codebreaker_compared(db_config):
    """The table under the line: each codebreaker's greedy line length, and
    its deepest line as long as its worst case in the whole-game analysis.
    The table is a background job: here no consumer runs, and the test runs
    the job itself, then asks for the fragment the page polls."""
    from webapp import create_app, jobs

    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
    client = app.test_client()
    html = text(client.get("/solver/optimal-game"))
    assert 'id="lengths"' in html and '<table class="lengths"' not in html  # being worked out
    with app.app_context():
        jobs.run(jobs.job_key("lengths", size_params(GameSize())), app.config, app.logger)
    url = re.search(r'hx-get="([^"]*optimal-game/lengths[^"]*)"', html)[1].replace("&amp;", "&")
    html = text(client.get(url, headers={"HX-Request": "true"}))
    table = html[html.index('<table class="lengths"') : html.index("</table>", html.index('<table class="lengths"'))]
    found = re.findall(
        r'<th scope="row">([^<]+)</th>\s*<td>(?:<a[^>]*>|<strong[^>]*>)(\d+) guesses.*?</td>\s*'
        r"<td>(?:<a[^>]*>|<strong[^>]*>)(\d+) guesses",
        table,
        re.S,
    )
    titles = [title for title, _, _ in found]
    assert titles[0] == "Best candidate" and "Knuth" in titles and "Optimal" in titles  # named for people
    keys = {strategy_title(name): name for name in [BEST_CANDIDATE.name, *PRESETS]}
    for title, greedy, deepest in found:
        name = keys[title]
        strategy = BEST_CANDIDATE if name == "best-candidate" else get_strategy(name)
        assert int(greedy) == len(adversary_line(strategy, GameSize(), GREEDY).rows)
        assert int(deepest) == analyse(strategy, GameSize()).max
    assert "Every codebreaker" not in text(client.get("/solver/optimal-game", headers=HX))
    assert "Every codebreaker" not in text(client.get("/solver/optimal-game?pegs=4&colors=8"))


def test_slow_line_runs_in_the_background(db_config):
    """Super Mastermind's default line scores a billion (guess, code) pairs at
    its first guess: the page answers at once with progress, and the line
    computed in the background agrees with the engine. No consumer runs until
    the progress is seen, however fast the machine."""
    from webapp import create_app

    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none", "JOBS_PERIODIC": False})
    try:
        slow_line_in_the_background(app, app.test_client())
    finally:
        app.extensions["jobs"].stop()
        app.extensions["live"].stop()
        app.extensions["store"].close()


def slow_line_in_the_background(app, client):
    resp = client.get("/solver/optimal-game?pegs=5&colors=8")
    html = text(resp)
    assert resp.status_code == 200 and 'id="line"' in html and "<progress" in html
    assert 'hx-trigger="load delay:1s"' in html and "Refresh</a>" in html
    app.extensions["jobs"].start(1)
    deadline = time.time() + 120
    while time.time() < deadline:
        api = client.get("/api/solver/optimal-game?pegs=5&colors=8")
        if api.status_code == 200:
            break
        assert api.status_code == 202 and api.get_json()["status"] in ("queued", "running")
        time.sleep(0.2)
    rows = api.get_json()["rows"]
    expected = greedy_line(BEST_CANDIDATE, GameSize(5, 8), max_pairs=10**12)
    assert [(r["guess"], r["remaining"]) for r in rows] == [(str(r.guess), r.remaining) for r in expected.rows]
    page = text(client.get("/solver/optimal-game?pegs=5&colors=8&step=2"))
    assert len(line_rows(page)) == 2


def test_api_optimal_game(client):
    data = client.get("/api/solver/optimal-game?pegs=4&colors=6").get_json()
    assert data["strategy"] == "best-candidate" and data["adversary"] == "greedy"
    assert [r["remaining"] for r in data["rows"]][-1] == 1
    assert data["rows"][-1]["black"] == 4 and len(data["rows"]) == 5
    deep = client.get("/api/solver/optimal-game?strategy=optimal&adversary=deepest").get_json()
    assert len(deep["rows"]) == 6
    knuth = client.get("/api/solver/optimal-game?strategy=knuth&distinct=1").get_json()
    assert knuth["distinct"] is True and knuth["strategy"] == "knuth"


# --- the classroom -------------------------------------------------------------------------


def test_classroom_step_api_matches_suggest(client):
    data = client.get("/api/solver/step?pegs=4&colors=6&strategy=knuth&history=1122:1,0 3456:0,2").get_json()
    assert data["candidates"] == 60 and data["guess"] == "1334"
    assert data["score"] == {"largest class": 10} and data["is_candidate"] is True
    assert sum(data["partition"].values()) == 60
    assert len(data["top"]) == 10 and data["why"]


@pytest.mark.parametrize(
    "history,words,api_status",
    [
        ("1122", "is not GUESS:BLACK,WHITE", 400),
        ("1122:5,0", "impossible with 4 pegs", 422),
        ("1122:3,1", "can never happen", 422),
        ("1122:0,0 1133:0,0 1144:0,0 1155:0,0 1166:0,0", "No secret fits", 422),
        ("1122:4,0 3456:0,0", "already found", 422),
        ("1172:1,0", "Colour 7 is not in this game", 422),
        ("11x2:1,0", "is not a colour", 400),
    ],
)
def test_classroom_bad_history(client, history, words, api_status):
    """The API refuses a history not written as its document says with 400
    (saying how to write one), and one that breaks the game's rules with 422."""
    resp = client.get("/solver/classroom", query_string={"history": history})
    assert resp.status_code == 400 and words in text(resp)
    api = client.get("/api/solver/step", query_string={"history": history})
    expected = words if api_status == 422 else "GUESS:BLACK,WHITE"
    assert api.status_code == api_status and expected in api.get_json()["error"]


def test_classroom_unknown_strategy_and_damaged_secret(client):
    assert "Unknown strategy" in text(client.get("/solver/classroom?strategy=guess"))
    resp = client.get("/solver/classroom?s=ZZ")
    assert resp.status_code == 400 and "damaged" in text(resp)


def test_history_must_fit_the_secret(client):
    s = conceal(Code.parse("6543", GameSize()), GameSize())
    resp = client.get("/solver/classroom", query_string={"s": s, "history": "1122:1,0"})
    assert resp.status_code == 400 and "does not fit" in text(resp)


def follow_next(client, url):
    html = text(client.get(url))
    match = re.search(r'href="([^"]+)"[^>]*data-step-key="next"', html)
    return html, (match.group(1).replace("&amp;", "&") if match else None)


@pytest.mark.parametrize("secret", ["6543", "1122", "3636", "5455"])
def test_classroom_plays_knuth_to_the_secret(client, secret):
    """Following "Next guess" from a teacher's secret plays Knuth's game: the
    number of guesses is the secret's depth in Knuth's tree, and the secret
    stays off the page until the last step."""
    size = GameSize()
    resp = client.post(
        "/solver/classroom",
        data={"pegs": "4", "colors": "6", "strategy": "knuth", "source": "teacher", "secret": secret},
    )
    assert resp.status_code == 303
    url = resp.headers["Location"]
    assert secret not in url
    analysis = analyse("knuth", size)
    depth = int(analysis.depths[Code.parse(secret, size).index(size)])
    steps = 0
    html, nxt = follow_next(client, url)
    while nxt:
        assert 'class="secret-text"' not in html and "The secret is hidden" in html
        if steps == 0 and secret == "6543":  # not a guess Knuth makes early
            assert secret not in html
        steps += 1
        html, nxt = follow_next(client, nxt)
    assert steps == depth
    assert f'<span class="secret-text">{secret}</span>' in html
    history = parse_qs(urlsplit(url).query)
    assert history["strategy"] == ["knuth"]


def test_classroom_setup_errors_keep_the_form(client):
    resp = client.post("/solver/classroom", data={"source": "teacher", "secret": "1279"})
    assert resp.status_code == 400 and "Colours 7, 9 are not in this game" in secret_error(resp)
    assert "1279" not in text(resp)  # a typed secret is never echoed
    resp = client.post("/solver/classroom", data={"source": "teacher", "secret": "", "pegs": "5"})
    assert resp.status_code == 400 and "Enter 5 colours" in secret_error(resp)
    assert re.search(r'name="pegs"[^>]*value="5"', text(resp))  # the rest of the form is kept
    resp = client.post("/solver/classroom", data={"source": "teacher", "secret": "1123", "distinct": "1"})
    assert resp.status_code == 400 and "different colours" in secret_error(resp)
    resp = client.post("/solver/classroom", data={"source": "other"})
    assert resp.status_code == 400 and 'id="secret-error"' not in text(resp)  # not the secret's fault


def secret_error(resp) -> str:
    """The error shown by the secret's field, which the field names as its description."""
    html = text(resp)
    field = r'<input type="password" name="secret"[^>]*aria-invalid="true" aria-describedby="secret-error"'
    assert re.search(field, html)
    found = re.search(r'<p class="error" id="secret-error" role="alert">([^<]*)</p>', html)
    assert found, "no error beside the secret"
    return found.group(1)


def test_classroom_random_and_adversary(client):
    resp = client.post("/solver/classroom", data={"source": "random", "strategy": "entropy", "presenter": "1"})
    query = parse_qs(urlsplit(resp.headers["Location"]).query)
    assert query["strategy"] == ["entropy"] and query["presenter"] == ["1"] and len(query["s"][0]) == 3
    html = text(client.get(resp.headers["Location"]))
    assert 'class="presenter"' in html
    resp = client.post("/solver/classroom", data={"source": "adversary"})
    assert "s" not in parse_qs(urlsplit(resp.headers["Location"]).query)
    html = text(client.get(resp.headers["Location"]))
    assert "No secret" in html


def test_classroom_adversary_replies_greedily(client):
    """Without a secret, "Next guess" follows the greedy adversary: the same
    line as the optimal-game page for that codebreaker."""
    url = "/solver/classroom?pegs=4&colors=6&strategy=knuth"
    played = []
    html, nxt = follow_next(client, url)
    while nxt:
        played.append(parse_qs(urlsplit(nxt).query)["history"][0].split()[-1])
        html, nxt = follow_next(client, nxt)
    line = adversary_line(get_strategy("knuth"), GameSize(), GREEDY)
    assert played == [f"{r.guess}:{r.reply}" for r in line.rows]


def test_classroom_off_the_optimal_tree_searches_in_the_background(db_config):
    """A review's move link can land where optimal play has left its shipped
    tree (Knuth's 1122 opening): the step waits on a background search, the
    API answers 202 meanwhile, and once the job is run both show its guess."""
    from webapp import create_app, jobs
    from webapp.computations import hint_params

    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
    client, size = app.test_client(), GameSize()
    query = "pegs=4&colors=6&strategy=optimal&history=1122:0,0"
    page = client.get(f"/solver/classroom?{query}")
    assert page.status_code == 200
    html = text(page)
    assert 'id="step"' in html and "Optimal is searching for its guess after 1 guess" in html
    assert 'http-equiv="refresh"' in html  # without JavaScript the page asks again
    waiting = client.get(f"/api/solver/step?{query}")
    assert waiting.status_code == 202 and waiting.get_json()["status"] == "queued"
    history = [(Code.parse("1122", size), feedback(Code.parse("1122", size), Code.parse("3456", size)))]
    with app.app_context():
        jobs.run(jobs.job_key("hint", hint_params(size, "optimal", history)), app.config, app.logger)
    done = client.get(f"/api/solver/step?{query}")
    assert done.status_code == 200
    answer = done.get_json()
    assert answer["candidates"] == 256 and "off the shipped optimal tree" in answer["why"]
    assert answer["guess"] == str(best_guess(get_strategy("optimal"), size, history).guess)
    fragment = text(client.get(f"/solver/classroom?{query}", headers=HX))
    assert fragment.lstrip().startswith('<section id="step"') and answer["guess"] in fragment


def test_classroom_fragment(client):
    resp = client.get("/solver/classroom?history=1122:1,0", headers=HX)
    html = text(resp)
    assert html.lstrip().startswith('<section id="step"') and "<html" not in html
    assert "1344" in html and 'id="step-announce" hx-swap-oob' in html
    assert "<svg" in html and "<title>" in html and "Codes for each reply" in html


def test_navigation_links(client):
    home = text(client.get("/"))
    assert 'href="/solver/optimal-game"' in home and "/solver/classroom" in home
    assert '<a href="/solver/classroom" aria-current="page">Classroom</a>' in text(client.get("/solver/classroom"))
    assert '<a href="/solver/optimal-game" aria-current="page">Optimal game</a>' in text(
        client.get("/solver/optimal-game")
    )


def test_finished_game_links_to_the_classroom(app, client):
    size = GameSize()
    with app.app_context():
        game = store.games.create_game(size, 10, Code.parse("2541", size))
    resp = client.post(f"/games/{game.id}/guesses", data={"guess": "2541", "move": "1"}, follow_redirects=True)
    html = text(resp)
    match = re.search(r'<a href="([^"]+)">How Knuth would have played this secret', html)
    assert match
    url = match.group(1).replace("&amp;", "&")
    query = parse_qs(urlsplit(url).query)
    assert query["strategy"] == ["knuth"] and "2541" not in url
    # Playing it through reaches the same secret.
    nxt, steps = url, 0
    while nxt:
        html, nxt = follow_next(client, nxt)
        steps += 1
    assert '<span class="secret-text">2541</span>' in html
    assert feedback(Code.parse("2541", size), Code.parse("2541", size)).black == 4


def test_playing_board_has_no_classroom_link(app, client):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10)
    assert "How Knuth would have played" not in text(client.get(f"/games/{game.id}"))


# --- strategies named for people -----------------------------------------------------------


def shown_text(html: str) -> str:
    """What a reader sees of ``html``: no attribute values (keys live there)."""
    return re.sub(r'="[^"]*"', "", html)


def test_the_classroom_names_its_strategy_for_people(client):
    """most-parts reads "Most parts" (in German "Meiste Teile") in the title,
    the heading, the step and the form; the key stays in the values and links."""
    url = "/solver/classroom?strategy=most-parts&history=1122:1,0"
    html = text(client.get(url))
    assert "<title>Classroom: Most parts, step by step: Mastermind lab</title>" in html
    assert "<h1>Most parts, step by step" in html and "Next: Most parts guesses" in html
    assert '<option value="most-parts" selected>Most parts</option>' in html
    assert '<option value="knuth" >Knuth</option>' in html
    assert "strategy=most-parts" in html and "most-parts" not in shown_text(html)
    german = text(client.get(url + "&lang=de"))
    assert "<title>Klassenzimmer: Meiste Teile, Schritt für Schritt: Mastermind lab</title>" in german
    assert '<option value="most-parts" selected>Meiste Teile</option>' in german
    assert "Als Nächstes rät die Strategie „Meiste Teile“" in german
    assert '<option value="knuth" >Knuth</option>' in german  # a person's name stays


def test_the_step_api_names_the_strategy_in_its_sentence_and_keeps_the_key(client):
    query = "/api/solver/step?strategy=most-parts&history=1122:1,0"
    data = client.get(query).get_json()
    assert data["strategy"] == "most-parts" and "scores best by the Most parts rule" in data["why"]
    german = client.get(query, headers={"Accept-Language": "de"}).get_json()
    assert german["strategy"] == "most-parts" and "nach der Regel „Meiste Teile“" in german["why"]
    spanish = client.get(query, headers={"Accept-Language": "es"}).get_json()
    assert "según la regla «Más partes»" in spanish["why"]


def test_compare_tree_and_optimal_game_name_strategies_for_people(client):
    html = text(client.get("/solver/compare?pegs=3&colors=4"))
    assert '<a href="#strategy-most-parts">Most parts</a>' in html and '<li id="strategy-knuth">' in html
    assert "<h3>Lexicographic minimax</h3>" in html and "<h3>Irving</h3>" in html
    assert "Entropy: secrets solved in each number of guesses" in html
    assert "minimax-lex" not in shown_text(html)
    tree = text(client.get("/solver/tree?pegs=3&colors=4&strategy=entropy"))
    assert "<title>The Entropy decision tree, 3×4: Mastermind lab</title>" in tree
    assert '<option value="entropy" selected>Entropy</option>' in tree and "Entropy, 3×4: guess 1 is" in tree
    game = text(client.get("/solver/optimal-game?strategy=knuth"))
    assert '<option value="knuth" selected>Knuth</option>' in game
    assert '<option value="best-candidate" >Best candidate (default)</option>' in game
    assert "Knuth against the greedy adversary, 4×6: 5 guesses" in game
    assert "plays against the Knuth strategy" in game
