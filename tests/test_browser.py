"""Real games in Debian's Chromium: by mouse, by keyboard, and with JavaScript off."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from webapp import store
from webapp.engine import Code, GameSize, candidates, feedback
from webapp.web.loaders import play_guess

SHOTS = Path(__file__).resolve().parent.parent / "test-results"


def secret_of(app, page) -> tuple[str, store.games.Game]:
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    with app.app_context():
        game = store.games.load_game(game_id)
    return str(game.secret), game


def wrong_guesses(secret: str, colors: int, pegs: int, count: int) -> list[str]:
    """A few guesses that are not the secret, to see real feedback rows."""
    out, n = [], 1
    while len(out) < count:
        guess = "".join(str((n + i) % colors + 1) for i in range(pegs))
        if guess != secret and guess not in out:
            out.append(guess)
        n += 1
    return out


def check_rows(page, game, secret: str, guesses: list[str]):
    """Every row on the board shows what the engine computes."""
    rows = page.locator("ol.rows > li.row")
    expect(rows).to_have_count(len(guesses))
    s = Code.parse(secret, game.size)
    for row, guess in zip(rows.all(), guesses):
        reply = feedback(Code.parse(guess, game.size), s)
        assert row.get_attribute("data-guess") == guess
        assert (int(row.get_attribute("data-black")), int(row.get_attribute("data-white"))) == (
            reply.black,
            reply.white,
        )
        expect(row.locator(".reply-text")).to_have_text(reply.describe())
        expect(row.locator(".key.black")).to_have_count(reply.black)
        expect(row.locator(".key.white")).to_have_count(reply.white)


def start(page, live_server, preset="Classic"):
    page.goto(live_server.url + "/")
    page.get_by_role("button", name=preset).click()
    expect(page.locator("#game")).to_be_visible()
    page.wait_for_load_state()


def expect_ready_for_next_guess(page, count):
    """The new row is on the board and focus is back in the emptied field."""
    expect(page.locator("ol.rows > li")).to_have_count(count)
    expect(page.locator("#guess-input")).to_be_focused()
    expect(page.locator("#guess-input")).to_have_value("")


def test_win_by_clicking(page, live_server, app):
    start(page, live_server)
    secret, game = secret_of(app, page)
    played = wrong_guesses(secret, 6, 4, 2)
    page.evaluate("window.sameDocument = true")
    for count, guess in enumerate(played + [secret], start=1):
        page.get_by_role("button", name="Remove the last colour").click()  # harmless on empty
        for digit in guess:
            page.locator(f'.palette button[data-color="{digit}"]').click()
        expect(page.locator("#guess-input")).to_have_value(guess)
        page.get_by_role("button", name="Guess", exact=True).click()
        if guess != secret:
            expect_ready_for_next_guess(page, count)
    assert page.evaluate("window.sameDocument")  # swapped in place, never reloaded
    expect(page.locator(".outcome h2")).to_have_text("You cracked it in 3 guesses!")
    expect(page.locator("#announce")).to_contain_text("You cracked the code in 3 guesses")
    check_rows(page, game, secret, played + [secret])
    expect(page.locator(".secret-text")).to_have_text(secret)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "board-won.png"), full_page=True)


def test_incomplete_guess_says_why(page, live_server, app):
    start(page, live_server)
    page.locator('.palette button[data-color="3"]').click()
    page.get_by_role("button", name="Guess", exact=True).click()
    expect(page.locator("#guess-error")).to_contain_text("A code has 4 pegs; '3' has 1.")
    page.locator("#guess-input").fill("1279")
    page.keyboard.press("Enter")
    expect(page.locator("#guess-error")).to_contain_text("Colour 7 is not in this game")
    expect(page.locator("ol.rows > li")).to_have_count(0)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "board-error.png"), full_page=True)


def test_win_by_keyboard_only(page, live_server, app):
    page.goto(live_server.url + "/")
    # Tab from the top of the page to the Brain Breaker preset and press Enter.
    for _ in range(20):
        page.keyboard.press("Tab")
        if "Brain Breaker" in (page.evaluate("document.activeElement.textContent") or ""):
            break
    page.keyboard.press("Enter")
    expect(page.locator("#guess-input")).to_be_focused()
    page.wait_for_load_state()
    page.evaluate("window.sameDocument = true")
    secret, game = secret_of(app, page)
    played = wrong_guesses(secret, 5, 4, 3)
    for count, guess in enumerate(played + [secret], start=1):
        page.keyboard.type(guess[:2] + "5")
        page.keyboard.press("Backspace")
        page.keyboard.type(guess[2:])
        page.keyboard.press("Enter")
        if guess != secret:
            expect_ready_for_next_guess(page, count)
    assert page.evaluate("window.sameDocument")
    expect(page.locator(".outcome h2")).to_have_text("You cracked it in 4 guesses!")
    check_rows(page, game, secret, played + [secret])
    # Focus lands on the outcome; the next Tab reaches "Play again".
    expect(page.locator("#outcome")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Play again")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#guess-input")).to_be_focused()
    expect(page.locator("ol.rows > li")).to_have_count(0)


def test_digits_typed_outside_the_field(page, live_server, app):
    start(page, live_server)
    page.locator('.palette button[data-color="1"]').focus()
    page.keyboard.type("23")
    page.keyboard.press("Backspace")
    page.keyboard.type("456")
    expect(page.locator("#guess-input")).to_have_value("2456")
    expect(page.locator(".slots .peg.filled")).to_have_count(4)


def test_play_without_javascript(nojs_page, live_server, app):
    page = nojs_page
    start(page, live_server, "Distinct")
    expect(page.locator(".palette")).to_be_hidden()
    secret, game = secret_of(app, page)
    assert game.size.distinct
    played = wrong_guesses(secret, 6, 4, 2) + ["12"]
    for guess in played:
        page.locator("#guess-input").fill(guess)
        page.get_by_role("button", name="Guess", exact=True).click()
        if guess == "12":
            expect(page.locator("#guess-error")).to_contain_text("has 2")
    played.remove("12")
    page.get_by_role("button", name="Show codes still possible").click()
    history = [
        (Code.parse(g, game.size), feedback(Code.parse(g, game.size), Code.parse(secret, game.size))) for g in played
    ]
    left = candidates(game.size, history)
    expect(page.locator("#possible-count")).to_have_text(str(len(left)))
    if len(left) <= 50:  # the codes themselves, as pegs
        expect(page.locator(".possible-codes .code")).to_have_count(len(left))
    page.locator("#guess-input").fill(secret)
    page.get_by_role("button", name="Guess", exact=True).click()
    expect(page.locator(".outcome h2")).to_contain_text("You cracked it in 3 guesses")
    check_rows(page, game, secret, played + [secret])
    expect(page.get_by_role("button", name="Show codes still possible")).to_have_count(0)


def test_suggestion_button(page, live_server, app):
    with app.app_context():  # a secret that neither 1122 nor 1234 finds
        game = store.games.create_game(GameSize(), 10, Code.parse("6543", GameSize()))
    page.goto(f"{live_server.url}/games/{game.id}")
    page.wait_for_load_state()
    page.get_by_role("button", name="Suggest a guess").click()
    expect(page.locator(".suggested-code")).to_have_text("1122")  # Knuth's first guess
    expect(page.get_by_role("button", name="Suggest a guess")).to_be_focused()  # the swap replaced it
    expect(page.locator("#guess-input")).to_have_value("1122")
    expect(page.locator("svg.partition rect")).to_have_count(14)
    page.get_by_label("Strategy").select_option("entropy")
    page.get_by_role("button", name="Suggest a guess").click()
    expect(page.locator(".suggested-code")).to_have_text("1234")
    # The hint is announced, focus stays where it was (no keyboard pops up on
    # a phone), and the caret waits after the code: Backspace removes its last peg.
    expect(page.locator("#announce")).to_have_text("Entropy suggests 1234; it is now in the guess field.")
    expect(page.locator("#guess-input")).not_to_be_focused()
    page.locator("#guess-input").focus()
    assert page.evaluate("document.getElementById('guess-input').selectionStart") == 4
    page.keyboard.press("Backspace")
    expect(page.locator("#guess-input")).to_have_value("123")
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    expect(page.locator("ol.rows > li")).to_have_count(1)
    expect(page.locator("ol.rows > li").first).to_have_attribute("data-guess", "1234")
    expect(page).to_have_title("Guess 2 of 10: Mastermind 4×6")  # the tab follows the game
    page.get_by_role("button", name="Show codes still possible").click()
    expect(page.locator("#announce")).to_contain_text("Codes still possible: ")
    expect(page.get_by_role("button", name="Hide codes still possible")).to_be_focused()
    SHOTS.mkdir(exist_ok=True)
    page.get_by_role("button", name="Suggest a guess").click()
    expect(page.locator(".suggested-code")).to_be_visible()
    page.screenshot(path=str(SHOTS / "board-suggestion.png"), full_page=True)


def test_a_half_typed_guess_survives_a_language_switch(page, live_server, app):
    """The board fills the field with the last hint; a guess being typed
    when the visitor switches language or theme comes back instead."""
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("6543", GameSize()))
    page.goto(f"{live_server.url}/games/{game.id}")
    page.get_by_role("button", name="Suggest a guess").click()
    expect(page.locator("#guess-input")).to_have_value("1122")
    page.locator("#guess-input").fill("56")
    page.get_by_role("button", name="Deutsch").click()
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#guess-input")).to_have_value("56")
    page.reload()  # kept for that one return only: the hint is back
    expect(page.locator("#guess-input")).to_have_value("1122")


def test_losing_reveals_the_secret(page, live_server, app):
    page.goto(live_server.url + "/")
    page.get_by_label("Pegs").fill("3")
    page.get_by_label("Colours", exact=True).fill("4")
    page.get_by_label("Guesses allowed").fill("2")
    page.get_by_role("button", name="Start game").click()
    page.wait_for_load_state()
    secret, game = secret_of(app, page)
    played = wrong_guesses(secret, 4, 3, 2)
    for count, guess in enumerate(played, start=1):
        page.locator("#guess-input").fill(guess)
        page.keyboard.press("Enter")
        if count < len(played):
            expect_ready_for_next_guess(page, count)
    expect(page.locator(".outcome h2")).to_have_text("Out of guesses.")
    expect(page.locator(".secret-text")).to_have_text(secret)
    expect(page.locator("#announce")).to_contain_text(f"The secret was {secret}")
    check_rows(page, game, secret, played)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "board-lost.png"), full_page=True)


def test_back_shows_the_board_as_it_is(page, live_server, app):
    """Leave a game after three guesses and come back with Back: the board
    shows the three rows and takes the fourth guess (it was once a stale
    copy from the browser's cache, whose next guess got a 409)."""
    start(page, live_server)
    secret, game = secret_of(app, page)
    played = wrong_guesses(secret, 6, 4, 4)
    for count, guess in enumerate(played[:3], start=1):
        page.locator("#guess-input").fill(guess)
        page.keyboard.press("Enter")
        expect_ready_for_next_guess(page, count)
    page.goto(live_server.url + "/solver/optimal-game")
    page.go_back()
    page.wait_for_load_state()
    expect(page.locator("ol.rows > li")).to_have_count(3)
    expect(page.locator("#guess-input")).to_be_visible()
    page.locator("#guess-input").fill(played[3])
    page.keyboard.press("Enter")
    expect(page.locator("ol.rows > li")).to_have_count(4)
    expect(page.locator("#guess-error")).to_have_text("")


def test_no_content_security_policy_violations(page, live_server, app):
    """Every page works under the Content-Security-Policy: nothing blocked."""
    violations = []
    page.on("console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None)
    start(page, live_server)
    page.locator('.palette button[data-color="1"]').click()
    for url in (
        "/solver/optimal-game?step=2",
        "/solver/classroom?history=1122:1,0",
        "/solver/compare",
        "/solver/tree?open=1,0",
        "/challenges/new",
        "/codemaker",
    ):
        page.goto(live_server.url + url)
        page.wait_for_load_state()
    page.keyboard.press("ArrowRight")
    assert violations == []


def test_a_failed_save_is_shown_on_the_board(page, live_server, app):
    start(page, live_server)
    app.config["DATABASE_READ_ONLY"] = True
    try:
        page.locator("#guess-input").fill("1122")
        page.keyboard.press("Enter")
        expect(page.locator("#guess-error")).to_contain_text("could not be saved just now")
        expect(page.locator("ol.rows > li")).to_have_count(0)
    finally:
        app.config["DATABASE_READ_ONLY"] = False
    page.keyboard.press("Enter")
    expect(page.locator("ol.rows > li")).to_have_count(1)


def test_palette_is_one_tab_stop_with_arrow_keys(page, live_server, app):
    start(page, live_server)
    page.locator("#guess-input").focus()
    page.keyboard.press("Tab")  # the Guess button
    page.keyboard.press("Tab")  # into the palette: its first colour
    expect(page.locator('.palette button[data-color="1"]')).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator('.palette button[data-color="3"]')).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("End")
    expect(page.get_by_role("button", name="Remove the last colour")).to_be_focused()
    page.keyboard.press("Tab")  # out of the palette in one step
    expect(page.get_by_label("Strategy")).to_be_focused()
    expect(page.locator("#guess-input")).to_have_value("3")


@pytest.mark.parametrize("pegs,colors", [(4, 6), (4, 5), (5, 8), (6, 9), (6, 3)])
def test_boards_fit_a_phone(browser, live_server, app, pegs, colors):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    with app.app_context():
        game = store.games.create_game(GameSize(pegs, colors), 10)
        for guess in wrong_guesses(str(game.secret), colors, pegs, 3):
            play_guess(game.id, Code.parse(guess, GameSize(pegs, colors)))
    page.goto(f"{live_server.url}/games/{game.id}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    size = page.locator(".palette button").first.bounding_box()
    assert size["width"] >= 44 and size["height"] >= 44
    if (pegs, colors) == (6, 9):
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "board-6x9-phone.png"), full_page=True)
    context.close()


