"""A real Prometheus (Debian's ``prometheus`` package, as ``make test``
installs it) scrapes a real gunicorn of two workers, as a host would
scrape ``make serve``: the request counter it stores rises by exactly the
requests made, whichever worker answered them; the shipped alert rules
load and evaluate, every query of the shipped Grafana dashboard parses,
and ``promtool check rules`` passes on the rules."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from benchmarks.load import gunicorn
from benchmarks.servers import free_port, stop_group
from tests.waiting import eventually

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "deploy" / "prometheus-alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana-dashboard.json"
# How long a test waits for a state it causes (never how long work takes).
PATIENCE = 60


def program(name: str) -> str:
    found = shutil.which(name) or f"/usr/bin/{name}"
    assert os.path.exists(found), f"{name} not found: install Debian's prometheus package (make test does)"
    return found


class Prometheus:
    """A Prometheus server's HTTP API."""

    def __init__(self, url: str):
        self.url = url

    def get(self, path: str, **params) -> dict:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}{path}{query}", timeout=10) as answer:
            return json.loads(answer.read())

    def query(self, expr: str) -> list:
        found = self.get("/api/v1/query", query=expr)
        assert found["status"] == "success", (expr, found)
        return found["data"]["result"]

    def value(self, expr: str) -> float | None:
        """The single value of ``expr`` now, or None when it has none."""
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else None

    def wait_for(self, expr: str, condition, what: str) -> float | None:
        """``expr``'s value once ``condition(value)`` holds (bounded by PATIENCE)."""
        seen: list[float | None] = []

        def holds() -> bool:
            seen.append(self.value(expr))
            return bool(condition(seen[-1]))

        eventually(holds, f"{what}: {expr}", PATIENCE)
        return seen[-1]


@contextlib.contextmanager
def prometheus(target_port: int):
    """Prometheus scraping ``127.0.0.1:target_port`` every second as job
    "mastermind", with the shipped rules, in a folder of its own."""
    folder = tempfile.mkdtemp(prefix="mastermind-prometheus-")
    port = free_port()
    config = Path(folder) / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"rule_files:\n  - {RULES}\n"
        "scrape_configs:\n  - job_name: mastermind\n"
        f"    static_configs:\n      - targets: ['127.0.0.1:{target_port}']\n"
    )
    log = Path(folder) / "log"
    with open(log, "w") as output:
        process = subprocess.Popen(
            [
                program("prometheus"),
                f"--config.file={config}",
                f"--storage.tsdb.path={folder}/data",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    api = Prometheus(f"http://127.0.0.1:{port}")
    try:

        def answers() -> bool:
            assert process.poll() is None, log.read_text()
            with (
                contextlib.suppress(OSError, urllib.error.URLError),
                urllib.request.urlopen(f"{api.url}/-/ready", timeout=2) as ready,
            ):
                return ready.status == 200
            return False

        eventually(answers, "Prometheus ready", PATIENCE)
        yield api
    finally:
        stop_group(process)
        shutil.rmtree(folder, ignore_errors=True)


def post(port: int, path: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=b"{}", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.status


def test_prometheus_sees_the_request_counter_rise(db_path):
    games = 'sum(mastermind_http_requests_total{job="mastermind", route="/api/games", method="POST", status="201"})'
    with (
        gunicorn(db_path, workers=2, threads=4, config={"METRICS_ENABLED": True}) as (port, _),
        prometheus(port) as api,
    ):
        api.wait_for('up{job="mastermind"}', lambda up: up == 1, "the first scrape")
        assert api.value(games) is None  # no game made yet: no such series
        assert [post(port, "/api/games") for _ in range(20)] == [201] * 20
        # Both workers' counts, read by whichever answers the scrape: exactly the 20 made.
        assert api.wait_for(games, lambda n: n is not None and n >= 20, "the games made") == 20
        assert api.value('min(mastermind_ready{job="mastermind"})') == 1  # every check passes
        for panel in json.loads(DASHBOARD.read_text())["panels"]:
            for target in panel["targets"]:
                api.query(target["expr"])  # parses, and runs on the series a server gives
        eventually(
            lambda: {r["health"] for g in api.get("/api/v1/rules")["data"]["groups"] for r in g["rules"]} == {"ok"},
            "every alert rule evaluated",
            PATIENCE,
        )
        firing = api.query('ALERTS{alertstate="firing"}')
        assert firing == []  # a healthy server sets none off


def test_promtool_passes_the_shipped_rules():
    done = subprocess.run([program("promtool"), "check", "rules", str(RULES)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 5 rules found" in done.stdout
