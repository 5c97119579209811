"""What machines ask of a server, not people: ``/healthz`` (the process
answers; no database work), ``/readyz`` (it can do its work: 503 naming
what it lacks, see ``webapp.health``) and ``/metrics`` (Prometheus's text,
see ``webapp.metrics``: 404 unless ``METRICS_ENABLED``, and then to the
addresses in ``METRICS_ALLOW`` only).

These answer whatever ``Host`` a probe sends and even while the database
waits for its upgrade (``security.PROBES``), are never rate-limited, and
are never cached."""

from __future__ import annotations

import time

from flask import Blueprint, Response, abort, current_app, jsonify, request

from .. import store
from ..metrics import CONTENT_TYPE, allowed
from .limits import limiter

bp = Blueprint("ops", __name__)
limiter.exempt(bp)


@bp.after_request
def never_cached(response):
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz():
    return jsonify(status="ok")


@bp.get("/readyz")
def readyz():
    checks = current_app.extensions["health"].checks()
    missing = [check.name for check in checks if not check.ok]
    body = {
        "status": "not ready" if missing else "ready",
        "not_ready": missing,
        "checks": {check.name: check.json() for check in checks},
    }
    response = jsonify(body)
    response.status_code = 503 if missing else 200
    if missing:
        response.headers["Retry-After"] = "5"
    return response


def site_figures() -> dict:
    """This server's readiness, and what the database knows for the whole
    site, read at a scrape (without the database's figures when it cannot
    be read: the scrape still gives every count)."""
    config = current_app.config
    now = time.time()
    ready = {"mastermind_ready": {check.name: int(check.ok) for check in current_app.extensions["health"].checks()}}
    try:
        queued, running, oldest = store.jobs.job_counts(now - float(config["JOBS_STALE_SECONDS"]))
        sessions, students = store.live.live_counts(now - float(config["LIVE_IDLE_HOURS"]) * 3600)
    except current_app.extensions["store"].unavailable:
        return ready
    return {
        **ready,
        "mastermind_jobs_queued": queued,
        "mastermind_jobs_running": running,
        "mastermind_jobs_oldest_queued_seconds": max(now - oldest, 0.0) if oldest is not None else 0.0,
        "mastermind_live_sessions": sessions,
        "mastermind_live_students": students,
    }


@bp.get("/metrics")
def metrics():
    found = current_app.extensions["metrics"]
    if not found.enabled or not allowed(request.remote_addr, found.allow):
        abort(404)  # as if there were nothing here
    return Response(found.exposition(site_figures), content_type=CONTENT_TYPE)
