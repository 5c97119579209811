"""Time and peak memory of the engine's main jobs, each in a fresh process.

    python -m benchmarks            # everything, 5 pegs × 8 colours included
    python -m benchmarks --quick    # 4 × 6 only
    python -m benchmarks --slow     # also the optimal 4 × 7 search (minutes)
    python -m benchmarks --json     # machine-readable
    python -m benchmarks --load     # only the load run against gunicorn (see load.py)
    python -m benchmarks --scale    # SQLite, PostgreSQL, two servers (see scale.py)
    python -m benchmarks --slow-clients   # 50 trickling connections: gunicorn, then nginx (slow_clients.py)
    python -m benchmarks --worker-memory  # one worker's RSS through the sweep of every size (see worker_memory.py)
    python -m benchmarks --sweep    # every size and route of the sweep test, timed (see sweep.py)
    python -m benchmarks --live     # 200 students following a live session on one worker (see live.py)
    python -m benchmarks --puzzles  # the next puzzle among 100,000, SQLite and PostgreSQL (see puzzles.py)
    python -m benchmarks --capacity # each kind of work's cost beside the framework's floor (see capacity.py)
    python -m benchmarks --subtrees 5x6   # an exact search's cost from measured subtrees (see subtrees.py)
    python -m benchmarks --within 5x6:6   # the optimum within 6 guesses, from the shipped tree (see within.py)
    python -m benchmarks --peer /path/to/mmstrat   # whole process beside the C++ solver (see peer.py)
    python -m benchmarks --start-up # every tree of up to 5,040 codes, whole process (see startup.py)
    python -m benchmarks --start-up --against main   # the same beside another commit
    python -m benchmarks --start-up --cold  # every command builds its feedback matrix (no cache)
    python -m benchmarks --smoke    # every mode above once, at a tiny size (make test runs it)

Compiled kernels are loaded (and compiled on a first run) before the clock
starts; "traced" is the peak of Python and numpy allocations (tracemalloc, a
second run, small sizes only) and "peak RSS" the whole process, interpreter
and compiled code included. "baseline" rows run the same job with plain numpy in place of the
compiled kernels, in the same run, so the comparison survives a noisy machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

from .jobs import measure


def plan(quick: bool, slow: bool = False):
    from webapp.engine import PRESETS

    jobs = [
        ("web: post a guess, 4×6 (median)", ("web", 0, 0, "guess")),
        ("web: knuth suggestion, 4×6 (median)", ("web", 0, 0, "suggest")),
        ("web: classroom step 4×6 (cold)", ("solver", 4, 6, "classroom")),
        ("web: optimal-game line 4×6 (cold)", ("solver", 4, 6, "line")),
        ("web: optimal game, knuth deepest 4×6 (cold)", ("solver", 4, 6, "line-deepest")),
        ("web: compare page 4×6 (cold)", ("compare-page", 4, 6)),
        ("web: 30 players on one challenge (median)", ("challenge", 30, 0)),
        ("feedback matrix 4×6", ("matrix", 4, 6)),
        ("best guess 4×6, root (knuth)", ("root", 4, 6, "knuth")),
        ("best guess 4×6, after one (knuth)", ("second", 4, 6, "knuth")),
    ]
    jobs += [(f"tree 4×6 {name}", ("tree", 4, 6, name)) for name in PRESETS]
    jobs += [
        ("tree 4×6 distinct knuth", ("tree", 4, 6, "knuth", True)),
        # The same trees as the peer benchmark's whole commands, here inside a
        # process that has its kernels already (as a web worker has).
        ("tree Bulls and Cows minimax-lex", ("tree", 4, 10, "minimax-lex", True, True)),
        ("tree Bulls and Cows entropy", ("tree", 4, 10, "entropy", True, True)),
        ("baseline: tree 4×6 knuth, numpy only", ("baseline", 4, 6, "knuth")),
        ("baseline: tree 4×6 entropy, numpy only", ("baseline", 4, 6, "entropy")),
    ]
    jobs += [
        ("optimal 4×5 from scratch", ("optimal", 4, 5, None)),
        ("optimal 4×6 from scratch", ("optimal", 4, 6, None)),
        ("optimal 4×6 within 5 guesses", ("optimal", 4, 6, 5)),
        ("optimal 4×6 distinct", ("optimal", 4, 6, None, True)),
    ]
    jobs += [
        ("review of a game 4×6 (per move)", ("review", 4, 6, "knuth")),
        ("review of a game 5×5 (per move)", ("review", 5, 5, "knuth")),
    ]
    if slow:
        jobs.append(("optimal 4×7 from scratch", ("optimal", 4, 7, None)))
    if not quick:
        jobs += [
            ("web: classroom step 5×8 (cold)", ("solver", 5, 8, "classroom")),
            ("web: optimal-game line 5×8 (cold)", ("solver", 5, 8, "line")),
            ("web: optimal game, knuth greedy 5×8 (cold)", ("solver", 5, 8, "line-knuth")),
            ("feedback matrix 5×8", ("matrix", 5, 8)),
            ("best guess 5×8, root (knuth)", ("root", 5, 8, "knuth")),
            ("best guess 5×8, after one (knuth)", ("second", 5, 8, "knuth")),
            ("job: compare every strategy 5×8", ("compare-job", 5, 8)),
            ("tree 5×8 knuth", ("tree", 5, 8, "knuth")),
            ("tree 5×8 entropy", ("tree", 5, 8, "entropy")),
            ("review of a game 5×8 (per move)", ("review", 5, 8, "entropy")),
        ]
    return jobs


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="skip 5 pegs × 8 colours")
    parser.add_argument("--slow", action="store_true", help="add the optimal 4×7 search (minutes)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--only", help="run the jobs whose name contains this text")
    parser.add_argument(
        "--load", action="store_true", help="only the load run: players against gunicorn with 4 workers"
    )
    parser.add_argument(
        "--scale",
        action="store_true",
        help="only the scale run: SQLite, PostgreSQL, and two servers on PostgreSQL + Redis",
    )
    parser.add_argument(
        "--worker-memory", action="store_true", help="only one app process's memory through the sweep of every size"
    )
    parser.add_argument(
        "--sweep", action="store_true", help="only the sweep of every size and route, timed (each size, slowest)"
    )
    parser.add_argument(
        "--slow-clients",
        action="store_true",
        help="only the slow-client run: 50 trickling connections against gunicorn, then nginx",
    )
    parser.add_argument(
        "--fairness",
        action="store_true",
        help="only the fairness run: one client floods the job slots, another asks for lines",
    )
    parser.add_argument(
        "--live", action="store_true", help="only the live run: students following one session on one worker"
    )
    parser.add_argument("--students", type=int, default=200, help="students in the live run (200)")
    parser.add_argument(
        "--puzzles", action="store_true", help="only the next-puzzle run: 100,000 puzzles, SQLite and PostgreSQL"
    )
    parser.add_argument(
        "--subtrees", metavar="PxC", help="only the estimate of an exact search of this board from its subtrees"
    )
    parser.add_argument("--budget", type=float, default=600.0, help="seconds of measuring for --subtrees (600)")
    parser.add_argument(
        "--within", metavar="PxC:K", help="only the optimum within K guesses, from the board's shipped optimal tree"
    )
    parser.add_argument(
        "--capacity",
        action="store_true",
        help="only the capacity run: each kind of work's CPU cost and latency, beside a one-route Flask app's",
    )
    parser.add_argument("--players", type=int, default=32, help="players in the load and scale runs (32)")
    parser.add_argument(
        "--peer", metavar="MMSTRAT", help="side by side with this mmstrat binary, whole process (see peer.py)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="with --peer: both programs on this many threads (this project's kernels, the peer's -mt)",
    )
    parser.add_argument(
        "--peer-jobs", action="store_true", help="the side-by-side jobs without the peer: this project's column alone"
    )
    parser.add_argument(
        "--start-up", action="store_true", help="only every tree of up to 5,040 codes, as a whole command"
    )
    parser.add_argument(
        "--against",
        metavar="REF",
        help="with --start-up: each tree also from the git commit REF (a worktree), alternating runs",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="with --start-up: no feedback matrix from the cache (MASTERMIND_CACHE=off), as a board's first command",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="every mode once at a tiny size, to show that each still runs (exit status 1 if one fails)",
    )
    return parser


def main(argv=None):
    args = parser().parse_args(argv)
    if args.smoke:
        if smoke():
            raise SystemExit(1)
        return
    run(args)


def run(args: argparse.Namespace, tiny: dict | None = None) -> None:
    """The mode ``args`` asks for; ``tiny`` adds keyword arguments to the
    mode's own main function (the smoke run's small sizes)."""
    tiny = tiny or {}
    if args.start_up:
        from .startup import main as startup_main

        if args.cold:
            os.environ["MASTERMIND_CACHE"] = "off"  # the commands inherit it

        startup_main(only=args.only, against=args.against, **tiny)
        return
    if args.peer or args.peer_jobs:
        from .peer import main as peer_main

        peer_main(args.peer, slow=args.slow, only=args.only, threads=args.threads, **tiny)
        return
    if args.within:
        from .within import main as within_main

        within_main(args.within)
        return
    if args.subtrees:
        from .subtrees import main as subtrees_main

        subtrees_main(args.subtrees, args.budget, **tiny)
        return
    if args.live:
        from .live import main as live_main

        live_main(students=args.students, **tiny)
        return
    if args.capacity:
        from .capacity import main as capacity_main

        capacity_main(json_output=args.json, **tiny)
        return
    if args.puzzles:
        from .puzzles import main as puzzles_main

        puzzles_main(**tiny)
        return
    if args.fairness:
        from .fairness import main as fairness_main

        fairness_main(**tiny)
        return
    if args.sweep:
        from .sweep import main as sweep_main

        sweep_main(**tiny)
        return
    if args.worker_memory:
        from .worker_memory import main as worker_memory_main

        worker_memory_main(**tiny)
        return
    if args.slow_clients:
        from .slow_clients import main as slow_clients_main

        slow_clients_main(**tiny)
        return
    if args.scale:
        from .scale import main as scale_main

        scale_main(players=args.players, **tiny)
        return
    if args.load:
        from .load import main as load_main

        load_main(players=args.players, **tiny)
        return
    if tiny:
        raise TypeError(f"the job list takes no sizes: {tiny}")
    jobs = [j for j in plan(args.quick, args.slow) if not args.only or args.only in j[0]]
    rows = []
    if not args.json:
        print(f"{'job':42} {'seconds':>9} {'peak RSS':>10} {'traced':>9}  result")
    for name, spec in jobs:
        r = measure(spec)
        r["job"] = name
        rows.append(r)
        if not args.json:
            traced = "-" if r["traced_mib"] is None else f"{r['traced_mib']:.1f} MiB"
            print(f"{name:42} {r['seconds']:9.4f} {r['rss_mib']:7.0f} MiB {traced:>9}  {r['detail']}", flush=True)
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
    elif not args.only and not args.quick:
        from .load import main as load_main
        from .sweep import main as sweep_main

        print()
        load_main(players=args.players)
        print()
        sweep_main()


# The start-up runs' one tree: a whole command of a fraction of a second.
SMOKE_TREE = "3×10 (1,000) knuth"


def smoke_plan() -> list[tuple[list[str], dict]]:
    """Every mode once, small: (its command-line flags, the keyword arguments
    its main function takes for sizes the command line leaves at full size)."""
    from webapp.engine import GameSize

    boards = [GameSize(3, 3), GameSize(4, 4)]  # two of tests/test_sweep.py's SIZES
    return [
        (["--quick", "--only", "feedback matrix 4×6"], {}),
        (["--load", "--players", "2"], {"seconds": 0.5, "workers": 1}),
        (["--scale", "--players", "2"], {"seconds": 0.5, "workers": 1, "warm_up": 0.25}),
        (["--slow-clients"], {"clients": 2, "seconds": 0.6, "interval": 0.2, "workers": 1, "calm": 2, "settle": 0.2}),
        (["--fairness"], {"seconds": 0.6, "workers": 1, "tries": 2, "settle": 0.3}),
        (["--worker-memory"], {"sizes": boards, "positions": 2}),
        (["--sweep"], {"sizes": boards}),
        (
            ["--live", "--students", "3"],
            {
                "steps": 2,
                "school_steps": 2,
                "school_workers": 1,
                "school_threads": 16,
                # A stream whose student has gone ends this soon, not at the shutdown's deadline.
                "settings": {"LIVE_KEEPALIVE_SECONDS": 0.2},
            },
        ),
        (["--puzzles"], {"count": 300, "answered": 3, "draws": 5}),
        (
            ["--capacity"],
            {
                "clients": 2,
                "scale": 0.005,
                "phones": 3,
                "poll": 0.1,
                "idle_seconds": 0.1,
                "settle": 0,
                "warm": 1,
                "workers": 1,
            },
        ),
        (["--subtrees", "4x4", "--budget", "5"], {"whole": "3x4"}),
        (["--within", "4x6:5"], {}),
        (["--peer-jobs", "--only", "tree 4×6 knuth"], {"repeats": 1}),
        (["--start-up", "--only", SMOKE_TREE], {"repeats": 1}),
        (["--start-up", "--cold", "--only", SMOKE_TREE], {"repeats": 1}),
        (["--start-up", "--against", "HEAD", "--only", SMOKE_TREE], {"repeats": 1}),
    ]


def smoke_value(value) -> str:
    """A smoke run's size as its header shows it: boards by their labels."""
    if isinstance(value, list):
        return "[" + ", ".join(smoke_value(item) for item in value) + "]"
    return value.label() if hasattr(value, "label") else str(value)


