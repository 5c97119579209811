"""The engine's whole-game tree kernel (:mod:`webapp.engine.tree_kernel`),
compiled ahead of time by :mod:`webapp.native.build` into ``tree.so`` here,
and called through ctypes. Nothing here imports numpy or numba: on a board
of a few thousand codes, starting them takes longer than the tree itself,
so ``mastermind analyse`` plays the one-step strategies through this.

:func:`whole_tree` answers None whenever the library cannot: not built, built
from other sources than the engine's present ones or for another processor,
a strategy or a board it does not play. The caller then uses
:func:`webapp.engine.analyse`, which gives the same figures.
"""

from __future__ import annotations

import ctypes
import os

from .. import figures

TYPE_CHECKING = False  # typing itself costs the command's start-up more than this module
if TYPE_CHECKING:
    from typing import Any

# Plain os.path, no pathlib, json or dataclasses: each would cost this
# module more to import than it saves anyone (a few milliseconds each).
HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.join(HERE, "tree.so")
# What the library is made from (the kernel, the strategies whose switches
# it records, its build): when one changes, it is stale.
ENGINE = os.path.join(HERE, "..", "engine")
SOURCES = (
    os.path.join(ENGINE, "tree_kernel.py"),
    os.path.join(ENGINE, "strategies.py"),
    os.path.join(HERE, "build.py"),
)
# The entry's modes and the statuses of a grow (see ``tree_kernel.entry``).
LENGTHS, BOARD, GROW = 0, 1, 2
DONE = 0
# Grow to the end: no position is this deep.
EVERYTHING = 1 << 30
# On several threads, the positions of more codes than this have their
# guesses made first, by one thread; then the threads share their classes.
SPLIT = 500


def sources_stamp() -> list[list[int]]:
    """The size and CRC-32 of each source: what the library records of them
    when it is built (the contents, not the times, which a checkout
    changes)."""
    import zlib

    stamp = []
    for path in SOURCES:
        with open(path, "rb") as source:
            content = source.read()
        stamp.append([len(content), zlib.crc32(content)])
    return stamp


def processor() -> str:
    """What this machine's processor can do (its flags, on Linux): the
    library is compiled for the processor it was built on, and a checkout
    moved to another machine must not run it."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return os.uname().machine


class Library:
    """The loaded library's entry, and what it plays: each strategy's
    number and switches, and the most codes and colours a board may have;
    and the engine's default strategy."""

    def __init__(self, entry: Any, built: Any):
        self.entry, self.strategies, self.default_strategy = entry, built.STRATEGIES, built.DEFAULT_STRATEGY
        self.most_codes, self.most_colors = built.CODES, built.COLORS

    def plays(self, pegs: int, colors: int, distinct: bool, distinct_guesses: bool, strategy: str) -> bool:
        """Whether the library plays ``strategy`` on this board (and it is a
        board: the engine's ``GameSize`` reports any other)."""
        return (
            strategy in self.strategies
            and all(isinstance(v, int) and not isinstance(v, bool) for v in (pegs, colors))
            and figures.MIN_PEGS <= pegs <= figures.MAX_PEGS
            and figures.MIN_COLORS <= colors <= min(figures.MAX_COLORS, self.most_colors)
            and colors**pegs <= self.most_codes
            and (colors >= pegs or not (distinct or distinct_guesses))
        )


_loaded: list = []


def library() -> Library | None:
    """The library, when it is built from the present sources for this
    processor (loaded once)."""
    if not _loaded:
        _loaded.append(_load())
    return _loaded[0]


def _load() -> Library | None:
    try:
        from . import built  # literals, written with the library
    except ImportError:
        return None
    try:
        if sources_stamp() != built.SOURCES or processor() != built.PROCESSOR:
            return None
        entry = ctypes.CDLL(LIBRARY).mastermind_tree
    except (OSError, AttributeError):
        return None
    kinds: dict[str, Any] = {
        "i": ctypes.c_int64,
        "pi": ctypes.POINTER(ctypes.c_int64),
        "p32": ctypes.POINTER(ctypes.c_int32),
        "pu": ctypes.POINTER(ctypes.c_uint64),
        "pf": ctypes.POINTER(ctypes.c_double),
    }
    entry.argtypes = [kinds[k] for k in built.ARGUMENTS]
    entry.restype = ctypes.c_int64
    return Library(entry, built)


