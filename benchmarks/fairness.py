"""Fair shares of the background slots, on real gunicorn (4 workers, as
``make serve``): one client floods the server with review links of random
Super Mastermind games (each would start a job), from four connections at
once; meanwhile a second client asks for 5×6 and 5×7 optimal-game lines,
one request a second and a half. Printed: how often the second client was
served (not 503) and what the flood got back.

The two clients are told apart as they would be behind nginx: the app trusts
one proxy (``PROXIES=1``) and each client sends its own ``X-Forwarded-For``.

    python -m benchmarks --fairness          # 30 s
"""

from __future__ import annotations

import http.client
import random
import tempfile
import threading
import time
from collections import Counter

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


def main(seconds: float = SECONDS) -> dict:
    database = tempfile.mktemp(suffix=".sqlite3", prefix="fairness-")
    config = {"PROXIES": 1, "JOBS_CONSUMER": "embedded"}
    flood: Counter = Counter()
    served: Counter = Counter()
    stop = threading.Event()
    with gunicorn(database, config=config) as (port, _):

        def flooding(seed: int) -> None:
            rng = random.Random(seed)
            while not stop.is_set():
                flood[ask(port, review_link(rng), "198.51.100.7")] += 1

        threads = [threading.Thread(target=flooding, args=(i,), daemon=True) for i in range(FLOOD_CONNECTIONS)]
        for thread in threads:
            thread.start()
        time.sleep(2.0)  # the flood has taken what it can
        pause = (seconds - 2.0) / SECOND_CLIENT_TRIES
        for i in range(SECOND_CLIENT_TRIES):
            colors = 6 if i % 2 == 0 else 7
            served[ask(port, f"/api/solver/optimal-game?pegs=5&colors={colors}", "203.0.113.9")] += 1
            time.sleep(pause)
        stop.set()
        for thread in threads:
            thread.join(35)
    ok = sum(n for status, n in served.items() if status not in (0, 503))
    print(f"second client: {ok} of {SECOND_CLIENT_TRIES} served ({dict(sorted(served.items()))})")
    print(f"flood: {sum(flood.values())} requests, by status {dict(sorted(flood.items()))}")
    return {"served": ok, "tries": SECOND_CLIENT_TRIES, "second": dict(served), "flood": dict(flood)}


if __name__ == "__main__":
    main()
