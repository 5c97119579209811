"""Puzzles to choose from: a set replaced by a newer one (its puzzles
retired, kept for the answers that name them), Puzzle Storm runs and each
player's best, and the hints a player took.

Revision ID: 0007
Revises: 0006
Created: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Seconds: sa.types.TypeEngine = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.add_column(sa.Column("shipped", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("retired", sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("puzzle_players") as batch:
        batch.add_column(sa.Column("best_storm", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "puzzle_storms",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("player", sa.Text, nullable=False),
        sa.Column("started_at", Seconds, nullable=False),
        sa.Column("deadline", Seconds, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
        sa.Column("missed", sa.Integer, nullable=False, server_default="0"),
        sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id")),
        sa.Column("over", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_index("puzzle_storms_by_player", "puzzle_storms", ["player", "started_at"])
    op.create_table(
        "puzzle_hints",
        sa.Column("player", sa.Text, primary_key=True),
        sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), primary_key=True),
        sa.Column("theme", sa.Text, nullable=False),
        sa.Column("at", Seconds, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_hints")
    op.drop_index("puzzle_storms_by_player", "puzzle_storms")
    op.drop_table("puzzle_storms")
    with op.batch_alter_table("puzzle_players") as batch:
        batch.drop_column("best_storm")
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("retired")
        batch.drop_column("shipped")
