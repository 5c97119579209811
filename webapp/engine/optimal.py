"""Exact optimal play: the decision tree with the fewest guesses in total,
optionally never needing more than K guesses.

A depth-first branch and bound over candidate sets, compiled with numba:

- the guess pool is reduced by symmetry (colours never played are
  interchangeable; one code per pattern before the first guess);
- every guess gets a lower bound, ``n`` plus a bound per class of its
  partition, and guesses are tried best bound first; a guess is dropped as
  soon as its classes solved so far plus the bounds of the rest reach the best
  total found (the cut-off), and classes are solved smallest first;
- closed forms at the leaves: one code costs 1, two cost 3, a candidate that
  splits the rest into single codes costs ``2n - 1``, any other guess that
  does ``2n``;
- candidate sets already solved are remembered (a transposition table keyed by
  a 64-bit Zobrist hash of the set), with exact totals and lower bounds.
"""

from __future__ import annotations

import threading
import time

import numpy as np
from numba import njit, types
from numba.typed import Dict

from .codes import GameSize, SizeError, secret_indices
from .strategies import colors_mask, guess_pool
from .tables import feedback_table

INF = 1 << 40
UNBOUNDED = 99  # guesses left when no limit is set
STATS = ("nodes", "guesses scored", "guesses expanded", "table hits", "closed-form leaves")
# The search keeps the whole feedback matrix; beyond this many codes it is not offered.
MAX_OPTIMAL_CODES = 4096


@njit(cache=True, nogil=True)
def _perfect(row, cands, seen, stamp):
    for c in cands:
        r = row[c]
        if seen[r] == stamp:
            return False
        seen[r] = stamp
    return True


@njit(cache=True, nogil=True)
def _key(cands, zobrist, depth_left):
    h = np.uint64(depth_left) * np.uint64(0x9E3779B97F4A7C15)
    for c in cands:
        h ^= zobrist[c]
    return np.int64(h)


@njit(cache=True, nogil=True)
def _solve(F, cands, played, depth_left, bound, pools, pool_lens, colmask, zobrist, lbtab, cap,
           slots, replies, solved, candidates_only, exact, lower, choice, stats):
    """Fewest total guesses to find every code in ``cands`` (ascending) with
    ``depth_left`` guesses at most. A result below ``bound`` is exact; one at
    or above it only says the total is at least that."""
    n = cands.shape[0]
    stats[0] += 1
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
        return lbtab[n]
    key = _key(cands, zobrist, depth_left)
    if key in exact:
        stats[3] += 1
        return exact[key]
    known = lower.get(key, 0)
    if known >= bound:
        stats[3] += 1
        return known

    seen = np.zeros(slots, np.int64)
    if n <= replies:
        for i in range(n):
            if _perfect(F[cands[i]], cands, seen, i + 1):
                stats[4] += 1
                exact[key] = 2 * n - 1
                choice[key] = cands[i]
                return 2 * n - 1
    if candidates_only:
        pool = cands
    else:
        pool = pools[played, : pool_lens[played]]
    m = pool.shape[0]
    if n <= replies and not candidates_only:
        for i in range(m):
            if _perfect(F[pool[i]], cands, seen, n + 1 + i):
                stats[4] += 1
                exact[key] = 2 * n
                choice[key] = pool[i]
                return 2 * n

    # A lower bound for every guess: n, plus the bound of each class left.
    bounds = np.empty(m, np.int64)
    counts = np.zeros(slots, np.int64)
    limit = cap[depth_left - 1]
    for i in range(m):
        row = F[pool[i]]
        counts[:] = 0
        for c in cands:
            counts[row[c]] += 1
        total = n
        for s in range(slots):
            k = counts[s]
            if k == 0 or s == solved:
                continue
            if k == n or k > limit:  # no information, or too many for the guesses left
                total = INF
                break
            total += lbtab[k]
        bounds[i] = total
    stats[1] += m
    order = np.argsort(bounds, kind="mergesort")

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
        for s in by_size:
            k = sizes[s]
            if k == 0:
                continue
            sub = members[starts[s]: starts[s] + k].copy()
            budget = best - running + lbtab[k]
            value = _solve(F, sub, next_played, depth_left - 1, budget, pools, pool_lens, colmask,
                           zobrist, lbtab, cap, slots, replies, solved, candidates_only, exact,
                           lower, choice, stats)
            running += value - lbtab[k]
            if running >= best:
                break
        if running < best:
            best = running
            best_guess = g
    if best_guess >= 0 and best < bound:
        exact[key] = best
        choice[key] = best_guess
    else:
        lower[key] = max(known, bound)
    return best


