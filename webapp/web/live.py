"""The live classroom: a teacher steps through a strategy's game on the
projector while every student follows on their own phone and proposes the
next guess. The projector shows the class's proposals beside the strategy's
choice, each with its expected number of guesses from there (E, as the
review measures it); at the end, how the class's choices would have fared.

Screens follow the session through server-sent events (``events``), one
event per change, signalled across processes and servers by ``events.Hub``."""

from __future__ import annotations

import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass

import segno
from cachetools import LRUCache
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from flask_babel import get_locale, gettext
from flask_limiter.util import get_remote_address
from markupsafe import Markup

from .. import jobs, store
from ..computations import proposal_params
from ..engine import DEFAULT_STRATEGY, Code, GameSize, MastermindError, get_strategy
from ..engine.codes import check_secret, random_secret
from ..engine.lines import offered
from ..engine.position import partition_bars
from ..events import Full
from ..settings import SettingsError, parse_size, small_number
from ..words import error_words, not_offered, visible
from .contract import Documented, link, operation
from .errors import error_response
from .helpers import explained, following_move, is_htmx, keep_cookie, move_number, no_store, player_name
from .limits import creating, live_joining, live_lookup, live_voting
from .links import external_url
from .schemas import (
    LIVE_ALPHABET,
    LIVE_CODE_LENGTH,
    MAX_NICKNAME,
    EventStream,
    LiveCreated,
    LiveSettings,
    LiveState,
    LiveStepTo,
    LiveVote,
    StudentCreated,
    StudentJoin,
    VoteAccepted,
)

bp = Blueprint("live", __name__)
api = Blueprint("live_api", __name__, url_prefix="/api/live")
bp.after_request(no_store)
api.after_request(no_store)

SOURCES = ("teacher", "random", "adversary")
# The proposals the projector lists, most voted first.
SHOWN_PROPOSALS = 8


# --- codes and tokens ------------------------------------------------------------------------------


def new_code() -> str:
    """A random join code."""
    return "".join(secrets.choice(LIVE_ALPHABET) for _ in range(LIVE_CODE_LENGTH))


def read_code(text: str) -> str:
    """A join code as typed: any case, spaces and dashes ignored."""
    return "".join(c for c in str(text).upper() if c not in " -")[:32]


def idle_before() -> float:
    return time.time() - float(current_app.config["LIVE_IDLE_HOURS"]) * 3600


def not_found_words(code: str) -> str:
    return gettext(
        "No live session has the code %(code)s. Check it on the teacher's screen; a session ends after "
        "%(hours)d idle hours.",
        code=visible(code[: LIVE_CODE_LENGTH + 2]),
        hours=int(current_app.config["LIVE_IDLE_HOURS"]),
    )


def session_or_404(code: str) -> store.LiveSession:
    code = read_code(code)
    try:
        return store.load_live(code, idle_before())
    except store.LiveNotFound:
        abort(404, not_found_words(code))


def teacher_cookie(code: str) -> str:
    return f"live_teacher_{code}"


def student_cookie(code: str) -> str:
    return f"live_student_{code}"


def bearer() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def is_teacher(session: store.LiveSession) -> bool:
    token = bearer() or request.cookies.get(teacher_cookie(session.code))
    return token is not None and store.is_teacher(session.code, token)


def student_token(session: store.LiveSession) -> str | None:
    """The student's token, if it is one of this session's students'."""
    token = bearer() or request.cookies.get(student_cookie(session.code))
    return token if token and store.student_name(session.code, token) is not None else None


def keep_session_cookie(response, name: str, token: str):
    """A teacher's or a student's token, kept as long as an idle session lasts."""
    return keep_cookie(response, name, token, float(current_app.config["LIVE_IDLE_HOURS"]) * 3600)


# --- a session's screens ---------------------------------------------------------------------------


@dataclass
class Value:
    """E of one guess at one step: its figure once worked out, how exact."""

    guess: Code
    expected: float | None = None
    exact: bool = False
    known: bool = False
    pending: bool = False  # still being worked out in the background


