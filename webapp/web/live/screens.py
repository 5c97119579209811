"""What a live session's screens show, worked out once for the pages, the
event streams and the JSON API: the position at the class's step, the
class's proposals beside the strategy's choice (each with E, the expected
number of guesses from there, as the review measures it), the summary at
the end, and the report a teacher keeps."""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass

import segno
from flask import current_app, url_for
from flask_babel import gettext
from markupsafe import Markup

from ... import jobs, store
from ...computations import proposal_params
from ...engine import Code, GameSize, get_strategy
from ...engine.position import partition_bars
from ..positions import explained

LiveSession = store.live.LiveSession
# The proposals the projector lists, most voted first.
SHOWN_PROPOSALS = 8
# The names the projector lists (the room panel lists everyone).
SHOWN_NAMES = 40


@dataclass
class Value:
    """E of one guess at one step: its figure once worked out, how exact."""

    guess: Code
    expected: float | None = None
    exact: bool = False
    known: bool = False
    pending: bool = False  # still being worked out in the background


def value_of(size: GameSize, history, guess: Code) -> Value:
    """E of ``guess`` after ``history``, as the review has it (worked out
    here when that is quick, else in the background)."""
    try:
        job = jobs.get("proposal", proposal_params(size, history, guess))
    except jobs.Busy:
        return Value(guess, pending=True)
    if not job.done:
        return Value(guess, pending=not job.failed)
    return Value(guess, job.result["expected"], job.result["exact"], job.result["known"])


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


def tally(session: LiveSession, position) -> dict:
    """The class's proposals for the next guess, most voted first, each
    with E, beside the strategy's choice."""
    counts = store.live.votes(session.code).get(session.step, Counter())
    rows = ranked(counts)[:SHOWN_PROPOSALS]
    size, history = session.size, session.history
    choice = position.suggestion.guess if position.suggestion else None
    values = {guess: value_of(size, history, Code.parse(guess, size)) for guess, _ in rows}
    mine = value_of(size, history, choice) if choice is not None else None
    return {
        "votes": rows,
        "voters": sum(counts.values()),
        "most": max(counts.values(), default=0),
        "worth": values,
        "choice": choice,
        "choice_value": mine,
        "favourite": rows[0][0] if rows else None,
        "pending": any(v.pending for v in values.values()) or (mine is not None and mine.pending),
    }


def summary(session: LiveSession) -> dict:
    """Step by step, the class's favourite proposal against the strategy's
    guess, and what the favourites would have cost over the whole game."""
    size = session.size
    counts = store.live.votes(session.code)
    rows: list[dict] = []
    extra, compared, pending = 0.0, 0, False
    for step, (guess, _) in enumerate(session.history):
        voted = counts.get(step)
        if not voted:
            rows.append({"step": step, "guess": guess, "favourite": None})
            continue
        favourite, votes = ranked(voted)[0]
        before = session.line[:step]
        mine = value_of(size, before, guess)
        theirs = value_of(size, before, Code.parse(favourite, size))
        difference = None
        pending = pending or mine.pending or theirs.pending
        if mine.expected is not None and theirs.expected is not None:
            difference = theirs.expected - mine.expected
            extra += difference
            compared += 1
        rows.append(
            {
                "step": step,
                "guess": guess,
                "value": mine,
                "favourite": favourite,
                "favourite_votes": votes,
                "voters": sum(voted.values()),
                "favourite_value": theirs,
                "difference": difference,
            }
        )
    return {"rows": rows, "extra": extra, "compared": compared, "pending": pending}


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


def teacher_context(session: LiveSession, room_oob: bool = False) -> dict:
    """What the projector shows; ``room_oob``: the room panel too, for htmx
    to swap in where it stands (an event or a fragment, not a whole page)."""
    context = screen(session)
    context["room_oob"] = room_oob
    context["tally"] = tally(session, context["position"])
    context["summary"] = summary(session) if context["solved"] else None
    context["roster"] = roster(session)
    context["steps"] = stepper(session, context["position"])
    suggestion = context["position"].suggestion
    context["bars"] = partition_bars(suggestion.partition, session.size.pegs) if suggestion else []
    return context


# --- the report a teacher keeps ------------------------------------------------------------------


@dataclass
class Ballot:
    """One student's proposal at one step, beside the strategy's guess there."""

    step: int  # counted from 1, as the guesses are
    seat: int
    nickname: str
    guess: str
    value: Value
    strategy_guess: str | None
    strategy_value: Value | None

    @property
    def difference(self) -> float | None:
        """E of the proposal less E of the strategy's guess (below 0: better)."""
        mine, theirs = self.value.expected, self.strategy_value.expected if self.strategy_value else None
        return None if mine is None or theirs is None else mine - theirs

    @property
    def as_good(self) -> bool:
        difference = self.difference
        return difference is not None and difference <= 0.0005


def report(session: LiveSession) -> dict:
    """Every proposal of every student still in the session, step by step,
    with E of it and of the strategy's guess at that step; per step the
    proposals counted; per student how many were as good as the strategy's."""
    size, strategy = session.size, get_strategy(session.strategy)
    choices: dict[int, tuple[str | None, Value | None]] = {}
    values: dict[tuple[int, str], Value] = {}
    ballots: list[Ballot] = []
    for step, student, guess in store.live.ballots(session.code):
        if step not in choices:
            before = session.line[:step]
            if step < len(session.line):
                chosen: Code | None = session.line[step][0]
            else:
                position = explained(strategy, size, before)
                chosen = position.suggestion.guess if position.suggestion else None
            choices[step] = (str(chosen), value_of(size, before, chosen)) if chosen is not None else (None, None)
        if (step, guess) not in values:
            values[step, guess] = value_of(size, session.line[:step], Code.parse(guess, size))
        chosen_text, chosen_value = choices[step]
        ballots.append(
            Ballot(step + 1, student.seat, student.nickname, guess, values[step, guess], chosen_text, chosen_value)
        )
    steps = []
    for step, (chosen_text, chosen_value) in sorted(choices.items()):
        counts = Counter(b.guess for b in ballots if b.step == step + 1)
        steps.append(
            {
                "step": step + 1,
                "strategy_guess": chosen_text,
                "strategy_value": chosen_value,
                "proposals": [(guess, n, values[step, guess]) for guess, n in ranked(counts)],
                "most": max(counts.values(), default=0),
            }
        )
    people = []
    for student in store.live.students(session.code):
        mine = [b for b in ballots if b.seat == student.seat]
        people.append({"student": student, "proposals": len(mine), "as_good": sum(b.as_good for b in mine)})
    pending = any(b.value.pending or (b.strategy_value is not None and b.strategy_value.pending) for b in ballots)
    return {"ballots": ballots, "steps": steps, "people": people, "pending": pending}


CSV_COLUMNS = ("step", "student", "nickname", "guess", "expected", "strategy_guess", "strategy_expected", "difference")


def figure(value) -> str:
    return "" if value is None else f"{value:.4f}"


def cell(text: str) -> str:
    """Text a spreadsheet shows as text, never runs as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def report_csv(report: dict) -> str:
    """One row per student and step voted (E left empty while it is worked out)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for b in report["ballots"]:
        theirs = b.strategy_value.expected if b.strategy_value else None
        row = (
            b.step,
            b.seat,
            cell(b.nickname),
            b.guess,
            figure(b.value.expected),
            b.strategy_guess or "",
            figure(theirs),
        )
        writer.writerow((*row, figure(b.difference)))
    return out.getvalue()
