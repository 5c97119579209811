"""Best-guess puzzles: the set (loaded from the file the app ships), each
player's rating and streak, the answers they gave, when each client was
last shown a puzzle's best guesses, and the puzzle of each day. How a
rating moves is the caller's rule (``rate``); the store reads both ratings
and writes the new ones in one transaction."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import sqlalchemy as sa

from ..engine import Code, GameSize
from ..engine.codes import History, format_history, parse_history
from ..engine.puzzles import Puzzle
from .database import connection, locked, transaction, upsert
from .games import size_of, size_values
from .tables import (
    puzzle_answers,
    puzzle_days,
    puzzle_hints,
    puzzle_players,
    puzzle_seen,
    puzzle_storms,
    puzzles,
)

# Rows inserted per statement when a set is loaded.
LOAD_BATCH = 500


@dataclass(frozen=True)
class Rating:
    rating: float
    deviation: float


@dataclass(frozen=True)
class StoredPuzzle:
    id: str
    size: GameSize
    history: History
    codes: int
    total: int
    best: tuple[Code, ...]
    second: int
    themes: tuple[str, ...]
    rating: Rating
    plays: int = 0
    solves: int = 0


@dataclass(frozen=True)
class PlayerRecord:
    player: str
    rating: Rating
    streak: int = 0
    streak_puzzle: str | None = None
    best_streak: int = 0
    best_storm: int = 0


@dataclass(frozen=True)
class Storm:
    """A Puzzle Storm run: ``puzzle`` is the one asked now (None once over)."""

    id: str
    player: str
    started_at: float
    deadline: float
    solved: int
    missed: int
    puzzle: str | None
    over: bool


@dataclass(frozen=True)
class Answer:
    id: str
    player: str
    puzzle: str
    guess: str
    total: int
    solved: bool
    mode: str
    rated: bool
    rating_before: float
    rating_after: float
    at: float
    seen: bool = False  # its best guesses had been shown to its client just before


def _puzzle(row) -> StoredPuzzle:
    size = size_of(row)
    return StoredPuzzle(
        row.id,
        size,
        tuple(parse_history(row.history, size)) if row.history else (),
        row.codes,
        row.total,
        tuple(Code.parse(c, size) for c in row.best.split()),
        row.second,
        tuple(row.themes.split()),
        Rating(row.rating, row.deviation),
        row.plays,
        row.solves,
    )


def _answer(row) -> Answer:
    return Answer(
        row.id,
        row.player,
        row.puzzle,
        row.guess,
        row.total,
        bool(row.solved),
        row.mode,
        bool(row.rated),
        row.rating_before,
        row.rating_after,
        row.at,
        bool(row.seen),
    )


def load(made: Iterable[Puzzle], deviation: float, shipped: bool = True) -> int:
    """Add the puzzles of a set the table does not hold yet (each at its
    first rating and ``deviation``); how many were added. A ``shipped`` set
    (the one the app ships) replaces the shipped set before it: those of its
    puzzles the new one lacks are retired, never served again."""
    made = list(made)
    db = connection()
    have = set(db.execute(sa.select(puzzles.c.id)).scalars())
    rows = [
        {
            "id": p.key,
            **size_values(p.size),
            "history": format_history(p.history),
            "codes": p.codes,
            "total": p.total,
            "best": " ".join(str(c) for c in p.best),
            "second": p.second,
            "themes": " ".join(p.themes),
            "rating": float(p.rating),
            "deviation": deviation,
            "shipped": int(shipped),
        }
        for p in made
        if p.key not in have
    ]
    with transaction() as db:
        for start in range(0, len(rows), LOAD_BATCH):  # one statement of many rows: one round trip each
            batch = rows[start : start + LOAD_BATCH]
            db.execute(upsert(puzzles).values(batch).on_conflict_do_nothing(index_elements=["id"]))
        if shipped:
            keep = {p.key for p in made}
            held = db.execute(sa.select(puzzles.c.id, puzzles.c.retired).where(puzzles.c.shipped == 1)).all()
            for retired, ids in (
                (1, [r.id for r in held if r.id not in keep and not r.retired]),
                (0, [r.id for r in held if r.id in keep and r.retired]),
            ):
                for start in range(0, len(ids), LOAD_BATCH):
                    batch = ids[start : start + LOAD_BATCH]
                    db.execute(puzzles.update().where(puzzles.c.id.in_(batch)).values(retired=retired))
    return len(rows)


def theme_counts() -> dict[str, int]:
    """How many puzzles served have each theme."""
    counts: dict[str, int] = {}
    for themes in connection().execute(sa.select(puzzles.c.themes).where(puzzles.c.retired == 0)).scalars():
        for theme in themes.split():
            counts[theme] = counts.get(theme, 0) + 1
    return counts


def get(puzzle_id: str) -> StoredPuzzle | None:
    row = connection().execute(sa.select(puzzles).where(puzzles.c.id == puzzle_id)).first()
    return _puzzle(row) if row is not None else None


# A client shown puzzles' best guesses since a time: (client, time).
Sight = tuple[str, float]


def shown(sight: Sight):
    """The condition "the client was shown this puzzle's best guesses since then"."""
    client, since = sight
    return sa.exists().where(
        puzzle_seen.c.client == client, puzzle_seen.c.puzzle == puzzles.c.id, puzzle_seen.c.at >= since
    )


def near(
    rating: float,
    player: str | None,
    skip: str | None = None,
    least: float | None = None,
    unseen: Sight | None = None,
    theme: str | None = None,
) -> str | None:
    """The id of the puzzle rated nearest above ``rating`` (else nearest
    below) that ``player`` has not answered, other than ``skip``; with
    ``least``, only puzzles rated at least that; with ``unseen``, only those
    whose best guesses that client has not been shown since then; with
    ``theme``, only puzzles of that theme. Retired puzzles never."""
    answered = sa.exists().where(puzzle_answers.c.player == player, puzzle_answers.c.puzzle == puzzles.c.id)
    base = sa.select(puzzles.c.id).where(puzzles.c.retired == 0)
    if theme is not None:
        base = base.where((sa.literal(" ") + puzzles.c.themes + " ").like(f"% {theme} %"))
    if player is not None:
        base = base.where(~answered)
    if unseen is not None:
        base = base.where(~shown(unseen))
    if skip is not None:
        base = base.where(puzzles.c.id != skip)
    db = connection()
    above = db.execute(base.where(puzzles.c.rating >= rating).order_by(puzzles.c.rating).limit(1)).scalar()
    if above is not None:
        return above
    below = base.where(puzzles.c.rating < rating)
    if least is not None:
        below = below.where(puzzles.c.rating >= least)
    return db.execute(below.order_by(puzzles.c.rating.desc()).limit(1)).scalar()


def saw(client: str, puzzle_id: str, now: float, forget_before: float, db=None) -> None:
    """Keep that ``client`` was shown the puzzle's best guesses ``now``, and
    forget every sight older than ``forget_before``."""
    db = db or connection()
    insert = upsert(puzzle_seen).values(client=client, puzzle=puzzle_id, at=now)
    db.execute(insert.on_conflict_do_update(index_elements=["client", "puzzle"], set_={"at": insert.excluded.at}))
    db.execute(puzzle_seen.delete().where(puzzle_seen.c.at < forget_before))


def seen_since(client: str, puzzle_id: str, since: float) -> bool:
    """Whether ``client`` was shown the puzzle's best guesses at ``since`` or later."""
    query = sa.select(puzzles.c.id).where(puzzles.c.id == puzzle_id, shown((client, since)))
    return connection().execute(query).first() is not None


