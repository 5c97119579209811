"""The live classroom's JSON API, on the same service as its pages: the
teacher's token (``Authorization: Bearer …``) starts, steps, keeps the room
and reads the report; a student's token proposes guesses."""

from __future__ import annotations

from flask import Response, abort, request, url_for
from flask_babel import gettext

from ... import store
from ...words import strategy_title, student_label
from ..contract import Documented, link, operation
from ..errors import error_response
from ..limits import creating, live_joining, live_voting
from ..links import external_url
from ..schemas import (
    LiveCreated,
    LiveGameSettings,
    LiveLock,
    LiveReport,
    LiveSettings,
    LiveState,
    LiveStepTo,
    LiveStudent,
    LiveVote,
    StudentCreated,
    StudentJoin,
    StudentRename,
    VoteAccepted,
)
from . import access, exports, screens, service
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


def figure(value: screens.Figure | None) -> float | None:
    return screens.figure_value(value)


def you_json(session: service.LiveSession, student: service.Student, token: str) -> dict:
    """A student's own results: every settled proposal with its E beside the strategy's and the best."""
    mine = screens.my_results(session, student, token)
    return {
        "id": student.seat,
        "nickname": student_label(student, session.names != "hidden"),
        "points": mine["points"],
        "proposals": [
            {
                "game": r["game"],
                "step": r["step"],
                "guess": r["guess"],
                "expected": figure(r["value"].expected),
                "expected_bound": screens.figure_bound(r["value"].expected),
                "strategy_guess": r["strategy_guess"],
                "strategy_expected": figure(r["strategy_value"].expected) if r["strategy_value"] else None,
                "best_expected": figure(r["value"].best),
                "best_expected_bound": screens.figure_bound(r["value"].best),
                "points": r["points"],
            }
            for r in mine["rows"]
        ],
    }


def state_json(session: service.LiveSession, teacher: bool, student=None, token: str | None = None) -> dict:
    context = screens.screen(session)
    position = context["position"]
    joined = store.live.students(session.code)
    out = {
        **session.size.params(),
        "code": session.code,
        "game": session.game,
        "strategy": session.strategy,
        "strategy_title": strategy_title(session.strategy),
        "source": session.source,
        "names": session.names,
        "scoring": session.scoring,
        "countdown": session.countdown,
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
    if session.deadline is not None:
        out["deadline"] = session.deadline
    if position.codes() and not position.solved:
        out["candidates"] = [str(c) for c in position.codes()]
    if teacher:
        if position.suggestion is not None:
            out["strategy_guess"] = str(position.suggestion.guess)
        out["votes"] = dict(sorted(store.live.votes(session.code, session.game).get(session.step, {}).items()))
        out["students"] = [{"id": s.seat, "nickname": s.nickname} for s in joined]
        out["most_students"] = service.most_students()
    elif student is not None and token is not None and not student.removed:
        out["you"] = you_json(session, student, token)
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
    "for it and the students in the room; with a student's token, `you`: their own proposals at every step "
    "the class has gone past, each with its E beside the strategy's guess and the best possible, and their "
    "points.",
    answers={200: Documented("The state.", LiveState)},
    errors=(404, 429),
)
def state(code):
    session = access.found(code)
    teacher = service.is_teacher(session, access.teacher_token(session.code))
    token = None if teacher else access.student_token(session.code)
    return state_json(session, teacher, service.student_of(session, token), token)


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
    description="Take a student (by the id the state lists) out of the session: their votes stop counting "
    '(they stay in the report, marked as removed), their open event stream ends at once with an "ended" '
    "event, their token no longer joins, follows or votes, and their place in the room is free again. Only "
    "with the teacher's token.",
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


@api.post("/<code>/games")
@operation(
    id="nextLiveGame",
    tag="live",
    summary="Start the next game in the room",
    description="The lesson's next game (any board, strategy and secret source) in the same session: the "
    "code, the students' seats, names, tokens and points stay, and their screens follow into it without "
    "joining again. Only with the teacher's token.",
    body=LiveGameSettings,
    answers={
        201: Documented("The new game's state.", LiveState),
        403: Documented("Not the teacher's token (or a request from another site): nothing changed."),
    },
    errors=(400, 401, 404, 409, 422, 429),
)
def next_game_json(code, body: LiveGameSettings):
    session = taught(code)
    try:
        session = service.next_game(session, body)
    except service.Refused as exc:
        return refusal(exc)
    return state_json(session, True), 201


@api.put("/<code>/students/<int:student>")
@operation(
    id="renameLiveStudent",
    tag="live",
    summary="Rename a student",
    description='Give a student another name (a name another student has gets a number: "Lucía 2"). '
    "Only with the teacher's token.",
    body=StudentRename,
    body_required=True,
    answers={
        200: Documented("The student.", LiveStudent),
        403: Documented("Not the teacher's token (or a request from another site): nothing changed."),
    },
    errors=(400, 401, 404, 429),
)
def rename(code, student, body: StudentRename):
    session = taught(code)
    try:
        renamed = service.rename(session, student, body.nickname)
    except service.Refused as exc:
        return refusal(exc)
    return {"id": renamed.seat, "nickname": renamed.nickname}


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
    return {
        "code": session.code,
        "strategy": session.strategy,
        "games": [
            {
                "game": g["game"],
                **g["size"].params(),
                "strategy": g["strategy"].name,
                "guesses": g["guesses"],
                "solved": g["solved"],
            }
            for g in report["games"]
        ],
        "complete": not report["pending"],
        "rows": screens.report_rows(report, lambda s: student_label(s, session.names != "hidden")),
        "students": exports.report_people(session, report),
    }


@api.get("/<code>/report")
@operation(
    id="liveReport",
    tag="live",
    summary="A live session's report",
    description="The lesson game by game: every proposal of every student (those the teacher removed "
    "included, marked), step by step, with its E, the strategy's guess and E there and the best possible "
    "(V), each exact or a bound (`*_bound`: exact, at_least, at_most), and the points it scored; per student "
    "how many proposals were as good as the strategy's (by exact figures) and their points. With `Accept: "
    "text/csv`, the same rows as CSV (UTF-8 with a byte order mark); with `Accept: " + exports.XLSX + "`, a "
    "spreadsheet. Only with the teacher's token; `complete` is false while some E is worked out.",
    answers={200: Documented("The report.", LiveReport)},
    errors=(401, 404, 429),
)
def report(code):
    session = taught(code)
    found_report = screens.report(session)
    wanted = request.accept_mimetypes.best_match(["application/json", "text/csv", exports.XLSX])
    if wanted in ("text/csv", exports.XLSX):
        return exports.download(session, found_report, "csv" if wanted == "text/csv" else "xlsx")
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
