"""Choosing what to play among the puzzles: a difficulty and a theme, a
streak drawn afresh for each run, Puzzle Storm against the clock, a hint
that costs rating, and playing on from a puzzle's position."""

from __future__ import annotations

import re
from random import Random

import pytest

from webapp import store
from webapp.engine.puzzles import THEMES, candidates_of
from webapp.web.players import issued_player
from webapp.web.puzzles import service

BOTH = pytest.mark.backends("sqlite", "postgresql")
ORIGIN = {"Origin": "http://localhost"}


def shown_puzzle(html: str) -> str:
    """The puzzle a page asks (a storm's in its form, else in the answer form's address)."""
    found = re.search(r'name="puzzle" value="([0-9a-f]{12})"', html) or re.search(
        r'action="/puzzles/([0-9a-f]{12})/answers"', html
    )
    return found.group(1)


def puzzle_of(app, pid: str) -> store.puzzles.StoredPuzzle:
    with app.app_context():
        return store.puzzles.get(pid)


def a_poor_guess(puzzle) -> str:
    """A guess that learns nothing: the first guess played again."""
    return str(puzzle.history[0][0])


def test_harder_and_easier_move_away_from_the_players_rating(client, app):
    ratings = {}
    for difficulty in ("easier", "normal", "harder"):
        page = client.get(f"/puzzles?difficulty={difficulty}")
        assert page.status_code == 200 and f'<option value="{difficulty}" selected>' in page.text
        ratings[difficulty] = puzzle_of(app, shown_puzzle(page.text)).rating.rating
    # A new player is at 1500; the pivot moves 300 either way, then up to 100 more.
    assert ratings["easier"] < ratings["harder"]
    assert ratings["harder"] >= 1500 + service.DIFFICULTIES["harder"] - service.SPREAD
    assert ratings["easier"] >= 1500 + service.DIFFICULTIES["easier"] - service.SPREAD


@BOTH
def test_every_theme_offered_gives_puzzles_of_that_theme(client, app):
    page = client.get("/puzzles").text
    with app.app_context():
        offered = service.themes()
    assert {t for t, _ in offered} <= set(THEMES) and len(offered) >= 5
    for theme, count in offered:
        assert f'<option value="{theme}">' in page and f"({count})" in page
        got = client.get(f"/api/puzzles/next?theme={theme}&difficulty=harder")
        assert got.status_code == 200, got.json
        assert theme in puzzle_of(app, got.json["id"]).themes
        html = client.get(f"/puzzles?theme={theme}").text
        assert theme in puzzle_of(app, shown_puzzle(html)).themes
    with app.app_context():  # "candidate" is not found inside "not-a-candidate"
        pid = store.puzzles.near(0, None, theme="candidate")
        assert "candidate" in store.puzzles.get(pid).themes


@pytest.mark.parametrize(
    "query, sentence",
    [("difficulty=hardest", "Choose the difficulty easier, normal or harder."), ("theme=zz", "no such theme")],
)
def test_a_choice_not_offered_is_refused_with_a_sentence(client, query, sentence):
    page = client.get(f"/puzzles?{query}")
    assert page.status_code == 400 and sentence in page.text
    api = client.get(f"/api/puzzles/next?{query}")
    assert api.status_code == 400


def test_a_choice_stays_from_one_puzzle_to_the_next(client, app):
    page = client.get("/puzzles?difficulty=harder&theme=zero-reply").text
    pid = shown_puzzle(page)
    assert '<input type="hidden" name="difficulty" value="harder">' in page
    answer = client.post(
        f"/puzzles/{pid}/answers",
        data={"guess": a_poor_guess(puzzle_of(app, pid)), "difficulty": "harder", "theme": "zero-reply"},
        headers=ORIGIN,
    )
    verdict = client.get(answer.headers["Location"]).text
    assert "/puzzles?difficulty=harder&amp;theme=zero-reply" in verdict


def test_each_streak_climbs_a_ladder_of_its_own(app):
    """Streaks drawn with different draws start at different puzzles, each
    near the streak's first rating."""
    firsts = set()
    with app.test_request_context():
        for seed in range(6):
            player, _ = issued_player(None)
            service.start_streak(player, Random(seed))
            record = store.puzzles.player(player)
            firsts.add(record.streak_puzzle)
            rating = store.puzzles.get(record.streak_puzzle).rating.rating
            assert rating >= service.STREAK_START - service.SPREAD
    assert len(firsts) >= 4


