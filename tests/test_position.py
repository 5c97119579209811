"""One position explained: the classroom's and the step API's single source."""

import numpy as np
import pytest
from flask import Flask
from flask_babel import Babel

from webapp.engine import PRESETS, Code, Feedback, GameSize, best_guess, candidates, feedback, get_strategy
from webapp.engine.codes import parse_history
from webapp.engine.position import describe, partition_bars
from webapp.engine.strategies import Budget, TooSlow
from webapp.engine.tables import feedback_table
from webapp.words import error_words, why_words

WORDS = Flask(__name__)
Babel(WORDS)


def words(position) -> str:
    """The position's why, worded in English as the web layer words it."""
    with WORDS.test_request_context():
        return why_words(position.why)


SIZE = GameSize()
HISTORIES = [
    "",
    "1122:1,0",
    "1122:1,0 3456:0,2",
    "1234:0,2",
    "1123:0,1 2445:1,1",
    "1111:0,0",
    "1122:0,0 3345:1,1",
    "2211:2,0 1234:1,1",
]
ONE_STEP = [name for name, s in PRESETS.items() if s.chooser is None and not s.random]


def test_knuth_opening():
    p = describe(get_strategy("knuth"), SIZE)
    assert str(p.suggestion.guess) == "1122"
    assert p.remaining == 1296 and not p.solved
    assert p.top[0].guess == p.suggestion.guess
    assert p.top[0].score == {"largest class": 256}
    # Every code whose largest class is 256 ties with 1122: count them directly.
    table = feedback_table(SIZE)
    counts = table.class_counts(np.arange(1296), np.arange(1296))
    tied = int((counts.max(axis=1) == 256).sum())
    assert f"tied with {tied - 1} other guesses of the 1,296 scored" in words(p)
    assert "the first in ascending order wins" in words(p)


@pytest.mark.parametrize("name", ONE_STEP)
@pytest.mark.parametrize("text", HISTORIES)
def test_top_list_agrees_with_best_guess(name, text):
    """The top of the ranking is the strategy's own choice, and the ranking is
    in the strategy's order (criteria first, then candidates, then code order)."""
    strategy = get_strategy(name)
    history = parse_history(text, SIZE)
    p = describe(strategy, SIZE, history)
    chosen = best_guess(strategy, SIZE, history)
    assert p.suggestion.guess == chosen.guess
    assert p.suggestion.partition == chosen.partition
    if p.top:
        assert p.top[0].guess == chosen.guess
        assert len(p.top) == min(10, p.scored)
        assert len({str(r.guess) for r in p.top}) == len(p.top)
        cands = {int(i) for i in candidates(SIZE, history)}
        for r in p.top:
            assert r.is_candidate == (r.guess.index(SIZE) in cands)


def test_ranking_order_for_knuth():
    p = describe(get_strategy("knuth"), SIZE, parse_history("1122:1,0", SIZE))
    largest = [r.score["largest class"] for r in p.top]
    assert largest == sorted(largest)
    # Among equal scores, codes still possible come first, then code order.
    keys = [(r.score["largest class"], not r.is_candidate, r.guess.index(SIZE)) for r in p.top]
    assert keys == sorted(keys)


def test_partition_matches_feedback():
    history = parse_history("1122:1,0 3456:0,2", SIZE)
    p = describe(get_strategy("knuth"), SIZE, history)
    counted = {}
    for index in candidates(SIZE, history):
        reply = feedback(p.suggestion.guess, Code.from_index(int(index), SIZE))
        counted[reply] = counted.get(reply, 0) + 1
    assert p.suggestion.partition == counted
    assert p.remaining == sum(counted.values()) == 60
    bars = partition_bars(p.suggestion.partition, 4)
    assert len(bars) == 14 and sum(b["count"] for b in bars) == 60


def test_candidate_preference_is_named():
    """When codes still possible and others tie, the sentence counts both and
    names the tie-break; the counts come from scoring every code directly."""
    history = parse_history("1122:1,0 3456:0,2", SIZE)
    p = describe(get_strategy("knuth"), SIZE, history)
    cands = candidates(SIZE, history)
    counts = feedback_table(SIZE).class_counts(np.arange(1296), cands)
    best = counts.max(axis=1).min()
    tied = np.flatnonzero(counts.max(axis=1) == best)
    tied_cands = np.intersect1d(tied, cands)
    assert 0 < len(tied_cands) < len(tied)
    assert f"tied with {len(tied) - 1} other guesses" in words(
        p
    ) and f"{len(tied_cands)} of the {len(tied)} tied could be the secret" in words(p)
    assert p.suggestion.guess.index(SIZE) == tied_cands[0]


