"""What a live session's screens show, worked out once for the pages, the
event streams and the JSON API: the position at the class's step, the
class's proposals beside the strategy's choice (each with E, the expected
number of guesses from there, as the review measures it), each student's
own result, the scoreboard, the summary at the end of a game, and the
report of the whole lesson a teacher keeps.

Every figure is exact or a bound that says so (:class:`Figure`): the
review's estimate is a lower bound, the best strategy known's total an
upper one, and where the optimum is known no guess is shown below it."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass

import segno
from cachetools import LRUCache
from flask import current_app, url_for
from flask_babel import gettext
from markupsafe import Markup

from ... import jobs, store
from ...computations import proposal_params
from ...engine import Code, GameSize, get_strategy
from ...engine.position import partition_bars
from ..positions import explained

LiveSession = store.live.LiveSession
LiveGame = store.live.LiveGame
Student = store.live.Student
# The proposals the projector lists, most voted first.
SHOWN_PROPOSALS = 8
# The names the projector lists (the room panel lists everyone).
SHOWN_NAMES = 40
# The scoreboard the projector shows after each step, and the podium's places.
TOP_PLACES = 5
PODIUM_PLACES = 3
# Points: a best guess scores POINTS_BEST, and one point less for every
# hundredth of a guess it needs more on average, but never below
# POINTS_TAKING_PART, which is also what a proposal scores whose E is
# only bounded.
POINTS_BEST = 100
POINTS_TAKING_PART = 10
# Two figures this close are the same (E is kept to six decimals).
SAME = 0.0005

EXACT, AT_LEAST, AT_MOST = "exact", "at_least", "at_most"


@dataclass(frozen=True)
class Figure:
    """A number of guesses: exact, or a bound (``at_least`` / ``at_most``)."""

    value: float
    bound: str = EXACT

    @property
    def exact(self) -> bool:
        return self.bound == EXACT

    def __sub__(self, other: Figure) -> Figure | None:
        """The difference, as exact as its terms allow (None: no bound holds)."""
        value = self.value - other.value
        if self.exact and other.exact:
            return Figure(value)
        if self.bound in (EXACT, AT_LEAST) and other.bound in (EXACT, AT_MOST):
            return Figure(value, AT_LEAST)
        if self.bound in (EXACT, AT_MOST) and other.bound in (EXACT, AT_LEAST):
            return Figure(value, AT_MOST)
        return None

    def rounded(self, places: int = 2) -> Figure:
        return Figure(round(self.value, places), self.bound)


@dataclass
class Value:
    """E of one guess at one step, and V there, once worked out."""

    guess: Code
    expected: Figure | None = None
    best: Figure | None = None
    pending: bool = False  # still being worked out in the background

    @property
    def exact(self) -> bool:
        return self.expected is not None and self.expected.exact

    @property
    def points(self) -> int | None:
        """What the proposal scores (None while it is worked out)."""
        if self.expected is None or self.best is None:
            return None
        if not (self.expected.exact and self.best.exact):
            return POINTS_TAKING_PART
        lost = max(0.0, self.expected.value - self.best.value)
        return max(POINTS_TAKING_PART, POINTS_BEST - round(100 * lost))


def value_of(size: GameSize, history, guess: Code) -> Value:
    """E of ``guess`` after ``history``, as the review has it (worked out
    here when that is quick, else in the background)."""
    try:
        job = jobs.get("proposal-value", proposal_params(size, history, guess))
    except jobs.Busy:
        return Value(guess, pending=True)
    if not job.done:
        return Value(guess, pending=not job.failed)
    result = job.result
    return Value(
        guess,
        Figure(result["expected"], result["expected_bound"]),
        Figure(result["best_expected"], result["best_bound"]),
    )


def screen(session: LiveSession) -> dict:
    """What every screen of the session shows at its step."""
    size, history = session.size, session.history
    strategy = get_strategy(session.strategy)
    position = explained(strategy, size, history)
    last = explained(strategy, size, history[:-1]) if history else None
    bars = partition_bars(last.suggestion.partition, size.pegs) if last is not None and last.suggestion else []
    return {
        "session": session,
        "size": size,
        "strategy": strategy,
        "history": history,
        "position": position,
        "last_bars": bars,
        "solved": position.solved,
        "events_url": url_for("live.events", code=session.code, after=session.version),
    }


def ranked(counts: Counter[str]) -> list[tuple[str, int]]:
    """Proposals, most voted first, ties in code order."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def favourite_of(counts: Counter[str], values: dict[str, Value], choice: str | None) -> tuple[str | None, list[str]]:
    """The class's favourite and the proposals tied with it for the most
    votes. Of tied proposals the favourite is the one with the least exact
    E, then the strategy's own choice, then the first in code order (a
    proposal whose E is only bounded or still worked out comes after those
    measured exactly)."""
    most = max(counts.values(), default=0)
    tied = sorted(guess for guess, n in counts.items() if n == most and most)
    if not tied:
        return None, []

    def key(guess: str):
        value = values.get(guess)
        exact = value is not None and value.exact and value.expected is not None
        return (
            not exact,
            round(value.expected.value, 6) if exact and value and value.expected else 0.0,
            guess != choice,
            guess,
        )

    return min(tied, key=key), tied


