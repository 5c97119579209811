"""Live classroom sessions, their students and the students' votes.

Revision ID: 0002
Revises: 0001
Created: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Seconds: sa.types.TypeEngine = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "live_sessions",
        sa.Column("code", sa.Text, primary_key=True),
        sa.Column("teacher", sa.Text, nullable=False),
        sa.Column("pegs", sa.Integer, nullable=False),
        sa.Column("colors", sa.Integer, nullable=False),
        sa.Column("distinct_", sa.Integer, nullable=False),
        sa.Column("distinct_guesses", sa.Integer, nullable=False, server_default="0"),
        sa.Column("strategy", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("secret", sa.Text),
        sa.Column("line", sa.Text, nullable=False, server_default=""),
        sa.Column("step", sa.Integer, nullable=False, server_default="0"),
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("step_version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", Seconds, nullable=False),
        sa.Column("touched_at", Seconds, nullable=False),
    )
    op.create_index("live_sessions_by_touch", "live_sessions", ["touched_at"])
    op.create_table(
        "live_students",
        sa.Column("token", sa.Text, primary_key=True),
        sa.Column("code", sa.Text, sa.ForeignKey("live_sessions.code", ondelete="CASCADE"), nullable=False),
        sa.Column("nickname", sa.Text, nullable=False, server_default=""),
        sa.Column("joined_at", Seconds, nullable=False),
    )
    op.create_index("live_students_by_session", "live_students", ["code", "joined_at"])
    op.create_table(
        "live_votes",
        sa.Column("code", sa.Text, sa.ForeignKey("live_sessions.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("step", sa.Integer, primary_key=True),
        sa.Column("student", sa.Text, sa.ForeignKey("live_students.token", ondelete="CASCADE"), primary_key=True),
        sa.Column("guess", sa.Text, nullable=False),
        sa.Column("at", Seconds, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("live_votes")
    op.drop_table("live_students")
    op.drop_index("live_sessions_by_touch", "live_sessions")
    op.drop_table("live_sessions")
