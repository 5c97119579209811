"""Every record the app keeps, and the only module that speaks SQL: games,
challenges, codemaker games, hints and background jobs. One connection per
request and one transaction per move, on SQLite by default (WAL mode, so
several worker processes share the file) or on PostgreSQL when
``DATABASE_URL`` names one (a psycopg connection pool per process)."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from flask import current_app, g

from .engine import Code, Feedback, GameSize, contradiction, feedback, secret_indices
from .engine.codes import MastermindError, check_guess

# The schema, as numbered steps: a database made by an earlier version of the
# app is brought up to date by the steps it has not had (its version is kept
# in ``schema_version``). Add a step to change the schema; never edit one.
MIGRATIONS = (
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


def size_of(row) -> GameSize:
    """The game size a row of games, challenges or codemaker_games holds."""
    return GameSize(row["pegs"], row["colors"], bool(row["distinct_"]), bool(row["distinct_guesses"]))


PLAYING, WON, LOST = "playing", "won", "lost"


class GameNotFound(LookupError):
    """No game has that id."""


class GameOver(MastermindError):
    """The game has ended; it takes no more guesses."""


class StaleMove(MastermindError):
    """The move number posted is not the next one: a repeated or late post."""


class Inconsistent(ValueError):
    """Hard mode: the guess could not be the secret. ``earlier`` got ``reply``,
    and would have got ``would`` if the guess were the secret."""

    def __init__(self, guess: Code, earlier: Code, reply: Feedback, would: Feedback):
        super().__init__(f"{guess} contradicts {earlier} {reply}")
        self.guess, self.earlier, self.reply, self.would = guess, earlier, reply, would


@dataclass
class Move:
    guess: Code
    reply: Feedback


@dataclass
class Game:
    """A game as stored: its size, its moves, and a secret kept server-side."""

    id: str
    size: GameSize
    max_guesses: int
    secret: Code
    status: str
    show_count: bool
    suggestions: int
    hint_move: int | None = None
    hint_strategy: str | None = None
    moves: list[Move] = field(default_factory=list)
    # Hard mode: every guess must fit every reply so far.
    hard: bool = False

    @property
    def over(self) -> bool:
        return self.status != PLAYING

    @property
    def next_move(self) -> int:
        return len(self.moves) + 1

    @property
    def guesses_left(self) -> int:
        return self.max_guesses - len(self.moves)

    def history(self):
        return [(m.guess, m.reply) for m in self.moves]


# --- the database: SQLite by default, PostgreSQL when DATABASE_URL names one -------------------
#
# The queries below are written once, in SQL both databases run, with ``?``
# placeholders. A backend opens connections, turns ``?`` into what its driver
# wants, and says which of its errors mean "the database cannot be used now".


class Row(tuple):
    """A result row readable by position or by column name, like ``sqlite3.Row``."""

    __slots__ = ()
    names: tuple = ()

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names.index(key))
        return tuple.__getitem__(self, key)

    def keys(self):
        return list(self.names)


def _row_factory(cursor):
    """psycopg's hook: rows of a class that knows this query's column names."""
    return _row_class(tuple(d.name for d in cursor.description or ()))


@functools.lru_cache(maxsize=256)
def _row_class(names: tuple):
    return type("Row", (Row,), {"__slots__": (), "names": names})


class PostgresConnection:
    """A pooled psycopg connection that speaks the store's ``?`` SQL."""

    def __init__(self, raw):
        self.raw = raw
        self.read_only = False

    def execute(self, sql: str, params=()):
        return self.raw.execute(_pg_sql(sql), params)

    def executemany(self, sql: str, rows):
        with self.raw.cursor() as cur:
            cur.executemany(_pg_sql(sql), list(rows))
            return cur


