"""The whole space of inputs the forms accept, swept: every route that takes
a size, for every size (2 to 6 pegs, 2 to 10 colours, repeated and different
colours; of the sizes with different colours, those whose pegs and colours add
up to an even number, Bulls and Cows among them, also ask for guesses of
different colours), with the main options (every strategy, both adversaries, a history
a step in, a finished game's replay). No answer may be a 5xx, and none may
do more engine work than a request is meant to, counted in the engine's own
units (pairs scored, positions searched), never in seconds: how long the
sweep takes on a machine is measured by ``python -m benchmarks --sweep``.

Background jobs queue and are not run here (their pages show progress);
jobs small enough to be computed by the request that asks are computed, as
on a real server. The classic board gets every option; on the other sizes
the strategies and adversaries are sampled, a different few per size, so
that together the sizes cover every one of them many times over."""

from __future__ import annotations

import itertools
from urllib.parse import urlencode

import pytest
from flask import g, request_finished

from webapp import create_app
from webapp.engine import PRESETS, Code, GameSize, feedback
from webapp.engine.codes import MAX_COLORS, MAX_GUESSES, MAX_PEGS, MIN_COLORS, MIN_PEGS, conceal, secret_indices
from webapp.engine.lines import ADVERSARIES, BEST_CANDIDATE, offered
from webapp.engine.optimal import OptimalSolver
from webapp.engine.position import describe, description_cost, following_move
from webapp.engine.strategies import Budget
from webapp.settings import size_params
from webapp.web.links import size_slug

# Run apart from the other heavy files when the suite runs on several cores
# (pytest-xdist's loadgroup): their work would crowd each other out.
pytestmark = pytest.mark.xdist_group("heavy")

SIZES = [
    GameSize(p, c, d, d and (p + c) % 2 == 0)
    for p in range(MIN_PEGS, MAX_PEGS + 1)
    for c in range(MIN_COLORS, MAX_COLORS + 1)
    for d in (False, True)
    if not d or c >= p
]
# The exact search runs in a request only where it answers at once (an
# optimum that ships, a size small enough): tens of thousands of positions.
# A background job's search visits millions (EXACT_SEARCH_NODES a reviewed move).
SEARCH_NODES = 250_000
STRATEGIES = [BEST_CANDIDATE.name, *PRESETS]


def sampled(items: list, size: GameSize, k: int = 2) -> list:
    """All of ``items`` on the classic board; ``k`` of them on the others,
    rotating with the size so that together they cover every item."""
    if size == GameSize():
        return items
    start = SIZES.index(size) * k
    return [items[(start + i) % len(items)] for i in range(k)]


def size_args(size: GameSize) -> dict:
    return {
        "pegs": size.pegs,
        "colors": size.colors,
        **({"distinct": 1} if size.distinct else {}),
        **({"distinct_guesses": 1} if size.distinct_guesses else {}),
    }


def size_json(size: GameSize) -> dict:
    return size_params(size)


