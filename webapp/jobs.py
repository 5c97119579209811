"""Slow work in the background: the only module that talks to the task queue.

A job is named by what it computes (its kind and parameters), so two
visitors asking for the same thing share one computation. Its row in the
database holds its state, its progress and, once done, its result, which
every later visitor gets at once, across restarts. The queue is huey's: its
SQLite storage on one machine; the consumer runs as threads inside the app
(``JOBS_CONSUMER = "embedded"``, what ``make run`` and ``make serve`` use) or
as its own process (``huey_consumer webapp.worker.huey``).

A running job beats every ``JOBS_HEARTBEAT`` seconds; one whose heartbeat is
older than ``JOBS_STALE_SECONDS`` (its process died) is queued again by the
next request that asks for it. At most ``JOBS_MAX`` jobs are queued or
running at once; beyond that :class:`Busy` (a 503 with ``Retry-After``).

Fair shares: one client (its address, behind the configured proxies) may
hold at most ``JOBS_PER_CLIENT`` of those slots, all but one by default, so
a client asking for many computations at once cannot take them all; and it
may start at most ``JOBS_START_RATE_LIMIT`` new jobs (counted where the
rate limits count, so across workers and servers). A job already stored or
running is never refused: only starting a new one is limited.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import current_app, g, has_request_context, request
from huey import crontab
from huey.signals import SIGNAL_INTERRUPTED

from . import store
from .computations import KINDS, Kind, is_stored, job_key, register, remembered
from .engine.codes import MastermindError
from .logs import REQUEST_ID
from .metrics import Metrics

__all__ = ["KINDS", "Busy", "Job", "Jobs", "Kind", "get", "is_stored", "job_key", "register", "remembered", "run"]

# The minute of every hour at which the sweep of abandoned games runs.
SWEEP_MINUTE = "17"
# Where the jobs' lines go (``webapp.logs``), in the web app and in ``huey_consumer`` alike.
LOGGER = logging.getLogger("mastermind.jobs")
# Where a running consumer (embedded or ``huey_consumer``) writes the time
# every JOBS_HEARTBEAT seconds, in the queue's own storage: any server of the
# site reads there whether some consumer takes its jobs (``/readyz``).
CONSUMER_HEARTBEAT = "consumer-heartbeat"


class Busy(Exception):
    """Too many jobs are running (``fact`` says whose): come back in
    ``retry_after`` seconds."""

    details: dict = {}

    def __init__(self, retry_after: int, fact: str = "server-busy"):
        super().__init__(fact)
        self.retry_after, self.fact = retry_after, fact


@dataclass
class Job:
    """A job's state as a page shows it."""

    key: str
    kind: str
    status: str
    progress: float | None = None
    eta: float | None = None
    result: Any = None
    error: str | None = None
    elapsed: float = 0.0

    @property
    def done(self) -> bool:
        return self.status == store.jobs.DONE

    @property
    def failed(self) -> bool:
        return self.status == store.jobs.FAILED

    @property
    def problem(self) -> dict | str | None:
        """Why the job failed: an engine error's ``record()`` (to be worded
        in the reader's language), or a plain message."""
        if self.error and self.error.startswith("{"):
            try:
                return json.loads(self.error)
            except ValueError:
                pass
        return self.error

    def json(self) -> dict:
        """The 202 answer of an API while the job runs."""
        return {
            "status": self.status,
            "progress": self.progress,
            "eta_seconds": None if self.eta is None else round(self.eta, 1),
            "elapsed_seconds": round(self.elapsed, 1),
        }


def _job(row: dict) -> Job:
    result = json.loads(row["result"]) if row.get("result") else None
    started = row.get("started_at") or row["created_at"]
    end = row.get("finished_at") or time.time()
    return Job(
        row["key"],
        row["kind"],
        row["status"],
        row.get("progress"),
        row.get("eta"),
        result,
        row.get("error"),
        max(0.0, end - started),
    )


def config(name: str):
    return current_app.config[name]