@functools.lru_cache(maxsize=512)
def _pg_sql(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (the store's SQL has no other
    ``?`` and no ``%``)."""
    return sql.replace("?", "%s")


class SqliteBackend:
    """One SQLite file, WAL mode so that several processes can share it."""

    name = "sqlite"
    begin = "BEGIN IMMEDIATE"  # take the write lock at once: writers queue, never fail midway
    for_update = ""  # BEGIN IMMEDIATE already serialises writers

    def __init__(self, path: str):
        self.path = path
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.unavailable = (sqlite3.OperationalError,)

    def connect(self, read_only: bool = False):
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout = 10000")
        db.execute("PRAGMA foreign_keys = ON")
        if read_only:
            db.execute("PRAGMA query_only = ON")
        return db

    def release(self, db) -> None:
        db.close()

    def migrate(self, run) -> None:
        db = self.connect()
        try:
            db.execute("PRAGMA journal_mode = WAL")
            run(db, "BEGIN IMMEDIATE", lambda script: script)
        finally:
            db.close()

    def close(self) -> None:
        pass


class PostgresBackend:
    """A PostgreSQL database through a psycopg connection pool (one per process)."""

    name = "postgresql"
    begin = "BEGIN"
    for_update = " FOR UPDATE"  # lock the game's row: one move at a time per game

    def __init__(self, url: str, pool_size: int = 8, timeout: float = 5.0):
        import psycopg
        import psycopg_pool

        self.url, self.pool_size, self.timeout = url, pool_size, timeout
        self.unavailable = (psycopg.OperationalError, psycopg.errors.ReadOnlySqlTransaction, psycopg_pool.PoolTimeout)
        self._pool = None
        self._pid = None
        self._lock = threading.Lock()

    @property
    def pool(self):
        """The pool of this process, opened on first use (so that a process
        forked by the web server opens its own)."""
        if self._pool is None or self._pid != os.getpid():
            with self._lock:
                if self._pool is None or self._pid != os.getpid():
                    from psycopg_pool import ConnectionPool

                    self._pool = ConnectionPool(
                        self.url,
                        min_size=1,
                        max_size=self.pool_size,
                        timeout=self.timeout,
                        kwargs={"autocommit": True, "row_factory": _row_factory},
                        name="mastermind",
                        open=True,
                    )
                    self._pid = os.getpid()
        return self._pool

    def connect(self, read_only: bool = False):
        db = PostgresConnection(self.pool.getconn())
        db.read_only = read_only
        if read_only:
            db.execute("SET default_transaction_read_only = on")
        return db

    def release(self, db) -> None:
        if getattr(db, "read_only", False):
            with contextlib.suppress(Exception):  # the pool checks and replaces a broken connection
                db.execute("SET default_transaction_read_only = off")
        self.pool.putconn(db.raw)

    def migrate(self, run) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True, row_factory=_row_factory) as raw:
            # One server at a time upgrades (the others wait on the lock), and
            # REAL is 4 bytes in PostgreSQL: times need double precision.
            run(
                PostgresConnection(raw),
                "BEGIN; SELECT pg_advisory_xact_lock(4242)",
                lambda script: re.sub(r"\bREAL\b", "DOUBLE PRECISION", script),
            )

    def close(self) -> None:
        if self._pool is not None and self._pid == os.getpid():
            self._pool.close()
        self._pool = None


def backend_for(url: str, pool_size: int = 8, timeout: float = 5.0):
    """The backend a database URL names: ``postgresql://…`` (or ``postgres://``),
    ``sqlite:///path``, or a plain path to an SQLite file."""
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresBackend(url, pool_size, timeout)
    if url.startswith("sqlite:///"):
        return SqliteBackend(url[len("sqlite:///") :])
    if "://" in url:
        raise ValueError(f"DATABASE_URL must be a postgresql:// URL, an sqlite:/// URL or a path, not {url!r}")
    return SqliteBackend(url)


def _apply_migrations(db, begin: str, dialect) -> None:
    """Apply the schema steps the database has not had, in one transaction."""
    for statement in begin.split(";"):
        db.execute(statement)
    try:
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        current = row[0] or 0
        for version, script in MIGRATIONS:
            if version > current:
                for statement in dialect(script).split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def init_db(url: str) -> None:
    """Apply the schema steps the database at ``url`` has not had yet."""
    backend_for(url).migrate(_apply_migrations)


def schema_version(url: str) -> int:
    backend = backend_for(url)
    db = backend.connect()
    try:
        return db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    finally:
        backend.release(db)
        backend.close()


def backend():
    return current_app.extensions["store"]


def get_db():
    """This request's connection (read-only while ``DATABASE_READ_ONLY`` is
    set, for maintenance such as a backup)."""
    if "db" not in g:
        g.db = backend().connect(bool(current_app.config.get("DATABASE_READ_ONLY")))
    return g.db


def close_db(_exc=None) -> None:
    db = g.pop("db", None)
    if db is not None:
        backend().release(db)


@contextmanager
def transaction():
    """This request's connection inside one write transaction (taken at once
    on SQLite, so concurrent writers queue rather than fail): committed at the
    end, rolled back on any error."""
    db = get_db()
    db.execute(backend().begin)
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        try:
            db.execute("ROLLBACK")
        except Exception:  # keep the error that matters, not the rollback's
            current_app.logger.warning("rollback failed after an error", exc_info=True)
        raise


def database_url(config) -> str:
    """Where the app keeps its records: ``DATABASE_URL`` when set, else the
    SQLite file ``DATABASE``."""
    return config.get("DATABASE_URL") or config["DATABASE"]


def init_app(app) -> None:
    """Open the database (upgrading its schema) and hand each request's
    connection back after it."""
    url = database_url(app.config)
    store = backend_for(url, app.config.get("DATABASE_POOL_SIZE", 8), app.config.get("DATABASE_POOL_TIMEOUT", 5.0))
    store.migrate(_apply_migrations)
    app.extensions["store"] = store
    app.teardown_appcontext(close_db)


def new_game_id() -> str:
    """A random id of 128 bits, URL-safe."""
    return secrets.token_urlsafe(16)


def random_secret(size: GameSize) -> Code:
    """A secret drawn uniformly from every code the size allows."""
    choices = secret_indices(size)
    return Code.from_index(int(choices[secrets.randbelow(len(choices))]), size)


def create_game(
    size: GameSize, max_guesses: int, secret: Code | None = None, hard: bool = False, player: str | None = None
) -> Game:
    """Store a new game (and its watch link) and return it; ``hard``: every
    guess must fit every reply so far; ``player``: the anonymous token of the
    browser that plays it (for its statistics)."""
    with transaction() as db:
        game_id = insert_game(db, size, max_guesses, secret or random_secret(size), hard, player)
    return load_game(game_id)


def insert_game(
    db, size: GameSize, max_guesses: int, secret: Code, hard: bool = False, player: str | None = None
) -> str:
    """Write a new game and its watch link inside the caller's transaction."""
    game_id = new_game_id()
    db.execute(
        "INSERT INTO games"
        " (id, pegs, colors, distinct_, distinct_guesses, max_guesses, secret, created_at, hard, player)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            game_id,
            size.pegs,
            size.colors,
            int(size.distinct),
            int(size.distinct_guesses),
            max_guesses,
            str(secret),
            time.time(),
            int(hard),
            player,
        ),
    )
    db.execute("INSERT INTO watch_links (token, game_id) VALUES (?, ?)", (new_game_id(), game_id))
    return game_id


