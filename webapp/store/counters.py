"""Rate-limit counters: one fixed window per key, shared by every worker
and server on this database (Redis holds them instead when configured)."""

from __future__ import annotations

import sqlalchemy as sa

from .database import connection, transaction, upsert
from .tables import rate_limits


def hit_counter(key: str, seconds: float, amount: int, now: float) -> int:
    """Add ``amount`` to the counter ``key`` and return its new value; a
    counter whose window has ended starts a new one of ``seconds``. One
    statement, so concurrent hits from any process all count."""
    insert = upsert(rate_limits).values(key=key, hits=amount, expires=now + seconds)
    ended = rate_limits.c.expires <= now
    return int(
        connection()
        .execute(
            insert.on_conflict_do_update(
                index_elements=["key"],
                set_={
                    "hits": sa.case((ended, insert.excluded.hits), else_=rate_limits.c.hits + insert.excluded.hits),
                    "expires": sa.case((ended, insert.excluded.expires), else_=rate_limits.c.expires),
                },
            ).returning(rate_limits.c.hits)
        )
        .scalar_one()
    )


def read_counter(key: str, now: float) -> tuple[int, float]:
    """The counter ``key`` and when its window ends (0 and ``now`` when none runs)."""
    row = (
        connection()
        .execute(
            sa.select(rate_limits.c.hits, rate_limits.c.expires).where(
                rate_limits.c.key == key, rate_limits.c.expires > now
            )
        )
        .first()
    )
    return (int(row.hits), float(row.expires)) if row else (0, now)


def clear_counters(key: str | None = None) -> int:
    """Forget the counter ``key``, or every counter."""
    delete = rate_limits.delete()
    if key is not None:
        delete = delete.where(rate_limits.c.key == key)
    return connection().execute(delete).rowcount


def expire_counters(now: float) -> int:
    """Delete the counters whose window ended before ``now``."""
    with transaction() as db:
        return db.execute(rate_limits.delete().where(rate_limits.c.expires < now)).rowcount