def get(kind: str, params: dict) -> Job:
    """The job computing ``kind`` for ``params``: its stored result, its
    progress, or a new job queued for it. Quick kinds are computed at once.
    Raises :class:`Busy` when too many jobs run."""
    key = job_key(kind, params)
    now = time.time()
    stale_before = now - config("JOBS_STALE_SECONDS")
    row = store.jobs.load_job(key)
    if row is not None and row["status"] in (store.jobs.DONE, store.jobs.FAILED):
        return _job(row)
    if row is not None:
        if row["heartbeat"] >= stale_before:
            return _job(row)
        if store.jobs.requeue_stale_job(key, stale_before, now):  # its process died
            _enqueue(key)
        return _stored(key)
    if config("JOBS_QUICK_INLINE") and KINDS[kind].quick(params) and _may_compute_here():
        result = KINDS[kind].compute(params, lambda fraction: None)
        store.jobs.finish_job(key, kind, json.dumps(params), json.dumps(result), time.time())
        return _stored(key)
    client = request.remote_addr if has_request_context() else None
    starts = current_app.extensions["jobs"].starts
    if client is not None and starts is not None and not starts.allows(client):
        raise _refused(Busy(starts.retry_after(client), "client-starts"))
    most = config("JOBS_MAX")
    share = config("JOBS_PER_CLIENT") or max(1, most - 1)
    try:
        if store.jobs.admit_job(key, kind, json.dumps(params, sort_keys=True), now, stale_before, most, client, share):
            _enqueue(key)
            LOGGER.info("job %s queued", kind, extra={"job": kind})
            if client is not None and starts is not None:
                starts.count(client)
    except store.jobs.ClientJobsFull:
        raise _refused(Busy(config("JOBS_RETRY_AFTER"), "client-busy")) from None
    except store.jobs.JobsFull:
        raise _refused(Busy(config("JOBS_RETRY_AFTER"))) from None
    return _stored(key)


# The name each refusal of a job is counted under in the metrics.
REFUSAL_LIMITS = {"client-starts": "job-starts", "client-busy": "jobs-per-client", "server-busy": "jobs"}


def _refused(busy: Busy) -> Busy:
    """Count the refusal ``busy`` in the app's metrics; it, to raise."""
    current_app.extensions["metrics"].refused(REFUSAL_LIMITS[busy.fact])
    return busy


def _may_compute_here() -> bool:
    """Whether this request may compute one more quick job itself: at most
    ``JOBS_QUICK_PER_REQUEST`` of them (a page that needs fifty reviews does
    a few and queues the rest), so no request does unbounded work."""
    if not has_request_context():
        return True
    done = g.get("quick_jobs", 0)
    if done >= config("JOBS_QUICK_PER_REQUEST"):
        return False
    g.quick_jobs = done + 1
    return True


def _stored(key: str) -> Job:
    """The job stored under ``key``, which the caller has just written."""
    row = store.jobs.load_job(key)
    if row is None:  # deleted meanwhile by hand: a failure to show, not a crash
        return Job(key, key.partition(":")[0], store.jobs.FAILED, error="This computation's record was removed.")
    return _job(row)


def _enqueue(key: str) -> None:
    """Queue the job ``key``, with the id of the request that asks (its log lines carry it)."""
    current_app.extensions["jobs"].task(key, REQUEST_ID.get())


def run(key: str, settings, logger, metrics: Metrics | None = None, ours: Callable[[], bool] | None = None) -> None:
    """Run the job ``key`` here, unless another worker has it (the body of
    the queue's one task, inside a unit of work of the store). ``settings``
    holds the JOBS_* values; nothing here needs the web app. ``metrics``
    gains how long the job waited and ran. Once ``ours()`` says False (a
    stopping server handed the job back to the queue) nothing of it is
    written here any more: another consumer runs it."""
    heartbeat, stale = settings["JOBS_HEARTBEAT"], settings["JOBS_STALE_SECONDS"]
    if not store.jobs.claim_job(key, time.time(), time.time() - stale):
        return
    row = store.jobs.load_job(key)
    if row is None:
        return
    kind, params = KINDS[row["kind"]], json.loads(row["params"])
    started = time.time()
    stop = threading.Event()
    latest: list = [None, None, started]  # fraction, seconds left then, when it was said
    database = store.database()

    def still_ours() -> bool:
        return ours is None or ours()

    def beat():
        with store.scope(database):
            while not stop.wait(heartbeat) and still_ours():
                store.jobs.beat_job(key, time.time(), latest[0], time_left(latest, time.time()))

    def progress(fraction):
        if fraction is None:
            return
        fraction = max(min(max(float(fraction), 0.0), 1.0), latest[0] or 0.0)  # never backwards
        now = time.time()
        latest[:] = [fraction, (now - started) * (1 - fraction) / fraction if fraction > 0 else None, now]

    beater = threading.Thread(target=beat, name=f"heartbeat {key[:40]}", daemon=True)
    beater.start()
    try:
        result = kind.compute(params, progress)
    except Exception as exc:  # a job's failure is stored and shown, never lost
        stop.set()
        beater.join()
        if not still_ours():
            return
        problem = json.dumps(exc.record()) if isinstance(exc, MastermindError) else str(exc) or type(exc).__name__
        store.jobs.fail_job(key, problem, time.time())
        if not isinstance(exc, MastermindError):  # the engine's refusals are answers, not faults
            logger.exception("job %s failed", key)
        if metrics is not None:
            metrics.job(row["kind"], started - row["created_at"], time.time() - started, "failed")
        return
    stop.set()
    beater.join()
    if not still_ours():
        return
    store.jobs.finish_job(key, row["kind"], row["params"], json.dumps(result), time.time())
    if metrics is not None:
        metrics.job(row["kind"], started - row["created_at"], time.time() - started, "done")
    ran = time.time() - started
    logger.info("job %s done in %.1f s", row["kind"], ran, extra={"job": row["kind"], "duration_ms": round(ran * 1000)})


