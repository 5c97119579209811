"""A load run against real gunicorn: K players play whole games at once,
through the JSON API and through the htmx routes, and afterwards every
acknowledged guess is checked in the database: stored exactly once, with the
right feedback. The fault tests reuse these pieces.

    python -m benchmarks --load          # 32 players for 15 s, 4 workers
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import select
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from .servers import free_port, stop_group

ROOT = Path(__file__).resolve().parent.parent


def database_settings(database: str) -> dict:
    """The app's configuration for ``database``: an SQLite path or a postgresql:// URL."""
    if database.startswith("postgresql://"):
        return {"DATABASE_URL": database}
    return {"DATABASE": database, "DATABASE_URL": None}


class ReadyWorkers:
    """The pids gunicorn's workers announce once they have loaded the app
    (``benchmarks.gunicorn_ready``), read from a pipe: starting the server,
    or a worker replacing one that died, is waited for as an event."""

    def __init__(self, fd: int):
        self.fd, self.buffer = fd, b""
        self.poll = select.poll()  # not select(): a test process may hold descriptors past 1024
        self.poll.register(fd, select.POLLIN)

    def next(self, timeout: float) -> int:
        """The pid of the next worker ready; RuntimeError if none comes within
        ``timeout`` seconds (a bound for a broken server only)."""
        while b"\n" not in self.buffer:
            if not self.poll.poll(timeout * 1000):
                raise RuntimeError(f"no gunicorn worker became ready within {timeout:.0f} s")
            chunk = os.read(self.fd, 4096)
            if not chunk:
                raise RuntimeError("gunicorn stopped before its workers were ready")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return int(line)

    def close(self) -> None:
        os.close(self.fd)


@contextlib.contextmanager
def gunicorn(
    database: str,
    workers: int = 4,
    threads: int = 4,
    config: dict | None = None,
    port: int | None = None,
    factory: str = "webapp:create_app",
    graceful: float = 2,
):
    """A real gunicorn (in a process group of its own) on a loopback port,
    free unless given; yields (port, process). ``database`` is an SQLite
    path or a PostgreSQL URL; ``config`` may add ``REDIS_URL``; ``factory``
    builds the app from it; ``graceful`` is gunicorn's graceful timeout."""
    port = port or free_port()
    settings = {
        **database_settings(database),
        "REDIS_URL": None,
        "CREATE_RATE_LIMIT": "100000 per minute",
        # An idle job thread asks Redis again this often, so a worker told to
        # stop (SIGTERM) lets its job threads go at once.
        "JOBS_REDIS_WAIT": 0.1,
        **(config or {}),
    }
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "-c",
        "python:benchmarks.gunicorn_ready",
        "--workers",
        str(workers),
        "--worker-class",
        "gthread",
        "--threads",
        str(threads),
        "--bind",
        f"127.0.0.1:{port}",
        "--graceful-timeout",
        str(graceful),
        f"{factory}({settings!r})",
    ]
    reader, writer = os.pipe()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        pass_fds=(writer,),
        env={**os.environ, "MASTERMIND_READY_FD": str(writer)},
    )
    os.close(writer)  # the server's processes hold the only write ends
    process.ready = ReadyWorkers(reader)
    try:
        for _ in range(workers):  # every worker has loaded the app (and its kernels)
            process.ready.next(60)
        yield port, process
    finally:
        process.ready.close()
        stop_group(process)


class Milestones:
    """Events on the number of guesses acknowledged so far, by every player
    together: a test waits for "40 guesses stored" as an event the load sets,
    never by polling the database or sleeping."""

    def __init__(self):
        self._lock = threading.Lock()
        self.count = 0
        self._waiting: list[tuple[int, threading.Event]] = []

    def reached(self, count: int) -> threading.Event:
        """An event set once ``count`` guesses are acknowledged."""
        event = threading.Event()
        with self._lock:
            if self.count >= count:
                event.set()
            else:
                self._waiting.append((count, event))
        return event

    def ack(self) -> None:
        with self._lock:
            self.count += 1
            for count, event in self._waiting:
                if self.count >= count:
                    event.set()


