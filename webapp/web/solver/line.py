"""The optimal game: a codebreaker's line against an adversary codemaker,
step by step, and the table of every codebreaker against both adversaries."""

from __future__ import annotations

from flask import current_app, redirect, render_template, request, url_for
from flask_babel import format_decimal, gettext, ngettext

from ... import jobs
from ...computations import line_params
from ...engine import GameSize, MastermindError
from ...engine.lines import (
    ADVERSARIES,
    BEST_CANDIDATE,
    GREEDY,
    SUMMARY_CODES,
    Line,
    LineError,
    adversary_line,
    check_adversary,
    codebreaker,
    codebreakers,
    offered,
)
from ...engine.strategies import TooSlow
from ...engine.tree import ANALYSABLE_CODES
from ...settings import parse_size, size_params, small_number
from ...words import error_words, not_offered, size_label
from .. import links
from ..answers import is_htmx, render
from ..contract import Documented, operation
from ..errors import error_response
from ..forms import form_defaults
from ..positions import budget
from ..refusals import ViewError, busy_response, status_of
from ..schemas import Job, LineQuery
from ..schemas import Line as LineAnswer
from ..wording import number, reply_words
from .blueprints import api, bp


def line_state(args) -> dict:
    """The line a query string asks for and the step to show."""
    size = parse_size(args)
    strategy = codebreaker(args.get("strategy"))
    if not offered(strategy, size):
        raise LineError(not_offered(strategy, size))
    adversary = check_adversary(args.get("adversary") or GREEDY)
    state = {"size": size, "strategy": strategy, "adversary": adversary, "job": None}
    try:
        line = adversary_line(strategy, size, adversary, budget(), current_app.config["SOLVER_TREE_CODES"])
    except TooSlow:
        if size.n_codes > ANALYSABLE_CODES:
            raise TooSlow("lines-too-large", size=size.params(), codes=size.n_codes, most=ANALYSABLE_CODES) from None
        job = jobs.get("line", line_params(size, strategy.name, adversary))
        if job.failed:
            raise LineError(error_words(job.problem)) from None
        if not job.done:
            return {**state, "job": job, "line": None, "step": 0}
        line = Line.from_dict(job.result, size, strategy)
    last = len(line.rows)
    raw = args.get("step")
    asked = small_number(raw, digits=3) if raw else None
    if raw and asked is None:
        raise ViewError(
            gettext("The step must be a whole number from 0 to %(last)d, not '%(given)s'.", last=last, given=raw[:10])
        )
    step = last if asked is None else asked
    if step > last:
        raise ViewError(
            gettext("Step %(step)d is past the end of this line: it has %(last)d guesses.", step=step, last=last)
        )
    return {**state, "line": line, "step": step}


def lengths_job(size: GameSize):
    """The job of the lengths table for ``size`` (None beyond the sizes it covers)."""
    if size.n_codes > SUMMARY_CODES:
        return None
    return jobs.get("lengths", size_params(size))


def line_url(state: dict, step: int | None) -> str:
    """The address of the line in ``state`` at ``step`` (the whole line when None)."""
    strategy = None if state["strategy"] is BEST_CANDIDATE else state["strategy"].name
    adversary = None if state["adversary"] == GREEDY else state["adversary"]
    return links.line_url(state["size"], strategy, adversary, step)


def line_context(state: dict) -> dict:
    if state["job"] is not None:
        return state
    step, rows = state["step"], state["line"].rows
    links = {"first": 0, "prev": step - 1, "next": step + 1, "last": len(rows)}
    state["links"] = {
        key: line_url(state, to) if 0 <= to <= len(rows) and to != step else None for key, to in links.items()
    }
    if step:
        row = rows[step - 1]
        state["announcement"] = ngettext(
            "Guess %(step)d: %(guess)s answered %(reply)s; %(count)s code left.",
            "Guess %(step)d: %(guess)s answered %(reply)s; %(count)s codes left.",
            row.remaining,
            step=step,
            guess=str(row.guess),
            reply=reply_words(row.reply, state["size"].is_bulls_and_cows),
            count=number(row.remaining),
        )
    else:
        state["announcement"] = gettext("Before the first guess.")
    return state


