"""Faults against a real gunicorn: a worker killed in the middle of a load,
and a flood of expensive hints while others play. No acknowledged guess may
be lost, doubled or wrong, and normal requests keep answering."""

import http.client
import json
import os
import signal
import socket
import threading
import time
from urllib.parse import urlencode

from benchmarks.load import Milestones, gunicorn, load, verify


def children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as fh:
        return [int(p) for p in fh.read().split()]


def test_worker_killed_mid_load(tmp_path):
    """The load plays until the test stops it, at states it waits for: guesses
    stored before the kill, the worker replaced, more guesses stored after.
    "Mid load" holds on any machine, however many guesses a second it plays."""
    database = str(tmp_path / "games.sqlite3")
    with gunicorn(database, workers=2) as (port, master):
        result, enough, acknowledged = {}, threading.Event(), Milestones()
        runner = threading.Thread(  # seconds: a bound for a broken test
            target=lambda: result.update(load(port, players=8, seconds=600, until=enough, milestones=acknowledged))
        )
        runner.start()
        try:
            stored = 40
            assert acknowledged.reached(stored).wait(60)  # the load is under way: a state, not a moment
            victim = children(master.pid)[0]
            os.kill(victim, signal.SIGKILL)
            assert master.ready.next(60) != victim  # a new worker has loaded the app in its place
            assert acknowledged.reached(acknowledged.count + 40).wait(60)  # and the load goes on after the kill
        finally:
            enough.set()
            runner.join()
    check = verify(database, result["acks"])
    assert check["acknowledged"] >= stored
    assert (check["missing"], check["duplicated"], check["wrong"]) == (0, 0, 0)


def post(port, path, body, headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", path, body, headers)
    resp = conn.getresponse()
    return resp.status, resp.read().decode()


def hint_jobs(database: str) -> list[tuple]:
    """The stored hint jobs: (status, started_at, result) each."""
    import sqlite3

    with sqlite3.connect(database, timeout=5) as db:
        return db.execute("SELECT status, started_at, result FROM jobs WHERE kind = 'hint'").fetchall()


def test_expensive_hints_do_not_hold_the_site(tmp_path):
    """Optimal hints off the shipped tree run in the background: the requests
    asking for them answer without the search (each with its job still
    queued, never started), a few at a time beyond which the answer is 503,
    and other players keep being served while those jobs wait. No consumer
    takes the jobs, so they are all still waiting when the later requests
    come, however fast the machine (with one, a fast machine finished them
    first and no 503 came); no assertion is about how long anything took."""
    database = str(tmp_path / "games.sqlite3")
    with gunicorn(database, workers=2, config={"JOBS_MAX": 3, "JOBS_CONSUMER": "none"}) as (port, _):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        games = []
        for first in ("1111", "2222", "3333", "4444", "5555") * 2:
            conn.request("POST", "/api/games", json.dumps({}), {"Content-Type": "application/json"})
            game = json.loads(conn.getresponse().read())["id"]
            conn.request(
                "POST", f"/api/games/{game}/guesses", json.dumps({"guess": first}), {"Content-Type": "application/json"}
            )
            if json.loads(conn.getresponse().read())["status"] == "playing":  # a random secret can be 1111
                games.append(game)
            if len(games) == 5:
                break
        form = {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"}
        hints = [post(port, f"/games/{g}/suggestion", urlencode({"strategy": "optimal"}), form) for g in games]
        statuses = [status for status, _ in hints]
        assert statuses.count(200) >= 1 and statuses.count(503) >= 1 and set(statuses) <= {200, 503}
        # The answers came while the search had not run: each 200 shows its
        # job waiting, and no process started one (a hint worked out in the
        # request would be stored done, with its result).
        assert all('data-job-status="queued"' in body for status, body in hints if status == 200), statuses
        waiting = [("queued", None, None)] * statuses.count(200)
        assert hint_jobs(database) == waiting
        # Meanwhile, other players are served as usual, the jobs still waiting.
        for _ in range(10):
            status, _ = post(port, "/api/games", json.dumps({}), {"Content-Type": "application/json"})
            assert status == 201
        assert hint_jobs(database) == waiting


def answers(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/solver/optimal-game")
        return conn.getresponse().status == 200
    except OSError:
        return False


def test_restart_after_the_master_is_killed(tmp_path):
    """What the systemd unit's KillMode=control-group does: when the master
    dies, its whole process group is stopped (orphaned workers included),
    the port is free again, and the restart on it answers."""
    database = str(tmp_path / "games.sqlite3")
    with gunicorn(database, workers=2) as (port, master):
        assert children(master.pid)
        os.kill(master.pid, signal.SIGKILL)
        master.wait()
        os.killpg(master.pid, signal.SIGKILL)  # the group, orphaned workers too, as systemd stops it
        deadline = time.time() + 15
        while port_open(port) and time.time() < deadline:  # the last orphans let go of the port
            time.sleep(0.1)
        assert not port_open(port)
        with gunicorn(database, workers=2, port=port) as (same_port, _):
            deadline = time.time() + 15
            while not answers(port) and time.time() < deadline:
                time.sleep(0.2)
            assert same_port == port and answers(port)


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False