def value_of(size: GameSize, history, guess: Code) -> Value:
    """E of ``guess`` after ``history``, as the review has it (worked out
    here when that is quick, else in the background)."""
    try:
        job = jobs.get("proposal", proposal_params(size, history, guess))
    except jobs.Busy:
        return Value(guess, pending=True)
    if not job.done:
        return Value(guess, pending=not job.failed)
    return Value(guess, job.result["expected"], job.result["exact"], job.result["known"])


def screen(session: store.LiveSession) -> dict:
    """What every screen of the session shows at its step."""
    size, history = session.size, session.history
    strategy = get_strategy(session.strategy)
    position = explained(strategy, size, history)
    last = explained(strategy, size, history[:-1]) if history else None
    bars = partition_bars(last.suggestion.partition, size.pegs) if last is not None and last.suggestion else []
    return {
        "session": session,
        "size": size,
        "strategy": strategy,
        "history": history,
        "position": position,
        "last_bars": bars,
        "solved": position.solved,
        "events_url": url_for("live.events", code=session.code, after=session.version),
    }


def tally(session: store.LiveSession, position) -> dict:
    """The class's proposals for the next guess, most voted first, each
    with E, beside the strategy's choice."""
    counts = store.votes(session.code).get(session.step, Counter())
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:SHOWN_PROPOSALS]
    size, history = session.size, session.history
    choice = position.suggestion.guess if position.suggestion else None
    values = {guess: value_of(size, history, Code.parse(guess, size)) for guess, _ in rows}
    mine = value_of(size, history, choice) if choice is not None else None
    favourite = rows[0][0] if rows else None
    return {
        "votes": rows,
        "voters": sum(counts.values()),
        "most": max(counts.values(), default=0),
        "worth": values,
        "choice": choice,
        "choice_value": mine,
        "favourite": favourite,
        "pending": any(v.pending for v in values.values()) or (mine is not None and mine.pending),
    }


def summary(session: store.LiveSession) -> dict:
    """Step by step, the class's favourite proposal against the strategy's
    guess, and what the favourites would have cost over the whole game."""
    size = session.size
    counts = store.votes(session.code)
    rows: list[dict] = []
    extra, compared, pending = 0.0, 0, False
    for step, (guess, _) in enumerate(session.history):
        voted = counts.get(step)
        if not voted:
            rows.append({"step": step, "guess": guess, "favourite": None})
            continue
        favourite, votes = sorted(voted.items(), key=lambda item: (-item[1], item[0]))[0]
        before = session.line[:step]
        mine = value_of(size, before, guess)
        theirs = value_of(size, before, Code.parse(favourite, size))
        difference = None
        pending = pending or mine.pending or theirs.pending
        if mine.expected is not None and theirs.expected is not None:
            difference = theirs.expected - mine.expected
            extra += difference
            compared += 1
        rows.append(
            {
                "step": step,
                "guess": guess,
                "value": mine,
                "favourite": favourite,
                "favourite_votes": votes,
                "voters": sum(voted.values()),
                "favourite_value": theirs,
                "difference": difference,
            }
        )
    return {"rows": rows, "extra": extra, "compared": compared, "pending": pending}


def qr_svg(url: str) -> Markup:
    """The join link as a QR code, an inline SVG (dark modules on a light
    ground whatever the theme, as scanners expect)."""
    svg = segno.make(url, error="m").svg_inline(
        scale=6, border=2, dark="#000", light="#fff", omitsize=True, title=gettext("QR code of the join link")
    )
    return Markup(svg.replace("<svg ", '<svg role="img" class="qr" ', 1))


def teacher_context(session: store.LiveSession) -> dict:
    context = screen(session)
    context["tally"] = tally(session, context["position"])
    context["summary"] = summary(session) if context["solved"] else None
    context["students"] = store.students(session.code)
    context["steps"] = stepper(session, context["position"])
    suggestion = context["position"].suggestion
    context["bars"] = partition_bars(suggestion.partition, session.size.pegs) if suggestion else []
    return context


def stepper(session: store.LiveSession, position) -> dict:
    """The steps the teacher's buttons go to (None where a button is off)."""
    furthest = len(session.line) + (0 if position.solved or session.step < len(session.line) else 1)
    return {
        "first": 0 if session.step else None,
        "prev": session.step - 1 if session.step else None,
        "next": session.step + 1 if session.step + 1 <= max(furthest, len(session.line)) else None,
    }


