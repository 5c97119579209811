"""Whole-game analysis: landmarks, consistency of the tree, export."""

import numpy as np
import pytest

from webapp.engine import PRESETS, Code, GameSize, SizeError, analyse, feedback
from webapp.engine.codes import secret_indices


def test_knuth_classic_landmark():
    result = analyse("knuth", GameSize())
    assert result.total == 5801
    assert result.max == 5
    assert str(result.first_guess) == "1122"
    assert sum(result.histogram.values()) == 1296


def walk(node, size, path, out):
    for reply, child in node["children"].items():
        if "secret" in child:
            assert child["secret"] == node["guess"]
            out[child["secret"]] = path + [(node["guess"], reply)]
        else:
            walk(child, size, path + [(node["guess"], reply)], out)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("size", [GameSize(3, 4), GameSize(4, 4, distinct=True)], ids=lambda s: s.label())
def test_tree_replies_are_true(name, size):
    """Every path of the exported tree is a real game against its leaf secret."""
    result = analyse(name, size, seed=1)
    paths = {}
    walk(result.export(), size, [], paths)
    assert sorted(paths) == sorted(str(Code.from_index(i, size)) for i in secret_indices(size))
    for secret, path in paths.items():
        s = Code.parse(secret, size)
        for guess, reply in path:
            assert feedback(Code.parse(guess, size), s).key == reply
    depths = {secret: len(path) for secret, path in paths.items()}
    assert sum(depths.values()) == result.total
    assert max(depths.values()) == result.max
    worst = {str(c) for c in result.worst_secrets()}
    assert worst == {s for s, d in depths.items() if d == result.max}


def test_summary_fields():
    summary = analyse("entropy", GameSize(3, 4)).summary()
    assert set(summary) == {
        "pegs",
        "colors",
        "distinct",
        "distinct_guesses",
        "strategy",
        "total",
        "mean",
        "stddev",
        "max",
        "first_guess",
        "histogram",
        "seconds",
    }
    assert sum(summary["histogram"].values()) == 64
    assert summary["mean"] == pytest.approx(summary["total"] / 64)


def test_distinct_variant():
    result = analyse("knuth", GameSize(4, 6, distinct=True))
    assert sum(result.histogram.values()) == 360
    assert result.depths.shape == (360,)


def test_too_large_is_refused():
    with pytest.raises(SizeError):
        analyse("knuth", GameSize(6, 9))


def test_simple_is_first_candidate_every_time():
    size = GameSize(3, 3)
    result = analyse("simple", size)
    assert str(result.first_guess) == "111"
    assert result.histogram[1] == 1


def test_random_seed_reproducible():
    a = analyse("random", GameSize(3, 4), seed=5)
    b = analyse("random", GameSize(3, 4), seed=5)
    assert np.array_equal(a.depths, b.depths)


SYMMETRIC_SIZES = [
    GameSize(4, 6),
    GameSize(6, 3),
    GameSize(5, 4),
    GameSize(3, 8, distinct=True),
    GameSize(4, 7, distinct=True, distinct_guesses=True),
]


@pytest.mark.parametrize("size", SYMMETRIC_SIZES, ids=lambda s: s.label())
def test_scoring_one_guess_per_symmetry_changes_no_tree(size):
    """Only the smallest of guesses that are images of one another by a
    symmetry of the line played is scored: every one-step strategy still
    builds the tree it builds when every guess is scored, guess for guess,
    and the symmetry does leave guesses out."""
    from webapp.engine.strategies import pool_of
    from webapp.engine.tree import Symmetry, export_node

    for name, strategy in PRESETS.items():
        if strategy.chooser is not None:
            continue
        fast, slow = analyse(name, size), analyse(name, size, symmetric=False)
        assert export_node(fast.root, size) == export_node(slow.root, size), name
    symmetry = Symmetry(size)
    first = analyse("knuth", size).root.guess
    played = int(np.bitwise_or.reduce(1 << symmetry.digits[first]))
    pool, group = symmetry.after(symmetry.whole, first, 0, pool_of(size, played), played)
    assert group is not None and 0 < pool.shape[0] < pool_of(size, played).shape[0]
