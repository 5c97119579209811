"""Compiled inner loops (numba). Everything here works on plain integer arrays.

Feedback is encoded as ``black * (pegs + 1) + white``, which equals
``black * pegs + common`` where ``common`` counts the colour matches.
Compiled functions are cached on disk next to this file, so only the first
run after installation pays for compilation.
"""

import threading
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import config, njit, prange

Array = npt.NDArray[Any]
# A numba typed dictionary (int64 to int64), and the small tables of ``tables.small_tables``.
Table = Any
SmallTables = tuple[Array, ...]

# Work below this many (guess, code) pairs runs on one thread: starting the
# thread pool costs more than it saves.
PARALLEL_THRESHOLD = 200_000
# The threads numba may use (NUMBA_NUM_THREADS, every core by default). With
# one, the parallel kernels are never called: they would load a threading
# layer and compile-cache entries of their own for nothing (0.1-0.4 s of a
# one-thread 5 x 8 tree).
THREADS: int = config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]


def parallel(pairs: int) -> bool:
    """Whether work of ``pairs`` (guess, code) pairs goes to the parallel kernels."""
    return THREADS > 1 and pairs >= PARALLEL_THRESHOLD


# Parallel kernels already use every core, and numba's fallback thread pool
# (workqueue, used where OpenMP is missing) must not be entered by two threads
# at once: threads of a web server take turns here.
PARALLEL_LOCK = threading.Lock()


@njit(cache=True, nogil=True)
def _feedback_into(row: Array, g_digits: Array, g_counts: Array, digits_t: Array, counts_t: Array, pegs: int) -> None:
    """Fill ``row`` with the feedback of one guess against every code given
    column-wise (``digits_t`` is ``(pegs, n)``, ``counts_t`` is ``(colors, n)``),
    encoded as ``black * pegs + common``, in place: no temporary arrays."""
    n = row.shape[0]
    row[:] = 0
    for i in range(pegs):
        col = digits_t[i]
        gi = g_digits[i]
        for s in range(n):
            row[s] += col[s] == gi
    for s in range(n):
        row[s] *= pegs
    for k in range(counts_t.shape[0]):
        gk = g_counts[k]
        if gk == 0:
            continue
        col = counts_t[k]
        for s in range(n):
            c = col[s]
            row[s] += c if c < gk else gk


@njit(cache=True, parallel=True)
def feedback_block_into(
    out: Array, g_digits: Array, g_counts: Array, digits_t: Array, counts_t: Array, pegs: int
) -> None:
    """Write the feedback of each guess (rows of ``out``) against each code
    (columns) in place; both threads fill (and first touch) the memory."""
    for i in prange(g_digits.shape[0]):
        _feedback_into(out[i], g_digits[i], g_counts[i], digits_t, counts_t, pegs)


def feedback_block(g_digits: Array, g_counts: Array, digits_t: Array, counts_t: Array, pegs: int) -> Array:
    """Feedback of each guess (rows) against each code (columns)."""
    out = np.empty((g_digits.shape[0], digits_t.shape[1]), np.uint8)
    with PARALLEL_LOCK:
        feedback_block_into(out, g_digits, g_counts, digits_t, counts_t, pegs)
    return out


# The matrix is symmetric, so the replies of many guesses to one code are one
# contiguous row: the kernels below walk rows of the codes, in blocks of
# guesses, reading memory in order instead of gathering scattered bytes.
BLOCK = 512


@njit(cache=True, nogil=True)
def _count_block(matrix: Array, guesses: Array, codes: Array, out: Array, start: int, stop: int) -> None:
    for c in codes:
        row = matrix[c]
        for j in range(start, stop):
            out[j, row[guesses[j]]] += 1


@njit(cache=True, nogil=True)
def counts_from_matrix_serial(matrix: Array, guesses: Array, codes: Array, slots: int) -> Array:
    out = np.zeros((guesses.shape[0], slots), np.int32)
    _count_block(matrix, guesses, codes, out, 0, guesses.shape[0])
    return out


