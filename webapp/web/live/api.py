"""The live classroom's JSON API, on the same service as its pages: the
teacher's token (``Authorization: Bearer …``) starts, steps, keeps the room
and reads the report; a student's token proposes guesses."""

from __future__ import annotations

from flask import Response, abort, request, url_for
from flask_babel import gettext

from ... import store
from ...words import strategy_title
from ..contract import Documented, link, operation
from ..errors import error_response
from ..limits import creating, live_joining, live_voting
from ..links import external_url
from ..schemas import (
    LiveCreated,
    LiveLock,
    LiveReport,
    LiveSettings,
    LiveState,
    LiveStepTo,
    LiveVote,
    StudentCreated,
    StudentJoin,
    VoteAccepted,
)
from . import access, screens, service
from .blueprints import api


def taught(code: str) -> service.LiveSession:
    """The session, for its teacher's token only (401 without one, 403 for another)."""
    session = access.found(code)
    token = access.teacher_token(session.code)
    if token is None:
        abort(
            error_response(
                401, gettext("Only the teacher may do this: send the teacher's token as Authorization: Bearer …")
            )
        )
    if not service.is_teacher(session, token):
        abort(error_response(403, gettext("That is not this session's teacher token.")))
    return session


def refusal(exc: service.Refused):
    return error_response(exc.status, str(exc))


def state_json(session: service.LiveSession, teacher: bool) -> dict:
    context = screens.screen(session)
    position = context["position"]
    joined = store.live.students(session.code)
    out = {
        **session.size.params(),
        "code": session.code,
        "strategy": session.strategy,
        "strategy_title": strategy_title(session.strategy),
        "source": session.source,
        "names": session.names,
        "locked": session.locked,
        "step": session.step,
        "steps": len(session.line),
        "solved": position.solved,
        "history": [{"guess": str(g), "black": r.black, "white": r.white} for g, r in session.history],
        "remaining": position.remaining,
        "joined": len(joined),
        "version": session.version,
        "join_url": external_url("live.join_code", code=session.code),
        "events_url": external_url("live.events", code=session.code),
    }
    if position.codes() and not position.solved:
        out["candidates"] = [str(c) for c in position.codes()]
    if teacher:
        if position.suggestion is not None:
            out["strategy_guess"] = str(position.suggestion.guess)
        out["votes"] = dict(sorted(store.live.votes(session.code).get(session.step, {}).items()))
        out["students"] = [{"id": s.seat, "nickname": s.nickname} for s in joined]
        out["most_students"] = service.most_students()
    return out


@api.post("")
@creating
@operation(
    id="createLive",
    tag="live",
    summary="Start a live session",
    description="A new live classroom session on the strategy's game. Keep the teacher token: it steps, sees "
    "the votes, keeps the room and reads the report. Students join with the code.",
    body=LiveSettings,
    answers={
        201: Documented(
            "The session.",
            LiveCreated,
            links={
                "GetLive": link("getLive", "The session's state.", code="$response.body#/code"),
                "JoinLive": link("joinLive", "Join it as a student.", code="$response.body#/code"),
            },
        )
    },
    errors=(400, 422, 429),
)
def create_json(body: LiveSettings):
    try:
        session, token = service.create(body)
    except service.Refused as exc:
        return refusal(exc)
    answer = {
        "code": session.code,
        "teacher_token": token,
        "join_url": external_url("live.join_code", code=session.code),
        "url": url_for("live_api.state", code=session.code),
    }
    return answer, 201, {"Location": answer["url"]}


@api.get("/<code>")
@operation(
    id="getLive",
    tag="live",
    summary="A live session's state",
    description="What the class sees now; with the teacher's token, also the strategy's next guess, the votes "
    "for it and the students in the room.",
    answers={200: Documented("The state.", LiveState)},
    errors=(404, 429),
)
def state(code):
    session = access.found(code)
    return state_json(session, service.is_teacher(session, access.teacher_token(session.code)))


@api.post("/<code>/step")
@operation(
    id="stepLive",
    tag="live",
    summary="Step the class's game",
    description="Show the class the next step, or step `to`. Only with the teacher's token. A step is saved "
    "only once its screen can be drawn.",
    body=LiveStepTo,
    answers={
        200: Documented("The new state.", LiveState),
        403: Documented("Not the teacher's token (or a request from another site): nothing changed."),
    },
    errors=(400, 401, 404, 409, 422, 429),
)
def step_json(code, body: LiveStepTo):
    session = taught(code)
    try:
        session = service.step(session, body.to)
    except service.Refused as exc:
        return refusal(exc)
    return state_json(session, True)


