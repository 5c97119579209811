"""The live classroom in Chromium: a teacher on a projector and three
students, one of them on a phone, each in a browser context of their own.
Every wait is for something on a screen; none is for a length of time."""

from __future__ import annotations

import csv
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

PROJECTOR = {"width": 1920, "height": 1080}
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa"]}}
SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"


def phone(browser, **options):
    return browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, **options)


def start_session(browser, base: str, secret: str | None = None):
    """The teacher's projector, started from the site's "Live session" page
    (behind the header's "Teach") with a typed secret, or with its defaults
    (a random secret); (page, join code)."""
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    page.goto(base + "/")
    site = page.get_by_role("navigation", name="Site")
    site.get_by_role("link", name="Teach", exact=True).click()
    site.get_by_role("link", name="Live session", exact=True).click()
    if secret:
        page.locator("input[name=source][value=teacher]").check()
        page.get_by_label("Secret (typed by the teacher)").fill(secret)
    page.get_by_role("button", name="Start a live session").click()
    page.wait_for_url(re.compile(r"/live/[A-Z0-9]{6}/teach$"))
    code = page.locator(".join-code").inner_text().strip()
    assert page.url.endswith(f"/live/{code}/teach")
    return page, code


def join(context, base: str, code: str, nickname: str, typed: bool):
    """A student joins: typing the code at /join, or through the QR code's link."""
    page = context.new_page()
    if typed:  # the code first; then the session's own page asks for the name
        page.goto(base + "/join")
        page.get_by_label("Code").fill(code.lower())
        page.get_by_role("button", name="Join").click()
        page.wait_for_url(f"**/join/{code}")
    else:
        page.goto(f"{base}/join/{code}")
        expect(page.get_by_label("Code")).to_have_value(code)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name="Join").click()
    page.wait_for_url(f"**/live/{code}")
    expect(page.locator(".live-step")).to_have_attribute("data-step", "0")
    return page


def propose(page, guess: str) -> None:
    page.get_by_label("Which guess would you play next?").fill(guess)
    page.get_by_role("button", name="Propose").click()
    expect(page.locator("#my-vote")).to_contain_text(f"Your proposal: {guess}")


def test_a_class_follows_three_steps_and_the_projector_weighs_its_votes(browser, live_server):
    base = live_server.url
    teacher, code = start_session(browser, base, secret="1116")  # five guesses: still open after three
    students = [
        join(phone(browser), base, code, "Ann", typed=True),
        join(browser.new_context(viewport=DESKTOP), base, code, "<i>Bo</i>", typed=False),
        join(browser.new_context(viewport=DESKTOP), base, code, "", typed=False),
    ]
    expect(teacher.locator(".students")).to_contain_text("3 students have joined")
    expect(teacher.locator(".students")).to_contain_text("<i>Bo</i>")  # shown as typed, not as markup

    for student, guess in zip(students, ("1123", "1123", "1122"), strict=True):
        propose(student, guess)
    rows = teacher.locator("#live-votes .proposals tbody tr")
    expect(rows).to_have_count(2)
    # The class's favourite first, with its votes and E, beside Knuth's choice and its E.
    expect(rows.nth(0)).to_contain_text("1123")
    expect(rows.nth(0).locator(".vote-count")).to_have_text("2")
    expect(rows.nth(0)).to_contain_text("4.340")
    expect(rows.nth(1)).to_contain_text("1122")
    expect(rows.nth(1)).to_contain_text("4.400")
    # The strategy's choice and the comparisons wait until the teacher opens them.
    expect(teacher.locator("#live-votes .verdict")).to_be_hidden()
    teacher.get_by_text("Show the Knuth strategy's choice").click()
    expect(teacher.locator("#live-votes .verdict")).to_be_visible()
    expect(teacher.locator("#live-votes .verdict")).to_have_text(
        "The class's favourite 1123 would save 0.059 guesses on 1122, the Knuth strategy's choice."
    )

    played = []
    for step in (1, 2, 3):
        teacher.keyboard.press("ArrowRight")
        expect(teacher.locator(".live-projector")).to_have_attribute("data-step", str(step))
        played.append(teacher.locator(".live-projector ol.rows li.row").nth(step - 1).get_attribute("data-guess"))
        for student in students:
            expect(student.locator(".live-step")).to_have_attribute("data-step", str(step))
            shown = student.locator(".live-step ol.rows li.row")
            expect(shown).to_have_count(step)
            assert [shown.nth(i).get_attribute("data-guess") for i in range(step)] == played
    assert played[0] == "1122"
    # A new step, new proposals: the projector's list starts empty again.
    expect(teacher.locator("#live-votes")).to_contain_text("No proposals yet")
    propose(students[0], played[0])
    expect(teacher.locator("#live-votes .proposals tbody tr")).to_have_count(1)
    assert students[0].evaluate(SIDEWAYS) <= 0, "the phone's page scrolls sideways"
    for page in (teacher, *students):
        page.context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_live_pages_pass_axe_and_fit_a_phone(browser, live_server, theme):
    base = live_server.url
    teacher, code = start_session(browser, base)
    context = phone(browser, color_scheme=theme)
    page = context.new_page()
    page.goto(f"{base}/join/{code}")
    assert page.evaluate(SIDEWAYS) <= 0
    assert Axe().run(page, options=WCAG).response["violations"] == []
    page.get_by_role("button", name="Join").click()
    page.wait_for_url(f"**/live/{code}")
    propose(page, "1234")
    teacher.keyboard.press("ArrowRight")
    expect(page.locator(".live-step")).to_have_attribute("data-step", "1")
    assert page.evaluate(SIDEWAYS) <= 0
    assert Axe().run(page, options=WCAG).response["violations"] == []
    teacher.emulate_media(color_scheme=theme)
    propose(page, "1122")
    expect(teacher.locator("#live-votes .proposals tbody tr")).to_have_count(1)
    assert Axe().run(teacher, options=WCAG).response["violations"] == []
    # The projector on a phone too (a teacher stepping from their own).
    teacher.set_viewport_size(PHONE)
    assert teacher.evaluate(SIDEWAYS) <= 0
    context.close()
    teacher.context.close()