@njit(cache=True, parallel=True)
def counts_from_matrix_parallel(matrix: Array, guesses: Array, codes: Array, slots: int) -> Array:
    n = guesses.shape[0]
    out = np.zeros((n, slots), np.int32)
    blocks = (n + BLOCK - 1) // BLOCK
    for b in prange(blocks):
        _count_block(matrix, guesses, codes, out, b * BLOCK, min(n, (b + 1) * BLOCK))
    return out


def counts_from_matrix(matrix: Array, guesses: Array, codes: Array, slots: int) -> Array:
    """Class sizes of the partition each guess makes of ``codes``: ``(len(guesses), slots)``."""
    if parallel(guesses.shape[0] * codes.shape[0]):
        with PARALLEL_LOCK:
            return counts_from_matrix_parallel(matrix, guesses, codes, slots)
    return counts_from_matrix_serial(matrix, guesses, codes, slots)


@njit(cache=True, nogil=True)
def _counts_direct_block(
    out: Array,
    digits: Array,
    counts: Array,
    guesses: Array,
    digits_t: Array,
    counts_t: Array,
    pegs: int,
    start: int,
    stop: int,
) -> None:
    """Class sizes for guesses ``start:stop`` (indices into ``digits`` and
    ``counts``), computing each guess's replies into one scratch row."""
    n = digits_t.shape[1]
    slots = out.shape[1]
    row = np.empty(n, np.uint8)
    # Four histograms filled in turn: consecutive codes often get the same
    # reply, and one histogram would make each increment wait for the last.
    hist = np.zeros((4, slots), np.int32)
    quads = n - n % 4
    for i in range(start, stop):
        g = guesses[i]
        _feedback_into(row, digits[g], counts[g], digits_t, counts_t, pegs)
        hist[:] = 0
        for s in range(0, quads, 4):
            hist[0, row[s]] += 1
            hist[1, row[s + 1]] += 1
            hist[2, row[s + 2]] += 1
            hist[3, row[s + 3]] += 1
        for s in range(quads, n):
            hist[0, row[s]] += 1
        out_row = out[i]
        for k in range(slots):
            out_row[k] = hist[0, k] + hist[1, k] + hist[2, k] + hist[3, k]


@njit(cache=True, parallel=True)
def counts_direct_parallel(
    digits: Array, counts: Array, guesses: Array, digits_t: Array, counts_t: Array, pegs: int, slots: int
) -> Array:
    n = guesses.shape[0]
    out = np.zeros((n, slots), np.int32)
    blocks = (n + BLOCK - 1) // BLOCK
    for b in prange(blocks):
        _counts_direct_block(out, digits, counts, guesses, digits_t, counts_t, pegs, b * BLOCK, min(n, (b + 1) * BLOCK))
    return out


@njit(cache=True, nogil=True)
def counts_direct_serial(
    digits: Array, counts: Array, guesses: Array, digits_t: Array, counts_t: Array, pegs: int, slots: int
) -> Array:
    out = np.zeros((guesses.shape[0], slots), np.int32)
    _counts_direct_block(out, digits, counts, guesses, digits_t, counts_t, pegs, 0, guesses.shape[0])
    return out


def counts_direct(
    digits: Array, counts: Array, guesses: Array, digits_t: Array, counts_t: Array, pegs: int, slots: int
) -> Array:
    """Like :func:`counts_from_matrix`, computing feedback on the fly:
    ``guesses`` index ``digits`` and ``counts`` (every code's pegs and colour
    counts); the codes come column-wise in ``digits_t`` and ``counts_t``."""
    if parallel(guesses.shape[0] * digits_t.shape[1]):
        with PARALLEL_LOCK:
            return counts_direct_parallel(digits, counts, guesses, digits_t, counts_t, pegs, slots)
    return counts_direct_serial(digits, counts, guesses, digits_t, counts_t, pegs, slots)


