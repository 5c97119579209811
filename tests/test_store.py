"""Storage: games survive restarts, moves are recorded once, workers share
the database, old databases upgrade themselves; on SQLite and on PostgreSQL."""

import json
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from records import sql

from benchmarks.servers import free_port
from webapp import create_app, jobs, store
from webapp.engine import Code, GameSize, rules
from webapp.web.loaders import play_guess

BOTH = pytest.mark.backends("sqlite", "postgresql")


def test_ids_are_long_and_random():
    ids = {store.games.new_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) >= 22 for i in ids)  # 16 random bytes, base64


@BOTH
def test_game_survives_restart(db_config):
    first = create_app({**db_config, "JOBS_CONSUMER": "none"})
    with first.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
        play_guess(game.id, Code.parse("1111", GameSize()))
        play_guess(game.id, Code.parse("1122", GameSize()))
    first.extensions["store"].close()
    second = create_app({**db_config, "JOBS_CONSUMER": "none"})  # a new process would do the same
    client = second.test_client()
    data = client.get(f"/api/games/{game.id}").get_json()
    assert [g["guess"] for g in data["guesses"]] == ["1111", "1122"]
    data = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1234"}).get_json()
    assert data["status"] == "won" and data["secret"] == "1234"


def test_database_is_in_wal_mode(app, db_path):
    with app.app_context():
        assert store.connection().exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


@BOTH
def test_same_move_twice_is_recorded_once(app):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
        play_guess(game.id, Code.parse("1111", GameSize()), move=1)
        with pytest.raises(rules.StaleMove):
            play_guess(game.id, Code.parse("1111", GameSize()), move=1)
        assert len(store.games.load_game(game.id).moves) == 1


@BOTH
def test_concurrent_posts_of_one_move(app):
    """Many threads post move 1 at once: exactly one is accepted."""
    with app.app_context():
        game = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
    start = threading.Barrier(8, timeout=60)  # each round of eight posts leaves together

    def post(_):
        client = app.test_client()
        start.wait()
        return client.post(f"/api/games/{game.id}/guesses", json={"guess": "1122", "move": 1}).status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(post, range(16)))
    assert codes.count(200) == 1 and codes.count(409) == 15
    with app.app_context():
        assert len(store.games.load_game(game.id).moves) == 1


