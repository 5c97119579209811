"""Metrics in Prometheus's text format, through ``prometheus_client``:
what a host watches on a dashboard and alerts on. Each app has its own
:class:`Metrics`; the web layer counts requests and refusals into it, the
job queue its jobs, the live events their open streams, and ``/metrics``
(``web.ops``) serves it, off by default.

Under gunicorn each worker is a process of its own: with
``PROMETHEUS_MULTIPROC_DIR`` set (``deploy/gunicorn.conf.py`` sets it, to a
directory of its own, before any worker starts) every process writes its
values to files there and a scrape reads them all, so whichever worker
answers, the figures are the server's (prometheus_client's multiprocess
mode; :func:`worker_exit` forgets a dead worker's open streams).

What the database knows for the whole site (jobs queued and running, the
oldest job's wait, live sessions and their students) is read at each
scrape instead, by the worker that answers, with the server's readiness
(``webapp.health``'s checks, 1 or 0 each), so an alert can watch it.

No label carries a secret: requests are labelled by their route's
template (``/games/<game_id>``), never by their path, and by method and
status; jobs by kind; refusals by the limit's name."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4 as CONTENT_TYPE

__all__ = ["CONTENT_TYPE", "Metrics", "allowed", "networks", "worker_exit"]

# Seconds: a page or a guess takes milliseconds; past 10 s something is wrong.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Seconds: a job waits a moment or minutes, and runs for a second or an hour.
JOB_BUCKETS = (0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0)
# The HTTP methods counted by name; anything else a client invents is "other".
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# The route label of a request that matched no route (a 404, a 405).
UNMATCHED = "unmatched"


def networks(value) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """``METRICS_ALLOW`` as networks: a list, or comma-separated text, of
    addresses and networks; ValueError naming the setting for anything else.

    >>> [str(n) for n in networks("127.0.0.1, 10.0.0.0/24")]
    ['127.0.0.1/32', '10.0.0.0/24']
    """
    entries = value.split(",") if isinstance(value, str) else list(value or ())
    found = []
    for entry in entries:
        try:
            found.append(ipaddress.ip_network(str(entry).strip(), strict=False))
        except ValueError:
            raise ValueError(f"METRICS_ALLOW: {entry!r} is not an address or a network") from None
    return found


def allowed(address: str | None, allow: Iterable) -> bool:
    """Whether ``address`` is in one of the networks ``allow``.

    >>> allowed("127.0.0.1", networks(["127.0.0.1"])), allowed("203.0.113.9", networks(["127.0.0.1"]))
    (True, False)
    """
    try:
        found = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(found in network for network in allow)


def method_label(method: str) -> str:
    return method if method in METHODS else "other"


def shared_directory() -> str | None:
    """The directory every process of this server writes its values to, if any."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


class Metrics:
    """One app's metrics (module-level metrics would outlive an app)."""

    def __init__(self, config):
        self.enabled = bool(config["METRICS_ENABLED"])  # /metrics answers only then, and only to METRICS_ALLOW
        self.allow = networks(config["METRICS_ALLOW"])
        self.shared = shared_directory()
        self.registry = CollectorRegistry()
        own = None if self.shared else self.registry  # shared: the files are the registry
        self.requests = Counter(
            "mastermind_http_requests",
            "Requests answered, by route template, method and status.",
            ["route", "method", "status"],
            registry=own,
        )
        self.latency = Histogram(
            "mastermind_http_request_duration_seconds",
            "Seconds from a request's arrival to its answer's start, by route template, method and status.",
            ["route", "method", "status"],
            buckets=REQUEST_BUCKETS,
            registry=own,
        )
        self.job_wait = Histogram(
            "mastermind_job_wait_seconds",
            "Seconds a job waited in the queue before a consumer took it, by kind.",
            ["kind"],
            buckets=JOB_BUCKETS,
            registry=own,
        )
        self.job_run = Histogram(
            "mastermind_job_run_seconds",
            "Seconds a job ran, by kind and outcome (done, failed).",
            ["kind", "outcome"],
            buckets=JOB_BUCKETS,
            registry=own,
        )
        self.live_streams = Gauge(
            "mastermind_live_streams",
            "Live event streams open now.",
            registry=own,
            multiprocess_mode="livesum",
        )
        self.refusals = Counter(
            "mastermind_refusals",
            "Requests refused by a limit (429, or 503 for the job and stream limits), by the limit's name.",
            ["limit"],
            registry=own,
        )
        self.puzzle_answers = Counter(
            "mastermind_puzzle_answers",
            "Puzzle answers recorded.",
            registry=own,
        )
        self.database_errors = Counter(
            "mastermind_database_errors",
            "Requests the database failed (answered 503), by the error's type.",
            ["error"],
            registry=own,
        )

    def request(self, route: str | None, method: str, status: int, seconds: float) -> None:
        labels = (route or UNMATCHED, method_label(method), str(status))
        self.requests.labels(*labels).inc()
        self.latency.labels(*labels).observe(seconds)

    def refused(self, limit: str) -> None:
        self.refusals.labels(limit).inc()

    def job(self, kind: str, waited: float, ran: float, outcome: str) -> None:
        self.job_wait.labels(kind).observe(max(waited, 0.0))
        self.job_run.labels(kind, outcome).observe(max(ran, 0.0))

    def exposition(self, site: Callable[[], dict] | None = None) -> bytes:
        """The text a scrape reads: every process's values, then ``site()``'s
        gauges, read now (name → value, or → {label's value: value} for a
        gauge with a label)."""
        if self.shared:
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, self.shared)
        else:
            registry = self.registry
        text = generate_latest(registry)
        if site is not None:
            now = CollectorRegistry()
            now.register(SiteGauges(site))
            text += generate_latest(now)
        return text


# What ``site()`` reports at a scrape: each gauge's name, help and label (if any).
SITE_GAUGES = {
    "mastermind_ready": ("1 when this server has what /readyz checks, else 0, by check.", "check"),
    "mastermind_jobs_queued": ("Jobs queued and not yet taken, across the site.", None),
    "mastermind_jobs_running": ("Jobs running now, across the site.", None),
    "mastermind_jobs_oldest_queued_seconds": ("Seconds the oldest queued job has waited (0: none waits).", None),
    "mastermind_live_sessions": ("Live sessions not yet ended (touched within LIVE_IDLE_HOURS).", None),
    "mastermind_live_students": ("Students in those sessions (removed ones left out).", None),
}


class SiteGauges:
    """A collector of the figures read at a scrape."""

    def __init__(self, site: Callable[[], dict]):
        self.site = site

    def collect(self):
        for name, value in self.site().items():
            description, label = SITE_GAUGES[name]
            family = GaugeMetricFamily(name, description, labels=[label] if label else None)
            for labels, number in value.items() if label else [((), value)]:
                family.add_metric([labels] if label else [], float(number))
            yield family


def worker_exit(pid: int) -> None:
    """gunicorn's ``child_exit``: forget a dead worker's gauges (its open
    streams), keep its counts."""
    if shared_directory():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def prepare_directory(folder: str) -> None:
    """Empty ``folder`` of a previous run's files as a server starts (the
    counts start again, as Prometheus expects of a restart)."""
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith(".db"):
            os.remove(os.path.join(folder, name))