def player(token: str) -> PlayerRecord | None:
    row = connection().execute(sa.select(puzzle_players).where(puzzle_players.c.player == token)).first()
    if row is None:
        return None
    return PlayerRecord(
        row.player, Rating(row.rating, row.deviation), row.streak, row.streak_puzzle, row.best_streak, row.best_storm
    )


def answered(token: str, puzzle_id: str) -> bool:
    query = sa.select(puzzle_answers.c.id).where(puzzle_answers.c.player == token, puzzle_answers.c.puzzle == puzzle_id)
    return connection().execute(query.limit(1)).first() is not None


# (player's rating, puzzle's rating, score: 1 solved, 0.5 solved with a hint, 0 missed) → both after.
Rate = Callable[[Rating, Rating, float], tuple[Rating, Rating]]


# Answers that never move a rating.
UNRATED_MODES = ("streak", "storm")


def rated_answers(db, token: str, most: int) -> int:
    """How many rated answers ``token`` has given, counted up to ``most``."""
    mine = sa.select(puzzle_answers.c.id).where(puzzle_answers.c.player == token, puzzle_answers.c.rated == 1)
    return db.execute(sa.select(sa.func.count()).select_from(mine.limit(most).subquery())).scalar_one()


def record_answer(
    token: str,
    puzzle_id: str,
    guess: str,
    total: int,
    solved: bool,
    mode: str,
    now: float,
    start: Rating,
    rate: Rate,
    next_streak_puzzle: Callable[[int], str | None] | None = None,
    provisional: int = 0,
    sight: Sight | None = None,
) -> Answer:
    """Keep an answer. The first answer of ``token`` to this puzzle, unless
    in a streak or seen, is rated: ``rate(player's, puzzle's, solved)`` gives
    both new ratings (a new player starts at ``start``), and the puzzle takes
    its own only once the player has ``provisional`` rated answers before
    this one; a puzzle solved after a hint scores a draw. In a streak, a solved puzzle adds one and asks
    ``next_streak_puzzle(streak)``; a miss ends it. With ``sight`` (client,
    since), an answer to a puzzle whose best guesses that client was shown
    since then is seen: never rated, and in a streak neither counted nor a
    miss (the streak goes on to ``next_streak_puzzle`` of the same count);
    either way the client has now been shown them."""
    with transaction() as db:
        mine = db.execute(locked(sa.select(puzzle_players).where(puzzle_players.c.player == token))).first()
        if mine is None:
            db.execute(
                puzzle_players.insert().values(
                    player=token, rating=start.rating, deviation=start.deviation, touched_at=now
                )
            )
            mine = db.execute(sa.select(puzzle_players).where(puzzle_players.c.player == token)).one()
        row = db.execute(locked(sa.select(puzzles).where(puzzles.c.id == puzzle_id))).one()
        given_before = db.execute(
            sa.select(puzzle_answers.c.id)
            .where(puzzle_answers.c.player == token, puzzle_answers.c.puzzle == puzzle_id)
            .limit(1)
        ).first()
        peeked = (  # only a first answer: one given again is not rated anyway
            given_before is None
            and sight is not None
            and db.execute(sa.select(puzzles.c.id).where(puzzles.c.id == puzzle_id, shown(sight))).first() is not None
        )
        rated = given_before is None and mode not in UNRATED_MODES and not peeked
        before = Rating(mine.rating, mine.deviation)
        after = before
        changes: dict = {"touched_at": now}
        if rated:
            hinted = hint_of(token, puzzle_id, db) is not None
            score = (0.5 if hinted else 1.0) if solved else 0.0
            after, puzzle_after = rate(before, Rating(row.rating, row.deviation), score)
            changes.update(rating=after.rating, deviation=after.deviation)
            counted: dict = {"plays": puzzles.c.plays + 1, "solves": puzzles.c.solves + int(solved)}
            if rated_answers(db, token, provisional) >= provisional:
                counted.update(rating=puzzle_after.rating, deviation=puzzle_after.deviation)
            db.execute(puzzles.update().where(puzzles.c.id == puzzle_id).values(**counted))
        if mode == "streak":
            if peeked:
                changes.update(streak_puzzle=next_streak_puzzle(mine.streak) if next_streak_puzzle else None)
            elif solved:
                streak = mine.streak + 1
                changes.update(
                    streak=streak,
                    best_streak=max(mine.best_streak, streak),
                    streak_puzzle=next_streak_puzzle(streak) if next_streak_puzzle else None,
                )
            else:
                changes.update(streak=0, streak_puzzle=None)
        db.execute(puzzle_players.update().where(puzzle_players.c.player == token).values(**changes))
        given = Answer(
            new_answer_id(),
            token,
            puzzle_id,
            guess,
            total,
            solved,
            mode,
            rated,
            before.rating,
            after.rating,
            now,
            peeked,
        )
        insert_answer(db, given)
        if sight is not None:
            saw(sight[0], puzzle_id, now, sight[1], db)
    return given


