"""A whole-game tree in one compiled call: the one-step strategies of
:mod:`.strategies` played against every secret of a board of up to
``NATIVE_CODES`` codes, with no Python between the positions.

:func:`.tree.analyse` stays the reference builder (it keeps the tree, reports
progress and reaches every size). This kernel gives the same tree's figures
(how many guesses each secret needs, and the first guess) for the command
line's small boards, and it is compiled ahead of time (:mod:`webapp.native.build`) into a
shared library that ``mastermind analyse`` calls through ctypes without
importing numpy or numba: on such boards starting those takes longer than
the tree. The tests compare both builders on every size and strategy.

The choice at each position follows :func:`.strategies.choose` exactly:
the first candidate when few are left, a candidate that splits the
candidates perfectly, else the first guess of the pool that does, else the
criteria column by column (each keeping the rows within its tolerance of
the best), then a candidate, then the smallest code. The pool is
:func:`.strategies.guess_pool`'s (unplayed colours in canonical order),
kept for each set of colours played, less the guesses that only rename
colours no candidate has (:func:`is_smallest_twin`). Each guess's first
criterion is worked out as it is scored, and a guess already beaten on it
is dropped there: only the few left are compared further.

Replies are counted in one of two ways. Up to 4 pegs and 255 candidates,
each guess's partition is two 64-bit words of eight-bit counters, one
counter a reply (``common * (common + 1) / 2 + black``: at most 15 of
them), added up in registers; otherwise a row of counts by reply slot
(``black * pegs + common``). Criteria read rows indexed by that counter
number or by slot, which list the same classes (a sum over them may round
differently in its last bit; the tolerances of the float criteria absorb
it, and the tests compare whole trees).

Every function takes plain arrays and allocates nothing, so the compiled
library needs neither numpy nor numba's runtime.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import carray, njit

from .codes import Array

# The most codes (repeats allowed) of a board whose trees the kernel builds.
NATIVE_CODES = 10_000
# Strategies by number, as the library is called; the switches of each
# come from its :class:`.strategies.Strategy` (see ``webapp.native.build``).
STRATEGY_IDS = {
    "simple": 0,
    "knuth": 1,
    "minimax-lex": 2,
    "entropy": 3,
    "irving": 4,
    "most-parts": 5,
    "widedev": 6,
    "longrect": 7,
    "minimax-avg": 8,
}
SIMPLE, KNUTH, MINIMAX_LEX, ENTROPY, IRVING, MOST_PARTS, WIDEDEV, LONGRECT, MINIMAX_AVG = range(9)
# Deepest position a tree reaches (a board of 5,040 codes needs under 10
# guesses with any of these strategies; deeper is reported as a failure).
MOST_DEPTH = 24
# Replies are counted in two words of eight-bit counters (see above) up to
# this many candidates, on boards of up to 4 pegs (at most this many replies).
PACKED_MOST = 255
PACKED_PEGS = 4
PACKED_REPLIES = 15
# Guesses scored together, candidate by candidate (the compiler vectorises
# over the block).
BLOCK = 128
# The most colours of a board; guess pools are kept by the colours played,
# a row for each set of colours.
MOST_COLORS = 10
COLOR_SETS = 1 << MOST_COLORS
# The tolerance of the criteria worked out in floats (entropy, expected
# size, spread), as their ``strategies.Criterion``s have it; the others are
# exact integers.
TOLERANCE = 1e-9
FLOAT_FIRST = (ENTROPY, IRVING)  # the strategies whose first criterion is a float
# How a call ends.
DONE, TOO_DEEP = 0, 1


class BoardArrays(NamedTuple):
    """The board's arrays: each code's pegs (four bits each) and colour
    counts (unary bits), its set of colours, the guesses allowed, and
    ``c log2 c`` for every class size ``c``."""

    pos: Array
    mask: Array
    colorset: Array
    allowed: Array
    xlog: Array


class Work(NamedTuple):
    """One thread's arrays for choosing a guess (see :func:`work_lengths`)."""

    counts: Array
    keys: Array
    alive: Array
    cpos: Array
    cmask: Array
    scored: Array
    block: Array
    bpos: Array
    bmask: Array
    blo: Array
    bhi: Array


class Scratch(NamedTuple):
    """One thread's arrays for growing a tree (see :func:`work_lengths`)."""

    is_cand: Array
    tmp: Array
    stack: Array
    slot_count: Array
    played_at: Array
    pool_row: Array
    pool_size: Array
    pools: Array
    kept: Array


