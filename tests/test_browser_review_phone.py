"""A phone reads the review whole, in Debian's Chromium at 390 by 844: a
ten-move classic game's review is on the page at once (no "waiting"), its
chart fits the screen with every move in it, and each move's verdict
(rating, what it lost, luck) is a labelled card with nothing to scroll
sideways. On a desktop the same review is a table."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from webapp import store
from webapp.engine import Code, GameSize

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# Ten guesses, most of them poor, the last the secret: every rating shows.
SECRET = "6543"
GUESSES = ["1111", "2222", "3333", "1234", "4455", "5566", "3465", "6435", "6534", "6543"]

# Every box that matters, in the page's pixels.
BOXES = """() => {
  const box = el => {
    const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, width: r.width, height: r.height};
  };
  const labels = [...document.querySelectorAll('svg.review-chart text.axis')];
  return {
    inner: window.innerWidth,
    scroll: document.documentElement.scrollWidth,
    chart: box(document.querySelector('svg.review-chart')),
    last: box([...document.querySelectorAll('svg.review-chart .move-mark')].at(-1).querySelector('.bar')),
    marks: document.querySelectorAll('svg.review-chart .move-mark').length,
    verdicts: [...document.querySelectorAll('.review-table tbody tr')].map(tr => ({
      rating: box(tr.querySelector('.rating')), luck: box(tr.querySelector('td.luck')),
      label: getComputedStyle(tr.querySelector('td.verdict'), '::before').content,
    })),
    fontSize: Math.min(...labels.map(t => t.getBoundingClientRect().height)),
  };
}"""


@pytest.fixture
def ten_moves(app, client) -> str:
    """The replay link of a finished ten-move classic game, at its end (where the review is)."""
    size = GameSize()
    with app.app_context():
        game = store.games.create_game(size, 10, Code.parse(SECRET, size))
    for move, guess in enumerate(GUESSES, start=1):
        assert client.post(f"/api/games/{game.id}/guesses", json={"guess": guess, "move": move}).status_code == 200
    state = client.get(f"/api/games/{game.id}").get_json()
    assert state["status"] == "won"
    return state["replay_url"] + f"&step={len(GUESSES)}"


def open_review(page, url: str, viewport: dict) -> dict:
    page.set_viewport_size(viewport)
    page.goto(url)
    # Reviewed by the request itself: there as the page loads, no job to wait for.
    review = page.locator("section#review")
    assert review.get_attribute("data-skill") is not None
    assert page.locator(".job").count() == 0 and "Waiting for a free worker" not in review.inner_text()
    return page.evaluate(BOXES)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_phone_shows_every_move_and_every_verdict(page, live_server, ten_moves, theme):
    page.emulate_media(color_scheme=theme)
    seen = open_review(page, live_server.url + ten_moves, PHONE)
    width = seen["inner"]
    assert seen["scroll"] <= width, "the page scrolls sideways"
    chart = seen["chart"]
    assert chart["left"] >= 0 and chart["right"] <= width and chart["width"] > 300
    assert seen["marks"] == len(GUESSES)
    assert page.locator("svg.review-chart .move-mark").last.locator(".bar").is_visible()
    last = seen["last"]
    assert chart["left"] < last["left"] and last["right"] <= chart["right"] and last["height"] > 0
    assert seen["fontSize"] >= 9, "the chart's labels are too small to read"
    assert len(seen["verdicts"]) == len(GUESSES)
    for move in seen["verdicts"]:
        for part in (move["rating"], move["luck"]):
            assert part["width"] > 0 and part["left"] >= 0 and part["right"] <= width, move
        assert "Rating" in move["label"]  # each value says what it is
    assert page.locator(".review-table tbody tr").last.locator(".rating").inner_text() == "best"
    # Still a table to a screen reader, and a card's labels are not read twice.
    tree = page.locator(".review-table").aria_snapshot()
    assert 'columnheader "Rating (guesses lost)"' in tree and 'cell "1111"' in tree
    found = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa"]}})
    assert found.response["violations"] == []


def test_a_phone_without_javascript_reads_the_review(nojs_page, live_server, ten_moves):
    seen = open_review(nojs_page, live_server.url + ten_moves, PHONE)
    assert seen["scroll"] <= seen["inner"] and len(seen["verdicts"]) == len(GUESSES)


def test_a_desktop_keeps_the_table(page, live_server, ten_moves):
    seen = open_review(page, live_server.url + ten_moves, DESKTOP)
    table = page.locator(".review-table")
    assert table.evaluate("t => getComputedStyle(t).display") == "table"
    headers = page.locator(".review-table thead th")
    assert headers.count() == 8 and all(headers.nth(i).is_visible() for i in range(8))
    assert table.get_by_role("columnheader", name="Rating (guesses lost)").is_visible()
    assert table.get_by_role("row").count() == len(GUESSES) + 1
    assert seen["verdicts"][0]["label"] == "none"  # no card labels on a wide screen
    assert seen["chart"]["right"] <= seen["inner"] and seen["scroll"] <= seen["inner"]