def sweep(settings, logger, now: float) -> dict[str, int]:
    """Delete games abandoned for ``GAME_RETENTION_DAYS`` and live sessions
    idle for ``LIVE_IDLE_HOURS``, let go of player tokens idle for
    ``PLAYER_RETENTION_DAYS`` (0 keeps games or tokens), and delete
    rate-limit counters whose window has ended: the queue's hourly periodic
    task, and ``flask expire-games``. Returns how many of each went."""
    days, idle = settings.get("GAME_RETENTION_DAYS"), settings.get("PLAYER_RETENTION_DAYS")
    hours = settings["LIVE_IDLE_HOURS"]
    gone = {
        "games": store.games.expire_abandoned(now - days * 86400) if days else 0,
        "players": store.players.forget_idle_players(now - idle * 86400) if idle else 0,
        "live sessions": store.live.expire_live(now - float(hours) * 3600),
        "counters": store.counters.expire_counters(now),
    }
    if gone["games"]:
        logger.info("removed %d abandoned games", gone["games"])
    if gone["live sessions"]:
        logger.info("removed %d idle live sessions", gone["live sessions"])
    return gone


class Starts:
    """How many jobs each client may start: the app's rate-limit storage and
    a ``limits`` window, given by the web layer (``web.limits``)."""

    def __init__(self, strategy, items):
        self.strategy, self.items = strategy, items

    def allows(self, client: str) -> bool:
        return all(self.strategy.test(item, "job-start", client) for item in self.items)

    def count(self, client: str) -> None:
        for item in self.items:
            self.strategy.hit(item, "job-start", client)

    def retry_after(self, client: str) -> int:
        resets = [self.strategy.get_window_stats(item, "job-start", client).reset_time for item in self.items]
        return max(1, int(max(resets, default=time.time()) - time.time()) + 1)


def time_left(latest: list, now: float) -> float | None:
    """The seconds a job has left, as its progress said them, counted down
    since; None (not known) once that time is up and the job has not said
    more: a long step is not nearly done.

    >>> time_left([0.5, 10.0, 100.0], 104.0), time_left([0.5, 10.0, 100.0], 111.0)
    (6.0, None)
    """
    fraction, left, said = latest
    if fraction is None or left is None:
        return None
    remaining = left - (now - said)
    return remaining if remaining > 0 else None


