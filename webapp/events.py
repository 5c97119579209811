"""How a live session's change reaches every stream that follows it, on
every server: a signal carrying the session's code and new version, after
which each stream reads the state from the store and sends its event.

In one process the signal is a condition the streams wait on. Across the
worker processes and servers of a deployment it travels through Redis
pub/sub when ``REDIS_URL`` is set; without Redis (the embedded default) each
process reads the versions of the sessions its streams follow from the
database every ``LIVE_POLL_SECONDS``, one query for all of them. Either way
a stream also reads the state itself every ``LIVE_KEEPALIVE_SECONDS``, so a
lost signal delays an event and never loses it."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from . import store

LOGGER = logging.getLogger("mastermind.live")

# How long a new stream waits for Redis to confirm the subscription before
# its first read (past it, a step is at worst one keepalive late).
SUBSCRIBE_SECONDS = 2.0
# A stream a stopping server ends tells its browser to come back after a
# random wait in this range (milliseconds), so a class's phones reconnect
# spread over a few seconds, to whichever server answers, not all at once.
RECONNECT_MS = (1000, 6000)


class Full(Exception):
    """This process follows as many streams as it may: in all, from one address or of one session."""


class Gone(Exception):
    """The client of a stream has closed its connection."""


@dataclass
class Followed:
    """One session as this process's streams follow it."""

    version: int = -1
    streams: int = 0
    changed: threading.Condition = field(default_factory=threading.Condition)


