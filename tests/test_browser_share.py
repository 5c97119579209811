"""Sharing in Debian's Chromium: a replay link opened on a server with an
empty database, a challenge played from a second browser, and the computer
breaking a code the player answers for."""

import re
from pathlib import Path

import pytest
from conftest import LiveServer
from playwright.sync_api import expect

from webapp import create_app, store
from webapp.engine import Code, Feedback, GameSize, candidates, feedback

SHOTS = Path(__file__).resolve().parent.parent / "test-results"


def shot(page, name, full_page=True):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full_page)


@pytest.fixture
def empty_server(tmp_path):
    """A second server on a database that has never seen a game."""
    app = create_app({"DATABASE": str(tmp_path / "empty" / "games.sqlite3"), "TESTING": True})
    server = LiveServer(app).start()
    yield server
    server.stop()
    app.extensions["jobs"].stop()


def win_a_game(page, live_server, app, guesses):
    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Classic").click()
    page.wait_for_load_state()
    game_id = page.url.rsplit("/", 1)[1]
    with app.app_context():
        secret = str(store.games.load_game(game_id).secret)
    for guess in [g for g in guesses if g != secret] + [secret]:
        page.locator("#guess-input").fill(guess)
        page.keyboard.press("Enter")
        if guess != secret:
            expect(page.locator(f'ol.rows > li[data-guess="{guess}"]')).to_have_count(1)
    expect(page.locator(".outcome h2")).to_contain_text("You cracked it")
    return secret


def test_replay_on_an_empty_server(page, live_server, app, empty_server, browser):
    secret = win_a_game(page, live_server, app, ["1122", "3456"])
    share = page.locator("#share-text").input_value()
    lines = share.split("\n")
    played = [g for g in ["1122", "3456"] if g != secret] + [secret]
    assert lines[0] == f"Mastermind 4×6 {len(played)}/10" and secret not in share
    shot(page, "board-share.png")
    review = page.locator("section#review")
    expect(review).to_have_attribute("data-skill", re.compile(r"^\d+$"), timeout=60_000)
    skill = review.get_attribute("data-skill")
    expect(review.locator("tbody tr")).to_have_count(len(played))
    shot(page, "board-review.png")
    page.set_viewport_size({"width": 390, "height": 844})
    review.scroll_into_view_if_needed()
    shot(page, "board-review-phone.png")
    page.set_viewport_size({"width": 1280, "height": 720})
    link = page.get_by_role("link", name="Replay link").get_attribute("href")
    path = link.split(live_server.url, 1)[1]
    context = browser.new_context()
    fresh = context.new_page()
    fresh.goto(empty_server.url + path)
    fresh.wait_for_load_state()
    rows = fresh.locator("#replay li.replay-row")
    expect(rows).to_have_count(0)
    fresh.keyboard.press("ArrowRight")
    expect(rows).to_have_count(1)
    fresh.get_by_role("link", name="Next").click()
    expect(rows).to_have_count(min(2, len(played)))
    fresh.keyboard.press("End")
    expect(rows).to_have_count(len(played))
    for row, guess in zip(rows.all(), played):
        reply = feedback(Code.parse(guess, GameSize()), Code.parse(secret, GameSize()))
        assert row.get_attribute("data-guess") == guess
        shown = (row.get_attribute("data-black"), row.get_attribute("data-white"))
        assert shown == (str(reply.black), str(reply.white))
    expect(fresh.locator("#versus .secret-text")).to_have_text(secret)
    expect(fresh.locator("#versus")).to_contain_text("Knuth")
    # The same review, worked out from the link alone on the other server.
    expect(fresh.locator("section#review")).to_have_attribute("data-skill", skill, timeout=60_000)
    shot(fresh, "replay-review.png")
    fresh.keyboard.press("Home")
    expect(rows).to_have_count(0)
    shot(fresh, "replay.png")
    context.close()
    # And without JavaScript.
    context = browser.new_context(java_script_enabled=False)
    nojs = context.new_page()
    nojs.goto(empty_server.url + path)
    nojs.get_by_role("link", name="Last").click()
    expect(nojs.locator("#replay li.replay-row")).to_have_count(len(played))
    nojs.get_by_role("link", name="Previous").click()
    expect(nojs.locator("#replay li.replay-row")).to_have_count(len(played) - 1)
    context.close()