def new_answer_id() -> str:
    return secrets.token_urlsafe(9)


def insert_answer(db, given: Answer) -> None:
    db.execute(
        puzzle_answers.insert().values(
            id=given.id,
            player=given.player,
            puzzle=given.puzzle,
            guess=given.guess,
            total=given.total,
            solved=int(given.solved),
            mode=given.mode,
            rated=int(given.rated),
            rating_before=given.rating_before,
            rating_after=given.rating_after,
            at=given.at,
            seen=int(given.seen),
        )
    )


def hint_of(token: str, puzzle_id: str, db=None) -> str | None:
    """The theme a hint showed ``token`` on this puzzle, if it took one."""
    query = sa.select(puzzle_hints.c.theme).where(puzzle_hints.c.player == token, puzzle_hints.c.puzzle == puzzle_id)
    return (db or connection()).execute(query).scalar()


def take_hint(token: str, puzzle_id: str, theme: str, now: float) -> str:
    """Keep that ``token`` took a hint on this puzzle (the first one stays); the theme it shows."""
    with transaction() as db:
        insert = upsert(puzzle_hints).values(player=token, puzzle=puzzle_id, theme=theme, at=now)
        db.execute(insert.on_conflict_do_nothing(index_elements=["player", "puzzle"]))
        return db.execute(
            sa.select(puzzle_hints.c.theme).where(puzzle_hints.c.player == token, puzzle_hints.c.puzzle == puzzle_id)
        ).scalar_one()


