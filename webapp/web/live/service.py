"""The live classroom's rules, once for both of its front ends: the pages
(forms, cookies) and the JSON API (bodies, Bearer tokens) call these
functions, which validate with one model (``schemas.LiveSettings`` for a
new session), record the change in the store and publish it to every
screen that follows the session. A refusal is a :class:`Refused`: a
sentence and the status both front ends answer with."""

from __future__ import annotations

import secrets
import time
from typing import Literal, get_args, get_origin

from flask import current_app
from flask_babel import gettext, ngettext
from pydantic import ValidationError

from ... import store
from ...engine import Code, GameSize, MastermindError, get_strategy
from ...engine.codes import check_secret, random_secret
from ...engine.lines import offered
from ...engine.position import description_cost, following_move
from ...engine.strategies import StrategyError, played_mask
from ...settings import NO, YES, SettingsError, small_number
from ...words import error_words, not_offered, strategy_title, visible
from ..contract import validation_words
from ..limits import count_wrong_code, hold_off, know_session, knows_session, minutes_until, wrong_codes_wait
from ..names import player_name
from ..positions import explained
from ..schemas import LIVE_ALPHABET, LIVE_CODE_LENGTH, MAX_NICKNAME, LiveGameSettings, LiveSettings
from .nicknames import nickname

LiveSession = store.live.LiveSession
Student = store.live.Student
# A proposal sent as the countdown ends still counts if it arrives within
# this many seconds (a phone's clock and the network are not exact).
LATE_GRACE_SECONDS = 1.0


class Refused(SettingsError):
    """A request the classroom's rules refuse: nothing was recorded."""

    def __init__(self, sentence: str, status: int = 422):
        super().__init__(sentence)
        self.status = status


def refused(exc: MastermindError, status: int = 422) -> Refused:
    """An engine's refusal (a code of the wrong length, say) worded."""
    return exc if isinstance(exc, Refused) else Refused(error_words(exc), status)


# --- finding a session ------------------------------------------------------------------------------


def new_code() -> str:
    """A random join code."""
    return "".join(secrets.choice(LIVE_ALPHABET) for _ in range(LIVE_CODE_LENGTH))


def read_code(text: str) -> str:
    """A join code as typed: any case, spaces and dashes ignored."""
    return "".join(c for c in str(text).upper() if c not in " -")[:32]


def idle_hours() -> int:
    return int(current_app.config["LIVE_IDLE_HOURS"])


def find(code: str, *tokens: str | None) -> LiveSession:
    """The session a join code names. A code that names none counts
    towards its address's limit of wrong codes (a 404); a code that names
    one never counts. Past that limit the address gets 429 for every code,
    so it learns nothing more, until the window it used up ends (nothing
    counts meanwhile, so retries never make the wait longer): but for the
    sessions it has met (started or joined: a school's class keeps its
    session through its pupils' typos) and for requests with a token of the
    session (``token``: its teacher's or a student's)."""
    code = read_code(code)
    wait = wrong_codes_wait()
    if wait:
        try:
            session = store.live.load_live(code, time.time() - idle_hours() * 3600)
        except store.live.LiveNotFound:
            session = None
        if session is not None and (knows_session(code) or any(holds(session, token) for token in tokens)):
            return session
        raise too_many_wrong_codes(wait)
    try:
        return store.live.load_live(code, time.time() - idle_hours() * 3600)
    except store.live.LiveNotFound:
        if not count_wrong_code():
            raise too_many_wrong_codes(wrong_codes_wait()) from None
        raise Refused(
            gettext(
                "No live session has the code %(code)s. Check it on the teacher's screen; a session ends after "
                "%(hours)d idle hours.",
                code=visible(code[: LIVE_CODE_LENGTH + 2]),
                hours=idle_hours(),
            ),
            404,
        ) from None


