"""Throwaway PostgreSQL and Redis servers from Debian's packages, for the
tests and the benchmarks: each lives in a temporary folder, listens on a free
loopback port, and is stopped and deleted afterwards.

PostgreSQL refuses to run as root, so as root its files belong to the
``postgres`` user that Debian's package creates and its commands run as that
user. (pytest-postgresql starts its server as the current user, which is why
the tests use these two context managers instead.)

    python -m benchmarks.servers    # start both, print their URLs, wait for Ctrl-C
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_bin(name: str) -> str:
    """A PostgreSQL server program (initdb, pg_ctl) from Debian's newest installed version."""
    found = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    if found:
        return found[-1]
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"{name} not found: install Debian's postgresql package (make test does)")
    return path


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def stop_group(process: subprocess.Popen) -> None:
    """Stop a process started in a session of its own, and its children:
    SIGTERM, then SIGKILL if it has not ended within ten seconds."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_for_port(port: int, seconds: float = 30) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing answered on port {port}")


class PostgresURL(str):
    """The URL of a throwaway PostgreSQL server, which can also stop the
    server and start it again (for tests of an outage)."""

    def control(self, *args: str) -> None:
        subprocess.run(
            _as_server_user([postgres_bin("pg_ctl"), "-D", self.data, *args]),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        self.control("-m", "immediate", "-w", "stop")

    def start(self) -> None:
        self.control("-o", self.options, "-l", self.log, "-w", "start")


@contextlib.contextmanager
def postgresql(durable: bool = False):
    """A PostgreSQL server with an empty database ``mastermind``; yields its
    URL. ``durable=False`` (for tests) turns off fsync; benchmarks keep it."""
    folder = tempfile.mkdtemp(prefix="mastermind-pg-")
    data = os.path.join(folder, "data")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = free_port()
    subprocess.run(
        _as_server_user(
            [
                postgres_bin("initdb"),
                "-D",
                data,
                "-U",
                "mastermind",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ]
        ),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    server = f"postgresql://mastermind@127.0.0.1:{port}"
    url = PostgresURL(f"{server}/mastermind")
    url.data, url.log = data, os.path.join(folder, "log")
    url.options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    if not durable:
        url.options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    url.start()
    try:
        import psycopg

        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE mastermind")
        yield url
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            url.stop()
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def redis():
    """A Redis server that keeps nothing on disk; yields its URL."""
    program = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not os.path.exists(program):
        raise RuntimeError("redis-server not found: install Debian's redis-server package (make test does)")
    folder = tempfile.mkdtemp(prefix="mastermind-redis-")
    port = free_port()
    process = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def schema(url: str, name: str):
    """A fresh schema ``name`` in the database at ``url``; yields a URL whose
    connections use it (so that each test has tables of its own)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        yield f"{url}?options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


def main() -> None:
    """Start a throwaway PostgreSQL and Redis and print their URLs, for trying
    several app servers by hand; Ctrl-C stops and deletes both."""
    import signal

    def interrupt(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)  # `kill` cleans up as Ctrl-C does
    with postgresql(durable=True) as database_url, redis() as redis_url:
        print(f"export DATABASE_URL={database_url}")
        print(f"export REDIS_URL={redis_url}")
        print("# PostgreSQL and Redis are running; Ctrl-C stops and deletes both.", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
