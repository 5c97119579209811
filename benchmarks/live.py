"""A live classroom under load: many students follow one session's events
on one gunicorn worker process while the teacher steps.

    python -m benchmarks --live                   # 200 students: in-process signals, Redis, nginx, a school
    python -m benchmarks --live --students 400

Each student is a real HTTP connection to ``/live/<code>/events`` with
that student's token, as a phone follows (all read
by one thread here, through ``selectors``, so the benchmark's own threads do
not compete with the server's). The teacher steps through the API; for every
step the clock runs from just before the step's POST to each student's
``event: step`` with the step's version. Printed per set-up: the delay to
each student (median and p99) and to the last student of each step (median
and worst), the worker's resident memory per listener (RSS with every
stream open less RSS before the first, divided by the students), and the
time another request takes while every stream is open (a GET of the state,
median of 20), which shows whether the streams starve the other requests.
The last set-up puts deploy/nginx.conf in front (Debian's nginx), as a site
runs: its events must pass at once, not wait in a buffer.

The server is ``deploy/gunicorn.conf.py``'s worker class (gthread), with as
many threads as students plus the threads it keeps free for other requests.

The last run is a school as ``make serve`` and deploy/nginx.conf serve it,
with the app's default limits: every request from one address (a school's),
25 join codes that find nothing first, then the class joins through nginx
(timed), follows, votes (timed, and the teacher's stream counts its "votes"
events), the teacher steps (step to last phone), every phone then fetches
its own result as the page does (``/live/<code>/you``, 50 at a time: step
to the last phone's own result), and a 6 × 8 session is asked for (refused
up front, never a 5xx).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import selectors
import socket
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from .load import gunicorn
from .servers import redis

EVENT = re.compile(rb"event: step\nid: (\d+)\n")
VOTES = re.compile(rb"event: votes\nid: (\d+)\n")
# The threads a worker keeps for requests other than streams (webapp.events.LIVE_FREE_THREADS).
FREE_THREADS = 8
PATIENCE = 60  # seconds a step may take to reach everyone before the run is called broken


def call(port: int, method: str, path: str, body=None, token: str | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def own_result(port: int, code: str, token: str) -> float:
    """A phone's request for its own result after a step, as its page makes it; when it ended."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
    try:
        conn.request("GET", f"/live/{code}/you", headers={"Cookie": f"live_student_{code}={token}"})
        response = conn.getresponse()
        body = response.read()
        if response.status != 200 or b"my-result" not in body:
            raise RuntimeError(f"own result: {response.status} {body[:200]!r}")
        return time.perf_counter()
    finally:
        conn.close()


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def worker_pid(master: int) -> int:
    with open(f"/proc/{master}/task/{master}/children") as fh:
        (pid,) = fh.read().split()
    return int(pid)


