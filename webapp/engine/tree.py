"""Whole-game analysis: play a strategy against every secret at once and
build its decision tree."""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import signal
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..figures import summary
from .codes import JSON, Array, Code, Feedback, GameSize, Progress, SizeError, code_digits, secret_indices
from .strategies import Strategy, choose, colors_mask, get_strategy, pool_of
from .tables import FeedbackTable, feedback_table, loaded

# The largest size analysed: 5 pegs × 8 colours, 32,768 codes.
ANALYSABLE_CODES = 32_768

# Trees of at least this many secrets share the first guess's classes with
# forked processes when ``analyse`` is given two or more (below it,
# forking costs more than it saves), on boards of at most ``FORK_MOST``
# codes: larger boards' deeper guesses load the compiled kernels, which use
# every core themselves (two processes loading them would both pay for it).
FORK_CODES = 1_000
FORK_MOST = 10_000


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
        depths = self.depths.tolist()
        return summary(self.size.params(), self.strategy.name, depths, str(self.first_guess), self.seconds)

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
    symmetric: bool = True,
    processes: int = 1,
) -> Analysis:
    """Play ``strategy`` against every secret of ``size`` and build its tree.

    ``progress(done, total)`` is told how many secrets have been placed.
    ``symmetric``: score only the smallest of guesses that are images of one
    another by a symmetry of the line played (see :class:`Symmetry`); False
    scores every guess, for the same tree.
    ``processes``: with 2 or more, forked processes share the growing of
    the first guess's classes (see :func:`forks`); the tree is the same.
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
    report = progress

    # Every strategy guesses the only code left, and some the first of two.
    first_of_two = strategy.first_of_two
    symmetry = Symmetry(size) if symmetric and strategy.chooser is None and not strategy.candidates_only else None

    def grow(cands: np.ndarray, depth: int, played: int, pool: Array, group: Array | None) -> Node:
        nonlocal placed
        n = cands.shape[0]
        if n == 1 or (n == 2 and first_of_two):
            return last_codes(cands, depth)
        guess = choose(strategy, table, cands, pool, rng, size=size, played=played, depth=depth)
        node = Node(guess)
        members, values, starts = table.split(guess, cands)
        played_next = played | colors_mask(size, guess)
        # The guesses worth scoring are the same in every class this guess leaves.
        pool_next, group_next = pool_of(size, played_next), None
        if symmetry is not None and group is not None:
            pool_next, group_next = symmetry.after(group, guess, played, pool_next, played_next)
        classes = {
            reply: members[start:stop]
            for reply, start, stop in zip(values.tolist(), starts[:-1].tolist(), starts[1:].tolist())
        }
        sharing = depth == 1 and forks(strategy, size, processes, n)
        if sharing:
            unsolved = {reply: codes for reply, codes in classes.items() if reply != solved}
            node.children.update(shared(unsolved, played_next, pool_next, group_next))
        for reply, codes in classes.items():
            if reply == solved:
                node.children[reply] = guess
                depths[position[guess]] = depth
                placed += 1
            elif reply not in node.children:  # every class, or those that shared() lacks
                node.children[reply] = grow(codes, depth + 1, played_next, pool_next, group_next)
        if sharing:
            node.children = dict(sorted(node.children.items()))  # by ascending reply, as split gives them
        if report:
            report(placed, secrets.shape[0])
        return node

    def shared(classes: dict[int, Array], played: int, pool: Array, group: Array | None) -> dict[int, Node | int]:
        """The first guess's ``classes`` grown by this process and forked
        ones (``processes`` in all), each taking the next class (the largest
        first) from a shared queue whenever it finishes one: the same
        subtrees as one process grows. What a forked process that failed had
        taken is missing, for the caller to grow."""
        nonlocal placed
        queue = queued(sorted(classes, key=lambda reply: -classes[reply].shape[0]))
        children: list[Child] = []
        try:
            for _ in range(min(processes, len(classes)) - 1):
                children.append(
                    fork(lambda: sent(grow_each(taken(queue), classes, played, pool, group, forked=True), classes))
                )
            subtrees = grow_each(taken(queue), classes, played, pool, group)
            while children:
                grown = joined(children[0])
                children.pop(0)
                if grown is not None:
                    theirs, at, at_depths = grown
                    subtrees.update(theirs)
                    depths[at] = at_depths
                    placed += at.shape[0]
        finally:
            os.close(queue)
            for child in children:  # only after an error here: the processes not joined yet
                abandon(child)
        return subtrees

    def grow_each(
        replies: Iterable[int],
        classes: dict[int, Array],
        played: int,
        pool: Array,
        group: Array | None,
        forked: bool = False,
    ) -> dict[int, Node | int]:
        """The first guess's classes of ``replies`` grown (a forked process
        reports no progress: the bar belongs to the parent)."""
        nonlocal report
        if forked:
            report = None
        return {reply: grow(classes[reply], 2, played, pool, group) for reply in replies}

    def sent(subtrees: dict[int, Node | int], classes: dict[int, Array]) -> tuple[dict[int, Node | int], Array, Array]:
        """What a forked process sends back: its subtrees, the positions of
        their classes' secrets and the guesses each needs."""
        at = position[np.concatenate([classes[reply] for reply in subtrees] or [np.zeros(0, np.int64)])]
        return subtrees, at, depths[at].copy()

    def last_codes(cands: np.ndarray, depth: int) -> Node:
        """One code left, or two and the first guessed: no scoring needed."""
        nonlocal placed
        first = int(cands[0])
        children: dict[int, Node | int] = {solved: first}
        depths[position[first]] = depth
        placed += 1
        if cands.shape[0] == 2:
            second = int(cands[1])
            children[table.reply(first, second)] = Node(second, {solved: second})
            depths[position[second]] = depth + 1
            placed += 1
        node = Node(first, dict(sorted(children.items())))  # by ascending reply, as split gives them
        if report:
            report(placed, secrets.shape[0])
        return node

    root = grow(secrets, 1, 0, pool_of(size, 0), None if symmetry is None else symmetry.whole)
    return Analysis(size, strategy, root, depths, time.perf_counter() - started)


