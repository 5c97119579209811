"""The solver's pages: the optimal game replayed against an adversary, and
Knuth's algorithm (or any strategy) stepped through in the classroom.

Every view's URL carries its whole state, so a copied link reopens exactly
what was on screen; htmx swaps only the line or the step panel.
"""

from __future__ import annotations

import hashlib
import secrets as random_source
from urllib.parse import urlencode

import numpy as np
from flask import Blueprint, current_app, redirect, render_template, request, url_for

from .engine import PRESETS, Code, Feedback, GameSize, MastermindError, feedback, get_strategy
from .engine.codes import conceal, format_history, parse_history, reveal, secret_indices
from .engine.lines import (
    ADVERSARIES, BEST_CANDIDATE, GREEDY, SUMMARY_CODES, LineError, adversary_line, check_adversary,
    codebreaker, codebreakers, offered,
)
from .engine.lines import Line, deepest_line, greedy_line, line_lengths as all_line_lengths
from .engine.position import describe, partition_bars
from .engine.strategies import TooSlow
from .engine.tree import MAX_TREE_CODES
from . import jobs
from .errors import error_response
from .settings import SettingsError, parse_size
from .web import budget, is_htmx, render

bp = Blueprint("solver", __name__, url_prefix="/solver")
api = Blueprint("solver_api", __name__, url_prefix="/api/solver")

SOURCES = {
    "teacher": "a secret you type (hidden until it is found)",
    "random": "a secret drawn at random",
    "adversary": "no secret: the codemaker keeps the most codes possible",
}


# A line computed in the background may score this many (guess, code) pairs
# (about a minute of work).
JOB_MAX_PAIRS = 60_000_000_000


def busy_response(exc, page=None):
    """The 503 of a full job queue, with ``Retry-After``: a page or JSON."""
    response = error_response(503, str(exc)) if page is None else current_app.make_response((page, 503))
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


class ViewError(MastermindError):
    """A URL whose state cannot be shown (a step past the end, a history that
    does not fit the secret)."""


def size_args(size: GameSize) -> dict:
    """The query parameters of a size, as the pages write them."""
    args = {"pegs": size.pegs, "colors": size.colors}
    if size.distinct:
        args["distinct"] = 1
    return args


def status_of(exc: MastermindError) -> int:
    """422 for work too large to do now, 400 for anything malformed."""
    return 422 if isinstance(exc, TooSlow) else 400


# --- the optimal game ----------------------------------------------------------------------


def line_state(args) -> dict:
    """The line a query string asks for and the step to show."""
    size = parse_size(args)
    strategy = codebreaker(args.get("strategy"))
    if not offered(strategy, size):
        raise LineError(f"{strategy.name} is not offered for {size.label()}: choose another codebreaker.")
    adversary = check_adversary(args.get("adversary") or GREEDY)
    state = {"size": size, "strategy": strategy, "adversary": adversary, "job": None}
    try:
        line = adversary_line(strategy, size, adversary, budget(), current_app.config["SOLVER_TREE_CODES"])
    except TooSlow:
        if size.n_codes > MAX_TREE_CODES:
            raise TooSlow(f"{size.label()} has {size.n_codes:,} codes: its lines are computed for "
                          f"sizes up to {MAX_TREE_CODES:,} codes (5 pegs × 8 colours).") from None
        job = jobs.get("line", line_params(size, strategy, adversary))
        if job.failed:
            raise LineError(job.error) from None
        if not job.done:
            return {**state, "job": job, "line": None, "step": 0}
        line = Line.from_dict(job.result, size, strategy)
    last = len(line.rows)
    raw = args.get("step")
    if raw is None or raw == "":
        step = last
    elif not raw.isascii() or not raw.isdigit() or len(raw) > 3:
        raise ViewError(f"The step must be a whole number from 0 to {last}, not '{raw[:10]}'.")
    else:
        step = int(raw)
        if step > last:
            raise ViewError(f"Step {step} is past the end of this line: it has {last} guesses.")
    return {**state, "line": line, "step": step}


def line_params(size: GameSize, strategy, adversary: str) -> dict:
    return {"pegs": size.pegs, "colors": size.colors, "distinct": size.distinct,
            "strategy": strategy.name, "adversary": adversary}


def compute_line(params: dict, progress) -> dict:
    """A line too slow for a request, in the background."""
    size = GameSize(params["pegs"], params["colors"], params["distinct"])
    strategy = codebreaker(params["strategy"])
    report = (lambda done, total: progress(done / total)) if progress else None
    if params["adversary"] == GREEDY:
        line = greedy_line(strategy, size, JOB_MAX_PAIRS, report)
    else:
        line = deepest_line(strategy, size, MAX_TREE_CODES, report)
    return line.to_dict()


jobs.register(jobs.Kind("line", compute_line))


def compute_lengths(params: dict, progress) -> dict:
    """Every codebreaker's line length against both adversaries (the table
    under a line), in the background: it builds a dozen decision trees."""
    size = GameSize(params["pegs"], params["colors"], params["distinct"])
    return {"rows": [{"strategy": row.strategy.name, "greedy": row.greedy, "deepest": row.deepest,
                      "failure": None if row.failure is None else str(row.failure)}
                     for row in all_line_lengths(size)]}