def move_to(session: store.LiveSession, to: int | None) -> store.LiveSession:
    """Show the class step ``to`` (the next one when None), working out the
    strategy's next guess when the class goes further than ever before."""
    to = session.step + 1 if to is None else to
    line = list(session.line)
    if to > len(line):
        if to > len(line) + 1:
            raise SettingsError(
                gettext("Step %(to)d is not reached yet: the furthest step now is %(most)d.", to=to, most=len(line) + 1)
            )
        position = explained(get_strategy(session.strategy), session.size, line)
        following = following_move(position, session.secret)
        if following is None:
            raise SettingsError(gettext("The game is solved: there is no further step."))
        line.append(following)
    moved = store.set_step(session.code, session.step, to, line, time.time())
    current_app.extensions["live"].publish(moved.code, moved.version)
    return moved


# --- the projector ---------------------------------------------------------------------------------


def read_settings(form) -> tuple[GameSize, str, str, Code | None]:
    """A new session's size, strategy, source and secret from the classroom's form."""
    size = parse_size(form)
    strategy = get_strategy(form.get("strategy") or DEFAULT_STRATEGY)
    if not offered(strategy, size):
        raise SettingsError(not_offered(strategy, size))
    source = form.get("source") or "random"
    if source not in SOURCES:
        raise SettingsError(gettext("Choose where the secret comes from."))
    secret = None
    if source == "teacher":
        secret = Code.parse(form.get("secret") or "", size)
        check_secret(secret, size)
    elif source == "random":
        secret = random_secret(size)
    return size, strategy.name, source, secret


def start(size: GameSize, strategy: str, source: str, secret: Code | None) -> tuple[store.LiveSession, str]:
    token = secrets.token_urlsafe(24)
    session = store.create_live(new_code, token, size, strategy, source, secret, time.time())
    explained(get_strategy(strategy), size, [])  # within the request's budget, or a clear refusal now
    return session, token


@bp.post("/live")
@creating
def create():
    """The classroom's "Start a live session": a new session, and the teacher's screen."""
    try:
        size, strategy, source, secret = read_settings(request.form)
        session, token = start(size, strategy, source, secret)
    except MastermindError as exc:
        return error_response(400, error_words(exc))
    response = redirect(url_for("live.teach", code=session.code), 303)
    return keep_session_cookie(response, teacher_cookie(session.code), token)


@bp.get("/live/<code>/teach")
@live_lookup
def teach(code):
    session = session_or_404(code)
    if not is_teacher(session):
        return error_response(
            403, gettext("This is the teacher's screen of a live session. Students join at %(url)s.", url="/join")
        )
    join_url = external_url("live.join_code", code=session.code)
    context = teacher_context(session)
    if is_htmx():
        return render_template("live/_projector.html", **context)
    return render_template(
        "live/teach.html",
        join_url=join_url,
        join_form_url=external_url("live.join_form"),
        qr=qr_svg(join_url),
        **context,
    )


@bp.post("/live/<code>/step")
@live_lookup
def step(code):
    session = session_or_404(code)
    if not is_teacher(session):
        return error_response(403, gettext("Only the teacher steps through the game."))
    raw = request.form.get("to", "")
    try:
        to = small_number(raw, digits=3)
        if to is None and raw:
            raise SettingsError(gettext("The step must be a whole number."))
        session = move_to(session, to)
    except store.StepMoved:
        session = session_or_404(code)  # another of the teacher's screens stepped first: show where it is
    except MastermindError as exc:
        return error_response(400, error_words(exc))
    if is_htmx():
        return render_template("live/_projector.html", **teacher_context(session))
    return redirect(url_for("live.teach", code=session.code), 303)


@bp.get("/live/<code>/votes")
@live_lookup
def votes_fragment(code):
    """The projector's proposals, asked for again while their E is worked out."""
    session = session_or_404(code)
    if not is_teacher(session):
        return error_response(403, gettext("Only the teacher sees the votes."))
    context = teacher_context(session)
    return render_template("live/_votes.html", **context)


# --- the students ----------------------------------------------------------------------------------