def test_strategy_is_explained_beside_the_selector(page, live_server, app):
    start(page, live_server)
    expect(page.locator("#strategy-about")).to_contain_text("Minimise the size of the largest class")
    expect(page.locator("#strategy-about")).to_contain_text("Knuth 1976")
    page.get_by_label("Strategy").select_option("most-parts")
    expect(page.locator("#strategy-about")).to_contain_text("Maximise the number of non-empty classes")
    expect(page.locator("#strategy-about")).to_contain_text("Kooi 2005")


def test_hard_mode_refuses_a_guess_that_could_not_be_the_secret(page, live_server, app):

    page.goto(live_server.url + "/")
    page.get_by_label("Hard mode").check()
    page.get_by_role("button", name="Start game").click()
    page.wait_for_load_state()
    expect(page.locator("h1")).to_contain_text("hard mode")
    secret, _ = secret_of(app, page)
    size = GameSize()
    first = "1122" if secret != "1122" else "3344"
    page.locator("#guess-input").fill(first)
    page.keyboard.press("Enter")
    expect(page.locator("ol.rows > li")).to_have_count(1)
    fits = {
        int(i)
        for i in candidates(
            size, [(Code.parse(first, size), feedback(Code.parse(first, size), Code.parse(secret, size)))]
        )
    }
    wrong = next(str(Code.from_index(i, size)) for i in range(size.n_codes) if i not in fits)
    page.locator("#guess-input").fill(wrong)
    page.keyboard.press("Enter")
    expect(page.get_by_role("alert").filter(has_text="cannot be the secret")).to_contain_text(
        f"{wrong} cannot be the secret: {first} got"
    )
    expect(page.locator("ol.rows > li")).to_have_count(1)  # nothing stored