def load_game(game_id: str, db=None, lock: bool = False) -> Game:
    """The game with ``game_id``, with its moves; :class:`GameNotFound` if none.
    With ``lock`` (inside a transaction), other moves in this game wait for it."""
    db = db or get_db()
    row = db.execute(
        "SELECT * FROM games WHERE id = ?" + (backend().for_update if lock else ""), (str(game_id),)
    ).fetchone()
    if row is None:
        raise GameNotFound(game_id)
    size = size_of(row)
    game = Game(
        row["id"],
        size,
        row["max_guesses"],
        Code.parse(row["secret"], size),
        row["status"],
        bool(row["show_count"]),
        row["suggestions"],
        row["hint_move"],
        row["hint_strategy"],
        hard=bool(row["hard"]),
    )
    for move in db.execute("SELECT guess, black, white FROM guesses WHERE game_id = ? ORDER BY move", (game.id,)):
        game.moves.append(Move(Code.parse(move["guess"], size), Feedback(move["black"], move["white"])))
    return game


def add_guess(game_id: str, guess: Code, move: int | None = None) -> Game:
    """Record ``guess`` as move ``move`` (the next one when None) in one
    transaction, and end the game if it is won or out of guesses."""
    with transaction() as db:
        game = load_game(game_id, db, lock=True)
        if game.over:
            raise GameOver("game-over")
        if move is not None and move != game.next_move:
            if move < game.next_move:
                raise StaleMove("guess-recorded", move=move)
            raise StaleMove("move-stale", next=game.next_move, given=move)
        check_guess(guess, game.size)  # a guess the rules forbid: CodeError, nothing stored
        if game.hard:  # checked against the moves stored, under the game's lock
            found = contradiction(game.history(), guess)
            if found is not None:
                raise Inconsistent(guess, *found)
        reply = feedback(guess, game.secret)
        db.execute(
            "INSERT INTO guesses (game_id, move, guess, black, white, at) VALUES (?, ?, ?, ?, ?, ?)",
            (game.id, game.next_move, str(guess), reply.black, reply.white, time.time()),
        )
        game.moves.append(Move(guess, reply))
        if reply.black == game.size.pegs:
            game.status = WON
        elif game.guesses_left <= 0:
            game.status = LOST
        if game.over:
            db.execute("UPDATE games SET status = ? WHERE id = ?", (game.status, game.id))
    return game


