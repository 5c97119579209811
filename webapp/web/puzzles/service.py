"""The puzzles' rules, once for the pages and the JSON API: which puzzle
comes next, today's puzzle, the streak, and what an answer is worth.

Ratings are Weng and Lin's Bayesian approximation (openskill's
Plackett-Luce model), which rates players and puzzles together as
Glicko-2 does on lichess: each answer is a game between the player and the
puzzle, won by the player when the guess is one of the best. A player's
first answer to a puzzle moves the player's rating once, and the puzzle's
too once the player is established (``PROVISIONAL_ANSWERS``); answers in a
streak and answers given again move neither."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from random import Random

import numpy as np
from flask import current_app, has_request_context
from flask_babel import gettext
from openskill.models import PlackettLuce

from ... import store
from ...engine import Code, MastermindError
from ...engine.codes import MAX_GUESSES, Feedback
from ...engine.position import partition_bars
from ...engine.puzzles import (
    KEY_LENGTH,
    SHIPPED,
    THEMES,
    Rejected,
    candidates_of,
    distinct_positions,
    examine,
    guess_total,
    played_positions,
    puzzle_key,
    read_set,
)
from ...engine.review import shared_values
from ...engine.tables import feedback_table
from ...words import error_words, visible
from .. import days
from ..limits import count_new_player, hold_off, minutes_until, too_many_new_players
from ..players import client_key, issued

Rating = store.puzzles.Rating
StoredPuzzle = store.puzzles.StoredPuzzle

# Every player and every puzzle starts at this rating; players this unsure
# of it, puzzles (rated from the strategies' choices first) less.
START = Rating(1500.0, 350.0)
# A player's first rated answers are provisional, as lichess's provisional
# players are: they move the player's rating, never the puzzle's, so players
# made to be thrown away cannot push a puzzle.
PROVISIONAL_ANSWERS = 10
# An answer from a client (an address) shown the puzzle's best guesses this
# many seconds before or less (by any answer's verdict, or a verdict's link)
# is not rated, and does not count in a streak: seeing the answer with one
# player and giving it with another gains nothing.
SEEN_SECONDS = 3600.0
PUZZLE_DEVIATION = 200.0
MODEL = PlackettLuce(mu=START.rating, sigma=START.deviation, beta=START.deviation / 2, tau=5.0)
# The next puzzle is the one rated nearest above the player's rating moved
# by up to this much either way (so that two in a row differ, and no two
# streaks or storms climb the same ladder).
SPREAD = 100.0
# The difficulties a player may choose: an offset from their rating, as
# lichess's are.
DIFFICULTIES = {"easier": -300.0, "normal": 0.0, "harder": 300.0}
# A streak starts at this rating and asks this much more for each puzzle solved.
STREAK_START, STREAK_STEP = 1000.0, 60.0
# Puzzle Storm: this many seconds, puzzles from STORM_START asking
# STORM_STEP more for each solved, a miss costing STORM_PENALTY seconds.
STORM_SECONDS, STORM_PENALTY = 180.0, 10.0
STORM_START, STORM_STEP = 900.0, 50.0
# What a hint says: the first of these themes the puzzle has (else "mixed":
# some best guesses could be the secret and some cannot).
HINT_THEMES = ("not-a-candidate", "candidate", "repeat-colour")
# The daily puzzle is drawn from the puzzles rated in this range.
DAILY_RANGE = (1300.0, 1800.0)
# The dashboard reads at most this many of a player's latest answers.
DASHBOARD_ANSWERS = 1000
# How an answer was asked for.
MODES = ("rated", "daily", "streak", "again", "storm")


class Refused(ValueError):
    """An answer the rules refuse (a sentence, and the status to answer with)."""

    def __init__(self, sentence: str, status: int = 422):
        super().__init__(sentence)
        self.status = status


def loaded() -> None:
    """Add the shipped set's puzzles the database lacks, once a process, the
    first time a puzzle is needed (a release with more puzzles adds them;
    those already there keep their ratings)."""
    if current_app.extensions.get("puzzles-loaded"):
        return
    store.puzzles.load(puzzle_set(str(current_app.config.get("PUZZLES_FILE") or SHIPPED)), PUZZLE_DEVIATION)
    current_app.extensions["puzzles-loaded"] = True


@lru_cache(maxsize=2)
def puzzle_set(path: str) -> tuple:
    """The puzzles of a set file, read once a process: one of each position
    up to the board's symmetries, so a position has one puzzle and one rating."""
    return tuple(distinct_positions(read_set(Path(path))))


