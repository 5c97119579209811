"""Choosing the next puzzle with many puzzles in the database.

The shipped set is copied under new ids, at random ratings, until the
database holds ``count`` puzzles (SQLite, then PostgreSQL). A player who
has already answered ``answered`` of them asks for the next puzzle
``draws`` times: the time of the service call (the query near the
player's rating that skips the puzzles answered, and reading the puzzle),
and of the whole page ``GET /puzzles`` through the app, at the median, the
95th percentile and the worst: with no choice made, with "harder" and a
common theme, and with "harder" and the rarest theme.

    python -m benchmarks --puzzles
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import tempfile
import time
from pathlib import Path

from webapp import create_app, store
from webapp.engine.puzzles import SHIPPED, Puzzle, read_set
from webapp.web.players import new_player
from webapp.web.puzzles import service


@dataclasses.dataclass(frozen=True)
class Copy(Puzzle):
    """A shipped puzzle under another id (for filling a database)."""

    copy_id: str = ""

    @property
    def key(self) -> str:
        return self.copy_id


def copies(count: int, rng: random.Random) -> list[Puzzle]:
    """``count`` puzzles: the shipped ones over and over, at random ratings."""
    shipped = read_set(SHIPPED)
    names = [f.name for f in dataclasses.fields(Puzzle)]
    out: list[Puzzle] = []
    for i in range(count):
        values = {name: getattr(shipped[i % len(shipped)], name) for name in names}
        out.append(Copy(**{**values, "rating": rng.randint(900, 2200), "copy_id": f"{i:012x}"}))
    return out


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# (name, difficulty, theme): what the player chose.
CHOICES = (
    ("any", "normal", None),
    ("harder, candidate", "harder", "candidate"),
    ("harder, super-mastermind", "harder", "super-mastermind"),
)


def measure(config: dict, count: int, answered: int, draws: int) -> dict:
    """Each choice's figures (``CHOICES``), and the loading time."""
    rng = random.Random(1)
    app = create_app({**config, "TESTING": True, "RATELIMIT_ENABLED": False, "JOBS_PERIODIC": False})
    try:
        # A request's context: an answer is rated for the client that sends it.
        with app.test_request_context():
            started = time.perf_counter()
            store.puzzles.load(copies(count, rng), service.PUZZLE_DEVIATION)
            app.extensions["puzzles-loaded"] = True
            loading = time.perf_counter() - started
            player = new_player()  # a token the server issued, as a browser's first answer gets
            for _ in range(answered):
                found = service.next_for(player, rng)
                service.answer(found, player, str(found.best[0]))
            figures: dict = {"load_s": loading}
            for name, difficulty, theme in CHOICES:
                calls = []
                for _ in range(draws):
                    started = time.perf_counter()
                    service.next_for(player, rng, difficulty, theme)
                    calls.append(time.perf_counter() - started)
                figures[name] = {"call": spread(calls)}
        client = app.test_client()
        client.set_cookie("player", player)
        client.get("/puzzles")  # the templates compiled, the themes counted, before the clock starts
        for name, difficulty, theme in CHOICES:
            query = f"?difficulty={difficulty}" + (f"&theme={theme}" if theme else "")
            pages = []
            for _ in range(draws):
                started = time.perf_counter()
                assert client.get("/puzzles" + query).status_code == 200
                pages.append(time.perf_counter() - started)
            figures[name]["page"] = spread(pages)
    finally:
        app.extensions["jobs"].stop()
        app.extensions["live"].stop()
        app.extensions["store"].close()
    return figures


def spread(times: list[float]) -> list[float]:
    """The median, the 95th percentile and the worst, in milliseconds."""
    return [1000 * statistics.median(times), 1000 * percentile(times, 0.95), 1000 * max(times)]


def main(count: int = 100_000, answered: int = 200, draws: int = 500) -> None:
    from .servers import postgresql

    print(f"next puzzle: {count:,} puzzles, a player who answered {answered}, {draws} draws per set-up")
    print(
        f"{'database':12} {'choice':26} {'call p50':>9} {'p95':>7} {'max':>7}   {'page p50':>9} {'p95':>7} {'max':>7}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        rows.append(("SQLite", measure({"DATABASE": str(Path(folder) / "puzzles.sqlite3")}, count, answered, draws)))
    with postgresql() as url:
        rows.append(("PostgreSQL", measure({"DATABASE_URL": url}, count, answered, draws)))
    for name, r in rows:
        print(f"{name:12} loaded in {r['load_s']:.1f} s")
        for choice, _, _ in CHOICES:
            call, page = r[choice]["call"], r[choice]["page"]
            print(
                f"{name:12} {choice:26} {call[0]:7.2f}ms {call[1]:5.2f}ms {call[2]:5.2f}ms"
                f"   {page[0]:7.2f}ms {page[1]:5.2f}ms {page[2]:5.2f}ms"
            )
