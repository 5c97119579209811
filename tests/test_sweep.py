"""The whole space of inputs the forms accept, swept: every route that takes
a size, for every size (2 to 6 pegs, 2 to 10 colours, repeated and different
colours; of the sizes with different colours, those whose pegs and colours add
up to an even number, Bulls and Cows among them, also ask for guesses of
different colours), with the main options (every strategy, both adversaries, a history
a step in, a finished game's replay). No answer may be a 5xx, and none may
take longer than a request is meant to (the engine's budget plus what every
page costs anyway).

Background jobs queue and are not run here (their pages show progress);
jobs small enough to be computed by the request that asks are computed, as
on a real server. The classic board gets every option; on the other sizes
the strategies and adversaries are sampled, a different few per size, so
that together the sizes cover every one of them many times over."""

from __future__ import annotations

import itertools
import time
from urllib.parse import urlencode

import pytest

from webapp import create_app
from webapp.engine import PRESETS, Code, GameSize, feedback
from webapp.engine.codes import MAX_COLORS, MAX_PEGS, MIN_COLORS, MIN_PEGS, conceal, secret_indices
from webapp.engine.lines import ADVERSARIES, BEST_CANDIDATE, offered
from webapp.settings import size_params
from webapp.web.links import size_slug

SIZES = [
    GameSize(p, c, d, d and (p + c) % 2 == 0)
    for p in range(MIN_PEGS, MAX_PEGS + 1)
    for c in range(MIN_COLORS, MAX_COLORS + 1)
    for d in (False, True)
    if not d or c >= p
]
# No answer may take longer than this, in seconds: the request budget is
# about half a second of engine work, and a cold size also builds its tables.
CEILING = 3.0
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


@pytest.fixture(scope="module")
def sweep_app(tmp_path_factory):
    app = create_app(
        {
            "DATABASE": str(tmp_path_factory.mktemp("sweep") / "games.sqlite3"),
            "DATABASE_URL": None,
            "REDIS_URL": None,
            "TESTING": True,
            "CREATE_RATE_LIMIT": "1000000 per minute",
            "JOBS_CONSUMER": "none",
            "JOBS_MAX": 1_000_000,
            "JOBS_START_RATE_LIMIT": "1000000 per minute",
            "WARM_UP": True,
        }
    )
    yield app
    app.extensions["jobs"].stop()


class Sweep:
    """Sends requests, and keeps every 5xx and every slow answer."""

    def __init__(self, client):
        self.client, self.problems, self.count, self.slowest = client, [], 0, (0.0, "")

    def send(self, method: str, url: str, **kwargs):
        started = time.perf_counter()
        resp = self.client.open(url, method=method, **kwargs)
        seconds = time.perf_counter() - started
        self.count += 1
        self.slowest = max(self.slowest, (seconds, f"{method} {url}"))
        if resp.status_code >= 500:
            self.problems.append(f"{resp.status_code} {method} {url}: {resp.get_data(as_text=True)[:300]}")
        if seconds > CEILING:
            self.problems.append(f"{seconds:.2f} s {method} {url}")
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


def test_every_size_every_route(sweep_app, capsys):
    s = Sweep(sweep_app.test_client())
    started = time.perf_counter()
    times = []
    for size in SIZES:
        before = time.perf_counter()
        sweep_size(s, size)
        times.append((time.perf_counter() - before, size.label()))
    elapsed = time.perf_counter() - started
    with capsys.disabled():
        print(
            f"\nsweep: {s.count} requests over {len(SIZES)} sizes in {elapsed:.0f} s; "
            f"slowest {s.slowest[0]:.2f} s ({s.slowest[1]}); slowest sizes "
            + ", ".join(f"{label} {t:.1f} s" for t, label in sorted(times, reverse=True)[:6])
        )
    assert not s.problems, "\n".join(s.problems[:40])
