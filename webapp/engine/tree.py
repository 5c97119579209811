"""Whole-game analysis: play a strategy against every secret at once and
build its decision tree."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .codes import JSON, Code, Feedback, GameSize, Progress, SizeError, secret_indices
from .strategies import Strategy, choose, colors_mask, get_strategy, pool_of
from .tables import FeedbackTable, feedback_table

# The largest size analysed: 5 pegs × 8 colours, 32,768 codes.
ANALYSABLE_CODES = 32_768


@dataclass
class Node:
    """A guess and, for each reply, what follows: another node, or the
    secret itself when the reply is all black."""

    guess: int
    children: dict[int, Node | int] = field(default_factory=dict)


@dataclass
class Analysis:
    """A strategy's decision tree over every secret and its figures."""

    size: GameSize
    strategy: Strategy
    root: Node
    depths: np.ndarray  # guesses needed, indexed like secret_indices(size)
    seconds: float

    @property
    def total(self) -> int:
        return int(self.depths.sum())

    @property
    def mean(self) -> float:
        return float(self.depths.mean())

    @property
    def stddev(self) -> float:
        return float(self.depths.std())

    @property
    def max(self) -> int:
        return int(self.depths.max())

    @property
    def first_guess(self) -> Code:
        return Code.from_index(self.root.guess, self.size)

    @property
    def histogram(self) -> dict[int, int]:
        """How many secrets take exactly 1, 2, 3, ... guesses."""
        counts = np.bincount(self.depths)
        return {k: int(c) for k, c in enumerate(counts) if k and c}

    def worst_secrets(self) -> list[Code]:
        """The secrets that need the most guesses."""
        worst = secret_indices(self.size)[self.depths == self.depths.max()]
        return [Code.from_index(i, self.size) for i in worst]

    def summary(self) -> JSON:
        """The JSON figures of the command line."""
        return {
            "pegs": self.size.pegs,
            "colors": self.size.colors,
            "distinct": self.size.distinct,
            "distinct_guesses": self.size.distinct_guesses,
            "strategy": self.strategy.name,
            "total": self.total,
            "mean": round(self.mean, 6),
            "stddev": round(self.stddev, 6),
            "max": self.max,
            "first_guess": str(self.first_guess),
            "histogram": {str(k): v for k, v in self.histogram.items()},
            "seconds": round(self.seconds, 4),
        }

    def export(self) -> JSON:
        """The tree as nested JSON: ``{"guess", "children": {"b,w": ...}}``
        with ``{"secret": ...}`` at the leaves."""
        return export_node(self.root, self.size)


def export_node(node: Node, size: GameSize) -> JSON:
    """One node of :meth:`Analysis.export`."""
    children = {}
    for reply, child in node.children.items():
        key = Feedback.decode(reply, size.pegs).key
        if isinstance(child, Node):
            children[key] = export_node(child, size)
        else:
            children[key] = {"secret": str(Code.from_index(child, size))}
    return {"guess": str(Code.from_index(node.guess, size)), "children": children}


def check_analysable(size: GameSize) -> None:
    """Raise :class:`SizeError` for sizes too large to analyse here."""
    if size.n_codes > ANALYSABLE_CODES:
        raise SizeError("too-large-to-analyse", size=size.params(), codes=size.n_codes, most=ANALYSABLE_CODES)


def analyse(
    strategy: Strategy | str,
    size: GameSize,
    seed: int = 0,
    progress: Progress | None = None,
    table: FeedbackTable | None = None,
) -> Analysis:
    """Play ``strategy`` against every secret of ``size`` and build its tree.

    ``progress(done, total)`` is told how many secrets have been placed.
    """
    if isinstance(strategy, str):
        strategy = get_strategy(strategy)
    check_analysable(size)
    started = time.perf_counter()
    table = table or feedback_table(size)
    secrets = secret_indices(size).astype(np.int64)
    position = np.full(size.n_codes, -1, dtype=np.int64)
    position[secrets] = np.arange(secrets.shape[0])
    depths = np.zeros(secrets.shape[0], dtype=np.int64)
    rng = np.random.default_rng(seed) if strategy.random else None  # numpy.random loads only for it
    solved = size.solved
    placed = 0

    # Every strategy guesses the only code left, and some the first of two.
    first_of_two = strategy.first_of_two

    def grow(cands: np.ndarray, depth: int, played: int) -> Node:
        nonlocal placed
        n = cands.shape[0]
        if n == 1 or (n == 2 and first_of_two):
            return last_codes(cands, depth)
        pool = pool_of(size, played)
        guess = choose(strategy, table, cands, pool, rng, size=size, played=played, depth=depth)
        node = Node(guess)
        members, values, starts = table.split(guess, cands)
        played_next = played | colors_mask(size, guess)
        for reply, start, stop in zip(values.tolist(), starts[:-1].tolist(), starts[1:].tolist()):
            if reply == solved:
                node.children[int(reply)] = guess
                depths[position[guess]] = depth
                placed += 1
            else:
                node.children[int(reply)] = grow(members[start:stop], depth + 1, played_next)
        if progress:
            progress(placed, secrets.shape[0])
        return node

    def last_codes(cands: np.ndarray, depth: int) -> Node:
        """One code left, or two and the first guessed: no scoring needed."""
        nonlocal placed
        first = int(cands[0])
        children: dict[int, Node | int] = {solved: first}
        depths[position[first]] = depth
        placed += 1
        if cands.shape[0] == 2:
            second = int(cands[1])
            children[int(table.row(first, cands[1:])[0])] = Node(second, {solved: second})
            depths[position[second]] = depth + 1
            placed += 1
        node = Node(first, dict(sorted(children.items())))  # by ascending reply, as split gives them
        if progress:
            progress(placed, secrets.shape[0])
        return node

    root = grow(secrets, 1, 0)
    return Analysis(size, strategy, root, depths, time.perf_counter() - started)