@bp.get("/join")
def join_form():
    return render_template("live/join.html", code="", error=None, nickname="")


@bp.get("/join/<code>")
@live_lookup
def join_code(code):
    session = session_or_404(code)
    return render_template("live/join.html", code=session.code, error=None, nickname="")


@bp.post("/join")
@live_lookup
@live_joining
def join():
    code = read_code(request.form.get("code", ""))
    if not code:  # nothing to look up: not counted as a wrong code
        error = gettext("Enter the join code shown on the teacher's screen.")
        return render_template("live/join.html", code="", error=error, nickname=""), 400
    try:
        nickname = player_name(request.form.get("nickname"), MAX_NICKNAME)
    except MastermindError as exc:
        return render_template("live/join.html", code=code, error=error_words(exc), nickname=""), 400
    try:
        session = store.load_live(code, idle_before())
    except store.LiveNotFound:
        page = render_template("live/join.html", code=code, error=not_found_words(code), nickname=nickname)
        return page, 404
    token = secrets.token_urlsafe(24)
    version = store.add_student(session.code, token, nickname, time.time())
    current_app.extensions["live"].publish(session.code, version)
    response = redirect(url_for("live.follow", code=session.code), 303)
    return keep_session_cookie(response, student_cookie(session.code), token)


@bp.get("/live/<code>")
@live_lookup
def follow(code):
    session = session_or_404(code)
    token = student_token(session)
    if token is None:
        if is_teacher(session):
            return redirect(url_for("live.teach", code=session.code), 303)
        return redirect(url_for("live.join_code", code=session.code), 303)
    context = screen(session)
    return render_template(
        "live/student.html",
        nickname=store.student_name(session.code, token),
        my_vote=store.vote_of(session.code, token, session.step),
        vote_error=None,
        **context,
    )


def read_vote(session: store.LiveSession, text) -> Code:
    guess = Code.parse(text or "", session.size)
    if session.size.distinct_guesses and not guess.is_distinct():
        raise SettingsError(gettext("In this game every guess uses different colours: no colour twice."))
    return guess


@bp.post("/live/<code>/vote")
@live_lookup
@live_voting
def vote(code):
    session = session_or_404(code)
    token = student_token(session)
    if token is None:
        return redirect(url_for("live.join_code", code=session.code), 303)
    status, error, mine = 303, None, None
    try:
        step = request.form.get("step")  # the current one when the form says none
        if step is not None and move_number(step, least=0) != session.step:
            raise store.StepMoved(session.code)
        if session.history and explained(get_strategy(session.strategy), session.size, session.history).solved:
            raise SettingsError(gettext("The game is solved: there is nothing left to vote on."))
        guess = read_vote(session, request.form.get("guess"))
        _, version = store.cast_vote(session.code, token, session.step, guess, time.time())
        current_app.extensions["live"].publish(session.code, version)
        mine = str(guess)
    except store.StepMoved:
        status, error = 409, gettext("The teacher has moved on: propose a guess for this step.")
    except MastermindError as exc:
        status, error = 400, error_words(exc)
    if is_htmx():
        return render_template("live/_my_vote.html", my_vote=mine, vote_error=error), 200 if error is None else status
    if error is None:
        return redirect(url_for("live.follow", code=session.code), 303)
    context = screen(session_or_404(code))
    page = render_template(
        "live/student.html", nickname=store.student_name(session.code, token), my_vote=None, vote_error=error, **context
    )
    return page, status


# --- live events -----------------------------------------------------------------------------------

# Students' step fragments by session, version and language: rendered once
# for the whole class, however many streams send them.
_fragments: LRUCache = LRUCache(maxsize=512)
_fragments_lock = threading.Lock()


class Rendered:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.text: str | None = None


def student_fragment(session: store.LiveSession) -> str:
    key = (session.code, session.step_version, str(get_locale()))
    with _fragments_lock:
        entry = _fragments.get(key)
        if entry is None:
            entry = _fragments[key] = Rendered()
    with entry.lock:
        if entry.text is None:
            entry.text = render_template(
                "live/_student.html", my_vote=None, vote_error=None, announce=True, **screen(session)
            )
    return entry.text


