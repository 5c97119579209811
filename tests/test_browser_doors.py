"""The header's doors in Debian's Chromium, as a phone without JavaScript
reads them in German: the five doors on one line at 390 px, each a link
(the keyboard follows one) to a page that marks its door as current, and
the home page leads to the same doors."""

from axe_playwright_python.sync_playwright import Axe
from flask_babel import force_locale, gettext
from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}
DOORS = ("Play", "Puzzles", "Learn", "Teach", "Me")
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
# The doors' boxes, and the header's width against the window's.
LAYOUT = """() => ({
  tops: [...document.querySelectorAll('.door-row a')].map(a => Math.round(a.getBoundingClientRect().top)),
  row: document.querySelector('.door-row').getBoundingClientRect().height,
  line: parseFloat(getComputedStyle(document.querySelector('.door-row a')).lineHeight)
    || 1.45 * parseFloat(getComputedStyle(document.querySelector('.door-row a')).fontSize),
  sideways: document.querySelector('header.site').scrollWidth - window.innerWidth,
})"""


def german(app, text: str) -> str:
    with app.test_request_context(), force_locale("de"):
        return gettext(text)


def one_line(page) -> None:
    layout = page.evaluate(LAYOUT)
    assert len(set(layout["tops"])) == 1, layout  # every door on the same line
    assert layout["row"] < 1.5 * layout["line"], layout
    assert layout["sideways"] <= 0, layout


def test_the_doors_fit_a_german_phone_and_each_marks_its_pages(browser, live_server, app):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    context.add_cookies([{"name": "lang", "value": "de", "url": live_server.url}])
    page = context.new_page()
    names = [german(app, door) for door in DOORS]

    page.goto(live_server.url + "/")
    assert page.locator("html").get_attribute("lang") == "de"
    site = page.get_by_role("navigation", name=german(app, "Site"))
    doors = site.locator(".door-row a")
    expect(doors).to_have_text(names)
    one_line(page)
    landings = [doors.nth(i).get_attribute("href") for i in range(len(DOORS))]
    expect(doors.nth(0)).to_have_attribute("aria-current", "page")  # the home page is Play's

    # The home page leads to the same doors: a section for each of the others, linking to its page.
    sections = page.locator("main section.door")
    expect(sections.locator("h2")).to_have_text(names[1:])
    for i, landing in enumerate(landings[1:]):
        hrefs = sections.nth(i).locator("a").evaluate_all("links => links.map(a => new URL(a.href).pathname)")
        assert landing in hrefs, (names[i + 1], hrefs)
    # The keyboard reaches a door, sees where it is, and follows it.
    page.locator("header .brand").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(doors.nth(1)).to_be_focused()
    assert doors.nth(1).evaluate("a => getComputedStyle(a).outlineStyle") != "none"
    page.keyboard.press("Enter")
    page.wait_for_url(live_server.url + landings[1])
    expect(doors.nth(1)).to_have_attribute("aria-current", "page")
    one_line(page)

    # Each other door, clicked, leads to a page that marks it (and only it) as current.
    for i in (2, 3, 4, 0):
        doors.nth(i).click()
        page.wait_for_url(live_server.url + landings[i])
        expect(doors.nth(i)).to_have_attribute("aria-current", "page")
        expect(site.locator(".door-row a[aria-current]")).to_have_count(1)
        one_line(page)
    context.close()

    # axe-core needs JavaScript: the same home page, in a browser with it.
    context = browser.new_context(viewport=PHONE, extra_http_headers={"Accept-Language": "de"})
    page = context.new_page()
    page.goto(live_server.url + "/")
    found = Axe().run(page, options=WCAG).response["violations"]
    assert found == [], [(v["id"], v["nodes"][0]["target"]) for v in found]
    context.close()