# Sizes this small have their table worked out by the request that asks.
QUICK_LENGTHS_CODES = 256
jobs.register(jobs.Kind("lengths", compute_lengths,
                        lambda params: params["colors"] ** params["pegs"] <= QUICK_LENGTHS_CODES))


def lengths_job(size: GameSize):
    """The job of the lengths table for ``size`` (None beyond the sizes it covers)."""
    if size.n_codes > SUMMARY_CODES:
        return None
    return jobs.get("lengths", {"pegs": size.pegs, "colors": size.colors, "distinct": size.distinct})


def line_url(state: dict, step: int | None) -> str:
    """The address of a line at ``step`` (the whole line when None)."""
    args = size_args(state["size"])
    if state["strategy"] is not BEST_CANDIDATE:
        args["strategy"] = state["strategy"].name
    if state["adversary"] != GREEDY:
        args["adversary"] = state["adversary"]
    if step is not None:
        args["step"] = step
    return url_for("solver.optimal_game", **args)


def line_context(state: dict) -> dict:
    if state["job"] is not None:
        return state
    step, rows = state["step"], state["line"].rows
    links = {"first": 0, "prev": step - 1, "next": step + 1, "last": len(rows)}
    state["links"] = {key: line_url(state, to) if 0 <= to <= len(rows) and to != step else None
                      for key, to in links.items()}
    if step:
        row = rows[step - 1]
        state["announcement"] = (f"Guess {step}: {row.guess} answered {row.reply.describe()}; "
                                 f"{row.remaining:,} code{'s' if row.remaining != 1 else ''} left.")
    else:
        state["announcement"] = "Before the first guess."
    return state


def form_defaults(args) -> dict:
    """What the settings form shows: the query as typed, within reason."""
    return {key: str(args.get(key, ""))[:20] for key in
            ("pegs", "colors", "distinct", "strategy", "adversary", "history")}


@bp.get("/optimal-game")
def optimal_game():
    form = form_defaults(request.args)
    try:
        state = line_context(line_state(request.args))
    except jobs.Busy as exc:
        return busy_response(exc, render_template("solver/optimal_game.html", error=str(exc), form=form,
                                                  choices=codebreaker_choices(request.args)))
    except MastermindError as exc:
        return render_template("solver/optimal_game.html", error=str(exc), form=form,
                               choices=codebreaker_choices(request.args)), status_of(exc)
    if not is_htmx() and state["line"] is not None:  # the comparison belongs to the whole page
        try:
            state.update(lengths_context(state))
        except jobs.Busy:
            state["lengths_job"] = None
    return render("solver/optimal_game.html", "solver/_line.html", form=form, error=None,
                  choices=codebreakers(state["size"]), adversaries=ADVERSARIES, **state)


def lengths_context(state: dict) -> dict:
    """What the lengths table needs: its rows once worked out, or its job."""
    job = lengths_job(state["size"])
    rows = []
    if job is not None and job.done:
        names = {s.name: s for s in codebreakers(state["size"])}
        rows = [{**row, "strategy": names[row["strategy"]]} for row in job.result["rows"]
                if row["strategy"] in names]
    return {"lengths_job": job, "lengths": rows,
            "lengths_url": url_for("solver.optimal_game_lengths", **size_args(state["size"]),
                                   strategy=state["strategy"].name, adversary=state["adversary"]),
            "length_url": lambda strategy, adversary: line_url(
                {**state, "strategy": strategy, "adversary": adversary}, None)}


@bp.get("/optimal-game/lengths")
def optimal_game_lengths():
    """The lengths table alone: what the page polls while it is worked out."""
    try:
        state = line_state(request.args)
        if state["line"] is None:
            raise LineError("The line itself is still being worked out.")
        state.update(lengths_context(state))
        if state["lengths_job"] is None:
            raise ViewError(f"The table of every codebreaker is worked out for sizes up to "
                            f"{SUMMARY_CODES:,} codes; {state['size'].label()} has {state['size'].n_codes:,}.")
    except jobs.Busy as exc:
        return busy_response(exc)
    except MastermindError as exc:
        return error_response(status_of(exc), str(exc))
    if not is_htmx():
        return redirect(line_url(state, None), 303)
    return render_template("solver/_lengths.html", **state)


def codebreaker_choices(args):
    try:
        return codebreakers(parse_size(args))
    except MastermindError:
        return codebreakers(GameSize())


def json_answer(build, key: str):
    """The JSON of ``build(query)[key]``, or the error as JSON."""
    try:
        return build(request.args)[key].json()
    except MastermindError as exc:
        return error_response(status_of(exc), str(exc))


@api.get("/optimal-game")
def optimal_game_json():
    try:
        state = line_state(request.args)
    except jobs.Busy as exc:
        return busy_response(exc)
    except MastermindError as exc:
        return error_response(status_of(exc), str(exc))
    if state["job"] is not None:
        return state["job"].json(), 202
    return state["line"].json()