# A few codes at a time: each reply from three small tables (black pegs of the
# first and of the last pegs, colours in common between two colour multisets),
# instead of vector passes that cost more to start than they do.


@njit(cache=True, nogil=True)
def _counts_few_block(
    out: Array, guesses: Array, ca: Array, cb: Array, cm: Array, small: SmallTables, pegs: int, start: int, stop: int
) -> None:
    a_index, b_index, m_index, black_a, black_b, common = small
    n = ca.shape[0]
    for i in range(start, stop):
        g = guesses[i]
        ra, rb, rm = black_a[a_index[g]], black_b[b_index[g]], common[m_index[g]]
        out_row = out[i]
        for j in range(n):
            out_row[(ra[ca[j]] + rb[cb[j]]) * pegs + rm[cm[j]]] += 1


@njit(cache=True, nogil=True)
def counts_few_serial(
    guesses: Array, ca: Array, cb: Array, cm: Array, small: SmallTables, pegs: int, slots: int
) -> Array:
    out = np.zeros((guesses.shape[0], slots), np.int32)
    _counts_few_block(out, guesses, ca, cb, cm, small, pegs, 0, guesses.shape[0])
    return out


@njit(cache=True, parallel=True)
def counts_few_parallel(
    guesses: Array, ca: Array, cb: Array, cm: Array, small: SmallTables, pegs: int, slots: int
) -> Array:
    n = guesses.shape[0]
    out = np.zeros((n, slots), np.int32)
    blocks = (n + BLOCK - 1) // BLOCK
    for b in prange(blocks):
        _counts_few_block(out, guesses, ca, cb, cm, small, pegs, b * BLOCK, min(n, (b + 1) * BLOCK))
    return out


def counts_few(guesses: Array, codes: Array, small: SmallTables, pegs: int, slots: int) -> Array:
    """Like :func:`counts_direct` for a few ``codes``, with the tables of
    ``tables.small_tables``."""
    ca, cb, cm = small[0][codes], small[1][codes], small[2][codes]
    if parallel(guesses.shape[0] * codes.shape[0]):
        with PARALLEL_LOCK:
            return counts_few_parallel(guesses, ca, cb, cm, small, pegs, slots)
    return counts_few_serial(guesses, ca, cb, cm, small, pegs, slots)


@njit(cache=True, nogil=True)
def first_perfect_split_few(guesses: Array, codes: Array, small: SmallTables, pegs: int) -> int:
    """:func:`first_perfect_split` without the matrix, for a few codes (at most
    one per reply), with the small tables; the search stops at the first
    guess that splits them all."""
    a_index, b_index, m_index, black_a, black_b, common = small
    ca, cb, cm = a_index[codes], b_index[codes], m_index[codes]
    for i in range(guesses.shape[0]):
        g = guesses[i]
        ra, rb, rm = black_a[a_index[g]], black_b[b_index[g]], common[m_index[g]]
        seen = np.uint64(0)
        ok = True
        for j in range(codes.shape[0]):
            bit = np.uint64(1) << np.uint64((ra[ca[j]] + rb[cb[j]]) * pegs + rm[cm[j]])
            if seen & bit:
                ok = False
                break
            seen |= bit
        if ok:
            return i
    return -1


@njit(cache=True, nogil=True)
def _perfect_or_counts_block(
    out: Array, guesses: Array, ca: Array, cb: Array, cm: Array, small: SmallTables, pegs: int, start: int, stop: int
) -> int:
    """Class sizes of ``guesses[start:stop]`` into ``out``, stopping at the
    first guess that gives every code its own reply: its position, or -1.
    (Apart from :func:`_counts_few_block` on purpose: a flag tested at every
    pair there would slow the plain count.)"""
    a_index, b_index, m_index, black_a, black_b, common = small
    n = ca.shape[0]
    for i in range(start, stop):
        g = guesses[i]
        ra, rb, rm = black_a[a_index[g]], black_b[b_index[g]], common[m_index[g]]
        out_row = out[i]
        perfect = True
        for j in range(n):
            r = (ra[ca[j]] + rb[cb[j]]) * pegs + rm[cm[j]]
            out_row[r] += 1
            if out_row[r] > 1:
                perfect = False
        if perfect:
            return i
    return -1


