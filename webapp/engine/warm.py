"""Warming up: every compiled kernel loaded (or, on a first run, compiled
into numba's on-disk cache) before any request needs one. It sits on top of
the engine, since it calls into every layer; nothing in the engine imports it.

    python -m webapp.engine.warm    # what the Makefile runs once after installing
"""

from __future__ import annotations

import threading

import numpy as np

from .codes import GameSize, code_digits, color_counts
from .kernels import (
    PARALLEL_LOCK,
    counts_direct_parallel,
    counts_direct_serial,
    counts_few_parallel,
    counts_few_serial,
    counts_from_matrix_parallel,
    counts_from_matrix_serial,
    feedback_block,
    feedback_block_into,
    first_perfect_split,
    first_perfect_split_few,
    perfect_or_counts_parallel,
    perfect_or_counts_serial,
    replies_few,
    row_max,
    split_by_reply,
    table_sums,
    without_dead_variants,
)
from .optimal import OptimalSolver
from .search_kernels import child_group, merge_tables, new_table, store_exact, table_get
from .strategies import guess_pool
from .tables import small_tables, use_compiled

_warm = threading.Event()
_warming = threading.Lock()


def warm_up() -> None:
    """Load (or, on a first run, compile) every kernel with the argument
    types the engine passes (read-only shared tables included), on a tiny
    size, then send all work here (``tables.use_compiled``). Done once per
    process; later calls return at once."""
    if _warm.is_set():
        return
    with _warming:
        if _warm.is_set():
            return
        pegs, colors = 2, 2
        digits, counts = code_digits(pegs, colors), color_counts(pegs, colors)  # read-only
        n, slots = digits.shape[0], (pegs + 1) ** 2
        codes = np.arange(n, dtype=np.int64)
        digits_t, counts_t = np.ascontiguousarray(digits.T), np.ascontiguousarray(counts.T)
        matrix = np.empty((n, n), np.uint8)
        with PARALLEL_LOCK:  # as feedback_matrix calls it
            feedback_block_into(matrix, digits, counts, digits_t, counts_t, pegs)
        matrix.flags.writeable = False
        g_digits, g_counts = digits[codes], counts[codes]  # as the table's methods pass them
        feedback_block(g_digits, g_counts, digits_t, counts_t, pegs)
        counts_from_matrix_serial(matrix, codes, codes, slots)
        counts_direct_serial(digits, counts, codes, digits_t, counts_t, pegs, slots)
        with PARALLEL_LOCK:
            counts_from_matrix_parallel(matrix, codes, codes, slots)
            counts_direct_parallel(digits, counts, codes, digits_t, counts_t, pegs, slots)
        row_max(counts_from_matrix_serial(matrix, codes, codes, slots))
        first_perfect_split(matrix, codes, codes, slots)
        small = small_tables(pegs, colors)
        counts_few_serial(codes, small[0][codes], small[1][codes], small[2][codes], small, pegs, slots)
        with PARALLEL_LOCK:
            counts_few_parallel(codes, small[0][codes], small[1][codes], small[2][codes], small, pegs, slots)
        first_perfect_split_few(codes, codes, small, pegs)
        perfect_or_counts_serial(codes, small[0][codes], small[1][codes], small[2][codes], small, pegs, slots)
        with PARALLEL_LOCK:
            perfect_or_counts_parallel(codes, small[0][codes], small[1][codes], small[2][codes], small, pegs, slots)
        split_by_reply(replies_few(0, codes, small, pegs), codes, slots)
        without_dead_variants(digits, guess_pool(pegs, colors, 0), codes[:1], colors)  # pools are read-only
        without_dead_variants(digits, codes, codes[:1], colors)
        table_sums(counts_from_matrix_serial(matrix, codes, codes, slots), np.zeros(4, np.float64))
        # The exact optimal search (its own kernels), on a size too small to matter.
        solver = OptimalSolver(GameSize(3, 3))
        solver.total()
        # What the two-thread whole-game search calls from Python.
        child_group(solver.all_symmetries, solver.digits, 0, 0)
        table = new_table(8)
        store_exact(table, 1, 1, 0)
        merge_tables(table, table.copy())
        table_get(table, 1)
        use_compiled()
        _warm.set()


if __name__ == "__main__":
    # `python -m webapp.engine.warm`: compile every kernel into numba's
    # on-disk cache (the Makefile does it once after installing), so that no
    # process ever compiles while a request waits.
    import time

    started = time.perf_counter()
    warm_up()
    print(f"compiled kernels ready in {time.perf_counter() - started:.1f} s")
