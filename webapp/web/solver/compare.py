"""Every strategy compared: the table of ``mastermind analyse --strategy all``
with a histogram of game lengths per strategy. Sizes that take more than
about a second run as a background job with a progress bar."""

from __future__ import annotations

from flask import render_template, request
from flask_babel import lazy_gettext

from ... import jobs
from ...engine import PRESETS, GameSize, MastermindError
from ...engine.tree import check_analysable
from ...jobs import Busy
from ...settings import parse_size, size_params
from ...words import error_words
from ..answers import render
from ..contract import Documented, operation
from ..errors import error_response
from ..forms import form_defaults
from ..links import size_args
from ..refusals import busy_response
from ..schemas import Comparison, Job, SizeQuery
from .blueprints import api, bp

# Totals for every secret as the literature reports them, shown beside the
# computed ones (never used to compute anything). A source's own words stay
# in English; what this project adds to it is translated.
KOOI = "Kooi 2005, “Yet another Mastermind strategy”, ICGA Journal 28"
KOYAMA_LAI = "Koyama & Lai 1993"
PUBLISHED = {
    (4, 6, False, "knuth"): (5801, "Knuth 1976, “The computer as master mind”, J. Recreational Mathematics 9"),
    (4, 6, False, "irving"): (5696, lazy_gettext("%(source)s (expected size)", source=KOOI)),
    (4, 6, False, "entropy"): (5722, lazy_gettext("%(source)s (entropy)", source=KOOI)),
    (4, 6, False, "most-parts"): (5668, KOOI),
    (4, 6, False, "optimal"): (5625, f"{KOYAMA_LAI}, “An optimal Mastermind strategy”, J. Recreational Mathematics 25"),
    (4, 6, False, "optimal-5"): (
        5626,
        lazy_gettext("%(source)s, the best strategy that never needs more than 5 guesses", source=KOYAMA_LAI),
    ),
}


def skipped_words(result: dict) -> list[dict]:
    """The strategies left out of a comparison, each with why in words."""
    return [{"strategy": s["strategy"], "reason": error_words(s["reason"])} for s in result.get("skipped", [])]


def comparison(args):
    """The size asked for and its comparison job (stored, running or new)."""
    size = parse_size(args)
    check_analysable(size)
    return size, jobs.get("compare", size_params(size))


def page_context(size: GameSize, job) -> dict:
    rows = job.result["rows"] if job.done else []
    depth = max((int(k) for r in rows for k in r["histogram"]), default=0)
    tallest = max((v for r in rows for v in r["histogram"].values()), default=0)
    strategies = {s.name: s for s in PRESETS.values()}
    published = {r["strategy"]: PUBLISHED.get((size.pegs, size.colors, size.distinct, r["strategy"])) for r in rows}
    return {
        "size": size,
        "job": job,
        "rows": rows,
        "depth": depth,
        "tallest": tallest,
        "skipped": job.result.get("skipped", []) if job.done else [],
        "strategies": strategies,
        "published": published,
        "args": size_args(size),
    }


@bp.get("/compare")
def compare():
    form = form_defaults(request.args)
    try:
        size, job = comparison(request.args)
    except Busy as exc:
        return busy_response(exc, render_template("solver/compare.html", error=error_words(exc), form=form, size=None))
    except MastermindError as exc:
        return render_template("solver/compare.html", error=error_words(exc), form=form, size=None), 400
    return render("solver/compare.html", "solver/_compare.html", form=form, error=None, **page_context(size, job))


@api.get("/compare")
@operation(
    id="compareStrategies",
    tag="solver",
    summary="Every strategy compared",
    description="Each strategy plays every secret of the size. Large sizes are worked out in the "
    "background: 202 with the job's progress until the table is ready.",
    query=SizeQuery,
    answers={
        200: Documented("The comparison.", Comparison),
        202: Documented("The answer is being worked out in the background: ask again later.", Job),
    },
    errors=(400, 422, 503),
)
def compare_json(query: SizeQuery):
    try:
        size, job = comparison(query.size_args())
    except Busy as exc:
        return busy_response(exc)
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    if job.done:
        return {**size_params(size), "rows": job.result["rows"], "skipped": skipped_words(job.result)}
    if job.failed:
        return error_response(422, error_words(job.problem))
    return job.json(), 202
