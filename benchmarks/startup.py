"""Every tree of up to 5,040 codes from the command line, as a whole process:
each strategy that needs no search, on the largest board of each peg count
(and the boards whose secrets or guesses use different colours), plus the
shipped optimal trees replayed.

    python -m benchmarks --start-up           # best of three runs of each
    python -m benchmarks --start-up --only bulls
    python -m benchmarks --start-up --cold    # no matrix from the cache: a board's first command

A time is the best of ``repeats`` wall-clock runs of ``mastermind analyse
... --json``, memory the largest peak RSS (``/usr/bin/time``). Rows over the
0.25 s goal are marked. Bytecode is compiled first, as ``make`` does.

    python -m benchmarks --start-up --against main

also runs each tree from another commit (checked out in a temporary git
worktree, run as ``python -m webapp.cli`` there and here alike), its runs
alternating with this checkout's so both see the same machine; the totals
must agree.
"""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .peer import MASTERMIND, ROOT, compile_app, timed

GOAL = 0.25

# (label, board arguments): the largest board of up to 5,040 codes for each
# number of pegs, and the variants with different colours.
BOARDS = [
    ("3×10 (1,000)", ["--pegs", "3", "--colors", "10"]),
    ("4×8 (4,096)", ["--pegs", "4", "--colors", "8"]),
    ("5×5 (3,125)", ["--pegs", "5", "--colors", "5"]),
    ("6×4 (4,096)", ["--pegs", "6", "--colors", "4"]),
    ("4×10 distinct secrets (5,040; guesses 10,000)", ["--pegs", "4", "--colors", "10", "--distinct"]),
    ("Bulls and Cows (5,040)", ["--preset", "bulls-and-cows"]),
]
STRATEGIES = [
    "simple",
    "random",
    "knuth",
    "minimax-lex",
    "entropy",
    "irving",
    "most-parts",
    "widedev",
    "longrect",
    "minimax-avg",
]
SHIPPED = [
    ("4×5 optimal (shipped)", ["--pegs", "4", "--colors", "5", "--strategy", "optimal"]),
    ("4×6 optimal (shipped)", ["--pegs", "4", "--colors", "6", "--strategy", "optimal"]),
    ("Bulls and Cows optimal (shipped)", ["--preset", "bulls-and-cows", "--strategy", "optimal"]),
]


def jobs() -> list[tuple[str, list[str]]]:
    out = [(f"{label} {name}", [*board, "--strategy", name]) for label, board in BOARDS for name in STRATEGIES]
    return out + SHIPPED


def matrices() -> str:
    """Where the timed commands' feedback matrices come from (``--cold``: none cached)."""
    return "built by each command" if os.environ.get("MASTERMIND_CACHE") == "off" else "read from the cache"


@contextmanager
def worktree(ref: str) -> Iterator[Path]:
    """The commit ``ref`` checked out in a temporary git worktree, its
    modules compiled to bytecode; removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="startup-") as scratch:
        path = Path(scratch) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(path), ref], cwd=ROOT, check=True, capture_output=True
        )
        try:
            compileall.compile_dir(path / "webapp", quiet=1)
            yield path
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, check=True)


def main(only: str | None = None, repeats: int | None = None, against: str | None = None) -> None:
    """Each tree (those whose name contains ``only``) best of ``repeats``
    runs: 3 alone, 5 beside the commit ``against``, unless given."""
    if against is not None:
        with worktree(against) as other:
            beside(other, against, only, repeats or 5)
        return
    repeats = repeats or 3
    compile_app()
    print(f"whole process, best of {repeats}, feedback matrices {matrices()}; * over {GOAL} s")
    print(f"{'tree':62} {'seconds':>8} {'MiB':>5} {'total':>7}")
    worst = 0.0
    for name, args in jobs():
        if only and only.lower() not in name.lower():
            continue
        times, memory, total = [], 0.0, None
        for _ in range(repeats):
            seconds, mib, out = timed([MASTERMIND, "analyse", *args, "--json"])
            times.append(seconds)
            memory = max(memory, mib)
            total = json.loads(out)[0]["total"]
        best = min(times)
        worst = max(worst, best)
        mark = "*" if best > GOAL else ""
        print(f"{name:62} {best:8.3f} {memory:5.0f} {total!s:>7} {mark}", flush=True)
    print(f"slowest: {worst:.3f} s")


def beside(other: Path, ref: str, only: str | None, repeats: int) -> None:
    """Each tree from this checkout and from ``other``, alternating runs."""
    compile_app()
    analyse = [sys.executable, "-m", "webapp.cli", "analyse"]  # the checkout it runs in decides the code
    print(f"whole process, best of {repeats}, alternating, feedback matrices {matrices()}; this checkout beside {ref}")
    print(f"{'tree':62} {ref[:8]:>8} {'here':>8} {'ratio':>6} {'total':>7}")
    for name, args in jobs():
        if only and only.lower() not in name.lower():
            continue
        times: dict[str, list[float]] = {"there": [], "here": []}
        totals = set()
        for _ in range(repeats):
            for side, cwd in (("there", other), ("here", ROOT)):
                seconds, _mib, out = timed([*analyse, *args, "--json"], cwd=cwd)
                times[side].append(seconds)
                totals.add(json.loads(out)[0]["total"])
        there, now = min(times["there"]), min(times["here"])
        total = totals.pop() if len(totals) == 1 else "differ"
        print(f"{name:62} {there:8.3f} {now:8.3f} {now / there:6.2f} {total!s:>7}", flush=True)