def too_many_wrong_codes(wait: int) -> Refused:
    """The refusal past the limit of wrong codes, ``wait`` seconds before it ends."""
    hold_off(wait)
    minutes = minutes_until(time.time() + wait)
    return Refused(
        ngettext(
            "Too many join codes from this address found no session just now: check the code on the "
            "teacher's screen, and try again in %(num)d minute.",
            "Too many join codes from this address found no session just now: check the code on the "
            "teacher's screen, and try again in %(num)d minutes.",
            minutes,
        ),
        429,
    )


def holds(session: LiveSession, token: str | None) -> bool:
    """Whether ``token`` is the teacher's or a student's of the session."""
    return is_teacher(session, token) or student_of(session, token) is not None


def is_teacher(session: LiveSession, token: str | None) -> bool:
    return token is not None and store.live.is_teacher(session.code, token)


def student_of(session: LiveSession, token: str | None) -> Student | None:
    """The student a token names in this session (removed or not)."""
    return store.live.student_of(session.code, token) if token else None


def publish(session: LiveSession, version: int) -> None:
    """Tell every screen of the session (on every server) that it changed."""
    current_app.extensions["live"].publish(session.code, version)


# --- starting a session -------------------------------------------------------------------------------


def numeric(annotation) -> bool:
    """Whether a field holds a number (an int, or a choice of ints)."""
    return annotation is int or (
        get_origin(annotation) is Literal and all(isinstance(a, int) for a in get_args(annotation))
    )


def settings_of(form, model: type[LiveGameSettings] = LiveSettings) -> LiveGameSettings:
    """A new session's (or game's) settings from the classroom's form, read
    by the model the API's body is: numbers and yes-or-no written as forms
    write them, empty fields left out. A checkbox left unticked is "no"."""
    data: dict = {}
    for name, field in model.model_fields.items():
        value = form.get(name)
        if value is None and field.annotation is bool and form.get(f"{name}-shown"):
            value = "no"  # a checkbox the form showed, left unticked
        if value is None or (value == "" and field.annotation is not bool):
            continue
        if field.annotation is bool:
            text = str(value).strip().lower()
            data[name] = text in YES if text in YES | NO else value
        elif numeric(field.annotation):
            number = small_number(value)
            data[name] = value if number is None else number
        else:
            data[name] = value
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise Refused(validation_words(model, exc), 400) from None


def drawable(strategy, size: GameSize, secret: Code | None = None) -> None:
    """Refuse a game whose steps a page cannot draw in time. A step's
    request describes its position and the one before (on a worker that
    has drawn neither yet), so each two positions in a row down the game's
    line (the secret's replies, or the adversary's when there is none) must
    fit in one request's budget, by the engine's own count of the work. The
    line is followed only until a position leaves so few codes that any two
    later positions fit even with every colour played: on most boards, a
    step or two."""
    most = int(current_app.config["REQUEST_BUDGET"])
    every_colour = (1 << size.colors) - 1
    history: list = []
    try:
        position = explained(strategy, size, history)
        cost = description_cost(strategy, size, position.remaining, 0)
        while cost <= most:
            move = following_move(position, secret)
            if move is None or position.suggestion is None:  # solved
                return
            history.append(move)
            remaining = position.suggestion.partition[move[1]]
            following = description_cost(strategy, size, remaining, played_mask(size, history))
            if cost + following > most:
                break
            if 2 * description_cost(strategy, size, remaining, every_colour) <= most:
                return
            position, cost = explained(strategy, size, history), following
    except StrategyError:
        pass
    raise Refused(
        gettext(
            "Some steps of the %(strategy)s strategy on this board would take longer to show than a page "
            "may: choose a smaller board or another strategy (the classroom page works such boards out step "
            "by step).",
            strategy=strategy_title(strategy),
        )
    )