class Listeners:
    """Many event streams read by one selector: when each saw which version."""

    def __init__(self, port: int, path: str, count: int, token: str | list[str] | None = None):
        """``token``: the one every stream sends, or each stream's own (a
        class's phones each follow with their student's token)."""
        self.selector = selectors.DefaultSelector()
        self.seen: list[dict[int, float]] = [{} for _ in range(count)]
        self.buffers = [b""] * count
        self.votes = [0] * count  # "votes" events heard (the teacher's stream), and the last one's id
        self.last_votes = [-1] * count
        tokens = token if isinstance(token, list) else [token] * count
        self.sockets = []
        for index in range(count):
            bearer = f"Authorization: Bearer {tokens[index]}\r\n" if tokens[index] else ""
            request = (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n{bearer}\r\n"
            ).encode()
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(request)
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ, index)
            self.sockets.append(sock)
        self.opened = [False] * count
        self.statuses = [b""] * count

    def pump(self, until, patience: float = PATIENCE) -> None:
        """Read whatever arrives until ``until()`` holds."""
        deadline = time.monotonic() + patience
        while not until():
            if time.monotonic() > deadline:
                raise RuntimeError("the students did not all hear the step in time")
            for key, _ in self.selector.select(timeout=1.0):
                index = key.data
                chunk = key.fileobj.recv(65536)
                now = time.perf_counter()
                if not chunk:
                    raise RuntimeError(f"stream {index} closed")
                if not self.statuses[index]:
                    self.statuses[index] = chunk[:12]
                    if not chunk.startswith(b"HTTP/1.1 200"):
                        raise RuntimeError(chunk[:300].decode(errors="replace"))
                buffer = self.buffers[index] + chunk
                for match in VOTES.finditer(chunk):
                    self.votes[index] += 1
                    self.last_votes[index] = max(self.last_votes[index], int(match.group(1)))
                if b"retry:" in buffer:
                    self.opened[index] = True
                for match in EVENT.finditer(buffer):
                    self.seen[index].setdefault(int(match.group(1)), now)
                self.buffers[index] = buffer[-64:]  # a marker split across two reads is found next time

    def everyone_has(self, version: int):
        return lambda: all(version in seen for seen in self.seen)

    def close(self) -> None:
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()
        self.selector.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(
    students: int, steps: int, redis_url: str | None, via_nginx: bool = False, settings: dict | None = None
) -> dict:
    """``students`` following ``steps`` steps; ``settings`` adds to the app's configuration."""
    with tempfile.TemporaryDirectory(prefix="mastermind-live-") as folder:
        config = {
            "REDIS_URL": redis_url,
            "LIVE_LOOKUP_RATE_LIMIT": "100000 per minute",
            "LIVE_JOIN_RATE_LIMIT": "100000 per minute",
            "JOBS_CONSUMER": "none",
            **(settings or {}),
        }
        database = os.path.join(folder, "live.sqlite3")
        with contextlib.ExitStack() as stack:
            port, master = stack.enter_context(
                gunicorn(database, workers=1, threads=students + FREE_THREADS, config=config)
            )
            worker = worker_pid(master.pid)
            if via_nginx:  # deploy/nginx.conf in front: its events must not be held back
                from .slow_clients import nginx

                port, _ = stack.enter_context(nginx(port))
            status, session = call(port, "POST", "/api/live", {"source": "random"})
            assert status == 201, session
            code, token = session["code"], session["teacher_token"]
            tokens = []
            for _ in range(students):
                status, joined = call(port, "POST", f"/api/live/{code}/students", {})
                assert status == 201
                tokens.append(joined["student_token"])
            _, state = call(port, "GET", f"/api/live/{code}")
            before = rss_mib(worker)
            listeners = Listeners(port, f"/live/{code}/events?after={state['version']}", students, tokens)
            try:
                listeners.pump(lambda: all(listeners.opened))
                opened = rss_mib(worker)
                started: dict[int, float] = {}
                for number in range(steps):
                    t0 = time.perf_counter()
                    status, moved = call(port, "POST", f"/api/live/{code}/step", {"to": 1 - number % 2}, token)
                    assert status == 200, moved
                    started[moved["version"]] = t0
                    listeners.pump(listeners.everyone_has(moved["version"]))
                others = []
                for _ in range(20):
                    t0 = time.perf_counter()
                    status, _ = call(port, "GET", f"/api/live/{code}")
                    others.append(time.perf_counter() - t0)
                    assert status == 200
                after = rss_mib(worker)
            finally:
                listeners.close()
    delays, lasts = [], []
    for version, t0 in started.items():
        heard = [seen[version] - t0 for seen in listeners.seen]
        delays += heard
        lasts.append(max(heard))
    return {
        "signal": ("Redis pub/sub" if redis_url else "in-process") + (", nginx" if via_nginx else ""),
        "students": students,
        "steps": steps,
        "median_ms": statistics.median(delays) * 1000,
        "p99_ms": pct(delays, 0.99) * 1000,
        "last_median_ms": statistics.median(lasts) * 1000,
        "last_worst_ms": max(lasts) * 1000,
        "rss_before_mib": before,
        "rss_streams_mib": opened,
        "rss_after_mib": after,
        "kib_per_listener": (max(opened, after) - before) * 1024 / students,
        "other_request_ms": statistics.median(others) * 1000,
    }


def workers_rss_mib(master: int) -> float:
    with open(f"/proc/{master}/task/{master}/children") as fh:
        return sum(rss_mib(int(pid)) for pid in fh.read().split())


