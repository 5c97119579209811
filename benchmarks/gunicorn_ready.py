"""gunicorn settings for the benchmarks and tests (``-c python:benchmarks.gunicorn_ready``):
each worker, once it has loaded the app, writes its pid as a line to the pipe
``$MASTERMIND_READY_FD``, so that whoever started the server waits for every
worker to serve (and for a replacement after one dies), not only until the
port is open (``benchmarks.load.ReadyWorkers`` reads it)."""

import os


def post_worker_init(worker):
    from webapp.events import fit_to_threads

    fit_to_threads(worker.wsgi, worker.cfg.threads)  # as deploy/gunicorn.conf.py does
    fd = os.environ.get("MASTERMIND_READY_FD")
    if fd:
        os.write(int(fd), f"{worker.pid}\n".encode())
