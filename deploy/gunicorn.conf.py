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


def post_worker_init(worker):
    from webapp.events import fit_to_threads

    limit = fit_to_threads(worker.wsgi, worker.cfg.threads)
    worker.log.info("worker %s follows up to %d live streams", worker.pid, limit)