def test_challenge_from_a_second_browser(page, live_server, browser):
    page.goto(live_server.url + "/challenges/new")
    page.get_by_label("Secret (leave empty to draw one)").fill("4215")
    page.get_by_role("button", name="Create the challenge").click()
    expect(page.locator("h1")).to_contain_text("Challenge results")
    expect(page.locator("#challenge-results")).to_contain_text("Nobody has opened the challenge yet")
    link = page.locator("#challenge-link").inner_text()
    assert "4215" not in page.content()

    context = browser.new_context(viewport={"width": 390, "height": 844})
    friend = context.new_page()
    friend.goto(link)
    friend.get_by_label("Your name (optional)").fill("Robin")
    friend.get_by_role("button", name="Play").click()
    friend.wait_for_load_state()
    assert "4215" not in friend.content()
    for guess in ["1122", "4215"]:
        friend.locator("#guess-input").fill(guess)
        friend.keyboard.press("Enter")
        expect(friend.locator(f'ol.rows > li[data-guess="{guess}"]')).to_have_count(1)
    expect(friend.locator(".outcome h2")).to_have_text("You cracked it in 2 guesses!")
    assert friend.locator("#share-text").input_value().splitlines()[-1] == link
    shot(friend, "challenge-player-phone.png")
    context.close()

    # The creator's page updates by itself.
    row = page.locator("#challenge-results table.players tbody tr")
    expect(row).to_have_count(1, timeout=10_000)
    expect(row).to_contain_text("Robin")
    expect(row).to_contain_text("won")
    expect(page.locator(".benchmarks")).to_contain_text("Knuth")
    shot(page, "challenge-results.png")
    # The list refreshes every few seconds; a keyboard user on the replay link stays there.
    page.locator("#replay-1").focus()
    settled = "() => new Promise(done => document.body.addEventListener('htmx:afterSettle', done, {once: true}))"
    page.evaluate(settled)  # the next refresh has been swapped in
    assert page.evaluate("document.activeElement.id") == "replay-1"


def answer(page, black, white):
    page.locator(f'fieldset.pegs-answer:has(legend:text("Black")) input[value="{black}"]').check()
    page.locator(f'fieldset.pegs-answer:has(legend:text("White")) input[value="{white}"]').check()
    page.get_by_role("button", name="Answer", exact=True).click()


def test_computer_breaks_my_code(page, live_server):
    size = GameSize()
    secret = Code.parse("2653", size)
    page.goto(live_server.url + "/codemaker")
    page.get_by_role("button", name="Start", exact=True).click()
    page.wait_for_load_state()
    # A contradictory answer is explained and undone.
    answer(page, 0, 4)  # only 2211 fits: every other reply to the next guess contradicts
    expect(page.locator("#codemaker ol.rows > li")).to_have_count(1)
    second = Code.parse(page.locator(".current-guess").inner_text(), size)
    history = [(Code.parse("1122", size), Feedback(0, 4))]
    possible = {feedback(second, Code.from_index(int(i), size)) for i in candidates(size, history)}
    wrong = next(
        Feedback(b, w) for b in range(5) for w in range(5 - b) if (b, w) != (3, 1) and Feedback(b, w) not in possible
    )
    answer(page, wrong.black, wrong.white)
    expect(page.locator("#codemaker-error")).to_contain_text(
        f"No code gives all of these answers: 1122 → 0 black, 4 white; {second} → {wrong.describe()}."
    )
    expect(page.locator("#codemaker ol.rows > li")).to_have_count(1)
    page.get_by_role("button", name="Take back the last answer").click()
    expect(page.locator("#codemaker ol.rows > li")).to_have_count(0)
    expect(page.locator(".current-guess")).to_have_text("1122")
    # The undo form went with the last answer: focus waits on the answer's first choice.
    expect(page.locator('#answer-form input[name="black"][value="0"]')).to_be_focused()
    # Now honestly, by keyboard for the first answer.
    moves = 0
    while page.locator("#codemaker").get_attribute("data-status") != "solved":
        guess = Code.parse(page.locator(".current-guess").inner_text(), size)
        reply = feedback(guess, secret)
        if moves == 0:
            page.locator('input[name="black"][value="0"]').focus()
            for _ in range(reply.black):
                page.keyboard.press("ArrowRight")
            page.locator('input[name="white"][value="0"]').focus()
            for _ in range(reply.white):
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        else:
            answer(page, reply.black, reply.white)
        moves += 1
        expect(page.locator("#codemaker ol.rows > li")).to_have_count(moves)
        if moves == 1:  # the answer replaced its form: focus is on the new one's first choice
            expect(page.locator('#answer-form input[name="black"][value="0"]')).to_be_focused()
        assert moves <= 5
    expect(page.locator("#outcome .secret-text")).to_have_text("2653")
    expect(page.locator("#outcome")).to_be_focused()
    shot(page, "codemaker-solved.png")
