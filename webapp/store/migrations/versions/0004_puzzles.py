"""Best-guess puzzles: the puzzles, players' ratings and streaks, answers,
and the puzzle of each day.

Revision ID: 0004
Revises: 0003
Created: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Seconds: sa.types.TypeEngine = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("pegs", sa.Integer, nullable=False),
        sa.Column("colors", sa.Integer, nullable=False),
        sa.Column("distinct_", sa.Integer, nullable=False),
        sa.Column("distinct_guesses", sa.Integer, nullable=False, server_default="0"),
        sa.Column("history", sa.Text, nullable=False),
        sa.Column("codes", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("best", sa.Text, nullable=False),
        sa.Column("second", sa.Integer, nullable=False),
        sa.Column("themes", sa.Text, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solves", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_index("puzzles_by_rating", "puzzles", ["rating"])
    op.create_table(
        "puzzle_players",
        sa.Column("player", sa.Text, primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False, server_default="0"),
        sa.Column("streak_puzzle", sa.Text),
        sa.Column("best_streak", sa.Integer, nullable=False, server_default="0"),
        sa.Column("touched_at", Seconds, nullable=False),
    )
    op.create_table(
        "puzzle_answers",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("player", sa.Text, nullable=False),
        sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), nullable=False),
        sa.Column("guess", sa.Text, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("at", Seconds, nullable=False),
    )
    op.create_index("puzzle_answers_by_player", "puzzle_answers", ["player", "puzzle"])
    op.create_index("puzzle_answers_by_time", "puzzle_answers", ["player", "at"])
    op.create_table(
        "puzzle_days",
        sa.Column("day", sa.Integer, primary_key=True),
        sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_days")
    op.drop_index("puzzle_answers_by_time", "puzzle_answers")
    op.drop_index("puzzle_answers_by_player", "puzzle_answers")
    op.drop_table("puzzle_answers")
    op.drop_table("puzzle_players")
    op.drop_index("puzzles_by_rating", "puzzles")
    op.drop_table("puzzles")
