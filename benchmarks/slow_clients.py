"""Slow clients against the production set-up: gunicorn with 4 gthread
workers of 4 threads each (``make serve`` runs 128 per worker; 4 let 50 slow
clients outnumber them), alone and behind nginx running ``deploy/nginx.conf``.

    python -m benchmarks --slow-clients      # 50 trickling connections, 20 s per path

Each trickling connection sends a request line, then one header line a
second, and never ends its header; one the server closes is opened again at
once. While they trickle, ``GET /`` is timed every 0.5 s (5 s timeout): first
straight to gunicorn, then through nginx, in the same run, on the same
gunicorn. Before each of the two, a few requests with nothing trickling give
the path's ordinary latency.

nginx is Debian's (``apt-get install -y --no-install-recommends nginx``). Its
configuration is deploy/nginx.conf, wrapped in a main file like Debian's
/etc/nginx/nginx.conf, with only these changed: it listens on a free loopback
port (and not on IPv6), its one upstream server is this gunicorn, the static
files come from this checkout, and its pid file, logs and temporary files
live in a temporary folder, in the foreground (``daemon off``). Everything
else it does to requests is deploy/nginx.conf's. All traffic stays on
127.0.0.1, and every loop is bounded in count and time.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import pwd
import re
import select
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from .load import ROOT, gunicorn
from .servers import free_port, stop_group, wait_for_port

SITE = ROOT / "deploy" / "nginx.conf"
INSTALL = "apt-get install -y --no-install-recommends nginx"


def nginx_program() -> str:
    program = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(program):
        raise RuntimeError(f"nginx not found: install Debian's nginx package ({INSTALL})")
    return program


def site_config(upstream_port: int, listen_port: int) -> str:
    """deploy/nginx.conf with its listen port, upstream servers and static
    folder rewritten; anything else in it is kept as it is."""
    text = SITE.read_text()

    def upstream(block: re.Match) -> str:  # the first server line, on this gunicorn's port; the others go
        seen = []

        def server(line: re.Match) -> str:
            seen.append(line)
            return f"{line.group(1)}server 127.0.0.1:{upstream_port}{line.group(2) or ''};\n" if len(seen) == 1 else ""

        rewritten = re.sub(r"^([ \t]*)server\s+\S+([ \t][^;\n]*)?;\n", server, block.group(0), flags=re.MULTILINE)
        if not seen:
            raise RuntimeError(f"{SITE}: no server line in the upstream block")
        return rewritten

    rewrites = [
        (r"^upstream\s+\w+\s*\{.*?^\}", upstream, re.MULTILINE | re.DOTALL),
        (r"^([ \t]*)listen\s+80;", rf"\1listen 127.0.0.1:{listen_port};", re.MULTILINE),
        (r"^[ \t]*listen\s+\[::\]:80;\n", "", re.MULTILINE),
        (r"^([ \t]*alias\s+)/srv/mastermind/static/;", rf"\1{ROOT}/static/;", re.MULTILINE),
    ]
    for pattern, replacement, flags in rewrites:
        text, n = re.subn(pattern, replacement, text, count=1, flags=flags)
        if n != 1:
            raise RuntimeError(f"{SITE} has changed: nothing matches {pattern!r}; update benchmarks/slow_clients.py")
    return text


def main_config(site: str, folder: str) -> str:
    """A main configuration like Debian's /etc/nginx/nginx.conf around ``site``,
    with every file it writes in ``folder``."""
    user = "user www-data;" if os.geteuid() == 0 and _has_user("www-data") else ""
    temp = "\n".join(
        f"    {kind}_temp_path {folder}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    site = "\n".join(("    " + line) if line else line for line in site.splitlines())
    return f"""# Made by benchmarks/slow_clients.py from deploy/nginx.conf; deleted afterwards.
daemon off;
{user}
worker_processes auto;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{
    worker_connections 768;
}}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {folder}/access.log;
    gzip on;
{temp}

