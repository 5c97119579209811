"""Side by side with the fastest C++ solver, mmstrat (widmaN/mastermind-strategy),
whole process against whole process, on the same machine in the same run.

    python -m benchmarks --peer /path/to/mmstrat          # with the peer
    python -m benchmarks --peer-jobs                      # this project alone
    python -m benchmarks --peer /path/to/mmstrat --slow   # adds the 4×7 optimum (minutes)
    python -m benchmarks --peer /path/to/mmstrat --threads 1   # this project on one thread too

The project never ships or downloads mmstrat: build it yourself
(docs/performance.md says how). Each job runs both programs in turn, alternating, ``repeats``
times; a time is "min–median" of the wall-clock seconds around each process,
memory is the largest peak RSS (``/usr/bin/time``). The peer runs on one thread (``-mt 1``), or
on as many as ``--threads`` gives this project (the same count on both sides).
Both sides must print the same total, or the row says so.
"""

from __future__ import annotations

import compileall
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MASTERMIND = str(Path(sys.executable).with_name("mastermind"))

# (name, this project's arguments, the peer's arguments or None, repeats, slow)
JOBS = [
    ("start-up: mastermind --help", ["--help"], None, 5, False),
    ("suggest 4×6 after 1122 1,0", ["suggest", "1122:1,0"], None, 5, False),
    ("tree 4×6 knuth", ["analyse", "--strategy", "knuth"], None, 5, False),
    (
        "tree 4×6 minimax-lex (peer: minmax)",
        ["analyse", "--strategy", "minimax-lex"],
        ["-r", "mm", "-s", "minmax"],
        5,
        False,
    ),
    ("tree 4×6 entropy", ["analyse", "--strategy", "entropy"], ["-r", "mm", "-s", "entropy"], 5, False),
    ("optimal 4×5", ["optimal", "--pegs", "4", "--colors", "5"], ["-r", "p4c5r", "-s", "optimal"], 3, False),
    ("optimal 4×6", ["optimal", "--pegs", "4", "--colors", "6"], ["-r", "mm", "-s", "optimal"], 3, False),
    ("tree 5×8 knuth", ["analyse", "--pegs", "5", "--colors", "8", "--strategy", "knuth"], None, 2, False),
    (
        "tree 5×8 minimax-lex (peer: minmax)",
        ["analyse", "--pegs", "5", "--colors", "8", "--strategy", "minimax-lex"],
        ["-r", "lg", "-s", "minmax"],
        2,
        False,
    ),
    (
        "tree 5×8 entropy",
        ["analyse", "--pegs", "5", "--colors", "8", "--strategy", "entropy"],
        ["-r", "lg", "-s", "entropy"],
        2,
        False,
    ),
    (
        "tree 5×8 best (the shipped searched tree)",
        ["analyse", "--pegs", "5", "--colors", "8", "--strategy", "best"],
        None,
        2,
        False,
    ),
    ("optimal 4×7", ["optimal", "--pegs", "4", "--colors", "7"], ["-r", "p4c7r", "-s", "optimal"], 3, True),
    (
        "optimal 5×5 (searched, not the shipped tree)",
        ["optimal", "--pegs", "5", "--colors", "5", "--search"],
        ["-r", "p5c5r", "-s", "optimal"],
        3,
        True,
    ),
    (
        "tree Bulls and Cows minimax-lex (peer: minmax)",
        ["analyse", "--preset", "bulls-and-cows", "--strategy", "minimax-lex"],
        ["-r", "bc", "-s", "minmax"],
        3,
        False,
    ),
    (
        "tree Bulls and Cows entropy",
        ["analyse", "--preset", "bulls-and-cows", "--strategy", "entropy"],
        ["-r", "bc", "-s", "entropy"],
        3,
        False,
    ),
    (
        "tree Bulls and Cows optimal (shipped tree)",
        ["analyse", "--preset", "bulls-and-cows", "--strategy", "optimal"],
        None,
        3,
        False,
    ),
    (
        "optimal Bulls and Cows (searched)",
        ["optimal", "--preset", "bulls-and-cows", "--search"],
        ["-r", "bc", "-s", "optimal"],
        1,
        True,
    ),
]