def set_show_count(game_id: str, show: bool) -> None:
    """Remember whether the player wants the "codes still possible" counter."""
    cur = get_db().execute("UPDATE games SET show_count = ? WHERE id = ?", (int(show), str(game_id)))
    if cur.rowcount == 0:
        raise GameNotFound(game_id)


def record_suggestion(game: Game, strategy: str) -> None:
    """Remember which strategy's hint the board shows for this move, so a
    reload shows it again, and count the moves on which a hint was shown
    (asking again for the same move counts once)."""
    get_db().execute(
        "UPDATE games SET suggestions = suggestions + CASE WHEN hint_move = ? THEN 0 ELSE 1 END,"
        " hint_move = ?, hint_strategy = ? WHERE id = ? AND status = ?",
        (game.next_move, game.next_move, strategy, game.id, PLAYING),
    )
    if game.hint_move != game.next_move:
        game.suggestions += 1
    game.hint_move, game.hint_strategy = game.next_move, strategy


def save_hint(game_id: str, move: int, strategy: str, result: str) -> None:
    """Keep a worked-out hint, so showing the board again costs nothing."""
    get_db().execute(
        "INSERT INTO hints (game_id, move, strategy, result) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (game_id, move, strategy) DO NOTHING",
        (game_id, move, strategy, result),
    )


def load_hint(game_id: str, move: int, strategy: str) -> str | None:
    row = (
        get_db()
        .execute("SELECT result FROM hints WHERE game_id = ? AND move = ? AND strategy = ?", (game_id, move, strategy))
        .fetchone()
    )
    return row[0] if row else None


# --- background jobs: one row per computation, keyed by what it computes ---------------------

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


def load_job(key: str) -> dict | None:
    """The job stored under ``key``, as a dict, or None."""
    row = get_db().execute("SELECT * FROM jobs WHERE key = ?", (key,)).fetchone()
    return dict(row) if row else None


class JobsFull(Exception):
    """As many jobs as allowed are queued or running already."""


class ClientJobsFull(JobsFull):
    """As many jobs as one client may hold are queued or running for it."""


def admit_job(
    key: str,
    kind: str,
    params: str,
    now: float,
    fresh_after: float,
    most: int,
    client: str | None = None,
    client_most: int | None = None,
) -> bool:
    """Add a queued job unless ``most`` jobs (queued or running, heartbeat
    newer than ``fresh_after``) are active already (:class:`JobsFull`), or
    ``client_most`` of them were started by ``client``
    (:class:`ClientJobsFull`). False when a job with that key exists. The
    counts and the insert happen under one lock (the gate row), so
    concurrent requests, on one server or several, never admit more."""
    active_since = "status IN (?, ?) AND heartbeat >= ?"
    with transaction() as db:
        db.execute("SELECT id FROM job_gate WHERE id = 1" + backend().for_update)
        if db.execute("SELECT 1 FROM jobs WHERE key = ?", (key,)).fetchone() is not None:
            return False
        active = db.execute(f"SELECT COUNT(*) FROM jobs WHERE {active_since}", (QUEUED, RUNNING, fresh_after))
        if int(active.fetchone()[0]) >= most:
            raise JobsFull()
        if client is not None and client_most is not None:
            mine = db.execute(
                f"SELECT COUNT(*) FROM jobs WHERE {active_since} AND client = ?", (QUEUED, RUNNING, fresh_after, client)
            )
            if int(mine.fetchone()[0]) >= client_most:
                raise ClientJobsFull()
        db.execute(
            "INSERT INTO jobs (key, kind, params, status, created_at, heartbeat, client) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, kind, params, QUEUED, now, now, client),
        )
    return True