@bp.get("/optimal-game")
def optimal_game():
    form = form_defaults(request.args)
    try:
        state = line_context(line_state(request.args))
    except jobs.Busy as exc:
        return busy_response(
            exc,
            render_template(
                "solver/optimal_game.html",
                error=error_words(exc),
                form=form,
                choices=codebreaker_choices(request.args),
                adversaries=ADVERSARIES,
            ),
        )
    except MastermindError as exc:
        return render_template(
            "solver/optimal_game.html",
            error=error_words(exc),
            form=form,
            choices=codebreaker_choices(request.args),
            adversaries=ADVERSARIES,
        ), status_of(exc)
    if not is_htmx() and state["line"] is not None:  # the comparison belongs to the whole page
        try:
            state.update(lengths_context(state))
        except jobs.Busy:
            state["lengths_job"] = None
    return render(
        "solver/optimal_game.html",
        "solver/_line.html",
        form=form,
        error=None,
        choices=codebreakers(state["size"]),
        adversaries=ADVERSARIES,
        **state,
    )


def lengths_context(state: dict) -> dict:
    """What the lengths table needs: its rows once worked out, or its job."""
    job = lengths_job(state["size"])
    rows = []
    if job is not None and job.done:
        names = {s.name: s for s in codebreakers(state["size"])}
        rows = [{**row, "strategy": names[row["strategy"]]} for row in job.result["rows"] if row["strategy"] in names]
    return {
        "lengths_job": job,
        "lengths": rows,
        "lengths_url": url_for(
            "solver.optimal_game_lengths",
            **links.size_args(state["size"]),
            strategy=state["strategy"].name,
            adversary=state["adversary"],
        ),
        "length_url": lambda strategy, adversary: line_url(
            {**state, "strategy": strategy, "adversary": adversary}, None
        ),
    }


@bp.get("/optimal-game/lengths")
def optimal_game_lengths():
    """The lengths table alone: what the page polls while it is worked out."""
    try:
        state = line_state(request.args)
        if state["line"] is None:
            raise LineError(gettext("The line itself is still being worked out."))
        state.update(lengths_context(state))
        if state["lengths_job"] is None:
            raise ViewError(
                gettext(
                    "The table of every codebreaker is worked out for sizes up to %(most)s codes; %(size)s has "
                    "%(codes)s.",
                    most=format_decimal(SUMMARY_CODES),
                    size=size_label(state["size"]),
                    codes=format_decimal(state["size"].n_codes),
                )
            )
    except jobs.Busy as exc:
        return busy_response(exc)
    except MastermindError as exc:
        return error_response(status_of(exc), error_words(exc))
    if not is_htmx():
        return redirect(line_url(state, None), 303)
    return render_template("solver/_lengths.html", **state)


def codebreaker_choices(args):
    try:
        return codebreakers(parse_size(args))
    except MastermindError:
        return codebreakers(GameSize())


@api.get("/optimal-game")
@operation(
    id="optimalGame",
    tag="solver",
    summary="The optimal game against an adversary",
    description="A codebreaker's whole game against a codemaker who never fixed a secret. Lines too slow "
    "for a request are worked out in the background (202).",
    query=LineQuery,
    answers={
        200: Documented("The line.", LineAnswer),
        202: Documented("The answer is being worked out in the background: ask again later.", Job),
    },
    errors=(400, 422, 503),
)
def optimal_game_json(query: LineQuery):
    args = {
        **query.size_args(),
        "strategy": query.strategy,
        "adversary": query.adversary,
        "step": "" if query.step is None else str(query.step),
    }
    try:
        state = line_state(args)
    except jobs.Busy as exc:
        return busy_response(exc)
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    if state["job"] is not None:
        return state["job"].json(), 202
    return state["line"].json()