def test_a_student_without_javascript_follows_with_refresh(browser, nojs_page, live_server):
    base = live_server.url
    teacher, code = start_session(browser, base)
    page = nojs_page
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/join")
    page.get_by_label("Code").fill(code)
    page.get_by_role("button", name="Join").click()
    page.wait_for_url(f"**/join/{code}")
    page.get_by_role("button", name="Join").click()
    page.wait_for_url(f"**/live/{code}")
    page.get_by_label("Which guess would you play next?").fill("1122")
    page.get_by_role("button", name="Propose").click()
    page.wait_for_url(f"**/live/{code}")
    expect(page.locator("#my-vote")).to_contain_text("Your proposal: 1122")
    expect(teacher.locator("#live-votes .proposals tbody tr")).to_have_count(1)
    teacher.keyboard.press("ArrowRight")
    expect(teacher.locator(".live-projector")).to_have_attribute("data-step", "1")
    page.get_by_role("link", name="Refresh").click()
    expect(page.locator(".live-step")).to_have_attribute("data-step", "1")
    teacher.context.close()


def test_a_teacher_without_javascript_steps_with_buttons(browser, live_server):
    context = browser.new_context(java_script_enabled=False, viewport=DESKTOP)
    page = context.new_page()
    page.goto(live_server.url + "/solver/classroom")
    page.get_by_role("button", name="Start a live session").click()  # visible, and right at the first click
    page.wait_for_url(re.compile(r"/live/[A-Z0-9]{6}/teach$"))
    page.get_by_role("button", name="Next guess").click()
    expect(page.locator(".live-projector")).to_have_attribute("data-step", "1")
    page.get_by_role("button", name="Back").click()
    expect(page.locator(".live-projector")).to_have_attribute("data-step", "0")
    context.close()


def test_the_live_pages_speak_german_and_spanish(browser, live_server):
    base = live_server.url
    teacher, code = start_session(browser, base)
    for language in ("de", "es"):
        context = phone(browser, locale=language)
        page = context.new_page()
        page.goto(f"{base}/join/{code}")
        assert page.locator("html").get_attribute("lang") == language
        heading = page.locator("h1").inner_text()
        assert heading and heading != "Join a live session"
        assert page.evaluate(SIDEWAYS) <= 0
        context.close()
    teacher.context.close()


