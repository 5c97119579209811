"""Charts stay legible: on every chart the app draws (the classroom's
partition chart, the comparison's histograms, a challenge's histogram, a
review's E-and-V chart), no
two text labels overlap, at a phone's width, a desktop's and a projector's,
in the classroom's presenter mode too. Measured in Chromium, label box by
label box."""

import pytest

from webapp import store
from webapp.engine import Code, Feedback, GameSize

# Every <text> of every chart on the page, as boxes on the screen.
LABEL_BOXES = """() => [...document.querySelectorAll('svg.partition, svg.histogram, svg.review-chart')].map(svg =>
  [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  }))"""


# Each chart's box on the screen, and the labels that stick out of it sideways.
OUTSIDE = """() => [...document.querySelectorAll('svg.partition, svg.histogram, svg.review-chart')].map(svg => {
  const box = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).filter(t => {
    const r = t.getBoundingClientRect();
    return r.left < box.left - 1 || r.right > box.right + 1;
  }).map(t => t.textContent.trim());
})"""


def overlaps(boxes: list[dict]) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes intersect (a pixel of slack for anti-aliasing)."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if (
                a["left"] < b["right"] - 1
                and b["left"] < a["right"] - 1
                and a["top"] < b["bottom"] - 1
                and b["top"] < a["bottom"] - 1
            ):
                found.append((a["text"], b["text"]))
    return found


def check_page(page, url: str, width: int) -> int:
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(url)
    charts = page.evaluate(LABEL_BOXES)
    assert charts, f"no chart on {url}"
    for boxes in charts:
        assert overlaps(boxes) == [], (url, width)
    assert all(outside == [] for outside in page.evaluate(OUTSIDE)), (url, width)
    return sum(len(boxes) for boxes in charts)


def test_a_chart_of_one_bar_keeps_its_axis_title_whole(page, live_server, app):
    """A student's last chart shows only the replies that had codes: at the
    end, one bar. The chart is still as wide as its axis's title."""
    from flask import render_template_string

    with app.test_request_context():
        chart = render_template_string(
            '{% from "_macros.html" import partition_chart %}{{ partition_chart(bars, 4, got=got) }}',
            bars=[{"reply": Feedback(4, 0), "count": 1}],
            got=Feedback(4, 0),
        )
    page.set_viewport_size({"width": 390, "height": 800})
    page.set_content(f'<link rel="stylesheet" href="{live_server.url}/static/style.css"><main>{chart}</main>')
    page.wait_for_load_state()
    assert page.evaluate(OUTSIDE) == [[]]
    assert any("reply: black" in label["text"] for label in page.evaluate(LABEL_BOXES)[0])


@pytest.mark.parametrize("width", [390, 1280, 1920])
def test_partition_labels_never_collide(page, live_server, width):
    base = live_server.url + "/solver/classroom?pegs=4&colors=6&strategy=knuth"
    for query in ("", "&presenter=1", "&history=1122:1,0", "&history=1122:1,0&presenter=1"):
        assert check_page(page, base + query, width) > 10


@pytest.mark.parametrize("width", [390, 1280])
def test_histogram_labels_never_collide(page, live_server, client, width):
    assert check_page(page, live_server.url + "/solver/compare?pegs=3&colors=4", width) > 10
    challenge = client.post("/api/challenges", json={"secret": "1234"}).get_json()
    for guesses in (["1234"], ["1122", "1234"], ["1111"] * 10):
        game = client.post(f"/api/challenges/{challenge['id']}/games", json={}).get_json()
        for guess in guesses:
            client.post(f"/api/games/{game['id']}/guesses", json={"guess": guess})
    assert check_page(page, live_server.url + challenge["results_page"], width) > 5


@pytest.mark.parametrize("width", [390, 1280])
def test_review_chart_labels_never_collide(page, live_server, app, client, width):
    """A short game and one that uses every guess (3 pegs, 4 colours: reviewed at once)."""
    size = GameSize(3, 4)
    for guesses in (["112", "234"], ["111", "222", "333", "444", "112", "113", "114", "221", "223", "224"]):
        with app.app_context():
            game = store.games.create_game(size, 10, Code.parse("234", size))
        for move, guess in enumerate(guesses, start=1):
            assert client.post(f"/api/games/{game.id}/guesses", json={"guess": guess, "move": move}).status_code == 200
        state = client.get(f"/api/games/{game.id}").get_json()
        assert state["status"] != "playing"
        steps = len(guesses)
        assert check_page(page, live_server.url + state["replay_url"] + f"&step={steps}", width) > steps
