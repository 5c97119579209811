"""Live classroom sessions: the teacher's game (its line of guesses and
replies, and the step the class sees), the students who joined it and the
guess each proposes at a step. Tokens are kept as SHA-256 digests, never as
themselves. Every change adds one to the session's ``version``, the number
live events carry.

A student has a seat: a number counted from 1 in each session, the ``id``
the teacher removes them by. A removed student keeps the seat (so that
browser cannot join again) and their votes stop counting, but stay in the
report; the seat no longer takes a place in the room.

A session is a room for a whole lesson: it plays one game at a time (the
``game``-th), and the games before it are kept in ``live_games``. Every
vote names its game and step."""

from __future__ import annotations

import hashlib
import secrets
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa

from ..engine import Code, Feedback, GameSize
from ..engine.codes import format_history, parse_history
from .database import connection, locked, transaction
from .games import size_of, size_values
from .tables import live_games, live_sessions, live_students, live_votes


class LiveNotFound(LookupError):
    """No live session has that code (or it ended)."""


class StepMoved(Exception):
    """The teacher moved on (or back) before this request was recorded."""


class RoomClosed(Exception):
    """The teacher has locked the room: nobody new joins."""


class RoomFull(Exception):
    """The session has as many students as it may."""


class NoSuchStudent(LookupError):
    """No student of the session has that seat."""


# How the students are named: as they type, by names the app gives, or not
# at all on the projector.
NAMES = ("typed", "generated", "hidden")


@dataclass(frozen=True)
class Student:
    seat: int
    nickname: str  # "" when they gave none
    removed: bool = False


def distinct_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name 2``, ``name 3``… when another student of the
    room has it already (letter case aside), so the teacher can tell them
    apart. No name stays no name."""
    if not name:
        return name
    used = {t.casefold() for t in taken}
    if name.casefold() not in used:
        return name
    n = 2
    while f"{name} {n}".casefold() in used:
        n += 1
    return f"{name} {n}"


def digest(token: str) -> str:
    """What the store keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class LiveSession:
    code: str
    size: GameSize
    strategy: str
    source: str
    secret: Code | None
    names: str = "typed"
    locked: bool = False
    # Every guess and reply revealed so far; the class sees the first ``step``.
    line: list[tuple[Code, Feedback]] = field(default_factory=list)
    step: int = 0
    version: int = 0
    step_version: int = 0
    created_at: float = 0.0
    touched_at: float = 0.0
    game: int = 1
    scoring: bool = True
    countdown: int = 0  # seconds to propose at each step; 0: as long as the step lasts
    step_at: float = 0.0  # when the class was shown the current step
    room_version: int = 0

    @property
    def history(self) -> list[tuple[Code, Feedback]]:
        """The guesses and replies the class sees."""
        return self.line[: self.step]

    @property
    def deadline(self) -> float | None:
        """When proposals for the current step close (None: no countdown)."""
        return self.step_at + self.countdown if self.countdown else None


@dataclass(frozen=True)
class LiveGame:
    """One game of a lesson: its board and strategy, its line, and how far the class saw it."""

    game: int
    size: GameSize
    strategy: str
    source: str
    secret: Code | None
    line: list[tuple[Code, Feedback]]
    step: int

    @property
    def history(self) -> list[tuple[Code, Feedback]]:
        return self.line[: self.step]


def _session(row) -> LiveSession:
    size = size_of(row)
    return LiveSession(
        row.code,
        size,
        row.strategy,
        row.source,
        Code.parse(row.secret, size) if row.secret else None,
        row.names,
        bool(row.locked),
        parse_history(row.line, size) if row.line else [],
        row.step,
        row.version,
        row.step_version,
        row.created_at,
        row.touched_at,
        row.game,
        bool(row.scoring),
        row.countdown,
        row.step_at,
        row.room_version,
    )


def current_game(session: LiveSession) -> LiveGame:
    """The game the class plays now, as a lesson's game."""
    return LiveGame(
        session.game, session.size, session.strategy, session.source, session.secret, session.line, session.step
    )


def create_live(
    new_code: Callable[[], str],
    teacher_token: str,
    size: GameSize,
    strategy: str,
    source: str,
    secret: Code | None,
    now: float,
    names: str = "typed",
    scoring: bool = True,
    countdown: int = 0,
) -> LiveSession:
    """A new session under a code ``new_code()`` draws (drawn again if taken)."""
    values = {
        "scoring": int(scoring),
        "countdown": countdown,
        "step_at": now,
        "teacher": digest(teacher_token),
        **size_values(size),
        "strategy": strategy,
        "source": source,
        "secret": None if secret is None else str(secret),
        "names": names,
        "created_at": now,
        "touched_at": now,
    }
    for _ in range(20):
        code = new_code()
        try:
            connection().execute(live_sessions.insert().values(code=code, **values))
        except sa.exc.IntegrityError:  # taken: draw again
            continue
        return load_live(code, now - 1)
    raise RuntimeError("twenty live codes in a row were taken")  # pragma: no cover  (1 in 244 million each)