class OptimalSolver:
    """Exact optimal totals and choices for one game size.

    ``max_guesses`` bounds the depth (optimal worst case); ``candidates_only``
    restricts guesses to codes still possible.
    """

    def __init__(self, size: GameSize, max_guesses: int | None = None,
                 candidates_only: bool = False):
        if size.n_codes > MAX_OPTIMAL_CODES:
            raise SizeError(
                f"{size.label()} has {size.n_codes:,} codes; the exact optimum is computed "
                f"here for up to {MAX_OPTIMAL_CODES:,}."
            )
        self.size = size
        self.max_guesses = max_guesses
        self.candidates_only = candidates_only
        self.table = feedback_table(size, MAX_OPTIMAL_CODES**2)
        pegs, colors = size.pegs, size.colors
        self.replies = (pegs + 1) * (pegs + 2) // 2 - 1
        self.slots = (pegs + 1) ** 2
        self.solved = size.solved
        masks = 1 << colors
        pools = [guess_pool(pegs, colors, mask) for mask in range(masks)]
        self.pool_lens = np.array([len(p) for p in pools], dtype=np.int64)
        self.pools = np.zeros((masks, int(self.pool_lens.max())), dtype=np.int64)
        for mask, pool in enumerate(pools):
            self.pools[mask, : len(pool)] = pool
        self.colmask = np.array([colors_mask(size, i) for i in range(size.n_codes)], dtype=np.int64)
        self.zobrist = np.random.default_rng(20261122).integers(
            0, 2**63, size=size.n_codes, dtype=np.int64).astype(np.uint64)
        self.lbtab, self.cap = bounds_tables(size.n_codes, self.replies - 1)
        self.exact = Dict.empty(types.int64, types.int64)
        self.lower = Dict.empty(types.int64, types.int64)
        self.choice = Dict.empty(types.int64, types.int64)
        self.stats = np.zeros(len(STATS), dtype=np.int64)
        self.secrets = secret_indices(size).astype(np.int64)

    def depth_left(self, depth: int) -> int:
        """Guesses still allowed at a node whose guess is number ``depth``."""
        return UNBOUNDED if self.max_guesses is None else self.max_guesses - depth + 1

    def _run(self, cands, played, depth_left, bound=INF):
        return int(_solve(
            self.table.matrix, np.ascontiguousarray(cands, dtype=np.int64), played, depth_left, bound,
            self.pools, self.pool_lens, self.colmask, self.zobrist, self.lbtab, self.cap,
            self.slots, self.replies, self.solved, self.candidates_only, self.exact, self.lower,
            self.choice, self.stats,
        ))

    def total(self, cands=None, played: int = 0, depth: int = 1, progress=None) -> int | None:
        """The optimal total for ``cands`` (every secret by default), or None
        when no tree stays within the guess limit. ``progress(stats, seconds)``
        is called from time to time while the search runs."""
        cands = self.secrets if cands is None else cands
        if progress is None:
            value = self._run(cands, played, self.depth_left(depth))
        else:
            result = []
            worker = threading.Thread(
                target=lambda: result.append(self._run(cands, played, self.depth_left(depth))))
            started = time.perf_counter()
            worker.start()
            while worker.is_alive():
                worker.join(0.25)
                progress(self.stats, time.perf_counter() - started)
            value = result[0]
        return None if value >= INF else value

    def choose(self, cands: np.ndarray, played: int, depth: int) -> int:
        """An optimal guess for ``cands`` at guess number ``depth``."""
        if cands.shape[0] <= 2:
            return int(cands[0])
        depth_left = self.depth_left(depth)
        if self._run(cands, played, depth_left) >= INF:
            raise SizeError(
                f"No strategy finds every secret here within {self.max_guesses} guesses.")
        key = int(_key(np.ascontiguousarray(cands, dtype=np.int64), self.zobrist, depth_left))
        return int(self.choice[key])


def bounds_tables(n_codes: int, branching: int):
    """Lower bound of the total for ``m`` codes (``lbtab[m]``) and how many
    codes ``d`` guesses can ever separate (``cap[d]``).

    With a candidate guess one code is found at depth 1, and each of at most
    ``branching`` replies can find one more at depth 2, and so on: at most
    ``branching ** (d - 1)`` codes need exactly ``d`` guesses.
    """
    lbtab = np.zeros(n_codes + 1, dtype=np.int64)
    for m in range(1, n_codes + 1):
        left, depth, width, total = m, 1, 1, 0
        while left > 0:
            take = min(left, width)
            total += take * depth
            left -= take
            depth += 1
            width = min(width * branching, INF)
        lbtab[m] = total
    cap = np.zeros(UNBOUNDED + 1, dtype=np.int64)
    width = 1
    for d in range(1, UNBOUNDED + 1):
        cap[d] = min(cap[d - 1] + width, INF)
        width = min(width * branching, INF)
    return lbtab, cap