class Player:
    """One player: whole games, through the API or the htmx routes. Given
    several servers' ports, the player's requests go to each in turn (one
    connection to each), so one game is played across all of them."""

    def __init__(self, port: int | list[int], htmx: bool, seed: int, milestones: Milestones | None = None):
        self.ports = [port] if isinstance(port, int) else list(port)
        self.milestones = milestones
        self.htmx, self.rng = htmx, random.Random(seed)
        self.conns = [http.client.HTTPConnection("127.0.0.1", p, timeout=30) for p in self.ports]
        self.turn = seed % len(self.ports)
        self.acks: list[tuple[str, int, str, int, int]] = []  # game, move, guess, black, white
        self.times: list[float] = []
        self.errors = 0

    def request(self, method, path, body=None, headers=None):
        self.turn = (self.turn + 1) % len(self.ports)
        conn = self.conns[self.turn]
        started = time.perf_counter()
        try:
            conn.request(method, path, body, headers or {})
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            self.errors += 1
            conn.close()
            self.conns[self.turn] = http.client.HTTPConnection("127.0.0.1", self.ports[self.turn], timeout=30)
            return None, b""
        self.times.append(time.perf_counter() - started)
        if resp.status >= 500:  # the server failed (a 409 or 429 is an answer, not a failure)
            self.errors += 1
        return resp.status, data

    def play_game(self, stop: float, until: threading.Event | None = None) -> None:
        status, data = self.request("POST", "/api/games", json.dumps({}), {"Content-Type": "application/json"})
        if status != 201:
            return
        game = json.loads(data)["id"]
        for move in range(1, 11):
            if time.time() > stop or (until is not None and until.is_set()):
                return
            guess = "".join(str(self.rng.randint(1, 6)) for _ in range(4))
            if self.htmx:
                status, data = self.request(
                    "POST",
                    f"/games/{game}/guesses",
                    urlencode({"guess": guess, "move": move}),
                    {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"},
                )
                if status != 200:
                    return
                row = [r for r in data.decode().split('<li class="row"')[1:]][-1]
                black = int(row.split('data-black="')[1][0])
                white = int(row.split('data-white="')[1][0])
            else:
                status, data = self.request(
                    "POST",
                    f"/api/games/{game}/guesses",
                    json.dumps({"guess": guess, "move": move}),
                    {"Content-Type": "application/json"},
                )
                if status != 200:
                    return
                last = json.loads(data)["guesses"][-1]
                black, white = last["black"], last["white"]
            self.acks.append((game, move, guess, black, white))
            if self.milestones is not None:
                self.milestones.ack()
            if black == 4:
                return

    def run(self, stop: float, until: threading.Event | None = None) -> None:
        while time.time() < stop and not (until is not None and until.is_set()):
            self.play_game(stop, until)


def load(
    port: int | list[int],
    players: int,
    seconds: float,
    htmx_share: float = 0.5,
    until: threading.Event | None = None,
    milestones: Milestones | None = None,
) -> dict:
    """``players`` threads play until ``seconds`` have passed (on each of the
    servers in turn when ``port`` is a list), or until ``until`` is set: a
    test stops the load at a state it waits for (``milestones`` counts the
    acknowledged guesses as they come), and ``seconds`` only bounds a test
    gone wrong."""
    crowd = [Player(port, htmx=i < players * htmx_share, seed=i, milestones=milestones) for i in range(players)]
    stop = time.time() + seconds
    threads = [threading.Thread(target=p.run, args=(stop, until)) for p in crowd]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    times = sorted(t for p in crowd for t in p.times)
    acks = [a for p in crowd for a in p.acks]

    def pct(q):
        return times[min(len(times) - 1, int(len(times) * q))] * 1000 if times else float("nan")

    return {
        "acks": acks,
        "guesses_per_s": len(acks) / wall,
        "requests": len(times),
        "p50_ms": pct(0.5),
        "p90_ms": pct(0.9),
        "p99_ms": pct(0.99),
        "errors": sum(p.errors for p in crowd),
        "seconds": wall,
        "slowest": sorted(((t, p.ports) for p in crowd for t in p.times), reverse=True)[:5],
    }


def feedback(guess: str, secret: str) -> tuple[int, int]:
    black = sum(g == s for g, s in zip(guess, secret))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black, common - black


def verify(database: str, acks) -> dict:
    """Every acknowledged guess is stored exactly once, with the right feedback."""
    if database.startswith("postgresql://"):
        import psycopg

        db = psycopg.connect(database)
    else:
        db = sqlite3.connect(database)
    secrets = dict(db.execute("SELECT id, secret FROM games").fetchall())
    stored = {}
    for game, move, guess, black, white in db.execute(
        "SELECT game_id, move, guess, black, white FROM guesses"
    ).fetchall():
        stored.setdefault((game, move), []).append((guess, black, white))
    db.close()
    missing = duplicated = wrong = 0
    for game, move, guess, black, white in acks:
        rows = stored.get((game, move), [])
        if not rows:
            missing += 1
        elif len(rows) > 1:
            duplicated += 1
        elif rows[0] != (guess, black, white) or feedback(guess, secrets[game]) != (black, white):
            wrong += 1
    return {"acknowledged": len(acks), "missing": missing, "duplicated": duplicated, "wrong": wrong}


def worker_peaks(master: int) -> list[float]:
    """Each gunicorn worker's peak resident memory (VmHWM), in MiB."""
    peaks = []
    with open(f"/proc/{master}/task/{master}/children") as fh:
        for pid in fh.read().split():
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peaks.append(int(line.split()[1]) / 1024)
    return peaks


def main(players: int = 32, seconds: float = 15, workers: int = 4) -> None:

    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "load.sqlite3")
        with gunicorn(database, workers) as (port, master):
            result = load(port, players, seconds)
            peaks = worker_peaks(master.pid)
        check = verify(database, result["acks"])
    print(f"load: {players} players, gunicorn {workers} gthread workers, {result['seconds']:.1f} s")
    print(f"{'guesses/s':>10} {'requests':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'errors':>7}")
    print(
        f"{result['guesses_per_s']:10.1f} {result['requests']:9d} {result['p50_ms']:8.1f} "
        f"{result['p90_ms']:8.1f} {result['p99_ms']:8.1f} {result['errors']:7d}"
    )
    print("peak RSS per worker: " + ", ".join(f"{p:.0f} MiB" for p in peaks))
    print(
        f"checked: {check['acknowledged']} acknowledged guesses; missing {check['missing']}, "
        f"duplicated {check['duplicated']}, wrong feedback {check['wrong']}"
    )