def requeue_stale_job(key: str, stale_before: float, now: float) -> bool:
    """Queue again a job whose process stopped beating; True for the one
    caller that did it."""
    cur = get_db().execute(
        "UPDATE jobs SET status = ?, heartbeat = ?, progress = NULL, eta = NULL"
        " WHERE key = ? AND status IN (?, ?) AND heartbeat < ?",
        (QUEUED, now, key, QUEUED, RUNNING, stale_before),
    )
    return cur.rowcount == 1


def claim_job(key: str, now: float, stale_before: float) -> bool:
    """Mark a queued (or abandoned) job as running here; False when another
    worker has it or it is finished."""
    cur = get_db().execute(
        "UPDATE jobs SET status = ?, started_at = ?, heartbeat = ?, attempts = attempts + 1,"
        " progress = 0 WHERE key = ? AND (status = ? OR (status = ? AND heartbeat < ?))",
        (RUNNING, now, now, key, QUEUED, RUNNING, stale_before),
    )
    return cur.rowcount == 1


def beat_job(key: str, now: float, progress: float | None = None, eta: float | None = None) -> None:
    """A running job is alive; with ``progress``, also how far it is."""
    if progress is None:
        get_db().execute("UPDATE jobs SET heartbeat = ? WHERE key = ? AND status = ?", (now, key, RUNNING))
    else:
        get_db().execute(
            "UPDATE jobs SET heartbeat = ?, progress = ?, eta = ? WHERE key = ? AND status = ?",
            (now, progress, eta, key, RUNNING),
        )


def finish_job(key: str, kind: str, params: str, result: str, now: float) -> None:
    """Store a job's result (inserting the row when it was computed at once)."""
    get_db().execute(
        "INSERT INTO jobs (key, kind, params, status, progress, result, created_at, heartbeat, finished_at)"
        " VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET status = excluded.status,"
        " progress = 1, eta = 0, result = excluded.result, error = NULL, finished_at = excluded.finished_at",
        (key, kind, params, DONE, result, now, now, now),
    )


def fail_job(key: str, message: str, now: float) -> None:
    get_db().execute(
        "UPDATE jobs SET status = ?, error = ?, finished_at = ? WHERE key = ?", (FAILED, message, now, key)
    )


# --- challenges: one secret, many players ----------------------------------------------------


class ChallengeNotFound(LookupError):
    """No challenge has that id (or the results key is wrong)."""


@dataclass
class Challenge:
    id: str
    size: GameSize
    max_guesses: int
    secret: Code
    results_key: str


@dataclass
class Player:
    """One challenger's game as the results page shows it."""

    game_id: str
    name: str
    status: str
    guesses: list[Code] = field(default_factory=list)


def create_challenge(size: GameSize, max_guesses: int, secret: Code | None = None) -> Challenge:
    secret = secret or random_secret(size)
    challenge = Challenge(new_game_id(), size, max_guesses, secret, secrets.token_urlsafe(16))
    get_db().execute(
        "INSERT INTO challenges"
        " (id, pegs, colors, distinct_, distinct_guesses, max_guesses, secret, results_key, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            challenge.id,
            size.pegs,
            size.colors,
            int(size.distinct),
            int(size.distinct_guesses),
            max_guesses,
            str(secret),
            challenge.results_key,
            time.time(),
        ),
    )
    return challenge


def load_challenge(challenge_id: str, results_key: str | None = None) -> Challenge:
    """The challenge; with ``results_key``, only if the key is right."""
    row = get_db().execute("SELECT * FROM challenges WHERE id = ?", (str(challenge_id),)).fetchone()
    if row is None or (
        results_key is not None and not secrets.compare_digest(str(results_key).encode(), row["results_key"].encode())
    ):
        raise ChallengeNotFound(challenge_id)
    size = size_of(row)
    return Challenge(row["id"], size, row["max_guesses"], Code.parse(row["secret"], size), row["results_key"])


@dataclass
class Joined:
    """What joining a challenge gave a player: a game, whether the results
    count it (only a player's first game does), and whether it is new."""

    game: Game
    counted: bool
    created: bool