def tally(session: LiveSession, position) -> dict:
    """The class's proposals for the next guess, most voted first, each
    with E, beside the strategy's choice."""
    counts = store.live.votes(session.code, session.game).get(session.step, Counter())
    rows = ranked(counts)[:SHOWN_PROPOSALS]
    size, history = session.size, session.history
    choice = position.suggestion.guess if position.suggestion else None
    most = max(counts.values(), default=0)
    tied = [guess for guess, n in ranked(counts) if n == most][:SHOWN_PROPOSALS]
    values = {guess: value_of(size, history, Code.parse(guess, size)) for guess, _ in rows}
    values.update({guess: value_of(size, history, Code.parse(guess, size)) for guess in tied if guess not in values})
    mine = value_of(size, history, choice) if choice is not None else None
    favourite, tied_all = favourite_of(Counter({g: most for g in tied}), values, str(choice) if choice else None)
    return {
        "votes": rows,
        "voters": sum(counts.values()),
        "most": most,
        "worth": values,
        "choice": choice,
        "choice_value": mine,
        "favourite": favourite,
        "tied": len([g for g, n in counts.items() if n == most]) if most else 0,
        "difference": difference(values[favourite], mine) if favourite and mine else None,
        "pending": any(v.pending for v in values.values()) or (mine is not None and mine.pending),
    }


def difference(theirs: Value, mine: Value) -> Figure | None:
    """E of a proposal less E of the strategy's guess, as exact as they are."""
    if theirs.expected is None or mine.expected is None:
        return None
    return theirs.expected - mine.expected


def summary(session: LiveSession) -> dict:
    """Step by step, the class's favourite proposal against the strategy's
    guess, and what the favourites would have cost over the whole game: the
    sum of the differences as each row shows them (to two decimals), over
    the steps measured exactly."""
    size = session.size
    counts = store.live.votes(session.code, session.game)
    rows: list[dict] = []
    extra, compared, bounded, pending = 0.0, 0, 0, False
    for step, (guess, _) in enumerate(session.history):
        voted = counts.get(step)
        if not voted:
            rows.append({"step": step, "guess": guess, "favourite": None})
            continue
        before = session.line[:step]
        mine = value_of(size, before, guess)
        most = max(voted.values())
        tied = [g for g, n in ranked(voted) if n == most][:SHOWN_PROPOSALS]
        values = {g: value_of(size, before, Code.parse(g, size)) for g in tied}
        favourite, _ = favourite_of(Counter({g: most for g in tied}), values, str(guess))
        assert favourite is not None
        theirs = values[favourite]
        pending = pending or mine.pending or theirs.pending
        gap = difference(theirs, mine)
        shown = gap.rounded() if gap is not None else None
        if shown is not None and shown.exact:
            extra += shown.value
            compared += 1
        elif shown is not None:
            bounded += 1
        rows.append(
            {
                "step": step,
                "guess": guess,
                "value": mine,
                "favourite": favourite,
                "favourite_votes": most,
                "tied": len([g for g, n in voted.items() if n == most]),
                "voters": sum(voted.values()),
                "favourite_value": theirs,
                "difference": shown,
            }
        )
    return {"rows": rows, "extra": round(extra, 2), "compared": compared, "bounded": bounded, "pending": pending}