def forks(strategy: Strategy, size: GameSize, processes: int, secrets: int) -> bool:
    """Whether a tree shares its first guess's classes with forked
    processes: two processes or more allowed, a board of the right size (see
    ``FORK_CODES``), a system that forks, numpy doing the work, and a
    one-step strategy that scores guesses and draws nothing. Compiled
    kernels already use every core, and their thread pools do not survive
    a fork; a strategy that searches may load them deeper down; one that
    scores nothing has too little work to share; a random strategy's draws
    must come in one order."""
    return (
        processes > 1
        and secrets >= FORK_CODES
        and size.n_codes <= FORK_MOST
        and hasattr(os, "fork")
        and loaded() is None
        and strategy.chooser is None
        and bool(strategy.criteria)
        and not strategy.random
    )


def queued(replies: list[int]) -> int:
    """A queue of classes for processes to share: a pipe holding one byte
    for each reply (every reply is below 256), its writing end closed."""
    read, write = os.pipe()
    os.write(write, bytes(replies))
    os.close(write)
    return read


def taken(queue: int) -> Iterator[int]:
    """The replies this process takes from ``queue``, one at a time, until
    it is empty. Reading one byte from a pipe is atomic: every reply goes to
    exactly one of the processes reading it."""
    while chunk := os.read(queue, 1):
        yield chunk[0]


Child = tuple[int, int]  # a forked process's id and the pipe it writes to


