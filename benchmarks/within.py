"""The optimum within K guesses, from a board's shipped optimal tree: the
basis of the "within 6 guesses" figure of the 5 × 6 optimum
(docs/performance.md).

    python -m benchmarks --within 5x6:6      # one class of 1,190 codes, about 4 minutes
    python -m benchmarks --within 4x6:5

No tree that never needs more than K guesses can total less than the
unconstrained optimum. So when the shipped tree's worst case is over K,
each class of its first guess that holds a secret found later than guess K
is solved again by the exact search within K guesses: if every such class
keeps its total, a tree within K reaches the unconstrained optimum, and that
total is the optimum within K. If a class needs more, the sum is only an
upper bound (the first guess is kept), and ``mastermind optimal
--max-guesses K --search`` gives the exact figure.
"""

from __future__ import annotations

import time

import numpy as np

from webapp.engine import Code, GameSize, analyse
from webapp.engine.codes import secret_indices
from webapp.engine.optimal import INF, OptimalSolver, classes_of, shipped_document


def main(board: str = "5x6:6") -> None:
    from webapp.engine.search_kernels import child_group

    shape, limit_text = board.split(":")
    pegs, colors = (int(v) for v in shape.lower().split("x"))
    size, limit = GameSize(pegs, colors), int(limit_text)
    document = shipped_document(size, None)
    if document is None:
        raise SystemExit(f"no optimal tree ships for {size.label()}")
    tree = analyse("optimal", size)
    print(f"{size.label()}: the shipped optimum totals {tree.total:,}, worst case {tree.max} guesses", flush=True)
    if tree.max <= limit:
        print(f"within {limit} guesses: {tree.total:,}, the same tree")
        return
    depth_of = dict(zip((int(s) for s in secret_indices(size)), (int(d) for d in tree.depths)))
    solver = OptimalSolver(size, max_guesses=limit)
    first = int(document["guesses"][0])
    group = child_group(solver.all_symmetries, solver.digits, first, 0)
    played = int(solver.colmask[first])
    total = tree.total
    for members in classes_of(solver.matrix, solver.secrets, first, solver.solved):
        depths = np.array([depth_of[int(code)] for code in members])
        if depths.max() <= limit:
            continue
        free = int((depths - 1).sum())  # guesses after the first, as the class's own total counts them
        started, nodes = time.process_time(), int(solver.stats[0])
        capped = solver._run(members, played, solver.depth_left(2), group=group)
        seconds = time.process_time() - started
        if capped >= INF:
            print(f"within {limit} guesses: no tree that starts with {Code.from_index(first, size)}")
            return
        print(
            f"class of {len(members):,} codes after {Code.from_index(first, size)}: {free:,} in the tree "
            f"(deepest {depths.max()}), {capped:,} within {limit} guesses "
            f"({seconds:.1f} s CPU, {int(solver.stats[0]) - nodes:,} positions)",
            flush=True,
        )
        total += capped - free
    if total == tree.total:
        print(f"within {limit} guesses: {total:,}, the unconstrained optimum (no tree within {limit} can total less)")
    else:
        print(
            f"within {limit} guesses: at most {total:,} (first guess kept); "
            f"`mastermind optimal --max-guesses {limit} --search` gives the exact figure"
        )