{site}
}}
"""


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


@contextlib.contextmanager
def nginx(upstream_port: int):
    """Debian's nginx with deploy/nginx.conf in front of ``upstream_port``, in
    a temporary folder; yields (port, version)."""
    program = nginx_program()
    version = subprocess.run([program, "-v"], check=False, capture_output=True, text=True).stderr.strip().split("/")[-1]
    folder = tempfile.mkdtemp(prefix="mastermind-nginx-")
    process = None
    try:
        if os.geteuid() == 0 and _has_user("www-data"):
            shutil.chown(folder, "www-data", "www-data")  # its workers write the temporary files here
        port = free_port()
        conf = os.path.join(folder, "nginx.conf")
        Path(conf).write_text(main_config(site_config(upstream_port, port), folder))
        command = [program, "-p", folder + "/", "-e", os.path.join(folder, "error.log"), "-c", conf]
        check = subprocess.run([*command, "-t", "-q"], check=False, capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError(f"nginx refused the configuration:\n{check.stderr}")
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            wait_for_port(port, 10)
            started = process.poll() is None
        except RuntimeError:
            started = False
        if not started:
            log = Path(folder, "error.log")
            raise RuntimeError("nginx did not start:\n" + (log.read_text(errors="replace") if log.exists() else ""))
        yield port, version
    finally:
        if process is not None:
            stop_group(process)
        shutil.rmtree(folder, ignore_errors=True)


class Trickle:
    """``clients`` connections that each send a request line and then one
    header line a second, never ending the header. A connection the server
    closes (or answers) is counted and opened again. Stops when its ``with``
    block ends or after ``limit`` seconds, whichever comes first, and closes
    every connection."""

    def __init__(self, port: int, clients: int = 50, limit: float = 30):
        self.port, self.clients, self.limit = port, clients, limit
        self.opened = self.cut = self.lines = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(self.limit + 5)

    def _open(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=2)
        except OSError:
            return None
        try:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: trickle\r\n")
        except OSError:
            sock.close()
            return None
        self.opened += 1
        return sock

    def _run(self) -> None:
        socks: list[socket.socket | None] = [None] * self.clients
        deadline = time.monotonic() + self.limit
        tick = 0
        try:
            while not self._stop.is_set() and time.monotonic() < deadline:
                tick_started = time.monotonic()
                live = [s for s in socks if s is not None]
                readable = set(select.select(live, [], [], 0)[0]) if live else set()
                for i, sock in enumerate(socks):
                    if sock is not None and sock in readable:  # closed by the server, or answered
                        self.cut += 1
                        sock.close()
                        sock = socks[i] = None
                    if sock is None:
                        socks[i] = self._open()
                        continue
                    try:
                        sock.sendall(f"X-Trickle-{tick}: {i}\r\n".encode())
                        self.lines += 1
                    except OSError:
                        self.cut += 1
                        sock.close()
                        socks[i] = None
                tick += 1
                self._stop.wait(max(0.0, 1.0 - (time.monotonic() - tick_started)))
        finally:
            for sock in socks:
                if sock is not None:
                    sock.close()


def timed_get(port: int, timeout: float) -> tuple[str, float]:
    """``GET /``: ("answered" | "timeout" | "error", seconds)."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        resp.read()
        outcome = "answered" if resp.status == 200 else "error"
    except TimeoutError:
        outcome = "timeout"
    except (OSError, http.client.HTTPException):
        outcome = "error"
    finally:
        conn.close()
    elapsed = time.perf_counter() - started
    if outcome == "answered" and elapsed > timeout:
        outcome = "timeout"
    return outcome, elapsed


