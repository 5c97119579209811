"""The adversary lines of the "optimal game" page, checked against a plain
re-implementation of the rules' definition and against whole-game trees."""

import itertools

import numpy as np
import pytest

from webapp.engine import Code, GameSize, analyse, best_guess, candidates, feedback, get_strategy
from webapp.engine.lines import (
    BEST_CANDIDATE,
    DEEPEST,
    GREEDY,
    LineError,
    adversary_line,
    codebreaker,
    codebreakers,
    deepest_line,
    greedy_line,
)
from webapp.engine.strategies import TooSlow
from webapp.words import error_words


def plain_feedback(codes_a, codes_b, colors):
    """(black, white) of every code of ``codes_a`` against every code of
    ``codes_b`` (tuples of 1-based colours), straight from the definition."""
    a = np.array(codes_a)[:, None, :]
    b = np.array(codes_b)[None, :, :]
    black = (a == b).sum(axis=2)
    common = sum(np.minimum((a == c).sum(axis=2), (b == c).sum(axis=2)) for c in range(1, colors + 1))
    return black, common - black


def reference_greedy_line(pegs, colors, distinct=False):
    """The rules' line written out plainly: the candidate whose largest class
    is smallest (ties to the first in ascending order), answered by the
    largest class (ties to the first reply, black then white ascending)."""
    cands = [c for c in itertools.product(range(1, colors + 1), repeat=pegs) if not distinct or len(set(c)) == pegs]
    rows = []
    while True:
        black, white = plain_feedback(cands, cands, colors)
        best = None
        for i in range(len(cands)):  # ascending order: the first best wins
            sizes = {}
            for b, w in zip(black[i].tolist(), white[i].tolist()):
                sizes[(b, w)] = sizes.get((b, w), 0) + 1
            if best is None or max(sizes.values()) < best[0]:
                best = (max(sizes.values()), i, sizes)
        _, i, sizes = best
        reply = min(sizes, key=lambda r: (-sizes[r], r))
        guess = "".join(map(str, cands[i]))
        cands = [c for c, b, w in zip(cands, black[i], white[i]) if (b, w) == reply]
        rows.append((guess, reply, len(cands)))
        if reply == (pegs, 0):
            return rows


def as_tuples(line):
    return [(str(r.guess), (r.reply.black, r.reply.white), r.remaining) for r in line.rows]


@pytest.mark.parametrize(
    "size",
    [GameSize(3, 4), GameSize(3, 6), GameSize(4, 5), GameSize(4, 6), GameSize(4, 6, distinct=True)],
    ids=GameSize.label,
)
def test_default_line_is_the_rules_line(size):
    line = greedy_line(BEST_CANDIDATE, size)
    assert as_tuples(line) == reference_greedy_line(size.pegs, size.colors, size.distinct)


def test_classic_line_takes_five_guesses():
    line = adversary_line(codebreaker(None), GameSize())
    assert len(line.rows) == 5
    assert line.rows[-1].reply.black == 4 and line.rows[-1].remaining == 1
    assert line.rows[0].before == 1296


@pytest.mark.parametrize("name", ["best-candidate", "knuth", "entropy", "irving", "optimal", "simple"])
def test_greedy_rows_follow_the_candidates(name):
    """Each row's counts are what the engine's candidate set says before the
    guess and after the reply, and the few codes left are listed."""
    size = GameSize()
    line = adversary_line(codebreaker(name), size, GREEDY)
    history = []
    for row in line.rows:
        before = candidates(size, history)
        assert row.before == len(before)
        history.append((row.guess, row.reply))
        assert row.remaining == len(candidates(size, history))
        expected = [str(c) for c in map(lambda i: Code.from_index(int(i), size), candidates(size, history))]
        assert [str(c) for c in row.left] == (expected if row.remaining <= 20 else [])
    assert line.rows[-1].reply.black == size.pegs