def load_live(code: str, idle_before: float) -> LiveSession:
    """The session, unless it has been idle since before ``idle_before``."""
    row = connection().execute(sa.select(live_sessions).where(live_sessions.c.code == code)).first()
    if row is None or row.touched_at < idle_before:
        raise LiveNotFound(code)
    return _session(row)


def is_teacher(code: str, token: str) -> bool:
    kept = connection().execute(sa.select(live_sessions.c.teacher).where(live_sessions.c.code == code)).scalar()
    return kept is not None and secrets.compare_digest(kept, digest(token))


def set_step(code: str, seen: int, step: int, line: list[tuple[Code, Feedback]], now: float) -> LiveSession:
    """Show the class ``step`` of ``line`` (the line as it stands, or longer
    by the guesses just worked out), if the class still sees step ``seen``;
    :class:`StepMoved` otherwise."""
    with transaction() as db:
        row = db.execute(locked(sa.select(live_sessions).where(live_sessions.c.code == code))).first()
        if row is None:
            raise LiveNotFound(code)
        if row.step != seen:
            raise StepMoved(code)
        known = parse_history(row.line, size_of(row)) if row.line else []
        kept = line if len(line) > len(known) else known
        db.execute(
            live_sessions.update()
            .where(live_sessions.c.code == code)
            .values(
                line=format_history(kept),
                step=step,
                step_at=now,
                version=live_sessions.c.version + 1,
                step_version=live_sessions.c.version + 1,
                touched_at=now,
            )
        )
        changed = db.execute(sa.select(live_sessions).where(live_sessions.c.code == code)).one()
    return _session(changed)


def _changed(db, code: str, now: float, room: bool = False) -> int:
    """Count one change of the session (``room``: of who is in the room or
    their names); its new version."""
    values = {"version": live_sessions.c.version + 1, "touched_at": now}
    if room:
        values["room_version"] = live_sessions.c.version + 1
    db.execute(live_sessions.update().where(live_sessions.c.code == code).values(**values))
    return db.execute(sa.select(live_sessions.c.version).where(live_sessions.c.code == code)).scalar_one()


def _names(db, code: str, but: int = 0) -> set[str]:
    """The names the room's students go by (but the one in seat ``but``)."""
    query = sa.select(live_students.c.nickname).where(
        live_students.c.code == code, live_students.c.removed == 0, live_students.c.seat != but
    )
    return set(db.execute(query).scalars())


def add_student(
    code: str, token: str, nickname: str | Callable[[int], str], now: float, most: int
) -> tuple[Student, int]:
    """A new student in the session, in the next seat (``nickname`` may be a
    function of the seat; a name another student has gets a number);
    (the student, the session's new version). :class:`RoomClosed` while the
    room is locked, :class:`RoomFull` once ``most`` students are in it
    (removed ones no longer count)."""
    with transaction() as db:
        row = db.execute(locked(sa.select(live_sessions).where(live_sessions.c.code == code))).first()
        if row is None:
            raise LiveNotFound(code)
        if row.locked:
            raise RoomClosed(code)
        present = sa.func.sum(sa.case((live_students.c.removed == 0, 1), else_=0))
        seats = db.execute(
            sa.select(present, sa.func.max(live_students.c.seat)).where(live_students.c.code == code)
        ).one()
        if (seats[0] or 0) >= most:
            raise RoomFull(code)
        seat = (seats[1] or 0) + 1
        name = distinct_name(nickname(seat) if callable(nickname) else nickname, _names(db, code))
        db.execute(
            live_students.insert().values(token=digest(token), code=code, seat=seat, nickname=name, joined_at=now)
        )
        return Student(seat, name), _changed(db, code, now, room=True)


def student_of(code: str, token: str) -> Student | None:
    """The student with ``token`` in this session (removed or not), or None."""
    row = (
        connection()
        .execute(
            sa.select(live_students.c.seat, live_students.c.nickname, live_students.c.removed).where(
                live_students.c.token == digest(token), live_students.c.code == code
            )
        )
        .first()
    )
    return None if row is None else Student(row.seat, row.nickname, bool(row.removed))