def qr_svg(url: str) -> Markup:
    """The join link as a QR code, an inline SVG (dark modules on a light
    ground whatever the theme, as scanners expect)."""
    svg = segno.make(url, error="m").svg_inline(
        scale=6, border=2, dark="#000", light="#fff", omitsize=True, title=gettext("QR code of the join link")
    )
    return Markup(svg.replace("<svg ", '<svg role="img" class="qr" ', 1))


def stepper(session: LiveSession, position) -> dict:
    """The steps the teacher's buttons go to (None where a button is off)."""
    furthest = len(session.line) + (0 if position.solved or session.step < len(session.line) else 1)
    return {
        "first": 0 if session.step else None,
        "prev": session.step - 1 if session.step else None,
        "next": session.step + 1 if session.step + 1 <= max(furthest, len(session.line)) else None,
    }


def roster(session: LiveSession) -> dict:
    """Who is in the room: the students by seat, how many may join, whether it is locked."""
    students = store.live.students(session.code)
    shown = session.names != "hidden"
    return {
        "students": students,
        "shown": students[:SHOWN_NAMES] if shown else [],
        "most": int(current_app.config["LIVE_MAX_STUDENTS"]),
        "locked": session.locked,
        "names_shown": shown,
    }


# --- points ----------------------------------------------------------------------------------------


def lesson_games(session: LiveSession) -> list[LiveGame]:
    """Every game of the lesson so far, the current one last."""
    return [*store.live.past_games(session.code), store.live.current_game(session)]


def revealed(game: LiveGame, session: LiveSession) -> set[int]:
    """The steps of ``game`` whose proposals are settled: every step the
    class has gone past (all of a finished game's, with the last step too
    once the secret is found)."""
    if game.game != session.game:
        return set(range(game.step + 1))
    return set(range(session.step))


def strategy_choice(game: LiveGame, step: int) -> Code | None:
    """The strategy's guess at ``step`` of ``game``."""
    if step < len(game.line):
        return game.line[step][0]
    position = explained(get_strategy(game.strategy), game.size, game.line[:step])
    return position.suggestion.guess if position.suggestion else None


@dataclass
class Ballot:
    """One student's proposal at one step of one game, beside the strategy's guess there."""

    game: int
    step: int  # counted from 1, as the guesses are
    student: Student
    guess: str
    value: Value
    strategy_guess: str | None
    strategy_value: Value | None
    settled: bool  # the class has gone past this step

    @property
    def seat(self) -> int:
        return self.student.seat

    @property
    def difference(self) -> Figure | None:
        """E of the proposal less E of the strategy's guess (below 0: better)."""
        if self.strategy_value is None:
            return None
        return difference(self.value, self.strategy_value)

    @property
    def as_good(self) -> bool:
        """As good as the strategy's guess or better, by exact figures only."""
        gap = self.difference
        return gap is not None and gap.exact and gap.value <= SAME

    @property
    def points(self) -> int | None:
        return self.value.points if self.settled else None


