"""The ``mastermind`` command's front door.

``mastermind analyse`` of a one-step strategy on a board of up to 10,000
codes is played here by the compiled tree library (:mod:`webapp.native`),
before anything else loads: numpy, numba, argparse and the engine take
longer to start than such a tree takes to grow. Every other command, and
any ``analyse`` the library does not play or whose options this door does
not read, goes to :mod:`webapp.cli`, the reference. The door reads a strict
subset of that command's options: each at most once, spelt in full
(``--pegs 4`` or ``--pegs=4``). The tests hold the two option lists
together and compare the two answers on every board and strategy.
"""

from __future__ import annotations

import os
import sys
import time

from . import figures, native
from .figures import DEFAULT_COLORS, DEFAULT_PEGS, SIZE_PRESETS

# The options of ``analyse`` this door reads: those with a value (its
# type), and the flags. ``--tree`` and ``--help`` are left to the command.
VALUES = {"--pegs": int, "--colors": int, "--preset": str, "--strategy": str, "--seed": int}
FLAGS = ("--distinct", "--distinct-guesses", "--json")


def read_options(items: list[str]) -> dict | None:
    """The options of ``analyse`` in ``items``, by name, when this door
    reads every one of them; else None."""
    options: dict = {}
    given = iter(items)
    for item in given:
        name, equals, value = item.partition("=")
        if name in options:
            return None
        if name in FLAGS and not equals:
            options[name] = True
        elif name in VALUES:
            text = value if equals else next(given, None)
            if text is None:
                return None
            try:
                options[name] = VALUES[name](text)
            except ValueError:
                return None
        else:
            return None
    return options


def board_of(options: dict) -> tuple[int, int, bool, bool] | None:
    """Pegs, colours, distinct, distinct guesses: a preset's, or the options'
    (None for an unknown preset)."""
    if "--preset" in options:
        return SIZE_PRESETS.get(options["--preset"])
    distinct_guesses = options.get("--distinct-guesses", False)
    # Guesses of different colours imply such a secret, as the engine's GameSize has it.
    distinct = options.get("--distinct", False) or distinct_guesses
    return options.get("--pegs", DEFAULT_PEGS), options.get("--colors", DEFAULT_COLORS), distinct, distinct_guesses


def quick_analysis(argv: list[str]) -> str | None:
    """What ``mastermind analyse`` prints for ``argv``, when the compiled
    library plays it; else None, having done nothing."""
    if not argv or argv[0] not in ("analyse", "analyze"):
        return None
    options = read_options(argv[1:])
    if options is None:
        return None
    lib = native.library()
    if lib is None:
        return None
    board = board_of(options)
    strategy = options.get("--strategy", lib.default_strategy)
    if board is None or not lib.plays(*board, strategy):
        return None
    threads = native.thread_count()
    if threads is None:
        return None
    started = time.perf_counter()
    played = native.whole_tree(*board, strategy, threads=threads)
    if played is None:
        return None
    seconds = time.perf_counter() - started
    pegs, colors, distinct, distinct_guesses = board
    size = {"pegs": pegs, "colors": colors, "distinct": distinct, "distinct_guesses": distinct_guesses}
    first = figures.code_text(played.first_guess, pegs, colors)
    summary = figures.summary(size, strategy, played.depths, first, seconds)
    most = summary["max"]
    worst = [figures.code_text(code, pegs, colors) for code, d in zip(played.secrets, played.depths) if d == most]
    label = figures.size_label(*board)
    return figures.analysis_text(options.get("--json", False), label, len(played.secrets), [summary], [(most, worst)])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        text = quick_analysis(argv)
    except KeyboardInterrupt:
        print("mastermind: interrupted", file=sys.stderr)
        return 130
    if text is None:
        from .cli import main as command

        return command(argv)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader (head, less) stopped early: not an error, as in the whole command
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