@njit(cache=True, nogil=True)
def perfect_or_counts_serial(
    guesses: Array, ca: Array, cb: Array, cm: Array, small: SmallTables, pegs: int, slots: int
) -> tuple[int, Array]:
    out = np.zeros((guesses.shape[0], slots), np.int32)
    return _perfect_or_counts_block(out, guesses, ca, cb, cm, small, pegs, 0, guesses.shape[0]), out


@njit(cache=True, parallel=True)
def perfect_or_counts_parallel(
    guesses: Array, ca: Array, cb: Array, cm: Array, small: SmallTables, pegs: int, slots: int
) -> tuple[int, Array]:
    n = guesses.shape[0]
    out = np.zeros((n, slots), np.int32)
    blocks = (n + BLOCK - 1) // BLOCK
    firsts = np.full(blocks, -1, np.int64)
    for b in prange(blocks):
        firsts[b] = _perfect_or_counts_block(out, guesses, ca, cb, cm, small, pegs, b * BLOCK, min(n, (b + 1) * BLOCK))
    for b in range(blocks):
        if firsts[b] >= 0:
            return firsts[b], out
    return -1, out


# Guesses tried one at a time, for an early perfect split, before the rest
# are counted on every thread.
FEW_HEAD = 256


def perfect_or_counts_few(guesses: Array, codes: Array, small: SmallTables, pegs: int, slots: int) -> tuple[int, Any]:
    """For a few ``codes`` (at most one per reply): the position of the first
    guess that gives each its own reply, else -1 with every guess's class
    sizes (as :func:`counts_few`), in one pass over the guesses."""
    ca, cb, cm = small[0][codes], small[1][codes], small[2][codes]
    n = guesses.shape[0]
    if not parallel(n * codes.shape[0]) or n <= FEW_HEAD:
        first, counts = perfect_or_counts_serial(guesses, ca, cb, cm, small, pegs, slots)
        return (first, None) if first >= 0 else (-1, counts)
    first, head = perfect_or_counts_serial(guesses[:FEW_HEAD], ca, cb, cm, small, pegs, slots)
    if first >= 0:
        return first, None
    with PARALLEL_LOCK:
        first, rest = perfect_or_counts_parallel(guesses[FEW_HEAD:], ca, cb, cm, small, pegs, slots)
    if first >= 0:
        return FEW_HEAD + first, None
    return -1, np.concatenate((head, rest))


@njit(cache=True, nogil=True)
def replies_few(guess: int, codes: Array, small: SmallTables, pegs: int) -> Array:
    """The replies to ``guess`` from a few ``codes``, with the small tables."""
    a_index, b_index, m_index, black_a, black_b, common = small
    ra, rb, rm = black_a[a_index[guess]], black_b[b_index[guess]], common[m_index[guess]]
    out = np.empty(codes.shape[0], np.uint8)
    for j in range(codes.shape[0]):
        c = codes[j]
        out[j] = (ra[a_index[c]] + rb[b_index[c]]) * pegs + rm[m_index[c]]
    return out


