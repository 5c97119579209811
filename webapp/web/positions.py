"""Positions explained within a request's budget of engine work (cached: a
class's many screens ask for the same few)."""

from __future__ import annotations

import hashlib
import threading

import numpy as np
from cachetools import LRUCache
from flask import current_app, g

from ..engine import Code, Feedback, GameSize, Strategy
from ..engine.codes import format_history
from ..engine.position import Position, describe
from ..engine.strategies import Budget, Suggestion


def budget() -> Budget:
    """The engine work this request may still do: ``REQUEST_BUDGET`` pairs
    shared by every engine call it makes, and no exact search."""
    if "budget" not in g:
        g.budget = Budget(current_app.config["REQUEST_BUDGET"], search=False)
    return g.budget


# Positions described lately, by strategy, size and history: the classroom's
# links and a live class's many screens ask for the same few again and again.
_explained: LRUCache = LRUCache(maxsize=256)
_explained_lock = threading.Lock()


def explained(
    strategy: Strategy, size: GameSize, history: list[tuple[Code, Feedback]], suggestion: Suggestion | None = None
) -> Position:
    """The engine's description of the position after ``history`` (within
    the request's budget; a random tie-break is seeded by the position, so
    the same position is always described the same way). ``suggestion``:
    the strategy's guess here, when a background search found it."""
    key = (strategy.name, size, format_history(history))
    with _explained_lock:
        found = _explained.get(key)
    if found is not None:
        return found
    seed = int.from_bytes(hashlib.sha256(f"{size}:{format_history(history)}".encode()).digest()[:8], "big")
    position = describe(
        strategy, size, history, rng=np.random.default_rng(seed), max_pairs=budget(), suggestion=suggestion
    )
    with _explained_lock:
        _explained[key] = position
    return position
