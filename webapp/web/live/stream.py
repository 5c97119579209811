"""A live session's event stream: server-sent events that carry the HTML
each screen swaps in, one "step" event per step to every screen and, for
the teacher, "votes" as the proposals and the room change (at most one
every ``LIVE_VOTES_SECONDS``, however fast votes come). A stream that
cannot go on ends with an "ended" event the page shows, which closes it
for good rather than reconnecting. A stream whose server stops (a deploy:
gunicorn's SIGTERM) ends with a ``retry`` of a random few seconds instead,
which the browser's EventSource obeys: it reconnects with Last-Event-ID,
to whichever server answers, and misses nothing."""

from __future__ import annotations

import random
import threading
import time

from cachetools import LRUCache
from flask import Response, current_app, render_template, request, stream_with_context
from flask_babel import get_locale, gettext
from flask_limiter.util import get_remote_address

from ... import store
from ...engine import MastermindError
from ...events import RECONNECT_MS, Full, Gone
from ...settings import small_number
from ...words import error_words
from ..contract import Documented, operation
from ..errors import error_response
from ..limits import enter_stream, leave_stream
from ..schemas import EventStream
from . import access, screens, service
from .blueprints import bp

# Students' step fragments by session, version and language: rendered once
# for the whole class, however many streams send them.
_fragments: LRUCache = LRUCache(maxsize=512)
_fragments_lock = threading.Lock()


class Rendered:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.text: str | None = None


def student_fragment(session: service.LiveSession) -> str:
    key = (session.code, session.step_version, str(get_locale()))
    with _fragments_lock:
        entry = _fragments.get(key)
        if entry is None:
            entry = _fragments[key] = Rendered()
    with entry.lock:
        if entry.text is None:
            entry.text = render_template(
                "live/_student.html", my_vote=None, vote_error=None, announce=True, **screens.screen(session)
            )
    return entry.text


def event(name: str, data: str, version: int) -> str:
    """One server-sent event: its name, the session's version as its id, and the HTML."""
    lines = [line for line in data.splitlines() if line.strip()] or [""]
    return f"event: {name}\nid: {version}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def ended(sentence: str, version: int) -> str:
    """The last event of a stream that will not go on: the page shows the sentence and stops listening."""
    return event("ended", render_template("live/_ended.html", message=sentence), version)


def moving_on() -> str:
    """The last lines of a stream whose server stops: come back, to any
    server, after a random few seconds (so a class does not come back at once)."""
    return f": this server is stopping\nretry: {random.randint(*RECONNECT_MS)}\n\n"


def resume_after() -> int:
    """The version the client has seen: Last-Event-ID on a reconnect, else the page's."""
    for raw in (request.headers.get("Last-Event-ID", ""), request.args.get("after", "")):
        version = small_number(raw, digits=9)
        if version is not None:
            return version
    return -1


def client_gone() -> bool:
    """Whether the client closed its connection (where the server lets us
    see its socket, as gunicorn does), so its stream's place is freed now
    rather than at the next keepalive."""
    sock = request.environ.get("gunicorn.socket")
    if sock is None:
        return False
    import select
    import socket

    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (OSError, ValueError):
        return True


@bp.get("/live/<code>/events")
@operation(
    id="liveEvents",
    tag="live",
    summary="Follow a live session",
    description='Server-sent events: "step" with the step\'s HTML each time the teacher steps; with the '
    'teacher\'s token (or cookie) also "votes" as the proposals or the students change, at most about once '
    'a second; "ended" when the session ends or the stream cannot go on (do not reconnect). The id of each '
    "event is the session's version: send it back as Last-Event-ID to resume. A stream ends after a few "
    "minutes and the client reconnects.",
    answers={
        200: Documented("The stream.", EventStream, media_type="text/event-stream"),
        503: Documented(
            "This server follows as many streams as it may, in all, from this address or of this session "
            "(its teacher's and students', or the few without a token of the session): retry later.",
            headers=("Retry-After",),
        ),
    },
    errors=(403, 404, 429),
)
def events(code):
    try:
        session = service.find(code, *access.tokens(code))
    except service.Refused as exc:
        return error_response(exc.status, str(exc))
    teacher = service.is_teacher(session, access.teacher_token(session.code))
    student = None if teacher else service.student_of(session, access.student_token(session.code))
    if student is not None and student.removed:
        return error_response(403, service.removed_words())
    hub = current_app.extensions["live"]
    address = get_remote_address()
    watcher = not teacher and student is None  # the code alone: a few places of its own, never the room's
    if not hub.room_for(address, session.code) or not enter_stream(session.code, watcher):
        current_app.extensions["metrics"].refused("live-streams")
        response = error_response(503, gettext("Too many screens follow this server just now: use Refresh."))
        response.headers["Retry-After"] = "10"
        return response
    config = current_app.config
    keepalive, length = float(config["LIVE_KEEPALIVE_SECONDS"]), float(config["LIVE_STREAM_SECONDS"])
    votes_every = float(config["LIVE_VOTES_SECONDS"])
    after = resume_after()

    token = None if teacher else access.student_token(session.code)

    def stream():
        sent, seen, votes_sent = after, after, -votes_every
        room_sent = after if after >= 0 else -1
        room_checked = session.room_version
        ends = time.monotonic() + length
        try:
            with hub.follow(session.code, address) as followed:
                # The first line once the stream is followed (with Redis,
                # subscribed): from here on no step can pass it by.
                yield "retry: 1000\n\n"
                while True:
                    if hub.closing:
                        yield moving_on()
                        return
                    try:
                        now = store.live.load_live(session.code, time.time() - service.idle_hours() * 3600)
                    except store.live.LiveNotFound:
                        yield ended(gettext("This live session has ended."), max(sent, 0))
                        return
                    if student is not None and now.room_version > room_checked:
                        # The room changed: a student the teacher removed stops following at once.
                        room_checked = now.room_version
                        me = service.student_of(now, token)
                        if me is None or me.removed:
                            yield ended(service.removed_words(), now.version)
                            return
                    if now.step_version > sent:
                        if teacher:
                            html = render_template(
                                "live/_projector.html", announce=True, **screens.teacher_context(now, room_oob=True)
                            )
                            room_sent = now.version
                        else:
                            html = student_fragment(now)
                        yield event("step", html, now.version)
                        sent = now.version
                    elif teacher and now.version > sent:
                        wait = votes_sent + votes_every - time.monotonic()
                        if wait > 0:  # the teacher's votes at most once a period; a step goes at once
                            store.hand_back()
                            hub.wait(followed, now.version, min(wait, max(ends - time.monotonic(), 0)), client_gone)
                            continue
                        # The room panel goes along only when the room changed since it was last sent.
                        room = now.room_version > room_sent
                        html = render_template("live/_votes.html", **screens.teacher_context(now, room_oob=room))
                        yield event("votes", html, now.version)
                        sent, votes_sent = now.version, time.monotonic()
                        if room:
                            room_sent = now.version
                    seen = max(seen, now.version)
                    store.hand_back()
                    left = ends - time.monotonic()
                    if left <= 0:
                        return
                    if not hub.wait(followed, seen, min(keepalive, left), gone=client_gone):
                        yield ": keepalive\n\n"
        except (Full, Gone):
            return
        except MastermindError as exc:  # this step cannot be drawn: say so once, and stop
            yield ended(error_words(exc), max(sent, 0))
        finally:
            store.hand_back()

    response = Response(stream_with_context(stream()), mimetype="text/event-stream")
    app, code = current_app._get_current_object(), session.code  # type: ignore[attr-defined]
    response.call_on_close(lambda: leave_stream(app, code, watcher))
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response
