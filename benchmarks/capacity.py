"""What each kind of work costs on this machine, beside the framework's
floor: the figures a capacity plan is made from (docs/operations.md).

    python -m benchmarks --capacity          # every kind of work, a table
    python -m benchmarks --capacity --json   # the same, as JSON

Each kind is sent by ``clients`` keep-alive connections at once (the
benchmark's threads, on the same cores as the server) through
deploy/nginx.conf to gunicorn as ``make serve`` runs it: 4 gthread workers
of 128 threads (deploy/gunicorn.conf.py), SQLite, the job consumer embedded.
After an untimed warm-up, a fixed number of operations is timed. An
operation's cost is the CPU the server's processes spent meanwhile
(gunicorn's master and workers, nginx's master and workers, and
PostgreSQL's and Redis's where they serve), read from /proc, less what the
same server spends idle over as long (its job threads and live hub polling,
measured first), divided by the operations; "per core" is one second of
one core divided by that cost. p50 and p99 are the client's times to a
whole answer at that concurrency, the client sharing the cores.

The floor is benchmarks/floor_app.py, one route that answers six bytes, on
the same gunicorn and nginx; each kind's cost is also given as a multiple
of the floor's. The kinds:

- pages: the home page, and a board in play (three guesses made); a new
  game from the home page's form;
- a guess through the JSON API and through the board's form (htmx), in the
  middle of a game; and the form's guess that ends a game, whose answer
  carries the game's review (a classic game is reviewed at once, while the
  request waits);
- a puzzle answer through the JSON API (the player's first answer to it:
  rated), half of them a best guess, half a random one;
- a live class of ``phones`` students, each phone following the session:
  the teacher's step until every phone has heard it, one step at a time;
  the students' votes, each waking every stream; and each phone's own
  result, which its page asks for after a step;
- a hint job: the board's hint where it needs more than a request may do,
  through the queue (a server whose ``REQUEST_BUDGET`` sends every hint
  there, so the row is the queue's own cost), the page polling every second
  as ``_job.html`` does until the hint shows;
- the two guesses again with PostgreSQL and Redis (throwaway servers from
  Debian's packages, fsync on), their CPU counted too.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from .live import Listeners, call, pct
from .load import gunicorn
from .servers import postgresql, redis
from .slow_clients import nginx

# deploy/gunicorn.conf.py's defaults, which `make serve` runs.
WORKERS, THREADS = 4, 128
CLIENTS = 8
# Operations timed per kind at full size (``scale`` multiplies them).
COUNTS = {
    "floor": 3000,
    "home": 1500,
    "board": 1500,
    "guess-api": 1500,
    "guess-form": 1200,
    "guess-ends": 64,
    "puzzle": 400,
    "step": 20,
    "vote": 300,
    "own": 300,
    "new-game": 600,
    "hint": 12,
}
WARM_UP = 3  # untimed operations per client before the clock starts
IDLE_SECONDS = 2.0  # how long a server's idle CPU is measured
SETTLED, SETTLE_SECONDS = 0.05, 60  # a server has started once it keeps 5 % of a core busy (within a minute)
POLL_SECONDS = 1.0  # a page polls a job this often (templates/_job.html: "load delay:1s")
# Settings of the benchmark's servers: limits that would refuse one client's
# load (every request comes from 127.0.0.1) raised; nothing else changed.
OPEN_LIMITS = {
    "PUZZLE_ANSWER_RATE_LIMIT": "1000000 per minute",
    "PUZZLE_PLAYER_RATE_LIMIT": "1000000 per hour",
    "LIVE_JOIN_RATE_LIMIT": "1000000 per minute",
    "LIVE_LOOKUP_RATE_LIMIT": "1000000 per minute",
    "LIVE_VOTE_RATE_LIMIT": "1000000 per minute",
    "JOBS_START_RATE_LIMIT": "1000000 per minute",
    "JOBS_PER_CLIENT": 3,  # all of JOBS_MAX (3): one client stands for many
}
HX = {"HX-Request": "true"}
JSON = {"Content-Type": "application/json"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
TICKS = os.sysconf("SC_CLK_TCK")
FLOOR_APP = "benchmarks.floor_app:create_app"


# --- what the server's processes spend --------------------------------------------------------


def process_ticks(pid: int) -> int:
    """CPU ticks of a process and of its children it has waited for (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(child) for child in fh.read().split()]
    except OSError:
        return []