def join_challenge(challenge: Challenge, name: str, player: str) -> Joined:
    """The game of ``player`` (an anonymous token) against the challenge's
    secret: the one in progress if there is one; otherwise a new game, counted
    if it is the player's first, a practice game if not. The challenge's row
    is locked meanwhile, so two joins at once make one counted game."""
    with transaction() as db:
        db.execute("SELECT id FROM challenges WHERE id = ?" + backend().for_update, (challenge.id,))
        earlier = db.execute(
            "SELECT cg.game_id, g.status FROM challenge_games cg JOIN games g ON g.id = cg.game_id"
            " WHERE cg.challenge_id = ? AND cg.player = ? ORDER BY cg.joined_at, cg.game_id",
            (challenge.id, player),
        ).fetchall()
        playing = [row["game_id"] for row in earlier if row["status"] == PLAYING]
        if playing:
            game_id, counted, created = playing[-1], earlier[0]["game_id"] == playing[-1], False
        else:
            game_id, counted, created = (
                insert_game(db, challenge.size, challenge.max_guesses, challenge.secret, player=player),
                not earlier,
                True,
            )
            db.execute(
                "INSERT INTO challenge_games (game_id, challenge_id, name, joined_at, player, counted)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, challenge.id, name, time.time(), player, int(counted)),
            )
    return Joined(load_game(game_id), counted, created)


def challenge_of(game_id: str) -> str | None:
    """The id of the challenge a game belongs to, if any."""
    row = get_db().execute("SELECT challenge_id FROM challenge_games WHERE game_id = ?", (str(game_id),)).fetchone()
    return row[0] if row else None


def challenge_players(challenge: Challenge) -> list[Player]:
    """Everyone who opened the challenge, first come first, with the guesses
    of their first game (practice games after it do not count; one query)."""
    players: dict[str, Player] = {}
    for row in get_db().execute(
        "SELECT cg.game_id, cg.name, g.status, gu.guess FROM challenge_games cg"
        " JOIN games g ON g.id = cg.game_id"
        " LEFT JOIN guesses gu ON gu.game_id = cg.game_id"
        " WHERE cg.challenge_id = ? AND cg.counted = 1 ORDER BY cg.joined_at, cg.game_id, gu.move",
        (challenge.id,),
    ):
        player = players.setdefault(row["game_id"], Player(row["game_id"], row["name"], row["status"]))
        if row["guess"] is not None:
            player.guesses.append(Code.parse(row["guess"], challenge.size))
    return list(players.values())


# --- the computer as codebreaker: the player keeps the secret in mind -------------------------


class CodemakerNotFound(LookupError):
    """No codemaker game has that id."""


@dataclass
class CodemakerGame:
    id: str
    size: GameSize
    strategy: str
    moves: list[Move] = field(default_factory=list)

    def history(self):
        return [(m.guess, m.reply) for m in self.moves]

    @property
    def solved(self) -> bool:
        return bool(self.moves) and self.moves[-1].reply.black == self.size.pegs


def create_codemaker(size: GameSize, strategy: str) -> CodemakerGame:
    game_id = new_game_id()
    get_db().execute(
        "INSERT INTO codemaker_games (id, pegs, colors, distinct_, distinct_guesses, strategy, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (game_id, size.pegs, size.colors, int(size.distinct), int(size.distinct_guesses), strategy, time.time()),
    )
    return load_codemaker(game_id)


def load_codemaker(game_id: str, db=None, lock: bool = False) -> CodemakerGame:
    db = db or get_db()
    row = db.execute(
        "SELECT * FROM codemaker_games WHERE id = ?" + (backend().for_update if lock else ""), (str(game_id),)
    ).fetchone()
    if row is None:
        raise CodemakerNotFound(game_id)
    size = size_of(row)
    game = CodemakerGame(row["id"], size, row["strategy"])
    for move in db.execute(
        "SELECT guess, black, white FROM codemaker_replies WHERE game_id = ? ORDER BY move", (game.id,)
    ):
        game.moves.append(Move(Code.parse(move["guess"], size), Feedback(move["black"], move["white"])))
    return game


def add_codemaker_reply(game_id: str, move: int, guess: Code, reply: Feedback, seen: list[Move]) -> CodemakerGame:
    """Record the player's ``reply`` to guess number ``move`` in one
    transaction, under the game's lock. ``seen`` is the history the caller
    checked the reply and worked out ``guess`` against: if the stored one
    differs (an answer or an undo came in meanwhile), nothing is stored and
    :class:`StaleMove` says so, like a stale move number."""
    with transaction() as db:
        game = load_codemaker(game_id, db, lock=True)
        if move != len(game.moves) + 1:
            raise StaleMove("move-stale", next=len(game.moves) + 1, given=move)
        if game.moves != seen:
            raise StaleMove("answers-changed")
        db.execute(
            "INSERT INTO codemaker_replies (game_id, move, guess, black, white) VALUES (?, ?, ?, ?, ?)",
            (game.id, move, str(guess), reply.black, reply.white),
        )
    game.moves.append(Move(guess, reply))
    return game


