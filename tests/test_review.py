"""The review: every guess of a finished game against optimal play.

E and V come from the engine's own search; the published optimum (Koyama
and Lai's 5,625 for the classic board) is only compared against."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp import jobs, store
from webapp.computations import review_params
from webapp.engine import Code, Feedback, GameSize, best_guess, candidates, feedback, get_strategy
from webapp.engine.best import searched_document
from webapp.engine.codes import secret_indices
from webapp.engine.lines import play_against
from webapp.engine.optimal import OptimalSolver
from webapp.engine.review import (
    RATINGS,
    SmallSolver,
    Values,
    luck_of,
    position_params,
    rating,
    review_game,
    review_move,
)
from webapp.engine.tables import feedback_table

CLASSIC = GameSize()


def first_move(guess: str, size: GameSize = CLASSIC):
    code = Code.parse(guess, size)
    return review_move(size, (), code, feedback(code, Code.parse("6543", size) if size == CLASSIC else code))


def test_the_classic_optimal_first_guess_is_worth_the_published_optimum():
    move = first_move("1123")
    assert move.exact and move.candidates == 1296
    assert move.expected_total == move.best_total == 5625  # Koyama & Lai 1993
    assert move.expected == pytest.approx(5625 / 1296) and move.rating == "best"


def test_a_poor_first_guess_loses_guesses():
    move = first_move("1111")
    assert move.exact and move.expected > move.best_expected
    assert move.best_total == 5625 and move.rating not in ("best", "excellent")
    assert str(move.best_guess) != "1111"


def test_following_the_optimal_tree_is_best_at_every_move():
    rng = random.Random(7)
    optimal = get_strategy("optimal")
    for index in rng.sample(range(CLASSIC.n_codes), 12):
        secret = Code.from_index(index, CLASSIC)
        moves = review_game(CLASSIC, play_against(optimal, CLASSIC, secret))
        assert [m.rating for m in moves] == ["best"] * len(moves)
        assert all(m.exact for m in moves)


def reply_value(size, history, guess, reply):
    """V of the position after ``guess`` got ``reply`` (0 once it is the secret)."""
    if reply.black == size.pegs:
        return 0.0
    after = tuple(history) + ((guess, reply),)
    some = Code.from_index(int(candidates(size, after)[0]), size)
    move = review_move(size, after, some, feedback(some, some))
    return move.best_expected


@pytest.mark.parametrize("size", [GameSize(3, 4), GameSize(4, 4), CLASSIC])
def test_e_is_one_plus_the_values_of_the_replies(size):
    """E(g) = 1 + sum over replies (codes in that reply / n) * V(reply's position)."""
    rng = random.Random(size.n_codes)
    secret = Code.from_index(rng.randrange(size.n_codes), size)
    history = []
    for _ in range(3):  # a few guesses of no strategy at all, then the secret
        guess = Code.from_index(rng.randrange(size.n_codes), size)
        if guess != secret:
            history.append((guess, feedback(guess, secret)))
    history.append((secret, feedback(secret, secret)))
    for move in review_game(size, history):
        before = history[: move.move - 1]
        cands = candidates(size, before)
        table = feedback_table(size)
        replies = table.row(move.guess.index(size), cands)
        expected = 1.0
        for value in np.unique(replies):
            share = float(np.count_nonzero(replies == value)) / cands.shape[0]
            expected += share * reply_value(size, before, move.guess, Feedback.decode(int(value), size.pegs))
        assert move.expected == pytest.approx(expected, abs=1e-9)
        assert move.best_expected <= move.expected + 1e-12


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_the_small_search_agrees_with_the_optimal_search(data):
    """Small sets of the classic board: the small search's totals are the
    compiled optimal search's."""
    size = CLASSIC
    n = data.draw(st.integers(3, 12))
    picked = np.array(sorted(data.draw(st.sets(st.integers(0, size.n_codes - 1), min_size=n, max_size=n))))
    played = (1 << size.colors) - 1  # every colour counts as played: no symmetry assumed
    small, _ = SmallSolver(size).total(picked, played)
    assert small == OptimalSolver(size)._run(picked, played, 99)


def test_super_mastermind_is_measured_against_the_best_known_tree():
    size = GameSize(5, 8)
    secret = Code.parse("12345", size)
    values = Values(size)
    on_tree = play_against(get_strategy("best"), size, secret)
    moves = review_game(size, on_tree)
    # The searched tree's own guesses are best by its measure: known, not exact, not estimates.
    assert all(m.rating == "best" for m in moves)
    assert moves[0].known and not moves[0].exact
    assert moves[0].best_total == searched_document(size)["total"]
    # A guess off the tree at move 2 loses against it.
    other = Code.parse("45678", size)
    assert other != on_tree[1][0]
    move = review_move(size, on_tree[:1], other, feedback(other, secret), values)
    assert move.known and move.expected > move.best_expected and move.best_guess == on_tree[1][0]
    # Once off the tree, large positions are estimated and say so; few codes left: exact.
    history = [*on_tree[:1], (other, feedback(other, secret))]
    while history[-1][0] != secret:
        guess = best_guess("entropy", size, tuple(history)).guess
        history.append((guess, feedback(guess, secret)))
    moves = review_game(size, tuple(history))
    assert moves[1].known
    assert not moves[2].known and not moves[2].exact and moves[2].candidates > 30
    assert moves[-1].exact and moves[-1].candidates <= 30


@pytest.mark.parametrize(
    "loss, word",
    [(0.0, "excellent"), (0.05, "excellent"), (0.06, "good"), (0.2, "inaccuracy"), (0.5, "mistake"), (2, "blunder")],
)
def test_ratings_follow_the_documented_thresholds(loss, word):
    assert rating(loss, best=False) == word
    assert rating(loss, best=True) == "best"
    assert [w for w, _ in RATINGS][0] == "best"


def test_luck_reads_as_a_percentile():
    # Replies leaving 1, 2 and 5 codes (8 in all) and the winning one.
    counts = np.zeros(25, dtype=np.int32)
    counts[[0, 1, 2]] = [5, 2, 1]
    counts[24] = 1  # solved (4 pegs: reply 24 is 4 black)
    n = 9
    assert luck_of(counts, 24, 24) == round(100 * (8 + 0.5) / n)  # the best reply
    assert luck_of(counts, 0, 24) == round(100 * (0 + 2.5) / n)  # the worst
    assert luck_of(counts, 1, 24) == round(100 * (5 + 1) / n)
    only = np.zeros(25, dtype=np.int32)
    only[3] = 4
    assert luck_of(only, 3, 24) is None


def play(client, app, size: GameSize, secret: str, guesses):
    with app.app_context():
        game = store.games.create_game(size, 10, Code.parse(secret, size))
    for move, guess in enumerate(guesses, start=1):
        answer = client.post(f"/api/games/{game.id}/guesses", json={"guess": guess, "move": move})
        assert answer.status_code == 200
    return game.id


def review_of(client, app, game_id):
    """The review through the API, its job run here once the API has queued it."""
    first = client.get(f"/api/games/{game_id}/review")
    if first.status_code == 200:
        return first
    assert first.status_code == 202
    with app.app_context():
        game = store.games.load_game(game_id)
        params = review_params(game.size, game.secret, [m.guess for m in game.moves])
        jobs.run(jobs.job_key("review", params), app.config, app.logger)  # no consumer here: run the job in place
    return client.get(f"/api/games/{game_id}/review")


@pytest.fixture
def app(db_config):
    from webapp import create_app

    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none", "WARM_UP": False})
    yield app
    app.extensions["jobs"].stop()


@pytest.mark.backends("sqlite", "postgresql")
def test_the_api_reviews_a_finished_game_only(client, app, backend):
    game_id = play(client, app, CLASSIC, "6543", ["1123"])
    early = client.get(f"/api/games/{game_id}/review")
    assert early.status_code == 409 and "secret" in early.get_json()["error"]
    assert "6543" not in early.get_data(as_text=True)
    play_rest = client.post(f"/api/games/{game_id}/guesses", json={"guess": "6543", "move": 2})
    assert play_rest.status_code == 200
    done = client.get(f"/api/games/{game_id}/review")  # the classic board: reviewed at once
    assert done.status_code == 200
    body = done.get_json()
    assert body["exact"] is True and [m["guess"] for m in body["moves"]] == ["1123", "6543"]
    first = body["moves"][0]
    assert first["expected"] == first["best_expected"] == pytest.approx(5625 / 1296, abs=1e-6)
    assert first["rating"] == "best" and body["knuth"][0] == "1122"
    # Every position reviewed is kept: the same first guess in another game is not worked out again.
    with app.app_context():
        assert jobs.is_stored("review-move", position_params(CLASSIC, (), Code.parse("1123", CLASSIC)))
    again = play(client, app, CLASSIC, "6543", ["1123", "6543"])
    quick = client.get(f"/api/games/{again}/review")  # every move known or small: answered at once
    assert quick.status_code == 200 and quick.get_json()["moves"] == body["moves"]


def test_the_board_the_replay_and_the_challenge_show_the_same_review(client, app):
    game_id = play(client, app, CLASSIC, "3456", ["1122", "1344", "3456"])
    review = review_of(client, app, game_id).get_json()
    board = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'data-skill="{review["skill"]}"' in board and "Review: how good was each guess?" in board
    assert board.count('class="rating"') == 3
    replay = client.get(f"/api/games/{game_id}").get_json()["replay_url"]
    page = client.get(replay + "&step=3").get_data(as_text=True)
    assert f'data-skill="{review["skill"]}"' in page
    assert "/solver/classroom?" in page and "history=1122" in page
    # A challenge's results: each player's skill beside the result.
    made = client.post("/api/challenges", json={"secret": "3456"}).get_json()
    joined = client.post(f"/api/challenges/{made['id']}/games", json={"name": "Ada"}).get_json()
    results = client.get(made["results_url"]).get_json()
    assert results["players"][0]["skill"] is None  # still playing
    for move, guess in enumerate(["1122", "1344", "3456"], start=1):
        client.post(f"/api/games/{joined['id']}/guesses", json={"guess": guess, "move": move})
    results = client.get(made["results_url"]).get_json()  # the same game, reviewed before: known at once
    assert results["players"][0]["skill"] == review["skill"]
    page = client.get(made["results_page"]).get_data(as_text=True)
    assert f'<td class="skill">{review["skill"]}</td>' in page


def test_a_classic_review_is_on_the_page_at_once_a_larger_board_waits(client, app):
    """The classic board is reviewed by the request itself, whatever was
    played (no "waiting" first); a board of 3,125 codes is a job."""
    game_id = play(client, app, CLASSIC, "6543", ["1111", "2222", "6543"])
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'data-skill="' in page and page.count('class="rating"') == 3
    assert "Waiting for a free worker" not in page
    larger = play(client, app, GameSize(5, 5), "12345", ["11111", "12345"])
    assert client.get(f"/api/games/{larger}/review").status_code == 202


def test_a_bad_review_link_is_a_clear_400(client):
    answer = client.get("/replay/4x6/ZZZZ/review?g=1122")
    assert answer.status_code == 400
    answer = client.get("/replay/9x9/ZZZZ/review")
    assert answer.status_code == 400


def test_an_unknown_game_has_no_review(client):
    assert client.get("/api/games/nope/review").status_code == 404


def test_every_secret_index_is_reviewable_on_a_tiny_board():
    """On 2 pegs and 3 colours, every one-guess-then-secret game is exact and
    its first move's V is the same for every game."""
    size = GameSize(2, 3)
    values = Values(size)
    firsts = set()
    for s in secret_indices(size):
        secret = Code.from_index(int(s), size)
        guess = Code.parse("12", size)
        move = review_move(size, (), guess, feedback(guess, secret), values)
        assert move.exact
        firsts.add(move.best_total)
    assert len(firsts) == 1


def test_a_move_beyond_the_small_searchs_reach_is_estimated(monkeypatch):
    """A position of 20 codes on a board of 46,656 guesses (6 pegs, 6
    colours, a distinct secret) is out of the small search's reach: past
    its budget of pairs the move is estimated, and the review ends."""
    from webapp.engine import review as engine_review
    from webapp.engine.codes import reveal
    from webapp.engine.strategies import Budget, TooSlow

    size = GameSize(6, 6, distinct=True)
    secret = reveal("ckjm", size)
    history = [(g, feedback(g, secret)) for g in (Code.parse(t, size) for t in ("415236", "342561"))]
    guess = Code.parse("632541", size)
    cands = candidates(size, history)
    assert len(cands) <= engine_review.SMALL_EXACT_CODES  # small enough to be searched exactly, in principle
    work = Budget(100_000)
    with pytest.raises(TooSlow):
        engine_review.SmallSolver(size).total(cands.astype("int64"), 0, work=work)
    assert work.spent <= 100_000
    monkeypatch.setattr(engine_review, "SMALL_EXACT_PAIRS", 100_000)
    move = engine_review.review_move(size, tuple(history), guess, feedback(guess, secret))
    assert not move.exact and move.expected_total >= move.best_total >= move.candidates


def test_an_exact_search_past_its_bound_is_estimated_and_leaves_no_false_bound(monkeypatch):
    """Past ``EXACT_SEARCH_NODES`` positions the search gives up: the move is
    estimated, and the shared solver forgets what the cut-short search
    stored, so the next review of that move is exact and right."""
    from webapp.engine import review as engine_review
    from webapp.engine.optimal import OptimalSolver

    size = GameSize(3, 5)
    guess = Code.parse("123", size)
    secret = Code.parse("451", size)
    reply = feedback(guess, secret)
    from webapp.engine import optimal

    # A solver of its own: what earlier tests solved at this size must not answer for the search,
    # nor the shipped tree of 3 x 5.
    monkeypatch.setattr(optimal, "_solvers", {})
    monkeypatch.setattr(engine_review, "tree_totals", lambda size: None)
    monkeypatch.setattr(engine_review, "EXACT_SEARCH_NODES", 5)
    values = engine_review.Values(size)
    cut_short = engine_review.review_move(size, (), guess, reply, values)
    assert not cut_short.exact
    monkeypatch.setattr(engine_review, "EXACT_SEARCH_NODES", 10_000_000)
    exact = engine_review.review_move(size, (), guess, reply, values)
    solver = OptimalSolver(size, None)
    assert exact.exact and exact.best_total == solver.total()