class Figures:
    """A strategy's whole game: its first guess, and the guesses each secret
    needs (secrets ascending, by code index)."""

    def __init__(self, first_guess: int, secrets: list[int], depths: list[int]):
        self.first_guess, self.secrets, self.depths = first_guess, secrets, depths


def buffer(kind: Any, length: int) -> Any:
    """A zeroed buffer of ``length`` values of the ctypes type ``kind``: an
    anonymous memory map, whose pages the system gives as they are first
    touched (a thread's work buffers reserve a row for every set of colours
    a pool may follow, and most stay untouched)."""
    import mmap

    return (kind * length).from_buffer(mmap.mmap(-1, max(length, 1) * ctypes.sizeof(kind)))


class Board:
    """One board's buffers in the library, and calls of its entry on them."""

    def __init__(self, lib: Library, pegs: int, colors: int, distinct: bool, distinct_guesses: bool, strategy: str):
        self.lib, self.pegs, self.colors = lib, pegs, colors
        self.rule = (int(distinct), int(distinct_guesses))
        self.strategy = lib.strategies[strategy]["id"]
        self.flags = buffer(ctypes.c_int64, 6)
        self.flags[:] = [*lib.strategies[strategy]["flags"], int(distinct_guesses)]
        self.codes = colors**pegs
        self.tasks = self.new_tasks()
        self.entry(LENGTHS, (None, None, None), (None, None, None), None, None, 0)  # into ``tasks``
        lengths = self.tasks[:6]
        self.board = (
            buffer(ctypes.c_uint64, lengths[0]),
            buffer(ctypes.c_int32, lengths[1]),
            buffer(ctypes.c_double, lengths[2]),
        )
        self.lengths = lengths[3:]
        self.order, self.depth_of = buffer(ctypes.c_int32, self.codes), buffer(ctypes.c_int64, self.codes)
        counted = self.entry(BOARD, self.board, (None, None, None), self.order, self.depth_of, 0)
        self.secrets, self.allowed = counted >> 32, counted & 0xFFFF_FFFF
        self.secret_codes = self.order[: self.secrets]  # a list: growing reorders ``order``

    def new_tasks(self) -> ctypes.Array[ctypes.c_int64]:
        """A buffer for what a grow reports (see ``tree_kernel.grow``)."""
        return buffer(ctypes.c_int64, 3 + 2 * self.codes)

    def work(self) -> tuple[ctypes.Array[Any], ...]:
        """One thread's work buffers."""
        lwi, lwu, lwf = self.lengths
        return buffer(ctypes.c_int32, lwi), buffer(ctypes.c_uint64, lwu), buffer(ctypes.c_double, lwf)

    def entry(
        self,
        mode: int,
        board: tuple,
        work: tuple,
        order: Any,
        depth_of: Any,
        allowed: int,
        *grow: int,
        tasks: Any = None,
    ) -> int:
        """The library's entry on this board (``grow``: fresh, start, n,
        depth, colours played, the depth where classes are listed)."""
        fresh, start, n, depth, played, stop = grow or (0, 0, 0, 1, 0, EVERYTHING)
        tasks = self.tasks if tasks is None else tasks
        rule, strategy, flags = self.rule, self.strategy, self.flags
        head = (mode, self.pegs, self.colors, *rule, strategy, fresh, flags, *board, *work, order)
        return int(self.lib.entry(*head, start, n, depth, played, stop, tasks, depth_of, allowed))

    def grow(
        self,
        work: tuple,
        start: int,
        n: int,
        depth: int = 1,
        played: int = 0,
        stop: int = EVERYTHING,
        fresh: bool = False,
        tasks: Any = None,
    ) -> int:
        """Grow the tree of the secrets ``order[start:start + n]`` (see
        ``tree_kernel.grow``) with one thread's ``work`` buffers (``fresh``:
        not used before); its status."""
        grown = (int(fresh), start, n, depth, played, stop)
        return self.entry(GROW, self.board, work, self.order, self.depth_of, self.allowed, *grown, tasks=tasks)

    def figures(self, first: int) -> Figures:
        """The figures of the tree grown, whose first guess is ``first``."""
        depth_of = self.depth_of
        return Figures(first, self.secret_codes, [depth_of[s] for s in self.secret_codes])


