"""The measured jobs, run one per fresh process by ``python -m benchmarks``."""

from __future__ import annotations

import multiprocessing as mp
import resource
import time
import tracemalloc

import numpy as np


def warm_up():
    """Load the compiled kernels and send all work to them, as the web app
    does at start-up, then touch the main paths once."""
    from webapp.engine import GameSize, analyse, best_guess, warm
    from webapp.engine.tables import FeedbackTable

    warm.warm_up()
    analyse("knuth", GameSize(3, 3))
    analyse("optimal", GameSize(3, 3))
    best_guess("entropy", GameSize(3, 3))
    FeedbackTable(3, 3).class_counts(np.arange(27), np.arange(27))


class NumpyTable:
    """The baseline: class sizes with numpy fancy indexing and bincount."""

    def __init__(self, table):
        self.table = table

    def __getattr__(self, name):
        return getattr(self.table, name)

    def class_counts(self, guesses, codes):
        rows = self.table.matrix[np.ix_(guesses, codes)].astype(np.int64)
        rows += (np.arange(len(guesses)) * self.table.slots)[:, None]
        return np.bincount(rows.ravel(), minlength=len(guesses) * self.table.slots).reshape(
            len(guesses), self.table.slots
        )

    def first_perfect_split(self, guesses, codes):
        if codes.shape[0] > self.table.replies:
            return -1
        hits = np.flatnonzero(self.class_counts(guesses, codes).max(axis=1) <= 1)
        return int(hits[0]) if hits.size else -1


def job(kind, pegs, colors, strategy=None, distinct=False, distinct_guesses=False):
    """One measurement; returns (seconds, detail)."""
    from webapp.engine import Feedback, GameSize, analyse, best_guess
    from webapp.engine.tables import feedback_matrix, feedback_table

    if kind == "web":
        return web_job(strategy)
    if kind == "solver":
        return solver_job(pegs, colors, strategy)
    if kind == "challenge":
        return challenge_job(pegs)
    if kind == "compare-page":
        return compare_page_job(pegs, colors)
    if kind == "compare-job":
        from webapp.computations import compare

        started = time.perf_counter()
        result = compare({"pegs": pegs, "colors": colors, "distinct": distinct}, lambda fraction: None)
        rows = result["rows"]
        return time.perf_counter() - started, ", ".join(f"{r['strategy']} {r['total']:,}" for r in rows[:4]) + ", …"
    size = GameSize(pegs, colors, distinct, distinct_guesses)
    if kind == "review":
        return review_job(size, strategy)
    if kind == "matrix":
        started = time.perf_counter()
        feedback_matrix(pegs, colors)
        return time.perf_counter() - started, f"{size.n_codes**2:,} replies"
    if kind in ("root", "second"):
        feedback_table(size)  # the web app's table: a matrix up to 64 MiB, else rows on demand
        history = []
        if kind == "second":
            first = best_guess(strategy, size).guess
            history = [(first, Feedback(1, 1))]
        started = time.perf_counter()
        s = best_guess(strategy, size, history)
        return time.perf_counter() - started, f"{s.guess} of {s.remaining:,} ({s.score})"
    if kind in ("tree", "baseline"):
        table = feedback_table(size)
        if kind == "baseline":
            table = NumpyTable(table)
        best = float("inf")
        for _ in range(1 if size.n_codes > 5000 else 3):
            result = analyse(strategy, size, table=table)
            best = min(best, result.seconds)
        return best, f"total {result.total}, max {result.max}, first {result.first_guess}"
    if kind == "optimal":
        from webapp.engine.optimal import STATS, OptimalSolver

        solver = OptimalSolver(size, strategy)
        started = time.perf_counter()
        total = solver.total()
        seconds = time.perf_counter() - started
        counts = ", ".join(f"{k} {int(v):,}" for k, v in zip(STATS, solver.stats))
        return seconds, f"total {total}; {counts}"
    raise ValueError(kind)