def tree_seconds(root: int) -> float:
    """CPU seconds of a process and all its descendants, living or gone."""
    ticks, stack = 0, [root]
    while stack:
        pid = stack.pop()
        with contextlib.suppress(OSError):
            ticks += process_ticks(pid)
            stack += children(pid)
    return ticks / TICKS


def listening_root(port: int) -> int:
    """The first process of the server listening on ``port`` on this
    machine (nginx's master, Redis): of those holding the socket, the one
    whose parent does not."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as fh:
            for line in list(fh)[1:]:
                parts = line.split()
                if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:  # 0A: listening
                    inodes.add(f"socket:[{parts[9]}]")
    holders = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            if any(os.readlink(f"/proc/{entry}/fd/{fd}") in inodes for fd in os.listdir(f"/proc/{entry}/fd")):
                holders.add(int(entry))
    for pid in holders:
        with open(f"/proc/{pid}/stat") as fh:
            parent = int(fh.read().rsplit(")", 1)[1].split()[1])
        if parent not in holders:
            return pid
    raise RuntimeError(f"no process listens on port {port}")


@dataclass
class Server:
    """A server as the benchmark sends to it: the port of its nginx, and the
    first process of each part whose CPU is counted (name: pid)."""

    port: int
    parts: dict[str, int]
    idle: dict[str, float] = field(default_factory=dict)  # each part's CPU seconds a second, sent nothing

    def seconds(self) -> dict[str, float]:
        return {name: tree_seconds(pid) for name, pid in self.parts.items()}

    def rates(self, seconds: float) -> dict[str, float]:
        """The cores each part keeps busy over the next ``seconds``, sent nothing."""
        before, started = self.seconds(), time.perf_counter()
        time.sleep(seconds)
        after, wall = self.seconds(), time.perf_counter() - started
        return {name: (after[name] - before[name]) / wall for name in before}

    def measure_idle(self, seconds: float, settle: float = SETTLE_SECONDS) -> None:
        """Wait up to ``settle`` seconds for the work a server does as it
        starts (its workers load the compiled kernels in a thread,
        ``WARM_UP``) to end, then measure what it spends idle: its job
        threads and live hub polling."""
        deadline = time.monotonic() + settle
        while sum(self.rates(0.25).values()) > SETTLED and time.monotonic() < deadline:
            pass
        self.idle = self.rates(seconds)


@contextlib.contextmanager
def serve(
    database: str,
    config: dict | None = None,
    factory: str = "webapp:create_app",
    backing: dict | None = None,
    workers: int = WORKERS,
):
    """gunicorn (as ``make serve`` runs it) behind deploy/nginx.conf; yields a
    :class:`Server`. ``backing``: the database's and Redis's first processes."""
    with contextlib.ExitStack() as stack:
        upstream, master = stack.enter_context(
            gunicorn(database, workers, THREADS, config={**OPEN_LIMITS, **(config or {})}, factory=factory)
        )
        port, _ = stack.enter_context(nginx(upstream))
        yield Server(port, {"gunicorn": master.pid, "nginx": listening_root(port), **(backing or {})})


# --- the client ---------------------------------------------------------------------------------


class Client:
    """One keep-alive connection to a server, as a browser or a bot holds one."""

    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.requests = 0

    def send(self, method: str, path: str, body=None, headers=None) -> tuple[int, bytes]:
        self.requests += 1
        if isinstance(body, dict) and (headers or {}).get("Content-Type") == FORM["Content-Type"]:
            body = urlencode(body)
        elif isinstance(body, dict):
            body = json.dumps(body)
        try:
            self.conn.request(method, path, body, headers or {})
            response = self.conn.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            return 0, b""

    def json(self, method: str, path: str, body=None, expect: int = 200) -> dict:
        status, data = self.send(method, path, {} if body is None and method == "POST" else body, JSON)
        if status != expect:
            raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
        return json.loads(data)

    def close(self) -> None:
        self.conn.close()


# An operation: given its client, the statuses of the requests it made (the last one is its answer's).
Operation = Callable[[Client], int]


@dataclass
class Result:
    kind: str
    operations: int = 0
    requests: int = 0
    wall: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per part, idle removed
    times: list[float] = field(default_factory=list)
    failed: dict[int, int] = field(default_factory=dict)  # answers neither 2xx nor 3xx, by status (0: none)
    note: str = ""

    @property
    def cpu_ms(self) -> float:
        """Milliseconds of CPU per operation, every part of the server together."""
        return 1000 * sum(self.cpu.values()) / max(self.operations, 1)

    def row(self, floor: Result | None) -> dict:
        return {
            "kind": self.kind,
            "operations": self.operations,
            "requests": self.requests,
            "failed": sum(self.failed.values()),
            "failed_by_status": self.failed,
            "cpu_ms": {name: 1000 * s / max(self.operations, 1) for name, s in self.cpu.items()},
            "cpu_ms_total": self.cpu_ms,
            "per_core_per_s": 1000 / self.cpu_ms if self.cpu_ms > 0 else None,
            "per_s": self.operations / self.wall if self.wall else None,
            "p50_ms": 1000 * pct(self.times, 0.5) if self.times else None,
            "p99_ms": 1000 * pct(self.times, 0.99) if self.times else None,
            "floors": self.cpu_ms / floor.cpu_ms if floor is not None and floor.cpu_ms > 0 else None,
            "note": self.note,
        }


def drive(server: Server, kind: str, work: list[list[Operation]], warm: int = WARM_UP, note: str = "") -> Result:
    """Each client (one list of ``work``) runs its first ``warm`` operations
    untimed, then the rest timed, all at once; the server's CPU over the timed
    part, less its idle CPU, and each timed operation's time."""
    clients = [Client(server.port) for _ in work]
    ready = threading.Barrier(len(work) + 1)
    go = threading.Barrier(len(work) + 1)
    times: list[list[float]] = [[] for _ in work]
    failed: list[Counter[int]] = [Counter() for _ in work]

    def run(index: int) -> None:
        client, operations = clients[index], work[index]
        try:
            for operation in operations[:warm]:
                operation(client)
        finally:
            ready.wait()
            go.wait()
        for operation in operations[warm:]:
            started = time.perf_counter()
            status = operation(client)
            times[index].append(time.perf_counter() - started)
            if not 200 <= status < 400:
                failed[index][status] += 1

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(work))]
    for thread in threads:
        thread.start()
    ready.wait()
    requests_before = sum(c.requests for c in clients)
    before, started = server.seconds(), time.perf_counter()
    go.wait()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    after = server.seconds()
    for client in clients:
        client.close()
    spent = {name: max(after[name] - before[name] - server.idle.get(name, 0.0) * wall, 0.0) for name in before}
    flat = [t for per in times for t in per]
    return Result(
        kind,
        len(flat),
        sum(c.requests for c in clients) - requests_before,
        wall,
        spent,
        flat,
        dict(sum(failed, Counter())),
        note,
    )


