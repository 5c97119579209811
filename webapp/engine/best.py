"""The strategy ``best``: the best the project knows for a board. Where the
exact optimum is known (a shipped tree, or a search quick enough to run on
demand) it is the optimum; on Super Mastermind it is the tree that
``mastermind improve`` found (see ``improve``), shipped in ``data/``.

Off a searched tree (a game that left it), ``best`` plays the rule the
search improved on, the entropy rule."""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np

from .codes import JSON, Array, GameSize
from .optimal import DATA, available, decode_tree, optimal_chooser, set_key
from .strategies import Strategy, choose, get_strategy, pool_of, register
from .tables import feedback_table

# Off the tree, a choice scoring at most this many (guess, code) pairs is
# quick enough for a page to wait for.
QUICK_PAIRS = 2_000_000
OFF_TREE = "entropy"


def data_name(size: GameSize) -> str:
    """File name of a searched tree, such as ``best-5x8.json``."""
    return f"best-{size.pegs}x{size.colors}" + ("-distinct" if size.distinct else "") + ".json"


def searched(size: GameSize) -> bool:
    """Whether a searched tree ships for this board."""
    return not size.distinct_guesses and (DATA / data_name(size)).exists()


@lru_cache(maxsize=4)
def searched_document(size: GameSize) -> JSON:
    document: JSON = json.loads((DATA / data_name(size)).read_text())
    return document


@lru_cache(maxsize=4)
def searched_choices(size: GameSize) -> dict[bytes, int]:
    """Candidate set → guess for every node of the searched tree."""
    return decode_tree(size, searched_document(size)["guesses"])


_optimal = optimal_chooser(None)


def best_chooser(size: GameSize, cands: Array, played: int, depth: int) -> int:
    if not searched(size):
        return _optimal(size, cands, played, depth)
    if cands.shape[0] <= 2:
        return int(cands[0])
    guess = searched_choices(size).get(set_key(cands))
    if guess is not None:
        return int(guess)
    return choose(
        get_strategy(OFF_TREE),
        feedback_table(size),
        cands,
        pool_of(size, played),
        size=size,
        played=played,
        depth=depth,
    )


def best_available(size: GameSize) -> bool:
    return searched(size) or available(size, None)


def best_quick(size: GameSize, cands: np.ndarray) -> bool:
    if not searched(size):
        return get_strategy("optimal").quick(size, cands)
    n = cands.shape[0]
    return n <= 2 or set_key(cands) in searched_choices(size) or n * size.n_codes <= QUICK_PAIRS


def best_source(size: GameSize, cands: np.ndarray) -> str:
    """Where ``best``'s guess comes from (see ``Strategy.source``)."""
    if not searched(size):
        return get_strategy("optimal").source(size, cands)
    return "searched-tree" if cands.shape[0] <= 2 or set_key(cands) in searched_choices(size) else "off-tree"


register(
    Strategy(
        "best",
        "The best strategy known here: the exact optimum where it is known; on Super Mastermind, a tree "
        "searched by this project (an entropy rollout with exact endgames).",
        "this project (mastermind improve)",
        chooser=best_chooser,
        available=best_available,
        quick=best_quick,
        source=best_source,
    )
)