@njit(cache=True, nogil=True)
def split_by_reply(replies: Array, codes: Array, slots: int) -> tuple[Array, Array, Array]:
    """``codes`` grouped by reply (a counting sort: each group stays in
    ascending order): the grouped codes, the replies that occur (ascending)
    and where each group starts, with one more entry for the end."""
    counts = np.zeros(slots, np.int64)
    for r in replies:
        counts[r] += 1
    present = 0
    for r in range(slots):
        if counts[r]:
            present += 1
    values = np.empty(present, np.int64)
    starts = np.empty(present + 1, np.int64)
    fill = np.empty(slots, np.int64)
    k = 0
    at = 0
    for r in range(slots):
        if counts[r]:
            values[k] = r
            starts[k] = at
            fill[r] = at
            at += counts[r]
            k += 1
    starts[present] = at
    grouped = np.empty(codes.shape[0], codes.dtype)
    for j in range(codes.shape[0]):
        r = replies[j]
        grouped[fill[r]] = codes[j]
        fill[r] += 1
    return grouped, values, starts


@njit(cache=True, nogil=True)
def row_max(counts: Array) -> Array:
    """``counts.max(axis=1)`` for class sizes (int32), in one pass."""
    out = np.empty(counts.shape[0], np.int32)
    for i in range(counts.shape[0]):
        best = counts[i, 0]
        for j in range(1, counts.shape[1]):
            if counts[i, j] > best:
                best = counts[i, j]
        out[i] = best
    return out


@njit(cache=True, nogil=True)
def first_perfect_split(matrix: Array, guesses: Array, codes: Array, slots: int) -> int:
    """Position of the first guess that gives every code a different reply,
    or -1. Guesses are tried in blocks; a guess drops out at its first
    repeated reply (replies seen are bits of one 64-bit word, slots <= 49)."""
    n = guesses.shape[0]
    seen = np.zeros(BLOCK, np.uint64)
    alive = np.zeros(BLOCK, np.bool_)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        width = stop - start
        seen[:width] = 0
        alive[:width] = True
        left = width
        for c in codes:
            row = matrix[c]
            for j in range(width):
                if alive[j]:
                    bit = np.uint64(1) << np.uint64(row[guesses[start + j]])
                    if seen[j] & bit:
                        alive[j] = False
                        left -= 1
                    else:
                        seen[j] |= bit
            if left == 0:
                break
        for j in range(width):
            if alive[j]:
                return start + j
    return -1


@njit(cache=True, nogil=True)
def without_dead_variants(digits: Array, pool: Array, cands: Array, colors: int) -> Array:
    """The guesses of ``pool`` (ascending) that no smaller guess of the pool
    copies by "dead" colours, ones no candidate contains: such colours never
    match, so a guess with every dead peg turned to the smallest dead colour
    gets the same replies from every candidate (and neither is a candidate).
    Every guess the tie-breaks could choose is kept."""
    pegs = digits.shape[1]
    alive = np.zeros(colors, np.bool_)
    for c in cands:
        for k in range(pegs):
            alive[digits[c, k]] = True
    lowest = -1
    dead = 0
    for color in range(colors):
        if not alive[color]:
            dead += 1
            if lowest < 0:
                lowest = color
    if dead < 2:  # one dead colour makes no twins
        return pool
    in_pool = np.zeros(digits.shape[0], np.bool_)
    for g in pool:
        in_pool[g] = True
    keep = np.empty(pool.shape[0], np.bool_)
    for i in range(pool.shape[0]):
        g = pool[i]
        twin = 0
        changed = False
        for k in range(pegs):
            color = digits[g, k]
            if not alive[color] and color != lowest:
                color = lowest
                changed = True
            twin = twin * colors + color
        keep[i] = not (changed and in_pool[twin])
    return pool[keep]


@njit(cache=True, nogil=True)
def table_sums(counts: Array, table: Table) -> Array:
    """``table[counts].sum(axis=1)`` without the temporary: for each row of
    class sizes, the sum of ``table`` at each size (entropy's ``c log2 c``)."""
    out = np.empty(counts.shape[0], np.float64)
    for i in range(counts.shape[0]):
        total = 0.0
        for j in range(counts.shape[1]):
            total += table[counts[i, j]]
        out[i] = total
    return out