def remove_student(code: str, seat: int, now: float) -> int:
    """Take the student in ``seat`` out of the session: their votes stop
    counting and their token no longer follows it; the new version.
    :class:`NoSuchStudent` when no student of the session sits there."""
    with transaction() as db:
        done = db.execute(
            live_students.update()
            .where(live_students.c.code == code, live_students.c.seat == seat, live_students.c.removed == 0)
            .values(removed=1)
        )
        if not done.rowcount:
            raise NoSuchStudent(seat)
        return _changed(db, code, now, room=True)


def rename_student(code: str, seat: int, nickname: str, now: float) -> tuple[Student, int]:
    """Give the student in ``seat`` another name (numbered if another
    student has it); (the student, the new version). :class:`NoSuchStudent`
    when no student of the session sits there."""
    with transaction() as db:
        db.execute(locked(sa.select(live_sessions.c.code).where(live_sessions.c.code == code)))
        name = distinct_name(nickname, _names(db, code, but=seat))
        done = db.execute(
            live_students.update()
            .where(live_students.c.code == code, live_students.c.seat == seat, live_students.c.removed == 0)
            .values(nickname=name)
        )
        if not done.rowcount:
            raise NoSuchStudent(seat)
        return Student(seat, name), _changed(db, code, now, room=True)


def set_locked(code: str, closed: bool, now: float) -> int:
    """Lock the room (no new student joins) or open it again; the new version."""
    with transaction() as db:
        db.execute(live_sessions.update().where(live_sessions.c.code == code).values(locked=int(closed)))
        return _changed(db, code, now)


def cast_vote(code: str, token: str, game: int, step: int, guess: Code, now: float) -> tuple[bool, int]:
    """Record the student's proposal for ``step`` of ``game`` (replacing an
    earlier one); (whether it replaced one, the session's new version).
    :class:`StepMoved` when the class no longer sees that step."""
    # A removed student's token never reaches here: the web layer refuses it first.
    student = digest(token)
    with transaction() as db:
        row = db.execute(locked(sa.select(live_sessions).where(live_sessions.c.code == code))).first()
        if row is None:
            raise LiveNotFound(code)
        if row.step != step or row.game != game:
            raise StepMoved(code)
        key = (
            live_votes.c.code == code,
            live_votes.c.game == game,
            live_votes.c.step == step,
            live_votes.c.student == student,
        )
        earlier = db.execute(sa.select(live_votes.c.guess).where(*key)).scalar()
        if earlier is None:
            db.execute(
                live_votes.insert().values(code=code, game=game, step=step, student=student, guess=str(guess), at=now)
            )
        else:
            db.execute(live_votes.update().where(*key).values(guess=str(guess), at=now))
        if earlier == str(guess):  # the same proposal again: nothing the teacher sees changes
            db.execute(live_sessions.update().where(live_sessions.c.code == code).values(touched_at=now))
            return True, row.version
        db.execute(
            live_sessions.update()
            .where(live_sessions.c.code == code)
            .values(version=live_sessions.c.version + 1, touched_at=now)
        )
    return earlier is not None, row.version + 1


def vote_of(code: str, token: str, game: int, step: int) -> str | None:
    """The guess the student proposed at ``step`` of ``game``, if any."""
    return (
        connection()
        .execute(
            sa.select(live_votes.c.guess).where(
                live_votes.c.code == code,
                live_votes.c.game == game,
                live_votes.c.step == step,
                live_votes.c.student == digest(token),
            )
        )
        .scalar()
    )


def votes_of(code: str, token: str) -> dict[tuple[int, int], str]:
    """Every proposal of the student: (game, step) → guess."""
    query = sa.select(live_votes.c.game, live_votes.c.step, live_votes.c.guess).where(
        live_votes.c.code == code, live_votes.c.student == digest(token)
    )
    return {(game, step): guess for game, step, guess in connection().execute(query)}


def votes(code: str, game: int) -> dict[int, Counter[str]]:
    """Every step's proposals in ``game`` by students still in the room, counted by guess."""
    query = (
        sa.select(live_votes.c.step, live_votes.c.guess)
        .join(live_students, sa.and_(live_students.c.token == live_votes.c.student, live_students.c.removed == 0))
        .where(live_votes.c.code == code, live_votes.c.game == game)
    )
    out: dict[int, Counter[str]] = {}
    for step, guess in connection().execute(query):
        out.setdefault(step, Counter())[guess] += 1
    return out


def students(code: str, removed: bool = False) -> list[Student]:
    """The students in the session by seat (``removed``: those taken out too)."""
    query = sa.select(live_students.c.seat, live_students.c.nickname, live_students.c.removed).where(
        live_students.c.code == code
    )
    if not removed:
        query = query.where(live_students.c.removed == 0)
    rows = connection().execute(query.order_by(live_students.c.seat))
    return [Student(seat, nickname, bool(gone)) for seat, nickname, gone in rows]