def test_the_teacher_keeps_the_room_and_a_report(browser, live_server):
    """A teacher and three phones: one student removed, the room locked, a
    phone reloaded and another cut off and back, the votes downloaded."""
    base = live_server.url
    teacher, code = start_session(browser, base, secret="1116")
    phones = [phone(browser) for _ in range(3)]
    ann, rude, cy = (
        join(c, base, code, name, typed=True) for c, name in zip(phones, ("Ann", "Rude", "Cy"), strict=True)
    )
    expect(teacher.locator(".students")).to_contain_text("3 students have joined")
    for page, guess in ((ann, "1123"), (rude, "1111"), (cy, "1122")):
        propose(page, guess)
    expect(teacher.locator("#live-votes .proposals tbody tr")).to_have_count(3)

    teacher.locator("#room > summary").click()
    teacher.once("dialog", lambda dialog: dialog.accept())
    teacher.get_by_role("button", name="Remove Rude").click()
    expect(teacher.locator("#live-room .roster")).not_to_contain_text("Rude")
    expect(teacher.locator(".students")).to_contain_text("2 students have joined")
    expect(teacher.locator("#live-votes .proposals tbody tr")).to_have_count(2)  # Rude's 1111 no longer counts
    rude.reload()
    expect(rude.locator("main")).to_contain_text("The teacher has taken you out of this session.")

    teacher.get_by_role("button", name="Lock the room").click()
    expect(teacher.locator("#live-room")).to_contain_text("The room is locked")
    newcomer = phone(browser).new_page()
    newcomer.goto(f"{base}/join/{code}")
    newcomer.get_by_role("button", name="Join").click()
    expect(newcomer.locator("#join-error")).to_contain_text("closed this room")

    ann.reload()  # the same seat, the same proposal
    expect(ann.locator(".live-who")).to_contain_text("You are Ann.")
    expect(ann.locator("#my-vote")).to_contain_text("Your proposal: 1123")
    phones[2].set_offline(True)  # Cy's phone loses its connection while the teacher steps
    teacher.get_by_role("button", name="Next guess").click()
    expect(teacher.locator(".live-projector")).to_have_attribute("data-step", "1")
    expect(ann.locator(".live-step")).to_have_attribute("data-step", "1")
    phones[2].set_offline(False)
    expect(cy.locator(".live-step")).to_have_attribute("data-step", "1")
    propose(cy, "1344")

    with teacher.expect_download() as download:
        teacher.get_by_role("link", name="CSV").click()
    with open(download.value.path(), newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    # Rude's proposal stays in the report, marked as removed.
    assert sorted((r["step"], r["nickname"], r["removed"], r["guess"], r["strategy_guess"]) for r in rows) == [
        ("1", "Ann", "no", "1123", "1122"),
        ("1", "Cy", "no", "1122", "1122"),
        ("1", "Rude", "yes", "1111", "1122"),
        ("2", "Cy", "no", "1344", rows[-1]["strategy_guess"]),
    ]
    teacher.get_by_role("link", name="Report").click()
    expect(teacher.locator("h1")).to_contain_text(f"Report of the live lesson {code}")
    expect(teacher.locator(".report-students")).to_contain_text("(removed by the teacher)")
    for page in (teacher, ann, rude, cy, newcomer):
        page.context.close()


def test_a_lesson_of_two_games_in_one_room(browser, live_server):
    """A teacher and three phones play two games in one room: each phone
    hears what its own proposal was worth, the projector ranks the room and
    crowns a podium, the countdown refuses a late proposal, a removed phone
    is told at once and its proposals stay in the report, and the lesson's
    spreadsheet opens in openpyxl with Spanish headers and numbers as numbers."""

    import io
    from pathlib import Path

    from openpyxl import load_workbook

    from tests.records import sql

    base = live_server.url
    teacher, code = start_session(browser, base, secret="1116")
    phones = [join(phone(browser), base, code, name, typed=False) for name in ("Ana", "Ben", "Cy")]
    for page, guess in zip(phones, ("1122", "1234", "1111"), strict=True):
        propose(page, guess)
    teacher.keyboard.press("ArrowRight")
    expect(teacher.locator(".live-projector")).to_have_attribute("data-step", "1")
    # Each phone: its own proposal's E beside the strategy's and the best, and its points.
    ben = phones[1]
    expect(ben.locator("#my-result")).to_contain_text("Your 1234 would need 4.377 guesses on average.")
    expect(ben.locator("#my-result")).to_contain_text("The Knuth strategy's 1122 needs 4.400.")
    expect(ben.locator("#my-result")).to_contain_text("The best possible is 4.340.")
    expect(ben.locator("#my-result .my-place")).to_contain_text("place 1 of 3")
    expect(phones[0].locator("#my-result")).to_contain_text("That is the Knuth strategy's own choice.")
    # The projector's top five, best first.
    expect(teacher.locator(".scoreboard .nickname").first).to_have_text("Ben")

    # Cy is removed: the phone is told at once, and stops following.
    teacher.locator("#room > summary").click()
    teacher.once("dialog", lambda dialog: dialog.accept())
    teacher.get_by_role("button", name="Remove Cy").click()
    expect(phones[2].locator("#live-ended")).to_contain_text("The teacher has taken you out of this session.")

    # Play the first game to its end; the podium.
    for _ in range(6):
        if teacher.locator(".live-projector").get_attribute("data-solved") == "true":
            break
        step = int(teacher.locator(".live-projector").get_attribute("data-step"))
        teacher.keyboard.press("ArrowRight")
        expect(teacher.locator(".live-projector")).to_have_attribute("data-step", str(step + 1))
    expect(teacher.locator(".live-projector")).to_have_attribute("data-solved", "true")
    expect(teacher.locator(".scoreboard.podium")).to_contain_text("Ben")
    expect(ben.locator("#my-result")).to_contain_text("Your game")
    # The podium, the game's summary and a phone's own game pass axe, light and dark.
    for page in (teacher, ben):
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            assert Axe().run(page, options=WCAG).response["violations"] == [], (page.url, theme)
    assert ben.evaluate(SIDEWAYS) <= 0, "the phone's own game scrolls sideways"

    # The next game in the same room, with a countdown: the phones follow without joining again.
    teacher.locator("#next-game > summary").click()
    teacher.locator("#next-game input[name=pegs]").fill("3")
    teacher.locator("#next-game input[name=colors]").fill("5")
    teacher.locator("#next-game select[name=countdown]").select_option("20")
    teacher.get_by_role("button", name="Start the next game").click()
    expect(teacher.locator("h1")).to_contain_text("3×5 · game 2")
    for page in phones[:2]:
        expect(page.locator("h1")).to_contain_text("3×5 · game 2")
        expect(page.locator(".countdown")).to_be_visible()
    propose(phones[0], "123")
    with live_server.app.app_context():  # the step was shown a minute ago: the countdown has ended
        sql("UPDATE live_sessions SET step_at = step_at - 60 WHERE code = :c", c=code)
    phones[1].get_by_label("Which guess would you play next?").fill("345")
    phones[1].get_by_role("button", name="Propose").click()
    expect(phones[1].locator("#my-vote")).to_contain_text("Time is up")

    # The lesson's report: both games, Cy's proposal marked; the spreadsheet in Spanish.
    teacher.goto(f"{base}/live/{code}/report?lang=es")
    expect(teacher.locator(".report-game")).to_have_count(2)
    expect(teacher.locator(".report-students")).to_contain_text("(retirado por el profesor)")
    assert Axe().run(teacher, options=WCAG).response["violations"] == []
    with teacher.expect_download() as download:
        teacher.get_by_role("link", name="Hoja de cálculo (.xlsx)").click()
    book = load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))  # the file has no .xlsx name
    sheet = book.worksheets[0]
    header = [c.value for c in sheet[1]]
    assert header[:2] == ["Partida", "Intento"] and "Puntos" in header
    rows = [dict(zip(header, row, strict=True)) for row in sheet.iter_rows(min_row=2, values_only=True)]
    assert {(r["Partida"], r["Propuesta"]) for r in rows} >= {(1, "1122"), (1, "1234"), (1, "1111"), (2, "123")}
    cy = [r for r in rows if r["Propuesta"] == "1111"]
    assert cy and cy[0]["Retirado"] == "sí"
    assert all(isinstance(r["E de la propuesta"], float) for r in rows)
    for page in (teacher, *phones):
        page.context.close()