def thread_count() -> int | None:
    """Threads for a tree: every core, or ``NUMBA_NUM_THREADS``, as for the
    engine's compiled kernels (one setting governs both); None when that
    setting is not a number (the engine reports it)."""
    try:
        return max(1, int(os.environ.get("NUMBA_NUM_THREADS") or os.cpu_count() or 1))
    except ValueError:
        return None


def whole_tree(
    pegs: int, colors: int, distinct: bool, distinct_guesses: bool, strategy: str, threads: int = 1
) -> Figures | None:
    """Play ``strategy`` against every secret of the board; None when the
    library cannot. With ``threads`` above 1, that many threads share the
    positions (see :func:`shared`): the same figures."""
    lib = library()
    if lib is None or not lib.plays(pegs, colors, distinct, distinct_guesses, strategy):
        return None
    distinct = distinct or distinct_guesses  # guesses of different colours imply such a secret
    try:
        board = Board(lib, pegs, colors, distinct, distinct_guesses, strategy)
        if threads <= 1:
            first = board.tasks[1] if board.grow(board.work(), 0, board.secrets, fresh=True) == DONE else None
        else:
            first = shared(board, threads)
    except (OSError, MemoryError):  # no memory for the buffers: the engine may fare better
        return None
    return None if first is None else board.figures(first)


def shared(board: Board, threads: int) -> int | None:
    """Grow the board's tree on ``threads`` threads; its first guess, or
    None when a call failed. This thread first makes the guesses of the
    positions of more than ``SPLIT`` codes, the largest first, queueing the
    classes each makes, until no position left is larger; then the threads
    take the positions left, the largest first, and grow their subtrees.
    The library releases the interpreter's lock, so the threads work at
    once. (The ``_thread`` module: ``threading`` costs more to import than
    a thread saves on the smaller boards.)"""
    import _thread

    work, tasks = board.work(), board.new_tasks()
    if board.secrets <= SPLIT:  # too small to share
        return tasks[1] if board.grow(work, 0, board.secrets, fresh=True, tasks=tasks) == DONE else None
    queue = [(board.secrets, 0, 1, 0)]  # (codes, start, guess number, colours played): the largest last
    first, fresh = -1, True
    while queue and queue[-1][0] > SPLIT:
        n, start, depth, played = queue.pop()
        if board.grow(work, start, n, depth, played, depth + 1, fresh, tasks) != DONE:
            return None
        first = tasks[1] if depth == 1 else first
        fresh = False
        queue.extend((tasks[4 + 2 * t], tasks[3 + 2 * t], depth + 1, tasks[2]) for t in range(tasks[0]))
        queue.sort()
    lock = _thread.allocate_lock()
    failed: list[int] = []

    def take(work: tuple, tasks: Any, fresh: bool) -> None:
        while True:
            with lock:
                if not queue:
                    return
                n, start, depth, played = queue.pop()
            if board.grow(work, start, n, depth, played, EVERYTHING, fresh, tasks) != DONE:
                failed.append(start)
            fresh = False

    def helper(done: Any) -> None:
        try:
            take(board.work(), board.new_tasks(), True)
        except BaseException:
            failed.append(-1)
            raise
        finally:
            done.release()

    finished = []
    for _ in range(threads - 1):
        done = _thread.allocate_lock()
        done.acquire()
        finished.append(done)
        _thread.start_new_thread(helper, (done,))
    take(work, tasks, fresh)
    for done in finished:
        done.acquire()  # released when its thread ends
    return None if failed else first
