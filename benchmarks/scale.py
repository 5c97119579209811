"""The same load on three set-ups: SQLite with one app server, PostgreSQL
with one, and PostgreSQL with two (sharing one Redis), each server a real
gunicorn; and what one guess costs in database round trips.

    python -m benchmarks --scale                 # 32 players, 12 s per set-up
    python -m benchmarks --scale --players 64

A warm-up of 4 s (not timed, but checked) lets every worker finish booting
first. Every acknowledged guess is checked in the database afterwards (stored once,
with the right feedback). PostgreSQL and Redis are throwaway servers from
Debian's packages (see servers.py), with fsync on, as in production. On this
2-core machine the two servers share the same two cores: the two-server row
shows that the set-up works and what it costs, not extra capacity, which
comes from a second machine.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import sqlalchemy

from .load import gunicorn, load, verify
from .servers import postgresql, redis


def round_trips(database_url: str | None, folder: str) -> dict[str, int]:
    """Statements sent to the database by each kind of request in a game
    (on PostgreSQL each is one network round trip)."""
    from webapp import create_app

    config = {
        "DATABASE_URL": database_url,
        "DATABASE": str(Path(folder) / "trips.sqlite3"),
        "REDIS_URL": None,
        "JOBS_CONSUMER": "none",
        "CREATE_RATE_LIMIT": "1000 per minute",
    }
    app = create_app(config)
    database = app.extensions["store"]
    counted = {"n": 0}

    def statement(*_args):
        counted["n"] += 1

    sqlalchemy.event.listen(database.engine, "before_cursor_execute", statement)
    client = app.test_client()
    trips = {}

    def count(name, *args, **kwargs):
        counted["n"] = 0
        resp = kwargs.pop("method")(*args, **kwargs)
        assert resp.status_code < 400, resp.status_code
        trips[name] = counted["n"]
        return resp

    client.post("/api/games", json={})  # the first request also sweeps abandoned games: not typical
    game = count("new game (API)", "/api/games", json={}, method=client.post).get_json()
    count("guess (API)", f"/api/games/{game['id']}/guesses", json={"guess": "1122", "move": 1}, method=client.post)
    count(
        "guess (htmx board)",
        f"/games/{game['id']}/guesses",
        data={"guess": "3344", "move": 2},
        headers={"HX-Request": "true"},
        method=client.post,
    )
    count("board page", f"/games/{game['id']}", method=client.get)
    database.close()
    return trips


def run(players: int = 32, seconds: float = 12, workers: int = 4, warm_up: float = 4) -> list[dict]:
    """Each set-up loaded by ``players`` for ``seconds`` after ``warm_up``
    seconds of the same load (checked, not timed); the statements per request."""
    rows = []
    with tempfile.TemporaryDirectory() as folder, postgresql(durable=True) as pg, redis() as redis_url:
        setups = [
            ("SQLite, 1 server", str(Path(folder) / "load.sqlite3"), 1, None),
            ("PostgreSQL, 1 server", pg, 1, None),
            ("PostgreSQL + Redis, 2 servers", pg, 2, redis_url),
        ]
        for name, database, servers, shared in setups:
            config = {"REDIS_URL": shared} if shared else {}
            with contextlib.ExitStack() as stack:
                ports = [stack.enter_context(gunicorn(database, workers, config=config))[0] for _ in range(servers)]
                warmed = load(ports, players, warm_up)  # every worker booted and its kernels loaded
                result = load(ports, players, seconds)
                result["acks"] += warmed["acks"]  # checked too
            check = verify(database, result["acks"])
            rows.append({"setup": name, "servers": servers, **result, **check})
        trips = {"SQLite": round_trips(None, folder), "PostgreSQL": round_trips(pg, folder)}
    return rows, trips


def main(players: int = 32, seconds: float = 12, workers: int = 4, warm_up: float = 4) -> None:
    rows, trips = run(players, seconds, workers, warm_up)
    print(
        f"scale: {players} players for {seconds:.0f} s per set-up; each server gunicorn with {workers} "
        "gthread workers × 4 threads; half the players use the htmx board, half the API"
    )
    print(
        f"{'set-up':32} {'guesses/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} "
        f"{'acked':>7} {'missing':>8} {'doubled':>8} {'wrong':>6}"
    )
    for r in rows:
        print(
            f"{r['setup']:32} {r['guesses_per_s']:10.1f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} "
            f"{r['errors']:7d} {r['acknowledged']:7d} {r['missing']:8d} {r['duplicated']:8d} {r['wrong']:6d}"
        )
    print()
    print("database statements per request (on PostgreSQL each is one round trip):")
    names = list(next(iter(trips.values())))
    print(f"{'request':22}" + "".join(f"{k:>12}" for k in trips))
    for name in names:
        print(f"{name:22}" + "".join(f"{t[name]:12d}" for t in trips.values()))