class Jobs:
    """The app's queue: a huey instance (on Redis when ``REDIS_URL`` is set,
    so every server's consumers take from one queue; else on an SQLite file
    of this machine), its one task, and the embedded consumer threads when
    configured."""

    def __init__(
        self,
        settings,
        database: store.Database,
        logger,
        instance_path: str = "instance",
        metrics: Metrics | None = None,
    ):
        name = settings["JOBS_QUEUE_NAME"]
        if settings.get("REDIS_URL"):
            from huey import RedisHuey

            self.huey = RedisHuey(
                name=name, url=settings["REDIS_URL"], results=False, read_timeout=settings["JOBS_REDIS_WAIT"]
            )
        else:
            from huey import SqliteHuey

            folder = (
                os.path.dirname(os.path.abspath(settings["DATABASE"]))
                if not settings.get("DATABASE_URL")
                else instance_path
            )
            os.makedirs(folder, exist_ok=True)
            path = settings.get("JOBS_QUEUE") or os.path.join(folder, "jobs-queue.sqlite3")
            self.huey = SqliteHuey(name=name, filename=path, results=False)
        self.consumer: Any = None
        self.starts: Starts | None = None  # the web layer's count of job starts per client

        # The jobs this process runs now (key: the id of the request that
        # started each), and those it handed back as it stopped.
        self._running: dict[str, str | None] = {}
        self._handed_back: set[str] = set()
        self._running_lock = threading.Lock()
        self.drained = threading.Event()  # set once a stopping process has no job left

        @self.huey.task(name="run_job")
        def run_job(key, request_id=None):
            """One job; ``request_id``: the request that started it, for its log lines."""
            REQUEST_ID.set(request_id)
            with self._running_lock:
                self._running[key] = request_id
            try:
                with store.scope(database):
                    run(key, settings, logger, metrics, lambda: key not in self._handed_back)
            finally:
                with self._running_lock:
                    self._running.pop(key, None)
                REQUEST_ID.set(None)

        @self.huey.periodic_task(crontab(minute=SWEEP_MINUTE), name="sweep")
        def hourly_sweep():
            with store.scope(database):
                sweep(settings, logger, time.time())

        self.task, self.sweep = run_job, hourly_sweep
        self.database, self.logger = database, logger
        self.heartbeat = float(settings["JOBS_HEARTBEAT"])
        self._working = 0  # consumer threads of this process taking jobs now
        self._beating_lock = threading.Lock()
        self._quiet = threading.Event()
        self.huey.on_startup("heartbeat")(self._consumer_started)
        self.huey.on_shutdown("heartbeat")(self._consumer_stopped)
        self.huey.signal(SIGNAL_INTERRUPTED)(self._interrupted)
        if settings["JOBS_CONSUMER"] == "embedded":
            self.start(settings["JOBS_WORKERS"], settings["JOBS_PERIODIC"])

    def start(self, workers: int, periodic: bool = True) -> None:
        """Consumer threads in this process, and with ``periodic`` huey's
        scheduler for the hourly sweep (no signal handlers: the web server
        owns those)."""
        self.consumer = self.huey.create_consumer(
            workers=workers,
            worker_type="thread",
            periodic=True,
            initial_delay=0.05,
            max_delay=0.5,
            check_worker_health=False,
        )
        for _, thread in self.consumer.worker_threads:
            thread.daemon = True  # a stopping server hands its jobs back (drain), then exits at once
            thread.start()
        if periodic:
            self.consumer.scheduler.daemon = True
            self.consumer.scheduler.start()  # the hourly sweep

    def drain(self, seconds: float) -> None:
        """The server is stopping (gunicorn's SIGTERM): take no new job, let
        the running ones finish for up to ``seconds``, then hand each one
        still running back to the queue, for another consumer to run from
        the start (this process writes nothing of it any more). Sets
        :attr:`drained` when done."""
        if self.consumer is not None:
            self.consumer.stop_flag.set()  # each thread stops after its current job
            deadline = time.monotonic() + seconds
            for _, thread in self.consumer.worker_threads:
                thread.join(max(deadline - time.monotonic(), 0))
            with self._running_lock:
                left = list(self._running)
            for key in left:
                self.hand_back(key)
        self.drained.set()

    def hand_back(self, key: str) -> None:
        """Give the job ``key``, running here, back to the queue (this
        process stops): queued again at once, with the id of the request
        that started it, and nothing more of it written here."""
        with self._running_lock:
            if key not in self._running or key in self._handed_back:
                return
            self._handed_back.add(key)
            request_id = self._running[key]
        with store.scope(self.database):
            handed = store.jobs.hand_back_job(key, time.time())
        if handed:
            REQUEST_ID.set(request_id)
            try:
                self.task(key, request_id)
                self.logger.info("job %s handed back to the queue: this consumer is stopping", key.partition(":")[0])
            finally:
                REQUEST_ID.set(None)

    def _interrupted(self, signal, task, *_) -> None:
        """huey's signal for a task its consumer stopped in the middle
        (``huey_consumer`` on SIGTERM): hand its job back."""
        if isinstance(task, self.task.task_class) and task.args:
            self.hand_back(task.args[0])

    def _consumer_started(self) -> None:
        """A consumer thread starts (huey's startup hook, in this process's
        embedded consumer or in ``huey_consumer``): the first one starts the
        heartbeat."""
        with self._beating_lock:
            self._working += 1
            if self._working == 1:
                self._quiet = threading.Event()
                threading.Thread(target=self._beat, args=(self._quiet,), name="consumer heartbeat", daemon=True).start()

    def _consumer_stopped(self) -> None:
        with self._beating_lock:
            self._working -= 1
            if self._working == 0:
                self._quiet.set()

    def _beat(self, quiet: threading.Event) -> None:
        while True:
            # The queue away: readiness says so, and the next beat tries again.
            with contextlib.suppress(Exception):
                self.huey.put(CONSUMER_HEARTBEAT, time.time())
            if quiet.wait(self.heartbeat):
                return

    def consumer_heard(self) -> float | None:
        """When a consumer of this queue last beat (a time), or None when
        none ever has; raises when the queue cannot be read."""
        heard = self.huey.get(CONSUMER_HEARTBEAT, peek=True)
        return float(heard) if heard is not None else None

    def embedded_alive(self) -> bool:
        """Whether this process's embedded consumer threads all run."""
        return self.consumer is not None and all(thread.is_alive() for _, thread in self.consumer.worker_threads)

    def stop(self) -> None:
        if self.consumer is not None:
            self.consumer.stop_flag.set()
            for _, thread in self.consumer.worker_threads:
                thread.join(5)
            if self.consumer.scheduler.is_alive():
                self.consumer.scheduler.join(5)
            self.consumer = None


def init_app(app) -> None:
    app.extensions["jobs"] = Jobs(
        app.config, app.extensions["store"], LOGGER, app.instance_path, app.extensions["metrics"]
    )