def school(
    students: int,
    steps: int = 10,
    workers: int = 4,
    threads: int = 128,
    redis_url: str | None = None,
    settings: dict | None = None,
) -> dict:
    """A class behind one address through deploy/nginx.conf and gunicorn as
    ``make serve`` runs it, with the app's default live limits."""
    from .slow_clients import nginx

    with tempfile.TemporaryDirectory(prefix="mastermind-school-") as folder, contextlib.ExitStack() as stack:
        database = os.path.join(folder, "live.sqlite3")
        port, master = stack.enter_context(
            gunicorn(
                database,
                workers=workers,
                threads=threads,
                config={"JOBS_CONSUMER": "none", "REDIS_URL": redis_url, **(settings or {})},
            )
        )
        port, _ = stack.enter_context(nginx(port))
        typos = [call(port, "GET", f"/api/live/{'AAAAA' + c}")[0] for c in "ACDEFGHJKMNPQRTUVWXY34679"]
        status, session = call(port, "POST", "/api/live", {"source": "random"})
        assert status == 201, session
        code, token = session["code"], session["teacher_token"]
        t0 = time.perf_counter()
        tokens = []
        for _ in range(students):
            status, joined = call(port, "POST", f"/api/live/{code}/students", {})
            assert status == 201, joined
            tokens.append(joined["student_token"])
        joining = time.perf_counter() - t0
        _, state = call(port, "GET", f"/api/live/{code}")
        before = workers_rss_mib(master.pid)
        teacher = Listeners(port, f"/live/{code}/events?after={state['version']}", 1, token)
        listeners = Listeners(port, f"/live/{code}/events?after={state['version']}", students, tokens)
        try:
            listeners.pump(lambda: all(listeners.opened))
            teacher.pump(lambda: all(teacher.opened))
            opened = workers_rss_mib(master.pid)
            t0 = time.perf_counter()
            for student in tokens:
                status, _ = call(port, "POST", f"/api/live/{code}/votes", {"guess": "1123"}, student)
                assert status == 201
            voting = time.perf_counter() - t0
            _, voted = call(port, "GET", f"/api/live/{code}")
            teacher.pump(lambda: teacher.last_votes[0] >= voted["version"])  # the teacher has heard every vote
            started: dict[int, float] = {}
            own: list[float] = []
            with ThreadPoolExecutor(50) as phones:
                for number in range(steps):
                    t0 = time.perf_counter()
                    status, moved = call(port, "POST", f"/api/live/{code}/step", {"to": 1 - number % 2}, token)
                    assert status == 200, moved
                    started[moved["version"]] = t0
                    listeners.pump(listeners.everyone_has(moved["version"]))
                    if number % 2 == 0:  # at step 1 each phone's proposal has its worth: every phone asks for it
                        ends = list(phones.map(lambda student: own_result(port, code, student), tokens))
                        own.append(max(ends) - t0)
            page, _ = call(port, "GET", f"/api/live/{code}")
            large, refusal = call(port, "POST", "/api/live", {"pegs": 6, "colors": 8})
        finally:
            listeners.close()
            teacher.close()
    lasts = [max(seen[version] - t0 for seen in listeners.seen) for version, t0 in started.items()]
    return {
        "students": students,
        "workers": workers,
        "signal": "Redis pub/sub" if redis_url else "the database, polled",
        "typos": typos,
        "join_s": joining,
        "vote_s": voting,
        "votes_events": teacher.votes[0],
        "last_median_ms": statistics.median(lasts) * 1000,
        "last_worst_ms": max(lasts) * 1000,
        "own_median_ms": statistics.median(own) * 1000,
        "own_worst_ms": max(own) * 1000,
        "kib_per_listener": (opened - before) * 1024 / students,
        "session_after_typos": page,
        "six_by_eight": (large, (refusal or {}).get("error", "")),
    }


def print_school(r: dict) -> None:
    print(
        f"school: {r['students']} students behind one address, nginx and {r['workers']} gunicorn workers, "
        f"default limits; signals through {r['signal']}"
    )
    print(
        f"  25 unknown codes first: {r['typos'].count(404)} x 404, {r['typos'].count(429)} x 429; "
        f"the session's state afterwards: {r['session_after_typos']}"
    )
    print(
        f"  {r['students']} joins in {r['join_s']:.2f} s; {r['students']} votes in {r['vote_s']:.2f} s, "
        f"the teacher's stream got {r['votes_events']} 'votes' events"
    )
    print(
        f"  step to the last phone: median {r['last_median_ms']:.0f} ms, worst {r['last_worst_ms']:.0f} ms; "
        f"{r['kib_per_listener']:.0f} KiB per listener (all workers)"
    )
    print(
        f"  step to the last phone's own result (every phone asks, 50 at a time): median {r['own_median_ms']:.0f} ms, "
        f"worst {r['own_worst_ms']:.0f} ms"
    )
    print(f"  a 6x8 session: {r['six_by_eight'][0]} ({r['six_by_eight'][1][:80]})")


def main(
    students: int = 200,
    steps: int = 20,
    school_students: int | None = None,
    school_steps: int = 10,
    school_workers: int = 4,
    school_threads: int = 128,
    settings: dict | None = None,
) -> None:
    """The three set-ups with ``students`` for ``steps`` steps, then the school
    (``school_students``, as many as ``students`` unless given) on
    ``school_workers`` workers of ``school_threads`` threads, without Redis
    and with it. ``settings`` adds to every server's configuration."""
    school_students = students if school_students is None else school_students
    at_school = {"steps": school_steps, "workers": school_workers, "threads": school_threads, "settings": settings}
    print(
        f"live: {students} students on one gunicorn gthread worker ({students + FREE_THREADS} threads), {steps} steps"
    )
    print(
        f"{'signal':21} {'median':>8} {'p99':>8} {'last, median':>13} {'last, worst':>12} "
        f"{'RSS before':>11} {'with streams':>13} {'per listener':>13} {'other request':>14}"
    )
    rows = [run(students, steps, None, settings=settings)]
    with redis() as redis_url:
        rows.append(run(students, steps, redis_url, settings=settings))
    rows.append(run(students, steps, None, via_nginx=True, settings=settings))
    for r in rows:
        print(
            f"{r['signal']:21} {r['median_ms']:6.0f}ms {r['p99_ms']:6.0f}ms {r['last_median_ms']:11.0f}ms "
            f"{r['last_worst_ms']:10.0f}ms {r['rss_before_mib']:7.0f} MiB {r['rss_streams_mib']:9.0f} MiB "
            f"{r['kib_per_listener']:9.0f} KiB {r['other_request_ms']:12.1f}ms"
        )
    print_school(school(school_students, **at_school))
    with redis() as redis_url:
        print_school(school(school_students, redis_url=redis_url, **at_school))