def from_games(limit: int) -> tuple[int, int]:
    """Puzzles from the positions of the newest ``limit`` finished games
    played here (those on the puzzle boards that are puzzles, not already
    kept): (positions examined, puzzles added)."""
    loaded()
    examined, made = 0, []
    for size, line in store.games.finished_lines(limit):
        for before in played_positions(size, tuple(line)):
            if store.puzzles.get(puzzle_key(size, before)) is not None:
                continue
            examined += 1
            try:
                made.append(examine(size, before, shared_values(size), "played"))
            except Rejected:
                continue
    current_app.extensions.pop("puzzle-themes", None)  # counted again when next asked
    return examined, store.puzzles.load(made, PUZZLE_DEVIATION, shipped=False)


def puzzle(puzzle_id: str) -> StoredPuzzle | None:
    loaded()
    return store.puzzles.get(puzzle_id)


def no_such_puzzle(puzzle_id: str) -> str:
    """The 404's sentence: the id as asked, cut to a little more than an id's
    length and with every invisible or reversing character written out."""
    return gettext("There is no puzzle %(id)s.", id=visible(puzzle_id[: KEY_LENGTH + 2]))


def sight() -> store.puzzles.Sight | None:
    """This request's client and the time since which a puzzle it was shown
    counts as seen (None outside a request: nobody is asking)."""
    return (client_key(), time.time() - SEEN_SECONDS) if has_request_context() else None


def seen(found: StoredPuzzle) -> bool:
    """Whether this request's client was shown the puzzle's best guesses just before."""
    now = sight()
    return now is not None and store.puzzles.seen_since(now[0], found.id, now[1])


def shown(found: StoredPuzzle) -> None:
    """Keep that this request's client is shown the puzzle's best guesses (a verdict's page)."""
    now = sight()
    if now is not None:
        store.puzzles.saw(now[0], found.id, time.time(), now[1])


def rating_of(player: str | None) -> Rating:
    record = store.puzzles.player(player) if player else None
    return record.rating if record is not None else START


def choice(difficulty: str | None, theme: str | None) -> tuple[str, str | None]:
    """A difficulty and theme as asked (a page's query, an API's body):
    the ones offered, or a refusal saying which are."""
    difficulty = difficulty or "normal"
    if difficulty not in DIFFICULTIES:
        raise Refused(gettext("Choose the difficulty easier, normal or harder."), 400)
    if theme and theme not in THEMES:
        raise Refused(gettext("There is no such theme: choose one from the list."), 400)
    return difficulty, theme or None


def themes() -> list[tuple[str, int]]:
    """Every theme with how many puzzles have it, most first (read once a process)."""
    loaded()
    counts = current_app.extensions.get("puzzle-themes")
    if counts is None:
        counts = current_app.extensions["puzzle-themes"] = store.puzzles.theme_counts()
    return sorted(((t, counts.get(t, 0)) for t in THEMES if counts.get(t)), key=lambda x: (-x[1], x[0]))


def near(target: float, player: str | None, theme: str | None = None, skip: str | None = None) -> str | None:
    """A puzzle near ``target`` the player has not answered nor their
    client seen (else one they have not answered, else any)."""
    return (
        store.puzzles.near(target, player, skip=skip, unseen=sight(), theme=theme)
        or store.puzzles.near(target, player, skip=skip, theme=theme)
        or store.puzzles.near(target, None, skip=skip, theme=theme)
    )


def next_for(
    player: str | None, rng: Random | None = None, difficulty: str = "normal", theme: str | None = None
) -> StoredPuzzle:
    """A puzzle near the player's rating (moved by the difficulty) that they
    have not answered, nor their client seen just before (any puzzle near
    it once there is none), of ``theme`` when one is asked."""
    loaded()
    rng = rng or Random()
    pivot = rating_of(player).rating + DIFFICULTIES[difficulty] + rng.uniform(-SPREAD, SPREAD)
    found = near(pivot, player, theme)
    if found is None:
        raise Refused(gettext("There are no puzzles yet."), 503)
    got = store.puzzles.get(found)
    assert got is not None
    return got