def call(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, json.loads(resp.read())


@BOTH
def test_gunicorn_workers_share_games(db_config):
    """Four gunicorn workers serve one game's moves in turn, none lost or doubled."""
    port = free_port()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen(
        [str(gunicorn), "--workers", "4", "--bind", f"127.0.0.1:{port}", f"webapp:create_app({db_config!r})"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=Path(__file__).parent.parent,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            try:
                status, game = call(base + "/api/games", {"max_guesses": 30})
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        assert status == 201
        guesses = ["1111", "2222", "3333", "4444", "5555", "6666", "1212", "3434"] * 3
        for n, guess in enumerate(guesses, start=1):
            status, game = call(f"{base}/api/games/{game['id']}/guesses", {"guess": guess, "move": n})
            if game["status"] != "playing":
                break
        status, final = call(f"{base}/api/games/{game['id']}")
        assert [g["guess"] for g in final["guesses"]] == guesses[: len(final["guesses"])]
        assert len(final["guesses"]) == n
    finally:
        proc.terminate()
        proc.wait(10)


@BOTH
def test_abandoned_games_expire(app):
    import time as clock

    with app.app_context():
        old = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
        play_guess(old.id, Code.parse("1122", GameSize()))
        finished = store.games.create_game(GameSize(), 10, Code.parse("1234", GameSize()))
        play_guess(finished.id, Code.parse("1234", GameSize()))
        fresh = store.games.create_game(GameSize(), 10)
        long_ago = clock.time() - 40 * 86400
        sql("UPDATE games SET created_at = :t WHERE id IN (:a, :b)", t=long_ago, a=old.id, b=finished.id)
        sql("UPDATE guesses SET at = :t WHERE game_id IN (:a, :b)", t=long_ago, a=old.id, b=finished.id)
        assert store.games.expire_abandoned(clock.time() - 30 * 86400) == 1
        with pytest.raises(store.games.GameNotFound):
            store.games.load_game(old.id)
        assert store.games.load_game(finished.id).status == "won"  # finished games stay
        assert store.games.load_game(fresh.id).status == "playing"
        assert sql("SELECT COUNT(*) FROM guesses WHERE game_id = :g", g=old.id).scalar() == 0


def test_retention_of_zero_days_keeps_every_game(app):
    """GAME_RETENTION_DAYS = 0 keeps games, for the command as for the hourly sweep."""
    app.config["GAME_RETENTION_DAYS"] = 0
    with app.app_context():
        game = store.games.create_game(GameSize(), 10)
        sql("UPDATE games SET created_at = :t WHERE id = :g", t=time.time() - 400 * 86400, g=game.id)
    output = app.test_cli_runner().invoke(args=["expire-games"]).output
    assert "kept every game" in output
    with app.app_context():
        assert store.games.load_game(game.id).status == "playing"


@BOTH
def test_a_first_release_database_upgrades_and_plays_on(backend, db_config):
    """A database made before schema versions (games and guesses only), with
    a game in progress: the app brings it up to date, and the game plays on,
    with every feature of this version (watch link, replay, hints)."""
    url = db_config["DATABASE_URL"] or db_config["DATABASE"]
    script = (Path(__file__).parent / "data" / "schema-v1.sql").read_text()
    # Played today: a game from 1970 would be abandoned, and the app's hourly
    # sweep (at minute 17) deletes abandoned games.
    now = time.time()
    rows = [
        "INSERT INTO games (id, pegs, colors, distinct_, max_guesses, secret, created_at)"
        f" VALUES ('old-game', 4, 6, 0, 10, '3632', {now})",
        f"INSERT INTO guesses (game_id, move, guess, black, white, at) VALUES ('old-game', 1, '1122', 1, 0, {now})",
    ]
    if backend == "postgresql":
        import psycopg

        with psycopg.connect(url, autocommit=True) as old:
            for statement in [*script.replace("REAL", "DOUBLE PRECISION").split(";"), *rows]:
                if statement.strip():
                    old.execute(statement)
    else:
        import sqlite3

        old = sqlite3.connect(url)
        old.executescript(script)
        for statement in rows:
            old.execute(statement)
        old.commit()
        old.close()
    first = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
    assert first.test_client().get("/api/games/old-game").status_code == 503  # not upgraded as it starts
    assert first.test_cli_runner().invoke(args=["db", "upgrade"]).exit_code == 0  # the operator's command
    first.extensions["store"].close()
    app = create_app({**db_config, "TESTING": True})
    try:
        assert store.schema.revision(app.extensions["store"]) == store.schema.head()
        with app.app_context():  # the hourly sweep, whenever it runs, keeps a game played today
            jobs.sweep(app.config, app.logger, time.time())
        client = app.test_client()
        response = client.get("/api/games/old-game")
        assert response.status_code == 200, response.get_data(as_text=True)
        game = response.get_json()
        assert [g["guess"] for g in game["guesses"]] == ["1122"] and game["watch_url"]
        client.post("/games/old-game/suggestion", data={"strategy": "knuth"})
        done = client.post("/api/games/old-game/guesses", json={"guess": "3632"}).get_json()
        assert done["status"] == "won" and done["replay_url"]
        assert client.get(done["watch_url"]).status_code == 200
    finally:
        app.extensions["jobs"].stop()
        app.extensions["store"].close()
    # Opening it again applies nothing twice.
    again = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"})
    assert store.schema.revision(again.extensions["store"]) == store.schema.head()
    with again.app_context():
        assert sql("SELECT COUNT(*) FROM alembic_version").scalar() == 1
        assert sql("SELECT COUNT(*) FROM games").scalar() == 1
    again.extensions["store"].close()


@pytest.mark.backends("postgresql")
def test_servers_starting_together_upgrade_once(db_config):
    """Several app processes starting at once on one new PostgreSQL database:
    the schema is made once, and every app works."""
    url = db_config["DATABASE_URL"]
    databases = [store.Database(url) for _ in range(4)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(store.upgrade, databases))
    import psycopg

    with psycopg.connect(url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version_num FROM alembic_version")]
    assert versions == [store.schema.head()]
    for database in databases:
        database.close()


def test_database_url_forms(tmp_path):
    assert store.Database(str(tmp_path / "a.sqlite3")).name == "sqlite"
    assert store.Database(f"sqlite:///{tmp_path}/b.sqlite3").engine.url.database == f"{tmp_path}/b.sqlite3"
    assert store.Database("postgresql://u@localhost/db").name == "postgresql"
    with pytest.raises(ValueError, match="DATABASE_URL must be"):
        store.Database("mysql://u@localhost/db")


def test_postgresql_outage_is_a_503_and_loses_nothing(tmp_path):
    """The database server dies in the middle of a game: moves get a 503 with
    a sentence (never a 500), and when the server is back the game plays on
    from the last acknowledged move."""
    from benchmarks.servers import postgresql

    with postgresql(durable=True) as url:  # a crash keeps what was committed
        app = create_app(
            {
                "DATABASE_URL": str(url),
                "REDIS_URL": None,
                "DATABASE_POOL_TIMEOUT": 1.0,
                "JOBS_CONSUMER": "none",
                "TESTING": True,
            }
        )
        client = app.test_client()
        game = client.post("/api/games", json={"secret": None}).get_json()
        assert client.post(f"/api/games/{game['id']}/guesses", json={"guess": "1122", "move": 1}).status_code == 200
        url.stop()
        for _ in range(2):  # the broken connection, then no connection at all
            resp = client.post(f"/api/games/{game['id']}/guesses", json={"guess": "3456", "move": 2})
            assert resp.status_code == 503 and "Nothing was lost" in resp.get_json()["error"]
        page = client.get(f"/games/{game['id']}")
        assert page.status_code == 503 and "Nothing was lost" in page.get_data(as_text=True)
        url.start()
        deadline = time.time() + 20
        while (
            resp := client.post(f"/api/games/{game['id']}/guesses", json={"guess": "3456", "move": 2})
        ).status_code == 503:
            assert time.time() < deadline
            time.sleep(0.2)
        assert resp.status_code == 200
        assert [g["guess"] for g in resp.get_json()["guesses"]] == ["1122", "3456"]
        app.extensions["store"].close()
