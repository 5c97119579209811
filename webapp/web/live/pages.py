"""The live classroom's pages: starting a session, the teacher's projector
(the step, the class's proposals, the room), the report to keep, and the
students' phones (joining, following, proposing). Every form works without
JavaScript; htmx swaps the part that changes. The rules are the service's."""

from __future__ import annotations

from flask import Response, abort, redirect, render_template, request, url_for
from flask_babel import gettext

from ... import store
from ...engine import PRESETS
from ...engine.lines import offered
from ...settings import parse_size, small_number
from ..answers import is_htmx
from ..errors import error_response
from ..forms import move_number
from ..limits import creating, live_joining, live_voting
from ..links import external_url
from ..schemas import COUNTDOWNS, MAX_NICKNAME, LiveGameSettings
from . import access, exports, screens, service
from .blueprints import bp

SOURCES = ("random", "teacher", "adversary")
NAMES = store.live.NAMES


def taught(code: str) -> service.LiveSession:
    """The session, for its teacher only (a 403 page for anyone else)."""
    session = access.found(code)
    if not service.is_teacher(session, access.teacher_token(session.code)):
        abort(
            error_response(
                403,
                gettext(
                    "This is the teacher's page of a live session. Students join at %(url)s.",
                    url=url_for("live.join_form"),
                ),
            )
        )
    return session


# --- starting a session ------------------------------------------------------------------------------


def new_page(form, error: str | None = None, status: int = 200):
    """The form that starts a session, with what went wrong and the teacher's values kept."""
    kept = {k: v for k, v in form.items() if k != "secret"}  # the typed secret is never sent back
    try:
        size = parse_size(kept)
    except service.MastermindError:
        size = None
    strategies = [s for s in PRESETS.values() if size is None or offered(s, size)]
    return render_template(
        "live/new.html",
        form=kept,
        error=error,
        strategies=strategies,
        sources=SOURCES,
        names=NAMES,
        countdowns=COUNTDOWNS,
        size=None,
    ), status


@bp.get("/live/new")
def new():
    return new_page(request.args)


@bp.post("/live")
@creating
def create():
    """A new session, and the teacher's projector."""
    try:
        session, token = service.create(service.settings_of(request.form))
    except service.Refused as exc:
        return new_page(request.form, str(exc), exc.status)
    response = redirect(url_for("live.teach", code=session.code), 303)
    return access.keep(response, access.teacher_cookie(session.code), token)


# --- the teacher -------------------------------------------------------------------------------------


def game_form_context(form=None) -> dict:
    """What the next game's form offers (the teacher's last values kept)."""
    kept = {k: v for k, v in (form or {}).items() if k != "secret"}
    return {
        "game_form": kept,
        "game_strategies": list(PRESETS.values()),
        "sources": SOURCES,
        "countdowns": COUNTDOWNS,
    }


def projector(session: service.LiveSession, error: str | None = None, status: int = 200, form=None):
    """The projector: the whole page, or the part htmx swaps."""
    context = screens.teacher_context(session, room_oob=is_htmx())
    context.update(game_form_context(form))
    if is_htmx():
        page = render_template("live/_projector.html", error=error, **context)
    else:
        join_url = external_url("live.join_code", code=session.code)
        page = render_template(
            "live/teach.html",
            join_url=join_url,
            join_form_url=external_url("live.join_form"),
            qr=screens.qr_svg(join_url),
            error=error,
            **context,
        )
    return access.renewed(Response(page, status), session.code)


@bp.get("/live/<code>/teach")
def teach(code):
    return projector(taught(code))


@bp.post("/live/<code>/step")
def step(code):
    session = taught(code)
    raw = request.form.get("to", "")
    to = small_number(raw, digits=3)
    try:
        if to is None and raw:
            raise service.Refused(gettext("The step must be a whole number."), 400)
        session = service.step(session, to)
    except service.Refused as exc:
        if exc.status != 409:
            return projector(session, str(exc), exc.status)
        session = access.found(code)  # another of the teacher's screens stepped first: show where it is
    if is_htmx():
        return projector(session)
    return redirect(url_for("live.teach", code=session.code), 303)


@bp.post("/live/<code>/games")
def next_game(code):
    """The lesson's next game in the same room."""
    session = taught(code)
    try:
        session = service.next_game(session, service.settings_of(request.form, LiveGameSettings))
    except service.Refused as exc:
        if exc.status != 409:
            return projector(session, str(exc), exc.status, form=request.form)
    return redirect(url_for("live.teach", code=session.code), 303)


@bp.get("/live/<code>/votes")
def votes_fragment(code):
    """The projector's proposals, asked for again while their E is worked out."""
    return render_template("live/_votes.html", **screens.teacher_context(taught(code), room_oob=True))


def room_changed(session: service.LiveSession, error: str | None = None, status: int = 200):
    if is_htmx():
        session = access.found(session.code)
        return render_template("live/_room.html", room_error=error, **screens.teacher_context(session)), status
    if error is not None:
        return projector(access.found(session.code), error, status)
    return redirect(url_for("live.teach", code=session.code) + "#room", 303)