def daily(day: int | None = None) -> StoredPuzzle:
    """The puzzle of ``day`` (today by default): the same for everyone."""
    loaded()
    number = day or days.today()

    def choose() -> str | None:
        ids = store.puzzles.ids_rated_between(*DAILY_RANGE) or store.puzzles.ids_rated_between(0, 1e9)
        if not ids:
            return None
        digest = hashlib.sha256(f"puzzle day {number}".encode()).digest()
        return ids[int.from_bytes(digest[:8], "big") % len(ids)]

    found = store.puzzles.of_day(number, choose)
    got = store.puzzles.get(found) if found else None
    if got is None:
        raise Refused(gettext("There are no puzzles yet."), 503)
    return got


def check_player(player: str) -> None:
    """Refuse a player token the server did not give out (made up by a
    client), and a new puzzle player past its address's limit."""
    if not issued(player):
        raise Refused(
            gettext(
                "This player token was not given out by this site: send the one an earlier answer gave you, or "
                "leave it out to get a new one."
            )
        )
    if store.puzzles.player(player) is None:
        wait = count_new_player()
        if wait:
            hold_off(wait)
            raise Refused(too_many_new_players(minutes_until(time.time() + wait)), 429)


def streak_target(solved: int, rng: Random | None = None) -> float:
    """The rating the next puzzle of a streak is drawn near: rising with
    each puzzle solved, drawn afresh for each run."""
    return STREAK_START + STREAK_STEP * solved + (rng or Random()).uniform(-SPREAD, SPREAD)


def start_streak(player: str, rng: Random | None = None) -> None:
    check_player(player)
    loaded()
    first = near(streak_target(0, rng), player)
    if first is None:
        raise Refused(gettext("There are no puzzles yet."), 503)
    store.puzzles.start_streak(player, first, time.time(), START)


def streak_of(player: str | None) -> store.puzzles.PlayerRecord | None:
    return store.puzzles.player(player) if player else None


def rate(player: Rating, puzzle: Rating, score: float) -> tuple[Rating, Rating]:
    """Both ratings after one game between the player and the puzzle: won
    (``score`` 1), drawn (0.5: solved after a hint) or lost (0)."""
    me = MODEL.rating(mu=player.rating, sigma=player.deviation)
    it = MODEL.rating(mu=puzzle.rating, sigma=puzzle.deviation)
    ranks = [0.0, 1.0] if score > 0.5 else [0.0, 0.0] if score == 0.5 else [1.0, 0.0]
    [[me_after], [it_after]] = MODEL.rate([[me], [it]], ranks=ranks)
    return Rating(me_after.mu, me_after.sigma), Rating(it_after.mu, it_after.sigma)


def read_guess(found: StoredPuzzle, text: str) -> Code:
    try:
        guess = Code.parse(text, found.size)
    except MastermindError as exc:
        raise Refused(error_words(exc)) from None
    if not found.size.allows_guess(guess):
        raise Refused(gettext("Every guess here uses %(pegs)d different digits.", pegs=found.size.pegs))
    return guess


def mode_of(found: StoredPuzzle, player: str, asked: str) -> str:
    """How this answer counts: a streak's only for the streak's puzzle, the
    day's only for today's."""
    if asked == "streak":
        record = store.puzzles.player(player)
        return "streak" if record is not None and record.streak_puzzle == found.id else "rated"
    if asked == "daily":
        return "daily" if daily().id == found.id else "rated"
    return "again" if asked == "again" else "rated"


def answer(found: StoredPuzzle, player: str, text: str, asked: str = "rated") -> store.puzzles.Answer:
    """Measure ``text`` as the answer to the puzzle exactly and keep it, for
    a player the server issued."""
    guess = read_guess(found, text)
    check_player(player)
    total = guess_total(found.size, found.history, guess, shared_values(found.size))
    mode = mode_of(found, player, asked)

    def next_streak(solved: int) -> str | None:
        return near(streak_target(solved), player, skip=found.id)

    return store.puzzles.record_answer(
        player,
        found.id,
        str(guess),
        total,
        total == found.total,
        mode,
        time.time(),
        START,
        rate,
        next_streak,
        provisional=PROVISIONAL_ANSWERS,
        sight=sight(),
    )


def hint(found: StoredPuzzle) -> str:
    """The theme a hint shows: whether the best guess can be the secret,
    else whether it repeats a colour (else "mixed")."""
    return next((t for t in HINT_THEMES if t in found.themes), "mixed")


