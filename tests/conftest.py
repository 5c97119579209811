"""Shared fixtures: an app on a temporary database, its test client, a live
server for the browser, and Debian's Chromium for Playwright.

A test module marked ``pytestmark = pytest.mark.backends("sqlite", "postgresql")``
runs each of its tests twice: on an SQLite file with everything embedded, and
on a real PostgreSQL server (a schema of its own per test) with the job queue
and the rate-limit counters on a real Redis server. Both servers are started
once per test session from Debian's packages and stopped at its end."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import uuid

import pytest
from werkzeug.serving import make_server

from webapp import create_app

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def pytest_configure(config):
    # The tests choose their databases; a developer's own settings stay out.
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    # Feedback matrices kept between processes go to a directory of this
    # session's own (every process the tests start inherits it).
    config.table_cache = tempfile.mkdtemp(prefix="mastermind-cache-")
    os.environ["MASTERMIND_CACHE"] = config.table_cache
    config.addinivalue_line("markers", "backends(*names): run each test on these databases")


SMOKE_TEST = "tests/test_benchmarks.py::test_every_benchmark_mode_runs_at_a_tiny_size"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SmokeRun:
    """``python -m benchmarks --smoke`` in a process group of its own (it
    starts servers), its output in a file."""

    def __init__(self):
        self.output = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  (kept until the run is collected)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks", "--smoke"],
            cwd=ROOT,
            stdout=self.output,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def result(self, timeout: float) -> tuple[int, str]:
        """Its exit status and output, once it ends."""
        try:
            status = self.process.wait(timeout)
        finally:
            self.stop()
        self.output.seek(0)
        return status, self.output.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def pytest_collection_modifyitems(session, config, items):
    """The benchmarks' smoke run (half a minute, a process of its own)
    starts now, beside the other tests on the second core, and its test
    goes last to collect it."""
    smoke = [item for item in items if item.nodeid == SMOKE_TEST]
    if smoke and len(items) > 1:
        items.remove(smoke[0])
        items.append(smoke[0])
        config.smoke_run = SmokeRun()


@pytest.fixture
def smoke_run(request):
    """The smoke run started as the tests began, or one started now."""
    return getattr(request.config, "smoke_run", None) or SmokeRun()


def pytest_unconfigure(config):
    if getattr(config, "smoke_run", None) is not None:  # the run stopped before its test
        config.smoke_run.stop()
    shutil.rmtree(getattr(config, "table_cache", ""), ignore_errors=True)


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("backends")
    if marker and "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", marker.args, indirect=True)


@pytest.fixture
def backend(request):
    """``sqlite`` (everything embedded) or ``postgresql`` (PostgreSQL and Redis)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture(scope="session")
def postgresql_server():
    from benchmarks.servers import postgresql

    with postgresql() as url:
        yield url


@pytest.fixture(scope="session")
def redis_server():
    from benchmarks.servers import redis

    with redis() as url:
        yield url


@pytest.fixture
def postgresql_url(postgresql_server):
    """A URL of the test database whose connections see a fresh, empty schema."""
    from benchmarks.servers import schema

    with schema(postgresql_server, "t_" + uuid.uuid4().hex[:12]) as url:
        yield url


@pytest.fixture
def redis_url(redis_server):
    """The test Redis, emptied for this test."""
    import redis

    client = redis.Redis.from_url(redis_server)
    client.flushall()
    client.close()
    return redis_server


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "games.sqlite3")


@pytest.fixture
def db_config(request, backend, db_path):
    """The configuration that puts an app on this test's database."""
    if backend == "postgresql":
        return {
            "DATABASE_URL": request.getfixturevalue("postgresql_url"),
            "REDIS_URL": request.getfixturevalue("redis_url"),
        }
    return {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None}


@pytest.fixture
def app(db_config):
    # Tests create games far faster than any player: a generous limit here;
    # test_limits.py checks the real one.
    app = create_app(
        {
            **db_config,
            "TESTING": True,
            "CREATE_RATE_LIMIT": "5000 per minute",
            "JOBS_START_RATE_LIMIT": "5000 per minute",
            # Live streams wake this often when nothing happens, so a test that
            # stops reading one sees it end soon after.
            "LIVE_KEEPALIVE_SECONDS": 0.2,
            # The teacher hears every change of the votes (test_live.py checks the pace).
            "LIVE_VOTES_SECONDS": 0,
            # The hourly sweep runs when a test calls it, not on the clock.
            "JOBS_PERIODIC": False,
            # An idle job thread asks Redis again this often, so the app stops at once.
            "JOBS_REDIS_WAIT": 0.1,
        }
    )
    yield app
    app.extensions["jobs"].stop()  # the embedded job consumer's threads
    app.extensions["live"].stop()  # the live events' signal thread, if one started
    app.extensions["store"].close()  # PostgreSQL's connection pool


@pytest.fixture
def client(app):
    return app.test_client()


class LiveServer:
    """The app served over HTTP on a free loopback port, in a thread."""

    def __init__(self, app):
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.thread.join(5)


@pytest.fixture
def live_server(app):
    server = LiveServer(app).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium; Playwright never downloads a browser here."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture
def nojs_page(browser):
    """A page in a browser context with JavaScript turned off."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    yield page
    context.close()
