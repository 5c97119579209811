"""Choosing puzzles in Debian's Chromium, in German on a phone, with
JavaScript and without: "harder" and a theme, playing on after a verdict,
a Puzzle Storm to its end; axe-core finds nothing on the new pages."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from webapp import store
from webapp.web.puzzles import service

PHONE = {"width": 390, "height": 844}
TAGS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


def shown(page) -> str:
    """The puzzle the page asks: a storm's in its form, else in the answer form's address."""
    held = page.locator("#guess-form input[name=puzzle]")
    if held.count():
        return held.get_attribute("value")
    action = page.locator("#guess-form").get_attribute("action")
    return re.fullmatch(r"/puzzles/([0-9a-f]{12})/answers", action).group(1)


def answer(page, guess: str) -> None:
    page.locator("#guess-input").fill(guess)
    page.locator("#guess-form button[type=submit]").click()
    page.wait_for_load_state()


def fits(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_harder_a_theme_play_on_and_a_storm_in_german_on_a_phone(browser, live_server, app, javascript):
    context = browser.new_context(java_script_enabled=javascript, viewport=PHONE)
    context.add_cookies([{"name": "lang", "value": "de", "url": live_server.url}])
    page = context.new_page()
    axe = Axe()
    problems = {}

    def checked(name: str) -> None:
        if javascript:  # axe runs in the page
            found = axe.run(page, options=TAGS).response["violations"]
            if found:
                problems[name] = [(v["id"], v["nodes"][0]["target"]) for v in found]
            assert fits(page), name

    # Harder, and a theme to practise.
    page.goto(live_server.url + "/puzzles")
    checked("chooser")
    page.get_by_label("Schwierigkeit").select_option("harder")
    page.get_by_label("Thema").select_option("zero-reply")
    page.get_by_role("button", name="Rätsel zeigen").click()
    page.wait_for_load_state()
    assert "difficulty=harder" in page.url and "theme=zero-reply" in page.url
    with app.app_context():
        chosen = store.puzzles.get(shown(page))
    assert "zero-reply" in chosen.themes
    assert chosen.rating.rating >= 1500 + service.DIFFICULTIES["harder"] - service.SPREAD

    # A miss, then play on from the position.
    answer(page, str(chosen.history[0][0]))
    expect(page.locator(".verdict-box.lost")).to_be_visible()
    checked("verdict")
    page.get_by_role("button", name="Von hier weiterspielen").click()
    page.wait_for_load_state()
    assert "/games/" in page.url
    expect(page.locator("ol.rows > li.row")).to_have_count(len(chosen.history))
    for row, (guess, _) in zip(page.locator("ol.rows > li.row").all(), chosen.history):
        expect(row).to_have_attribute("data-guess", str(guess))

    # A storm to its end: one solved, then misses until the clock runs out.
    page.goto(live_server.url + "/puzzles/storm")
    checked("storm start")
    page.get_by_role("button", name="Einen Sturm starten").click()
    page.wait_for_load_state()
    expect(page.locator(".storm-clock")).to_be_visible()
    checked("storm")
    with app.app_context():
        first = store.puzzles.get(shown(page))
    answer(page, str(first.best[0]))
    expect(page.locator(".storm-last.won")).to_be_visible()
    expect(page.locator(".storm-score")).to_contain_text("1 gelöst")
    misses = 0
    while page.locator(".storm-clock").count():
        with app.app_context():
            asked = store.puzzles.get(shown(page))
        answer(page, str(asked.history[0][0]))
        misses += 1
        assert misses <= service.STORM_SECONDS / service.STORM_PENALTY
    expect(page.get_by_role("heading", name="Die Zeit ist um")).to_be_visible()
    expect(page.locator(".storm-result")).to_contain_text("1 Rätsel gelöst")
    checked("storm over")
    assert problems == {}
    context.close()
