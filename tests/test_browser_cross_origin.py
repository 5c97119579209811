"""Another site's page, in Chromium, submitting every form of the app.

The app is served on ``127.0.0.1``; the attacker's pages on ``localhost``,
another site to the browser. Each attacker page submits one of the app's
real forms (the same fields the app's own page sends) the moment it loads.
Chromium sends them as it would for any visitor, with its own ``Origin``
and ``Sec-Fetch-Site`` headers: nothing may change, and no cookie may be
set. The same forms on the site itself still work, with and without
JavaScript."""

from __future__ import annotations

import html
import sqlite3
import threading

import pytest
from playwright.sync_api import expect
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from webapp import store
from webapp.engine import Code, GameSize
from webapp.web.puzzles import service as puzzles

ATTACKER_TOKEN = "attackerattackerattacker"
# A live session the visitor teaches and follows as a student (cookies of both).
LIVE_CODE, TEACHER_TOKEN, STUDENT_TOKEN = "ACDEFG", "teacher-token-of-the-visitor", "student-token-of-the-visitor"


class AttackerSite:
    """Pages on ``http://localhost:<port>``: ``/<n>`` auto-submits form n."""

    def __init__(self, forms: list[tuple[str, dict]]):
        self.forms = forms
        self.server = make_server("localhost", 0, self.wsgi, threaded=True)
        self.url = f"http://localhost:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @Request.application
    def wsgi(self, request: Request) -> Response:
        action, fields = self.forms[int(request.path.strip("/"))]
        inputs = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields.items()
        )
        page = (
            "<!doctype html><title>Win a prize</title>"
            f'<form id="f" method="post" action="{html.escape(action)}">{inputs}</form>'
            "<script>document.getElementById('f').submit()</script>"
        )
        return Response(page, mimetype="text/html")

    def stop(self):
        self.server.shutdown()
        self.thread.join(5)


