"""The job consumer as a process of its own, for servers that run the web
workers with ``JOBS_CONSUMER = "none"``:

    MASTERMIND_DATABASE=/var/lib/mastermind/games.sqlite3 \
        .venv/bin/huey_consumer webapp.worker.huey --workers 2 --worker-type thread
"""

import os

from . import create_app

config = {"JOBS_CONSUMER": "none"}
if os.environ.get("MASTERMIND_DATABASE"):
    config["DATABASE"] = os.environ["MASTERMIND_DATABASE"]
app = create_app(config)
huey = app.extensions["jobs"].huey