def game_of(settings: LiveGameSettings) -> tuple[GameSize, Code | None]:
    """The board and the secret of a new game, once its settings are
    checked: a strategy this board offers, a secret exactly when the
    teacher types one, and steps a page can draw."""
    try:
        size = GameSize(settings.pegs, settings.colors, settings.distinct, settings.distinct_guesses)
        strategy = get_strategy(settings.strategy)
        if not offered(strategy, size):
            raise Refused(not_offered(strategy, size))
        secret: Code | None = None
        if settings.source == "teacher":
            if settings.secret is None:
                raise Refused(
                    gettext("Type the secret, or choose a secret drawn at random: the class will not see it.")
                )
            secret = Code.parse(settings.secret, size)
            check_secret(secret, size)
        elif settings.secret is not None:
            raise Refused(gettext('Give a secret exactly when the source is "teacher".'))
        elif settings.source == "random":
            secret = random_secret(size)
        # A secret drawn at random is checked along the adversary's line (the
        # costliest replies), so whether a board is offered never depends on
        # the draw; a typed secret along its own line.
        drawable(strategy, size, secret if settings.source == "teacher" else None)
    except MastermindError as exc:
        raise refused(exc) from None
    return size, secret


def create(settings: LiveSettings) -> tuple[LiveSession, str]:
    """A new session and its teacher's token."""
    size, secret = game_of(settings)
    token = secrets.token_urlsafe(24)
    session = store.live.create_live(
        new_code,
        token,
        size,
        get_strategy(settings.strategy).name,
        settings.source,
        secret,
        time.time(),
        settings.names,
        settings.scoring,
        settings.countdown,
    )
    know_session(session.code)
    return session, token


def next_game(session: LiveSession, settings: LiveGameSettings) -> LiveSession:
    """The next game of the lesson in the same room: every student keeps
    their seat, name and points, and their screens follow into it."""
    size, secret = game_of(settings)
    try:
        started = store.live.new_game(
            session.code,
            session.game,
            size,
            get_strategy(settings.strategy).name,
            settings.source,
            secret,
            settings.countdown,
            time.time(),
        )
    except store.live.StepMoved:
        raise Refused(
            gettext("Another of the teacher's screens started a new game first: read the state again."), 409
        ) from None
    publish(started, started.version)
    return started


# --- the teacher --------------------------------------------------------------------------------------


def step(session: LiveSession, to: int | None) -> LiveSession:
    """Show the class step ``to`` (the next one when None), working out the
    strategy's next guess when the class goes further than ever before. A
    step is saved only once its screen can be drawn."""
    to = session.step + 1 if to is None else to
    line = list(session.line)
    strategy = get_strategy(session.strategy)
    try:
        if to > len(line):
            if to > len(line) + 1:
                raise Refused(
                    gettext(
                        "Step %(to)d is not reached yet: the furthest step now is %(most)d.",
                        to=to,
                        most=len(line) + 1,
                    )
                )
            following = following_move(explained(strategy, session.size, line), session.secret)
            if following is None:
                raise Refused(gettext("The game is solved: there is no further step."), 409)
            line.append(following)
        explained(strategy, session.size, line[:to])
    except MastermindError as exc:
        raise refused(exc) from None
    try:
        moved = store.live.set_step(session.code, session.step, to, line, time.time())
    except store.live.StepMoved:
        raise Refused(gettext("Another of the teacher's screens stepped first: read the state again."), 409) from None
    publish(moved, moved.version)
    return moved


def no_such_student(seat: int) -> Refused:
    return Refused(gettext("No student of this session has the number %(seat)d.", seat=seat), 404)


def remove(session: LiveSession, seat: int) -> None:
    """Take a student out of the session: their votes stop counting (they
    stay in the report, marked), their screen is told at once, and their
    browser cannot join it again."""
    try:
        version = store.live.remove_student(session.code, seat, time.time())
    except store.live.NoSuchStudent:
        raise no_such_student(seat) from None
    publish(session, version)