def review_job(size, strategy: str):
    """A game's review move by move (each move timed, in order, in this fresh
    process: the first pays for the solver's setup); the game is
    ``strategy``'s against the secret 1234… ."""
    from webapp.engine import Code, get_strategy
    from webapp.engine.lines import play_against
    from webapp.engine.review import review_move, shared_values

    secret = Code.parse("123456789"[: size.pegs], size)
    history = play_against(get_strategy(strategy), size, secret)
    values = shared_values(size)
    times = []
    started = time.perf_counter()
    for i, (guess, reply) in enumerate(history):
        t = time.perf_counter()
        move = review_move(size, history[:i], guess, reply, values)
        times.append(
            f"{move.candidates:,} codes {time.perf_counter() - t:.2f} s {'exact' if move.exact else 'estimate'}"
        )
    return time.perf_counter() - started, f"{strategy}'s game: " + "; ".join(times)


def web_job(what: str):
    """Median server time of a request, through Flask's test client on a
    temporary SQLite file: posting a guess, or asking for a suggestion."""
    import tempfile
    from pathlib import Path

    from webapp import create_app, store
    from webapp.engine import Code, GameSize

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE": str(Path(folder) / "bench.sqlite3")})
        client = app.test_client()
        times = []
        for _ in range(100):
            with app.app_context():  # a secret none of the guesses below hits
                game = {"id": store.games.create_game(GameSize(), 30, Code.parse("6666", GameSize())).id}
            for guess in ("1122", "3456", "1234"):
                started = time.perf_counter()
                if what == "guess":
                    resp = client.post(
                        f"/games/{game['id']}/guesses",
                        headers={"HX-Request": "true"},
                        data={"guess": guess, "move": str(len(times) % 3 + 1)},
                    )
                else:
                    resp = client.post(
                        f"/games/{game['id']}/suggestion", headers={"HX-Request": "true"}, data={"strategy": "knuth"}
                    )
                    client.post(f"/api/games/{game['id']}/guesses", json={"guess": guess})
                times.append(time.perf_counter() - started)
                assert resp.status_code == 200, resp.status_code
        times.sort()
        return times[len(times) // 2], (
            f"{len(times)} requests, 90th percentile {times[int(len(times) * 0.9)] * 1000:.1f} ms"
        )


SOLVER_URLS = {
    "classroom": "/solver/classroom?pegs={p}&colors={c}&strategy=knuth&history={h}",
    "line": "/solver/optimal-game?pegs={p}&colors={c}&strategy={s}",
}


def solver_job(pegs: int, colors: int, what: str):
    """Server time of a solver page in a fresh app: the first request (cold:
    lines and trees not yet computed, kernels already loaded at start-up) and
    the median of 20 more (warm). ``what`` is ``classroom`` (Knuth's step
    after one guess), ``line`` (the default optimal-game line), or
    ``line-knuth`` / ``line-deepest`` (Knuth against the greedy or the
    deepest adversary)."""
    import tempfile
    from pathlib import Path

    from webapp import create_app
    from webapp.engine import GameSize, best_guess

    size = GameSize(pegs, colors)
    first = best_guess("knuth", size).guess
    history = f"{first}:1,1"
    kind, _, variant = what.partition("-")
    url = SOLVER_URLS[kind].format(p=pegs, c=colors, h=history, s="best-candidate" if not variant else "knuth")
    if variant == "deepest":
        url += "&adversary=deepest"
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE": str(Path(folder) / "bench.sqlite3")})
        client = app.test_client()
        headers = {}  # the whole page: the line's page also compares every codebreaker
        started = time.perf_counter()
        resp = client.get(url, headers=headers)
        cold = time.perf_counter() - started
        times = []
        for _ in range(20):
            started = time.perf_counter()
            client.get(url, headers=headers)
            times.append(time.perf_counter() - started)
        times.sort()
        return cold, (
            f"HTTP {resp.status_code}; warm median {times[len(times) // 2] * 1000:.1f} ms"
            f" ({url.split('?')[0].rsplit('/', 1)[1]}{', refused' if resp.status_code >= 400 else ''})"
        )


