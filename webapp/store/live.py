"""Live classroom sessions: the teacher's game (its line of guesses and
replies, and the step the class sees), the students who joined it and the
guess each proposes at a step. Tokens are kept as SHA-256 digests, never as
themselves. Every change adds one to the session's ``version``, the number
live events carry."""

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
) -> LiveSession:
    """A new session under a code ``new_code()`` draws (drawn again if taken)."""
    values = {
        "teacher": digest(teacher_token),
        **size_values(size),
        "strategy": strategy,
        "source": source,
        "secret": None if secret is None else str(secret),
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


def add_student(code: str, token: str, nickname: str, now: float) -> int:
    """A new student in the session; the session's new version."""
    with transaction() as db:
        db.execute(live_students.insert().values(token=digest(token), code=code, nickname=nickname, joined_at=now))
        db.execute(
            live_sessions.update()
            .where(live_sessions.c.code == code)
            .values(version=live_sessions.c.version + 1, touched_at=now)
        )
        return db.execute(sa.select(live_sessions.c.version).where(live_sessions.c.code == code)).scalar_one()


def student_name(code: str, token: str) -> str | None:
    """The nickname of the student with ``token`` in this session ("" when
    they gave none), or None when the token is not one of its students'."""
    return (
        connection()
        .execute(
            sa.select(live_students.c.nickname).where(
                live_students.c.token == digest(token), live_students.c.code == code
            )
        )
        .scalar()
    )


def cast_vote(code: str, token: str, step: int, guess: Code, now: float) -> tuple[bool, int]:
    """Record the student's proposal for ``step`` (replacing an earlier
    one); (whether it replaced one, the session's new version).
    :class:`StepMoved` when the class no longer sees that step."""
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


def votes(code: str) -> dict[int, Counter[str]]:
    """Every step's proposals, counted by guess."""
    out: dict[int, Counter[str]] = {}
    query = sa.select(live_votes.c.step, live_votes.c.guess).where(live_votes.c.code == code)
    for step, guess in connection().execute(query):
        out.setdefault(step, Counter())[guess] += 1
    return out


def students(code: str) -> list[str]:
    """The students' nicknames ("" for those who gave none), in joining order."""
    query = (
        sa.select(live_students.c.nickname)
        .where(live_students.c.code == code)
        .order_by(live_students.c.joined_at, live_students.c.token)
    )
    return list(connection().execute(query).scalars())


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