def undo_codemaker_reply(game_id: str, move: int) -> CodemakerGame:
    """Take back answer number ``move``, which must be the last one: a stale
    undo (one already taken back, or repeated) is refused with :class:`StaleMove`."""
    with transaction() as db:
        game = load_codemaker(game_id, db, lock=True)
        if not game.moves:
            raise StaleMove("nothing-to-undo")
        if move != len(game.moves):
            raise StaleMove("answer-not-last", given=move, last=len(game.moves))
        db.execute("DELETE FROM codemaker_replies WHERE game_id = ? AND move = ?", (game.id, move))
        game.moves.pop()
    return game


# --- watch links: a game seen by others, who cannot play in it ----------------------------------


def watch_token(game_id: str) -> str:
    """The game's read-only link token (made the first time it is asked for)."""
    db = get_db()
    query = "SELECT token FROM watch_links WHERE game_id = ?"
    row = db.execute(query, (str(game_id),)).fetchone()
    if row is None:  # written once, so showing a board stays a read
        db.execute(
            "INSERT INTO watch_links (token, game_id) VALUES (?, ?) ON CONFLICT (game_id) DO NOTHING",
            (new_game_id(), str(game_id)),
        )
        row = db.execute(query, (str(game_id),)).fetchone()
    return row[0]


def watched_game(token: str) -> Game:
    row = get_db().execute("SELECT game_id FROM watch_links WHERE token = ?", (str(token),)).fetchone()
    if row is None:
        raise GameNotFound(token)
    return load_game(row[0])


# --- rate-limit counters: one fixed window per key, shared by every worker and server -------


def hit_counter(key: str, seconds: float, amount: int, now: float) -> int:
    """Add ``amount`` to the counter ``key`` and return its new value; a
    counter whose window has ended starts a new one of ``seconds``. One
    statement, so concurrent hits from any process all count."""
    row = (
        get_db()
        .execute(
            "INSERT INTO rate_limits (key, hits, expires) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET"
            " hits = CASE WHEN rate_limits.expires <= ? THEN excluded.hits ELSE rate_limits.hits + excluded.hits END,"
            " expires = CASE WHEN rate_limits.expires <= ? THEN excluded.expires ELSE rate_limits.expires END"
            " RETURNING hits",
            (key, amount, now + seconds, now, now),
        )
        .fetchone()
    )
    return int(row[0])


def read_counter(key: str, now: float) -> tuple[int, float]:
    """The counter ``key`` and when its window ends (0 and ``now`` when none runs)."""
    row = get_db().execute("SELECT hits, expires FROM rate_limits WHERE key = ? AND expires > ?", (key, now)).fetchone()
    return (int(row[0]), float(row[1])) if row else (0, now)


def clear_counters(key: str | None = None) -> int:
    """Forget the counter ``key``, or every counter."""
    if key is None:
        return get_db().execute("DELETE FROM rate_limits").rowcount
    return get_db().execute("DELETE FROM rate_limits WHERE key = ?", (key,)).rowcount


# --- the daily puzzle and a player's games --------------------------------------------------------


def server_key(name: str) -> str:
    """A random secret of the installation, made on first use and shared by
    every server on this database (the daily puzzle's key)."""
    db = get_db()
    row = db.execute("SELECT value FROM server_keys WHERE name = ?", (name,)).fetchone()
    if row is not None:
        return row[0]
    with transaction() as db:
        db.execute(
            "INSERT INTO server_keys (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            (name, secrets.token_hex(32)),
        )
    return get_db().execute("SELECT value FROM server_keys WHERE name = ?", (name,)).fetchone()[0]