@bp.post("/live/<code>/students/<int:seat>/remove")
def remove(code, seat):
    session = taught(code)
    try:
        service.remove(session, seat)
    except service.Refused as exc:
        return room_changed(session, str(exc), exc.status)
    return room_changed(session)


@bp.post("/live/<code>/students/<int:seat>/rename")
def rename(code, seat):
    session = taught(code)
    try:
        service.rename(session, seat, request.form.get("nickname"))
    except service.Refused as exc:
        return room_changed(session, str(exc), exc.status)
    return room_changed(session)


@bp.post("/live/<code>/lock")
def lock(code):
    session = taught(code)
    service.lock(session, request.form.get("locked") == "1")
    return room_changed(session)


@bp.get("/live/<code>/report")
def report(code):
    """The session's report: printable, and kept after the lesson as CSV."""
    session = taught(code)
    context = screens.screen(session)
    return render_template("live/report.html", report=screens.report(session), **context)


@bp.get("/live/<code>/report.<any(csv, xlsx):kind>")
def report_download(code, kind):
    session = taught(code)
    return exports.download(session, screens.report(session), kind)


# --- the students ------------------------------------------------------------------------------------


def join_page(code: str = "", error: str | None = None, nickname: str = "", status: int = 200, session=None):
    return render_template(
        "live/join.html", code=code, error=error, nickname=nickname, session=session, most=MAX_NICKNAME
    ), status


@bp.get("/join")
def join_form():
    return join_page()


@bp.get("/join/<code>")
def join_code(code):
    session = access.found(code)
    student = service.student_of(session, request.cookies.get(access.student_cookie(session.code)))
    if student is not None and not student.removed:  # back on the same phone: the same seat
        return redirect(url_for("live.follow", code=session.code), 303)
    return join_page(session.code, session=session)


@bp.post("/join")
@live_joining
def join():
    code = service.read_code(request.form.get("code", ""))
    nickname = request.form.get("nickname") or ""
    if not code:  # nothing to look up: not counted as a wrong code
        return join_page(error=gettext("Enter the join code shown on the teacher's screen."), status=400)
    try:
        session = service.find(code, *access.tokens(code))
        earlier = service.student_of(session, request.cookies.get(access.student_cookie(session.code)))
        if session.names == "typed" and "nickname" not in request.form and earlier is None:
            # The code alone: now the name, on the session's own join page (unless nobody new may join).
            if session.locked:
                raise service.room_closed()
            return redirect(url_for("live.join_code", code=session.code), 303)
        _, token = service.join(session, nickname, request.cookies.get(access.student_cookie(session.code)))
    except service.Refused as exc:
        return join_page(code, str(exc), nickname[: MAX_NICKNAME * 2], exc.status)
    response = redirect(url_for("live.follow", code=session.code), 303)
    return access.keep(response, access.student_cookie(session.code), token)


def student_page(session, student, vote_error: str | None = None, status: int = 200):
    token = request.cookies.get(access.student_cookie(session.code))
    page = render_template(
        "live/student.html",
        student=student,
        my_vote=store.live.vote_of(session.code, token, session.game, session.step)
        if token and vote_error is None
        else None,
        vote_error=vote_error,
        mine=screens.my_results(session, student, token) if token else None,
        **screens.screen(session),
    )
    return access.renewed(Response(page, status), session.code)


@bp.get("/live/<code>/you")
def you(code):
    """A student's own results: swapped in by the phone after each step."""
    session = access.found(code)
    token = request.cookies.get(access.student_cookie(session.code))
    student = service.student_of(session, token)
    if student is None or student.removed:
        return error_response(403, service.removed_words() if student else gettext("Join first."))
    return access.renewed(
        Response(
            render_template(
                "live/_you.html", mine=screens.my_results(session, student, token), **screens.screen(session)
            )
        ),
        session.code,
    )


@bp.get("/live/<code>")
def follow(code):
    session = access.found(code)
    student = service.student_of(session, request.cookies.get(access.student_cookie(session.code)))
    if student is None or student.removed:
        if service.is_teacher(session, access.teacher_token(session.code)):
            return redirect(url_for("live.teach", code=session.code), 303)
        if student is not None:
            return error_response(403, service.removed_words())
        return redirect(url_for("live.join_code", code=session.code), 303)
    return student_page(session, student)


@bp.post("/live/<code>/vote")
@live_voting
def vote(code):
    session = access.found(code)
    token = request.cookies.get(access.student_cookie(session.code))
    if service.student_of(session, token) is None:
        return redirect(url_for("live.join_code", code=session.code), 303)
    step = request.form.get("step")  # the current one when the form says none
    try:
        seen = None if step is None else move_number(step, least=0)
        guess, _ = service.vote(session, token, seen, request.form.get("guess"))
    except service.Refused as exc:
        if is_htmx():
            return render_template("live/_my_vote.html", my_vote=None, vote_error=str(exc)), 200
        return student_page(access.found(code), service.student_of(session, token), str(exc), exc.status)
    if is_htmx():
        return render_template("live/_my_vote.html", my_vote=str(guess), vote_error=None)
    return redirect(url_for("live.follow", code=session.code), 303)