def test_ten_colours_by_keys_and_palette(page, live_server, app):
    """The tenth colour is the key 0 and the last palette button; the pegs show 0."""
    page.goto(live_server.url + "/")
    page.locator("input[name=colors]").fill("10")
    page.get_by_role("button", name="Start game").click()
    page.wait_for_load_state()
    expect(page.locator(".palette button.peg")).to_have_count(10)
    page.locator("main").click(position={"x": 5, "y": 5})
    for key in "10":
        page.keyboard.press(key)
    page.get_by_role("button", name="Add 0 white").click()
    page.get_by_role("button", name="Add 9 brown").click()
    expect(page.locator("#guess-input")).to_have_value("1009")
    page.get_by_role("button", name="Guess", exact=True).click()
    row = page.locator('ol.rows > li[data-guess="1009"]')
    expect(row).to_have_count(1)
    expect(row.locator(".peg b")).to_have_text(["1", "0", "0", "9"])
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "ten-colours.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SHOTS / "ten-colours-phone.png"), full_page=True)


def test_bulls_and_cows_in_spanish_with_optimal_hints(page, live_server, app):
    """Picas y Fijas, as a Spanish class plays it: a repeated digit is refused
    with the rule, the optimal hints come off the shipped tree, the rows, the
    share text and the review speak of fijas and picas (bulls and cows)."""
    import re

    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Español").click()
    expect(page.locator("html")).to_have_attribute("lang", "es")
    page.get_by_role("button", name="Picas y Fijas").click()
    page.wait_for_load_state()
    expect(page.locator("h1")).to_contain_text("Picas y Fijas")
    secret, game = secret_of(app, page)
    assert game.size == GameSize(4, 10, True, True)
    page.locator("#guess-input").fill("12")  # the board's own check, in Spanish, before anything is sent
    page.keyboard.press("Enter")
    expect(page.locator("#guess-error")).to_have_text("Un código tiene 4 cifras; «12» tiene 2.")
    page.locator("#guess-input").fill("1123")  # the server's refusal: a digit twice, in Spanish
    page.keyboard.press("Enter")
    expect(page.locator("#guess-error")).to_have_text(
        "1123 repite la cifra 1: en este juego cada intento tiene cifras distintas."
    )
    expect(page.locator("ol.rows > li")).to_have_count(0)
    page.get_by_label("Estrategia").select_option("optimal")
    played = []
    while not played or played[-1] != secret:
        page.get_by_role("button", name="Sugerir un intento").click()
        expect(page.locator(".suggested-code")).to_have_count(1)
        guess = page.locator(".suggested-code").inner_text().strip()
        expect(page.locator("#guess-input")).to_have_value(guess)
        page.locator("#guess-input").press("Enter")
        played.append(guess)
        expect(page.locator("ol.rows > li")).to_have_count(len(played))
        assert len(played) <= 7  # the optimal tree never needs more
    assert played[0] == "1234"
    s = Code.parse(secret, game.size)
    for row, guess in zip(page.locator("ol.rows > li.row").all(), played):
        reply = feedback(Code.parse(guess, game.size), s)
        bulls = f"{reply.black} {'fija' if reply.black == 1 else 'fijas'}"
        cows = f"{reply.white} {'pica' if reply.white == 1 else 'picas'}"
        expect(row.locator(".reply-text")).to_have_text(f"{bulls}, {cows}")
    expect(page.locator(".outcome h2")).to_contain_text("Lo descifraste")
    share = page.locator("#share-text").input_value()
    assert share.startswith(f"Picas y Fijas {len(played)}/10") and "fija" in share and secret not in share
    review = page.locator("section#review")
    expect(review).to_have_attribute("data-skill", re.compile(r"^\d+$"), timeout=60_000)
    expect(review.locator("h2")).to_have_text("Revisión: ¿qué tan bueno fue cada intento?")
    expect(review.locator("tbody tr")).to_have_count(len(played))
    expect(review.locator("tbody tr").first.locator(".rating")).to_have_text("mejor")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "bulls-and-cows.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SHOTS / "bulls-and-cows-phone.png"), full_page=True)


def test_a_game_in_german(page, live_server, app):
    """The header's switcher turns the pages German and remembers it; a whole
    game is played by keyboard, every row's words and the outcome in German."""
    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Deutsch").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("h1")).to_have_text("Mastermind spielen")
    page.get_by_role("button", name="Klassisch").click()
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    secret, game = secret_of(app, page)
    guesses = [g for g in ["1122", "3456"] if g != secret] + [secret]
    for guess in guesses:
        page.locator("#guess-input").fill(guess)
        page.keyboard.press("Enter")
        expect(page.locator(f'ol.rows > li[data-guess="{guess}"]')).to_have_count(1)
    s = Code.parse(secret, game.size)
    for row, guess in zip(page.locator("ol.rows > li.row").all(), guesses):
        reply = feedback(Code.parse(guess, game.size), s)
        expect(row.locator(".reply-text")).to_have_text(f"{reply.black} schwarz, {reply.white} weiß")
    noun = "Versuch" if len(guesses) == 1 else "Versuchen"
    expect(page.locator(".outcome h2")).to_have_text(f"Geknackt mit {len(guesses)} {noun}!")
    expect(page.get_by_role("button", name="Noch einmal spielen")).to_be_visible()
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "board-german.png"), full_page=True)
