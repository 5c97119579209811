"""Feedback for many codes at once, and the candidate set after a history.

A :class:`FeedbackTable` answers two questions fast: the feedback of one guess
against many codes, and the class sizes of the partition each of many guesses
makes. Small sizes keep the whole ``n × n`` feedback matrix in memory; larger
ones compute rows on demand.

Small pieces of work run in numpy; large ones in the compiled kernels
(``kernels.py``, numba), which are loaded the first time a piece of work is
large enough to pay for loading them, or at once by ``warm.warm_up()``
(the web app's start). Work read off a kept matrix stays in numpy far
longer: numpy gathers and counts a matrix's bytes quickly, and loading numba
costs more than whole trees of such work. So a command on a board of up to
a few thousand codes (Bulls and Cows included) never loads numba.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
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
# The same for work read off a kept matrix (a gather and a count, about
# 3 ns a pair in numpy): a whole Bulls and Cows tree reads some 10 million.
NUMPY_MATRIX_PAIRS = 64_000_000
_compiled = None  # the kernels module, once loaded


def compiled(pairs: int, limit: int = NUMPY_PAIRS) -> Any:
    """The compiled kernels when they are loaded or ``pairs`` (more than
    ``limit``) is worth loading them for; else None (numpy does it)."""
    global _compiled
    if _compiled is None and pairs > limit:
        from . import kernels

        _compiled = kernels
    return _compiled


def loaded() -> Any:
    """The compiled kernels if something loaded them already, else None."""
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


def feedback_by_tables(guesses: Array, codes: Array, small: tuple[Array, ...], pegs: int) -> Array:
    """:func:`feedback_numpy` from the small tables of :func:`small_tables`
    (three lookups a pair: black pegs of the first pegs and of the last
    ones, colours in common), several times faster; whole rows for the
    shorter index, then the longer one taken from them. The result may be a
    transposed view."""
    if guesses.shape[0] <= codes.shape[0]:
        return _by_tables(guesses, codes, small, pegs)
    return _by_tables(codes, guesses, small, pegs).T


def _by_tables(rows: Array, columns: Array, small: tuple[Array, ...], pegs: int) -> Array:
    first, last, multiset, black_first, black_last, common = small
    out: Array = np.take(black_first[first[rows]], first[columns], axis=1)
    out += np.take(black_last[last[rows]], last[columns], axis=1)
    out *= np.uint8(pegs)
    out += np.take(common[multiset[rows]], multiset[columns], axis=1)
    return out


# Replies come from the small tables in numpy for boards of at most this many
# colour multisets (4 × 10 has 715, 5 × 8 792; 6 × 9's 3,003 would make the
# table of colours in common 9 MB).
SMALL_TABLE_SETS = 1000


def counts_by_reply(replies: Array, slots: int) -> Array:
    """Class sizes (``(guesses, slots)`` int32, laid out reply by reply) from
    the replies of each code (rows) to each guess (columns)."""
    n = replies.shape[1]
    keys = np.multiply(replies, n, dtype=np.intp)
    keys += np.arange(n, dtype=np.intp)
    counts = np.bincount(keys.ravel(), minlength=n * slots).astype(np.int32)
    return counts.reshape(slots, n).T


def gathered(matrix: Array, rows: Array, columns: Array) -> tuple[Array, bool]:
    """``matrix[np.ix_(rows, columns)]`` for a symmetric matrix, quickly:
    whole rows of the shorter index are copied, then the longer one is taken
    from them. Returns the block and whether it came transposed
    (``(len(columns), len(rows))``)."""
    if rows.shape[0] <= columns.shape[0]:
        return np.take(matrix[rows], columns, axis=1), False
    return np.take(matrix[columns], rows, axis=1), True


def counts_gathered(matrix: Array, rows: Array, columns: Array, slots: int) -> Array:
    """Class sizes (``(len(rows), slots)`` int32) of each row's replies from
    ``columns``, read off a symmetric matrix with numpy alone. The array is
    laid out reply by reply (Fortran order), so that a score over each row's
    classes (the largest, a sum) runs along memory."""
    block, transposed = gathered(matrix, rows, columns)
    n = rows.shape[0]
    keys = np.multiply(block, n, dtype=np.intp)
    keys += np.arange(n, dtype=np.intp)[None, :] if transposed else np.arange(n, dtype=np.intp)[:, None]
    counts = np.bincount(keys.ravel(), minlength=n * slots).astype(np.int32)
    return counts.reshape(slots, n).T


# Guesses in numpy's first block when it looks for a perfect split (each
# later block is four times larger).
FIRST_GUESSES_TRIED = 256


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
    common = np.zeros((multisets.shape[0], multisets.shape[0]), dtype=np.uint8)
    for color in range(colors):  # a 2-D pass per colour: far quicker than a reduction over a short axis
        common += np.minimum(multisets[:, None, color], multisets[None, :, color])
    return codes // tail, codes % tail, m_index.ravel().astype(np.int64), blacks(half), blacks(pegs - half), common


def _indices(values: Array) -> Indices:
    """Code indices as the kernels take them: contiguous, writable int64
    (one argument type, so each kernel is compiled once)."""
    if values.dtype == np.int64 and values.flags.c_contiguous and values.flags.writeable:
        return values  # the usual case, without np.require's overhead
    return np.require(values, np.int64, ["C", "W"])


class FeedbackTable:
    """Feedback between codes of one size, by index.

    ``matrix`` keeps the feedback between every two codes; without it,
    ``block`` may keep the feedback between the codes of ``members`` (the
    codes of different colours, when those alone fit in memory: Bulls and
    Cows's 5,040 of 10,000)."""

    def __init__(
        self,
        pegs: int,
        colors: int,
        matrix: np.ndarray | None = None,
        block: np.ndarray | None = None,
        members: np.ndarray | None = None,
    ):
        self.pegs, self.colors = pegs, colors
        self.slots = (pegs + 1) ** 2
        self.digits = code_digits(pegs, colors)
        self.counts = color_counts(pegs, colors)
        self.matrix = matrix
        self.block: Array | None = None
        self.position: Array | None = None
        if block is not None and members is not None:
            self.keep_block(block, members)
        # The slot (``black * pegs + common``) of each reply a guess can get,
        # in order (``(pegs - 1, 1)`` never happens), and how many there are.
        possible = [b * pegs + c for b in range(pegs + 1) for c in range(b, pegs + 1) if (b, c) != (pegs - 1, pegs)]
        self.reply_slots = np.array(possible, dtype=np.intp)
        self.replies = len(possible)
        # Whether numpy works replies out from the small tables (few enough colour multisets).
        self.by_tables = math.comb(pegs + colors - 1, pegs) <= SMALL_TABLE_SETS
        # Up to 4 pegs, a partition of at most ``replies`` codes fits in one
        # 64-bit number, four bits a reply (see ``_perfect_or_counts``).
        self.nibbles: Array | None = None
        if self.replies <= 16:
            self.nibbles = np.zeros(self.slots, dtype=np.uint64)
            self.nibbles[self.reply_slots] = np.uint64(1) << (np.uint64(4) * np.arange(len(possible), dtype=np.uint64))

    def keep_block(self, block: Array, members: Array) -> None:
        """Keep ``block``, the feedback between the codes of ``members``."""
        position = np.full(self.digits.shape[0], -1, dtype=np.int64)
        position[members] = np.arange(members.shape[0])
        self.block, self.position = block, position

    @property
    def nbytes(self) -> int:
        """What this table keeps beyond the shared digit arrays: its matrices."""
        kept = self.matrix.nbytes if self.matrix is not None else 0
        if self.block is not None and self.position is not None:
            kept += self.block.nbytes + self.position.nbytes
        return 1024 + kept

    def kept(self, guesses: Array, codes: Array) -> tuple[Array, Array, Array] | None:
        """A kept matrix holding the feedback of ``guesses`` against
        ``codes``, with their rows and columns in it; None if none does."""
        if self.matrix is not None:
            return self.matrix, guesses, codes
        if self.block is not None and self.position is not None:
            rows, columns = self.position[guesses], self.position[codes]
            if rows.min(initial=0) >= 0 and columns.min(initial=0) >= 0:
                return self.block, rows, columns
        return None

    def _columns(self, codes: Array) -> tuple[Array, Array]:
        return (
            np.ascontiguousarray(self.digits[codes].T),
            np.ascontiguousarray(self.counts[codes].T),
        )

    def rows(self, guesses: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Feedback of each guess against each code: ``(len(guesses), len(codes))``."""
        guesses = np.asarray(guesses, dtype=np.int64)
        codes = np.asarray(codes, dtype=np.int64)
        kept = self.kept(guesses, codes)
        if kept is not None:
            block, transposed = gathered(*kept)
            return block.T if transposed else block
        kernels = compiled(len(guesses) * len(codes))
        if kernels is None:
            if self.by_tables:
                return feedback_by_tables(guesses, codes, small_tables(self.pegs, self.colors), self.pegs)
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
        if self.block is not None and self.position is not None:
            at, columns = self.position[guess], self.position[codes]
            if at >= 0 and columns.min(initial=0) >= 0:
                return cast(Array, self.block[at, columns])
        if codes.shape[0] <= SMALL_SET_CODES and _compiled is not None:
            return cast(
                Array, _compiled.replies_few(guess, _indices(codes), small_tables(self.pegs, self.colors), self.pegs)
            )
        return cast(Array, self.rows(np.array([guess]), codes)[0])

    def reply(self, guess: int, code: int) -> int:
        """The feedback of one guess against one code, read off a kept
        matrix or the small tables (far cheaper for a single pair than
        :meth:`row`'s arrays)."""
        if self.matrix is not None:
            return int(self.matrix[guess, code])
        if self.block is not None and self.position is not None:
            at, to = int(self.position[guess]), int(self.position[code])
            if at >= 0 and to >= 0:
                return int(self.block[at, to])
        if not self.by_tables:
            return int(self.row(guess, np.array([code], dtype=np.int64))[0])
        first, last, multiset, black_first, black_last, common = small_tables(self.pegs, self.colors)
        black = int(black_first[first[guess], first[code]]) + int(black_last[last[guess], last[code]])
        return black * self.pegs + int(common[multiset[guess], multiset[code]])

    def split(self, guess: int, codes: Array) -> Any:
        """``codes`` (ascending) grouped by their reply to ``guess``: the
        grouped codes, the replies that occur (ascending) and where each
        group starts, with one more entry for the end."""
        replies = self.row(guess, codes)
        if _compiled is not None:
            return _compiled.split_by_reply(replies, _indices(codes), self.slots)
        order = np.argsort(replies, kind="stable")
        sizes = np.bincount(replies, minlength=self.slots)
        values = np.flatnonzero(sizes)
        return codes[order], values, np.append(0, np.cumsum(sizes[values]))

    def class_counts(self, guesses: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Size of every feedback class each guess makes of ``codes``:
        ``(len(guesses), (pegs + 1) ** 2)`` int32."""
        guesses = _indices(guesses)
        codes = _indices(codes)
        pairs = len(guesses) * len(codes)
        kept = self.kept(guesses, codes)
        if kept is not None:
            kernels = compiled(pairs, NUMPY_MATRIX_PAIRS)
            if kernels is None:
                return counts_gathered(*kept, self.slots)
            matrix, rows, columns = kept
            return cast(Array, kernels.counts_from_matrix(matrix, _indices(rows), _indices(columns), self.slots))
        kernels = compiled(pairs)
        if kernels is None:
            return counts_by_reply(self.replies_of(guesses, codes), self.slots)
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
        return self._first_perfect_split(guesses, codes, self.kept(guesses, codes))

    def _first_perfect_split(self, guesses: Array, codes: Array, kept: tuple[Array, Array, Array] | None) -> int:
        """:meth:`first_perfect_split`, the kept matrix looked up already."""
        pairs = len(guesses) * len(codes)
        kernels = compiled(pairs, NUMPY_MATRIX_PAIRS if kept is not None else NUMPY_PAIRS)
        if kernels is None:
            return self._perfect_or_counts(guesses, codes, kept, counts=False)[0]
        if kept is not None:
            matrix, rows, columns = kept
            return int(kernels.first_perfect_split(matrix, _indices(rows), _indices(columns), self.slots))
        return int(kernels.first_perfect_split_few(guesses, codes, small_tables(self.pegs, self.colors), self.pegs))

    def perfect_or_counts(self, guesses: np.ndarray, codes: np.ndarray) -> tuple[int, Array | None]:
        """:meth:`first_perfect_split`, and when it finds none, the class
        sizes of every guess (:meth:`class_counts`) if they came on the way
        (the compiled kernels count a few codes' classes as they look; numpy
        has them from what it looked at), else None."""
        if codes.shape[0] > self.replies:
            return -1, None
        guesses, codes = _indices(guesses), _indices(codes)
        pairs = len(guesses) * len(codes)
        kept = self.kept(guesses, codes)
        kernels = compiled(pairs, NUMPY_MATRIX_PAIRS if kept is not None else NUMPY_PAIRS)
        if kernels is None:
            return self._perfect_or_counts(guesses, codes, kept)
        if kept is None and codes.shape[0] <= SMALL_SET_CODES:
            first, counts = kernels.perfect_or_counts_few(
                guesses, codes, small_tables(self.pegs, self.colors), self.pegs, self.slots
            )
            return int(first), counts
        return self._first_perfect_split(guesses, codes, kept), None

    def _perfect_or_counts(
        self, guesses: Array, codes: Array, kept: tuple[Array, Array, Array] | None, counts: bool = True
    ) -> tuple[int, Array | None]:
        """Position of the first of ``guesses`` that splits ``codes`` (at
        most ``replies`` of them) into single codes, or -1 with the class
        sizes of every guess (when ``counts``), in numpy, a block of guesses
        at a time, small blocks first, so an early hit ends the work early.

        Up to 4 pegs, each code adds ``1 << 4k`` for its reply ``k`` (of at
        most 16) to its guess's number: four bits a reply count up to 15
        codes, the whole partition in one number. A split is perfect when
        no count reaches 2, and the class sizes are the number's four-bit
        parts. Otherwise each reply is a bit (replies are below 64): they
        differ exactly when their bits' sum equals their union, and the
        class sizes are counted from the replies."""
        nibbles = self.nibbles
        blocks, start, width = [], 0, FIRST_GUESSES_TRIED
        while start < guesses.shape[0]:
            stop = start + width
            part = None if kept is None else (kept[0], kept[1][start:stop], kept[2])
            replies = self.replies_of(guesses[start:stop], codes, part)
            # ``seen``: what the counts come from later (packed partitions, or the replies).
            if nibbles is not None:
                seen = np.take(nibbles, replies).sum(axis=0, dtype=np.uint64)
                hits = np.flatnonzero((seen & np.uint64(0xEEEE_EEEE_EEEE_EEEE)) == 0)
            else:
                bits = np.left_shift(np.uint64(1), replies, dtype=np.uint64)
                hits = np.flatnonzero(np.bitwise_or.reduce(bits, axis=0) == bits.sum(axis=0, dtype=np.uint64))
                seen = replies
            if hits.size:
                return start + int(hits[0]), None
            if counts:
                blocks.append(seen)
            start, width = stop, width * 4
        if not counts:
            return -1, None
        if nibbles is None:
            replies = np.concatenate(blocks, axis=1) if blocks else np.zeros((codes.shape[0], 0), dtype=np.uint8)
            return -1, counts_by_reply(replies, self.slots)
        packed = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.uint64)
        shifts = np.uint64(4) * np.arange(self.reply_slots.shape[0], dtype=np.uint64)
        out = np.zeros((self.slots, packed.shape[0]), dtype=np.int32)  # laid out reply by reply, as counts_by_reply
        out[self.reply_slots] = (packed[None, :] >> shifts[:, None]) & np.uint64(15)
        return -1, out.T

    def replies_of(self, guesses: Array, codes: Array, kept: tuple[Array, Array, Array] | None = None) -> Array:
        """The replies of each code (rows) to each guess (columns), in numpy:
        read off ``kept`` (:meth:`kept`) when given, else worked out. The
        layout suits a few codes and many guesses: a step over the codes is a
        step over whole rows of guesses."""
        if kept is not None:
            matrix, rows, columns = kept
            return np.take(matrix[columns], rows, axis=1)
        if self.by_tables:
            return _by_tables(codes, guesses, small_tables(self.pegs, self.colors), self.pegs)
        return feedback_numpy(
            self.digits[codes], self.counts[codes], self.digits[guesses], self.counts[guesses], self.pegs
        )


def feedback_matrix(pegs: int, colors: int, progress: Progress | None = None) -> Array:
    """The full ``n × n`` feedback matrix (uint8), built in chunks (in
    parallel by the compiled kernels when they are loaded or the matrix is
    large, else in numpy).

    ``progress(done, total)`` is called after each chunk when given.
    """
    digits, counts = code_digits(pegs, colors), color_counts(pegs, colors)
    n = digits.shape[0]
    kernels = compiled(n * n, NUMPY_MATRIX_PAIRS)
    if kernels is None:
        return among_numpy(pegs, colors, np.arange(n), progress)
    digits_t, counts_t = np.ascontiguousarray(digits.T), np.ascontiguousarray(counts.T)
    matrix = np.empty((n, n), dtype=np.uint8)
    for start in range(0, n, MATRIX_CHUNK):
        stop = min(n, start + MATRIX_CHUNK)
        with kernels.PARALLEL_LOCK:
            kernels.feedback_block_into(
                matrix[start:stop], digits[start:stop], counts[start:stop], digits_t, counts_t, pegs
            )
        if progress:
            progress(stop, n)
    matrix.flags.writeable = False
    return matrix


def among_numpy(pegs: int, colors: int, members: Array, progress: Progress | None = None) -> Array:
    """The feedback between the codes of ``members`` (ascending: every code,
    the codes of different colours, any set) as an ``(m, m)`` uint8 matrix, with
    numpy alone, encoded as ``black * pegs + common``.

    The small tables of ``small_tables`` give it in two parts. The black
    pegs of the first pegs depend only on the two codes' first pegs; codes
    sharing them come in runs. The rest, black pegs of the last pegs plus
    colours in common, depends only on a row's last pegs and colour
    multiset, a key with about half as many values as there are codes: a
    table of each key against every member, worked out once. A run of rows
    is then its keys' rows of that table (a copy) plus one row of first-peg
    blacks, the same for the whole run (an add).
    """
    first, last, multiset, black_first, black_last, common = small_tables(pegs, colors)
    n_sets, weight = common.shape[0], np.uint8(pegs)
    heads, runs = np.unique(first[members], return_counts=True)
    keys, key = np.unique(last[members] * np.int64(n_sets) + multiset[members], return_inverse=True)
    key, lasts, sets = key.ravel(), keys // n_sets, keys % n_sets
    rest = np.take(black_last[lasts] * weight, last[members], axis=1)
    rest += np.take(common[sets], multiset[members], axis=1)
    heads_black = np.take(black_first[heads] * weight, first[members], axis=1)
    m = members.shape[0]
    matrix = np.empty((m, m), dtype=np.uint8)
    start = 0
    for h, stop in enumerate(np.cumsum(runs).tolist()):
        part = matrix[start:stop]
        np.take(rest, key[start:stop], axis=0, out=part)
        part += heads_black[h]
        start = stop
        if progress:
            progress(stop, m)
    matrix.flags.writeable = False
    return matrix


def feedback_among(pegs: int, colors: int, members: Array) -> Array:
    """The feedback between the codes of ``members`` (``(m, m)`` uint8)."""
    m = members.shape[0]
    kernels = compiled(m * m, NUMPY_MATRIX_PAIRS)
    if kernels is None:
        return among_numpy(pegs, colors, members)
    digits, counts = code_digits(pegs, colors)[members], color_counts(pegs, colors)[members]
    digits_t, counts_t = np.ascontiguousarray(digits.T), np.ascontiguousarray(counts.T)
    matrix = np.empty((m, m), dtype=np.uint8)
    with kernels.PARALLEL_LOCK:
        kernels.feedback_block_into(matrix, digits, counts, digits_t, counts_t, pegs)
    matrix.flags.writeable = False
    return matrix


def distinct_block(pegs: int, colors: int, members: Array) -> Array:
    """The feedback among the codes of different colours, ``members``."""
    name = f"feedback-{pegs}x{colors}-different-colours"
    return kept_on_disk(name, pegs, colors, members, lambda: feedback_among(pegs, colors, members))


# Tables kept per process, in bytes of their matrices: a few sizes' matrices
# (4×9's is 41 MiB, 5×6's 58 MiB), the least recently used let go first.
TABLE_CACHE_BYTES = 128 * 2**20
_tables: LRUCache[tuple[int, int], FeedbackTable] = LRUCache(
    maxsize=TABLE_CACHE_BYTES, getsizeof=lambda table: table.nbytes
)
_tables_lock = threading.Lock()


# Matrices built once are kept on disk for later processes, in the directory
# MASTERMIND_CACHE names ("off": none), by default the user's cache directory.
# A process reads the file rather than building the matrix again (4×8's
# 16 MB: 23 ms to build, 3 ms to read). The name carries the layout's version.
CACHE_FORMAT = "v1"
# Smaller matrices build about as fast as a file is read.
CACHE_FROM_CODES = 2000


def cache_directory() -> str | None:
    """Where matrices are kept between processes, or None (``off``)."""
    chosen = os.environ.get("MASTERMIND_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mastermind-lab")


def kept_on_disk(name: str, pegs: int, colors: int, members: Array, build: Callable[[], Array]) -> Array:
    """The ``(m, m)`` feedback matrix among ``members`` (code indices,
    ascending; at least ``CACHE_FROM_CODES`` of them, else it is simply
    built), called ``name``: read from the cache when a file there has
    the right shape and agrees with replies worked out afresh on a few rows,
    else built and written (to a temporary file first, then renamed: a
    reader never sees half a file; a directory that cannot be written only
    means no file)."""
    directory = cache_directory()
    m = members.shape[0]
    if directory is None or m < CACHE_FROM_CODES:
        return build()
    path = os.path.join(directory, f"{name}-{CACHE_FORMAT}.npy")
    try:
        kept = np.load(path, allow_pickle=False)  # into memory of its own: 3 ms for 16 MB
        if kept.shape == (m, m) and kept.dtype == np.uint8 and _rows_agree(kept, pegs, colors, members):
            kept.flags.writeable = False
            return cast(Array, kept)
    except (OSError, ValueError):
        pass
    matrix = build()
    try:
        import tempfile  # only when a file is written

        os.makedirs(directory, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}-", suffix=".npy")
        try:
            with os.fdopen(fd, "wb") as out:
                np.save(out, matrix, allow_pickle=False)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
    return matrix


def _rows_agree(matrix: Array, pegs: int, colors: int, members: Array) -> bool:
    """Whether a few rows of ``matrix`` (the first, the last and three
    between) are the replies of their codes to every member."""
    m = members.shape[0]
    rows = np.array(sorted({0, m // 3, m // 2, (2 * m) // 3, m - 1}))  # np.unique would load numpy.ma (7 ms)
    digits, counts = code_digits(pegs, colors), color_counts(pegs, colors)
    codes = members[rows]
    fresh = feedback_numpy(digits[codes], counts[codes], digits[members], counts[members], pegs)
    return bool((matrix[rows] == fresh).all())


def feedback_table(
    size: GameSize, max_matrix_bytes: int = DEFAULT_MATRIX_BYTES, progress: Progress | None = None
) -> FeedbackTable:
    """The shared table for ``size``; with the full matrix when it fits in
    ``max_matrix_bytes``, else, when secrets and guesses both use different
    colours, with the block of feedback between those when it fits (with
    free guesses most guesses scored are outside it: building it would cost
    more than it saves)."""
    key = (size.pegs, size.colors)
    wants_matrix = size.n_codes**2 <= max_matrix_bytes
    members = secret_indices(size) if size.distinct_guesses and not wants_matrix else None
    wants_block = members is not None and members.shape[0] ** 2 <= max_matrix_bytes
    with _tables_lock:
        table = _tables.get(key)
        if table is not None and (table.matrix is not None or not wants_matrix):
            if wants_block and table.matrix is None and table.block is None and members is not None:
                _tables.pop(key)  # weighed again with its block
                table.keep_block(distinct_block(size.pegs, size.colors, members), members)
                if table.nbytes <= _tables.maxsize:
                    _tables[key] = table
            return table
        matrix = None
        if wants_matrix:
            every = np.arange(size.n_codes, dtype=np.int64)
            matrix = kept_on_disk(
                f"feedback-{size.pegs}x{size.colors}",
                size.pegs,
                size.colors,
                every,
                lambda: feedback_matrix(size.pegs, size.colors, progress),
            )
        table = FeedbackTable(size.pegs, size.colors, matrix)
        if wants_block and members is not None:
            table.keep_block(distinct_block(size.pegs, size.colors, members), members)
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