@api.delete("/<code>/students/<int:student>")
@operation(
    id="removeLiveStudent",
    tag="live",
    summary="Remove a student",
    description="Take a student (by the id the state lists) out of the session: their votes stop counting and "
    "their token no longer joins, follows or votes. Only with the teacher's token.",
    answers={
        204: Documented("Removed."),
        403: Documented("Not the teacher's token (or a request from another site): nothing changed."),
    },
    errors=(401, 404, 429),
)
def remove(code, student):
    session = taught(code)
    try:
        service.remove(session, student)
    except service.Refused as exc:
        return refusal(exc)
    return Response(status=204)


@api.post("/<code>/lock")
@operation(
    id="lockLive",
    tag="live",
    summary="Lock or open the room",
    description="While the room is locked nobody new joins (409); students already in keep following and "
    "voting. Only with the teacher's token.",
    body=LiveLock,
    body_required=True,
    answers={
        200: Documented("The new state.", LiveState),
        403: Documented("Not the teacher's token (or a request from another site): nothing changed."),
    },
    errors=(400, 401, 404, 429),
)
def lock(code, body: LiveLock):
    session = service.lock(taught(code), body.locked)
    return state_json(session, True)


def report_json(session: service.LiveSession, report: dict) -> dict:
    def figure(value):
        return None if value is None or value.expected is None else value.expected

    return {
        "code": session.code,
        "strategy": session.strategy,
        "complete": not report["pending"],
        "rows": [
            {
                "step": b.step,
                "student": b.seat,
                "nickname": b.nickname,
                "guess": b.guess,
                "expected": figure(b.value),
                "strategy_guess": b.strategy_guess,
                "strategy_expected": figure(b.strategy_value),
                "difference": b.difference,
            }
            for b in report["ballots"]
        ],
        "students": [
            {
                "id": p["student"].seat,
                "nickname": p["student"].nickname,
                "proposals": p["proposals"],
                "as_good": p["as_good"],
            }
            for p in report["people"]
        ],
    }


@api.get("/<code>/report")
@operation(
    id="liveReport",
    tag="live",
    summary="A live session's report",
    description="Every proposal of every student, step by step, with its E and the strategy's guess and E "
    "there, and per student how many proposals were as good as the strategy's. With `Accept: text/csv`, the "
    "same rows as CSV. Only with the teacher's token; `complete` is false while some E is worked out.",
    answers={200: Documented("The report.", LiveReport)},
    errors=(401, 404, 429),
)
def report(code):
    session = taught(code)
    found_report = screens.report(session)
    if request.accept_mimetypes.best_match(["application/json", "text/csv"]) == "text/csv":
        response = Response(screens.report_csv(found_report), mimetype="text/csv")
        response.headers["Content-Disposition"] = f'attachment; filename="live-{session.code}.csv"'
        return response
    return report_json(session, found_report)


@api.post("/<code>/students")
@live_joining
@operation(
    id="joinLive",
    tag="live",
    summary="Join a live session",
    description="A student joins: the answer's token votes. No account and nothing personal is kept; a "
    "nickname is optional (and ignored where the teacher has the app name students). A locked or full room "
    "refuses with 409.",
    body=StudentJoin,
    answers={201: Documented("The student's token.", StudentCreated)},
    errors=(400, 403, 404, 409, 429),
)
def join_json(code, body: StudentJoin):
    session = access.found(code)
    try:
        student, token = service.join(session, body.nickname, access.student_token(session.code))
    except service.Refused as exc:
        return refusal(exc)
    answer = {"student_token": token, "id": student.seat, "nickname": student.nickname}
    return {**answer, "url": url_for("live.follow", code=session.code)}, 201


@api.post("/<code>/votes")
@live_voting
@operation(
    id="voteLive",
    tag="live",
    summary="Propose the next guess",
    description="A student's proposal for the guess after the step the class sees (with the student's token, "
    "or the join cookie); a second proposal at the same step replaces the first.",
    body=LiveVote,
    body_required=True,
    answers={
        201: Documented("The vote.", VoteAccepted),
        403: Documented("Not a token of this session's students (or a request from another site)."),
    },
    errors=(400, 401, 404, 409, 422, 429),
)
def vote_json(code, body: LiveVote):
    session = access.found(code)
    token = access.student_token(session.code)
    if token is None:
        return error_response(401, gettext("Join first: send the student's token as Authorization: Bearer …"))
    try:
        guess, replaced = service.vote(session, token, None, body.guess)
    except service.Refused as exc:
        return refusal(exc)
    return {"step": session.step, "guess": str(guess), "replaced": replaced}, 201
