"""What an exact search of a board too large for one machine would cost,
from measured subtree times: the basis of the estimate for the 5 × 6
optimum on a cluster (docs/performance.md).

    python -m benchmarks --subtrees 5x6             # about 10 minutes of measuring
    python -m benchmarks --subtrees 5x6 --budget 60

Each class solved prints the estimate so far. A class is stopped at the
nodes the budget leaves at the pace measured so far, but the compiled search
checks that count only between subtrees, so a large class can overrun it:
stop the run then, and read the last estimate printed.

The whole search has two rounds at its root (``OptimalSolver._run_split``):
first every class the first guess leaves is solved exactly (the jobs a
cluster runs at once), then every other guess is tried against that total.
This solves the first guess's classes one at a time on one core, smallest
first, until the budget is spent; fits the time per class against its size
(a power law through the measured ones, log time on log size); and adds the
fitted time of the classes it did not reach. The second round is estimated
by the ratio of the two rounds on a board searched whole here (5 × 5), an
estimate and not a measurement; the result is printed as core-hours.
"""

from __future__ import annotations

import time

import numpy as np

from webapp.engine import GameSize
from webapp.engine.optimal import OptimalSolver, classes_of, searchable
from webapp.engine.strategies import TooSlow


def root(solver: OptimalSolver):
    """The first guess the whole-game search tries, and its classes (smallest first)."""
    from webapp.engine.search_kernels import child_group

    cands, played, depth_left = solver.secrets, 0, solver.depth_left(1)
    pool, _bounds, order = solver.ordered_guesses(cands, played, depth_left)
    first = int(pool[order[0]])
    group = child_group(solver.all_symmetries, solver.digits, first, played)
    classes = sorted(classes_of(solver.matrix, cands, first, solver.solved), key=len)
    return first, classes, group, played | int(solver.colmask[first]), depth_left - 1


def first_round(size: GameSize, budget: float) -> dict:
    solver = OptimalSolver(size, offline=not searchable(size))
    first, classes, group, played, depth_left = root(solver)
    from webapp.engine.codes import Code

    guess = Code.from_index(first, size)
    print(f"{size.label()}: first guess {guess}, {len(classes)} classes of {[len(c) for c in classes]} codes")
    print(f"{'codes':>6} {'seconds':>9} {'nodes':>14}", flush=True)
    solved: list[tuple[int, float, int]] = []  # (codes, seconds, nodes)
    spent, rate = 0.0, 1e6  # nodes a second, measured as classes are solved
    for sub in classes:
        left = budget - spent
        if left <= 0 or (solved and predict(solved, len(sub)) > left):
            break
        nodes = int(solver.stats[0])
        started = time.perf_counter()
        try:  # a class is stopped once it has visited the nodes the budget left allows
            solver._run(sub, played, depth_left, group=group, nodes=int(rate * left) + 1)
        except TooSlow:
            seconds = time.perf_counter() - started
            print(f"{len(sub):6} {seconds:9.2f}  not finished within the budget", flush=True)
            spent += seconds
            break
        seconds = time.perf_counter() - started
        spent += seconds
        visited = int(solver.stats[0]) - nodes
        if seconds > 0.05:  # long enough to measure the pace
            rate = visited / seconds
        solved.append((len(sub), seconds, visited))
        rest = sum(predict(solved, len(later)) for later in classes[len(solved) :])
        print(
            f"{len(sub):6} {seconds:9.2f} {visited:14,}   first round so far: {(spent + rest) / 3600:.2f} core-hours",
            flush=True,
        )
    rest = [len(sub) for sub in classes[len(solved) :]]
    return {
        "size": size,
        "first": first,
        "classes": [len(sub) for sub in classes],
        "solved": solved,
        "measured": spent,
        "predicted": sum(predict(solved, m) for m in rest),
    }


def predict(solved: list[tuple[int, float, int]], codes: int) -> float:
    """Seconds for a class of ``codes`` codes, on the power law through the
    classes solved (the larger half of them, where the growth shows)."""
    if not solved:  # not even the smallest class within the budget: nothing to go on
        return float("nan")
    points = [(m, s) for m, s, _ in solved if m >= 3 and s > 0]
    points = points[len(points) // 2 :] if len(points) >= 4 else points
    if len(points) < 2:
        return solved[-1][1] * codes / max(solved[-1][0], 1)
    x = np.log([m for m, _ in points])
    y = np.log([s for _, s in points])
    slope, intercept = np.polyfit(x, y, 1)
    return float(np.exp(intercept + slope * np.log(codes)))


def whole_over_first_round(size: GameSize) -> float:
    """How much longer the whole search takes than its first round, on a
    board searched whole here."""
    solver = OptimalSolver(size)
    first, classes, group, played, depth_left = root(solver)
    started = time.perf_counter()
    for sub in classes:
        solver._run(sub, played, depth_left, group=group)
    first_round_seconds = time.perf_counter() - started
    solver = OptimalSolver(size)
    started = time.perf_counter()
    solver._run(solver.secrets, 0, solver.depth_left(1), group=solver.all_symmetries)
    return (time.perf_counter() - started) / first_round_seconds


def board(text: str) -> GameSize:
    pegs, colors = (int(v) for v in text.lower().split("x"))
    return GameSize(pegs, colors)


def main(size_text: str = "5x6", budget: float = 600.0, whole: str = "5x5") -> None:
    """The estimate for ``size_text`` from ``budget`` seconds of measuring,
    the second round scaled by the ratio measured on ``whole`` (PxC)."""
    size = board(size_text)
    ratio = whole_over_first_round(board(whole))
    print(f"{whole} searched whole here: the whole search takes {ratio:.1f} times its first round", flush=True)
    found = first_round(size, budget)
    first_round_seconds = found["measured"] + found["predicted"]
    estimate = first_round_seconds * ratio
    print(
        f"first round: {found['measured']:.0f} s measured + {found['predicted']:.0f} s fitted for the "
        f"{len(found['classes']) - len(found['solved'])} larger classes = {first_round_seconds / 3600:.1f} core-hours; "
        f"the whole search about {estimate / 3600:.1f} core-hours ({ratio:.1f} x, as on {whole})"
    )
