"""The schema on Alembic: a database written by the release before Alembic
(tests/data/release-*.sql, made by tests/data/release_database.py) opens
under this one with nothing lost, on SQLite and on PostgreSQL; the tables
the queries are built from are the tables the revisions make; and the
operator's command upgrades."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from webapp import create_app, store
from webapp.store.tables import metadata

BOTH = pytest.mark.backends("sqlite", "postgresql")
DATA = Path(__file__).parent / "data"


def ordered(rows) -> list[dict]:
    return sorted((dict(row) for row in rows), key=lambda row: [str(v) for v in row.values()])


def load_release(backend: str, url: str) -> dict[str, list[dict]]:
    """Write the release's database at ``url`` and return its rows, read
    with the database's own driver, table by table."""
    script = (DATA / f"release-{backend}.sql").read_text()
    tables = ("games", "guesses", "challenges", "challenge_games", "codemaker_games", "codemaker_replies")
    tables += ("daily_games", "hints", "watch_links", "jobs", "server_keys", "rate_limits")
    if backend == "sqlite":
        db = sqlite3.connect(url)
        db.row_factory = sqlite3.Row
        db.executescript(script)
        rows = {table: ordered(db.execute(f"SELECT * FROM {table}")) for table in tables}
        db.close()
        return rows
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as db:
        db.execute(script)
        return {table: ordered(db.execute(f"SELECT * FROM {table}")) for table in tables}


@BOTH
def test_a_release_database_upgrades_with_nothing_lost(backend, db_config):
    url = db_config["DATABASE_URL"] or db_config["DATABASE"]
    before = load_release(backend, url)
    assert all(before[table] for table in ("games", "challenges", "codemaker_games", "daily_games", "hints"))
    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
    try:
        # Never upgraded silently as the app starts: it says it cannot serve yet.
        waiting = app.test_client().get("/api/games/x")
        assert waiting.status_code == 503 and "being upgraded" in waiting.get_json()["error"]
        assert store.schema.revision(app.extensions["store"]) is None
        assert app.test_cli_runner().invoke(args=["db", "upgrade"]).exit_code == 0
        app.extensions["store"].close()
        app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
        assert store.schema.revision(app.extensions["store"]) == store.schema.head()
        with app.app_context():
            db = store.connection()
            for table, rows in before.items():  # every row, every column
                assert ordered(db.exec_driver_sql(f"SELECT * FROM {table}").mappings()) == rows, table
            assert not db.dialect.has_table(db, "schema_version")
            for row in before["games"]:  # every game reads back, with its moves in order
                game = store.games.load_game(row["id"])
                moves = sorted((m["move"], m["guess"]) for m in before["guesses"] if m["game_id"] == row["id"])
                assert [str(m.guess) for m in game.moves] == [guess for _, guess in moves]
                assert (str(game.secret), game.status, game.hard) == (row["secret"], row["status"], bool(row["hard"]))
            for row in before["challenges"]:
                challenge = store.challenges.load_challenge(row["id"], row["results_key"])
                counted = {
                    c["game_id"] for c in before["challenge_games"] if c["challenge_id"] == row["id"] and c["counted"]
                }
                assert {p.game_id for p in store.challenges.challenge_players(challenge)} == counted
            for row in before["codemaker_games"]:
                replies = [r for r in before["codemaker_replies"] if r["game_id"] == row["id"]]
                assert len(store.codemaker.load_codemaker(row["id"]).moves) == len(replies)
            for row in before["daily_games"]:
                assert store.players.daily_games_of(row["player"], row["day"])[row["board"]].id == row["game_id"]
                assert store.players.issued_earlier(row["player"])  # the server's own, though not signed
            for row in before["hints"]:
                assert store.games.load_hint(row["game_id"], row["move"], row["strategy"]) == row["result"]
        client = app.test_client()
        player = before["daily_games"][0]["player"]
        finished = [row for row in before["games"] if row["player"] == player and row["status"] != "playing"]
        stats = client.get(f"/api/me/stats?player={player}").get_json()
        assert stats["played"] == len(finished) > 0
        for row in before["games"]:  # and every game is served
            assert client.get(f"/api/games/{row['id']}").status_code == 200
        playing = client.post("/api/games", json={}).get_json()  # and new records are written
        assert client.post(f"/api/games/{playing['id']}/guesses", json={"guess": "1122"}).status_code == 200
    finally:
        app.extensions["store"].close()


@BOTH
def test_the_tables_are_the_revisions_own(app):
    """What ``tables.py`` says and what the revisions built agree, column by
    column, index by index (Alembic's autogenerate finds nothing to do)."""
    with app.app_context():
        db = store.connection()
        differences = compare_metadata(MigrationContext.configure(db, opts={"compare_type": True}), metadata)
    changes = [change for group in differences for change in (group if isinstance(group, list) else [group])]
    if app.extensions["store"].name == "sqlite":  # SQLite lets a PRIMARY KEY of text hold NULL (its own quirk)
        keys = {(t.name, c.name) for t in metadata.tables.values() for c in t.primary_key}
        changes = [c for c in changes if not (c[0] == "modify_nullable" and (c[2], c[3]) in keys)]
    assert [c for c in changes if c[0] != "remove_table" or c[1].name != "alembic_version"] == []


def test_the_operator_upgrades_with_one_command(tmp_path):
    """``flask --app webapp db upgrade`` on a release's SQLite file, then
    ``db current`` says it is at this release's revision."""
    path = str(tmp_path / "old.sqlite3")
    load_release("sqlite", path)
    app = create_app({"DATABASE": path, "DATABASE_URL": None, "TESTING": True, "JOBS_CONSUMER": "none"})
    runner = app.test_cli_runner()
    upgraded = runner.invoke(args=["db", "upgrade"])
    assert upgraded.exit_code == 0 and store.schema.head() in upgraded.output
    current = runner.invoke(args=["db", "current"])
    assert current.output.count(store.schema.head()) == 2
    app.extensions["store"].close()


@BOTH
def test_live_sessions_of_the_last_release_keep_their_students(backend, db_config):
    """A database at revision 0002 with a session in progress: after the
    upgrade its students have seats in joining order, none removed, and the
    room is open with typed names."""
    from webapp.store.database import Database

    url = db_config["DATABASE_URL"] or db_config["DATABASE"]
    database = Database(url)
    try:
        store.schema.upgrade(database, "0002")
        with database.engine.begin() as db:
            db.exec_driver_sql(
                "INSERT INTO live_sessions (code, teacher, pegs, colors, distinct_, strategy, source, created_at, "
                "touched_at) VALUES ('ACDEFG', 'x', 4, 6, 0, 'knuth', 'adversary', 1e10, 1e10)"
            )
            for token, name, at in (("t-b", "Bo", 2.0), ("t-a", "Ann", 1.0), ("t-c", "Cy", 2.0)):
                db.exec_driver_sql(
                    "INSERT INTO live_students (token, code, nickname, joined_at) "
                    f"VALUES ('{token}', 'ACDEFG', '{name}', {at})"
                )
        store.schema.upgrade(database)
    finally:
        database.close()
    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
    try:
        with app.app_context():
            session = store.live.load_live("ACDEFG", 0)
            assert (session.names, session.locked) == ("typed", False)
            assert [(s.seat, s.nickname) for s in store.live.students("ACDEFG")] == [(1, "Ann"), (2, "Bo"), (3, "Cy")]
    finally:
        app.extensions["store"].close()
