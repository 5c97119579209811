"""A live session's room: how students are named, whether it is locked,
each student's seat and whether the teacher removed them.

Revision ID: 0003
Revises: 0002
Created: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("live_sessions") as batch:
        batch.add_column(sa.Column("names", sa.Text, nullable=False, server_default="typed"))
        batch.add_column(sa.Column("locked", sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("live_students") as batch:
        batch.add_column(sa.Column("seat", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("removed", sa.Integer, nullable=False, server_default="0"))
    # Students who joined before: seats in joining order, session by session.
    students = sa.table(
        "live_students",
        sa.column("token", sa.Text),
        sa.column("code", sa.Text),
        sa.column("joined_at", sa.Float),
        sa.column("seat", sa.Integer),
    )
    earlier = students.alias("earlier")
    seat = (
        sa.select(sa.func.count())
        .where(
            earlier.c.code == students.c.code,
            sa.or_(
                earlier.c.joined_at < students.c.joined_at,
                sa.and_(earlier.c.joined_at == students.c.joined_at, earlier.c.token <= students.c.token),
            ),
        )
        .scalar_subquery()
    )
    op.execute(students.update().values(seat=seat))
    op.create_index("live_students_by_seat", "live_students", ["code", "seat"])


def downgrade() -> None:
    op.drop_index("live_students_by_seat", "live_students")
    with op.batch_alter_table("live_students") as batch:
        batch.drop_column("removed")
        batch.drop_column("seat")
    with op.batch_alter_table("live_sessions") as batch:
        batch.drop_column("locked")
        batch.drop_column("names")
