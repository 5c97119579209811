"""What machines ask of a server, not people: ``/healthz`` (the process
answers; no database work), ``/readyz`` (it can do its work: 503 naming
what it lacks, see ``webapp.health``).

These answer whatever ``Host`` a probe sends and even while the database
waits for its upgrade (``security.PROBES``), are never rate-limited, and
are never cached."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

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
