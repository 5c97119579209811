"""The exact optimal search's compiled kernels (numba): the branch and bound
itself and its helpers. Kept apart from ``optimal.py`` so that reading a
shipped tree never loads numba; ``OptimalSolver`` imports this module when it
first searches."""

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

Array = npt.NDArray[Any]
# The transposition table (see ``new_table``), and the small tables of ``tables.small_tables``.
Table = npt.NDArray[np.int64]
SmallTables = tuple[Array, ...]

INF = 1 << 40  # no total; optimal.py compares results with its own INF, the same value

# The transposition table is a plain array of rows (key, entry), open
# addressing with linear probing: a key's row is one of PROBES rows from its
# home row (key modulo the row count). Key 0 marks an empty row
# (position_key never returns 0). When all PROBES rows hold other
# positions, the home row is overwritten: the table forgets, it never fills,
# and the search stays exact (a forgotten position is searched again).
# The entry packs three fields of FIELD bits: the exact total plus one (0:
# not known), the lower bound (at most FIELD_MAX: a larger one is kept as
# FIELD_MAX, still a lower bound) and the guess plus one (0: none). Two
# words a row instead of four: twice the positions in the same memory.
KEY, ENTRY = 0, 1
PROBES = 8
FIELD = 21
FIELD_MAX = (1 << FIELD) - 1


@njit(cache=True, nogil=True)
def _exact(entry: Any) -> int:
    """The exact total an entry holds, or -1."""
    return int(entry & FIELD_MAX) - 1


@njit(cache=True, nogil=True)
def _lower(entry: Any) -> int:
    return int((entry >> FIELD) & FIELD_MAX)


@njit(cache=True, nogil=True)
def _guess(entry: Any) -> int:
    return int((entry >> (2 * FIELD)) & FIELD_MAX) - 1


@njit(cache=True, nogil=True)
def _entry(exact: int, lower: int, guess: int) -> np.int64:
    return np.int64((exact + 1) | (min(lower, FIELD_MAX) << FIELD) | ((guess + 1) << (2 * FIELD)))


