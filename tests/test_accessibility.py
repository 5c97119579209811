"""axe-core (axe-playwright-python, which ships it) finds no WCAG 2.1 A/AA
violation on any page, in the states people see them: playing, finished,
stepping, presenting, sharing, reviewing; in the light theme and the dark one."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from webapp import store
from webapp.engine import Code, GameSize
from webapp.web.loaders import play_guess

TAGS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


@pytest.fixture
def pages(app, client):
    size = GameSize()
    with app.app_context():
        playing = store.games.create_game(size, 10, Code.parse("3632", size))
        play_guess(playing.id, Code.parse("1122", size))
        won = store.games.create_game(size, 10, Code.parse("3632", size))
        for guess in ("1122", "3632"):
            play_guess(won.id, Code.parse(guess, size))
        watch = store.games.watch_token(playing.id)
    challenge = client.post("/api/challenges", json={"secret": "1234"}).get_json()
    puzzle = client.get("/api/puzzles/next").get_json()
    missed = client.post(puzzle["answer_url"], json={"guess": puzzle["history"][0]["guess"]}).get_json()
    codemaker = client.post("/api/codemaker", json={}).get_json()
    return [
        "/",
        f"/games/{playing.id}",
        f"/games/{won.id}",
        f"/watch/{watch}",
        "/solver/optimal-game?step=3",
        "/solver/classroom?history=1122:1,0",
        "/solver/classroom?history=1122:1,0&presenter=1",
        "/solver/compare",
        "/solver/tree?open=1,0",
        "/challenges/new",
        challenge["url"],
        challenge["results_page"],
        "/codemaker",
        codemaker["url"],
        "/replay/4x6/aot?g=1122.1344.3526&step=4",
        "/daily",
        "/me",
        "/puzzles/" + puzzle["id"],
        missed["url"].removeprefix("http://localhost"),
        "/puzzles/streak",
        "/puzzles/storm",
        "/puzzles?difficulty=harder&theme=not-a-candidate",
        "/puzzles/history",
        "/no-such-page",
    ]


def test_no_accessibility_violations(page, live_server, pages):
    """Each page in the light theme, then in the dark one (the attribute the
    theme cookie makes the server write, set in place: the same page redrawn)."""
    axe = Axe()
    found = {}
    for path in pages:
        page.goto(live_server.url + path)
        page.wait_for_load_state()
        for theme in ("light", "dark"):
            page.evaluate("theme => { document.documentElement.dataset.theme = theme; }", theme)
            violations = axe.run(page, options=TAGS).response["violations"]
            if violations:
                found[f"{path} ({theme})"] = [(v["id"], v["nodes"][0]["target"]) for v in violations]
    assert found == {}