def rename(session: LiveSession, seat: int, typed) -> Student:
    """Give a student another name (numbered if another student has it)."""
    try:
        name = player_name(typed, MAX_NICKNAME)
    except MastermindError as exc:
        raise refused(exc, 400) from None
    if not name:
        raise Refused(gettext("Type the student's new name."), 400)
    try:
        student, version = store.live.rename_student(session.code, seat, name, time.time())
    except store.live.NoSuchStudent:
        raise no_such_student(seat) from None
    publish(session, version)
    return student


def lock(session: LiveSession, closed: bool) -> LiveSession:
    """Close the room to new students, or open it again."""
    publish(session, store.live.set_locked(session.code, closed, time.time()))
    session.locked = closed
    return session


# --- the students -------------------------------------------------------------------------------------


def most_students() -> int:
    return int(current_app.config["LIVE_MAX_STUDENTS"])


def removed_words() -> str:
    return gettext("The teacher has taken you out of this session.")


def join(session: LiveSession, typed, token: str | None = None) -> tuple[Student, str]:
    """A student joins (or comes back to their seat, with the token of an
    earlier join); (the student, their token)."""
    earlier = student_of(session, token)
    if earlier is not None:
        if earlier.removed:
            raise Refused(removed_words(), 403)
        return earlier, str(token)
    try:
        name = player_name(typed, MAX_NICKNAME)
    except MastermindError as exc:
        raise refused(exc, 400) from None
    token = secrets.token_urlsafe(24)
    given = nickname if session.names == "generated" else ("" if session.names == "hidden" else name)
    try:
        student, version = store.live.add_student(session.code, token, given, time.time(), most_students())
    except store.live.RoomClosed:
        raise room_closed() from None
    except store.live.RoomFull:
        most = most_students()
        raise Refused(
            ngettext(
                "This session is full: it has room for %(num)d student.",
                "This session is full: it has room for %(num)d students.",
                most,
            ),
            409,
        ) from None
    publish(session, version)
    know_session(session.code)
    return student, token


def room_closed() -> Refused:
    return Refused(
        gettext("The teacher has closed this room: nobody new can join now. Ask the teacher to open it."), 409
    )


def solved(session: LiveSession) -> bool:
    return bool(session.history) and explained(get_strategy(session.strategy), session.size, session.history).solved


def read_vote(session: LiveSession, text) -> Code:
    guess = Code.parse(text or "", session.size)
    if session.size.distinct_guesses and not guess.is_distinct():
        raise SettingsError(gettext("In this game every guess uses different colours: no colour twice."))
    return guess


def vote(session: LiveSession, token: str | None, step_seen: int | None, text) -> tuple[Code, bool]:
    """A student's proposal for the next guess at the step they see (the
    current one when None); (the guess, whether it replaced their earlier
    proposal at this step)."""
    student = student_of(session, token)
    if student is None:
        raise Refused(gettext("That is not a token of this session's students."), 403)
    if student.removed:
        raise Refused(removed_words(), 403)
    moved = Refused(gettext("The teacher has moved on: propose a guess for this step."), 409)
    if step_seen is not None and step_seen != session.step:
        raise moved
    if solved(session):
        raise Refused(gettext("The game is solved: there is nothing left to vote on."), 409)
    now = time.time()
    if session.deadline is not None and now > session.deadline + LATE_GRACE_SECONDS:
        raise Refused(
            ngettext(
                "Time is up: proposals for this guess closed %(num)d second after the teacher showed the step.",
                "Time is up: proposals for this guess closed %(num)d seconds after the teacher showed the step.",
                session.countdown,
            ),
            409,
        )
    try:
        guess = read_vote(session, text)
        replaced, version = store.live.cast_vote(session.code, str(token), session.game, session.step, guess, now)
    except store.live.StepMoved:
        raise moved from None
    except MastermindError as exc:
        raise refused(exc) from None
    publish(session, version)
    return guess, replaced
