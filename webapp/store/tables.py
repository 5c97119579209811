"""The tables, as SQLAlchemy Core describes them: what the store's queries
are built from. The schema itself is made and changed by the Alembic
revisions in ``migrations/``; ``tests/test_migrations.py`` checks that the
two agree."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

metadata = sa.MetaData()

# Times are Unix seconds with a fraction: REAL on SQLite, double precision on PostgreSQL.
Seconds: sa.types.TypeEngine = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def size_columns() -> list[sa.Column]:
    """A game size, as games, challenges and codemaker games keep it."""
    return [
        sa.Column("pegs", sa.Integer, nullable=False),
        sa.Column("colors", sa.Integer, nullable=False),
        sa.Column("distinct_", sa.Integer, nullable=False),
        sa.Column("distinct_guesses", sa.Integer, nullable=False, server_default="0"),
    ]


games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    *size_columns(),
    sa.Column("max_guesses", sa.Integer, nullable=False),
    sa.Column("secret", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="playing"),
    sa.Column("show_count", sa.Integer, nullable=False, server_default="0"),
    sa.Column("suggestions", sa.Integer, nullable=False, server_default="0"),
    sa.Column("hint_move", sa.Integer),
    sa.Column("hint_strategy", sa.Text),
    sa.Column("created_at", Seconds, nullable=False),
    sa.Column("hard", sa.Integer, nullable=False, server_default="0"),
    # The anonymous token of the browser that plays it (for its statistics).
    sa.Column("player", sa.Text),
    sa.Index("games_by_player", "player"),
)

guesses = sa.Table(
    "guesses",
    metadata,
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("move", sa.Integer, primary_key=True),
    sa.Column("guess", sa.Text, nullable=False),
    sa.Column("black", sa.Integer, nullable=False),
    sa.Column("white", sa.Integer, nullable=False),
    sa.Column("at", Seconds, nullable=False),
)

watch_links = sa.Table(
    "watch_links",
    metadata,
    sa.Column("token", sa.Text, primary_key=True),
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.id"), nullable=False, unique=True),
)

hints = sa.Table(
    "hints",
    metadata,
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("move", sa.Integer, primary_key=True),
    sa.Column("strategy", sa.Text, primary_key=True),
    sa.Column("result", sa.Text, nullable=False),
)

challenges = sa.Table(
    "challenges",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    *size_columns(),
    sa.Column("max_guesses", sa.Integer, nullable=False),
    sa.Column("secret", sa.Text, nullable=False),
    sa.Column("results_key", sa.Text, nullable=False),
    sa.Column("created_at", Seconds, nullable=False),
)

challenge_games = sa.Table(
    "challenge_games",
    metadata,
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("challenge_id", sa.Text, sa.ForeignKey("challenges.id"), nullable=False),
    sa.Column("name", sa.Text, nullable=False, server_default=""),
    sa.Column("joined_at", Seconds, nullable=False),
    sa.Column("player", sa.Text, nullable=False, server_default=""),
    # Only a player's first game counts in the results; later ones are practice.
    sa.Column("counted", sa.Integer, nullable=False, server_default="1"),
    sa.Index("challenge_games_by_challenge", "challenge_id", "joined_at"),
    sa.Index("challenge_games_by_player", "challenge_id", "player"),
)

codemaker_games = sa.Table(
    "codemaker_games",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    *size_columns(),
    sa.Column("strategy", sa.Text, nullable=False),
    sa.Column("created_at", Seconds, nullable=False),
)

codemaker_replies = sa.Table(
    "codemaker_replies",
    metadata,
    sa.Column("game_id", sa.Text, sa.ForeignKey("codemaker_games.id"), primary_key=True),
    sa.Column("move", sa.Integer, primary_key=True),
    sa.Column("guess", sa.Text, nullable=False),
    sa.Column("black", sa.Integer, nullable=False),
    sa.Column("white", sa.Integer, nullable=False),
)

jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("progress", Seconds),
    sa.Column("eta", Seconds),
    sa.Column("result", sa.Text),
    sa.Column("error", sa.Text),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created_at", Seconds, nullable=False),
    sa.Column("started_at", Seconds),
    sa.Column("heartbeat", Seconds, nullable=False),
    sa.Column("finished_at", Seconds),
    # The client (address) that started it, for its share of the slots.
    sa.Column("client", sa.Text),
)

# One row, locked while a job is admitted, so that concurrent admissions queue.
job_gate = sa.Table("job_gate", metadata, sa.Column("id", sa.Integer, primary_key=True))

rate_limits = sa.Table(
    "rate_limits",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("hits", sa.Integer, nullable=False),
    sa.Column("expires", Seconds, nullable=False),
)

server_keys = sa.Table(
    "server_keys",
    metadata,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

# The player tokens given out before tokens were signed (every one the
# database held then): still the server's own. Nothing adds to it.
earlier_players = sa.Table(
    "earlier_players",
    metadata,
    sa.Column("player", sa.Text, primary_key=True),
)

daily_games = sa.Table(
    "daily_games",
    metadata,
    sa.Column("player", sa.Text, primary_key=True),
    sa.Column("day", sa.Integer, primary_key=True),
    sa.Column("board", sa.Text, primary_key=True),
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.id"), nullable=False, unique=True),
)

# A live classroom: the teacher's game, which the students follow and vote on.
live_sessions = sa.Table(
    "live_sessions",
    metadata,
    sa.Column("code", sa.Text, primary_key=True),
    # The SHA-256 of the teacher's token (the token itself is never kept).
    sa.Column("teacher", sa.Text, nullable=False),
    *size_columns(),
    sa.Column("strategy", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("secret", sa.Text),  # none when the adversary answers
    # How students are named (typed, generated or hidden), and whether the
    # teacher has locked the room to new students.
    sa.Column("names", sa.Text, nullable=False, server_default="typed"),
    sa.Column("locked", sa.Integer, nullable=False, server_default="0"),
    # The guesses and replies revealed so far (GUESS:BLACK,WHITE ...), and
    # how many of them the class sees now.
    sa.Column("line", sa.Text, nullable=False, server_default=""),
    sa.Column("step", sa.Integer, nullable=False, server_default="0"),
    # Counts every change (a step or a vote); ``step_version`` is its value
    # when the step last changed. Live events carry these numbers as ids.
    sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("step_version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created_at", Seconds, nullable=False),
    sa.Column("touched_at", Seconds, nullable=False),
    # A lesson is a string of games in one room: the current game's number
    # (the earlier ones are in ``live_games``), whether proposals score
    # points, how many seconds the class has to propose (0: no countdown)
    # and when the current step was shown.
    sa.Column("game", sa.Integer, nullable=False, server_default="1"),
    sa.Column("scoring", sa.Integer, nullable=False, server_default="1"),
    sa.Column("countdown", sa.Integer, nullable=False, server_default="0"),
    sa.Column("step_at", Seconds, nullable=False, server_default="0"),
    # The version when the room (who is in it, their names) last changed.
    sa.Column("room_version", sa.Integer, nullable=False, server_default="0"),
    sa.Index("live_sessions_by_touch", "touched_at"),
)

# The games of a lesson before the one the class plays now.
live_games = sa.Table(
    "live_games",
    metadata,
    sa.Column("code", sa.Text, sa.ForeignKey("live_sessions.code", ondelete="CASCADE"), primary_key=True),
    sa.Column("game", sa.Integer, primary_key=True),
    *size_columns(),
    sa.Column("strategy", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("secret", sa.Text),
    sa.Column("line", sa.Text, nullable=False, server_default=""),
    sa.Column("step", sa.Integer, nullable=False, server_default="0"),
)

live_students = sa.Table(
    "live_students",
    metadata,
    # The SHA-256 of the student's token.
    sa.Column("token", sa.Text, primary_key=True),
    sa.Column("code", sa.Text, sa.ForeignKey("live_sessions.code", ondelete="CASCADE"), nullable=False),
    # Counted from 1 in each session: the student's id in the API.
    sa.Column("seat", sa.Integer, nullable=False, server_default="0"),
    sa.Column("nickname", sa.Text, nullable=False, server_default=""),
    sa.Column("joined_at", Seconds, nullable=False),
    # 1 once the teacher removed the student: the votes stop counting.
    sa.Column("removed", sa.Integer, nullable=False, server_default="0"),
    sa.Index("live_students_by_session", "code", "joined_at"),
    sa.Index("live_students_by_seat", "code", "seat"),
)

live_votes = sa.Table(
    "live_votes",
    metadata,
    sa.Column("code", sa.Text, sa.ForeignKey("live_sessions.code", ondelete="CASCADE"), primary_key=True),
    sa.Column("game", sa.Integer, primary_key=True, server_default="1"),
    sa.Column("step", sa.Integer, primary_key=True),
    sa.Column("student", sa.Text, sa.ForeignKey("live_students.token", ondelete="CASCADE"), primary_key=True),
    sa.Column("guess", sa.Text, nullable=False),
    sa.Column("at", Seconds, nullable=False),
)

# Best-guess puzzles (the engine's ``puzzles`` module makes them; the app
# ships a set and loads it into this table the first time it is needed).
puzzles = sa.Table(
    "puzzles",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    *size_columns(),
    sa.Column("history", sa.Text, nullable=False),  # GUESS:BLACK,WHITE ...
    sa.Column("codes", sa.Integer, nullable=False),  # codes still possible
    sa.Column("total", sa.Integer, nullable=False),  # codes × V
    sa.Column("best", sa.Text, nullable=False),  # the best guesses, one per symmetry, spaced
    sa.Column("second", sa.Integer, nullable=False),  # codes × E of the next best, at least
    sa.Column("themes", sa.Text, nullable=False),  # spaced
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("plays", sa.Integer, nullable=False, server_default="0"),
    sa.Column("solves", sa.Integer, nullable=False, server_default="0"),
    # From the set the app ships (1) or from games played here (0); a
    # shipped puzzle a newer set no longer holds is retired: never served,
    # kept for the answers that name it.
    sa.Column("shipped", sa.Integer, nullable=False, server_default="1"),
    sa.Column("retired", sa.Integer, nullable=False, server_default="0"),
    sa.Index("puzzles_by_rating", "rating"),
)

# A player's puzzle rating and streak (the anonymous player token, as games keep it).
puzzle_players = sa.Table(
    "puzzle_players",
    metadata,
    sa.Column("player", sa.Text, primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    # The streak under way: puzzles solved in a row, and the one asked now.
    sa.Column("streak", sa.Integer, nullable=False, server_default="0"),
    sa.Column("streak_puzzle", sa.Text),
    sa.Column("best_streak", sa.Integer, nullable=False, server_default="0"),
    sa.Column("touched_at", Seconds, nullable=False),
    sa.Column("best_storm", sa.Integer, nullable=False, server_default="0"),
)

puzzle_answers = sa.Table(
    "puzzle_answers",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("player", sa.Text, nullable=False),
    sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), nullable=False),
    sa.Column("guess", sa.Text, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),  # codes × E of the guess
    sa.Column("solved", sa.Integer, nullable=False),
    # How it was asked: rated, daily, streak or again (a missed one tried again).
    sa.Column("mode", sa.Text, nullable=False),
    # The player's rating before and after (equal when the answer was not rated).
    sa.Column("rated", sa.Integer, nullable=False),
    sa.Column("rating_before", sa.Float, nullable=False),
    sa.Column("rating_after", sa.Float, nullable=False),
    sa.Column("at", Seconds, nullable=False),
    # Whether the puzzle's best guesses had been shown to the answer's client just before.
    sa.Column("seen", sa.Integer, nullable=False, server_default="0"),
    sa.Index("puzzle_answers_by_player", "player", "puzzle"),
    sa.Index("puzzle_answers_by_time", "player", "at"),
)

# When a client (an address, keyed) was last shown a puzzle's best guesses:
# by a verdict, its own answer's or a link's.
puzzle_seen = sa.Table(
    "puzzle_seen",
    metadata,
    sa.Column("client", sa.Text, primary_key=True),
    sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), primary_key=True),
    sa.Column("at", Seconds, nullable=False),
    sa.Index("puzzle_seen_by_time", "at"),
)

# A Puzzle Storm run: puzzles ever harder against the clock, unrated. A
# wrong answer brings the deadline nearer; the run is over at the deadline.
puzzle_storms = sa.Table(
    "puzzle_storms",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("player", sa.Text, nullable=False),
    sa.Column("started_at", Seconds, nullable=False),
    sa.Column("deadline", Seconds, nullable=False),
    sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
    sa.Column("missed", sa.Integer, nullable=False, server_default="0"),
    sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id")),  # the one asked now
    sa.Column("over", sa.Integer, nullable=False, server_default="0"),
    sa.Index("puzzle_storms_by_player", "player", "started_at"),
)

# A hint a player took on a puzzle (the theme it showed): a hinted answer
# is rated as a draw at best.
puzzle_hints = sa.Table(
    "puzzle_hints",
    metadata,
    sa.Column("player", sa.Text, primary_key=True),
    sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), primary_key=True),
    sa.Column("theme", sa.Text, nullable=False),
    sa.Column("at", Seconds, nullable=False),
)

# The daily puzzle of each day, fixed the first time the day's is asked for.
puzzle_days = sa.Table(
    "puzzle_days",
    metadata,
    sa.Column("day", sa.Integer, primary_key=True),
    sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), nullable=False),
)