def a_secret(size: GameSize) -> Code:
    codes = secret_indices(size)
    return Code.from_index(int(codes[len(codes) * 2 // 3]), size)


def sweep_config(database: str) -> dict:
    """The app the sweep runs against (the benchmark's too): jobs queued, not run."""
    return {
        "DATABASE": database,
        "DATABASE_URL": None,
        "REDIS_URL": None,
        "TESTING": True,
        "CREATE_RATE_LIMIT": "1000000 per minute",
        "JOBS_CONSUMER": "none",
        "JOBS_MAX": 1_000_000,
        "JOBS_START_RATE_LIMIT": "1000000 per minute",
        "WARM_UP": True,
    }


@pytest.fixture(scope="module")
def sweep_app(tmp_path_factory):
    app = create_app(sweep_config(str(tmp_path_factory.mktemp("sweep") / "games.sqlite3")))
    yield app
    app.extensions["jobs"].stop()


class Work:
    """The engine's work for one request at a time, read off its counters:
    the (guess, code) pairs charged to budgets (``Budget.spend``; the
    request's own budget is told apart from every other) and the positions
    the exact search visits (``OptimalSolver``'s node count)."""

    def __init__(self, request_budget: int):
        self.request_budget = request_budget
        self.charges: list[tuple[Budget, int]] = []
        self.own: Budget | None = None
        self.nodes = 0
        self.most = {"own": (0, ""), "other": (0, ""), "nodes": (0, "")}

    def start(self) -> None:
        self.charges, self.own, self.nodes = [], None, 0

    def excess(self, what: str) -> list[str]:
        """What the request just answered did beyond a request's share.
        Its own budget refuses work beyond ``REQUEST_BUDGET`` by itself; work
        charged to any other budget (a quick job computed in the request,
        a line's step charged again to the step's own bound) must fit in one
        such budget too, and its exact searches in ``SEARCH_NODES``."""
        own = sum(pairs for budget, pairs in self.charges if budget is self.own)
        other = sum(pairs for budget, pairs in self.charges if budget is not self.own)
        for name, value in (("own", own), ("other", other), ("nodes", self.nodes)):
            self.most[name] = max(self.most[name], (value, what))
        problems = []
        if other > self.request_budget:
            problems.append(f"{other:,} pairs charged outside the request's budget: {what}")
        if self.nodes > SEARCH_NODES:
            problems.append(f"{self.nodes:,} positions searched: {what}")
        return problems


@pytest.fixture
def work(sweep_app, monkeypatch):
    """A :class:`Work` counting what every request to ``sweep_app`` does."""
    meter = Work(sweep_app.config["REQUEST_BUDGET"])
    spend = Budget.spend

    def counted_spend(budget, pairs, refusal):
        spend(budget, pairs, refusal)  # a refused charge raises: nothing was scored
        meter.charges.append((budget, int(pairs)))

    def counting_nodes(run):
        def counted_run(solver, *args, **kwargs):
            before = int(solver.all_stats()[0])
            try:
                return run(solver, *args, **kwargs)
            finally:
                meter.nodes += int(solver.all_stats()[0]) - before

        return counted_run

    def keep_own_budget(sender, **extra):
        meter.own = g.get("budget")

    monkeypatch.setattr(Budget, "spend", counted_spend)
    for name in ("_run", "_run_split"):
        monkeypatch.setattr(OptimalSolver, name, counting_nodes(getattr(OptimalSolver, name)))
    request_finished.connect(keep_own_budget, sweep_app, weak=False)
    yield meter
    request_finished.disconnect(keep_own_budget, sweep_app)


class Sweep:
    """Sends requests, and keeps every 5xx and, given a :class:`Work`, every
    answer that did more work than a request may."""

    def __init__(self, client, work: Work | None = None):
        self.client, self.work, self.problems, self.count = client, work, [], 0

    def send(self, method: str, url: str, **kwargs):
        if self.work is not None:
            self.work.start()
        resp = self.client.open(url, method=method, **kwargs)
        self.count += 1
        if resp.status_code >= 500:
            self.problems.append(f"{resp.status_code} {method} {url}: {resp.get_data(as_text=True)[:300]}")
        if self.work is not None:
            self.problems += self.work.excess(f"{method} {url}")
        return resp

    def get(self, url: str, args: dict | None = None, **kwargs):
        return self.send("GET", url + ("?" + urlencode(args) if args else ""), **kwargs)

    def post(self, url: str, **kwargs):
        return self.send("POST", url, **kwargs)


def sweep_size(s: Sweep, size: GameSize) -> None:
    args = size_args(size)
    secret = a_secret(size)
    strategies = [name for name in STRATEGIES if name == BEST_CANDIDATE.name or PRESETS[name].available(size)]
    # The optimal game: every codebreaker the form offers, both adversaries.
    for name, adversary in sampled(list(itertools.product(strategies, ADVERSARIES)), size, 4):
        query = {**args, "strategy": name, "adversary": adversary}
        s.get("/solver/optimal-game", query)
        s.get("/api/solver/optimal-game", query)
    s.get("/solver/optimal-game", args, headers={"HX-Request": "true"})
    s.get("/solver/optimal-game/lengths", args, headers={"HX-Request": "true"})
    # Every strategy compared.
    s.get("/solver/compare", args)
    s.get("/api/solver/compare", args)
    # The classroom and the step API, before the first guess and one guess in,
    # and the tree with one branch open.
    first = (
        Code(tuple(range(1, size.pegs + 1)))
        if size.distinct_guesses
        else Code.parse("".join(str(1 + (i // 2) % size.colors) for i in range(size.pegs)), size)
    )
    reply = feedback(first, secret)
    history = f"{first}:{reply.key}"
    for name in sampled([n for n in PRESETS if n in strategies], size, 1):
        s.get("/solver/classroom", {**args, "strategy": name})
        s.get("/solver/classroom", {**args, "strategy": name, "history": history, "s": conceal(secret, size)})
        s.get("/api/solver/step", {**args, "strategy": name, "history": history})
        s.get("/solver/tree", {**args, "strategy": name})
        s.get("/solver/tree", {**args, "strategy": name, "open": reply.key}, headers={"HX-Request": "true"})
    s.post("/solver/classroom", data={**args, "strategy": "knuth", "source": "random", "presenter": "1"})
    sweep_live(s, size, strategies)
    # A game on the board: created by the form, a guess, a hint, the board.
    resp = s.post("/games", data={**args, "max_guesses": "12"})
    if resp.status_code == 303:
        board = resp.headers["Location"]
        s.post(board + "/guesses", data={"guess": str(first), "move": "1"})
        for name in sampled([n for n in PRESETS if n in strategies], size, 1):
            s.post(board + "/suggestion", data={"strategy": name}, headers={"HX-Request": "true"})
        s.get(board)
        s.post(board + "/counter", data={"show": "1"})
        s.get(board)
    # The same through the API.
    game = s.post("/api/games", json=size_json(size))
    if game.status_code == 201:
        s.post(f"/api/games/{game.get_json()['id']}/guesses", json={"guess": str(first), "move": 1})
    # The computer as codebreaker: each kind of first answer, then undo.
    for name in sampled([n for n in PRESETS if n in strategies and offered(PRESETS[n], size)], size, 1):
        made = s.post(
            "/api/codemaker",
            json={**size_json(size), "strategy": name},
        )
        if made.status_code != 201:
            continue
        gid = made.get_json()["id"]
        for black, white in ((0, 0), (1, 0), (0, 1)):
            answered = s.post(f"/api/codemaker/{gid}/feedback", json={"black": black, "white": white, "move": 1})
            s.get(f"/api/codemaker/{gid}")
            s.get(f"/codemaker/{gid}")
            if answered.status_code == 200:
                s.post(f"/api/codemaker/{gid}/undo", json={"move": 1})
    # A challenge: created, joined, its results.
    challenge = s.post(
        "/api/challenges",
        json={**size_json(size), "secret": str(secret)},
    )
    if challenge.status_code == 201:
        c = challenge.get_json()
        joined = s.post(f"/api/challenges/{c['id']}/games", json={"name": "sweep"})
        if joined.status_code == 201:
            played = joined.get_json()["id"]
            s.post(f"/api/games/{played}/guesses", json={"guess": str(secret)})
            # Its review: the API, and the part of the board that polls for it.
            s.get(f"/api/games/{played}/review")
            s.get(f"/games/{played}/review", headers={"HX-Request": "true"})
        s.get(c["results_page"])
        s.get(c["results_url"])
        s.get(c["url"])
    # Replays: a game won in two, and the longest lost game a link may hold.
    slug, code = size_slug(size), conceal(secret, size)
    won = {"g": str(first) if first != secret else ""}
    s.get(f"/replay/{slug}/{code}", won)
    s.get(f"/replay/{slug}/{code}", {**won, "step": 2 if won["g"] else 1})  # the end, with the review
    s.get(f"/replay/{slug}/{code}/review", won, headers={"HX-Request": "true"})
    wrong = [c for c in (Code.from_index(int(i), size) for i in secret_indices(size)[:40]) if c != secret]
    s.get(f"/replay/{slug}/{code}", {"l": 30, "g": ".".join(str(wrong[i % len(wrong)]) for i in range(30))})


LIVE_SOURCES = ("random", "teacher", "adversary")


def sweep_live(s: Sweep, size: GameSize, strategies: list[str]) -> None:
    """A live session of an offered strategy and secret source (rotating
    with the size, so the sizes together cover every pair), started from
    the form and through the API, stepped to the end through the API with
    a student's proposal at each step, the projector and a phone drawn at
    its start and end, and the report: refused up front where the board
    is too large to draw, never a 5xx."""
    offered_here = [n for n in PRESETS if n in strategies and offered(PRESETS[n], size)]
    for name, source in sampled(list(itertools.product(offered_here, LIVE_SOURCES)), size, 1):
        settings = {**size_json(size), "strategy": name, "source": source}
        if source == "teacher":
            settings["secret"] = str(a_secret(size))
        form = {**size_args(size), "strategy": name, "source": source, "secret": settings.get("secret", "")}
        s.post("/live", data=form)
        made = s.post("/api/live", json=settings)
        if made.status_code != 201:
            continue
        session = made.get_json()
        code, teacher = session["code"], {"Authorization": f"Bearer {session['teacher_token']}"}
        student = s.post(f"/api/live/{code}/students", json={"nickname": "sweep"}).get_json()["student_token"]
        voter = {"Authorization": f"Bearer {student}"}
        s.client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
        s.client.set_cookie(f"live_student_{code}", student)
        s.get(f"/live/{code}/teach")
        for _ in range(12):
            state = s.get(f"/api/live/{code}", headers=teacher).get_json()
            if state.get("solved"):
                break
            if state.get("strategy_guess"):
                s.post(f"/api/live/{code}/votes", json={"guess": state["strategy_guess"]}, headers=voter)
            if s.post(f"/api/live/{code}/step", json={}, headers=teacher).status_code != 200:
                break
        s.get(f"/live/{code}/teach")
        s.get(f"/live/{code}")
        s.get(f"/live/{code}/report")
        s.get(f"/api/live/{code}/report", headers={**teacher, "Accept": "text/csv"})


def test_every_size_every_route(sweep_app, work, capsys):
    s = Sweep(sweep_app.test_client(), work)
    for size in SIZES:
        sweep_size(s, size)
    with capsys.disabled():
        print(
            f"\nsweep: {s.count} requests over {len(SIZES)} sizes; the most work in one: "
            + "; ".join(
                f"{value:,} {unit} ({what[:70]})"
                for unit, (value, what) in zip(
                    ("pairs on its budget", "pairs on others", "positions searched"), work.most.values()
                )
            )
        )
    assert work.most["own"][0] > 0 and work.most["nodes"][0] > 0  # the counters count
    assert not s.problems, "\n".join(s.problems[:40])


# Live boards against the adversary: stepped through the API to the end up to
# this many codes; on the larger boards a session accepts, the engine's own
# count of each position's work says whether a page can draw it (and for a
# strategy that scores no guess at all, its estimate: nothing).
STEPPED_CODES = 1_500


def line_costs(strategy, size: GameSize) -> list[int]:
    """The (guess, code) pairs the engine scores to describe each position
    of the strategy's game against the adversary, to the solved end:
    worked out here, without a budget, as a request would be charged."""
    costs: list[int] = []
    history: list = []
    while len(history) <= MAX_GUESSES:
        spent = Budget(search=False)
        position = describe(strategy, size, history, max_pairs=spent)
        costs.append(spent.spent)
        if position.suggestion is None:
            return costs
        history.append(following_move(position, None))
    raise AssertionError(f"{strategy.name} on {size}: not solved in {MAX_GUESSES} guesses")


def test_every_live_board_against_the_adversary_is_drawn_to_the_end_or_refused(sweep_app):
    """Every board the live form accepts, with every strategy it offers and
    no secret (each reply the adversary's): refused when created, with a
    sentence, or every step drawn to the solved end. A step's request draws
    its position and the one before on a worker that may have drawn neither,
    so each two positions in a row must fit in one request's budget."""
    client = sweep_app.test_client()
    most = sweep_app.config["REQUEST_BUDGET"]
    problems: list[str] = []
    tally = {"refused": 0, "stepped": 0, "counted": 0, "free": 0}
    for size in SIZES:
        for name, strategy in PRESETS.items():
            if not offered(strategy, size):
                continue
            what = f"{name} on {size.params()}"
            made = client.post("/api/live", json={**size_json(size), "strategy": name, "source": "adversary"})
            if made.status_code != 201:
                if made.status_code != 422 or not made.get_json()["error"]:
                    problems.append(f"{what}: {made.status_code} when created")
                tally["refused"] += 1
                continue
            if size.n_codes <= STEPPED_CODES:
                session = made.get_json()
                teacher = {"Authorization": f"Bearer {session['teacher_token']}"}
                for _ in range(MAX_GUESSES):
                    stepped = client.post(f"/api/live/{session['code']}/step", json={}, headers=teacher)
                    if stepped.status_code != 200 or stepped.get_json()["solved"]:
                        break
                if stepped.status_code != 200 or not stepped.get_json()["solved"]:
                    problems.append(f"{what}: step {stepped.get_json().get('step')}: {stepped.get_json()}"[:300])
                tally["stepped"] += 1
            elif description_cost(strategy, size, size.n_codes, (1 << size.colors) - 1) == 0:
                tally["free"] += 1
            else:
                costs = line_costs(strategy, size)
                pairs = max(a + b for a, b in zip(costs, costs[1:] or [0]))
                if pairs > most:
                    problems.append(f"{what}: two positions in a row score {pairs:,} pairs")
                tally["counted"] += 1
    assert all(tally.values()), tally  # each kind of board is met
    assert not problems, "\n".join(problems[:40])
