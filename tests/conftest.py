"""Shared fixtures: an app on a temporary database, its test client, a live
server for the browser, and Debian's Chromium for Playwright."""

from __future__ import annotations

import os
import shutil
import threading

import pytest
from werkzeug.serving import make_server

from webapp import create_app

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "games.sqlite3")


@pytest.fixture
def app(db_path):
    # Tests create games far faster than any player: a generous limit here;
    # test_limits.py checks the real one.
    app = create_app({"DATABASE": db_path, "TESTING": True, "CREATE_RATE_LIMIT": "5000 per minute"})
    yield app
    app.extensions["jobs"].stop()  # the embedded job consumer's threads


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
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
        ],
    }


@pytest.fixture
def nojs_page(browser):
    """A page in a browser context with JavaScript turned off."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    yield page
    context.close()