def timed(command: list[str], threads: int | None = None, cwd: Path = ROOT) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MiB and standard output of one whole run
    (this project's compiled kernels on ``threads`` threads when given), in
    the directory ``cwd``."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if threads:
        env["NUMBA_NUM_THREADS"] = str(threads)
    started = time.perf_counter()  # finer than /usr/bin/time's hundredths; its own start-up is a millisecond
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], capture_output=True, text=True, cwd=cwd, env=env)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{command} failed: {result.stderr[-500:]}")
    kib = result.stderr.strip().splitlines()[-1]
    return seconds, int(kib) / 1024, result.stdout


def compile_app() -> None:
    """The app's modules compiled to bytecode, as `make` leaves them: no
    command timed here compiles them as it starts."""
    compileall.compile_dir(ROOT / "webapp", quiet=1)


def total_in(output: str) -> int | None:
    """The total of guesses in either program's table (the second column of its row)."""
    for line in output.splitlines():
        match = re.match(r"^(\S+)\s+(\d+)\s+\d", line)
        if match and match.group(1) not in ("Strategy",):
            return int(match.group(2))
    return None


def seconds_shown(seconds: float) -> str:
    """Hundredths of a second, or thousandths below one second."""
    return f"{seconds:.3f}" if seconds < 1 else f"{seconds:.2f}"


def span(times: list[float]) -> str:
    if len(times) == 1:
        return seconds_shown(times[0])
    return f"{seconds_shown(min(times))}–{seconds_shown(statistics.median(times))}"


def run(
    peer: str | None,
    slow: bool = False,
    only: str | None = None,
    threads: int | None = None,
    repeats: int | None = None,
) -> list[dict]:
    """Each job (those whose name contains ``only``), its own number of
    times unless ``repeats`` says how many."""
    rows = []
    for name, ours_args, peer_args, times, is_slow in JOBS:
        if (is_slow and not slow) or (only and only not in name):
            continue
        times = repeats or times
        ours, theirs = [], []
        ours_mem = theirs_mem = 0.0
        ours_total = theirs_total = None
        for _ in range(times):  # alternate, so a noisy moment hits both
            command = ours_args if ours_args[0] == sys.executable else [MASTERMIND, *ours_args]
            seconds, mib, out = timed(command, threads)
            ours.append(seconds)
            ours_mem = max(ours_mem, mib)
            ours_total = total_in(out)
            if peer and peer_args:
                seconds, mib, out = timed([peer, *peer_args, "-S", "-mt", str(threads or 1)])
                theirs.append(seconds)
                theirs_mem = max(theirs_mem, mib)
                theirs_total = total_in(out)
        row = {
            "job": name,
            "ours": ours,
            "ours_mib": ours_mem,
            "ours_total": ours_total,
            "peer": theirs,
            "peer_mib": theirs_mem,
            "peer_total": theirs_total,
        }
        rows.append(row)
        print_row(row, bool(peer))
    return rows


def header(with_peer: bool) -> None:
    line = f"{'job (whole process)':46} {'ours s':>12} {'ours MiB':>9} {'total':>7}"
    if with_peer:
        line += f" {'peer s':>12} {'peer MiB':>9} {'total':>7} {'time ratio':>10} {'memory ratio':>12}"
    print(line, flush=True)


def print_row(r: dict, with_peer: bool) -> None:
    total = "" if r["ours_total"] is None else str(r["ours_total"])
    line = f"{r['job']:46} {span(r['ours']):>12} {r['ours_mib']:9.0f} {total:>7}"
    if with_peer and r["peer"]:
        ratio = statistics.median(r["ours"]) / max(statistics.median(r["peer"]), 1e-3)
        memory = r["ours_mib"] / max(r["peer_mib"], 1e-3)
        peer_total = str(r["peer_total"])
        if r["ours_total"] is not None and r["peer_total"] != r["ours_total"]:
            peer_total += "*"  # a different tie rule: see the README
        line += f" {span(r['peer']):>12} {r['peer_mib']:9.1f} {peer_total:>7} {ratio:9.1f}× {memory:11.0f}×"
    print(line, flush=True)


def main(
    peer: str | None,
    slow: bool = False,
    only: str | None = None,
    threads: int | None = None,
    repeats: int | None = None,
) -> None:
    if peer and not os.access(peer, os.X_OK):
        raise SystemExit(f"--peer {peer}: not an executable file")
    compile_app()
    ours = f"both on {threads} thread(s)" if threads else "this project on every core (2 here), the peer on one thread"
    print(f"whole-process wall time (min–median of alternating runs) and peak RSS; {ours}")
    header(bool(peer))
    run(peer, slow, only, threads, repeats)