U1 = np.uint64(1)
U3 = np.uint64(3)
U7 = np.uint64(7)
U8 = np.uint64(8)
HIGH_BITS = np.uint64(0xFEFE_FEFE_FEFE_FEFE)


# --- bits ---------------------------------------------------------------------------------


@njit(nogil=True, inline="always", error_model="numpy")
def popcount(x: Any) -> Any:
    """Set bits of ``x`` (LLVM turns this into one instruction)."""
    x = x - ((x >> U1) & np.uint64(0x5555_5555_5555_5555))
    x = (x & np.uint64(0x3333_3333_3333_3333)) + ((x >> np.uint64(2)) & np.uint64(0x3333_3333_3333_3333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F_0F0F_0F0F_0F0F)
    return (x * np.uint64(0x0101_0101_0101_0101)) >> np.uint64(56)


@njit(nogil=True, inline="always", error_model="numpy")
def peg_of(packed: Any, k: int, pegs: int) -> int:
    """The colour (from 0) of peg ``k`` (0 is the first) of a code's packed pegs."""
    return int((packed >> np.uint64(4 * (pegs - 1 - k))) & np.uint64(15))


@njit(nogil=True, inline="always", error_model="numpy")
def black_common(gp: Any, gm: Any, cp: Any, cm: Any, pegs: int, ones: Any) -> tuple[Any, Any]:
    """Black pegs and colour matches of two codes given as their packed
    pegs (four bits each) and their colour counts in unary bits."""
    x = gp ^ cp
    y = (x | (x >> U1) | (x >> np.uint64(2)) | (x >> U3)) & ones
    return np.uint64(pegs) - popcount(y), popcount(gm & cm)


# --- the board: its codes and guess pools -------------------------------------------------


@njit(nogil=True, error_model="numpy")
def describe_codes(pegs: int, colors: int, pos: Array, mask: Array, colorset: Array) -> int:
    """For every code: its pegs packed four bits each (the first peg
    highest), its colour counts in unary (bit ``c + colors * j`` for the
    ``j``-th peg of colour ``c``) and its set of colours. Returns how many
    codes there are."""
    n = colors**pegs
    for i in range(n):
        rest = i
        p = np.uint64(0)
        m = np.uint64(0)
        s = 0
        for k in range(pegs):
            d = rest % colors
            rest //= colors
            p |= np.uint64(d) << np.uint64(4 * k)
            j = 0
            while m & (U1 << np.uint64(d + colors * j)):
                j += 1
            m |= U1 << np.uint64(d + colors * j)
            s |= 1 << d
        pos[i] = p
        mask[i] = m
        colorset[i] = s
    return int(n)


@njit(nogil=True, error_model="numpy")
def distinct_codes(n: int, pegs: int, colorset: Array, out: Array) -> int:
    """The codes of different colours, ascending, into ``out``; how many."""
    k = 0
    for i in range(n):
        s = colorset[i]
        c = 0
        while s:
            s &= s - 1
            c += 1
        if c == pegs:
            out[k] = i
            k += 1
    return k


@njit(nogil=True, error_model="numpy")
def set_board(
    pegs: int, colors: int, distinct: int, distinct_guesses: int, bu: Array, bi: Array, bf: Array, secrets: Array
) -> int:
    """Fill the board's buffers and ``secrets`` (ascending); returns how
    many secrets and how many guesses are allowed (in one number,
    ``secrets * 2**32 + guesses``)."""
    n = colors**pegs
    pos, mask, colorset, allowed = bu[:n], bu[n : 2 * n], bi[:n], bi[n : 2 * n]
    describe_codes(pegs, colors, pos, mask, colorset)
    for c in range(n + 1):
        bf[c] = c * math.log2(max(c, 1))
    if distinct:
        n_secrets = distinct_codes(n, pegs, colorset, secrets)
    else:
        n_secrets = n
        for i in range(n):
            secrets[i] = i
    if distinct_guesses:
        n_allowed = distinct_codes(n, pegs, colorset, allowed)
    else:
        n_allowed = n
        for i in range(n):
            allowed[i] = i
    return n_secrets * 2**32 + n_allowed


@njit(nogil=True, error_model="numpy")
def fill_pool(pool: Array, pegs: int, colors: int, played: int, allowed: Array, n_allowed: int, pos: Array) -> int:
    """:func:`.strategies.guess_pool` over the ``allowed`` guesses: those
    whose unplayed colours first appear as the smallest unplayed ones in
    increasing order; before any guess, one code a pattern (colours in
    order of first use, runs of non-increasing length). Returns its size."""
    size = 0
    for a in range(n_allowed):
        i = allowed[a]
        p = pos[i]
        ok = True
        if played == 0:
            prev, run, last_run = -1, 0, pegs + 1
            for k in range(pegs):
                d = peg_of(p, k, pegs)
                if d == prev:
                    run += 1
                elif d == prev + 1:
                    if prev >= 0:
                        if run > last_run:
                            ok = False
                            break
                        last_run = run
                    prev, run = d, 1
                else:
                    ok = False
                    break
            if ok and run > last_run:
                ok = False
        else:
            seen, expected = 0, 0
            while played >> expected & 1:
                expected += 1
            for k in range(pegs):
                d = peg_of(p, k, pegs)
                bit = 1 << d
                if (played & bit) == 0 and (seen & bit) == 0:
                    if d != expected:
                        ok = False
                        break
                    expected += 1
                    while expected < colors and (played >> expected & 1):
                        expected += 1
                seen |= bit
        if ok:
            pool[size] = i
            size += 1
    return size


@njit(nogil=True, error_model="numpy")
def pool_for(
    played: int,
    pegs: int,
    colors: int,
    every: int,
    allowed: Array,
    n_allowed: int,
    pos: Array,
    pools: Array,
    kept: Array,
) -> tuple[int, int]:
    """The row of ``pools`` holding the pool after the colours ``played``
    (-1: every allowed guess) and its size. Each set of colours has a row of
    its own, worked out when first needed (``kept[played]``: its size, -1
    before); rows never needed are never touched."""
    if played == every:
        return -1, n_allowed
    if kept[played] < 0:
        row = pools[played * n_allowed : (played + 1) * n_allowed]
        kept[played] = fill_pool(row, pegs, colors, played, allowed, n_allowed, pos)
    return played, kept[played]


# --- choosing a guess ---------------------------------------------------------------------


@njit(nogil=True, inline="always", error_model="numpy")
def packed_key(strategy: int, lo: Any, hi: Any, n: int, xlog: Array, shift: float) -> float:
    """:func:`first_key` of a row still in two words of eight-bit counters."""
    if strategy == ENTROPY:
        s = 0.0
        for f in range(8):
            s += xlog[(lo >> np.uint64(8 * f)) & np.uint64(255)]
        for f in range(7):
            s += xlog[(hi >> np.uint64(8 * f)) & np.uint64(255)]
        return s / n - shift
    if strategy == IRVING:
        squares = 0
        for f in range(8):
            v = int((lo >> np.uint64(8 * f)) & np.uint64(255))
            squares += v * v
        for f in range(7):
            v = int((hi >> np.uint64(8 * f)) & np.uint64(255))
            squares += v * v
        return squares / n
    if strategy in (MOST_PARTS, WIDEDEV, LONGRECT):
        # a byte's bits folded onto its lowest: one bit for each class not empty
        ones8 = np.uint64(0x0101_0101_0101_0101)
        lo |= lo >> np.uint64(4)
        lo |= lo >> np.uint64(2)
        lo |= lo >> U1
        hi |= hi >> np.uint64(4)
        hi |= hi >> np.uint64(2)
        hi |= hi >> U1
        return -float(popcount(lo & ones8) + popcount(hi & ones8))
    largest = np.uint64(0)
    for f in range(8):
        largest = max(largest, (lo >> np.uint64(8 * f)) & np.uint64(255))
    for f in range(7):
        largest = max(largest, (hi >> np.uint64(8 * f)) & np.uint64(255))
    return float(largest)


@njit(nogil=True, inline="always", error_model="numpy")
def first_key(strategy: int, counts: Array, start: int, width: int, n: int, xlog: Array, shift: float) -> float:
    """The strategy's first criterion for the row of class sizes at
    ``counts[start:start + width]`` (smaller is better; within ``TOLERANCE``
    alike for the strategies of ``FLOAT_FIRST``): worked out as each guess
    is scored, so most rows are dropped at once."""
    if strategy == ENTROPY:  # minus the entropy; ``shift`` is log2(n)
        s = 0.0
        for r in range(width):
            s += xlog[counts[start + r]]
        return s / n - shift
    if strategy == IRVING:  # the expected size of the class left
        squares = 0
        for r in range(width):
            squares += counts[start + r] * counts[start + r]
        return squares / n
    if strategy in (MOST_PARTS, WIDEDEV, LONGRECT):  # the most classes
        parts = 0
        for r in range(width):
            parts += counts[start + r] > 0
        return float(-parts)
    largest = 0  # knuth, minimax-lex, minimax-avg: the largest class
    for r in range(width):
        largest = max(largest, counts[start + r])
    return float(largest)


@njit(nogil=True, error_model="numpy")
def keep_best(keys: Array, npool: int, alive: Array, tol: float) -> None:
    """Drop the rows more than ``tol`` above the least key of those alive."""
    best = np.inf
    for a in range(npool):
        if alive[a] and keys[a] < best:
            best = keys[a]
    for a in range(npool):
        if alive[a] and not keys[a] <= best + tol:
            alive[a] = 0


@njit(nogil=True, error_model="numpy")
def largest_column(counts: Array, npool: int, width: int, alive: Array, keys: Array) -> None:
    """Each row alive's largest class, into ``keys``."""
    for a in range(npool):
        if alive[a]:
            m = 0
            for r in range(width):
                m = max(m, counts[a * width + r])
            keys[a] = m


@njit(nogil=True, error_model="numpy")
def squares_column(counts: Array, npool: int, width: int, alive: Array, keys: Array, n: int, divide: bool) -> None:
    """Each row alive's sum of squared class sizes (over ``n`` when ``divide``), into ``keys``."""
    for a in range(npool):
        if alive[a]:
            s = 0
            for r in range(width):
                v = counts[a * width + r]
                s += v * v
            keys[a] = s / n if divide else s


@njit(nogil=True, error_model="numpy")
def sort_descending(counts: Array, start: int, width: int) -> None:
    """Sort the row's class sizes in place, largest first (zeros last)."""
    for r in range(1, width):
        v = counts[start + r]
        k = r
        while k > 0 and counts[start + k - 1] < v:
            counts[start + k] = counts[start + k - 1]
            k -= 1
        counts[start + k] = v


@njit(nogil=True, error_model="numpy")
def lex_keep_best(counts: Array, rows: int, width: int, alive: Array) -> None:
    """Keep the rows whose class sizes, largest first, are least (exact
    integers, so ties are equal rows). Sorts the rows alive in place."""
    best = -1
    for a in range(rows):
        if not alive[a]:
            continue
        sort_descending(counts, a * width, width)
        if best < 0:
            best = a
            continue
        for r in range(width):
            mine, theirs = counts[a * width + r], counts[best * width + r]
            if mine != theirs:
                if mine < theirs:
                    best = a
                break
    for a in range(rows):
        if alive[a]:
            for r in range(width):
                if counts[a * width + r] != counts[best * width + r]:
                    alive[a] = 0
                    break


@njit(nogil=True, error_model="numpy")
def select(
    strategy: int, counts: Array, rows: int, width: int, n: int, alive: Array, keys: Array, tolerance: float
) -> None:
    """Mark the rows that tie on every criterion, compared in turn as
    ``strategies.best_rows`` does (``keys``: each row's first criterion,
    alike within ``tolerance``)."""
    for a in range(rows):
        alive[a] = 1
    keep_best(keys, rows, alive, tolerance)
    if strategy == MINIMAX_LEX:
        lex_keep_best(counts, rows, width, alive)
    elif strategy == MINIMAX_AVG:
        squares_column(counts, rows, width, alive, keys, n, False)
        keep_best(keys, rows, alive, 0.0)
    elif strategy == WIDEDEV:  # then the least spread of the class sizes
        for a in range(rows):
            if alive[a]:
                parts, sq = 0, 0
                for r in range(width):
                    v = counts[a * width + r]
                    parts += v > 0
                    sq += v * v
                mean = n / parts
                keys[a] = math.sqrt(max(sq / parts - mean**2, 0.0))
        keep_best(keys, rows, alive, TOLERANCE)
    elif strategy == LONGRECT:  # then the smallest largest class
        largest_column(counts, rows, width, alive, keys)
        keep_best(keys, rows, alive, 0.0)


@njit(nogil=True, inline="always", error_model="numpy")
def is_smallest_twin(gp: Any, dead_of_guess: int, dead: int, lowest: int, pegs: int, distinct_guesses: int) -> bool:
    """Whether a guess with dead colours ``dead_of_guess`` (some of
    ``dead``; ``lowest``: the smallest dead colour's bit) is the smallest
    of the guesses that differ from it only there: its dead pegs hold the
    smallest dead colours in increasing order, or with colours repeated,
    all the smallest."""
    if not distinct_guesses:
        return dead_of_guess == lowest
    k = popcount(np.uint64(dead_of_guess))
    wanted, rest = 0, dead
    for _ in range(k):  # the k smallest dead colours
        wanted |= rest & -rest
        rest &= rest - 1
    if dead_of_guess != wanted:
        return False
    previous = -1
    for j in range(pegs):
        d = peg_of(gp, j, pegs)
        if dead >> d & 1:
            if d < previous:
                return False
            previous = d
    return True


@njit(nogil=True, error_model="numpy")
def choose(
    cands: Array,
    n: int,
    pool: Array,
    npool: int,
    pos: Array,
    mask: Array,
    colorset: Array,
    pegs: int,
    ones: Any,
    slots: int,
    replies: int,
    every: int,
    strategy: int,
    flags: Array,
    ws: Work,
    is_cand: Array,
    xlog: Array,
) -> int:
    """The guess for candidates ``cands[:n]`` from ``pool[:npool]``, as
    :func:`.strategies.choose` makes it. ``flags``: prefer candidates,
    first candidate at, perfect split wins, candidates only, the first of
    two first, distinct guesses."""
    prefer, first_at, perfect_wins, only_candidates, distinct_guesses = flags[0], flags[1], flags[2], flags[3], flags[5]
    if strategy == SIMPLE or n <= first_at:
        return int(cands[0])
    if only_candidates:
        pool, npool = cands, n
    counts, keys, alive, scored, cpos, cmask = ws.counts, ws.keys, ws.alive, ws.scored, ws.cpos, ws.cmask
    block, bpos, bmask, blo, bhi = ws.block, ws.bpos, ws.bmask, ws.blo, ws.bhi
    if perfect_wins and prefer and n <= replies:
        row = counts[:slots]
        for a in range(n):
            g = cands[a]
            row[:] = 0
            perfect = True
            for b in range(n):
                c = cands[b]
                black, common = black_common(pos[g], mask[g], pos[c], mask[c], pegs, ones)
                r = black * pegs + common
                row[r] += 1
                if row[r] > 1:
                    perfect = False
                    break
            if perfect:
                return int(g)
    check = perfect_wins and n <= replies
    # Dead colours, in no candidate: guesses that differ only in the colours
    # of their dead pegs split the candidates alike, and the smallest of
    # them wins every tie, so only it is scored (``is_smallest_twin``, as
    # ``strategies.without_dead_variants``). One dead colour makes no twins.
    alive_colors = 0
    for b in range(n):
        alive_colors |= colorset[cands[b]]
    dead = every & ~alive_colors
    twins = not only_candidates and (dead & (dead - 1)) != 0
    lowest = dead & -dead
    packed = n <= PACKED_MOST and pegs <= PACKED_PEGS
    width = PACKED_REPLIES if packed else slots
    if packed:
        for b in range(n):
            cpos[b] = pos[cands[b]]
            cmask[b] = mask[cands[b]]
    shift = math.log2(n)
    tolerance = TOLERANCE if strategy in FLOAT_FIRST else 0.0
    rows = 0
    least = np.inf  # the best first key so far: a row above it by more than the tolerance never wins
    a = 0
    while a < npool:
        # The next block of guesses worth scoring, in the pool's order.
        k = 0
        while a < npool and k < BLOCK:
            g = pool[a]
            a += 1
            dead_of_guess = colorset[g] & dead
            if (
                twins
                and dead_of_guess
                and not is_smallest_twin(pos[g], dead_of_guess, dead, lowest, pegs, distinct_guesses)
            ):
                continue
            block[k] = g
            k += 1
        if packed:  # candidate by candidate, every guess of the block at once
            for j in range(k):
                bpos[j], bmask[j], blo[j], bhi[j] = pos[block[j]], mask[block[j]], 0, 0
            for b in range(n):
                cp, cm = cpos[b], cmask[b]
                for j in range(k):
                    black, common = black_common(bpos[j], bmask[j], cp, cm, pegs, ones)
                    f = ((common * (common + U1)) >> U1) + black
                    bit = U1 << ((f & U7) << U3)
                    low = f < U8
                    blo[j] += bit if low else np.uint64(0)
                    bhi[j] += np.uint64(0) if low else bit
        for j in range(k):
            g = block[j]
            start = rows * width
            if packed:
                lo, hi = blo[j], bhi[j]
                if check and ((lo | hi) & HIGH_BITS) == 0:
                    return int(g)
                key = packed_key(strategy, lo, hi, n, xlog, shift)
                if key > least + tolerance:
                    continue
                for f in range(8):
                    counts[start + f] = (lo >> np.uint64(8 * f)) & np.uint64(255)
                for f in range(7):
                    counts[start + 8 + f] = (hi >> np.uint64(8 * f)) & np.uint64(255)
            else:
                for r in range(slots):
                    counts[start + r] = 0
                for b in range(n):
                    c = cands[b]
                    black, common = black_common(pos[g], mask[g], pos[c], mask[c], pegs, ones)
                    counts[start + black * pegs + common] += 1
                if check:
                    perfect = True
                    for r in range(slots):
                        if counts[start + r] > 1:
                            perfect = False
                            break
                    if perfect:
                        return int(g)
                key = first_key(strategy, counts, start, width, n, xlog, shift)
                if key > least + tolerance:
                    continue
            least = min(least, key)
            scored[rows] = g
            keys[rows] = key
            rows += 1
    select(strategy, counts, rows, width, n, alive, keys, tolerance)
    if prefer:
        for b in range(n):
            is_cand[cands[b]] = 1
        found = -1
        for a in range(rows):
            if alive[a] and is_cand[scored[a]]:
                found = scored[a]
                break
        for b in range(n):
            is_cand[cands[b]] = 0
        if found >= 0:
            return found
    for a in range(rows):
        if alive[a]:
            return int(scored[a])
    return int(scored[0])  # not reached: some row is always best


# --- the tree -----------------------------------------------------------------------------


@njit(nogil=True, error_model="numpy")
def grow(
    order: Array,
    start0: int,
    n0: int,
    depth0: int,
    played0: int,
    stop_depth: int,
    tasks: Array,
    depth_of: Array,
    pegs: int,
    colors: int,
    strategy: int,
    flags: Array,
    board: BoardArrays,
    n_allowed: int,
    ws: Work,
    scratch: Scratch,
) -> int:
    """Play the strategy against the secrets ``order[start0:start0 + n0]``
    from a position at guess ``depth0`` after the colours ``played0``:
    ``depth_of[code]`` becomes the guesses each needs and ``tasks[1]`` the
    first guess. Classes reaching ``stop_depth`` are not grown but listed in
    ``tasks``: their count at ``tasks[0]``, the colours played before them
    at ``tasks[2]``, then (start, size) pairs. ``order``'s segment ends up
    sorted class by class. Returns ``DONE`` or ``TOO_DEEP``."""
    pos, mask, colorset, allowed, xlog = board.pos, board.mask, board.colorset, board.allowed, board.xlog
    is_cand, tmp, stack, slot_count = scratch.is_cand, scratch.tmp, scratch.stack, scratch.slot_count
    played_at, pool_row, pool_size, pools, kept = (
        scratch.played_at,
        scratch.pool_row,
        scratch.pool_size,
        scratch.pools,
        scratch.kept,
    )
    ones = np.uint64(0)
    for k in range(pegs):
        ones |= U1 << np.uint64(4 * k)
    slots = (pegs + 1) ** 2
    replies = (pegs + 1) * (pegs + 2) // 2 - 1
    solved = pegs * pegs + pegs
    every = (1 << colors) - 1
    only_candidates = flags[3]
    cap = stack.shape[0] // 3  # three rows: start, size, guess number
    stack[0], stack[cap], stack[2 * cap] = start0, n0, depth0
    played_at[depth0] = played0
    if not only_candidates:
        pool_row[depth0], pool_size[depth0] = pool_for(
            played0, pegs, colors, every, allowed, n_allowed, pos, pools, kept
        )
    tasks[0] = 0
    tasks[1] = order[start0]  # the first guess, when one or two codes need no choice
    sp = 1
    first = True
    while sp > 0:
        sp -= 1
        start, n, depth = stack[sp], stack[cap + sp], stack[2 * cap + sp]
        cands = order[start : start + n]
        if n == 1:
            depth_of[cands[0]] = depth
            continue
        if n == 2 and flags[4]:  # the first of two is guessed first
            depth_of[cands[0]] = depth
            depth_of[cands[1]] = depth + 1
            continue
        if depth + 1 >= MOST_DEPTH:
            return TOO_DEEP
        row = pool_row[depth]
        pool = allowed if row < 0 else pools[row * n_allowed : (row + 1) * n_allowed]
        g = choose(
            cands,
            n,
            pool,
            pool_size[depth],
            pos,
            mask,
            colorset,
            pegs,
            ones,
            slots,
            replies,
            every,
            strategy,
            flags,
            ws,
            is_cand,
            xlog,
        )
        if first:
            tasks[1] = g
            first = False
        # The candidates by reply: a counting sort through ``tmp``.
        slot_count[:] = 0
        gp, gm = pos[g], mask[g]
        for b in range(n):
            black, common = black_common(gp, gm, pos[cands[b]], mask[cands[b]], pegs, ones)
            r = black * pegs + common
            tmp[b] = r
            slot_count[r + 1] += 1
        for r in range(slots):
            slot_count[r + 1] += slot_count[r]
        for b in range(n):
            r = tmp[b]
            tmp[n + slot_count[r]] = cands[b]
            slot_count[r] += 1
        for b in range(n):
            cands[b] = tmp[n + b]
        nxt = played_at[depth] | colorset[g]
        played_at[depth + 1] = nxt
        listing = depth + 1 == stop_depth
        if listing:
            tasks[2] = nxt
        elif not only_candidates:
            pool_row[depth + 1], pool_size[depth + 1] = pool_for(
                nxt, pegs, colors, every, allowed, n_allowed, pos, pools, kept
            )
        end = 0
        for r in range(slots):
            begin, end = end, slot_count[r]
            if end == begin:
                continue
            if r == solved:
                depth_of[cands[begin]] = depth
            elif listing:
                t = tasks[0]
                tasks[3 + 2 * t], tasks[4 + 2 * t] = start + begin, end - begin
                tasks[0] = t + 1
            else:
                if sp >= cap:
                    return TOO_DEEP
                stack[sp], stack[cap + sp], stack[2 * cap + sp] = start + begin, end - begin, depth + 1
                sp += 1
    return DONE


# --- buffers and the library's entry ------------------------------------------------------


@njit(nogil=True, error_model="numpy")
def sizes(pegs: int, colors: int, distinct: int, distinct_guesses: int) -> tuple[int, int, int]:
    """How many codes, secrets and allowed guesses a board has."""
    n = colors**pegs
    different = 1
    for k in range(pegs):
        different *= colors - k
    return n, different if distinct else n, different if distinct_guesses else n


@njit(nogil=True, error_model="numpy")
def work_lengths(pegs: int, n: int, secrets: int, guesses: int) -> tuple[int, ...]:
    """The length of each of one thread's 32-bit work arrays, in the order
    :func:`carve` takes them from its buffer."""
    slots = (pegs + 1) ** 2
    depths = MOST_DEPTH + 1
    return (
        guesses * max(slots, PACKED_REPLIES),  # counts: the class sizes of each guess kept
        guesses,  # alive: whether each is still in the running
        guesses,  # scored: the guesses kept
        BLOCK,  # block: the guesses being scored together
        n,  # is_cand: which codes are candidates
        2 * secrets,  # tmp: the sorting space
        3 * (secrets + 1),  # stack: the positions waiting (start, size, guess number)
        slots + 1,  # slot_count: the candidates of each reply
        depths,  # played_at: for each guess number, the colours played before it
        depths,  # pool_row: its pool's row of ``pools``
        depths,  # pool_size: and its size
        COLOR_SETS * guesses,  # pools: a row for each set of colours played
        COLOR_SETS,  # kept: the size of each pool worked out, -1 before
    )


@njit(nogil=True, error_model="numpy")
def lengths(pegs: int, colors: int, distinct: int, distinct_guesses: int) -> tuple[int, ...]:
    """How long the board's buffers (unsigned, 32-bit integer, float) and
    one thread's work buffers (32-bit integer, unsigned, float) are."""
    n, secrets, guesses = sizes(pegs, colors, distinct, distinct_guesses)
    work = 0
    for length in work_lengths(pegs, n, secrets, guesses):
        work += length
    return 2 * n, 2 * n, n + 1, work, 2 * PACKED_MOST + 4 * BLOCK, guesses


@njit(nogil=True, inline="always", error_model="numpy")
def piece(buffer: Array, at: int, length: int) -> tuple[Array, int]:
    """The view of ``buffer`` from ``at`` on, ``length`` long, and where the next starts."""
    return buffer[at : at + length], at + length


@njit(nogil=True, error_model="numpy")
def carve(
    pegs: int,
    colors: int,
    distinct: int,
    distinct_guesses: int,
    bu: Array,
    bi: Array,
    bf: Array,
    wi: Array,
    wu: Array,
    wf: Array,
) -> tuple[BoardArrays, Work, Scratch]:
    """The board and one thread's work arrays, as views of the six flat
    buffers of :func:`lengths`."""
    n, secrets, guesses = sizes(pegs, colors, distinct, distinct_guesses)
    board = BoardArrays(bu[:n], bu[n : 2 * n], bi[:n], bi[n : 2 * n], bf)
    sized = work_lengths(pegs, n, secrets, guesses)
    counts, at = piece(wi, 0, sized[0])
    alive, at = piece(wi, at, sized[1])
    scored, at = piece(wi, at, sized[2])
    block, at = piece(wi, at, sized[3])
    is_cand, at = piece(wi, at, sized[4])
    tmp, at = piece(wi, at, sized[5])
    stack, at = piece(wi, at, sized[6])
    slot_count, at = piece(wi, at, sized[7])
    played_at, at = piece(wi, at, sized[8])
    pool_row, at = piece(wi, at, sized[9])
    pool_size, at = piece(wi, at, sized[10])
    pools, at = piece(wi, at, sized[11])
    kept, at = piece(wi, at, sized[12])
    # ``wu``: the candidates' pegs and colours, then the block's, and its two words of counters.
    cpos, at = piece(wu, 0, PACKED_MOST)
    cmask, at = piece(wu, at, PACKED_MOST)
    bpos, at = piece(wu, at, BLOCK)
    bmask, at = piece(wu, at, BLOCK)
    blo, at = piece(wu, at, BLOCK)
    bhi, at = piece(wu, at, BLOCK)
    work = Work(counts, wf, alive, cpos, cmask, scored, block, bpos, bmask, blo, bhi)
    scratch = Scratch(is_cand, tmp, stack, slot_count, played_at, pool_row, pool_size, pools, kept)
    return board, work, scratch


def entry(
    mode: int,
    pegs: int,
    colors: int,
    distinct: int,
    distinct_guesses: int,
    strategy: int,
    fresh: int,
    flags_p: Any,
    bu_p: Any,
    bi_p: Any,
    bf_p: Any,
    wi_p: Any,
    wu_p: Any,
    wf_p: Any,
    order_p: Any,
    start: int,
    n: int,
    depth: int,
    played: int,
    stop_depth: int,
    tasks_p: Any,
    depth_of_p: Any,
    n_allowed: int,
) -> int:
    """The library's one function (arguments: ``webapp.native.build.ARGUMENTS``), over raw
    buffers. ``mode`` 0 writes the six buffer lengths of :func:`lengths` to
    ``tasks``; 1 fills the board and the secrets into ``order``, returning
    :func:`set_board`'s counts; 2 grows (``fresh``: the work buffers are
    new) and returns :func:`grow`'s status."""
    lu, li, lf, lwi, lwu, lwf = lengths(pegs, colors, distinct, distinct_guesses)
    codes = colors**pegs
    tasks = carray(tasks_p, (3 + 2 * codes,))
    if mode == 0:
        tasks[0], tasks[1], tasks[2], tasks[3], tasks[4], tasks[5] = lu, li, lf, lwi, lwu, lwf
        return DONE
    bu, bi, bf = carray(bu_p, (lu,)), carray(bi_p, (li,)), carray(bf_p, (lf,))
    order = carray(order_p, (codes,))
    if mode == 1:
        return set_board(pegs, colors, distinct, distinct_guesses, bu, bi, bf, order)
    wi, wu, wf = carray(wi_p, (lwi,)), carray(wu_p, (lwu,)), carray(wf_p, (lwf,))
    board, ws, scratch = carve(pegs, colors, distinct, distinct_guesses, bu, bi, bf, wi, wu, wf)
    if fresh:
        scratch.kept[:] = -1
    flags = carray(flags_p, (6,))
    depth_of = carray(depth_of_p, (codes,))
    return grow(
        order,
        start,
        n,
        depth,
        played,
        stop_depth,
        tasks,
        depth_of,
        pegs,
        colors,
        strategy,
        flags,
        board,
        n_allowed,
        ws,
        scratch,
    )