class Hub:
    """The signals of one process: what its streams wait on."""

    def __init__(self, limit: int):
        self.limit = limit
        self.per_address = limit
        self.per_session = limit
        self.look_every = 1.0  # seconds between two looks whether a waiting stream's client has gone
        self._lock = threading.Lock()
        self._followed: dict[str, Followed] = {}
        self._addresses: Counter[str] = Counter()  # streams from each address
        self.open_streams = None  # a gauge of the metrics: streams open now
        self.closing = False  # the server is stopping: every stream ends, none starts

    @property
    def streams(self) -> int:
        with self._lock:
            return sum(f.streams for f in self._followed.values())

    def room_for(self, address: str, code: str = "") -> bool:
        """Whether a stream from ``address`` following ``code`` would be followed now."""
        with self._lock:
            return self._has_room(address, code)

    def _has_room(self, address: str, code: str) -> bool:
        if self.closing:
            return False
        total = sum(f.streams for f in self._followed.values())
        followed = self._followed.get(code)
        return (
            total < self.limit
            and self._addresses[address] < self.per_address
            and (followed is None or followed.streams < self.per_session)
        )

    def codes(self) -> list[str]:
        with self._lock:
            return list(self._followed)

    @contextlib.contextmanager
    def follow(self, code: str, address: str = "") -> Iterator[Followed]:
        """A stream from ``address`` following ``code`` for the length of the
        ``with``; :class:`Full` past either limit."""
        with self._lock:
            if not self._has_room(address, code):
                raise Full(code)
            followed = self._followed.setdefault(code, Followed())
            followed.streams += 1
            self._addresses[address] += 1
        if self.open_streams is not None:
            self.open_streams.inc()
        try:
            self.started()
            self.ready(SUBSCRIBE_SECONDS)
            yield followed
        finally:
            if self.open_streams is not None:
                self.open_streams.dec()
            with self._lock:
                followed.streams -= 1
                if not followed.streams:
                    self._followed.pop(code, None)
                self._addresses[address] -= 1
                if not self._addresses[address]:
                    del self._addresses[address]

    def notify(self, code: str, version: int) -> None:
        """Wake the streams following ``code`` if ``version`` is news to them."""
        with self._lock:
            followed = self._followed.get(code)
        if followed is None:
            return
        with followed.changed:
            if version > followed.version:
                followed.version = version
                followed.changed.notify_all()

    def wait(self, followed: Followed, after: int, timeout: float, gone=None) -> bool:
        """Whether a version past ``after`` was signalled within ``timeout``
        seconds; :class:`Gone` as soon as ``gone()`` says the client left."""
        ends = time.monotonic() + timeout
        while True:
            left = ends - time.monotonic()
            step = left if gone is None else min(left, self.look_every)
            with followed.changed:
                if followed.changed.wait_for(lambda: followed.version > after or self.closing, max(step, 0)):
                    return True
            if gone is not None and gone():
                raise Gone(followed)
            if left <= step:
                return False

    def publish(self, code: str, version: int) -> None:
        """Tell every stream, here and on the other servers, that ``code`` changed."""
        self.notify(code, version)

    def started(self) -> None:
        """Called as a stream starts: start whatever brings other processes' signals."""

    def ready(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until other processes' signals
        arrive, so that a stream's first read of the state misses none."""

    def close_all(self) -> None:
        """The server is stopping (gunicorn's SIGTERM): wake every stream
        to end, and start none."""
        with self._lock:
            self.closing = True
            followed = list(self._followed.values())
        for one in followed:
            with one.changed:
                one.changed.notify_all()

    def stop(self) -> None:
        pass


class PollingHub(Hub):
    """Without Redis: one thread reads the followed sessions' versions from the database."""

    def __init__(self, limit: int, database: store.Database, interval: float):
        super().__init__(limit)
        self.database, self.interval = database, interval
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def started(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._poll, name="live-poll", daemon=True)
                self._thread.start()

    def _poll(self) -> None:
        while not self._stopping.wait(self.interval):
            codes = self.codes()
            if not codes:
                continue
            try:
                with store.scope(self.database):
                    versions = store.live.live_versions(codes)
            except self.database.unavailable:  # the next round tries again
                continue
            for code, version in versions.items():
                self.notify(code, version)

    def stop(self) -> None:
        self._stopping.set()


class RedisHub(Hub):
    """With Redis: a version is published on the session's channel, and one
    thread per process hands what arrives to its streams."""

    def __init__(self, limit: int, url: str, prefix: str):
        import redis

        super().__init__(limit)
        self.client = redis.Redis.from_url(url)
        self.prefix = prefix
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self.listening = threading.Event()  # set once subscribed (the tests wait on it)
        self.failing = False  # Redis failed, and has not answered since

    def publish(self, code: str, version: int) -> None:
        self.notify(code, version)
        try:
            self.client.publish(self.prefix + code, str(version))
        except Exception:  # Redis away: the others' streams read on their next keepalive
            self.trouble("cannot publish to Redis")

    def trouble(self, what: str) -> None:
        """Log the first failure of Redis in a row, not every retry."""
        if not self.failing:
            self.failing = True
            LOGGER.warning("live events: %s; other servers' streams fall back to their keepalive", what, exc_info=True)

    def started(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._listen, name="live-redis", daemon=True)
                self._thread.start()

    def ready(self, timeout: float) -> None:
        self.listening.wait(timeout)

    def _listen(self) -> None:
        while not self._stopping.is_set():
            pubsub = self.client.pubsub()
            try:
                pubsub.psubscribe(self.prefix + "*")
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message["type"] == "psubscribe":  # Redis confirms: every later publish reaches us
                        self.listening.set()
                        self.failing = False
                        continue
                    if message["type"] != "pmessage":
                        continue
                    channel = message["channel"].decode()
                    with contextlib.suppress(ValueError):
                        self.notify(channel[len(self.prefix) :], int(message["data"]))
            except Exception:  # Redis restarted or unreachable: subscribe again shortly
                self.trouble("lost the subscription to Redis")
                self.listening.clear()
                self._stopping.wait(1.0)
            finally:
                with contextlib.suppress(Exception):
                    pubsub.close()

    def stop(self) -> None:
        self._stopping.set()


def init_app(app) -> None:
    limit = int(app.config["LIVE_STREAMS_PER_WORKER"])
    if app.config.get("REDIS_URL"):
        hub: Hub = RedisHub(limit, app.config["REDIS_URL"], app.config["LIVE_CHANNEL_PREFIX"])
    else:
        hub = PollingHub(limit, app.extensions["store"], float(app.config["LIVE_POLL_SECONDS"]))
    hub.per_address = int(app.config["LIVE_STREAMS_PER_ADDRESS"])
    hub.per_session = int(app.config["LIVE_STREAMS_PER_SESSION"]) + int(app.config["LIVE_ANONYMOUS_STREAMS"])
    hub.look_every = float(app.config["LIVE_GONE_SECONDS"])
    hub.open_streams = app.extensions["metrics"].live_streams
    app.extensions["live"] = hub


def fit_to_threads(app, threads: int) -> int:
    """Hold ``app``'s streams to ``threads`` less the threads kept free for
    other requests (gunicorn calls this in each worker); the new limit."""
    hub = app.extensions["live"]
    hub.limit = max(0, min(int(app.config["LIVE_STREAMS_PER_WORKER"]), threads - int(app.config["LIVE_FREE_THREADS"])))
    return hub.limit
