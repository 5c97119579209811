"""The job consumer as a process of its own, for servers that run the web
workers with ``JOBS_CONSUMER = "none"``:

    DATABASE_URL=postgresql://… REDIS_URL=redis://… \
        .venv/bin/huey_consumer webapp.worker.huey --workers 2 --worker-type thread

It runs the computations (``webapp.computations``) and the hourly sweep of
abandoned games on the store, and builds no web app: no blueprint, no page,
no Flask extension is imported. ``MASTERMIND_DATABASE`` names an SQLite file
(the app's own default: ``instance/mastermind.sqlite3``)."""

from __future__ import annotations

import logging
import os

from . import ROOT, store
from .jobs import Jobs

settings = {
    "JOBS_CONSUMER": "none",  # huey_consumer runs the workers; the queue only needs defining
    "DATABASE": os.environ.get("MASTERMIND_DATABASE") or str(ROOT / "instance" / "mastermind.sqlite3"),
    "DATABASE_URL": os.environ.get("DATABASE_URL") or None,
    "REDIS_URL": os.environ.get("REDIS_URL") or None,
    "GAME_RETENTION_DAYS": int(os.environ.get("GAME_RETENTION_DAYS", 30)),
    "PLAYER_RETENTION_DAYS": int(os.environ.get("PLAYER_RETENTION_DAYS", 365)),
}
database = store.open_database(settings)
huey = Jobs(settings, database, logging.getLogger("mastermind.jobs"), str(ROOT / "instance")).huey