def take_hint(found: StoredPuzzle, player: str) -> str:
    """Show the player a hint on this puzzle (kept: their answer to it is
    rated a draw at best); the theme it shows."""
    check_player(player)
    return store.puzzles.take_hint(player, found.id, hint(found), time.time())


def hint_of(found: StoredPuzzle, player: str | None) -> str | None:
    return store.puzzles.hint_of(player, found.id) if player else None


def hint_words(theme: str) -> str:
    return {
        "not-a-candidate": gettext("Hint: the best guess cannot be the secret."),
        "candidate": gettext("Hint: the best guess could be the secret."),
        "repeat-colour": gettext("Hint: the best guess repeats a colour."),
    }.get(theme, gettext("Hint: some best guesses could be the secret and some cannot."))


# Guesses a game played on from a puzzle allows beyond those already made.
PLAY_ON_GUESSES = 10


def play_on(found: StoredPuzzle, player: str | None, rng: Random | None = None) -> store.games.Game:
    """A game from the puzzle's position: its secret drawn from the codes
    still possible, the position's guesses already played."""
    cands = candidates_of(found.size, found.history)
    secret = Code.from_index(int(cands[(rng or Random()).randrange(int(cands.shape[0]))]), found.size)
    limit = min(MAX_GUESSES, len(found.history) + PLAY_ON_GUESSES)
    return store.games.create_game_from(found.size, limit, secret, found.history, player)


# --- Puzzle Storm -----------------------------------------------------------------------------


def storm_target(solved: int, rng: Random | None = None) -> float:
    return STORM_START + STORM_STEP * solved + (rng or Random()).uniform(-SPREAD, SPREAD)


def storm_of(player: str | None, now: float | None = None) -> store.puzzles.Storm | None:
    """The player's newest storm run, ended here if its time is up."""
    run = store.puzzles.latest_storm(player) if player else None
    now = time.time() if now is None else now
    if run is not None and not run.over and now >= run.deadline:
        store.puzzles.end_storm(run)
        run = dataclasses.replace(run, over=True, puzzle=None)
    return run


def start_storm(player: str, rng: Random | None = None) -> store.puzzles.Storm:
    check_player(player)
    loaded()
    first = near(storm_target(0, rng), player)
    if first is None:
        raise Refused(gettext("There are no puzzles yet."), 503)
    return store.puzzles.start_storm(player, first, time.time(), STORM_SECONDS, START)


def storm_answer(found: StoredPuzzle, player: str, text: str) -> tuple[store.puzzles.Storm, store.puzzles.Answer]:
    """Answer the storm's puzzle: unrated, a miss costing time."""
    check_player(player)
    run = storm_of(player)
    if run is None or run.over:
        raise Refused(gettext("This storm is over: start another."), 409)
    if run.puzzle != found.id:
        raise Refused(gettext("This is not the storm's puzzle now: the storm has moved on."), 409)
    guess = read_guess(found, text)  # a run over or moved on says so first, whatever the guess
    total = guess_total(found.size, found.history, guess, shared_values(found.size))
    before = rating_of(player).rating
    now = time.time()
    given = store.puzzles.Answer(
        store.puzzles.new_answer_id(),
        player,
        found.id,
        str(guess),
        total,
        total == found.total,
        "storm",
        False,
        before,
        before,
        now,
    )

    def next_puzzle(solved: int) -> str | None:
        return near(storm_target(solved), player, skip=found.id)

    return store.puzzles.storm_answer(run, given, STORM_PENALTY, next_puzzle), given


# --- what a verdict shows ---------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """How a guess splits the codes still possible."""

    guess: Code
    bars: list
    groups: int  # replies that can happen, the winning one included
    largest: int  # the largest class that is not won at once
    candidate: bool
    expected: float


def split(found: StoredPuzzle, guess: Code, total: int) -> Split:
    size = found.size
    cands = candidates_of(size, found.history)
    counts = feedback_table(size).class_counts(np.array([guess.index(size)]), cands)[0]
    partition = {Feedback.decode(fb, size.pegs): int(c) for fb, c in enumerate(counts) if c}
    solved = Feedback(size.pegs, 0)
    return Split(
        guess,
        partition_bars(partition, size.pegs),
        len(partition),
        max((c for r, c in partition.items() if r != solved), default=0),
        solved in partition,
        total / found.codes,
    )


