"""Live classroom sessions: the teacher's game (its line of guesses and
replies, and the step the class sees), the students who joined it and the
guess each proposes at a step. Tokens are kept as SHA-256 digests, never as
themselves. Every change adds one to the session's ``version``, the number
live events carry.

A student has a seat: a number counted from 1 in each session, the ``id``
the teacher removes them by. A removed student keeps the seat (so that
browser cannot join again) and their votes stop counting."""

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
from .tables import live_sessions, live_students, live_votes


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

    @property
    def history(self) -> list[tuple[Code, Feedback]]:
        """The guesses and replies the class sees."""
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
) -> LiveSession:
    """A new session under a code ``new_code()`` draws (drawn again if taken)."""
    values = {
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
                version=live_sessions.c.version + 1,
                step_version=live_sessions.c.version + 1,
                touched_at=now,
            )
        )
        changed = db.execute(sa.select(live_sessions).where(live_sessions.c.code == code)).one()
    return _session(changed)


def _changed(db, code: str, now: float) -> int:
    """Count one change of the session; its new version."""
    db.execute(
        live_sessions.update()
        .where(live_sessions.c.code == code)
        .values(version=live_sessions.c.version + 1, touched_at=now)
    )
    return db.execute(sa.select(live_sessions.c.version).where(live_sessions.c.code == code)).scalar_one()


def add_student(
    code: str, token: str, nickname: str | Callable[[int], str], now: float, most: int
) -> tuple[Student, int]:
    """A new student in the session, in the next seat (``nickname`` may be a
    function of the seat); (the student, the session's new version).
    :class:`RoomClosed` while the room is locked, :class:`RoomFull` once it
    has ``most`` students (removed ones included)."""
    with transaction() as db:
        row = db.execute(locked(sa.select(live_sessions).where(live_sessions.c.code == code))).first()
        if row is None:
            raise LiveNotFound(code)
        if row.locked:
            raise RoomClosed(code)
        seats = db.execute(
            sa.select(sa.func.count(), sa.func.max(live_students.c.seat)).where(live_students.c.code == code)
        ).one()
        if seats[0] >= most:
            raise RoomFull(code)
        seat = (seats[1] or 0) + 1
        name = nickname(seat) if callable(nickname) else nickname
        db.execute(
            live_students.insert().values(token=digest(token), code=code, seat=seat, nickname=name, joined_at=now)
        )
        return Student(seat, name), _changed(db, code, now)


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
        return _changed(db, code, now)


def set_locked(code: str, closed: bool, now: float) -> int:
    """Lock the room (no new student joins) or open it again; the new version."""
    with transaction() as db:
        db.execute(live_sessions.update().where(live_sessions.c.code == code).values(locked=int(closed)))
        return _changed(db, code, now)


def cast_vote(code: str, token: str, step: int, guess: Code, now: float) -> tuple[bool, int]:
    """Record the student's proposal for ``step`` (replacing an earlier
    one); (whether it replaced one, the session's new version).
    :class:`StepMoved` when the class no longer sees that step."""
    # A removed student's token never reaches here: the web layer refuses it first.
    student = digest(token)
    with transaction() as db:
        row = db.execute(locked(sa.select(live_sessions).where(live_sessions.c.code == code))).first()
        if row is None:
            raise LiveNotFound(code)
        if row.step != step:
            raise StepMoved(code)
        key = (live_votes.c.code == code, live_votes.c.step == step, live_votes.c.student == student)
        earlier = db.execute(sa.select(live_votes.c.guess).where(*key)).scalar()
        if earlier is None:
            db.execute(live_votes.insert().values(code=code, step=step, student=student, guess=str(guess), at=now))
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


def vote_of(code: str, token: str, step: int) -> str | None:
    """The guess the student proposed at ``step``, if any."""
    return (
        connection()
        .execute(
            sa.select(live_votes.c.guess).where(
                live_votes.c.code == code, live_votes.c.step == step, live_votes.c.student == digest(token)
            )
        )
        .scalar()
    )


def _counted():
    """The votes that count: those of students still in the session."""
    return sa.select(live_votes.c.step, live_votes.c.guess).join(
        live_students, sa.and_(live_students.c.token == live_votes.c.student, live_students.c.removed == 0)
    )


def votes(code: str) -> dict[int, Counter[str]]:
    """Every step's proposals, counted by guess."""
    out: dict[int, Counter[str]] = {}
    for step, guess in connection().execute(_counted().where(live_votes.c.code == code)):
        out.setdefault(step, Counter())[guess] += 1
    return out


def students(code: str) -> list[Student]:
    """The students still in the session, by seat."""
    query = (
        sa.select(live_students.c.seat, live_students.c.nickname)
        .where(live_students.c.code == code, live_students.c.removed == 0)
        .order_by(live_students.c.seat)
    )
    return [Student(seat, nickname) for seat, nickname in connection().execute(query)]


def ballots(code: str) -> list[tuple[int, Student, str]]:
    """Every vote that counts, as (step, student, guess), by step and seat."""
    query = (
        sa.select(live_votes.c.step, live_students.c.seat, live_students.c.nickname, live_votes.c.guess)
        .join(live_students, live_students.c.token == live_votes.c.student)
        .where(live_votes.c.code == code, live_students.c.removed == 0)
        .order_by(live_votes.c.step, live_students.c.seat)
    )
    return [(step, Student(seat, name), guess) for step, seat, name, guess in connection().execute(query)]


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
            db.execute(live_students.delete().where(live_students.c.code.in_(chunk)))
            db.execute(live_sessions.delete().where(live_sessions.c.code.in_(chunk)))
    return len(codes)