def fork(work: Callable[[], Any]) -> Child:
    """``work()`` in a forked process, its result pickled into a pipe.
    The process leaves with ``os._exit``: none of the parent's clean-up runs
    twice, and a failure shows as an exit status and a short stream."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                pickle.dump(work(), out, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        except BaseException:  # the parent grows this work itself; why it failed stays visible
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(write)
    return pid, read


def joined(child: Child) -> Any:
    """What the forked process sent, once it has ended, or None if it failed."""
    pid, read = child
    with os.fdopen(read, "rb") as source:
        try:
            result = pickle.load(source)
        except Exception:  # the stream ended early: the process failed before it had sent everything
            result = None
    _, status = os.waitpid(pid, 0)
    return result if status == 0 else None


def abandon(child: Child) -> None:
    """End a forked process whose work is no longer wanted, and reap it
    (it may have ended, and its pipe been closed, already)."""
    pid, read = child
    for step in (lambda: os.kill(pid, signal.SIGKILL), lambda: os.waitpid(pid, 0), lambda: os.close(read)):
        with contextlib.suppress(OSError):
            step()


class Symmetry:
    """Fewer guesses to score, by symmetry. A permutation of the pegs with a
    renaming of the colours that leaves every guess so far unchanged maps
    the candidates of each position onto themselves, so a guess and its
    image split them into classes of the same sizes and are candidates
    alike. Every strategy scored here compares guesses by exactly that and
    breaks ties towards the smaller code, so of each set of guesses that are
    images of one another only the smallest needs scoring: the tree is the
    same, for far fewer pairs after the first guesses (a whole process's
    tree of Bulls and Cows or 6 × 4 in a fraction of the time).

    A symmetry is one row: the permutation ``π`` (``pegs`` columns, where
    ``(h∘π)[k] = h[π[k]]``), then the renaming ``σ`` over every colour,
    defined (>= 0) on the colours played and -1 on the others, which are
    interchangeable anyway (the exact search's own representation)."""

    def __init__(self, size: GameSize):
        self.size = size
        self.digits = code_digits(size.pegs, size.colors).astype(np.int64)
        perms = np.array(list(itertools.permutations(range(size.pegs))), dtype=np.int64)
        self.whole = np.hstack([perms, np.full((len(perms), size.colors), -1, np.int64)])

    def after(self, group: Array, guess: int, played: int, pool: Array, played_next: int) -> tuple[Array, Array | None]:
        """The guesses of ``pool`` worth scoring after ``guess`` (played with
        the colours of ``played`` already used, ``played_next`` after it),
        and the symmetries of the line so far (None once only the identity
        is left: nothing to gain deeper down)."""
        group = self.fixing(group, guess, played)
        if group.shape[0] == 1:
            return pool, None
        return self.smallest_images(pool, group, played_next), group

    def fixing(self, group: Array, guess: int, played: int) -> Array:
        """The symmetries of ``group`` that also leave ``guess`` unchanged:
        those whose ``π`` has a ``σ`` with ``σ(g∘π) = g``, ``σ`` extended to
        the colours new in ``g`` (which it may only send to new colours)."""
        pegs = self.size.pegs
        g = self.digits[guess]
        x = g[group[:, :pegs]]  # g∘π
        y = np.broadcast_to(g, x.shape)
        sigma = np.take_along_axis(group[:, pegs:], x, axis=1)
        known = sigma >= 0
        ok = np.where(known, sigma == y, ((played >> y) & 1) == 0).all(axis=1)
        # Pegs alike in g∘π are alike in g: σ is a map, and one to one.
        ok &= ((x[:, :, None] == x[:, None, :]) == (y[:, :, None] == y[:, None, :])).all(axis=(1, 2))
        out: Array = group[ok].copy()
        x, y, known = x[ok], y[ok], known[ok]
        rows = np.broadcast_to(np.arange(out.shape[0])[:, None], x.shape)
        out[rows[~known], pegs + x[~known]] = y[~known]
        return out

    def smallest_images(self, pool: Array, group: Array, played: int) -> Array:
        """The guesses of ``pool`` that no smaller guess of the pool copies
        by a symmetry of ``group``; an image's colours not yet played are
        renamed in order of first use, as the pool writes every guess."""
        pegs, colors = self.size.pegs, self.size.colors
        member = np.zeros(self.digits.shape[0], dtype=bool)
        member[pool] = True
        unplayed = np.array([c for c in range(colors) if not played >> c & 1] + [0], dtype=np.int64)
        codes = self.digits[pool]
        rows = np.arange(pool.shape[0])
        copied = np.zeros(pool.shape[0], dtype=bool)
        for e in range(1, group.shape[0]):  # row 0 is the identity
            permuted = codes[:, group[e, :pegs]]
            sigma = group[e, pegs:]
            rename = np.full((pool.shape[0], colors), -1, dtype=np.int64)
            fresh = np.zeros(pool.shape[0], dtype=np.int64)
            image = np.zeros(pool.shape[0], dtype=np.int64)
            for k in range(pegs):
                x = permuted[:, k]
                y = sigma[x]
                free = y < 0
                if free.any():
                    new = free & (rename[rows, x] < 0)
                    rename[rows[new], x[new]] = unplayed[fresh[new]]
                    fresh += new
                    y = np.where(free, rename[rows, x], y)
                image = image * colors + y
            copied |= (image < pool) & member[image]
        return pool[~copied]
