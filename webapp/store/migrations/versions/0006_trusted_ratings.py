"""Ratings worth trusting: the player tokens given out before tokens were
signed (every token the database holds, kept as the server's own), when
each client was last shown a puzzle's best guesses, and whether an answer
came just after such a sight.

Revision ID: 0006
Revises: 0005
Created: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

Seconds: sa.types.TypeEngine = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def upgrade() -> None:
    op.create_table("earlier_players", sa.Column("player", sa.Text, primary_key=True))
    op.execute(
        "INSERT INTO earlier_players (player) "
        "SELECT player FROM games WHERE player IS NOT NULL "
        "UNION SELECT player FROM daily_games "
        "UNION SELECT player FROM challenge_games WHERE player <> '' "
        "UNION SELECT player FROM puzzle_players "
        "UNION SELECT player FROM puzzle_answers"
    )
    op.create_table(
        "puzzle_seen",
        sa.Column("client", sa.Text, primary_key=True),
        sa.Column("puzzle", sa.Text, sa.ForeignKey("puzzles.id"), primary_key=True),
        sa.Column("at", Seconds, nullable=False),
    )
    op.create_index("puzzle_seen_by_time", "puzzle_seen", ["at"])
    with op.batch_alter_table("puzzle_answers") as batch:
        batch.add_column(sa.Column("seen", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("puzzle_answers") as batch:
        batch.drop_column("seen")
    op.drop_index("puzzle_seen_by_time", "puzzle_seen")
    op.drop_table("puzzle_seen")
    op.drop_table("earlier_players")
