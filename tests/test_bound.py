"""The lower bound on the optimal total."""

import io
import json

import pytest

from webapp.cli import main
from webapp.engine import GameSize
from webapp.engine.bound import lower_bound
from webapp.engine.optimal import OptimalSolver


@pytest.mark.parametrize("size", [GameSize(2, 4), GameSize(3, 4), GameSize(3, 5), GameSize(4, 4), GameSize(3, 4, True)])
def test_bound_lies_between_counting_and_the_optimum(size):
    optimum = OptimalSolver(size).total()
    bounds = [lower_bound(size, levels).total for levels in (1, 2, 3)]
    counting = lower_bound(size, 1).counting
    assert counting <= bounds[0] <= bounds[1] <= bounds[2] <= optimum


def test_three_levels_reach_the_optimum_of_small_boards():
    """By hand for 3 pegs and 4 colours: the optimum, 206, is also what
    three levels of best guesses prove (the classic board's is 5,612 of
    5,625, worked out the same way)."""
    assert lower_bound(GameSize(3, 4)).total == 206
    assert lower_bound(GameSize(4, 4)).total == 905


def test_a_capped_third_level_is_still_a_bound():
    size = GameSize(4, 4)
    full, capped = lower_bound(size), lower_bound(size, effort=1)
    assert not capped.exact and full.exact
    assert lower_bound(size, 2).total <= capped.total <= full.total


def test_counting_bound_by_hand():
    # 2 pegs, 4 colours: 16 secrets; 5 replies, 4 of them not all black.
    # At most 1 secret at guess 1, 4 at guess 2, the other 11 at guess 3 or later.
    assert lower_bound(GameSize(2, 4), 1).counting == 1 + 4 * 2 + 11 * 3


def test_bound_command():
    out = io.StringIO()
    assert main(["bound", "--pegs", "3", "--colors", "4", "--json"], out) == 0
    document = json.loads(out.getvalue())
    assert document["lower_bound"] == 206 and document["counting_bound"] <= 206
    assert {first["guess"] for first in document["first_guesses"]} == {"111", "112", "123"}
    out = io.StringIO()
    assert main(["bound", "--pegs", "3", "--colors", "4", "--levels", "2"], out) == 0
    assert "every strategy needs at least" in out.getvalue()
