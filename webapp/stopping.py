"""A clean stop under gunicorn (a deploy, ``systemctl restart``): on
SIGTERM each worker

- ends every live event stream at once, with a ``retry`` of a random few
  seconds (``events.RECONNECT_MS``), so the phones reconnect, spread out,
  to whichever server answers, and miss nothing (Last-Event-ID);
- takes no new job, lets its running jobs finish for most of gunicorn's
  ``graceful_timeout``, and hands back to the queue each one still running
  (queued again, for another consumer to run from the start; this process
  writes nothing more of it);

and exits within the graceful timeout: gunicorn stops accepting and waits
for the requests in flight (the streams end at once), then ``worker_exit``
waits for the jobs to be finished or handed back. ``deploy/gunicorn.conf.py``
calls :func:`on_sigterm` and :func:`wait` from its hooks."""

from __future__ import annotations

import signal
import threading

# Of the graceful timeout, the seconds kept at its end to hand jobs back and
# exit (at most a quarter of it).
HAND_BACK_MARGIN = 2.0


def job_seconds(graceful: float) -> float:
    """How long running jobs may go on finishing, of ``graceful`` seconds.

    >>> job_seconds(20), job_seconds(2)
    (18.0, 1.5)
    """
    return max(graceful - min(HAND_BACK_MARGIN, graceful / 4), 0.0)


def stop(app, graceful: float) -> None:
    """Stop ``app``'s streams and jobs as above (blocks until the jobs are
    finished or handed back)."""
    app.extensions["live"].close_all()
    app.extensions["jobs"].drain(job_seconds(graceful))


def on_sigterm(worker) -> None:
    """gunicorn's ``post_worker_init``: on SIGTERM, stop the worker's app
    (in a thread: a signal handler must return at once), then let
    gunicorn's own handler stop taking requests."""
    app, graceful = worker.wsgi, float(worker.cfg.graceful_timeout)
    previous = signal.getsignal(signal.SIGTERM)

    def stopping(signum, frame):
        if getattr(worker, "stopping", None) is None:
            worker.stopping = threading.Thread(target=stop, args=(app, graceful), name="stopping", daemon=True)
            worker.stopping.start()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, stopping)


def wait(worker) -> None:
    """gunicorn's ``worker_exit``: a worker stopping on SIGTERM exits once
    its jobs are finished or handed back."""
    stopping = getattr(worker, "stopping", None)
    if stopping is not None:
        stopping.join(float(worker.cfg.graceful_timeout))
