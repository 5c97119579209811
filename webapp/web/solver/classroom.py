"""The classroom: a strategy stepped through one position at a time, with
the partition of its guess, its best rivals and why it won; the step API
answers the same as JSON."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import redirect, render_template, request, url_for
from flask_babel import gettext

from ... import jobs
from ...engine import DEFAULT_STRATEGY, PRESETS, Code, MastermindError, Suggestion, feedback, get_strategy
from ...engine.codes import check_secret, conceal, parse_history, random_secret, reveal
from ...engine.lines import offered
from ...engine.position import following_move, partition_bars
from ...engine.strategies import TooSlow
from ...jobs import Busy
from ...settings import SettingsError, parse_size
from ...words import SECRET_SOURCES, error_words, not_offered, strategy_title, why_words
from .. import links
from ..answers import render
from ..contract import Documented, operation
from ..errors import error_response
from ..forms import form_defaults
from ..hints import next_guess, suggestion_from
from ..positions import explained
from ..refusals import ViewError, busy_response, status_of
from ..schemas import Job, Position, StepQuery
from ..wording import number, reply_words
from .blueprints import api, bp

SOURCES = SECRET_SOURCES


def classroom_state(args) -> dict:
    """The position a classroom URL describes, and how its next reply is found."""
    size = parse_size(args)
    strategy = get_strategy(args.get("strategy") or DEFAULT_STRATEGY)
    if not offered(strategy, size):
        raise ViewError(not_offered(strategy, size))
    history = parse_history(str(args.get("history", "")), size)
    secret = reveal(args["s"], size) if args.get("s") else None
    if secret is not None:
        for number, (guess, reply) in enumerate(history, start=1):
            if feedback(guess, secret) != reply:
                raise ViewError(
                    gettext(
                        "Guess %(number)d (%(guess)s) would not get %(reply)s from this secret: the history does "
                        "not fit it.",
                        number=number,
                        guess=str(guess),
                        reply=reply_words(reply, size.is_bulls_and_cows),
                    )
                )
    state = {
        "size": size,
        "strategy": strategy,
        "history": history,
        "secret": secret,
        "position": None,
        "job": None,
        "presenter": args.get("presenter") == "1",
        "hidden": args.get("s", ""),
    }
    try:
        state["position"] = explained(strategy, size, history)
    except TooSlow:
        if strategy.chooser is None:  # too much scoring: no background job makes a step page wait that long
            raise
        # Optimal play off its shipped tree: the search runs as a job (kept
        # once done, for every class that reaches this position).
        found = next_guess(strategy, size, history, seed="classroom")
        if isinstance(found, jobs.Job) and not found.done:
            state["job"] = found
        else:
            suggestion = found if isinstance(found, Suggestion) else suggestion_from(found.result, size, strategy)
            state["position"] = explained(strategy, size, history, suggestion)
    return state


def classroom_url(state: dict, history, presenter: bool | None = None) -> str:
    """The classroom of ``state`` at the position after ``history``."""
    return links.classroom_url(
        state["size"],
        state["strategy"].name,
        history,
        hidden=state["hidden"],
        presenter=state["presenter"] if presenter is None else presenter,
    )


def classroom_context(state: dict) -> dict:
    history, position = state["history"], state["position"]
    if position is None:  # its guess is still being searched for
        return state
    following = following_move(position, state["secret"])
    state["links"] = {
        "first": classroom_url(state, []) if history else None,
        "prev": classroom_url(state, history[:-1]) if history else None,
        "next": classroom_url(state, history + [following]) if following else None,
    }
    state["presenter_link"] = classroom_url(state, history, not state["presenter"])
    state["bars"] = partition_bars(position.suggestion.partition, state["size"].pegs) if position.suggestion else []
    if position.solved:
        state["announcement"] = why_words(position.why)
    elif history:
        guess, reply = history[-1]
        state["announcement"] = gettext(
            "Guess %(number)d: %(guess)s got %(reply)s. %(left)s codes left; %(strategy)s guesses %(next)s next.",
            number=len(history),
            guess=str(guess),
            reply=reply_words(reply, state["size"].is_bulls_and_cows),
            left=number(position.remaining),
            strategy=strategy_title(state["strategy"]),
            next=str(position.suggestion.guess),
        )
    else:
        state["announcement"] = gettext(
            "%(strategy)s opens with %(guess)s.",
            strategy=strategy_title(state["strategy"]),
            guess=str(position.suggestion.guess),
        )
    return state


def classroom_page(error=None, status=200, form=None, secret_error=None):
    """The setup form alone, with what went wrong: ``secret_error`` is
    shown by the secret's field, ``error`` above the page's content."""
    form = form or {}
    return render_template(
        "solver/classroom.html",
        error=error,
        secret_error=secret_error,
        form=form,
        # The heading names the strategy asked for, when it is one (Knuth's otherwise).
        strategy=PRESETS.get(form.get("strategy", "")),
        sources=SOURCES,
        strategies=[s for s in PRESETS.values()],
        presenter=False,
    ), status


@bp.get("/classroom")
def classroom():
    form = form_defaults(request.args)
    try:
        state = classroom_context(classroom_state(request.args))
    except Busy as exc:
        return busy_response(exc, classroom_page(error_words(exc), 503, form)[0])
    except MastermindError as exc:
        return classroom_page(error_words(exc), status_of(exc), form)
    return render(
        "solver/classroom.html",
        "solver/_step.html" if state["position"] else "solver/_step_job.html",
        form=form,
        error=None,
        sources=SOURCES,
        strategies=[s for s in PRESETS.values() if offered(s, state["size"])],
        **state,
    )


@bp.post("/classroom")
def classroom_start():
    """The setup form: choose a secret (typed, drawn or none) and go to step 0."""
    form = request.form
    kept = {k: v for k, v in form.items() if k != "secret"}  # the typed secret is never sent back
    try:
        size = parse_size(form)
        strategy = get_strategy(form.get("strategy") or DEFAULT_STRATEGY)
        source = form.get("source", "teacher")
        if source not in SOURCES:
            raise SettingsError(gettext("Choose where the secret comes from."))
        args = {**links.size_args(size), "strategy": strategy.name}
        if source == "teacher":
            try:
                secret = Code.parse(form.get("secret", ""), size)
                check_secret(secret, size)
            except MastermindError as exc:
                return classroom_page(status=400, form=kept, secret_error=error_words(exc))
            args["s"] = conceal(secret, size)
        elif source == "random":
            args["s"] = conceal(random_secret(size), size)
        if form.get("presenter"):
            args["presenter"] = 1
    except MastermindError as exc:
        return classroom_page(error_words(exc), 400, kept)
    return redirect(url_for("solver.classroom") + "?" + urlencode(args), 303)


@api.get("/step")
@operation(
    id="solverStep",
    tag="solver",
    summary="One position explained",
    description="What the classroom shows: the codes left after a history, the strategy's next guess, its "
    "partition, the best guesses and why.",
    query=StepQuery,
    answers={
        200: Documented("The position.", Position),
        202: Documented("Optimal play's guess here is being searched for in the background: ask again later.", Job),
    },
    errors=(400, 422, 503),
)
def step_json(query: StepQuery):
    args = {**query.size_args(), "strategy": query.strategy, "history": query.history, "s": query.s or ""}
    try:
        state = classroom_state(args)
    except Busy as exc:
        return busy_response(exc)
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    position = state["position"]
    if position is None:
        return state["job"].json(), 202
    return {**position.json(), "why": why_words(position.why)}
