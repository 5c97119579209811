"""Exact optimal play, checked against a plain exhaustive search."""

from functools import lru_cache

import numpy as np
import pytest

from webapp.engine import GameSize, SizeError
from webapp.engine.codes import secret_indices
from webapp.engine.optimal import OptimalSolver
from webapp.engine.tables import feedback_table


def plain_optimum(size: GameSize, max_guesses=None, candidates_only=False):
    """Try every guess at every node, no pruning, no symmetry."""
    matrix = feedback_table(size).matrix
    every = range(size.n_codes)
    solved = size.solved

    @lru_cache(maxsize=None)
    def best(cands: frozenset, left: int) -> float:
        if left <= 0:
            return float("inf")
        if len(cands) == 1:
            return 1
        result = float("inf")
        for g in (sorted(cands) if candidates_only else every):
            classes = {}
            for c in cands:
                classes.setdefault(matrix[g, c], set()).add(c)
            if len(classes) == 1 and solved not in classes:
                continue  # learns nothing
            total = len(cands) + sum(best(frozenset(cls), left - 1)
                                     for reply, cls in classes.items() if reply != solved)
            result = min(result, total)
        return result

    value = best(frozenset(int(i) for i in secret_indices(size)), max_guesses or 99)
    return None if value == float("inf") else value


SMALL = [GameSize(2, 3), GameSize(3, 3), GameSize(2, 5), GameSize(3, 4, distinct=True),
         GameSize(4, 3)]


@pytest.mark.parametrize("size", SMALL, ids=lambda s: s.label())
def test_matches_plain_search(size):
    assert OptimalSolver(size).total() == plain_optimum(size)


@pytest.mark.parametrize("size", [GameSize(3, 3), GameSize(2, 5)], ids=lambda s: s.label())
def test_candidates_only_matches_plain_search(size):
    assert OptimalSolver(size, candidates_only=True).total() == plain_optimum(size, candidates_only=True)


@pytest.mark.parametrize("size, limit", [(GameSize(3, 3), 3), (GameSize(3, 3), 4), (GameSize(4, 3), 4),
                                         (GameSize(2, 5), 3)], ids=str)
def test_guess_limit_matches_plain_search(size, limit):
    assert OptimalSolver(size, max_guesses=limit).total() == plain_optimum(size, limit)


def test_impossible_limit_says_so():
    assert OptimalSolver(GameSize(3, 3), max_guesses=2).total() is None


def test_too_large():
    with pytest.raises(SizeError):
        OptimalSolver(GameSize(5, 8))
