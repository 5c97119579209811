"""A live room for a whole lesson: several games in one session (the
games before the current one kept in ``live_games``, each vote marked with
its game), the scoreboard and the proposals' countdown, when the step was
shown, and a count of the room's changes.

Revision ID: 0005
Revises: 0004
Created: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

Seconds: sa.types.TypeEngine = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def votes_table(name: str, with_game: bool) -> None:
    op.create_table(
        name,
        sa.Column("code", sa.Text, sa.ForeignKey("live_sessions.code", ondelete="CASCADE"), primary_key=True),
        *([sa.Column("game", sa.Integer, primary_key=True, server_default="1")] if with_game else []),
        sa.Column("step", sa.Integer, primary_key=True),
        sa.Column("student", sa.Text, sa.ForeignKey("live_students.token", ondelete="CASCADE"), primary_key=True),
        sa.Column("guess", sa.Text, nullable=False),
        sa.Column("at", Seconds, nullable=False),
    )


def upgrade() -> None:
    with op.batch_alter_table("live_sessions") as batch:
        batch.add_column(sa.Column("game", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("scoring", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("countdown", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("step_at", Seconds, nullable=False, server_default="0"))
        batch.add_column(sa.Column("room_version", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "live_games",
        sa.Column("code", sa.Text, sa.ForeignKey("live_sessions.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.Integer, primary_key=True),
        sa.Column("pegs", sa.Integer, nullable=False),
        sa.Column("colors", sa.Integer, nullable=False),
        sa.Column("distinct_", sa.Integer, nullable=False),
        sa.Column("distinct_guesses", sa.Integer, nullable=False, server_default="0"),
        sa.Column("strategy", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("secret", sa.Text),
        sa.Column("line", sa.Text, nullable=False, server_default=""),
        sa.Column("step", sa.Integer, nullable=False, server_default="0"),
    )
    # The votes gain their game (every earlier vote was in a session's first).
    votes_table("live_votes_by_game", with_game=True)
    op.execute(
        "INSERT INTO live_votes_by_game (code, game, step, student, guess, at) "
        "SELECT code, 1, step, student, guess, at FROM live_votes"
    )
    op.drop_table("live_votes")
    op.rename_table("live_votes_by_game", "live_votes")


def downgrade() -> None:
    votes_table("live_votes_one_game", with_game=False)
    op.execute(
        "INSERT INTO live_votes_one_game (code, step, student, guess, at) "
        "SELECT v.code, v.step, v.student, v.guess, v.at FROM live_votes v "
        "JOIN live_sessions s ON s.code = v.code AND s.game = v.game"
    )
    op.drop_table("live_votes")
    op.rename_table("live_votes_one_game", "live_votes")
    op.drop_table("live_games")
    with op.batch_alter_table("live_sessions") as batch:
        for column in ("room_version", "step_at", "countdown", "scoring", "game"):
            batch.drop_column(column)
