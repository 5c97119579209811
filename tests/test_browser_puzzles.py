"""Puzzles in Debian's Chromium, as a phone without JavaScript reads them in
German: one puzzle solved, one missed, today's puzzle answered, then the
dashboard on the statistics page counts them and charts the rating."""

import re

import pytest
from flask_babel import force_locale, gettext
from playwright.sync_api import expect

from webapp import store
from webapp.web import days

PHONE = {"width": 390, "height": 844}


@pytest.fixture(autouse=True)
def one_day(monkeypatch):
    """The day's clock stops as the test starts: one daily puzzle throughout."""
    stopped = days.clock()
    monkeypatch.setattr(days, "clock", lambda: stopped)


def german(app, text: str, **values) -> str:
    with app.test_request_context(), force_locale("de"):
        return gettext(text, **values)


def shown(page) -> str:
    action = page.locator("#guess-form").get_attribute("action")
    return re.fullmatch(r"/puzzles/([0-9a-f]{12})/answers", action).group(1)


def answer(page, guess: str) -> None:
    page.locator("#guess-input").fill(guess)
    page.locator("#guess-form button[type=submit]").click()
    page.wait_for_load_state()


def fits(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def test_three_puzzles_in_german_on_a_phone_without_javascript(browser, live_server, app):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    context.add_cookies([{"name": "lang", "value": "de", "url": live_server.url}])
    page = context.new_page()
    answered = set()

    # One solved: a best guess, read from the store.
    page.goto(live_server.url + "/puzzles")
    assert page.locator("html").get_attribute("lang") == "de"
    assert fits(page)
    first = shown(page)
    with app.app_context():
        bests = store.puzzles.get(first).best
    best = str(bests[0])
    answer(page, best)
    answered.add(first)
    expect(page.locator(".verdict-box.won")).to_be_visible()
    solved = (
        "Solved: %(guess)s is the best guess." if len(bests) == 1 else "Solved: %(guess)s is one of the best guesses."
    )
    expect(page.locator(".verdict")).to_contain_text(german(app, solved, guess=best))
    expect(page.locator(".rating-change")).to_contain_text("1500 →")
    assert fits(page)

    # One missed: the first guess played again learns nothing.
    page.get_by_role("link", name=german(app, "Next puzzle")).first.click()
    second = shown(page)
    assert second != first
    poor = page.locator("ol.rows > li").first.get_attribute("data-guess")
    answer(page, poor)
    answered.add(second)
    expect(page.locator(".verdict-box.lost")).to_be_visible()
    expect(page.locator(".verdict")).to_contain_text(german(app, "Not the best: %(guess)s.", guess=poor))
    expect(page.get_by_role("link", name=german(app, "Try this one again"))).to_be_visible()
    expect(page.locator("svg.partition")).to_have_count(2)  # both partitions side by side
    assert fits(page)

    # Today's puzzle.
    page.goto(live_server.url + "/puzzles/daily")
    expect(page.locator("h1")).to_contain_text(german(app, "Puzzle of the day"))
    daily = shown(page)
    with app.app_context():
        best = str(store.puzzles.get(daily).best[0])
    answer(page, best)
    expect(page.locator(".verdict-box.won")).to_be_visible()
    answered.add(daily)

    # The dashboard: the rating after each rated answer, and the themes.
    page.goto(live_server.url + "/me")
    dashboard = page.locator("#puzzles")
    expect(dashboard).to_contain_text(german(app, "Puzzle rating"))
    expect(dashboard.locator("svg.rating-chart circle")).to_have_count(1 + len(answered))
    expect(dashboard.locator("table tbody tr").first).to_be_visible()
    assert fits(page)
    context.close()
