"""Background jobs and the strategy tree in Debian's Chromium: a comparison's
progress bar, a reload in the middle of a job, and the tree opened by mouse,
by keyboard and without JavaScript."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from records import sql

from webapp import create_app
from webapp.computations import compared
from webapp.engine import GameSize, best_guess
from webapp.engine.codes import parse_history

# Run apart from the other heavy files when the suite runs on several cores
# (pytest-xdist's loadgroup): their work would crowd each other out.
pytestmark = pytest.mark.xdist_group("heavy")

SHOTS = Path(__file__).resolve().parent.parent / "test-results"


@pytest.fixture
def app(db_path):
    """Every job in the background, even small ones, and no consumer until a
    test starts one: a job is always seen waiting first, however fast the
    machine."""
    app = create_app({"DATABASE": db_path, "TESTING": True, "JOBS_QUICK_INLINE": False, "JOBS_CONSUMER": "none"})
    yield app
    app.extensions["jobs"].stop()


def shot(page, name, full_page=True):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full_page)


def jobs_of(app):
    with app.app_context():
        return [dict(r) for r in sql("SELECT key, status, attempts FROM jobs").mappings()]


def test_comparison_progress_then_table(page, live_server, app):
    page.goto(live_server.url + "/solver/compare?pegs=4&colors=7")
    expect(page.locator("#compare progress")).to_be_visible()
    expect(page.locator("#compare")).to_contain_text("Playing every strategy against all 2,401 codes")
    shot(page, "compare-progress.png", full_page=False)
    page.reload()  # while it waits: the same job, not a second one
    expect(page.locator("#compare progress")).to_be_visible()
    rows = jobs_of(app)
    assert len(rows) == 1 and rows[0]["attempts"] == 0 and rows[0]["status"] == "queued"
    app.extensions["jobs"].start(1)
    count = len(compared(GameSize(4, 7)))  # every strategy that answers at 4×7
    expect(page.locator("table.compare tbody tr")).to_have_count(count, timeout=60_000)
    expect(page.locator("#compare progress")).to_have_count(0)
    assert len(jobs_of(app)) == 1 and jobs_of(app)[0]["attempts"] == 1
    expect(page.locator("svg.histogram")).to_have_count(count)
    shot(page, "compare-4x7.png")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "compare-phone.png")


def test_comparison_without_javascript(nojs_page, live_server, app):
    """Without JavaScript the job page reloads itself and offers a link to do
    so; the table comes once a consumer has run the job."""
    page = nojs_page
    page.goto(live_server.url + "/solver/compare?pegs=3&colors=6")
    expect(page.locator(".job")).to_be_visible()
    assert page.locator('noscript meta[http-equiv="refresh"]').count() == 1
    page.get_by_role("link", name="Refresh").click()  # still queued: no consumer yet
    expect(page.locator(".job")).to_be_visible()
    expect(page.locator("table.compare")).to_have_count(0)
    app.extensions["jobs"].start(1)
    # The page's own reload brings the table, with no click.
    expect(page.locator("table.compare tbody tr").first).to_contain_text("Simple", timeout=60_000)


def test_tree_by_mouse_and_keyboard(page, live_server):
    size = GameSize()
    page.goto(live_server.url + "/solver/tree?pegs=4&colors=6&strategy=knuth")
    page.evaluate("window.sameDocument = true")
    branch = page.locator('#branches-1 > li[data-reply="1,0"]')
    branch.get_by_role("link", name="Open: 256 codes").click()
    second = best_guess("knuth", size, parse_history("1122:1,0", size)).guess
    expect(branch.locator(".node h3")).to_contain_text("Guess 2")
    expect(branch.locator(".node h3 .code-text")).to_have_text(str(second))
    expect(branch.locator(".node h3")).to_be_focused()
    assert "open=1%2C0" in page.url or "open=1,0" in page.url
    # By keyboard: Tab to a branch of the new node and press Enter.
    inner = page.locator('#branches-2 > li[data-reply="0,2"] a.toggle')
    inner.focus()
    page.keyboard.press("Enter")
    third = best_guess("knuth", size, parse_history(f"1122:1,0 {second}:0,2", size)).guess
    expect(page.locator('#branches-2 > li[data-reply="0,2"] .node h3 .code-text')).to_have_text(str(third))
    # Opening a sibling closes the other branch, as the URL says.
    page.locator('#branches-1 > li[data-reply="0,1"] a.toggle').click()
    expect(page.locator("#branches-1 > li.open")).to_have_count(1)
    expect(page.locator('#branches-1 > li[data-reply="0,1"]')).to_have_class(re.compile("open"))
    assert page.evaluate("window.sameDocument")
    shot(page, "tree.png")
    page.locator('#branches-1 > li[data-reply="0,1"] a.toggle', has_text="Close").click()
    expect(page.locator("#branches-1 > li.open")).to_have_count(0)
    expect(page.locator('#branches-1 > li[data-reply="0,1"] a.toggle')).to_be_focused()


def test_tree_without_javascript(nojs_page, live_server):
    page = nojs_page
    page.goto(live_server.url + "/solver/tree?pegs=4&colors=6&strategy=entropy")
    page.locator('#branches-1 > li[data-reply="0,2"] a.toggle').click()
    expect(page.locator('#branches-1 > li[data-reply="0,2"] .node')).to_be_visible()
    assert "open=0%2C2" in page.url
    page.locator('#branches-1 > li[data-reply="0,2"] a.toggle', has_text="Close").click()
    expect(page.locator(".node")).to_have_count(0)