# --- the classroom -------------------------------------------------------------------------


def adversary_reply(partition: dict[Feedback, int]) -> Feedback:
    """The reply that keeps the most codes; ties to the first in order."""
    return max(sorted(partition.items()), key=lambda item: item[1])[0]


def classroom_state(args) -> dict:
    """The position a classroom URL describes, and how its next reply is found."""
    size = parse_size(args)
    strategy = get_strategy(args.get("strategy") or "knuth")
    if not offered(strategy, size):
        raise ViewError(f"{strategy.name} is not offered for {size.label()}: choose another strategy.")
    history = parse_history(str(args.get("history", "")), size)
    secret = reveal(args["s"], size) if args.get("s") else None
    if secret is not None:
        for number, (guess, reply) in enumerate(history, start=1):
            if feedback(guess, secret) != reply:
                raise ViewError(f"Guess {number} ({guess}) would not get {reply.describe()} from "
                                "this secret: the history does not fit it.")
    seed = int.from_bytes(hashlib.sha256(
        f"{size}:{format_history(history)}".encode()).digest()[:8], "big")
    position = describe(strategy, size, history, rng=np.random.default_rng(seed), max_pairs=budget())
    return {"size": size, "strategy": strategy, "history": history, "secret": secret,
            "position": position, "presenter": args.get("presenter") == "1",
            "hidden": args.get("s", "")}


def classroom_url(state: dict, history, presenter: bool | None = None) -> str:
    args = {**size_args(state["size"]), "strategy": state["strategy"].name}
    if state["hidden"]:
        args["s"] = state["hidden"]
    if history:
        args["history"] = format_history(history)
    if state["presenter"] if presenter is None else presenter:
        args["presenter"] = 1
    return url_for("solver.classroom") + "?" + urlencode(args)


def classroom_context(state: dict) -> dict:
    history, position = state["history"], state["position"]
    following = None
    if position.suggestion is not None:
        guess = position.suggestion.guess
        reply = (feedback(guess, state["secret"]) if state["secret"] is not None
                 else adversary_reply(position.suggestion.partition))
        following = (guess, reply)
    state["links"] = {
        "first": classroom_url(state, []) if history else None,
        "prev": classroom_url(state, history[:-1]) if history else None,
        "next": classroom_url(state, history + [following]) if following else None,
    }
    state["presenter_link"] = classroom_url(state, history, not state["presenter"])
    state["bars"] = (partition_bars(position.suggestion.partition, state["size"].pegs)
                     if position.suggestion else [])
    if position.solved:
        state["announcement"] = position.why
    elif history:
        guess, reply = history[-1]
        state["announcement"] = (f"Guess {len(history)}: {guess} got {reply.describe()}. "
                                 f"{position.remaining:,} codes left; {state['strategy'].name} "
                                 f"guesses {position.suggestion.guess} next.")
    else:
        state["announcement"] = f"{state['strategy'].name} opens with {position.suggestion.guess}."
    return state


def classroom_page(error=None, status=200, form=None):
    return render_template(
        "solver/classroom.html", error=error, form=form or {}, sources=SOURCES,
        strategies=[s for s in PRESETS.values()], presenter=False), status


@bp.get("/classroom")
def classroom():
    form = form_defaults(request.args)
    try:
        state = classroom_context(classroom_state(request.args))
    except MastermindError as exc:
        return classroom_page(str(exc), status_of(exc), form)
    return render("solver/classroom.html", "solver/_step.html", form=form, error=None,
                  sources=SOURCES, strategies=[s for s in PRESETS.values() if offered(s, state["size"])],
                  **state)


@bp.post("/classroom")
def classroom_start():
    """The setup form: choose a secret (typed, drawn or none) and go to step 0."""
    form = request.form
    try:
        size = parse_size(form)
        strategy = get_strategy(form.get("strategy") or "knuth")
        source = form.get("source", "teacher")
        if source not in SOURCES:
            raise SettingsError("Choose where the secret comes from.")
        args = {**size_args(size), "strategy": strategy.name}
        if source == "teacher":
            secret = Code.parse(form.get("secret", ""), size)
            if size.distinct and not secret.is_distinct():
                raise SettingsError("This game's secret uses different colours: no colour twice.")
            args["s"] = conceal(secret, size)
        elif source == "random":
            pool = secret_indices(size)
            args["s"] = conceal(Code.from_index(int(pool[random_source.randbelow(len(pool))]), size), size)
        if form.get("presenter"):
            args["presenter"] = 1
    except MastermindError as exc:
        return classroom_page(str(exc), 400, {k: v for k, v in form.items() if k != "secret"})
    return redirect(url_for("solver.classroom") + "?" + urlencode(args), 303)


@api.get("/step")
def step_json():
    return json_answer(classroom_state, "position")


def init_app(app) -> None:
    from . import compare, strategy_tree  # noqa: F401  (their views join this blueprint)

    app.register_blueprint(bp)
    app.register_blueprint(api)
