"""A job kind whose pace a test sets: it reports half its progress, then
waits until the file named by its parameter ``go`` exists. Imported by the
tests and by the consumer process they start (``python tests/gate_job.py``
runs huey's consumer with this kind registered), so a test decides when a job
is mid-way and when it may finish, whatever the machine's speed."""

import os
import sys
import time

from webapp import jobs

WAIT_LIMIT = 120  # seconds a gate waits before it fails the job (a test gone wrong)


def through_gate(params: dict, progress) -> dict:
    progress(0.5)
    deadline = time.monotonic() + WAIT_LIMIT
    while not os.path.exists(params["go"]):
        if time.monotonic() > deadline:
            raise RuntimeError("the gate was never opened")
        time.sleep(0.01)
    return {"opened": params["go"]}


jobs.register(jobs.Kind("gate", through_gate))


def create_app(config):
    """The web app with this kind registered, for gunicorn (the checkout's
    root on its path): ``tests.gate_job:create_app({...})``."""
    import webapp

    return webapp.create_app(config)


if __name__ == "__main__":  # huey's consumer, this kind included
    from huey.bin.huey_consumer import consumer_main

    sys.argv = ["huey_consumer", *sys.argv[1:]]
    consumer_main()
