"""The header's five doors (Play, Puzzles, Learn, Teach, Me): every page
behind a door marks that door, and its own link in the row under the doors;
the statistics page shows rated puzzle answers, answers given again and
streaks apart."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from webapp.web import daily

# Each door's pages as the header lists them: (address, the door's landing page?).
DOORS = {
    "Play": ["/", "/daily", "/challenges/new", "/codemaker"],
    "Puzzles": ["/puzzles", "/puzzles/daily", "/puzzles/streak", "/puzzles/storm", "/puzzles/history"],
    "Learn": ["/solver/optimal-game", "/solver/compare", "/solver/tree"],
    "Teach": ["/solver/classroom", "/live/new"],
    "Me": ["/me"],
}


class SiteNav(HTMLParser):
    """The links of the header's navigation: (href, text, aria-current), for
    the row of doors and for the row of the current door's pages."""

    def __init__(self):
        super().__init__()
        self.rows: dict[str, list[tuple[str, str, str | None]]] = {"door-row": [], "door-pages": []}
        self.row: str | None = None
        self.link: list | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "ul" and attrs.get("class") in self.rows:
            self.row = attrs["class"]
        elif tag == "a" and self.row:
            self.link = [attrs["href"], "", attrs.get("aria-current")]

    def handle_data(self, data):
        if self.link is not None:
            self.link[1] += data

    def handle_endtag(self, tag):
        if tag == "a" and self.link is not None:
            self.rows[self.row].append((self.link[0], self.link[1].strip(), self.link[2]))
            self.link = None
        elif tag == "ul":
            self.row = None


def site_nav(client, path: str) -> dict:
    answer = client.get(path)
    assert answer.status_code == 200, path
    nav = SiteNav()
    nav.feed(answer.get_data(as_text=True).split("</header>")[0])
    return nav.rows


def test_every_page_behind_a_door_marks_the_door_and_itself(client):
    for door, pages in DOORS.items():
        for path in pages:
            rows = site_nav(client, path)
            assert [text for _, text, _ in rows["door-row"]] == list(DOORS), path
            current = {text: state for _, text, state in rows["door-row"] if state}
            landing = path == pages[0]
            assert current == {door: "page" if landing else "true"}, path
            # the door's own pages in the second row, this one marked; a door of one page has none
            assert [href for href, _, _ in rows["door-pages"]] == (pages if len(pages) > 1 else []), path
            assert [href for href, _, state in rows["door-pages"] if state] == ([path] if len(pages) > 1 else []), path
            assert dict((href, text) for href, text, _ in rows["door-row"])[pages[0]] == door


def test_a_game_of_the_daily_mastermind_sits_behind_play(client):
    board = client.post("/daily", data={"board": "classic"}).headers["Location"]
    rows = site_nav(client, board)
    assert {text: state for _, text, state in rows["door-row"] if state} == {"Play": "true"}
    assert [(text, state) for _, text, state in rows["door-pages"] if state] == [("Daily Mastermind", "true")]


def dashboard_of(**figures):
    return {
        "rating": 1512,
        "answered": 19,
        "solved": 12,
        "points": [1500.0, 1512.0],
        "themes": [("distinct", 3, 2)],
        "best_streak": 5,
        **figures,
    }


@pytest.mark.parametrize(
    "figures, shown, hidden",
    [
        (  # the figures of a dashboard without them apart: all answers together
            {},
            ["<dt>Answered</dt><dd><strong>19</strong>", "<strong>12</strong> (63%)", "<dt>Best streak</dt>"],
            ["Rated answers", "Streaks played", "Storms played"],
        ),
        (  # rated answers, answers given again, streaks and storms apart
            {"rated": 8, "rated_solved": 6, "again": 4, "again_solved": 3, "streak_answers": 7, "streak_runs": 2}
            | {"storm_answers": 9, "storm_runs": 1, "best_storm": 6},
            [
                '<dt>Rated answers</dt><dd><strong>8</strong> <span class="muted">6 solved (75%)',
                '<dt>Answered again, not rated</dt><dd><strong>4</strong> <span class="muted">3 solved',
                '<dt>Streaks played</dt><dd><strong>2</strong> <span class="muted">7 puzzles',
                '<dt>Storms played</dt><dd><strong>1</strong> <span class="muted">9 puzzles',
                "<dt>Best storm</dt><dd><strong>6</strong>",
                "<dt>Best streak</dt><dd><strong>5</strong>",
            ],
            ["<dt>Answered</dt>", "<dt>Solved</dt>"],
        ),
        (  # no answer given again, no storm: no box for them
            {"rated": 3, "rated_solved": 0, "again": 0, "streak_answers": 0, "streak_runs": 0, "storm_runs": 0},
            ['<dt>Rated answers</dt><dd><strong>3</strong> <span class="muted">0 solved (0%)', "<dt>Streaks played"],
            ["Answered again", "Storms played", "<dt>Answered</dt>"],
        ),
    ],
)
def test_the_puzzle_dashboard_keeps_rated_answers_apart(client, monkeypatch, figures, shown, hidden):
    monkeypatch.setattr(daily, "puzzle_dashboard", lambda player: dashboard_of(**figures))
    page = client.get("/me").get_data(as_text=True)
    for text in shown:
        assert text in page
    for text in hidden:
        assert text not in page
