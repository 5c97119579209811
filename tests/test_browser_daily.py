"""The daily puzzle and the statistics in Chromium: two browsers play
today's puzzle and get the same feedback for the same guesses; after three
games the statistics page counts them."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from webapp import store
from webapp.web import days

SHOTS = Path(__file__).resolve().parent.parent / "test-results"


@pytest.fixture(autouse=True)
def one_day(monkeypatch):
    """The day's clock stops as the test starts (the server runs in this
    process): a test that runs across midnight UTC still sees one day."""
    stopped = days.clock()
    monkeypatch.setattr(days, "clock", lambda: stopped)


def guess(page, code):
    page.locator("#guess-input").fill(code)
    page.keyboard.press("Enter")


def rows(page):
    found = page.locator("ol.rows > li")
    return [(r.get_attribute("data-guess"), r.locator(".reply-text").inner_text()) for r in found.all()]


def test_two_browsers_one_puzzle_then_statistics(browser, live_server, app):
    SHOTS.mkdir(exist_ok=True)
    number = days.today()
    pages = []
    for _ in range(2):
        context = browser.new_context()
        page = context.new_page()
        page.goto(live_server.url + "/daily")
        page.get_by_role("button", name=f"Play Mastermind #{number}").click()
        page.wait_for_load_state()
        for i, code in enumerate(["1122", "3456"], start=1):
            guess(page, code)
            expect(page.locator("ol.rows > li")).to_have_count(i)
        pages.append(page)
    assert rows(pages[0]) == rows(pages[1])
    assert pages[0].url != pages[1].url  # two games, one secret
    page = pages[0]
    with app.app_context():
        secret = str(store.games.load_game(page.url.rsplit("/", 1)[1]).secret)
    guess(page, secret)
    expect(page.locator(".outcome h2")).to_contain_text("You cracked it")
    share = page.locator("#share-text").input_value()
    assert share.startswith(f"Mastermind daily #{number} 3/10") and secret not in share.split("\n")[0]
    expect(page.locator("section#review")).to_have_attribute("data-skill", re.compile(r"\d+"), timeout=60_000)
    expect(page.locator("#share-text")).to_contain_text("Skill ", timeout=10_000)
    page.goto(live_server.url + "/daily")
    expect(page.locator(".daily-result")).to_have_text("Solved in 3 of 10.")
    page.screenshot(path=str(SHOTS / "daily.png"), full_page=True)
    # Two more games of the player's choice.
    for _ in range(2):
        page.goto(live_server.url + "/")
        page.get_by_role("button", name="Classic").click()
        page.wait_for_load_state()
        with app.app_context():
            code = str(store.games.load_game(page.url.rsplit("/", 1)[1]).secret)
        guess(page, code)
        expect(page.locator(".outcome h2")).to_contain_text("You cracked it")
    page.goto(live_server.url + "/me")
    expect(page.locator(".stats")).to_contain_text("Played3")
    expect(page.locator(".stats")).to_contain_text("Daily Mastermind streak1 day")
    expect(page.locator("svg.histogram")).to_be_visible()
    page.screenshot(path=str(SHOTS / "me.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SHOTS / "me-phone.png"), full_page=True)
    page.goto(live_server.url + "/daily")
    page.screenshot(path=str(SHOTS / "daily-phone.png"), full_page=True)
    for p in pages:
        p.context.close()