def why(found: StoredPuzzle, best: Split, mine: Split, solved: bool) -> str:
    """One sentence saying why the best guess is best."""
    n = found.codes
    if solved and len(found.best) == 1:
        return gettext(
            "Your guess is the best: it splits the %(codes)d codes into %(groups)d groups, the largest of %(largest)d.",
            codes=n,
            groups=mine.groups,
            largest=mine.largest,
        )
    if solved:
        return gettext(
            "Your guess is one of the best: it splits the %(codes)d codes into %(groups)d groups, the largest of "
            "%(largest)d.",
            codes=n,
            groups=mine.groups,
            largest=mine.largest,
        )
    if mine.groups == 1 and not mine.candidate:
        return gettext(
            "Your guess cannot tell the %(codes)d codes apart: every one of them would give it the same reply.",
            codes=n,
        )
    figures = {
        "best": best.guess,
        "codes": n,
        "groups": best.groups,
        "largest": best.largest,
        "mine": mine.groups,
        "my_largest": mine.largest,
    }
    if not best.candidate:
        return gettext(
            "%(best)s cannot be the secret, but it splits the %(codes)d codes into %(groups)d groups, the largest "
            "of %(largest)d; yours makes %(mine)d, the largest of %(my_largest)d.",
            **figures,
        )
    return gettext(
        "%(best)s could be the secret and splits the %(codes)d codes into %(groups)d groups, the largest of "
        "%(largest)d; yours makes %(mine)d, the largest of %(my_largest)d.",
        **figures,
    )


def verdict(found: StoredPuzzle, given: store.puzzles.Answer) -> dict:
    """What the verdict page and the API show of an answer."""
    guess = Code.parse(given.guess, found.size)
    mine = split(found, guess, given.total)
    best_guess = guess if given.solved else found.best[0]
    best = split(found, best_guess, found.total)
    # Both charts show the same replies: those either guess can get.
    shown = [i for i, (a, b) in enumerate(zip(mine.bars, best.bars)) if a["count"] or b["count"]]
    mine = dataclasses.replace(mine, bars=[mine.bars[i] for i in shown])
    best = dataclasses.replace(best, bars=[best.bars[i] for i in shown])
    return {
        "answer": given,
        "guess": guess,
        "solved": given.solved,
        "expected": given.total / found.codes,
        "best_expected": found.total / found.codes,
        "mine": mine,
        "best": best,
        "why": why(found, best, mine, given.solved),
        "change": round(given.rating_after) - round(given.rating_before),
    }


def dashboard(player: str | None) -> dict | None:
    """A player's puzzle dashboard: the rating over time (after each rated
    answer), and how often each theme was solved; None before any answer."""
    if not player:
        return None
    answers = store.puzzles.answers_of(player, limit=DASHBOARD_ANSWERS)
    if not answers:
        return None
    rated = [a.rating_after for a, _ in reversed(answers) if a.rated]
    themes: dict[str, list[int]] = {}
    for a, p in answers:
        for theme in p.themes:
            tally = themes.setdefault(theme, [0, 0])
            tally[0] += 1
            tally[1] += int(a.solved)
    record = store.puzzles.player(player)
    given_rated = [a for a, _ in answers if a.rated]
    return {
        "rating": round(rating_of(player).rating),
        "answered": len(answers),
        "solved": sum(1 for a, _ in answers if a.solved),
        # Apart: rated answers, answers given again, and the streak and storm runs.
        "rated": len(given_rated),
        "rated_solved": sum(1 for a in given_rated if a.solved),
        "again": sum(1 for a, _ in answers if a.mode == "again"),
        "again_solved": sum(1 for a, _ in answers if a.mode == "again" and a.solved),
        "streak_answers": sum(1 for a, _ in answers if a.mode == "streak"),
        # A streak run ends at its miss; one under way counts too.
        "streak_runs": sum(1 for a, _ in answers if a.mode == "streak" and not a.solved and not a.seen)
        + int(record is not None and record.streak_puzzle is not None),
        "storm_answers": sum(1 for a, _ in answers if a.mode == "storm"),
        "storm_runs": store.puzzles.storm_runs(player),
        "best_storm": record.best_storm if record is not None else 0,
        "points": [START.rating, *rated],
        "themes": sorted(((t, n, s) for t, (n, s) in themes.items()), key=lambda x: (-x[1], x[0])),
        "best_streak": record.best_streak if record is not None else 0,
    }
