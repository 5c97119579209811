"""gunicorn's settings for Mastermind lab: `make serve` and the systemd units
run ``gunicorn -c deploy/gunicorn.conf.py``; flags given after it win.

Workers are gthread: a pool of threads per process. A live classroom's
event stream holds one thread for as long as a student follows (a few
minutes, then the browser reconnects), waiting, not working; so each worker
has many threads, and ``fit_to_threads`` holds its streams to the threads
less ``LIVE_FREE_THREADS`` (8), which stay free for every other request.
With 128 threads a worker follows up to 120 students; 200 on one worker
took at most 0.16 s from a step to the last student, about 160 KiB each
(``python -m benchmarks --live``, docs/performance.md)."""

import os
import shutil
import tempfile

wsgi_app = "webapp:create_app()"
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "128"))
graceful_timeout = 20
timeout = 60
# gunicorn's control socket (for gunicornc) has one default path per user,
# so two servers on one machine (mastermind@8000 and @8001) would take it
# from each other; nothing here uses it, and systemd restarts the servers.
control_socket_disable = True

# Metrics (webapp.metrics, served at /metrics when METRICS_ENABLED): every
# worker writes its values to files in one directory of this server's, and a
# scrape reads them all, whichever worker answers. Set here, before any
# worker imports prometheus_client; PROMETHEUS_MULTIPROC_DIR in the
# environment names another (one per server: never share it).
MADE_METRICS_DIRECTORY = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if MADE_METRICS_DIRECTORY:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="mastermind-metrics-")


def on_starting(server):
    from webapp.metrics import prepare_directory

    prepare_directory(os.environ["PROMETHEUS_MULTIPROC_DIR"])  # a previous run's counts go


def child_exit(server, worker):
    from webapp.metrics import worker_exit

    worker_exit(worker.pid)  # its open streams close with it; its counts stay


def on_exit(server):
    if MADE_METRICS_DIRECTORY:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


def post_worker_init(worker):
    from webapp.events import fit_to_threads
    from webapp.stopping import on_sigterm

    limit = fit_to_threads(worker.wsgi, worker.cfg.threads)
    worker.log.info("worker %s follows up to %d live streams", worker.pid, limit)
    # On SIGTERM: end the live streams with a spread-out reconnect, finish or
    # hand back the running jobs, within graceful_timeout (docs/operations.md).
    on_sigterm(worker)


def worker_exit(server, worker):
    from webapp.stopping import wait

    wait(worker)  # its jobs finished or handed back
