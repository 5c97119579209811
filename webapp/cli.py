"""The ``mastermind`` command: whole-game analysis, suggestions, adversary lines
and the exact optimum.

    mastermind analyse --pegs 4 --colors 6 --strategy all
    mastermind suggest --pegs 4 --colors 6 --strategy knuth 1122:1,0 3456:0,2
    mastermind line --strategy knuth --adversary deepest
    mastermind bound --pegs 5 --colors 8
    mastermind improve --pegs 5 --colors 8 --scheduler tcp://10.0.0.5:8786
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .figures import DEFAULT_COLORS, DEFAULT_PEGS, SIZE_PRESETS, analysis_text, format_table

if TYPE_CHECKING:
    from .engine import GameSize

# The engine (numpy, numba) loads in the commands that use it, not here.


def worded(exc: Exception) -> str:
    """An error as a sentence (the engine states facts; ``webapp.words``
    words them, in English here)."""
    from .words import error_words

    return error_words(exc)


class UsageError(Exception):
    """Bad arguments: reported in one line, exit status 2."""


class InternalError(Exception):
    """A check of the engine's own work failed (a bug, not the user's
    mistake): reported in one line, exit status 1."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


class Progress:
    """Progress of long work on stderr. On a terminal, a bar (tqdm) that
    appears once the work has taken ``delay`` seconds; anywhere else (a log
    file, a pipe) a plain line every ``every`` seconds, so that a captured
    stderr holds a few readable lines rather than a stream of carriage
    returns. Called as ``progress(done, total, **figures)``; ``total`` may be
    None when it is not known. ``clock`` is for tests."""

    def __init__(
        self,
        label: str,
        unit: str = "",
        stream=None,
        delay: float = 1.0,
        every: float = 5.0,
        clock=time.monotonic,
    ):
        self.label, self.unit, self.delay, self.every, self.clock = label, unit, delay, every, clock
        self.stream = stream or sys.stderr
        self.started = clock()
        self.last = self.started
        self.lines = 0
        self.bar: Any = None
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int | None, **figures) -> None:
        if self.terminal:
            self._bar(done, total, figures)
            return
        now = self.clock()
        if now - self.started < self.delay or now - self.last < self.every:
            return
        self.last = now
        self.stream.write(self.line(done, total, figures, now - self.started) + "\n")
        self.stream.flush()
        self.lines += 1

    def line(self, done: int, total: int | None, figures: dict, seconds: float) -> str:
        """One plain progress line: ``label: done of total unit (share), figures, time``."""
        unit = f" {self.unit}" if self.unit else ""
        parts = [f"{done:,} of {total:,}{unit} ({done / total:.0%})" if total else f"{done:,}{unit}"]
        parts += [f"{key.replace('_', ' ')} {value:,}" for key, value in figures.items()]
        return f"{self.label}: " + ", ".join(parts) + f", {seconds:.0f} s"

    def _bar(self, done: int, total: int | None, figures: dict) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                desc=self.label,
                unit=f" {self.unit}" if self.unit else "it",
                file=self.stream,
                delay=self.delay,
                leave=True,
                dynamic_ncols=True,
                unit_scale=False,
            )
        if total is not None and self.bar.total != total:
            self.bar.total = total
        if figures:
            self.bar.set_postfix({k.replace("_", " "): f"{v:,}" for k, v in figures.items()}, refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def size_from(args) -> GameSize:
    from .engine import GameSize

    if args.preset is not None:
        return GameSize(*SIZE_PRESETS[args.preset])
    return GameSize(args.pegs, args.colors, args.distinct, args.distinct_guesses)


def size_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pegs", type=int, default=DEFAULT_PEGS, help=f"pegs in a code (2-6, default {DEFAULT_PEGS})")
    p.add_argument(
        "--colors",
        type=int,
        default=DEFAULT_COLORS,
        help=f"colours (2-10, default {DEFAULT_COLORS}; the tenth is written 0)",
    )
    p.add_argument("--distinct", action="store_true", help="the secret uses different colours")
    p.add_argument(
        "--distinct-guesses", action="store_true", help="every guess uses different colours too (implies --distinct)"
    )
    p.add_argument(
        "--preset",
        choices=sorted(SIZE_PRESETS),
        help="a named game: bulls-and-cows is --pegs 4 --colors 10 --distinct --distinct-guesses",
    )


def strategy_names(name: str) -> list[str]:
    from .engine import PRESETS

    if name == "all":
        return list(PRESETS)
    if name not in PRESETS:
        raise UsageError(f"unknown strategy '{name}'; choose one of: all, {', '.join(PRESETS)}")
    return [name]


def cmd_analyse(args, out) -> None:
    from .engine import MastermindError, analyse
    from .engine.optimal import search_workers
    from .engine.tables import feedback_table
    from .engine.tree import check_analysable

    size = size_from(args)
    names = strategy_names(args.strategy)
    check_analysable(size)
    progress = Progress(f"feedback table {size.label()}", "rows")
    feedback_table(size, progress=progress)
    progress.close()
    summaries, worst = [], []
    for name in names:
        progress = Progress(f"{name:>11} {size.label()}", "secrets")
        try:
            # Every core (NUMBA_NUM_THREADS sets fewer): a large tree shares its first classes with a fork.
            result = analyse(name, size, seed=args.seed, progress=progress, processes=search_workers())
        except MastermindError as exc:
            if len(names) == 1:
                raise
            progress.close()
            print(f"mastermind: skipping {name}: {worded(exc)}", file=sys.stderr)
            continue
        progress.close()
        summaries.append(result.summary())
        worst.append((result.max, [str(code) for code in result.worst_secrets()]))
        if args.tree:
            with open(args.tree if len(names) == 1 else f"{args.tree}.{name}.json", "w") as fh:
                json.dump(result.export(), fh)
    out.write(analysis_text(args.json, size.label(), len(result.depths), summaries, worst))


def cmd_suggest(args, out) -> None:
    from .engine import best_guess, get_strategy
    from .engine.codes import parse_history

    size = size_from(args)
    (name,) = strategy_names(args.strategy)
    history = parse_history(args.history, size)
    import numpy as np

    rng = np.random.default_rng(args.seed) if get_strategy(name).random else None  # numpy.random only for it
    suggestion = best_guess(name, size, history, rng=rng)
    if args.json:
        json.dump(
            {
                "strategy": name,
                "guess": str(suggestion.guess),
                "score": suggestion.score,
                "remaining": suggestion.remaining,
                "partition": {r.key: n for r, n in sorted(suggestion.partition.items())},
            },
            out,
            indent=2,
        )
        out.write("\n")
        return
    score = ", ".join(f"{k}: {v}" for k, v in suggestion.score.items()) or "no score"
    out.write(f"{suggestion.remaining} codes remain. {name} guesses {suggestion.guess} ({score}).\n")
    parts = "  ".join(f"{r.key}:{n}" for r, n in sorted(suggestion.partition.items()))
    out.write(f"Partition: {parts}\n")


def cmd_line(args, out) -> None:
    from .engine.lines import adversary_line, codebreaker

    size = size_from(args)
    strategy = codebreaker(args.strategy)
    line = adversary_line(strategy, size, args.adversary)
    if args.json:
        json.dump(line.json(), out, indent=2)
        out.write("\n")
        return
    out.write(f"{size.label()}: {strategy.name} against the {args.adversary} adversary, {len(line.rows)} guesses\n")
    for number, row in enumerate(line.rows, start=1):
        out.write(f"{number:3}  {row.guess}  {row.reply.key}  {row.remaining:>6,} left\n")


def search_progress(stream=None, **options) -> Progress:
    """Progress of an exact search: nodes searched so far (no total is known)."""
    return Progress("searching", "nodes", stream, **options)


def write_summary(out, as_json: bool, summary: dict, title: str, after: str = "") -> None:
    """A searched tree's figures: JSON, or a title, the table and ``after``."""
    if as_json:
        json.dump([summary], out, indent=2)
        out.write("\n")
        return
    out.write(f"{title}\n\n{format_table([summary])}\n{after}")


def fanout_of(args, default_workers: int):
    """The Dask cluster the subtree searches fan out on (``--scheduler``, or
    a local one of ``--workers`` processes), or none for ``--workers 0``."""
    from .engine.fanout import cluster

    if args.scheduler:
        return cluster(args.scheduler)
    workers = default_workers if args.workers is None else args.workers
    if workers < 0:
        raise UsageError("--workers must be 0 or more")
    return cluster(workers=workers) if workers else contextlib.nullcontext(None)


def cluster_arguments(parser, default: str) -> None:
    parser.add_argument(
        "--scheduler", metavar="ADDRESS", help="fan the subtree searches out on this Dask cluster (tcp://host:8786)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help=f"fan them out on a local Dask cluster of N processes; 0: this process alone (default: {default})",
    )


def cmd_optimal(args, out) -> None:
    from .engine import Strategy, analyse
    from .engine.codes import MAX_GUESSES, MIN_GUESSES
    from .engine.optimal import STATS, OptimalSolver, decode_tree, searchable, shipped, tree_chooser, tree_document
    from .engine.tree import check_analysable

    if args.table:
        optimal_table(args.json, out)
        return
    size = size_from(args)
    if args.max_guesses is not None and not MIN_GUESSES <= args.max_guesses <= MAX_GUESSES:
        raise UsageError(f"--max-guesses must be from {MIN_GUESSES} to {MAX_GUESSES}")
    if not (args.search or args.data or args.candidates_only) and shipped(size, args.max_guesses):
        optimal_shipped(args, size, out)
        return
    # A cluster takes boards too large for one machine's search (5 x 6, say).
    clustered = bool(args.scheduler or args.workers or args.checkpoint)
    if clustered:
        check_analysable(size)
    solver = OptimalSolver(size, args.max_guesses, args.candidates_only, offline=clustered and not searchable(size))
    progress = search_progress()
    started = time.perf_counter()
    # This process's threads by default (one machine shares one table); a
    # Dask cluster with --scheduler or --workers, or to keep a --checkpoint.
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    guesses = None
    with fanout_of(args, default_workers=(os.cpu_count() or 1) if args.checkpoint else 0) as fanout:
        total = solver.total(
            progress=lambda stats, _seconds: progress(int(stats[0]), None, guesses_expanded=int(stats[2])),
            fanout=fanout,
            checkpoint=checkpoint,
        )
        progress.close()
        if fanout is not None and total is not None:
            # The tree too is built on the cluster, a class of the first guess per job.
            building = Progress("building the tree", "classes")
            guesses = solver.tree_guesses(fanout, checkpoint, report=lambda done, classes: building(done, classes))
            building.close()
    seconds = time.perf_counter() - started
    name = (
        "optimal"
        + (f" (max {args.max_guesses})" if args.max_guesses else "")
        + (", candidates only" if args.candidates_only else "")
    )
    stats = dict(zip(STATS, (int(v) for v in solver.stats)))
    if total is None:
        if args.json:
            json.dump(
                [
                    {
                        **size.params(),
                        "strategy": name,
                        "max_guesses": args.max_guesses,
                        "feasible": False,
                        "seconds": round(seconds, 4),
                        "search": stats,
                    }
                ],
                out,
                indent=2,
            )
            out.write("\n")
        else:
            out.write(
                f"No strategy finds every secret of {size.label()} within "
                f"{args.max_guesses} guesses{' using candidates only' if args.candidates_only else ''}.\n"
            )
        return
    chooser = (
        tree_chooser(decode_tree(size, guesses))
        if guesses is not None
        else lambda _size, cands, played, depth: solver.choose(cands, played, depth)
    )
    strategy = Strategy(name, "Exact optimum.", "this project", chooser=chooser)
    result = analyse(strategy, size, table=solver.table)
    summary = result.summary()
    summary["seconds"] = round(seconds, 4)
    summary["max_guesses"] = args.max_guesses
    summary["search"] = stats
    if result.total != total:  # the tree must realise the searched total
        raise InternalError(f"tree total {result.total} differs from {total}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(result.export(), fh)
    if args.data:
        with open(args.data, "w") as fh:
            json.dump(tree_document(solver, total, guesses, args.checkpoint), fh, separators=(",", ":"))
            fh.write("\n")
    write_summary(
        out,
        args.json,
        summary,
        f"{size.label()}: {name}, searched in {seconds:.2f}s",
        "\nSearch: " + ", ".join(f"{k} {v:,}" for k, v in stats.items()) + "\n",
    )


def optimal_shipped(args, size, out) -> None:
    """``mastermind optimal`` where the engine ships the answer: the stored
    tree (which this command's search wrote), replayed against every secret
    and checked against its stored total; no search."""
    from .engine import Strategy, analyse
    from .engine.optimal import data_name, shipped_choices, shipped_document, tree_chooser

    started = time.perf_counter()
    document, choices = shipped_document(size, args.max_guesses), shipped_choices(size, args.max_guesses)
    assert document is not None and choices is not None  # shipped(size, max_guesses)
    name = "optimal" + (f" (max {args.max_guesses})" if args.max_guesses else "")
    strategy = Strategy(name, "Exact optimum.", "this project", chooser=tree_chooser(choices))
    result = analyse(strategy, size)
    if result.total != document["total"]:
        raise InternalError(f"tree total {result.total} differs from {document['total']}")
    seconds = time.perf_counter() - started
    summary = result.summary()
    summary["seconds"] = round(seconds, 4)
    summary["max_guesses"] = args.max_guesses
    summary["source"] = f"webapp/engine/data/{data_name(size, args.max_guesses)}"
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(result.export(), fh)
    write_summary(
        out,
        args.json,
        summary,
        f"{size.label()}: {name}, read from {summary['source']} in {seconds:.2f}s",
        "\nThe tree ships with the engine (found by this command's search); --search searches again.\n",
    )


def optimal_table(as_json: bool, out) -> None:
    """``mastermind optimal --table``: every board whose exact tree ships,
    its figures replayed from the tree, as a Markdown table or JSON."""
    from .engine import Code
    from .engine.optimal import shipped_optima

    def source(row) -> str:
        if row.published_by is not None:
            return f"published by {row.published_by} and reproduced"
        return "computed here first" if row.first_here else "computed here"

    rows = shipped_optima()
    if as_json:
        json.dump(
            [
                {
                    "pegs": row.size.pegs,
                    "colors": row.size.colors,
                    "distinct": row.size.distinct,
                    "distinct_guesses": row.size.distinct_guesses,
                    "codes": row.secrets,
                    "total": row.total,
                    "mean": round(row.total / row.secrets, 4),
                    "worst": row.worst,
                    "first_guess": str(Code.from_index(row.first_guess, row.size)),
                    **({} if row.within_one_fewer is None else {"within_one_fewer": row.within_one_fewer}),
                    "source": source(row),
                }
                for row in rows
            ],
            out,
            indent=2,
        )
        out.write("\n")
        return
    out.write(
        "| pegs | colours | distinct secret | distinct guesses | secrets | total | mean | worst | first guess "
        "| within one guess fewer | source |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    for row in rows:
        cells = [
            str(row.size.pegs),
            str(row.size.colors),
            "yes" if row.size.distinct else "no",
            "yes" if row.size.distinct_guesses else "no",
            f"{row.secrets:,}",
            f"{row.total:,}",
            f"{row.total / row.secrets:.4f}",
            str(row.worst),
            str(Code.from_index(row.first_guess, row.size)),
            "" if row.within_one_fewer is None else f"{row.within_one_fewer:,} within {row.worst - 1}",
            source(row),
        ]
        out.write("| " + " | ".join(cells) + " |\n")


def cmd_improve(args, out) -> None:
    from .engine import Strategy, analyse
    from .engine.improve import Improver
    from .engine.tree import check_analysable

    size = size_from(args)
    check_analysable(size)
    if args.small < 2 or args.width < 1:
        raise UsageError("--small must be at least 2 and --width at least 1")
    if args.deep and args.deep <= args.small:
        raise UsageError("--deep must be larger than --small")
    if args.exact and args.exact <= args.small:
        raise UsageError("--exact must be larger than --small")
    if args.exact_nodes < 1:
        raise UsageError("--exact-nodes must be at least 1")
    progress = Progress("improving", "codes placed", every=args.every)
    started = time.perf_counter()
    with fanout_of(args, default_workers=os.cpu_count() or 1) as fanout:
        improver = Improver(
            size,
            small=args.small,
            width=args.width,
            deep=args.deep or 0,
            exact=args.exact or 0,
            exact_nodes=args.exact_nodes,
            checkpoint=Path(args.checkpoint) if args.checkpoint else None,
            report=lambda placed, codes, current, _seconds: progress(placed, codes, current_total=current),
            fanout=fanout,
        )
        total = improver.run()
        progress.close()
        if improver.exact_limit > improver.small:
            polishing = Progress("polishing", "codes placed", every=args.every)
            improver.report = lambda placed, codes, current, _seconds: polishing(placed, codes, current_total=current)
            total = improver.polish(total)
            polishing.close()
    seconds = time.perf_counter() - started
    document = improver.document(total)
    # The tree must realise the total: replay it against every secret.
    from .engine.optimal import decode_tree, tree_chooser

    strategy = Strategy(
        "best", "Searched tree.", "this project", chooser=tree_chooser(decode_tree(size, document["guesses"]))
    )
    result = analyse(strategy, size, table=improver.table)
    if result.total != total:
        raise InternalError(f"tree total {result.total} differs from {total}")
    document["max"] = result.max
    document["histogram"] = {str(k): v for k, v in result.histogram.items()}
    if args.data:
        with open(args.data, "w") as fh:
            json.dump(document, fh, separators=(",", ":"))
            fh.write("\n")
    if args.tree:
        with open(args.tree, "w") as fh:
            json.dump(result.export(), fh)
    summary = result.summary()
    summary["seconds"] = round(seconds, 1)
    summary["method"] = document["method"]
    write_summary(out, args.json, summary, f"{size.label()}: improved tree, searched in {seconds:.0f}s")


def cmd_bound(args, out) -> None:
    from .engine.bound import lower_bound
    from .engine.tree import check_analysable

    size = size_from(args)
    check_analysable(size)
    if args.levels not in (1, 2, 3) or (args.effort is not None and args.effort < 1):
        raise UsageError("--levels must be 1, 2 or 3 and --effort at least 1")
    progress = Progress("bounding", "classes")
    started = time.perf_counter()
    bound = lower_bound(size, args.levels, args.effort, progress=progress)
    seconds = time.perf_counter() - started
    progress.close()
    from .engine.codes import secret_indices

    secrets = len(secret_indices(size))
    if args.json:
        json.dump(
            {
                **size.params(),
                "lower_bound": bound.total,
                "mean_at_least": round(bound.total / secrets, 6),
                "counting_bound": bound.counting,
                "branching": bound.branching,
                "levels": bound.levels,
                "effort": bound.effort,
                "every_minimum_complete": bound.exact,
                "seconds": round(seconds, 1),
                "first_guesses": [
                    {
                        "guess": str(first.guess),
                        "classes": first.classes,
                        "counting": first.counting,
                        "two_levels": first.second,
                        "three_levels": first.third,
                        "complete": first.exact,
                    }
                    for first in bound.first_guesses
                ],
            },
            out,
            indent=2,
        )
        out.write("\n")
        return
    depth = {1: "by counting", 2: "over every second guess", 3: "over every second and third guess"}[bound.levels]
    out.write(
        f"{size.label()}: every strategy needs at least {bound.total:,} guesses in total for the {secrets:,} "
        f"secrets (a mean of at least {bound.total / secrets:.4f}), bounded {depth}; "
        f"worked out in {seconds:.0f}s.\n\n"
    )
    head = ["First guess", "Classes", "Counting", "2 levels", "3 levels"][
        : 3 + (bound.levels >= 2) + (bound.levels == 3)
    ]
    rows = [
        [str(f.guess), str(f.classes), f"{f.counting:,}", f"{f.second:,}", "" if f.third is None else f"{f.third:,}"][
            : len(head)
        ]
        for f in bound.first_guesses
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for row in [head, ["-" * w for w in widths], *rows]:
        out.write("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) + "\n")
    out.write(
        f"\nCounting alone gives {bound.counting:,}: at most one secret is found at the first guess, and each "
        f"of the {bound.branching} replies other than all black leads to one next guess, so at most "
        f"{bound.branching}^(d-1) secrets are found at guess d.\n"
        "Here every first guess (one per pattern) splits the secrets by reply, each class counts at its best "
        "next guess, whose classes count the same way a level down, and at counting below the last level. "
        "The bound is the smallest total over first guesses"
        + ("; a blank means the level above already reaches it" if bound.levels == 3 else "")
        + (
            "; some minimum was cut short by --effort (its untried guesses count one level up)"
            if not bound.exact
            else ""
        )
        + ". The proof: docs/lower-bound.md.\n"
    )


def common_arguments(p: argparse.ArgumentParser, default_strategy: str) -> None:
    size_arguments(p)
    p.add_argument("--strategy", default=default_strategy, help=f"a strategy name (default {default_strategy})")
    p.add_argument("--seed", type=int, default=0, help="seed of the random strategy")
    p.add_argument("--json", action="store_true", help="print JSON")


def analyse_arguments(p: argparse.ArgumentParser, default_strategy: str) -> None:
    common_arguments(p, default_strategy)
    p.add_argument("--tree", metavar="FILE", help="also write the decision tree as JSON")


def build_parser() -> Parser:
    from .engine import DEFAULT_STRATEGY
    from .engine.lines import ADVERSARIES
    from .engine.optimal import EXACT_NODES

    parser = Parser(prog="mastermind", description="Mastermind strategies from the command line.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    def common(p):
        common_arguments(p, DEFAULT_STRATEGY)

    analyse_p = sub.add_parser("analyse", aliases=["analyze"], help="play every secret")
    analyse_arguments(analyse_p, DEFAULT_STRATEGY)
    analyse_p.set_defaults(run=cmd_analyse)

    suggest_p = sub.add_parser("suggest", help="the next guess after a history")
    common(suggest_p)
    suggest_p.add_argument("history", nargs="*", help="GUESS:BLACK,WHITE items, e.g. 1122:1,0")
    suggest_p.set_defaults(run=cmd_suggest)

    line_p = sub.add_parser("line", help="the optimal-game line against an adversary")
    common(line_p)
    line_p.set_defaults(strategy="best-candidate")
    line_p.add_argument(
        "--adversary",
        choices=list(ADVERSARIES),
        default="greedy",
        help="greedy keeps the most codes; deepest follows the longest branch",
    )
    line_p.set_defaults(run=cmd_line)

    optimal_p = sub.add_parser("optimal", help="the exact optimal strategy")
    size_arguments(optimal_p)
    optimal_p.add_argument(
        "--max-guesses", type=int, metavar="K", help="never more than K guesses (optimal worst case)"
    )
    optimal_p.add_argument("--candidates-only", action="store_true", help="guess only codes that could be the secret")
    optimal_p.add_argument("--json", action="store_true", help="print JSON")
    optimal_p.add_argument("--out", metavar="FILE", help="write the tree as JSON (like analyse --tree)")
    optimal_p.add_argument("--data", metavar="FILE", help="write the compact tree the app ships (implies --search)")
    optimal_p.add_argument(
        "--search", action="store_true", help="search even where the engine ships the optimal tree for this size"
    )
    optimal_p.add_argument(
        "--checkpoint", metavar="FILE", help="keep finished subtrees here (on a Dask cluster); a later run continues"
    )
    optimal_p.add_argument(
        "--table", action="store_true", help="the table of every shipped exact optimum, replayed from its tree"
    )
    cluster_arguments(optimal_p, "0, or every core with --checkpoint")
    optimal_p.set_defaults(run=cmd_optimal)

    improve_p = sub.add_parser(
        "improve", help="search a better tree than any heuristic (an entropy rollout, exact endgames)"
    )
    size_arguments(improve_p)
    improve_p.add_argument(
        "--small", type=int, default=20, metavar="N", help="solve positions of at most N codes exactly (default 20)"
    )
    improve_p.add_argument(
        "--width", type=int, default=6, metavar="K", help="guesses weighed at each larger position (default 6)"
    )
    improve_p.add_argument(
        "--deep",
        type=int,
        metavar="M",
        help="weigh classes of at most M codes by their own rollout, not the entropy rule's (a nested rollout)",
    )
    improve_p.add_argument(
        "--exact",
        type=int,
        metavar="E",
        help="then solve each position of the tree with at most E codes exactly where that does better",
    )
    improve_p.add_argument(
        "--exact-nodes",
        type=int,
        default=EXACT_NODES,
        metavar="N",
        help=f"positions the exact search may visit for each position polished (default {EXACT_NODES:,})",
    )
    improve_p.add_argument("--checkpoint", metavar="FILE", help="keep what is learned here; a later run continues")
    improve_p.add_argument("--data", metavar="FILE", help="write the compact tree the app ships")
    improve_p.add_argument("--tree", metavar="FILE", help="write the tree as JSON (like analyse --tree)")
    improve_p.add_argument("--every", type=float, default=5.0, help=argparse.SUPPRESS)
    improve_p.add_argument("--json", action="store_true", help="print JSON")
    cluster_arguments(improve_p, "every core")
    improve_p.set_defaults(run=cmd_improve)
    bound_p = sub.add_parser("bound", help="a proven lower bound on the optimal total")
    size_arguments(bound_p)
    bound_p.add_argument(
        "--levels", type=int, default=3, metavar="K", help="bound over the best guesses K deep (1-3, default 3)"
    )
    bound_p.add_argument(
        "--effort",
        type=int,
        metavar="N",
        help="at the third level, try at most N second guesses per class (quicker; still a bound)",
    )
    bound_p.add_argument("--json", action="store_true", help="print JSON")
    bound_p.set_defaults(run=cmd_bound)
    puzzles_p = sub.add_parser("puzzles", help="best-guess puzzles")
    puzzles_sub = puzzles_p.add_subparsers(dest="action", required=True, parser_class=Parser)
    generate_p = puzzles_sub.add_parser("generate", help="make a set of puzzles, every one checked exactly")
    generate_p.add_argument("--count", type=int, default=2000, help="how many puzzles (default 2000)")
    generate_p.add_argument("--seed", type=int, default=0, help="the first game's seed (default 0)")
    generate_p.add_argument(
        "--out",
        default=str(Path(__file__).parent / "engine" / "data" / "puzzles.jsonl.gz"),
        help="the set file (default: the set the app ships)",
    )
    generate_p.add_argument("--json", action="store_true", help="print JSON")
    generate_p.set_defaults(run=cmd_puzzles)
    merge_p = puzzles_sub.add_parser(
        "merge", help="join sets (runs made side by side), one puzzle per position, rated afresh"
    )
    merge_p.add_argument("sets", nargs="+", help="set files (.jsonl, .jsonl.gz, or a run's .partial)")
    merge_p.add_argument("--out", required=True, help="the set file to write")
    merge_p.add_argument("--json", action="store_true", help="print JSON")
    merge_p.set_defaults(run=cmd_puzzles_merge)
    return parser


def cmd_puzzles(args, out) -> None:
    """Generate a set of best-guess puzzles, resumable: the puzzles made so
    far are kept in ``<out>.partial`` (one per line) until the set is whole."""
    from pathlib import Path

    from .engine import puzzles

    if args.count < 1:
        raise UsageError("--count must be at least 1")
    target = Path(args.out)
    partial = target.with_name(target.name + ".partial")
    made = puzzles.read_set(partial) if partial.exists() else []
    seen = {p.key for p in made}
    forms = {(p.size, puzzles.canonical(p.size, p.history)) for p in made}
    start = max((p.seed for p in made), default=args.seed - 1) + 1
    progress = Progress("puzzles", "puzzles")
    examined = {"examined": 0}

    def heard(puzzle, _seed, _reason) -> None:
        examined["examined"] += 1
        progress(len(made), args.count, positions_examined=examined["examined"])

    before = len(made)
    started = time.perf_counter()
    with partial.open("a", encoding="utf-8") as kept:
        for puzzle in puzzles.generate(args.count - len(made), start, seen, progress=heard, forms=forms):
            made.append(puzzle)
            kept.write(json.dumps(puzzle.json(), sort_keys=True) + "\n")
            kept.flush()
    progress.close()
    seconds = time.perf_counter() - started
    puzzles.write_set(target, made)
    partial.unlink()
    summary = {
        "puzzles": len(made),
        "examined": examined["examined"],
        "accepted": round((len(made) - before) / examined["examined"], 3) if examined["examined"] else None,
        "seconds": round(seconds, 1),
        "out": str(target),
    }
    if args.json:
        json.dump(summary, out)
        out.write("\n")
    else:
        rate = (
            f"{summary['accepted']:.0%} of positions examined" if summary["accepted"] is not None else "none examined"
        )
        out.write(f"{len(made):,} puzzles in {target} (this run: {rate}, {seconds:.0f} s)\n")


def cmd_puzzles_merge(args, out) -> None:
    """Join puzzle sets: one puzzle of each position, every first rating
    worked out again by today's rule; says how the ratings spread."""
    from pathlib import Path

    from .engine import puzzles

    sets = []
    for name in args.sets:
        if not Path(name).exists():
            raise UsageError(f"there is no set file {name}")
        sets.append(puzzles.read_set(Path(name)))
    made = puzzles.merged(sets)
    puzzles.write_set(Path(args.out), made)
    ratings = sorted(p.rating for p in made)
    boards: dict[str, int] = {}
    for p in made:
        boards[p.size.label()] = boards.get(p.size.label(), 0) + 1
    summary = {
        "read": sum(len(s) for s in sets),
        "puzzles": len(made),
        "lowest": ratings[0] if ratings else None,
        "median": ratings[len(ratings) // 2] if ratings else None,
        "highest": ratings[-1] if ratings else None,
        "above_1800": round(sum(r > 1800 for r in ratings) / len(ratings), 3) if ratings else None,
        "boards": boards,
        "out": args.out,
    }
    if args.json:
        json.dump(summary, out)
        out.write("\n")
    else:
        out.write(
            f"{len(made):,} different positions of {summary['read']:,} puzzles read, in {args.out}; ratings "
            f"{summary['lowest']} to {summary['highest']} (median {summary['median']}), "
            f"{summary['above_1800']:.1%} above 1,800\n"
        )


def keep_freed_memory() -> None:
    """Let this process reuse the memory it frees. By default glibc hands a
    freed block of more than 128 KiB back to the system and maps a fresh one
    for the next, so every large numpy temporary of a tree (the replies of a
    position, their keys) pays its page faults again: 0.01-0.03 s of a
    command on a board of a few thousand codes. Blocks of up to 32 MiB now
    come from the heap, which keeps up to 256 MiB of freed memory. Nothing
    happens where the C library has no ``mallopt``."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return
    mallopt(-3, 32 * 2**20)  # M_MMAP_THRESHOLD
    mallopt(-1, 256 * 2**20)  # M_TRIM_THRESHOLD


def engine_error() -> type[Exception]:
    """The engine's error for bad input (the engine loads only if something failed)."""
    from .engine import MastermindError

    return MastermindError


def main(argv=None, out=None) -> int:
    out = out or sys.stdout
    keep_freed_memory()
    try:
        args = build_parser().parse_args(argv)
        args.run(args, out)
    except (UsageError, engine_error()) as exc:
        print(f"mastermind: error: {worded(exc)}", file=sys.stderr)
        return 2
    except InternalError as exc:
        print(f"mastermind: internal error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mastermind: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader (head, less) stopped early: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