def daily_game(player: str, day: int, board: str, size: GameSize, max_guesses: int, secret: Code) -> tuple[Game, bool]:
    """The game ``player`` plays on ``board``'s puzzle of ``day``: made the
    first time, the same one ever after (two requests at once make one);
    and whether it was made now."""
    with transaction() as db:
        row = db.execute(
            "SELECT game_id FROM daily_games WHERE player = ? AND day = ? AND board = ?" + backend().for_update,
            (player, day, board),
        ).fetchone()
        if row is not None:
            game_id, created = row[0], False
        else:
            game_id, created = insert_game(db, size, max_guesses, secret, player=player), True
            added = db.execute(
                "INSERT INTO daily_games (player, day, board, game_id) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (player, day, board) DO NOTHING",
                (player, day, board, game_id),
            ).rowcount
            if added == 0:  # a request at the same moment made it first: keep that one
                db.execute("DELETE FROM watch_links WHERE game_id = ?", (game_id,))
                db.execute("DELETE FROM games WHERE id = ?", (game_id,))
                game_id, created = (
                    db.execute(
                        "SELECT game_id FROM daily_games WHERE player = ? AND day = ? AND board = ?",
                        (player, day, board),
                    ).fetchone()[0],
                    False,
                )
    return load_game(game_id), created


def daily_of(game_id: str) -> tuple[int, str] | None:
    """The day and board of a daily game, or None for any other game."""
    row = get_db().execute("SELECT day, board FROM daily_games WHERE game_id = ?", (str(game_id),)).fetchone()
    return (int(row[0]), row[1]) if row else None


def daily_games_of(player: str, day: int) -> dict[str, Game]:
    """``player``'s games of ``day``'s puzzles, by board."""
    rows = get_db().execute("SELECT board, game_id FROM daily_games WHERE player = ? AND day = ?", (player, day))
    return {row[0]: load_game(row[1]) for row in rows.fetchall()}


@dataclass
class Played:
    """One finished game of a player, as statistics count it."""

    id: str
    size: GameSize
    max_guesses: int
    secret: Code
    status: str
    guesses: list[Code]
    daily: int | None  # the day number of a daily puzzle
    created_at: float = 0.0


def finished_games(player: str, limit: int = 1000) -> list[Played]:
    """The finished games of ``player`` (the newest ``limit``), oldest first."""
    db = get_db()
    games = db.execute(
        "SELECT g.id, g.pegs, g.colors, g.distinct_, g.distinct_guesses, g.max_guesses, g.secret, g.status,"
        " d.day, g.created_at"
        " FROM games g"
        " LEFT JOIN daily_games d ON d.game_id = g.id"
        " WHERE g.player = ? AND g.status <> ? ORDER BY g.created_at DESC, g.id LIMIT ?",
        (player, PLAYING, limit),
    ).fetchall()
    out = []
    for row in reversed(games):
        size = size_of(row)
        guesses = [
            Code.parse(r[0], size)
            for r in db.execute("SELECT guess FROM guesses WHERE game_id = ? ORDER BY move", (row["id"],))
        ]
        out.append(
            Played(
                row["id"],
                size,
                row["max_guesses"],
                Code.parse(row["secret"], size),
                row["status"],
                guesses,
                None if row["day"] is None else int(row["day"]),
                float(row["created_at"]),
            )
        )
    return out


def forget_idle_players(cutoff: float) -> int:
    """Let go of the player tokens whose latest game began before ``cutoff``
    (a Unix time): their games stay, tied to nobody, and their daily records
    go. Returns how many tokens were let go."""
    with transaction() as db:
        idle = [
            row[0]
            for row in db.execute(
                "SELECT player FROM games WHERE player IS NOT NULL GROUP BY player HAVING MAX(created_at) < ?",
                (cutoff,),
            )
        ]
        db.executemany("DELETE FROM daily_games WHERE player = ?", [(p,) for p in idle])
        db.executemany("UPDATE games SET player = NULL WHERE player = ?", [(p,) for p in idle])
    return len(idle)


# --- retention: games nobody plays any more -----------------------------------------------------


def expire_abandoned(cutoff: float) -> int:
    """Delete the games still being played whose last move (or creation) is
    older than ``cutoff`` (a Unix time), with everything hanging off them.
    Finished games stay (their replays and challenge results point at them)."""
    with transaction() as db:
        ids = [
            row[0]
            for row in db.execute(
                "SELECT g.id FROM games g WHERE g.status = ? AND COALESCE("
                "(SELECT MAX(gu.at) FROM guesses gu WHERE gu.game_id = g.id), g.created_at) < ?",
                (PLAYING, cutoff),
            )
        ]
        for table in ("guesses", "hints", "watch_links", "challenge_games", "daily_games"):
            db.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(i,) for i in ids])
        db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
        db.execute("DELETE FROM rate_limits WHERE expires < ?", (time.time(),))
    return len(ids)
