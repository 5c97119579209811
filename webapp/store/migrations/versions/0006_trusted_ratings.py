"""Ratings worth trusting: the player tokens given out before tokens were
signed (every token the database holds, kept as the server's own).

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


def downgrade() -> None:
    op.drop_table("earlier_players")