def split(count: int, clients: int, warm: int = WARM_UP) -> list[int]:
    """Operations per client: ``count`` timed in all, and each client's warm-up."""
    return [warm + count // clients + (i < count % clients) for i in range(clients)]


# --- the kinds of work --------------------------------------------------------------------------


def get(path: str) -> Operation:
    return lambda client: client.send("GET", path)[0]


def random_guess(rng: random.Random) -> str:
    return "".join(str(rng.randint(1, 6)) for _ in range(4))  # the classic board, as load.py plays it


def new_games(server: Server, count: int, moves: int = 0, seed: int = 0) -> list[str]:
    """``count`` classic games made through the API, each with ``moves``
    random guesses played (untimed set-up)."""
    rng, client, made = random.Random(seed), Client(server.port), []
    while len(made) < count:
        game = client.json("POST", "/api/games", expect=201)["id"]
        for move in range(1, moves + 1):
            played = client.json("POST", f"/api/games/{game}/guesses", {"guess": random_guess(rng), "move": move})
            if played["status"] != "playing":  # guessed by chance: another game instead
                break
        else:
            made.append(game)
    client.close()
    return made


def guess(game: str, move: int, text: str, form: bool) -> Operation:
    """A guess through the API, or through the board's form as htmx posts it."""
    if form:
        return lambda client: client.send("POST", f"/games/{game}/guesses", {"guess": text, "move": move}, FORM | HX)[0]
    return lambda client: client.send("POST", f"/api/games/{game}/guesses", {"guess": text, "move": move}, JSON)[0]


def guesses(server: Server, counts: list[int], form: bool, seed: int) -> list[list[Operation]]:
    """Mid-game guesses: moves 1 to 9 of a game of 10, then the next game's."""
    rng = random.Random(seed)
    games = iter(new_games(server, sum((n + 8) // 9 for n in counts), seed=seed))
    work = []
    for n in counts:
        mine: list[Operation] = []
        while len(mine) < n:
            game = next(games)
            mine += [guess(game, move, random_guess(rng), form) for move in range(1, 10)]
        work.append(mine[:n])
    return work


def ending_guesses(server: Server, counts: list[int], seed: int) -> list[list[Operation]]:
    """The tenth and last guess of a game, through the board's form: its
    answer is the finished board with the game's review."""
    rng = random.Random(seed)
    games = iter(new_games(server, sum(counts), moves=9, seed=seed))
    return [[guess(next(games), 10, random_guess(rng), True) for _ in range(n)] for n in counts]


def puzzle_answers(server: Server, database: str, counts: list[int], seed: int) -> list[list[Operation]]:
    """Each client a player (a token the server issued) answering puzzles it
    has not answered: every answer rated. Half the answers are a best guess,
    half a random code the board allows."""
    from webapp.engine import GameSize
    from webapp.engine.codes import random_secret

    rng = random.Random(seed)
    client = Client(server.port)
    client.json("GET", "/api/puzzles/next")  # the shipped set loaded into the database
    with contextlib.closing(sqlite3.connect(database)) as db:
        rows = db.execute("SELECT id, pegs, colors, distinct_, distinct_guesses, best FROM puzzles").fetchall()
    rng.shuffle(rows)
    if len(rows) < sum(counts) + len(counts):
        raise RuntimeError(f"{len(rows)} puzzles: too few for {sum(counts)} answers")
    rows_left = iter(rows)

    def answer(player: str, row: tuple, best: bool) -> Operation:
        puzzle, pegs, colors, distinct, distinct_guesses, best_guesses = row
        size = GameSize(pegs, colors, bool(distinct), bool(distinct_guesses))
        guess = best_guesses.split()[0] if best else str(random_secret(size))
        return lambda client: client.send(
            "POST", f"/api/puzzles/{puzzle}/answers", {"guess": guess, "player": player}, JSON
        )[0]

    work = []
    for n in counts:
        first = next(rows_left)
        player = client.json("POST", f"/api/puzzles/{first[0]}/answers", {"guess": first[5].split()[0]})["player"]
        work.append([answer(player, next(rows_left), i % 2 == 0) for i in range(n)])
    client.close()
    return work


@dataclass
class Lesson:
    """A live session with ``phones`` students, each following its event
    stream with their token (``listeners``)."""

    code: str
    teacher: str
    students: list[str]
    listeners: Listeners

    def close(self) -> None:
        self.listeners.close()


def lesson(server: Server, phones: int) -> Lesson:
    status, session = call(server.port, "POST", "/api/live", {"source": "random"})
    assert status == 201, session
    code, tokens = session["code"], []
    for _ in range(phones):
        status, joined = call(server.port, "POST", f"/api/live/{code}/students", {})
        assert status == 201, joined
        tokens.append(joined["student_token"])
    _, state = call(server.port, "GET", f"/api/live/{code}")
    listeners = Listeners(server.port, f"/live/{code}/events?after={state['version']}", phones, tokens)
    listeners.pump(lambda: all(listeners.opened))
    return Lesson(code, session["teacher_token"], tokens, listeners)


def steps(class_: Lesson, count: int) -> list[list[Operation]]:
    """The teacher's steps, one at a time: each until every phone has heard it."""

    def step(number: int) -> Operation:
        def operation(client: Client) -> int:
            status, moved = client.send(
                "POST",
                f"/api/live/{class_.code}/step",
                {"to": 1 - number % 2},
                JSON | {"Authorization": f"Bearer {class_.teacher}"},
            )
            if status == 200:
                class_.listeners.pump(class_.listeners.everyone_has(json.loads(moved)["version"]))
            return status

        return operation

    return [[step(number) for number in range(count)]]


def votes(class_: Lesson, counts: list[int]) -> list[list[Operation]]:
    """The students' proposals for the next guess (a proposal again replaces
    a student's last): each wakes every stream of the session."""
    tokens = iter(class_.students * (sum(counts) // len(class_.students) + 1))

    def vote(token: str) -> Operation:
        return lambda client: client.send(
            "POST", f"/api/live/{class_.code}/votes", {"guess": "1123"}, JSON | {"Authorization": f"Bearer {token}"}
        )[0]

    return [[vote(next(tokens)) for _ in range(n)] for n in counts]


def own_results(class_: Lesson, counts: list[int]) -> list[list[Operation]]:
    """Each phone's own result, as its page asks for it after a step."""
    tokens = iter(class_.students * (sum(counts) // len(class_.students) + 1))

    def own(token: str) -> Operation:
        cookie = {"Cookie": f"live_student_{class_.code}={token}"}
        return lambda client: client.send("GET", f"/live/{class_.code}/you", headers=cookie)[0]

    return [[own(next(tokens)) for _ in range(n)] for n in counts]


def new_game_forms(counts: list[int]) -> list[list[Operation]]:
    """A new classic game from the home page's form (its answer: 303 to the board)."""
    return [[lambda client: client.send("POST", "/games", {"preset": "classic"}, FORM)[0]] * n for n in counts]


def hint_jobs(server: Server, counts: list[int], poll: float) -> list[list[Operation]]:
    """Knuth's hint on a classic game after one guess, each game's first
    guess different (so each is a job of its own), asked on the board and
    polled as the page polls until it shows."""
    from webapp.engine import Code, GameSize

    size, client = GameSize(), Client(server.port)
    games = []
    for index in range(sum(counts)):
        game = client.json("POST", "/api/games", expect=201)["id"]
        first = str(Code.from_index(index * 7 % size.n_codes, size))
        client.json("POST", f"/api/games/{game}/guesses", {"guess": first, "move": 1})
        games.append(game)
    client.close()
    left = iter(games)

    def hint(game: str) -> Operation:
        def operation(client: Client) -> int:
            status, page = client.send("POST", f"/games/{game}/suggestion", {"strategy": "knuth"}, FORM | HX)
            while status in (200, 503) and b'class="suggested-code"' not in page:
                time.sleep(poll)  # the page's own pace; after a 503 (the queue full), asked again as soon
                if status == 503:
                    status, page = client.send("POST", f"/games/{game}/suggestion", {"strategy": "knuth"}, FORM | HX)
                else:
                    status, page = client.send("GET", f"/games/{game}/suggestion", headers=HX)
            return status

        return operation

    return [[hint(next(left)) for _ in range(n)] for n in counts]


# --- the run ------------------------------------------------------------------------------------


def run(
    clients: int = CLIENTS,
    scale: float = 1.0,
    phones: int = 30,
    poll: float = POLL_SECONDS,
    idle_seconds: float = IDLE_SECONDS,
    warm: int = WARM_UP,
    workers: int = WORKERS,
    settle: float = SETTLE_SECONDS,
) -> dict:
    """Every kind measured; the rows (each with its multiple of the floor's
    cost) and the servers' idle CPU."""
    counts = {name: max(1, round(n * scale)) for name, n in COUNTS.items()}
    hint_clients = min(clients, OPEN_LIMITS["JOBS_PER_CLIENT"])
    rows: list[Result] = []
    idle: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="mastermind-capacity-") as folder:
        with serve(str(Path(folder) / "floor.sqlite3"), factory=FLOOR_APP, workers=workers) as server:
            server.measure_idle(idle_seconds, settle)
            idle["floor"] = sum(server.idle.values())
            floor = drive(
                server,
                "floor: a one-route Flask app",
                [[get("/")] * n for n in split(counts["floor"], clients, warm)],
                warm,
            )
        database = str(Path(folder) / "capacity.sqlite3")
        with serve(database, workers=workers) as server:
            game = new_games(server, 1, moves=3)[0]
            server.measure_idle(idle_seconds, settle)
            idle["app, SQLite"] = sum(server.idle.values())
            shares = split(counts["home"], clients, warm)
            rows.append(drive(server, "page: home (GET /)", [[get("/")] * n for n in shares], warm))
            shares = split(counts["board"], clients, warm)
            rows.append(drive(server, "page: a board in play", [[get(f"/games/{game}")] * n for n in shares], warm))
            shares = split(counts["new-game"], clients, warm)
            rows.append(drive(server, "game: new, through the form", new_game_forms(shares), warm))
            shares = split(counts["guess-api"], clients, warm)
            rows.append(drive(server, "guess: API, mid-game", guesses(server, shares, False, 1), warm))
            shares = split(counts["guess-form"], clients, warm)
            rows.append(drive(server, "guess: form (htmx), mid-game", guesses(server, shares, True, 2), warm))
            shares = split(counts["guess-ends"], clients, 1)
            rows.append(drive(server, "guess: form, the game's last (+ review)", ending_guesses(server, shares, 3), 1))
            shares = split(counts["puzzle"], clients, warm)
            rows.append(drive(server, "puzzle answer: API, rated", puzzle_answers(server, database, shares, 4), warm))
            class_ = lesson(server, phones)
            try:
                work = steps(class_, warm + counts["step"])
                rows.append(drive(server, f"live: a step to {phones} phones", work, warm, note="one step at a time"))
                shares = split(counts["vote"], clients, warm)
                rows.append(drive(server, f"live: a vote, {phones} phones following", votes(class_, shares), warm))
                shares = split(counts["own"], clients, warm)
                rows.append(drive(server, "live: a phone's own result", own_results(class_, shares), warm))
            finally:
                class_.close()
        with serve(str(Path(folder) / "hints.sqlite3"), {"REQUEST_BUDGET": 1000}, workers=workers) as server:
            server.measure_idle(idle_seconds, settle)
            idle["app, every hint a job"] = sum(server.idle.values())
            shares = split(counts["hint"], hint_clients, 1)
            rows.append(
                drive(
                    server,
                    "hint job: through the queue",
                    hint_jobs(server, shares, poll),
                    1,
                    note=f"{hint_clients} at once, polled every {poll:g} s",
                )
            )
        with postgresql(durable=True) as database_url, redis() as redis_url:
            backing = {
                "postgresql": int(Path(database_url.data, "postmaster.pid").read_text().split()[0]),
                "redis": listening_root(int(redis_url.rsplit(":", 1)[1].split("/")[0])),
            }
            with serve(database_url, {"REDIS_URL": redis_url}, backing=backing, workers=workers) as server:
                new_games(server, 1)
                server.measure_idle(idle_seconds, settle)
                idle["app, PostgreSQL + Redis"] = sum(server.idle.values())
                shares = split(counts["guess-api"], clients, warm)
                rows.append(drive(server, "guess: API, PostgreSQL + Redis", guesses(server, shares, False, 5), warm))
                shares = split(counts["guess-form"], clients, warm)
                rows.append(drive(server, "guess: form, PostgreSQL + Redis", guesses(server, shares, True, 6), warm))
    return {
        "clients": clients,
        "workers": workers,
        "threads": THREADS,
        "idle_cores": idle,
        "floor": floor.row(None),
        "rows": [r.row(floor) for r in rows],
    }


def print_table(result: dict) -> None:
    print(
        f"capacity: {result['clients']} clients at once through nginx (deploy/nginx.conf) to gunicorn, "
        f"{result['workers']} gthread workers × {result['threads']} threads (deploy/gunicorn.conf.py); "
        "the client on the same cores"
    )
    print(
        "idle servers (not counted below): "
        + ", ".join(f"{k} {v:.1%} of a core" for k, v in result["idle_cores"].items())
    )
    print(
        f"{'kind of work':42} {'done':>5} {'per core/s':>10} {'CPU ms':>8} {'app':>7} {'nginx':>6} {'db':>6} "
        f"{'× floor':>8} {'p50 ms':>8} {'p99 ms':>8} {'failed':>6}"
    )
    for row in [result["floor"], *result["rows"]]:
        cpu = row["cpu_ms"]
        database = cpu.get("postgresql", 0.0) + cpu.get("redis", 0.0)
        floors = "1" if row["floors"] is None else f"{row['floors']:.1f}"
        print(
            f"{row['kind']:42} {row['operations']:5d} {row['per_core_per_s'] or 0:10.1f} {row['cpu_ms_total']:8.2f} "
            f"{cpu['gunicorn']:7.2f} {cpu['nginx']:6.2f} {database:6.2f} {floors:>8} {row['p50_ms']:8.1f} "
            f"{row['p99_ms']:8.1f} {row['failed']:6d}" + (f"  ({row['note']})" if row["note"] else "")
        )


def main(json_output: bool = False, **sizes) -> None:
    result = run(**sizes)
    if json_output:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
