"""gunicorn settings for the benchmarks and tests (``-c python:benchmarks.gunicorn_ready``):
each worker, once it has loaded the app, writes its pid as a line to the pipe
``$MASTERMIND_READY_FD``, so that whoever started the server waits for every
worker to serve (and for a replacement after one dies), not only until the
port is open (``benchmarks.load.ReadyWorkers`` reads it)."""

import os
import shutil
import tempfile

# Metrics as deploy/gunicorn.conf.py keeps them: one directory for every worker's values.
MADE_METRICS_DIRECTORY = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if MADE_METRICS_DIRECTORY:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="mastermind-metrics-")


def child_exit(server, worker):
    from webapp.metrics import worker_exit

    worker_exit(worker.pid)


def worker_exit(server, worker):
    from webapp.stopping import wait

    wait(worker)


def on_exit(server):
    if MADE_METRICS_DIRECTORY:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


def post_worker_init(worker):
    from webapp.events import fit_to_threads
    from webapp.stopping import on_sigterm

    if "live" in worker.wsgi.extensions:  # the app, not the capacity run's floor (benchmarks/floor_app.py)
        fit_to_threads(worker.wsgi, worker.cfg.threads)  # as deploy/gunicorn.conf.py does
        on_sigterm(worker)  # as deploy/gunicorn.conf.py does
    fd = os.environ.get("MASTERMIND_READY_FD")
    if fd:
        os.write(int(fd), f"{worker.pid}\n".encode())
