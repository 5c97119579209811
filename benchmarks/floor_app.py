"""The framework's floor: a Flask app of one route that answers a few bytes,
served by the same gunicorn (and nginx) as the app in ``python -m
benchmarks --capacity``, so that every kind of work the app does is stated
as a multiple of the least a request can cost on this machine. No
database, no templates, no extensions: only Flask, Werkzeug and gunicorn."""

from __future__ import annotations

from flask import Flask


def create_app(config=None):
    """The floor app; ``config`` (the benchmark's settings for the real app)
    is taken, as ``webapp.create_app`` takes it, and ignored."""
    app = Flask(__name__)

    @app.get("/")
    def floor():
        return "floor\n"

    return app
