"""For tests that set or read a record's state directly, in SQL."""

from __future__ import annotations

import sqlalchemy

from webapp import store


def sql(query: str, **params):
    """Run one SQL statement (named ``:parameters``) on the current unit of
    work's connection."""
    return store.connection().execute(sqlalchemy.text(query), params)