def test_minimax_avg_gives_no_candidate_preference():
    p = describe(get_strategy("minimax-avg"), SIZE, parse_history("1122:1,0", SIZE))
    assert "no preference" in words(p)


def test_unscored_strategies_say_why():
    assert "first of the 1,296 codes" in words(describe(get_strategy("simple"), SIZE))
    assert "at random" in words(describe(get_strategy("random"), SIZE, rng=np.random.default_rng(1)))
    assert "optimal decision tree" in words(describe(get_strategy("optimal"), SIZE))
    only = parse_history("1122:0,0 3345:1,1 3636:0,0 4544:0,2", SIZE)
    p = describe(get_strategy("knuth"), SIZE, only)
    assert p.remaining == 1 and words(p).startswith("Only one code is left")


def test_solved_position():
    history = parse_history("1122:0,0 3345:1,1 3636:0,0 4544:0,2 5455:4,0", SIZE)
    p = describe(get_strategy("knuth"), SIZE, history)
    assert p.solved and p.suggestion is None
    assert "5455 is the secret, found in 5 guesses" in words(p)
    assert p.json()["solved"] is True and "guess" not in p.json()


def test_optimal_off_its_tree_is_refused():
    with pytest.raises(TooSlow, match="search"):
        describe(get_strategy("optimal"), SIZE, parse_history("1111:0,0", SIZE))


def test_large_sizes_rank_a_reduced_pool():
    size = GameSize(5, 8)
    p = describe(get_strategy("knuth"), size, max_pairs=300_000_000)
    assert p.pool == "patterns" and p.scored == 7
    assert p.top[0].guess == p.suggestion.guess


def test_json_fields():
    data = describe(get_strategy("knuth"), SIZE, parse_history("1122:1,0 3456:0,2", SIZE)).json()
    for key in ("candidates", "guess", "score", "is_candidate", "partition", "top"):
        assert key in data
    assert data["candidates"] == 60 and data["guess"] == "1334"
    assert data["partition"]["4,0"] == 1 and "0,4" not in data["partition"]
    assert data["top"][0] == {"guess": "1334", "score": {"largest class": 10}, "is_candidate": True}


def test_history_round_trip_and_errors():
    from webapp.engine.codes import HistoryError, format_history

    history = parse_history("1122:1,0  3456:0,2", SIZE)
    assert format_history(history) == "1122:1,0 3456:0,2"
    for bad, words in (
        ("1122", "GUESS:BLACK,WHITE"),
        ("1122:4,0 3456:0,0", "already found"),
        (" ".join(["1122:0,0"] * 31), "at most 30"),
    ):
        with pytest.raises(HistoryError) as info:
            parse_history(bad, SIZE)
        assert words in error_words(info.value)
    with pytest.raises(HistoryError) as info:  # a fact inside a fact, worded whole
        parse_history("1234:0,0 1123:0,0", GameSize(4, 6, distinct_guesses=True))
    assert error_words(info.value) == (
        "Guess 2: 1123 repeats colour 1: in this game every guess uses different colours."
    )
    assert parse_history([], SIZE) == []
    assert Feedback.parse("3,1", GameSize(5, 8)) == Feedback(3, 1)


def test_best_on_super_mastermind_says_where_its_guess_comes_from():
    size, best = GameSize(5, 8), get_strategy("best")
    on_tree = describe(best, size)
    assert on_tree.why.kind == "searched-tree"
    secret = Code.parse("12345", size)
    played = [Code.parse(g, size) for g in ("11223", "45678", "13451")]  # the second leaves the tree
    left = describe(best, size, [(g, feedback(g, secret)) for g in played])
    assert left.why.kind == "off-tree"
    # Where an optimum is known, best reads the optimal tree.
    assert describe(best, GameSize()).why.kind == "tree"
    assert "no optimum is known" in words(on_tree) and "entropy rule" in words(left)


def test_optimal_says_when_it_searched_off_its_shipped_tree():
    """After 1122 and no peg, Knuth's opening has left the optimal tree: the
    guess found by searching from there is said to be searched, not read."""
    size, optimal = GameSize(), get_strategy("optimal")
    history = [(Code.parse("1122", size), Feedback(0, 0))]
    with pytest.raises(TooSlow):  # a request does not search
        describe(optimal, size, history, max_pairs=Budget(10**9, search=False))
    searched = describe(optimal, size, history, suggestion=best_guess(optimal, size, history))
    assert searched.why.kind == "searched" and "off the shipped optimal tree" in words(searched)
    on_tree = describe(optimal, size, [(Code.parse("1123", size), Feedback(0, 0))])
    assert on_tree.why.kind == "tree"