@njit(cache=True, nogil=True)
def _bits(x: np.uint64) -> int:
    """How many bits of ``x`` are set."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True)
def _read_replies(F: Array, cands: Array, guesses: Array, words: Array, start: int, stop: int) -> None:
    """For each of ``guesses[start:stop]``, the replies it gets from
    ``cands`` (at most one word's worth of replies) as the bits of its word
    in ``words``. Read candidate by candidate: the matrix is symmetric, so
    each candidate's row is read along the (ascending) guesses, which stays
    in the cache."""
    for c in cands:
        row = F[c]
        for i in range(start, stop):
            words[i] |= np.uint64(1) << np.uint64(row[guesses[i]])


@njit(cache=True, nogil=True)
def _pairs_total(row: Array, cands: Array, counts: Array, slots: int, solved: int) -> int:
    """The exact total of guessing ``row``'s code when it splits ``cands``
    into classes of one or two codes (1 and 3 guesses each, plus one for this
    guess per code); -1 when some class is larger."""
    counts[:] = 0
    n = cands.shape[0]
    total = n
    for c in cands:
        r = row[c]
        counts[r] += 1
        k = counts[r]
        if k > 2:
            return -1
        if r != solved:
            total += 1 if k == 1 else 2  # a pair costs 3 in all
    return int(total)


@njit(cache=True, nogil=True)
def pool_without_dead_variants(
    pool: Array, cands: Array, colmask: Array, played: int, all_colors: int, digits: Array, distinct: bool
) -> Array:
    """Drop guesses that only repeat another's partition because they use
    "dead" colours, ones no candidate contains (they never match anything).

    With a dead colour that was played (so fixed by the colour symmetry),
    keep only guesses whose dead colours are that one; otherwise keep guesses
    with at most one distinct dead colour. Either way every dropped guess has a
    kept one with the same partition and so the same total.

    When guesses must use different colours (``distinct``), a guess keeps its
    dead pegs but their colours are interchangeable: keep the guess whose dead
    pegs, left to right, hold the smallest dead colours in increasing order.
    That guess is in the pool too (unplayed colours are all dead or all alive,
    and ascending order is the order the pool writes new colours in)."""
    alive = 0
    for c in cands:
        alive |= colmask[c]
    dead = all_colors & ~alive
    if dead == 0:
        return pool
    keep = np.empty(pool.shape[0], np.bool_)
    if distinct:
        if dead & (dead - 1) == 0:
            return pool
        pegs = digits.shape[1]
        for i in range(pool.shape[0]):
            g = pool[i]
            rest = dead
            ok = True
            for k in range(pegs):
                c = digits[g, k]
                if (dead >> c) & 1:
                    if rest & -rest != 1 << c:  # not the smallest dead colour not yet used
                        ok = False
                        break
                    rest &= rest - 1
            keep[i] = ok
        return pool[keep]
    played_dead = dead & played
    if played_dead:
        banned = dead & ~(played_dead & -played_dead)
        if banned == 0:
            return pool
        for i in range(pool.shape[0]):
            keep[i] = (colmask[pool[i]] & banned) == 0
    else:
        if dead & (dead - 1) == 0:
            return pool
        for i in range(pool.shape[0]):
            used = colmask[pool[i]] & dead
            keep[i] = (used & (used - 1)) == 0
    return pool[keep]


@njit(cache=True, nogil=True)
def _order_by_bound(bounds: Array, top: int) -> Array:
    """The indices of ``bounds`` in increasing order, ties in index order (as
    a stable sort gives them), for bounds of at most ``top`` or INF: a
    counting sort, which small positions need far more often than a sort of
    a thousand guesses is worth."""
    counts = np.zeros(top + 2, np.int64)
    for b in bounds:
        counts[min(b, top + 1)] += 1
    start = 0
    for v in range(top + 2):
        k = counts[v]
        counts[v] = start
        start += k
    order = np.empty(bounds.shape[0], np.int64)
    for i in range(bounds.shape[0]):
        v = min(bounds[i], top + 1)
        order[counts[v]] = i
        counts[v] += 1
    return order


@njit(cache=True, nogil=True)
def position_key(cands: Array, zobrist: Array, depth_left: int) -> np.int64:
    h = np.uint64(depth_left) * np.uint64(0x9E3779B97F4A7C15)
    for c in cands:
        h ^= zobrist[c]
    if h == 0:  # 0 marks an empty row of the table
        h = np.uint64(1)
    return np.int64(h)


@njit(cache=True, nogil=True)
def find_row(table: Table, key: Any) -> int:
    """The row holding ``key``, or -1."""
    mask = table.shape[0] - 1
    i = key & mask
    for _ in range(PROBES):
        held = table[i, KEY]
        if held == key:
            return int(i)
        if held == 0:
            return -1
        i = (i + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def claim_row(table: Table, key: Any) -> int:
    """The row for ``key``: its own, an empty one, or its home row emptied for it."""
    mask = table.shape[0] - 1
    home = key & mask
    i = home
    for _ in range(PROBES):
        held = table[i, KEY]
        if held == key:
            return int(i)
        if held == 0:
            break
        i = (i + 1) & mask
    else:
        i = home
    table[i, KEY] = key
    table[i, ENTRY] = 0
    return int(i)


# Guesses bounded together by bounds_by_classes.
BOUND_BLOCK = 256
# Replies of the guesses of a small position are read this many guesses
# first, then twice as many, and so on, until one splits every candidate.
FIRST_BLOCK = 64


@njit(cache=True, nogil=True)
def bounds_by_classes(
    F: Array, cands: Array, pool: Array, bounds: Array, counts: Array, lbtab: Array, limit: int, slots: int, solved: int
) -> None:
    """Each guess's lower bound: n, plus the bound of each class it leaves;
    none for a guess that learns nothing or leaves a class too large for the
    guesses left. The class sizes of every guess are counted candidate by
    candidate: the matrix is symmetric, so each candidate's row is read
    along the (ascending) pool, which stays in the cache."""
    n = cands.shape[0]
    m = pool.shape[0]
    # A block of guesses at a time, so that their class sizes stay in the cache.
    sizes = np.zeros((BOUND_BLOCK, slots), np.int32)
    words = np.zeros(BOUND_BLOCK, np.uint64)  # the replies met, as bits: only their sizes are read
    solved_bit = np.uint64(1) << np.uint64(solved)
    for start in range(0, m, BOUND_BLOCK):
        width = min(BOUND_BLOCK, m - start)
        for c in cands:
            row = F[c]
            for j in range(width):
                r = row[pool[start + j]]
                sizes[j, r] += 1
                words[j] |= np.uint64(1) << np.uint64(r)
        for j in range(width):
            total = n
            word = words[j]
            while word:
                low = word & (~word + np.uint64(1))
                word ^= low
                r = _bits(low - np.uint64(1))
                k = sizes[j, r]
                sizes[j, r] = 0  # cleared for the next block
                if low == solved_bit or total == INF:
                    continue
                if k == n or k > limit:  # no information, or too many for the guesses left
                    total = INF
                else:
                    total += lbtab[k]
            words[j] = 0
            bounds[start + j] = total


@njit(cache=True, nogil=True)
def child_group(group: Array, digits: Array, g: int, played: int) -> Array:
    """The symmetries that also fix guess ``g``: of the parent's, those whose
    position permutation ``π`` has a colour map ``σ`` with ``σ(g∘π) = g``.

    ``group`` holds one symmetry per row: ``π`` (``pegs`` columns, where
    ``(h∘π)[k] = h[π[k]]``), then ``σ`` over every colour, defined (>= 0) on
    the colours played so far and -1 on the others, which are interchangeable
    anyway. A colour new in ``g`` may only map to a colour new in ``g``.
    The identity fixes every guess, so row 0 stays the identity."""
    pegs = digits.shape[1]
    colors = group.shape[1] - pegs
    out = group.copy()
    keep = np.zeros(group.shape[0], np.bool_)
    for e in range(group.shape[0]):
        ok = True
        for k in range(pegs):
            x = digits[g, out[e, k]]
            y = digits[g, k]
            mapped = out[e, pegs + x]
            if mapped >= 0:
                ok = mapped == y
            elif (played >> y) & 1:
                ok = False
            else:
                for z in range(colors):
                    if out[e, pegs + z] == y:
                        ok = False
                if ok:
                    out[e, pegs + x] = y
            if not ok:
                break
        keep[e] = ok
    return out[keep]


@njit(cache=True, nogil=True)
def orbit_minima(pool: Array, group: Array, digits: Array, played: int, colors: int, n_codes: int) -> Array:
    """The guesses of ``pool`` that no smaller guess of the pool copies by a
    symmetry of the position: one that fixes every guess played so far maps
    the candidates onto themselves, so a guess and its image split them into
    classes of the same sizes, solved in the same number of guesses. The image
    is written with the unplayed colours renamed in order of first use, as the
    pool writes every guess. Row 0 of ``group`` is the identity (as the
    group of every position starts), which copies nothing; an image is
    given up at its first digit larger than the guess's."""
    pegs = digits.shape[1]
    member = np.zeros(n_codes, np.bool_)
    for h in pool:
        member[h] = True
    keep = np.ones(pool.shape[0], np.bool_)
    rename = np.empty(colors, np.int64)
    for i in range(pool.shape[0]):
        h = pool[i]
        for e in range(1, group.shape[0]):  # row 0 is the identity
            rename[:] = -1
            fresh = 0
            index = 0
            smaller = False
            for k in range(pegs):
                x = digits[h, group[e, k]]
                y = group[e, pegs + x]
                if y < 0:
                    if rename[x] < 0:
                        while (played >> fresh) & 1:
                            fresh += 1
                        rename[x] = fresh
                        fresh += 1
                    y = rename[x]
                if not smaller:
                    if y > digits[h, k]:  # the image is the larger code
                        break
                    smaller = y < digits[h, k]
                index = index * colors + y
            if smaller and member[index]:
                keep[i] = False
                break
    return pool[keep]


@njit(cache=True, nogil=True)
def solve(
    F: Array,
    cands: Array,
    played: int,
    depth_left: int,
    bound: int,
    pools: Array,
    pool_lens: Array,
    colmask: Array,
    zobrist: Array,
    lbtab: Array,
    cap: Array,
    slots: int,
    replies: int,
    solved: int,
    candidates_only: bool,
    distinct_guesses: bool,
    all_colors: int,
    table: Table,
    stats: Array,
    digits: Array,
    group: Array,
    work_limit: int,
) -> int:
    """Fewest total guesses to find every code in ``cands`` (ascending) with
    ``depth_left`` guesses at most. A result below ``bound`` is exact; one at
    or above it only says the total is at least that. ``group`` holds the
    symmetries that fix the guesses played (see :func:`child_group`); only
    the smallest guess of each set they make alike is scored. Past
    ``work_limit`` nodes (counted in ``stats[0]``) every node answers INF at
    once: the caller must then discard the result and the table."""
    n = cands.shape[0]
    stats[0] += 1
    if stats[0] > work_limit:
        return INF
    if depth_left <= 0:
        return INF
    if n == 1:
        return 1
    if depth_left == 1:
        return INF
    if n == 2:
        return 3
    if n > cap[depth_left]:
        return INF
    if lbtab[n] >= bound:
        return int(lbtab[n])
    key = position_key(cands, zobrist, depth_left)
    row = find_row(table, key)
    known = 0
    if row >= 0:
        entry = table[row, ENTRY]
        if _exact(entry) >= 0:
            stats[3] += 1
            return _exact(entry)
        known = _lower(entry)
        if known >= bound:
            stats[3] += 1
            return int(known)

    # With no more codes than replies, each guess's replies are the bits of
    # one word (n bits: a perfect split; n - 1: one pair), and the closed
    # forms below read those words before any guess is expanded.
    small = n <= replies
    solved_bit = np.uint64(1) << np.uint64(solved)
    if small:
        c_words = np.zeros(n, np.uint64)
        _read_replies(F, cands, cands, c_words, 0, n)
        for i in range(n):
            if _bits(c_words[i]) == n:  # every candidate its own reply
                stats[4] += 1
                store_exact(table, key, 2 * n - 1, cands[i])
                return int(2 * n - 1)
        # Any other guess needs at least 2n: past the cut-off, stop here.
        if bound <= 2 * n:
            store_lower(table, key, 2 * n)
            return int(2 * n)
    if candidates_only:
        pool = cands
    else:
        pool = pool_without_dead_variants(
            pools[played, : pool_lens[played]], cands, colmask, played, all_colors, digits, distinct_guesses
        )
    if group.shape[0] > 1 and played != 0:  # before any guess the pool is one code per pattern
        pool = orbit_minima(pool, group, digits, played, group.shape[1] - digits.shape[1], F.shape[0])
    m = pool.shape[0]
    if small:
        words = np.zeros(m, np.uint64)
        # A block of guesses at a time, larger and larger: the first guess
        # that splits every candidate ends the work (the candidates' rows
        # stay in the cache between blocks).
        start, width = 0, FIRST_BLOCK
        while start < m:
            stop = min(m, start + width)
            _read_replies(F, cands, pool, words, start, stop)
            if not candidates_only:
                for i in range(start, stop):
                    if _bits(words[i]) == n:
                        stats[4] += 1
                        store_exact(table, key, 2 * n, pool[i])
                        return int(2 * n)
            start, width = stop, 2 * width
    counts = np.zeros(slots, np.int64)
    if small and depth_left >= 3:
        # No guess splits everything, so the total is at least 2n; a candidate
        # that leaves one pair and single codes (n - 1 replies) reaches it (the
        # pair's second code needs a third guess).
        for i in range(n):
            if _bits(c_words[i]) == n - 1:
                stats[4] += 1
                store_exact(table, key, 2 * n, cands[i])
                return int(2 * n)
        # Now the total is at least 2n + 1: past the cut-off, stop here.
        if bound <= 2 * n + 1:
            store_lower(table, key, 2 * n + 1)
            return int(2 * n + 1)
        # A guess that reaches it with classes of at most two codes (whose
        # totals are exact) is optimal: look among the candidates, then the
        # pool, and stop at the first. Only a guess whose word gives 2n + 1
        # can: its classes are counted.
        target = 2 * n + 1
        for j in range(n + m):
            word = c_words[j] if j < n else words[j - n]
            candidate = 1 if word & solved_bit else 0
            if 3 * n - 2 * candidate - _bits(word & ~solved_bit) != target:
                continue
            g = cands[j] if j < n else pool[j - n]
            if _pairs_total(F[g], cands, counts, slots, solved) == target:
                stats[4] += 1
                store_exact(table, key, target, g)
                return int(target)
        stats[1] += n + m

    # A lower bound for every guess: n, plus the bound of each class left.
    bounds = np.empty(m, np.int64)
    limit = cap[depth_left - 1]
    if small and limit >= n:
        # Every class then has a bound of 2k - 1, so a guess's bound is
        # 3n - 2 * (1 if it is a candidate) - (number of classes left):
        # counting distinct replies is enough.
        for i in range(m):
            candidate = 1 if words[i] & solved_bit else 0
            classes = _bits(words[i] & ~solved_bit)
            bounds[i] = INF if (classes == 1 and candidate == 0) else 3 * n - 2 * candidate - classes
    else:
        bounds_by_classes(F, cands, pool, bounds, counts, lbtab, limit, slots, solved)
    stats[1] += m

    # Try the guesses best bound first, solving their classes against the cut-off.
    order = _order_by_bound(bounds, 3 * n) if n <= replies else np.argsort(bounds, kind="mergesort")

    best = bound
    best_guess = -1
    members = np.empty(n, cands.dtype)
    starts = np.zeros(slots + 1, np.int64)
    for idx in order:
        lb = bounds[idx]
        if lb >= best:
            break
        stats[2] += 1
        g = pool[idx]
        row = F[g]
        # Partition by reply (a counting sort keeps each class ascending).
        counts[:] = 0
        for c in cands:
            counts[row[c]] += 1
        starts[0] = 0
        for s in range(slots):
            starts[s + 1] = starts[s] + counts[s]
        fill = starts[:slots].copy()
        for c in cands:
            r = row[c]
            members[fill[r]] = c
            fill[r] += 1
        # Smallest classes first: they are cheap and tighten the cut-off.
        sizes = counts.copy()
        sizes[solved] = 0
        by_size = np.argsort(sizes, kind="mergesort")
        running = lb
        next_played = played | colmask[g]
        next_group = child_group(group, digits, g, played) if group.shape[0] > 1 else group
        for s in by_size:
            k = sizes[s]
            if k == 0:
                continue
            sub = members[starts[s] : starts[s] + k].copy()
            budget = best - running + lbtab[k]
            value = solve(
                F,
                sub,
                next_played,
                depth_left - 1,
                budget,
                pools,
                pool_lens,
                colmask,
                zobrist,
                lbtab,
                cap,
                slots,
                replies,
                solved,
                candidates_only,
                distinct_guesses,
                all_colors,
                table,
                stats,
                digits,
                next_group,
                work_limit,
            )
            running += value - lbtab[k]
            if running >= best:
                break
        if running < best:
            best = running
            best_guess = g
    if best_guess >= 0 and best < bound:
        store_exact(table, key, best, best_guess)
    else:
        store_lower(table, key, bound)
    return best


@njit(cache=True, nogil=True)
def store_lower(table: Table, key: Any, lower: int) -> None:
    """Remember that the position's total is at least ``lower``."""
    row = claim_row(table, key)
    entry = table[row, ENTRY]
    if _lower(entry) < lower:
        table[row, ENTRY] = _entry(_exact(entry), lower, _guess(entry))


@njit(cache=True, nogil=True)
def store_exact(table: Table, key: Any, value: int, guess: int) -> None:
    row = claim_row(table, key)
    table[row, ENTRY] = _entry(value, _lower(table[row, ENTRY]), guess)


@njit(cache=True, nogil=True)
def table_get(table: Table, key: Any) -> int:
    """The guess stored for ``key`` (-1 if the table has forgotten it)."""
    row = find_row(table, key)
    return -1 if row < 0 else _guess(table[row, ENTRY])


@njit(cache=True, nogil=True)
def merge_tables(table: Table, other: Table) -> None:
    """Add another thread's solved positions to this table (a lower bound
    kept is the larger of the two)."""
    for i in range(other.shape[0]):
        key = other[i, KEY]
        if key == 0:
            continue
        row = claim_row(table, key)
        mine, theirs = table[row, ENTRY], other[i, ENTRY]
        exact, guess = (_exact(theirs), _guess(theirs)) if _exact(theirs) >= 0 else (_exact(mine), _guess(mine))
        table[row, ENTRY] = _entry(exact, max(_lower(mine), _lower(theirs)), guess)


def new_table(rows: int) -> Table:
    """An empty table of ``rows`` rows (a power of two); the memory is taken
    from the system as rows are first written."""
    return np.zeros((rows, 2), dtype=np.int64)


def table_size(table: Table) -> int:
    """How many positions the table holds."""
    return int(np.count_nonzero(table[:, KEY]))
