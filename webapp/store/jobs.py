"""Background jobs' records: one row per computation, keyed by what it
computes, with its progress while it runs and its result once done."""

from __future__ import annotations

import sqlalchemy as sa

from .database import connection, locked, transaction, upsert
from .tables import job_gate, jobs

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


class JobsFull(Exception):
    """As many jobs as allowed are queued or running already."""


class ClientJobsFull(JobsFull):
    """As many jobs as one client may hold are queued or running for it."""


def load_job(key: str) -> dict | None:
    """The job stored under ``key``, as a dict, or None."""
    row = connection().execute(sa.select(jobs).where(jobs.c.key == key)).mappings().first()
    return dict(row) if row else None


def admit_job(
    key: str,
    kind: str,
    params: str,
    now: float,
    fresh_after: float,
    most: int,
    client: str | None = None,
    client_most: int | None = None,
) -> bool:
    """Add a queued job unless ``most`` jobs (queued or running, heartbeat
    newer than ``fresh_after``) are active already (:class:`JobsFull`), or
    ``client_most`` of them were started by ``client``
    (:class:`ClientJobsFull`). False when a job with that key exists. The
    counts and the insert happen under one lock (the gate row), so
    concurrent requests, on one server or several, never admit more."""
    active = sa.select(sa.func.count()).where(jobs.c.status.in_((QUEUED, RUNNING)), jobs.c.heartbeat >= fresh_after)
    with transaction() as db:
        db.execute(locked(sa.select(job_gate.c.id).where(job_gate.c.id == 1)))
        if db.execute(sa.select(jobs.c.key).where(jobs.c.key == key)).first() is not None:
            return False
        if db.execute(active).scalar_one() >= most:
            raise JobsFull()
        mine = active.where(jobs.c.client == client)
        if client is not None and client_most is not None and db.execute(mine).scalar_one() >= client_most:
            raise ClientJobsFull()
        db.execute(
            jobs.insert().values(
                key=key, kind=kind, params=params, status=QUEUED, created_at=now, heartbeat=now, client=client
            )
        )
    return True


def requeue_stale_job(key: str, stale_before: float, now: float) -> bool:
    """Queue again a job whose process stopped beating; True for the one
    caller that did it."""
    done = connection().execute(
        jobs.update()
        .where(jobs.c.key == key, jobs.c.status.in_((QUEUED, RUNNING)), jobs.c.heartbeat < stale_before)
        .values(status=QUEUED, heartbeat=now, progress=None, eta=None)
    )
    return done.rowcount == 1


def claim_job(key: str, now: float, stale_before: float) -> bool:
    """Mark a queued (or abandoned) job as running here; False when another
    worker has it or it is finished."""
    done = connection().execute(
        jobs.update()
        .where(
            jobs.c.key == key,
            sa.or_(jobs.c.status == QUEUED, sa.and_(jobs.c.status == RUNNING, jobs.c.heartbeat < stale_before)),
        )
        .values(status=RUNNING, started_at=now, heartbeat=now, attempts=jobs.c.attempts + 1, progress=0)
    )
    return done.rowcount == 1


def beat_job(key: str, now: float, progress: float | None = None, eta: float | None = None) -> None:
    """A running job is alive; with ``progress``, also how far it is."""
    values: dict = {"heartbeat": now}
    if progress is not None:
        values.update(progress=progress, eta=eta)
    connection().execute(jobs.update().where(jobs.c.key == key, jobs.c.status == RUNNING).values(**values))


def finish_job(key: str, kind: str, params: str, result: str, now: float) -> None:
    """Store a job's result (inserting the row when it was computed at once)."""
    insert = upsert(jobs).values(
        key=key,
        kind=kind,
        params=params,
        status=DONE,
        progress=1,
        result=result,
        created_at=now,
        heartbeat=now,
        finished_at=now,
    )
    connection().execute(
        insert.on_conflict_do_update(
            index_elements=["key"],
            set_={
                "status": insert.excluded.status,
                "progress": 1,
                "eta": 0,
                "result": insert.excluded.result,
                "error": None,
                "finished_at": insert.excluded.finished_at,
            },
        )
    )


def finish_jobs(kind: str, done: list[tuple[str, str, str]], now: float) -> None:
    """Store several results of ``kind`` (each its key, parameters and
    result) in one transaction."""
    with transaction():
        for key, params, result in done:
            finish_job(key, kind, params, result, now)


def fail_job(key: str, message: str, now: float) -> None:
    connection().execute(jobs.update().where(jobs.c.key == key).values(status=FAILED, error=message, finished_at=now))


def job_counts(fresh_after: float) -> tuple[int, int, float | None]:
    """Jobs queued and jobs running (heartbeat newer than ``fresh_after``),
    and when the oldest queued one was asked for (None: none is queued)."""
    query = (
        sa.select(jobs.c.status, sa.func.count(), sa.func.min(jobs.c.created_at))
        .where(jobs.c.status.in_((QUEUED, RUNNING)), jobs.c.heartbeat >= fresh_after)
        .group_by(jobs.c.status)
    )
    found = {status: (int(n), oldest) for status, n, oldest in connection().execute(query)}
    queued, oldest = found.get(QUEUED, (0, None))
    return queued, found.get(RUNNING, (0, None))[0], oldest


def hand_back_job(key: str, now: float) -> bool:
    """Queue again a job a stopping process was running (it gives it up),
    for another consumer to claim; True when it was running."""
    done = connection().execute(
        jobs.update()
        .where(jobs.c.key == key, jobs.c.status == RUNNING)
        .values(status=QUEUED, heartbeat=now, progress=None, eta=None)
    )
    return done.rowcount == 1