def event(name: str, data: str, version: int) -> str:
    """One server-sent event: its name, the session's version as its id, and the HTML."""
    lines = [line for line in data.splitlines() if line.strip()] or [""]
    return f"event: {name}\nid: {version}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def resume_after() -> int:
    """The version the client has seen: Last-Event-ID on a reconnect, else the page's."""
    for raw in (request.headers.get("Last-Event-ID", ""), request.args.get("after", "")):
        version = small_number(raw, digits=9)
        if version is not None:
            return version
    return -1


@bp.get("/live/<code>/events")
@live_lookup
@operation(
    id="liveEvents",
    tag="live",
    summary="Follow a live session",
    description='Server-sent events: "step" with the step\'s HTML each time the teacher steps; with the '
    'teacher\'s token (or cookie) also "votes" each time the proposals or the students change. The id of each '
    "event is the session's version: send it back as Last-Event-ID to resume. A stream ends after a few "
    "minutes and the client reconnects.",
    answers={
        200: Documented("The stream.", EventStream, media_type="text/event-stream"),
        503: Documented(
            "This server follows as many streams as it may, in all or from this address: retry later.",
            headers=("Retry-After",),
        ),
    },
    errors=(404, 429),
)
def events(code):
    session = session_or_404(code)
    teacher = is_teacher(session)
    hub = current_app.extensions["live"]
    address = get_remote_address()
    if not hub.room_for(address):
        response = error_response(503, gettext("Too many screens follow this server just now: use Refresh."))
        response.headers["Retry-After"] = "10"
        return response
    config = current_app.config
    keepalive, length = float(config["LIVE_KEEPALIVE_SECONDS"]), float(config["LIVE_STREAM_SECONDS"])
    after = resume_after()

    def stream():
        sent, seen = after, after
        ends = time.monotonic() + length
        try:
            with hub.follow(session.code, address) as followed:
                # The first line once the stream is followed (with Redis,
                # subscribed): from here on no step can pass it by.
                yield "retry: 1000\n\n"
                while True:
                    try:
                        now = store.load_live(session.code, idle_before())
                    except store.LiveNotFound:
                        yield event("ended", gettext("This live session has ended."), max(sent, 0))
                        return
                    if now.step_version > sent:
                        if teacher:
                            html = render_template("live/_projector.html", announce=True, **teacher_context(now))
                        else:
                            html = student_fragment(now)
                        yield event("step", html, now.version)
                        sent = now.version
                    elif teacher and now.version > sent:
                        yield event("votes", render_template("live/_votes.html", **teacher_context(now)), now.version)
                        sent = now.version
                    seen = max(seen, now.version)
                    store.hand_back()
                    left = ends - time.monotonic()
                    if left <= 0:
                        return
                    if not hub.wait(followed, seen, min(keepalive, left)):
                        yield ": keepalive\n\n"
        except Full:
            return
        finally:
            store.hand_back()

    response = Response(stream_with_context(stream()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


# --- the API -----------------------------------------------------------------------------------------


def state_json(session: store.LiveSession, teacher: bool) -> dict:
    context = screen(session)
    position = context["position"]
    out = {
        **session.size.params(),
        "code": session.code,
        "strategy": session.strategy,
        "source": session.source,
        "step": session.step,
        "steps": len(session.line),
        "solved": position.solved,
        "history": [{"guess": str(g), "black": r.black, "white": r.white} for g, r in session.history],
        "remaining": position.remaining,
        "students": len(store.students(session.code)),
        "version": session.version,
        "join_url": external_url("live.join_code", code=session.code),
        "events_url": external_url("live.events", code=session.code),
    }
    if position.codes() and not position.solved:
        out["candidates"] = [str(c) for c in position.codes()]
    if teacher:
        if position.suggestion is not None:
            out["strategy_guess"] = str(position.suggestion.guess)
        out["votes"] = dict(sorted(store.votes(session.code).get(session.step, Counter()).items()))
    return out


def teacher_or_refusal(session: store.LiveSession):
    """None for the teacher's token; otherwise the 401 or 403 to answer."""
    if bearer() is None and not request.cookies.get(teacher_cookie(session.code)):
        return error_response(
            401, gettext("Only the teacher steps: send the teacher's token as Authorization: Bearer …")
        )
    if not is_teacher(session):
        return error_response(403, gettext("That is not this session's teacher token."))
    return None


@api.post("")
@creating
@operation(
    id="createLive",
    tag="live",
    summary="Start a live session",
    description="A new live classroom session on the strategy's game. Keep the teacher token: it steps and "
    "sees the votes. Students join with the code.",
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
        size = GameSize(body.pegs, body.colors, body.distinct, body.distinct_guesses)
        strategy = get_strategy(body.strategy)
        if not offered(strategy, size):
            raise SettingsError(not_offered(strategy, size))
        if (body.source == "teacher") != (body.secret is not None):
            raise SettingsError(gettext('Give a secret exactly when the source is "teacher".'))
        secret = None
        if body.secret is not None:
            secret = Code.parse(body.secret, size)
            check_secret(secret, size)
        elif body.source == "random":
            secret = random_secret(size)
        session, token = start(size, strategy.name, body.source, secret)
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    answer = {
        "code": session.code,
        "teacher_token": token,
        "join_url": external_url("live.join_code", code=session.code),
        "url": url_for("live_api.state", code=session.code),
    }
    return answer, 201, {"Location": answer["url"]}


@api.get("/<code>")
@live_lookup
@operation(
    id="getLive",
    tag="live",
    summary="A live session's state",
    description="What the class sees now; with the teacher's token, also the strategy's next guess and the "
    "votes for it.",
    answers={200: Documented("The state.", LiveState)},
    errors=(404, 429),
)
def state(code):
    session = session_or_404(code)
    return state_json(session, is_teacher(session))


@api.post("/<code>/step")
@live_lookup
@operation(
    id="stepLive",
    tag="live",
    summary="Step the class's game",
    description="Show the class the next step, or step `to`. Only with the teacher's token.",
    body=LiveStepTo,
    answers={
        200: Documented("The new state.", LiveState),
        403: Documented("Not the teacher's token (or a request from another site): nothing changed."),
    },
    errors=(400, 401, 404, 409, 422, 429),
)
def step_json(code, body: LiveStepTo):
    session = session_or_404(code)
    if (refusal := teacher_or_refusal(session)) is not None:
        return refusal
    try:
        session = move_to(session, body.to)
    except store.StepMoved:
        return error_response(409, gettext("Another of the teacher's screens stepped first: read the state again."))
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    return state_json(session, True)


@api.post("/<code>/students")
@live_lookup
@live_joining
@operation(
    id="joinLive",
    tag="live",
    summary="Join a live session",
    description="A student joins: the answer's token votes. No account and nothing personal is kept; a "
    "nickname is optional.",
    body=StudentJoin,
    answers={201: Documented("The student's token.", StudentCreated)},
    errors=(400, 404, 429),
)
def join_json(code, body: StudentJoin):
    session = session_or_404(code)
    try:
        nickname = player_name(body.nickname, MAX_NICKNAME)
    except MastermindError as exc:
        return error_response(400, error_words(exc))
    token = secrets.token_urlsafe(24)
    version = store.add_student(session.code, token, nickname, time.time())
    current_app.extensions["live"].publish(session.code, version)
    return {"student_token": token, "url": url_for("live.follow", code=session.code)}, 201


@api.post("/<code>/votes")
@live_lookup
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
    session = session_or_404(code)
    if bearer() is None and not request.cookies.get(student_cookie(session.code)):
        return error_response(401, gettext("Join first: send the student's token as Authorization: Bearer …"))
    token = student_token(session)
    if token is None:
        return error_response(403, gettext("That is not a token of this session's students."))
    try:
        if explained(get_strategy(session.strategy), session.size, session.history).solved:
            return error_response(409, gettext("The game is solved: there is nothing left to vote on."))
        guess = read_vote(session, body.guess)
        replaced, version = store.cast_vote(session.code, token, session.step, guess, time.time())
    except store.StepMoved:
        return error_response(409, gettext("The teacher has moved on: propose a guess for this step."))
    except MastermindError as exc:
        return error_response(422, error_words(exc))
    current_app.extensions["live"].publish(session.code, version)
    return {"step": session.step, "guess": str(guess), "replaced": replaced}, 201