def records(db_path: str) -> dict[str, int]:
    with sqlite3.connect(db_path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


@pytest.fixture
def targets(app, live_server):
    """Every POST form of the pages, as the app's own page fills it in."""
    size = GameSize()
    with app.app_context():
        game = store.games.create_game(size, 10, Code.parse("1234", size))
        challenge = store.challenges.create_challenge(size, 10, Code.parse("1234", size))
        maker = store.codemaker.create_codemaker(size, "knuth")
        live = store.live.create_live(
            lambda: LIVE_CODE, TEACHER_TOKEN, size, "knuth", "random", Code.parse("1234", size), 1e10
        )
        store.live.add_student(live.code, STUDENT_TOKEN, "", 1e10, 10)
        puzzle = puzzles.next_for(None).id  # the set loaded as the visitor's own page would load it
    base = live_server.url
    forms = [
        ("/me/carry", {"token": ATTACKER_TOKEN, "replace": "1"}),
        ("/daily", {"board": "classic"}),
        ("/games", {"preset": "classic"}),
        ("/games", {"pegs": "4", "colors": "6", "max_guesses": "10"}),
        (f"/games/{game.id}/guesses", {"guess": "1122", "move": "1"}),
        (f"/games/{game.id}/suggestion", {"strategy": "knuth"}),
        (f"/games/{game.id}/counter", {"show": "1"}),
        (f"/c/{challenge.id}/games", {"name": "Victim"}),
        ("/challenges", {"pegs": "4", "colors": "6", "max_guesses": "10", "secret": "1234"}),
        ("/codemaker", {"pegs": "4", "colors": "6", "strategy": "knuth"}),
        (f"/codemaker/{maker.id}/feedback", {"black": "0", "white": "0", "move": "1"}),
        (f"/codemaker/{maker.id}/undo", {"move": "1"}),
        ("/solver/classroom", {"pegs": "4", "colors": "6", "strategy": "knuth", "source": "random"}),
        ("/theme", {"theme": "dark", "next": "/"}),
        ("/language", {"language": "de", "next": "/"}),
        ("/live", {"pegs": "4", "colors": "6", "strategy": "knuth", "source": "random"}),
        (f"/live/{LIVE_CODE}/step", {"to": "1"}),
        ("/join", {"code": LIVE_CODE, "nickname": "Victim"}),
        (f"/live/{LIVE_CODE}/vote", {"guess": "1122", "step": "0"}),
        (f"/live/{LIVE_CODE}/lock", {"locked": "1"}),
        (f"/live/{LIVE_CODE}/students/1/remove", {}),
        (f"/live/{LIVE_CODE}/students/1/rename", {"nickname": "Hijacked"}),
        (f"/live/{LIVE_CODE}/games", {"pegs": "3", "colors": "4", "strategy": "knuth", "source": "random"}),
        (f"/puzzles/{puzzle}/answers", {"guess": "1122"}),
        ("/puzzles/streak", {}),
        (f"/puzzles/{puzzle}/hint", {}),
        (f"/puzzles/{puzzle}/play", {}),
        ("/puzzles/storm", {}),
        ("/puzzles/storm/answers", {"puzzle": puzzle, "guess": "1122"}),
        ("/api/games", {"pegs": "4"}),
    ]
    pages = {r.endpoint for r in app.url_map.iter_rules() if "POST" in r.methods and not r.rule.startswith("/api/")}
    adapter = app.url_map.bind("localhost")
    covered = {adapter.match(path, method="POST")[0] for path, _ in forms}
    assert pages <= covered, pages - covered  # a new form joins this list
    return [(base + path, fields) for path, fields in forms]


def test_another_sites_page_changes_nothing(browser, live_server, db_path, targets):
    attacker = AttackerSite(targets)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(live_server.url + "/daily")  # the visitor plays today's puzzle: a player cookie of their own
        page.get_by_role("button", name="Play Mastermind #").first.click()
        page.wait_for_url("**/games/*")
        context.add_cookies(
            [
                {"name": f"live_teacher_{LIVE_CODE}", "value": TEACHER_TOKEN, "url": live_server.url},
                {"name": f"live_student_{LIVE_CODE}", "value": STUDENT_TOKEN, "url": live_server.url},
            ]
        )
        page.goto(f"{live_server.url}/live/{LIVE_CODE}/teach")  # the visitor's own teacher's screen
        assert page.locator(".live-projector").count() == 1
        own = {c["name"]: c["value"] for c in context.cookies(live_server.url)}
        assert "player" in own
        before = records(db_path)
        for number, (action, _) in enumerate(targets):
            with page.expect_navigation(url=action):
                page.goto(f"{attacker.url}/{number}")
            assert "another site" in page.content(), action
            assert {c["name"]: c["value"] for c in context.cookies(live_server.url)} == own, action
        assert records(db_path) == before
        with sqlite3.connect(db_path) as db:  # the room is as it was: open, its student in it
            assert db.execute("SELECT locked FROM live_sessions").fetchall() == [(0,)]
            assert db.execute("SELECT removed, nickname FROM live_students").fetchall() == [(0, "")]
            assert db.execute("SELECT game, pegs FROM live_sessions").fetchall() == [(1, 4)]  # no new game
    finally:
        context.close()
        attacker.stop()


def test_the_statistics_link_works_from_its_own_page(browser, live_server):
    """The carry page sends no referrer (its address holds a token), so its
    form posts ``Origin: null``; Chromium's ``Sec-Fetch-Site: same-origin``
    is what lets it through."""
    first = browser.new_context()
    page = first.new_page()
    page.goto(live_server.url + "/daily")
    page.get_by_role("button", name="Play Mastermind #").first.click()
    page.wait_for_url("**/games/*")
    token = {c["name"]: c["value"] for c in first.cookies(live_server.url)}["player"]
    second = browser.new_context()
    other = second.new_page()
    other.goto(f"{live_server.url}/me/carry/{token}")
    other.get_by_role("button", name="Use these statistics here").click()
    other.wait_for_url("**/me")
    assert {c["name"]: c["value"] for c in second.cookies(live_server.url)}["player"] == token
    first.close()
    second.close()


@pytest.mark.parametrize("javascript", [True, False])
def test_the_sites_own_forms_still_work(browser, live_server, javascript):
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Dark theme").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("data-theme") == "dark"
    page.get_by_role("button", name="Classic").click()
    page.wait_for_url("**/games/*")
    page.locator("#guess-input").fill("1122")
    page.get_by_role("button", name="Guess", exact=True).click()  # htmx swaps the row in with JavaScript on
    expect(page.locator("ol.rows > li.row")).to_have_count(1)
    expect(page.locator("ol.rows > li.row").first).to_have_attribute("data-guess", "1122")
    assert "another site" not in page.content()
    context.close()