def smoke() -> int:
    """Every mode of ``python -m benchmarks`` once at a tiny size, each
    printing its usual output between a header and a line saying whether it
    ran; the number of modes that raised. The times printed show only that
    each mode works: at these sizes they measure nothing."""
    plan = smoke_plan()
    failed = []
    started = time.perf_counter()
    for number, (flags, tiny) in enumerate(plan, 1):
        shown = " ".join(f"'{flag}'" if " " in flag else flag for flag in flags)
        sizes = ", ".join(f"{key}={smoke_value(value)}" for key, value in tiny.items())
        print(f"== smoke {number}/{len(plan)}: {shown}" + (f" ({sizes})" if sizes else "") + " ==", flush=True)
        environment = dict(os.environ)  # --cold turns the cache off for the commands it starts
        began = time.perf_counter()
        try:
            run(parser().parse_args(flags), tiny)
        except (Exception, SystemExit):
            traceback.print_exc(file=sys.stdout)
            failed.append(shown)
            print(f"-- failed: {shown}", flush=True)
        else:
            print(f"-- ran: {shown} ({time.perf_counter() - began:.1f} s)", flush=True)
        finally:
            os.environ.clear()
            os.environ.update(environment)
    seconds = time.perf_counter() - started
    if failed:
        print(f"smoke: {len(failed)} of {len(plan)} modes failed in {seconds:.0f} s: {'; '.join(failed)}")
    else:
        print(f"smoke: all {len(plan)} modes ran in {seconds:.0f} s")
    return len(failed)


if __name__ == "__main__":
    main()
