"""Feedback for many codes at once, and the candidate set after a history.

A :class:`FeedbackTable` answers two questions fast: the feedback of one guess
against many codes, and the class sizes of the partition each of many guesses
makes. Small sizes keep the whole ``n × n`` feedback matrix in memory; larger
ones compute rows on demand.

Small pieces of work run in numpy; large ones in the compiled kernels
(``kernels.py``, numba), which are loaded the first time a piece of work is
large enough to pay for loading them, or at once by ``warm.warm_up()``
(the web app's start). So a command on the classic board never loads numba.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any, cast

import numpy as np
from cachetools import LRUCache

from .codes import (
    Array,
    Code,
    Feedback,
    FeedbackError,
    GameSize,
    History,
    Indices,
    Progress,
    code_digits,
    color_counts,
    secret_indices,
)

# The matrix is kept when it needs at most this many bytes (8,192 codes),
# unless a caller asks for more. Beyond it replies are worked out as they are
# needed, which is about as fast for whole-game analysis (counting class
# sizes dominates either way) and keeps 5 × 8 in under 200 MiB instead of a
# 1 GiB matrix.
DEFAULT_MATRIX_BYTES = 64 * 2**20
MATRIX_CHUNK = 1024


# Work of at most this many (guess, code) pairs runs in numpy unless the
# compiled kernels are loaded already: loading them costs about a third of a
# second, which numpy's slower loop repays only on larger pieces of work.
NUMPY_PAIRS = 4_000_000
_compiled = None  # the kernels module, once loaded


def compiled(pairs: int) -> Any:
    """The compiled kernels when they are loaded or ``pairs`` is worth loading
    them for; else None (numpy does it)."""
    global _compiled
    if _compiled is None and pairs > NUMPY_PAIRS:
        from . import kernels

        _compiled = kernels
    return _compiled


def use_compiled() -> None:
    """From now on, every piece of work goes to the compiled kernels (called
    by ``warm.warm_up`` once they are loaded)."""
    global _compiled
    from . import kernels

    _compiled = kernels


def feedback_numpy(g_digits: Array, g_counts: Array, digits: Array, counts: Array, pegs: int) -> Array:
    """Feedback of each guess (rows) against each code (columns), encoded as
    ``black * pegs + common``, with numpy alone (one 2-D pass per peg and per
    colour: a reduction over a short last axis would be several times slower)."""
    out = np.zeros((g_digits.shape[0], digits.shape[0]), dtype=np.uint8)
    for p in range(g_digits.shape[1]):
        out += g_digits[:, p, None] == digits[None, :, p]
    out *= np.uint8(pegs)
    for c in range(g_counts.shape[1]):
        out += np.minimum(g_counts[:, c, None], counts[None, :, c])
    return out


def counts_numpy(rows: np.ndarray, slots: int) -> np.ndarray:
    """Class sizes of each row of feedback: ``(len(rows), slots)`` int32."""
    flat = rows.astype(np.intp) + (np.arange(rows.shape[0], dtype=np.intp) * slots)[:, None]
    return np.bincount(flat.ravel(), minlength=rows.shape[0] * slots).reshape(rows.shape[0], slots).astype(np.int32)


# Class sizes for at most this many codes come from small tables (see
# ``small_tables``) when the full matrix is not kept.
SMALL_SET_CODES = 24


def unique_rows(rows: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)`` for rows of small
    numbers (each below ``base``), many times faster: each row is read as one
    number, first column most significant, which sorts as the rows do."""
    weights = base ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64)
    keys, inverse = np.unique(rows.astype(np.int64) @ weights, return_inverse=True)
    unique = (keys[:, None] // weights) % base
    return unique.astype(rows.dtype), inverse


@lru_cache(maxsize=8)
def small_tables(pegs: int, colors: int) -> tuple[Array, ...]:
    """Tables that give a reply with three lookups: the index of each code's
    first ``pegs // 2`` pegs and of its other pegs, the index of its colour
    multiset, the black pegs between any two first parts and any two last
    parts, and the colours in common between any two multisets (for 5 pegs and
    8 colours: 64², 512² and 792² entries)."""
    half = pegs // 2
    tail = colors ** (pegs - half)
    codes = np.arange(colors**pegs, dtype=np.int64)

    def blacks(k: int) -> np.ndarray:
        parts = code_digits(k, colors)
        return cast(Array, (parts[:, None, :] == parts[None, :, :]).sum(axis=2, dtype=np.uint8))

    multisets, m_index = unique_rows(color_counts(pegs, colors), pegs + 1)
    common = np.minimum(multisets[:, None, :], multisets[None, :, :]).sum(axis=2, dtype=np.uint8)
    return codes // tail, codes % tail, m_index.ravel().astype(np.int64), blacks(half), blacks(pegs - half), common


def _indices(values: Array) -> Indices:
    """Code indices as the kernels take them: contiguous, writable int64
    (one argument type, so each kernel is compiled once)."""
    return np.require(values, np.int64, ["C", "W"])


class FeedbackTable:
    """Feedback between codes of one size, by index."""

    def __init__(self, pegs: int, colors: int, matrix: np.ndarray | None = None):
        self.pegs, self.colors = pegs, colors
        self.slots = (pegs + 1) ** 2
        self.digits = code_digits(pegs, colors)
        self.counts = color_counts(pegs, colors)
        self.matrix = matrix
        # Different replies a guess can get (``(pegs - 1, 1)`` never happens).
        self.replies = (pegs + 1) * (pegs + 2) // 2 - 1

    @property
    def nbytes(self) -> int:
        """What this table keeps beyond the shared digit arrays: its matrix."""
        return 1024 + (self.matrix.nbytes if self.matrix is not None else 0)

    def _columns(self, codes: Array) -> tuple[Array, Array]:
        return (
            np.ascontiguousarray(self.digits[codes].T),
            np.ascontiguousarray(self.counts[codes].T),
        )

    def rows(self, guesses: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Feedback of each guess against each code: ``(len(guesses), len(codes))``."""
        guesses = np.asarray(guesses, dtype=np.int64)
        codes = np.asarray(codes, dtype=np.int64)
        if self.matrix is not None:
            return cast(Array, self.matrix[np.ix_(guesses, codes)])
        kernels = compiled(len(guesses) * len(codes))
        if kernels is None:
            return feedback_numpy(
                self.digits[guesses], self.counts[guesses], self.digits[codes], self.counts[codes], self.pegs
            )
        digits_t, counts_t = self._columns(codes)
        return cast(
            Array, kernels.feedback_block(self.digits[guesses], self.counts[guesses], digits_t, counts_t, self.pegs)
        )

    def row(self, guess: int, codes: np.ndarray) -> np.ndarray:
        """Feedback of one guess against each code."""
        if self.matrix is not None:
            return cast(Array, self.matrix[guess, codes])
        if codes.shape[0] <= SMALL_SET_CODES and _compiled is not None:
            return cast(
                Array, _compiled.replies_few(guess, _indices(codes), small_tables(self.pegs, self.colors), self.pegs)
            )
        return cast(Array, self.rows(np.array([guess]), codes)[0])

    def split(self, guess: int, codes: Array) -> Any:
        """``codes`` (ascending) grouped by their reply to ``guess``: the
        grouped codes, the replies that occur (ascending) and where each
        group starts, with one more entry for the end."""
        replies = self.row(guess, codes)
        if _compiled is not None:
            return _compiled.split_by_reply(replies, _indices(codes), self.slots)
        order = np.argsort(replies, kind="stable")
        values, starts = np.unique(replies[order], return_index=True)
        return codes[order], values, np.append(starts, codes.shape[0])

    def class_counts(self, guesses: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Size of every feedback class each guess makes of ``codes``:
        ``(len(guesses), (pegs + 1) ** 2)`` int32."""
        guesses = _indices(guesses)
        codes = _indices(codes)
        kernels = compiled(len(guesses) * len(codes))
        if kernels is None:
            return counts_numpy(self.rows(guesses, codes), self.slots)
        if self.matrix is not None:
            return cast(Array, kernels.counts_from_matrix(self.matrix, guesses, codes, self.slots))
        if codes.shape[0] <= SMALL_SET_CODES:
            return cast(
                Array, kernels.counts_few(guesses, codes, small_tables(self.pegs, self.colors), self.pegs, self.slots)
            )
        digits_t, counts_t = self._columns(codes)
        return cast(
            Array, kernels.counts_direct(self.digits, self.counts, guesses, digits_t, counts_t, self.pegs, self.slots)
        )

    def first_perfect_split(self, guesses: np.ndarray, codes: np.ndarray) -> int:
        """Position in ``guesses`` of the first that splits ``codes`` into
        single codes, or -1."""
        if codes.shape[0] > self.replies:
            return -1
        guesses = _indices(guesses)
        codes = _indices(codes)
        kernels = compiled(len(guesses) * len(codes))
        if kernels is not None:
            if self.matrix is not None:
                return int(kernels.first_perfect_split(self.matrix, guesses, codes, self.slots))
            return int(kernels.first_perfect_split_few(guesses, codes, small_tables(self.pegs, self.colors), self.pegs))
        for start in range(0, guesses.shape[0], 4096):
            counts = self.class_counts(guesses[start : start + 4096], codes)
            hits = np.flatnonzero(counts.max(axis=1) <= 1)
            if hits.size:
                return start + int(hits[0])
        return -1


def feedback_matrix(pegs: int, colors: int, progress: Progress | None = None) -> Array:
    """The full ``n × n`` feedback matrix (uint8), built in parallel chunks.

    ``progress(done, total)`` is called after each chunk when given.
    """
    digits, counts = code_digits(pegs, colors), color_counts(pegs, colors)
    n = digits.shape[0]
    digits_t, counts_t = np.ascontiguousarray(digits.T), np.ascontiguousarray(counts.T)
    matrix = np.empty((n, n), dtype=np.uint8)
    kernels = compiled(n * n)
    chunk = MATRIX_CHUNK if kernels is not None else 256
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        if kernels is None:
            matrix[start:stop] = feedback_numpy(digits[start:stop], counts[start:stop], digits, counts, pegs)
        else:
            with kernels.PARALLEL_LOCK:
                kernels.feedback_block_into(
                    matrix[start:stop], digits[start:stop], counts[start:stop], digits_t, counts_t, pegs
                )
        if progress:
            progress(stop, n)
    matrix.flags.writeable = False
    return matrix


# Tables kept per process, in bytes of their matrices: a few sizes' matrices
# (4×9's is 41 MiB, 5×6's 58 MiB), the least recently used let go first.
TABLE_CACHE_BYTES = 128 * 2**20
_tables: LRUCache[tuple[int, int], FeedbackTable] = LRUCache(
    maxsize=TABLE_CACHE_BYTES, getsizeof=lambda table: table.nbytes
)
_tables_lock = threading.Lock()


def feedback_table(
    size: GameSize, max_matrix_bytes: int = DEFAULT_MATRIX_BYTES, progress: Progress | None = None
) -> FeedbackTable:
    """The shared table for ``size``; with the full matrix when it fits in
    ``max_matrix_bytes``."""
    key = (size.pegs, size.colors)
    wants_matrix = size.n_codes**2 <= max_matrix_bytes
    with _tables_lock:
        table = _tables.get(key)
        if table is not None and (table.matrix is not None or not wants_matrix):
            return table
        matrix = feedback_matrix(size.pegs, size.colors, progress) if wants_matrix else None
        table = FeedbackTable(size.pegs, size.colors, matrix)
        if table.nbytes <= _tables.maxsize:  # a larger one (asked for by a caller) is not kept
            _tables[key] = table
        return table


def consistent(size: GameSize, candidates: np.ndarray, guess: Code, reply: Feedback) -> np.ndarray:
    """The candidates (indices) that would give ``reply`` to ``guess``."""
    table = feedback_table(size)
    row = table.row(guess.index(size), candidates)
    return cast(Array, candidates[row == reply.encode(size.pegs)])


def candidates(size: GameSize, history: History = ()) -> Array:
    """Indices of the secrets still possible after ``history``, a sequence of
    ``(Code, Feedback)`` pairs. Raises :class:`FeedbackError` when none is."""
    remaining = secret_indices(size)
    for guess, reply in history:
        reply.check(size)
        remaining = consistent(size, remaining, guess, reply)
    if remaining.size == 0:
        raise FeedbackError("no-secret-fits")
    return remaining