def ballots(code: str) -> list[tuple[int, int, Student, str]]:
    """Every vote of the lesson, removed students' included, as (game,
    step, student, guess), by game, step and seat."""
    query = (
        sa.select(
            live_votes.c.game,
            live_votes.c.step,
            live_students.c.seat,
            live_students.c.nickname,
            live_students.c.removed,
            live_votes.c.guess,
        )
        .join(live_students, live_students.c.token == live_votes.c.student)
        .where(live_votes.c.code == code)
        .order_by(live_votes.c.game, live_votes.c.step, live_students.c.seat)
    )
    return [
        (game, step, Student(seat, name, bool(gone)), guess)
        for game, step, seat, name, gone, guess in connection().execute(query)
    ]


def past_games(code: str) -> list[LiveGame]:
    """The lesson's games before the current one, in order."""
    query = sa.select(live_games).where(live_games.c.code == code).order_by(live_games.c.game)
    out = []
    for row in connection().execute(query):
        size = size_of(row)
        out.append(
            LiveGame(
                row.game,
                size,
                row.strategy,
                row.source,
                Code.parse(row.secret, size) if row.secret else None,
                parse_history(row.line, size) if row.line else [],
                row.step,
            )
        )
    return out


def new_game(
    code: str,
    game: int,
    size: GameSize,
    strategy: str,
    source: str,
    secret: Code | None,
    countdown: int,
    now: float,
) -> LiveSession:
    """Keep the current game (the ``game``-th) with the lesson's earlier
    ones and start the next in the same room: the seats, names and votes
    stay. :class:`StepMoved` when another screen started one first."""
    with transaction() as db:
        row = db.execute(locked(sa.select(live_sessions).where(live_sessions.c.code == code))).first()
        if row is None:
            raise LiveNotFound(code)
        if row.game != game:
            raise StepMoved(code)
        db.execute(
            live_games.insert().values(
                code=code,
                game=row.game,
                pegs=row.pegs,
                colors=row.colors,
                distinct_=row.distinct_,
                distinct_guesses=row.distinct_guesses,
                strategy=row.strategy,
                source=row.source,
                secret=row.secret,
                line=row.line,
                step=row.step,
            )
        )
        db.execute(
            live_sessions.update()
            .where(live_sessions.c.code == code)
            .values(
                **size_values(size),
                strategy=strategy,
                source=source,
                secret=None if secret is None else str(secret),
                countdown=countdown,
                game=row.game + 1,
                line="",
                step=0,
                step_at=now,
                version=live_sessions.c.version + 1,
                step_version=live_sessions.c.version + 1,
                touched_at=now,
            )
        )
        changed = db.execute(sa.select(live_sessions).where(live_sessions.c.code == code)).one()
    return _session(changed)


def live_versions(codes: list[str]) -> dict[str, int]:
    """The version of each of these sessions that still exists."""
    if not codes:
        return {}
    query = sa.select(live_sessions.c.code, live_sessions.c.version).where(live_sessions.c.code.in_(codes))
    return {code: version for code, version in connection().execute(query)}


def expire_live(idle_before: float) -> int:
    """Delete the sessions idle since before ``idle_before``, with their
    students and votes; how many sessions went."""
    with transaction() as db:
        idle = sa.select(live_sessions.c.code).where(live_sessions.c.touched_at < idle_before)
        codes = list(db.execute(idle).scalars())
        for start in range(0, len(codes), 500):
            chunk = codes[start : start + 500]
            db.execute(live_votes.delete().where(live_votes.c.code.in_(chunk)))
            db.execute(live_games.delete().where(live_games.c.code.in_(chunk)))
            db.execute(live_students.delete().where(live_students.c.code.in_(chunk)))
            db.execute(live_sessions.delete().where(live_sessions.c.code.in_(chunk)))
    return len(codes)


def live_counts(idle_before: float) -> tuple[int, int]:
    """How many sessions were touched since ``idle_before`` (not yet ended),
    and how many students they hold (removed ones left out)."""
    db = connection()
    going = live_sessions.c.touched_at >= idle_before
    sessions = db.execute(sa.select(sa.func.count()).where(going)).scalar_one()
    students = db.execute(
        sa.select(sa.func.count())
        .select_from(live_students.join(live_sessions, live_students.c.code == live_sessions.c.code))
        .where(going, live_students.c.removed == 0)
    ).scalar_one()
    return int(sessions), int(students)