def challenge_job(players: int):
    """A class on one challenge: ``players`` threads, each on its own
    connection to a real threaded server, play Knuth's game to the end at
    once. Returns the median request time; the detail gives the 90th
    percentile and the slowest."""
    import http.client
    import json
    import logging
    import tempfile
    import threading
    from pathlib import Path

    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise

    from webapp import create_app
    from webapp.engine import Code, GameSize, best_guess, feedback

    size = GameSize()
    secret = Code.parse("5241", size)
    plan = []  # Knuth's guesses for the secret, worked out before the clock starts
    while not plan or plan[-1][0] != secret:
        guess = best_guess("knuth", size, plan).guess
        plan.append((guess, feedback(guess, secret)))
    with tempfile.TemporaryDirectory() as folder:
        # Thirty players join from one address here: the limit on new games
        # per address (30 a minute) is not what this measures.
        app = create_app({"DATABASE": str(Path(folder) / "bench.sqlite3"), "CREATE_RATE_LIMIT": "1000 per minute"})
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_port
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request(
            "POST", "/api/challenges", json.dumps({"secret": str(secret)}), {"Content-Type": "application/json"}
        )
        challenge = json.loads(conn.getresponse().read())
        times, lock = [], threading.Lock()

        def player(number):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

            def post(path, body):
                started = time.perf_counter()
                c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
                data = json.loads(c.getresponse().read())
                with lock:
                    times.append(time.perf_counter() - started)
                return data

            game = post(f"/api/challenges/{challenge['id']}/games", {"name": f"p{number}"})
            for guess, _ in plan:
                post(f"/api/games/{game['id']}/guesses", {"guess": str(guess)})

        threads = [threading.Thread(target=player, args=(n,)) for n in range(players)]
        wall = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - wall
        server.shutdown()
        app.extensions["jobs"].stop()
    times.sort()
    return times[len(times) // 2], (
        f"{len(times)} requests in {wall:.2f} s; 90th percentile "
        f"{times[int(len(times) * 0.9)] * 1000:.1f} ms, slowest {times[-1] * 1000:.1f} ms"
    )


def compare_page_job(pegs: int, colors: int):
    """The comparison page in a fresh app: the first request computes and
    stores the table (cold), the next ones read it back (stored)."""
    import tempfile
    from pathlib import Path

    from webapp import create_app

    url = f"/solver/compare?pegs={pegs}&colors={colors}"
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE": str(Path(folder) / "bench.sqlite3"), "JOBS_CONSUMER": "none"})
        client = app.test_client()
        started = time.perf_counter()
        resp = client.get(url)
        cold = time.perf_counter() - started
        times = []
        for _ in range(20):
            started = time.perf_counter()
            client.get(url)
            times.append(time.perf_counter() - started)
        times.sort()
        assert resp.status_code == 200 and b'table class="compare"' in resp.data
        return cold, f"stored: median {times[len(times) // 2] * 1000:.1f} ms"


def run_one(spec, queue):
    warm_up()
    seconds, detail = job(*spec)  # timed without tracemalloc, which slows allocation
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    traced = None
    if spec[0] != "challenge" and spec[2] ** spec[1] <= 5000:
        tracemalloc.start()
        job(*spec)
        traced = tracemalloc.get_traced_memory()[1] / 2**20
    queue.put({"seconds": seconds, "detail": detail, "traced_mib": traced, "rss_mib": rss})


def measure(spec):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=run_one, args=(spec, queue))
    proc.start()
    while True:
        try:
            result = queue.get(timeout=1)
            break
        except Exception:
            if not proc.is_alive():
                raise RuntimeError(f"benchmark {spec} failed (exit code {proc.exitcode})") from None
    proc.join()
    return result