@pytest.mark.parametrize("name", ["knuth", "entropy", "irving", "simple"])
def test_codebreaker_guesses_are_its_own(name):
    """Against the greedy adversary, every guess is what the strategy itself
    suggests for that history (the same answer as `mastermind suggest`)."""
    size = GameSize()
    line = adversary_line(get_strategy(name), size, GREEDY)
    history = []
    for row in line.rows:
        assert best_guess(name, size, history).guess == row.guess
        history.append((row.guess, row.reply))


def test_greedy_reply_is_the_largest_class():
    size = GameSize()
    line = adversary_line(get_strategy("entropy"), size, GREEDY)
    history = []
    for row in line.rows:
        cands = candidates(size, history)
        replies = {}
        for index in cands:
            reply = feedback(row.guess, Code.from_index(int(index), size))
            replies[reply] = replies.get(reply, 0) + 1
        largest = max(replies.values())
        assert replies[row.reply] == largest
        assert row.reply == min(r for r, n in replies.items() if n == largest)
        history.append((row.guess, row.reply))


@pytest.mark.parametrize("name", ["best-candidate", "knuth", "entropy", "optimal", "optimal-5", "random"])
def test_deepest_line_is_as_long_as_the_worst_case(name):
    size = GameSize()
    strategy = codebreaker(name)
    line = adversary_line(strategy, size, DEEPEST)
    analysis = analyse(strategy, size)
    assert len(line.rows) == line.worst == analysis.max
    history = []
    for row in line.rows:
        history.append((row.guess, row.reply))
        assert row.remaining == len(candidates(size, history))
    assert line.rows[-1].reply.black == 4


def test_deepest_ties_go_to_the_larger_class():
    """Every step keeps a class at least as large as any other class whose
    subtree is as deep."""
    size = GameSize()
    line = deepest_line(get_strategy("knuth"), size)
    analysis = analyse("knuth", size)
    depth_of = dict(zip(map(int, candidates(size)), analysis.depths))
    history = []
    for row in line.rows:
        cands = candidates(size, history)
        classes = {}
        for index in map(int, cands):
            reply = feedback(row.guess, Code.from_index(index, size))
            classes.setdefault(reply, []).append(depth_of[index])
        deepest = max(max(d) for d in classes.values())
        mine = classes[row.reply]
        assert max(mine) == deepest
        assert len(mine) == max(len(d) for d in classes.values() if max(d) == deepest)
        history.append((row.guess, row.reply))


def test_classic_lines_for_the_closing_note():
    """The figures the issue asks about: greedy ends Knuth in five, the
    optimal-expected tree's deepest line takes six."""
    size = GameSize()
    assert len(adversary_line(get_strategy("knuth"), size, GREEDY).rows) == 5
    assert len(adversary_line(get_strategy("knuth"), size, DEEPEST).rows) == 5
    assert len(adversary_line(get_strategy("optimal"), size, DEEPEST).rows) == 6


def test_too_slow_is_refused_not_run():
    size = GameSize(5, 8)
    with pytest.raises(TooSlow) as info:
        greedy_line(BEST_CANDIDATE, size, max_pairs=300_000_000)
    assert "more than a page may do" in error_words(info.value)
    with pytest.raises(TooSlow) as info:
        deepest_line(get_strategy("knuth"), size)
    assert "whole decision tree" in error_words(info.value)


def test_unknown_adversary():
    with pytest.raises(LineError) as info:
        adversary_line(BEST_CANDIDATE, GameSize(), "sneaky")
    assert error_words(info.value) == "Unknown adversary 'sneaky'. Choose greedy or deepest."


def test_codebreakers_offered():
    names = [s.name for s in codebreakers(GameSize())]
    assert names[0] == "best-candidate" and "optimal" in names and "knuth" in names
    assert "optimal" not in [s.name for s in codebreakers(GameSize(5, 8))]


def test_json_shape():
    data = adversary_line(BEST_CANDIDATE, GameSize(3, 4), GREEDY).json()
    assert set(data) == {"pegs", "colors", "distinct", "distinct_guesses", "strategy", "adversary", "rows"}
    assert data["rows"][-1]["black"] == 3
    assert set(data["rows"][0]) == {"guess", "black", "white", "remaining"}
