"""The app's log lines, as a host reads them: the ``mastermind`` loggers
(``mastermind.requests``, one line per request; ``mastermind.jobs``;
``mastermind.live``; ``mastermind.health``) write to standard error
(gunicorn's, so the journal under systemd), plain text by default or one
JSON object a line with ``LOG_FORMAT = "json"`` (python-json-logger).

Every line carries the request id of the request it belongs to, or of the
request that started the job it belongs to (:data:`REQUEST_ID`; ``-`` for
neither): the id nginx sent as ``X-Request-ID``, or one made here."""

from __future__ import annotations

import logging
import re
import sys
import uuid
from contextvars import ContextVar

# The id of the request (or of the request that started the job) this code runs for.
REQUEST_ID: ContextVar[str | None] = ContextVar("mastermind_request_id", default=None)
# An id a client or a proxy may give (nginx's $request_id is 32 hex digits);
# anything else, a new one is made rather than written to the log as sent.
GIVEN_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
TEXT = "%(asctime)s %(levelname)s %(name)s %(request_id)s %(message)s"
JSON_FIELDS = ("asctime", "levelname", "name", "request_id", "message")


def request_id(given: str | None) -> str:
    """The id a request goes by: the one it was given when it looks like
    one, else a new one.

    >>> request_id("7f3a-1"), len(request_id("two words")), len(request_id(None))
    ('7f3a-1', 32, 32)
    """
    if given and GIVEN_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


class WithRequestId(logging.Filter):
    """Gives each record the current request id (``-`` when none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get() or "-"
        return True


class Stderr(logging.StreamHandler):
    """A handler on whatever ``sys.stderr`` is when a line is written."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def formatter(kind: str) -> logging.Formatter:
    if kind == "json":
        from pythonjsonlogger.json import JsonFormatter

        return JsonFormatter(
            list(JSON_FIELDS),
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    return logging.Formatter(TEXT)


def configure(settings) -> None:
    """Set the ``mastermind`` loggers up as ``settings`` say (the web app's
    config, or the job consumer's, ``LOG_FORMAT`` checked as they were
    read): called again, it replaces its own handler, nothing else."""
    kind = settings["LOG_FORMAT"]
    logger = logging.getLogger("mastermind")
    for old in [h for h in logger.handlers if isinstance(h, Stderr)]:
        logger.removeHandler(old)
    handler = Stderr()
    handler.setFormatter(formatter(kind))
    handler.addFilter(WithRequestId())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # written once, here, whatever else the process configures
