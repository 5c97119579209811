-- The tables as the first release of the app made them (before schema versions).
-- Kept to test that such a database upgrades itself. Do not edit.
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
