"""The solver pages in Debian's Chromium: stepping by buttons and keys, with
JavaScript off, presenter mode, and copied URLs reopened in a fresh context."""

from pathlib import Path

from playwright.sync_api import expect

from webapp.engine import GameSize, analyse, get_strategy
from webapp.engine.lines import BEST_CANDIDATE, GREEDY, adversary_line

SHOTS = Path(__file__).resolve().parent.parent / "test-results"
LINE = [str(r.guess) for r in adversary_line(BEST_CANDIDATE, GameSize(), GREEDY).rows]


def shot(page, name, full_page=True):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full_page)


def rows(page):
    return page.locator("#line li.line-row")


def expect_guesses(page, count):
    expect(rows(page)).to_have_count(count)
    assert [rows(page).nth(i).get_attribute("data-guess") for i in range(count)] == LINE[:count]


def test_optimal_game_by_buttons_and_keys(page, live_server, browser):
    page.goto(live_server.url + "/solver/optimal-game?pegs=4&colors=6&step=0")
    expect_guesses(page, 0)
    page.evaluate("window.sameDocument = true")
    page.keyboard.press("ArrowRight")
    expect_guesses(page, 1)
    page.keyboard.press("ArrowRight")
    expect_guesses(page, 2)
    expect(page).to_have_url(live_server.url + "/solver/optimal-game?pegs=4&colors=6&step=2")
    page.get_by_role("link", name="Next").click()
    expect_guesses(page, 3)
    expect(page.get_by_role("link", name="Next")).to_be_focused()  # focus survives the swap
    page.keyboard.press("Enter")
    expect_guesses(page, 4)
    page.get_by_role("link", name="Previous").click()
    expect_guesses(page, 3)
    expect(page.locator("#line-announce")).to_contain_text(f"Guess 3: {LINE[2]}")
    page.keyboard.press("End")
    expect_guesses(page, 5)
    expect(page.locator("#line-progress")).to_have_text("Solved in 5 guesses: the last reply is all black.")
    page.keyboard.press("Home")
    expect_guesses(page, 0)
    # Play steps on its own and stops at the end; its button says so.
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("button", name="Pause")).to_have_attribute("aria-pressed", "true")
    expect_guesses(page, 2)
    expect_guesses(page, 5)
    expect(page.get_by_role("button", name="Play")).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("window.sameDocument")
    shot(page, "optimal-game-desktop.png")

    # A copied URL reopens the same view in a fresh context.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect_guesses(page, 3)
    url = page.url
    context = browser.new_context(viewport={"width": 390, "height": 844})
    fresh = context.new_page()
    fresh.goto(url)
    expect_guesses(fresh, 3)
    shot(fresh, "optimal-game-phone.png")
    context.close()


def test_optimal_game_deepest_selector(page, live_server):
    page.goto(live_server.url + "/solver/optimal-game")
    page.locator("#codebreaker-select").select_option("optimal")
    page.locator("#adversary-select").select_option("deepest")
    page.get_by_role("button", name="Show the line").click()
    expect(rows(page)).to_have_count(analyse("optimal", GameSize()).max)
    expect(page.locator(".caveat")).to_contain_text("worst case (6 guesses)")
    assert "strategy=optimal" in page.url and "adversary=deepest" in page.url


def test_optimal_game_without_javascript(nojs_page, live_server):
    page = nojs_page
    page.goto(live_server.url + "/solver/optimal-game?step=0")
    expect(page.get_by_role("button", name="Play")).to_be_hidden()
    for count in (1, 2):
        page.get_by_role("link", name="Next").click()
        expect_guesses(page, count)
    page.get_by_role("link", name="Last").click()
    expect_guesses(page, 5)
    assert page.url.endswith("step=5")
    page.get_by_role("link", name="First").click()
    expect_guesses(page, 0)
    page.goto(live_server.url + "/solver/optimal-game?step=7")
    expect(page.get_by_role("alert")).to_contain_text("Step 7 is past the end")


def play_classroom(page, secret):
    """Step with the right arrow until the secret is found; return the steps."""
    steps = 0
    while page.locator("#step").get_attribute("data-solved") != "true":
        page.keyboard.press("ArrowRight")
        steps += 1
        expect(page.locator("#step ol.rows > li")).to_have_count(steps)
        assert steps <= 10
    expect(page.locator("#step .secret-text")).to_have_text(secret)
    return steps


def test_classroom_presenter_mode(page, live_server, browser):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(live_server.url + "/solver/classroom")
    page.get_by_label("Secret (typed by the teacher)").fill("3632")
    expect(page.get_by_label("Secret (typed by the teacher)")).to_have_attribute("type", "password")
    page.get_by_label("Presenter mode").check()
    page.get_by_role("button", name="Start", exact=True).click()
    page.wait_for_load_state()  # the page's scripts are in place before keys are pressed
    expect(page.locator("body")).to_have_class("presenter")
    assert "3632" not in page.url
    expect(page.locator(".chosen-code")).to_have_text("1122")
    assert "3632" not in page.content()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step ol.rows > li")).to_have_count(1)
    expect(page.locator("#why")).to_contain_text("scores best by the Knuth rule")
    expect(page.locator("#step-announce")).to_contain_text("Guess 1: 1122 got")
    shot(page, "classroom-presenter-1280x720.png", full_page=False)
    page.set_viewport_size({"width": 1920, "height": 1080})
    shot(page, "classroom-presenter-1920x1080.png", full_page=False)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#step ol.rows > li")).to_have_count(0)
    steps = play_classroom(page, "3632")
    from webapp.engine import Code

    size = GameSize()
    assert steps == analyse("knuth", size).depths[Code.parse("3632", size).index(size)]
    shot(page, "classroom-solved.png")

    # The copied URL reopens the solved position.
    context = browser.new_context()
    fresh = context.new_page()
    fresh.goto(page.url)
    expect(fresh.locator("#step .secret-text")).to_have_text("3632")
    expect(fresh.locator("#step ol.rows > li")).to_have_count(steps)
    context.close()


def test_classroom_on_a_phone(page, live_server):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/solver/classroom?pegs=4&colors=6&strategy=entropy&history=1234:0,2")
    expect(page.locator(".chosen-code")).to_have_text(
        str(adversary_line(get_strategy("entropy"), GameSize(), GREEDY).rows[1].guess)
    )
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing forces sideways scrolling
    shot(page, "classroom-phone.png")


def test_classroom_without_javascript(nojs_page, live_server):
    page = nojs_page
    page.goto(live_server.url + "/solver/classroom")
    page.get_by_label("a secret drawn at random").check()
    page.get_by_role("button", name="Start", exact=True).click()
    steps = 0
    while page.locator("#step").get_attribute("data-solved") != "true":
        page.get_by_role("link", name="Next guess").click()
        steps += 1
        expect(page.locator("#step ol.rows > li")).to_have_count(steps)
        assert steps <= 5  # Knuth never needs more than five
    expect(page.locator("#step .secret-text")).to_be_visible()
    page.get_by_role("link", name="Back").click()
    expect(page.locator("#step ol.rows > li")).to_have_count(steps - 1)