def lesson_ballots(session: LiveSession, settled_only: bool = False) -> list[Ballot]:
    """Every proposal of the lesson (removed students' included), each with
    E of it and of the strategy's guess there."""
    games = {game.game: game for game in lesson_games(session)}
    choices: dict[tuple[int, int], tuple[str | None, Value | None]] = {}
    values: dict[tuple[int, int, str], Value] = {}
    out: list[Ballot] = []
    for number, step, student, guess in store.live.ballots(session.code):
        game = games.get(number)
        if game is None:
            continue
        settled = step in revealed(game, session)
        if settled_only and not settled:
            continue
        before = game.line[:step]
        if (number, step) not in choices:
            chosen = strategy_choice(game, step)
            choices[number, step] = (
                (str(chosen), value_of(game.size, before, chosen)) if chosen is not None else (None, None)
            )
        if (number, step, guess) not in values:
            values[number, step, guess] = value_of(game.size, before, Code.parse(guess, game.size))
        chosen_text, chosen_value = choices[number, step]
        out.append(
            Ballot(number, step + 1, student, guess, values[number, step, guess], chosen_text, chosen_value, settled)
        )
    return out


# Scoreboards by session, the step and the room they were worked out for:
# a class's phones all ask at once after a step, and one of them works it out.
_boards: LRUCache = LRUCache(maxsize=256)
_boards_lock = threading.Lock()
_board_locks: LRUCache = LRUCache(maxsize=256)


def scoreboard(session: LiveSession) -> dict:
    """Every student still in the room with their points over the lesson's
    settled steps, most first (a rank shared by equal points)."""
    key = (session.code, session.step_version, session.room_version)
    with _boards_lock:
        kept = _boards.get(key)
        lock = _board_locks.get(key)
        if lock is None:
            lock = _board_locks[key] = threading.Lock()
    if kept is not None:
        return kept
    with lock:  # the first asker works it out; the others wait for it
        with _boards_lock:
            kept = _boards.get(key)
        return kept if kept is not None else worked_out_scoreboard(session, key)


def worked_out_scoreboard(session: LiveSession, key) -> dict:
    ballots = lesson_ballots(session, settled_only=True)
    points: Counter[int] = Counter()
    pending = False
    for b in ballots:
        if b.student.removed:
            continue
        if b.points is None:
            pending = True
        else:
            points[b.seat] += b.points
    students = store.live.students(session.code)
    ordered = sorted(students, key=lambda s: (-points[s.seat], s.seat))
    rows, rank = [], 0
    for i, student in enumerate(ordered):
        if i == 0 or points[student.seat] != points[ordered[i - 1].seat]:
            rank = i + 1
        rows.append({"rank": rank, "student": student, "points": points[student.seat]})
    board = {"rows": rows, "pending": pending, "scored": any(points.values())}
    if not pending:
        with _boards_lock:
            _boards[key] = board
    return board


# --- each student's own result ------------------------------------------------------------------


def my_results(session: LiveSession, student: Student, token: str) -> dict:
    """A student's proposals over the lesson's settled steps, each with its
    E beside the strategy's and the best possible, their points and place."""
    mine = store.live.votes_of(session.code, token)
    games = {game.game: game for game in lesson_games(session)}
    rows: list[dict] = []
    for (number, step), guess in sorted(mine.items()):
        game = games.get(number)
        if game is None or step not in revealed(game, session):
            continue
        before = game.line[:step]
        value = value_of(game.size, before, Code.parse(guess, game.size))
        chosen = strategy_choice(game, step)
        theirs = value_of(game.size, before, chosen) if chosen is not None else None
        rows.append(
            {
                "game": number,
                "step": step + 1,
                "guess": guess,
                "value": value,
                "strategy": get_strategy(game.strategy),
                "strategy_guess": str(chosen) if chosen is not None else None,
                "strategy_value": theirs,
                "points": value.points,
            }
        )
    board = scoreboard(session) if session.scoring else None
    place = next((r for r in board["rows"] if r["student"].seat == student.seat), None) if board else None
    return {
        "student": student,
        "rows": rows,
        "last": rows[-1] if rows and rows[-1]["game"] == session.game and rows[-1]["step"] == session.step else None,
        "game_rows": [r for r in rows if r["game"] == session.game],
        "points": sum(r["points"] or 0 for r in rows),
        "place": place,
        "of": len(board["rows"]) if board else 0,
        "pending": any(
            r["value"].pending or (r["strategy_value"] is not None and r["strategy_value"].pending) for r in rows
        ),
    }


