"""Fair shares of the background slots, on real gunicorn (4 workers, as
``make serve``): one client floods the server from four connections at once
with links that each start a long job (review links of random Super
Mastermind games, comparisons of every strategy on large sizes); meanwhile
a second client asks for 5×6 and 5×7 optimal-game lines against the deepest
adversary, each a background job of its own, one request a second and a
half. Printed, with the shares on and off: how often the second client was
admitted (answered, or its job queued: not 503), and what the flood got.

The two clients are told apart as they would be behind nginx: the app trusts
one proxy (``PROXIES=1``) and each client sends its own ``X-Forwarded-For``.

    python -m benchmarks --fairness          # 30 s
"""

from __future__ import annotations

import http.client
import random
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from .load import gunicorn

FLOOD_CONNECTIONS = 4
SECOND_CLIENT_TRIES = 20
SECONDS = 30.0


def review_link(rng: random.Random) -> str:
    """A replay review of a random 5×8 game: a new job each time."""
    from webapp.engine import Code, GameSize
    from webapp.engine.codes import conceal

    size = GameSize(5, 8)
    secret = Code.from_index(rng.randrange(size.n_codes), size)
    guesses = [str(Code.from_index(rng.randrange(size.n_codes), size)) for _ in range(rng.randint(2, 4))]
    return f"/replay/5x8/{conceal(secret, size)}/review?g={'.'.join(guesses)}"


# Sizes whose comparison takes a while: each link a new, long job.
LONG_SIZES = [(5, 7), (5, 8), (6, 5), (6, 6), (4, 10), (6, 4), (5, 6), (4, 9), (6, 6, 1), (5, 8, 1), (5, 9, 1)]
LINE_STRATEGIES = ("knuth", "entropy", "minimax-lex", "irving", "most-parts", "widedev", "longrect", "simple")


def flood_link(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return review_link(rng)
    pegs, colors, *distinct = rng.choice(LONG_SIZES)
    return f"/solver/compare?pegs={pegs}&colors={colors}" + ("&distinct=1" if distinct else "")


def ask(port: int, path: str, address: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"X-Forwarded-For": address})
        response = conn.getresponse()
        response.read()
        return response.status
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        conn.close()


# The shares as shipped, and none at all (every slot and any number of starts
# for anyone), for the figure beside them.
SCENARIOS = {
    "shares on (the defaults)": {},
    "shares off": {"JOBS_PER_CLIENT": 3, "JOBS_START_RATE_LIMIT": "1000000 per minute"},
}


def jobs_by_client(database: str) -> dict:
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT client, COUNT(*) FROM jobs WHERE client IS NOT NULL GROUP BY client").fetchall()
    return dict(rows)


def run(seconds: float, extra: dict, workers: int = 4, tries: int = SECOND_CLIENT_TRIES, settle: float = 2.0) -> dict:
    """The flood on ``workers`` gunicorn workers; ``settle`` seconds in, the
    second client's ``tries`` lines, spread over the rest of ``seconds``."""
    with tempfile.TemporaryDirectory(prefix="mastermind-fairness-") as folder:
        database = str(Path(folder) / "fairness.sqlite3")
        config = {"PROXIES": 1, "JOBS_CONSUMER": "embedded", **extra}
        flood: Counter = Counter()
        served: Counter = Counter()
        stop = threading.Event()
        with gunicorn(database, workers, config=config) as (port, _):

            def flooding(seed: int) -> None:
                rng = random.Random(seed)
                while not stop.is_set():
                    flood[ask(port, flood_link(rng), "198.51.100.7")] += 1

            threads = [threading.Thread(target=flooding, args=(i,), daemon=True) for i in range(FLOOD_CONNECTIONS)]
            for thread in threads:
                thread.start()
            time.sleep(settle)  # the flood has taken what it can
            pause = (seconds - settle) / tries
            for i in range(tries):
                colors, strategy = 6 + i % 2, LINE_STRATEGIES[i // 2 % len(LINE_STRATEGIES)]
                line = f"/api/solver/optimal-game?pegs=5&colors={colors}&strategy={strategy}&adversary=deepest"
                served[ask(port, line, "203.0.113.9")] += 1
                time.sleep(pause)
            stop.set()
            for thread in threads:
                thread.join(35)
            started = jobs_by_client(database)
    ok = sum(n for status, n in served.items() if status not in (0, 503))
    return {"served": ok, "second": dict(sorted(served.items())), "flood": dict(sorted(flood.items())), "jobs": started}


def main(seconds: float = SECONDS, workers: int = 4, tries: int = SECOND_CLIENT_TRIES, settle: float = 2.0) -> dict:
    results = {}
    for name, extra in SCENARIOS.items():
        r = results[name] = run(seconds, extra, workers, tries, settle)
        print(f"{name}:")
        print(f"  second client: {r['served']} of {tries} served, by status {r['second']}")
        flooded = sum(r["flood"].values())
        print(f"  flood: {flooded} review links, by status {r['flood']}; jobs started, by client: {r['jobs']}")
    return results


if __name__ == "__main__":
    main()
