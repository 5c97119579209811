"""The colour theme in Chromium: the system's by default, the header's
choice remembered across pages, drawn from the first paint (the server
writes it into the page: no flash of the other theme), with and without
JavaScript."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

SHOTS = Path(__file__).resolve().parent.parent / "test-results"
BACKGROUND = "() => getComputedStyle(document.documentElement).backgroundColor"
LIGHT, DARK = "rgb(246, 244, 239)", "rgb(21, 23, 28)"


@pytest.mark.parametrize("javascript", [True, False])
def test_the_choice_is_remembered_and_drawn_at_once(browser, live_server, javascript):
    context = browser.new_context(color_scheme="light", java_script_enabled=javascript)
    page = context.new_page()
    page.goto(live_server.url + "/solver/classroom?history=1122:1,0")
    assert page.evaluate(BACKGROUND) == LIGHT
    page.get_by_role("button", name="Dark theme").click()
    page.wait_for_load_state()
    assert page.url.endswith("/solver/classroom?history=1122:1,0")  # back where the visitor was
    assert page.evaluate(BACKGROUND) == DARK
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    # Another page, before any script runs: already dark.
    page.goto(live_server.url + "/", wait_until="commit")
    page.wait_for_selector("body")
    assert page.locator("html").get_attribute("data-theme") == "dark"
    assert page.evaluate(BACKGROUND) == DARK
    page.get_by_role("button", name="System theme").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("data-theme") is None
    assert page.evaluate(BACKGROUND) == LIGHT
    context.close()


def test_the_theme_and_language_come_back_to_the_step_shown(browser, live_server):
    """Stepping through the classroom with htmx moves the address after the
    page was served: switching theme, then language, stays on that step."""
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    page.goto(live_server.url + "/solver/classroom?pegs=4&colors=6&strategy=knuth")
    guesses_in_address = "n => decodeURIComponent(location.search).split(':').length - 1 === n"
    for shown in (1, 2):
        page.get_by_role("link", name="Next guess").click()
        page.wait_for_function(guesses_in_address, arg=shown)  # htmx has pushed the step's address
    stepped = page.url
    page.get_by_role("button", name="Dark theme").click()
    page.wait_for_load_state()
    assert page.url == stepped and page.evaluate(BACKGROUND) == DARK
    page.get_by_role("button", name="Deutsch").click()
    page.wait_for_load_state()
    assert page.url == stepped and page.locator("html").get_attribute("lang") == "de"
    context.close()


def test_the_system_theme_is_followed(browser, live_server):
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(live_server.url + "/")
    assert page.evaluate(BACKGROUND) == DARK
    page.get_by_role("button", name="Light theme").click()
    page.wait_for_load_state()
    assert page.evaluate(BACKGROUND) == LIGHT
    context.close()


def test_a_foreign_return_address_is_not_followed(client):
    answer = client.post("/theme", data={"theme": "dark", "next": "//evil.example/x"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    assert "theme=dark" in answer.headers["Set-Cookie"] and "HttpOnly" in answer.headers["Set-Cookie"]
    odd = client.post("/theme", data={"theme": "purple", "next": "/solver/tree"})
    assert odd.headers["Location"] == "/solver/tree" and "theme=;" in odd.headers["Set-Cookie"]


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots_in_both_themes(page, live_server, client, app, theme, width):
    """The board with its review, and the classroom, for a person to look at."""
    from webapp import store
    from webapp.engine import Code, GameSize

    size = GameSize(3, 4)  # reviewed at once
    with app.app_context():
        game = store.games.create_game(size, 10, Code.parse("234", size))
    for move, guess in enumerate(["112", "341", "234"], start=1):
        client.post(f"/api/games/{game.id}/guesses", json={"guess": guess, "move": move})
    page.context.add_cookies([{"name": "theme", "value": theme, "url": live_server.url}])
    page.set_viewport_size({"width": width, "height": 900})
    SHOTS.mkdir(exist_ok=True)
    for name, path in (("board", f"/games/{game.id}"), ("classroom", "/solver/classroom?history=1122:1,0")):
        page.goto(live_server.url + path)
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        if name == "board":
            expect(page.locator("section#review .review-chart")).to_be_visible()
        page.screenshot(path=str(SHOTS / f"theme-{name}-{theme}-{width}.png"), full_page=True)