# --- Puzzle Storm -----------------------------------------------------------------------------


def _storm(row) -> Storm:
    return Storm(row.id, row.player, row.started_at, row.deadline, row.solved, row.missed, row.puzzle, bool(row.over))


def start_storm(token: str, first: str, now: float, seconds: float, start: Rating) -> Storm:
    """Begin a storm run of ``seconds`` at ``first`` (one under way is ended)."""
    storm_id = secrets.token_urlsafe(9)
    with transaction() as db:
        db.execute(
            upsert(puzzle_players)
            .values(player=token, rating=start.rating, deviation=start.deviation, touched_at=now)
            .on_conflict_do_nothing(index_elements=["player"])
        )
        db.execute(puzzle_storms.update().where(puzzle_storms.c.player == token).values(over=1, puzzle=None))
        db.execute(
            puzzle_storms.insert().values(
                id=storm_id, player=token, started_at=now, deadline=now + seconds, puzzle=first
            )
        )
        return _storm(db.execute(sa.select(puzzle_storms).where(puzzle_storms.c.id == storm_id)).one())


def latest_storm(token: str) -> Storm | None:
    """The player's newest storm run."""
    query = (
        sa.select(puzzle_storms)
        .where(puzzle_storms.c.player == token)
        .order_by(puzzle_storms.c.started_at.desc())
        .limit(1)
    )
    row = connection().execute(query).first()
    return _storm(row) if row is not None else None


def storm_runs(token: str) -> int:
    """How many storm runs the player has begun."""
    query = sa.select(sa.func.count()).select_from(puzzle_storms).where(puzzle_storms.c.player == token)
    return connection().execute(query).scalar_one()


def end_storm(storm: Storm, db=None) -> None:
    """End a run (its deadline passed): the player's best keeps its score."""
    if db is None:
        with transaction() as db:
            end_storm(storm, db)
        return
    db.execute(puzzle_storms.update().where(puzzle_storms.c.id == storm.id).values(over=1, puzzle=None))
    db.execute(
        puzzle_players.update()
        .where(puzzle_players.c.player == storm.player, puzzle_players.c.best_storm < storm.solved)
        .values(best_storm=storm.solved)
    )