def test_a_storm_runs_to_its_end_unrated_and_keeps_the_best(client, app):
    assert "Start a storm" in client.get("/puzzles/storm").text
    assert client.post("/puzzles/storm", headers=ORIGIN).status_code == 303
    page = client.get("/puzzles/storm").text
    assert "storm-clock" in page and "0 solved" in page
    first = puzzle_of(app, shown_puzzle(page))
    solved = client.post(
        "/puzzles/storm/answers", data={"puzzle": first.id, "guess": str(first.best[0])}, headers=ORIGIN
    )
    assert solved.status_code == 303 and "last=solved" in solved.headers["Location"]
    page = client.get(solved.headers["Location"]).text
    assert "1 solved" in page and "Right" in page
    # A miss costs STORM_PENALTY seconds: enough of them and the time is up.
    misses = 0
    while "storm-clock" in page:
        pid = shown_puzzle(page)
        assert pid != first.id
        missed = client.post(
            "/puzzles/storm/answers",
            data={"puzzle": pid, "guess": a_poor_guess(puzzle_of(app, pid))},
            headers=ORIGIN,
        )
        misses += 1
        assert misses <= service.STORM_SECONDS / service.STORM_PENALTY
        page = client.get(missed.headers["Location"]).text
    assert "Time is up" in page and "1 puzzle solved" in page and "Your best storm: 1 puzzle." in page
    with app.app_context():
        player = client.get_cookie("player").value
        record = store.puzzles.player(player)
        assert record.best_storm == 1 and record.rating.rating == 1500  # never rated
        assert store.puzzles.latest_storm(player).over
    # An answer after the end changes nothing.
    late = client.post("/puzzles/storm/answers", data={"puzzle": first.id, "guess": "1111"}, headers=ORIGIN)
    assert late.status_code == 303 and late.headers["Location"].endswith("/puzzles/storm")


def test_a_storm_answer_to_another_puzzle_is_not_counted(client, app):
    client.post("/puzzles/storm", headers=ORIGIN)
    pid = shown_puzzle(client.get("/puzzles/storm").text)
    with app.app_context():
        other = store.puzzles.near(2000, None, skip=pid)
    got = client.post("/puzzles/storm/answers", data={"puzzle": other, "guess": "1234"}, headers=ORIGIN)
    assert got.status_code == 303
    with app.app_context():
        run = store.puzzles.latest_storm(client.get_cookie("player").value)
        assert (run.solved, run.missed, run.puzzle) == (0, 0, pid)


def test_a_hint_costs_rating(client, app):
    """Two new players solve the same puzzle: the one who took a hint gains less."""
    pid = shown_puzzle(client.get("/puzzles").text)
    puzzle = puzzle_of(app, pid)
    best = str(puzzle.best[0])
    plain = app.test_client()  # from another address: its verdict shows nothing to the other client
    elsewhere = {"REMOTE_ADDR": "10.0.0.9"}
    answer = plain.post(f"/puzzles/{pid}/answers", data={"guess": best}, headers=ORIGIN, environ_base=elsewhere)
    verdict = plain.get(answer.headers["Location"], environ_base=elsewhere).text
    gained = int(re.search(r"1500 → (\d+)", verdict).group(1)) - 1500

    hinted = client.post(f"/puzzles/{pid}/hint", headers=ORIGIN)
    assert hinted.status_code == 303
    page = client.get(hinted.headers["Location"]).text
    assert "Hint: " in page and "draw" in page and "Show a hint" not in page
    answer = client.post(f"/puzzles/{pid}/answers", data={"guess": best}, headers=ORIGIN)
    verdict = client.get(answer.headers["Location"]).text
    assert "after a hint" in verdict
    after_hint = int(re.search(r"1500 → (\d+)", verdict).group(1)) - 1500
    assert after_hint < gained  # a draw: less than a win (below zero against an easier puzzle)


def test_playing_on_from_a_puzzle_starts_a_game_at_its_position(client, app):
    pid = shown_puzzle(client.get("/puzzles").text)
    puzzle = puzzle_of(app, pid)
    answer = client.post(f"/puzzles/{pid}/answers", data={"guess": a_poor_guess(puzzle)}, headers=ORIGIN)
    assert "Play on from here" in client.get(answer.headers["Location"]).text
    started = client.post(f"/puzzles/{pid}/play", headers=ORIGIN)
    assert started.status_code == 303
    game_id = started.headers["Location"].rsplit("/", 1)[1]
    with app.app_context():
        game = store.games.load_game(game_id)
        cands = {int(c) for c in candidates_of(puzzle.size, puzzle.history)}
    assert [(m.guess, m.reply) for m in game.moves] == list(puzzle.history)
    assert game.secret.index(puzzle.size) in cands and game.status == "playing"
    board = client.get(started.headers["Location"]).text
    assert all(str(g) in board for g, _ in puzzle.history) and str(game.secret) not in board
    move = str(len(puzzle.history) + 1)
    won = client.post(f"/games/{game_id}/guesses", data={"guess": str(game.secret), "move": move}, headers=ORIGIN)
    assert won.status_code == 303
    with app.app_context():
        assert store.games.load_game(game_id).status == "won"


def test_playing_on_asks_for_a_real_puzzle_and_this_site(client, app):
    pid = shown_puzzle(client.get("/puzzles").text)
    assert client.post(f"/puzzles/{pid}x/play", headers=ORIGIN).status_code == 404
    another = {"Origin": "http://elsewhere.example"}
    assert client.post(f"/puzzles/{pid}/play", headers=another).status_code == 403  # it acts for nobody


def test_the_dashboard_counts_rated_answers_retries_and_runs_apart(client, app):
    pid = shown_puzzle(client.get("/puzzles").text)
    poor = a_poor_guess(puzzle_of(app, pid))
    client.post(f"/puzzles/{pid}/answers", data={"guess": poor}, headers=ORIGIN)
    client.post(f"/puzzles/{pid}/answers", data={"guess": poor, "mode": "again"}, headers=ORIGIN)
    client.post("/puzzles/storm", headers=ORIGIN)
    with app.test_request_context():
        d = service.dashboard(client.get_cookie("player").value)
    assert (d["rated"], d["again"], d["storm_runs"], d["answered"]) == (1, 1, 1, 2)