def probe(port: int, count: int, interval: float, timeout: float) -> list[tuple[str, float]]:
    """``count`` GET / started every ``interval`` seconds, each on its own
    connection and thread, whether or not the earlier ones have answered."""
    results: list[tuple[str, float] | None] = [None] * count

    def one(i):
        results[i] = timed_get(port, timeout)

    threads = []
    for i in range(count):
        t = threading.Thread(target=one, args=(i,), daemon=True)
        t.start()
        threads.append(t)
        time.sleep(interval)
    for t in threads:
        t.join(timeout + 5)
    return [r if r is not None else ("timeout", timeout) for r in results]


def summary(path: str, trickling: bool, results, cut: int = 0) -> dict:
    answered = [s for outcome, s in results if outcome == "answered"]
    return {
        "path": path,
        "trickling": trickling,
        "requests": len(results),
        "answered": len(answered),
        "median_ms": statistics.median(answered) * 1000 if answered else None,
        "max_ms": max(answered) * 1000 if answered else None,
        "timeouts": sum(outcome == "timeout" for outcome, _ in results),
        "errors": sum(outcome == "error" for outcome, _ in results),
        "cut": cut,
    }


def recover(port: int, seconds: float = 15) -> None:
    """Wait until ``GET /`` answers again once the trickling has stopped."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if timed_get(port, 2)[0] == "answered":
            return
        time.sleep(0.2)
    raise RuntimeError(f"port {port} did not answer again within {seconds:.0f} s of the trickle's end")


def run(
    clients: int = 50,
    seconds: float = 20,
    interval: float = 0.5,
    timeout: float = 5,
    workers: int = 4,
    calm: int = 10,
    settle: float = 1.0,
) -> tuple[list, str]:
    """Each path timed with ``calm`` requests and nothing trickling, then
    ``settle`` seconds into ``clients`` trickling connections, a request
    every ``interval`` seconds to the end of ``seconds``."""
    nginx_program()  # say so at once when nginx is missing, before gunicorn starts
    rows = []
    count = int((seconds - settle) / interval)  # requests under trickling, from ``settle`` s in to the end
    with (
        tempfile.TemporaryDirectory() as folder,
        gunicorn(str(Path(folder) / "slow.sqlite3"), workers=workers, threads=4) as (direct, _),
        nginx(direct) as (proxied, version),
    ):
        for path, port in (("direct", direct), ("nginx", proxied)):
            recover(port)
            for _ in range(4 * workers):  # every worker has rendered the page once
                timed_get(port, timeout)
            rows.append(summary(path, False, probe(port, calm, 0.1, timeout)))
            with Trickle(port, clients, limit=seconds + timeout + 10) as trickle:
                time.sleep(settle)  # every connection open and trickling
                results = probe(port, count, interval, timeout)
            rows.append(summary(path, True, results, trickle.cut))
    return rows, version


def main(
    clients: int = 50, seconds: float = 20, interval: float = 0.5, workers: int = 4, calm: int = 10, settle: float = 1.0
) -> None:
    rows, version = run(clients, seconds, interval, workers=workers, calm=calm, settle=settle)
    print(
        f"slow clients: {clients} connections each sending a request line, then one header line a "
        f"second, for {seconds:.0f} s; GET / every {interval:g} s meanwhile (5 s timeout)"
    )
    print(f"gunicorn {workers} gthread workers × 4 threads; nginx {version} with deploy/nginx.conf")
    print(
        f"{'path':8} {'trickling':>9} {'requests':>9} {'answered':>9} {'median ms':>10} {'max ms':>8} "
        f"{'timeouts':>9} {'errors':>7} {'slow conns cut':>15}"
    )
    for r in rows:
        median = "-" if r["median_ms"] is None else f"{r['median_ms']:.1f}"
        peak = "-" if r["max_ms"] is None else f"{r['max_ms']:.1f}"
        cut = str(r["cut"]) if r["trickling"] else "-"
        print(
            f"{r['path']:8} {'yes' if r['trickling'] else 'no':>9} {r['requests']:9d} {r['answered']:9d} "
            f"{median:>10} {peak:>8} {r['timeouts']:9d} {r['errors']:7d} {cut:>15}"
        )
