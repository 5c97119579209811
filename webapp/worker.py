"""The job consumer as a process of its own, for servers that run the web
workers with ``JOBS_CONSUMER = "none"``:

    DATABASE_URL=postgresql://… REDIS_URL=redis://… \
        .venv/bin/huey_consumer webapp.worker.huey --workers 2 --worker-type thread

It runs the computations (``webapp.computations``) and the hourly sweep of
abandoned games on the store, and builds no web app: no blueprint, no page,
no Flask extension is imported. It reads its settings as the web app does
(:func:`webapp.configure`): ``DATABASE_URL``, ``REDIS_URL`` and each
``MASTERMIND_<SETTING>`` of the environment, such as ``MASTERMIND_DATABASE``
for an SQLite file other than ``instance/mastermind.sqlite3``, checked by
the same models: a wrong value stops it with the web app's sentence."""

from __future__ import annotations

import logging
import os

from flask.config import Config

from . import ROOT, configure, logs, store
from .config import InvalidSetting
from .jobs import Jobs

settings = Config(ROOT)
try:
    configure(settings)
except InvalidSetting as wrong:  # the sentence alone, as the consumer stops (exit status 1)
    raise SystemExit(f"webapp.worker: {wrong}") from None
settings["JOBS_CONSUMER"] = "none"  # huey_consumer runs the workers; the queue only needs defining
logs.configure(settings)  # LOG_FORMAT, as the web app's; each job's lines carry its request's id
database = store.open_database(settings)
huey = Jobs(settings, database, logging.getLogger("mastermind.jobs"), os.path.join(ROOT, "instance")).huey