# --- the projector --------------------------------------------------------------------------------


def teacher_context(session: LiveSession, room_oob: bool = False) -> dict:
    """What the projector shows; ``room_oob``: the room panel too, for htmx
    to swap in where it stands (an event or a fragment, not a whole page)."""
    context = screen(session)
    context["room_oob"] = room_oob
    context["tally"] = tally(session, context["position"])
    context["summary"] = summary(session) if context["solved"] else None
    context["roster"] = roster(session)
    context["steps"] = stepper(session, context["position"])
    context["board"] = scoreboard(session) if session.scoring else None
    suggestion = context["position"].suggestion
    context["bars"] = partition_bars(suggestion.partition, session.size.pegs) if suggestion else []
    return context


# --- the report a teacher keeps ------------------------------------------------------------------


def report(session: LiveSession) -> dict:
    """The lesson game by game: every proposal of every student (removed
    ones marked), with E of it and of the strategy's guess at that step;
    per step the proposals counted; per student how many were as good as
    the strategy's (by exact figures) and their points."""
    ballots = lesson_ballots(session)
    games = []
    for game in lesson_games(session):
        mine = [b for b in ballots if b.game == game.game]
        steps = []
        for step in sorted({b.step for b in mine}):
            here = [b for b in mine if b.step == step]
            counts = Counter(b.guess for b in here if not b.student.removed)
            values = {b.guess: b.value for b in here}
            steps.append(
                {
                    "step": step,
                    "strategy_guess": here[0].strategy_guess,
                    "strategy_value": here[0].strategy_value,
                    "proposals": [(guess, n, values[guess]) for guess, n in ranked(counts)],
                    "most": max(counts.values(), default=0),
                }
            )
        position = explained(get_strategy(game.strategy), game.size, game.history)
        games.append(
            {
                "game": game.game,
                "size": game.size,
                "strategy": get_strategy(game.strategy),
                "guesses": len(game.history),
                "solved": position.solved,
                "steps": steps,
            }
        )
    people = []
    for student in store.live.students(session.code, removed=True):
        mine = [b for b in ballots if b.seat == student.seat]
        scored = [b.points for b in mine if b.points is not None]
        people.append(
            {
                "student": student,
                "proposals": len(mine),
                "as_good": sum(b.as_good for b in mine),
                "points": sum(scored),
            }
        )
    pending = any(b.value.pending or (b.strategy_value is not None and b.strategy_value.pending) for b in ballots)
    return {"ballots": ballots, "games": games, "people": people, "pending": pending, "scoring": session.scoring}


def figure_value(figure: Figure | None) -> float | None:
    return None if figure is None else figure.value


def figure_bound(figure: Figure | None) -> str | None:
    return None if figure is None else figure.bound


def report_rows(report: dict, name) -> list[dict]:
    """The report's proposals as plain rows (the API, the CSV and the
    spreadsheet): ``name(student)`` is how the room names the student."""
    rows = []
    for b in report["ballots"]:
        theirs = b.strategy_value.expected if b.strategy_value else None
        gap = b.difference
        rows.append(
            {
                "game": b.game,
                "step": b.step,
                "student": b.seat,
                "nickname": name(b.student),
                "removed": b.student.removed,
                "guess": b.guess,
                "expected": figure_value(b.value.expected),
                "expected_bound": figure_bound(b.value.expected),
                "strategy_guess": b.strategy_guess,
                "strategy_expected": figure_value(theirs),
                "strategy_expected_bound": figure_bound(theirs),
                "best_expected": figure_value(b.value.best),
                "best_expected_bound": figure_bound(b.value.best),
                "difference": figure_value(gap),
                "difference_bound": figure_bound(gap),
                "points": b.points,
            }
        )
    return rows
