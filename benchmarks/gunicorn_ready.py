"""gunicorn settings for the benchmarks and tests (``-c python:benchmarks.gunicorn_ready``):
each worker, once it has loaded the app, leaves a file named by its pid in
``$MASTERMIND_READY_DIR``, so that whoever started the server can wait until
every worker serves, not only until the port is open."""

import os


def post_worker_init(worker):
    folder = os.environ.get("MASTERMIND_READY_DIR")
    if folder:
        open(os.path.join(folder, str(worker.pid)), "w").close()