def storm_answer(
    storm: Storm,
    given: Answer,
    penalty: float,
    next_puzzle: Callable[[int], str | None],
) -> Storm:
    """Keep an answer of a storm run (unrated) and move the run on: a solved
    puzzle counts one, a miss brings the deadline ``penalty`` seconds
    nearer; the next puzzle is ``next_puzzle(solved)``. A run past its
    deadline (or with no puzzle left) ends, the player's best kept."""
    with transaction() as db:
        row = db.execute(locked(sa.select(puzzle_storms).where(puzzle_storms.c.id == storm.id))).one()
        if row.over or row.puzzle != given.puzzle:
            return _storm(row)  # answered twice, or after the end: nothing changes
        insert_answer(db, given)
        solved, missed = row.solved + int(given.solved), row.missed + int(not given.solved)
        deadline = row.deadline - (0.0 if given.solved else penalty)
        upcoming = next_puzzle(solved) if given.at < deadline else None
        db.execute(
            puzzle_storms.update()
            .where(puzzle_storms.c.id == storm.id)
            .values(solved=solved, missed=missed, deadline=deadline, puzzle=upcoming)
        )
        after = _storm(db.execute(sa.select(puzzle_storms).where(puzzle_storms.c.id == storm.id)).one())
        if upcoming is None:
            end_storm(after, db)
            after = dataclasses.replace(after, over=True)
        return after


def answer(answer_id: str) -> Answer | None:
    row = connection().execute(sa.select(puzzle_answers).where(puzzle_answers.c.id == answer_id)).first()
    return _answer(row) if row is not None else None


def answers_of(token: str, limit: int = 200) -> list[tuple[Answer, StoredPuzzle]]:
    """The player's answers, newest first, each with its puzzle."""
    query = (
        sa.select(puzzle_answers)
        .where(puzzle_answers.c.player == token)
        .order_by(puzzle_answers.c.at.desc())
        .limit(limit)
    )
    rows = connection().execute(query).all()
    found = {r.puzzle for r in rows}
    held = {r.id: _puzzle(r) for r in connection().execute(sa.select(puzzles).where(puzzles.c.id.in_(found))).all()}
    return [(_answer(r), held[r.puzzle]) for r in rows]


def start_streak(token: str, first: str, now: float, start: Rating) -> None:
    """Begin a streak at ``first`` (a streak under way is given up)."""
    with transaction() as db:
        db.execute(
            upsert(puzzle_players)
            .values(player=token, rating=start.rating, deviation=start.deviation, touched_at=now)
            .on_conflict_do_nothing(index_elements=["player"])
        )
        db.execute(
            puzzle_players.update()
            .where(puzzle_players.c.player == token)
            .values(streak=0, streak_puzzle=first, touched_at=now)
        )


def of_day(day: int, choose: Callable[[], str | None]) -> str | None:
    """The puzzle of ``day``: the one fixed already, else ``choose()``'s,
    fixed now (the first request of a day decides; all others read it)."""
    db = connection()
    found = db.execute(sa.select(puzzle_days.c.puzzle).where(puzzle_days.c.day == day)).scalar()
    if found is not None:
        return found
    chosen = choose()
    if chosen is None:
        return None
    db.execute(upsert(puzzle_days).values(day=day, puzzle=chosen).on_conflict_do_nothing(index_elements=["day"]))
    return db.execute(sa.select(puzzle_days.c.puzzle).where(puzzle_days.c.day == day)).scalar()


def ids_rated_between(low: float, high: float) -> list[str]:
    """Every puzzle id rated from ``low`` to ``high``, in id order."""
    query = (
        sa.select(puzzles.c.id)
        .where(puzzles.c.rating.between(low, high), puzzles.c.retired == 0)
        .order_by(puzzles.c.id)
    )
    return list(connection().execute(query).scalars())
