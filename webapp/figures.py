"""A whole game's figures, and how boards, codes and the command line's
tables of figures are written, in plain Python: the engine's analysis
(:class:`webapp.engine.tree.Analysis`) and the command line report through
here.
"""

from __future__ import annotations

import math

# A board's limits (``GameSize`` checks them), and the tenth colour, written 0.
MIN_PEGS, MAX_PEGS = 2, 6
MIN_COLORS, MAX_COLORS = 2, 10
TENTH = 10
# The command line's boards: ``--preset bulls-and-cows`` stands for its size
# options (pegs, colours, distinct, distinct guesses); and the defaults.
SIZE_PRESETS = {"bulls-and-cows": (4, 10, True, True)}
DEFAULT_PEGS, DEFAULT_COLORS = 4, 6


def peg_digit(peg: int) -> str:
    """How a colour (numbered from 1) is written: its number, and 0 for the tenth."""
    return "0" if peg == TENTH else str(peg)


def code_pegs(index: int, pegs: int, colors: int) -> tuple[int, ...]:
    """The colours (numbered from 1) of the code at ``index`` in ascending
    order (``1111`` is 0).

    >>> code_pegs(7, 4, 6)
    (1, 1, 2, 2)
    """
    colours = []
    for _ in range(pegs):
        index, digit = divmod(int(index), colors)
        colours.append(digit + 1)
    return tuple(reversed(colours))


def code_text(index: int, pegs: int, colors: int) -> str:
    """The code at ``index``, written out.

    >>> code_text(7, 4, 6), code_text(123, 4, 10)
    ('1122', '1234')
    """
    return "".join(peg_digit(peg) for peg in code_pegs(index, pegs, colors))


def is_bulls_and_cows(pegs: int, colors: int, distinct_guesses: bool) -> bool:
    """Bulls and Cows: four different digits 0-9, every guess too."""
    return (pegs, colors, distinct_guesses) == (4, 10, True)


def size_label(pegs: int, colors: int, distinct: bool, distinct_guesses: bool) -> str:
    """A short name such as ``4×6``, ``4×6 distinct``, ``4×7 distinct
    guesses``, or ``Bulls and Cows``."""
    if is_bulls_and_cows(pegs, colors, distinct_guesses):
        return "Bulls and Cows"
    rule = " distinct guesses" if distinct_guesses else " distinct" if distinct else ""
    return f"{pegs}×{colors}{rule}"


def summary(size: dict, strategy: str, depths: list[int], first_guess: str, seconds: float) -> dict:
    """The JSON figures of a strategy's whole game (``size``: the board's
    parameters), from the guesses each secret needs. The standard deviation
    is the population's, worked out exactly before its one rounding.

    >>> s = summary({"pegs": 2}, "knuth", [1, 2, 2, 3], "12", 0.5)
    >>> s["total"], s["mean"], s["stddev"], s["histogram"]
    (8, 2.0, 0.707107, {'1': 1, '2': 2, '3': 1})
    """
    n, total = len(depths), sum(depths)
    squares = sum(d * d for d in depths)
    histogram: dict[str, int] = {}
    for depth in sorted(depths):
        histogram[str(depth)] = histogram.get(str(depth), 0) + 1
    return {
        **size,
        "strategy": strategy,
        "total": total,
        "mean": round(total / n, 6),
        "stddev": round(math.sqrt((n * squares - total * total) / (n * n)), 6),
        "max": max(depths),
        "first_guess": first_guess,
        "histogram": histogram,
        "seconds": round(seconds, 4),
    }


def format_table(summaries: list[dict]) -> str:
    """The comparison table: Strategy, Total, Mean, StdDev, First guess, Max,
    then a column per number of guesses."""
    depth = max(int(k) for s in summaries for k in s["histogram"])
    head = ["Strategy", "Total", "Mean", "StdDev", "First guess", "Max"] + [str(k) for k in range(1, depth + 1)]
    rows = [
        [s["strategy"], str(s["total"]), f"{s['mean']:.4f}", f"{s['stddev']:.4f}", s["first_guess"], str(s["max"])]
        + [str(s["histogram"].get(str(k), "")) for k in range(1, depth + 1)]
        for s in summaries
    ]
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def analysis_text(as_json: bool, label: str, secrets: int, summaries: list[dict], worst: list) -> str:
    """What ``mastermind analyse`` prints: the strategies' figures as JSON,
    or a title and the table, and for one strategy its worst case (``worst``:
    each strategy's most guesses and the secrets that need them)."""
    if as_json:
        import json

        return json.dumps(summaries, indent=2) + "\n"
    text = f"{label}: every secret played ({secrets:,} secrets)\n\n" + format_table(summaries) + "\n"
    if len(summaries) == 1:
        depth, codes = worst[0]
        shown = " ".join(codes[:12]) + (" …" if len(codes) > 12 else "")
        secrets_word = "secret" if len(codes) == 1 else "secrets"
        text += f"\nWorst case, {depth} guesses, for {len(codes)} {secrets_word}: {shown}\n"
    return text
