"""The schema as the releases before Alembic built it, adopted.

A database written by one of those releases carries a ``schema_version``
table: the steps it has not had are applied, in order, and that table goes
(Alembic's ``alembic_version`` takes over). A new database gets every step.
Either way the result is the same schema, which ``tables.py`` describes.

Revision ID: 0001
Revises:
Created: 2026-11-25
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# The numbered steps of the hand-made runner, exactly as it applied them.
STEPS = (
    (
        1,
        """
CREATE TABLE IF NOT EXISTS games (
    id          TEXT PRIMARY KEY,
    pegs        INTEGER NOT NULL,
    colors      INTEGER NOT NULL,
    distinct_   INTEGER NOT NULL,
    max_guesses INTEGER NOT NULL,
    secret      TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'playing',
    show_count  INTEGER NOT NULL DEFAULT 0,
    suggestions INTEGER NOT NULL DEFAULT 0,
    hint_move   INTEGER,
    hint_strategy TEXT,
    created_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS guesses (
    game_id TEXT NOT NULL REFERENCES games(id),
    move    INTEGER NOT NULL,
    guess   TEXT NOT NULL,
    black   INTEGER NOT NULL,
    white   INTEGER NOT NULL,
    at      REAL NOT NULL,
    PRIMARY KEY (game_id, move)
);
""",
    ),
    (
        2,
        """CREATE TABLE IF NOT EXISTS watch_links (
    token   TEXT PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE REFERENCES games(id)
);
CREATE TABLE IF NOT EXISTS hints (
    game_id  TEXT NOT NULL REFERENCES games(id),
    move     INTEGER NOT NULL,
    strategy TEXT NOT NULL,
    result   TEXT NOT NULL,
    PRIMARY KEY (game_id, move, strategy)
);
CREATE TABLE IF NOT EXISTS challenges (
    id          TEXT PRIMARY KEY,
    pegs        INTEGER NOT NULL,
    colors      INTEGER NOT NULL,
    distinct_   INTEGER NOT NULL,
    max_guesses INTEGER NOT NULL,
    secret      TEXT NOT NULL,
    results_key TEXT NOT NULL,
    created_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS challenge_games (
    game_id      TEXT PRIMARY KEY REFERENCES games(id),
    challenge_id TEXT NOT NULL REFERENCES challenges(id),
    name         TEXT NOT NULL DEFAULT '',
    joined_at    REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS challenge_games_by_challenge ON challenge_games (challenge_id, joined_at);
CREATE TABLE IF NOT EXISTS codemaker_games (
    id         TEXT PRIMARY KEY,
    pegs       INTEGER NOT NULL,
    colors     INTEGER NOT NULL,
    distinct_  INTEGER NOT NULL,
    strategy   TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS codemaker_replies (
    game_id TEXT NOT NULL REFERENCES codemaker_games(id),
    move    INTEGER NOT NULL,
    guess   TEXT NOT NULL,
    black   INTEGER NOT NULL,
    white   INTEGER NOT NULL,
    PRIMARY KEY (game_id, move)
);
CREATE TABLE IF NOT EXISTS jobs (
    key         TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    params      TEXT NOT NULL,
    status      TEXT NOT NULL,
    progress    REAL,
    eta         REAL,
    result      TEXT,
    error       TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  REAL NOT NULL,
    started_at  REAL,
    heartbeat   REAL NOT NULL,
    finished_at REAL
);
""",
    ),
    (
        3,
        """CREATE TABLE IF NOT EXISTS job_gate (
    id INTEGER PRIMARY KEY
);
INSERT INTO job_gate (id) VALUES (1);
CREATE TABLE IF NOT EXISTS rate_limits (
    key     TEXT PRIMARY KEY,
    hits    INTEGER NOT NULL,
    expires REAL NOT NULL
);
ALTER TABLE challenge_games ADD COLUMN player TEXT NOT NULL DEFAULT '';
ALTER TABLE challenge_games ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
CREATE INDEX IF NOT EXISTS challenge_games_by_player ON challenge_games (challenge_id, player);
""",
    ),
    (4, "ALTER TABLE games ADD COLUMN hard INTEGER NOT NULL DEFAULT 0;"),
    (
        5,
        """CREATE TABLE IF NOT EXISTS server_keys (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS daily_games (
    player  TEXT NOT NULL,
    day     INTEGER NOT NULL,
    board   TEXT NOT NULL,
    game_id TEXT NOT NULL UNIQUE REFERENCES games(id),
    PRIMARY KEY (player, day, board)
);
ALTER TABLE games ADD COLUMN player TEXT;
CREATE INDEX IF NOT EXISTS games_by_player ON games (player);
""",
    ),
    (
        6,
        """ALTER TABLE games ADD COLUMN distinct_guesses INTEGER NOT NULL DEFAULT 0;
ALTER TABLE challenges ADD COLUMN distinct_guesses INTEGER NOT NULL DEFAULT 0;
ALTER TABLE codemaker_games ADD COLUMN distinct_guesses INTEGER NOT NULL DEFAULT 0;
""",
    ),
    # The client (address) that started a job, for its share of the slots.
    (7, "ALTER TABLE jobs ADD COLUMN client TEXT;"),
)


def statements(script: str, dialect: str):
    """The statements of a step; REAL is 4 bytes in PostgreSQL, and times need double precision."""
    if dialect == "postgresql":
        script = re.sub(r"\bREAL\b", "DOUBLE PRECISION", script)
    return [s for s in script.split(";") if s.strip()]


def upgrade() -> None:
    bind = op.get_bind()
    done = 0
    if sa.inspect(bind).has_table("schema_version"):
        done = bind.execute(sa.text("SELECT MAX(version) FROM schema_version")).scalar() or 0
    for number, script in STEPS:
        if number > done:
            for statement in statements(script, bind.dialect.name):
                bind.exec_driver_sql(statement)
    op.execute("DROP TABLE IF EXISTS schema_version")


def downgrade() -> None:
    raise NotImplementedError("the first revision is not undone: restore a backup instead")
