"""Write a small database the way a release of the app does, and print it
as SQL: the fixture of tests/test_migrations.py, which upgrades it with the
current release and reads every record back.

The dumps under tests/data/ were made by the release before the store moved
to SQLAlchemy and Alembic (commit 8a98e68), with:

    git worktree add /tmp/release 8a98e68 && cd /tmp/release
    python /path/to/tests/data/release_database.py sqlite > release-sqlite.sql
    python /path/to/tests/data/release_database.py postgresql > release-postgresql.sql

(the second needs Debian's postgresql package; it starts a throwaway server).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.getcwd())


def play(client) -> None:
    """Every kind of record: games won, lost, in play and in hard mode, with
    hints and a watch link; a challenge with a counted game and a practice
    game; codemaker games; daily games of one player; a finished job."""

    def ok(response, status=(200, 201)):
        assert response.status_code in status, (response.status_code, response.get_data(as_text=True))
        return response.get_json()

    won = ok(client.post("/api/games", json={"pegs": 4, "colors": 6}))
    for guess in ("1122", "3456"):
        ok(client.post(f"/api/games/{won['id']}/guesses", json={"guess": guess}))
    lost = ok(client.post("/api/games", json={"pegs": 2, "colors": 3, "max_guesses": 1}))
    ok(client.post(f"/api/games/{lost['id']}/guesses", json={"guess": "11"}))
    playing = ok(client.post("/api/games", json={"pegs": 3, "colors": 5, "distinct": True, "hard": True}))
    ok(client.post(f"/api/games/{playing['id']}/guesses", json={"guess": "123"}))
    assert client.post(f"/games/{playing['id']}/suggestion", data={"strategy": "knuth"}).status_code == 303
    assert client.post(f"/games/{playing['id']}/counter", data={"show": "1"}).status_code == 303
    challenge = ok(client.post("/api/challenges", json={"pegs": 3, "colors": 4, "secret": "123"}))
    first = ok(client.post(f"/api/challenges/{challenge['id']}/games", json={"name": "Ada"}))
    ok(client.post(f"/api/games/{first['id']}/guesses", json={"guess": "124"}))
    ok(client.post(f"/api/games/{first['id']}/guesses", json={"guess": "123"}))
    again = ok(client.post(f"/api/challenges/{challenge['id']}/games", json={"player": first["player"]}))
    ok(client.post(f"/api/games/{again['id']}/guesses", json={"guess": "111"}))
    ok(client.post(f"/api/challenges/{challenge['id']}/games", json={"name": "Bo"}))
    maker = ok(client.post("/api/codemaker", json={"pegs": 4, "colors": 6}))
    ok(client.post(f"/api/codemaker/{maker['id']}/feedback", json={"black": 1, "white": 1}))
    ok(client.post("/api/codemaker", json={"pegs": 3, "colors": 3}))
    daily = ok(client.post("/api/daily", json={}))
    player = daily["player"]
    for guess in ("1122", "3344", "5566", "1234", "2345", "3456", "4561", "5612", "6123", "1111"):
        if ok(client.get(f"/api/games/{daily['id']}"))["status"] != "playing":
            break
        ok(client.post(f"/api/games/{daily['id']}/guesses", json={"guess": guess}), (200, 201, 422))
    ok(client.post("/api/daily", json={"pegs": 5, "player": player}))
    ok(client.get(f"/api/me/stats?player={player}"))
    ok(client.get(f"/api/games/{first['id']}/review"), (200, 202))
    ok(client.get("/api/solver/compare?pegs=3&colors=3"), (200, 202))
    board = client.get(f"/games/{won['id']}")  # the page makes the watch link
    assert board.status_code == 200


def portable(dump: str) -> str:
    """pg_dump's output as plain SQL that loads into whatever schema the
    connection's search_path names: no psql meta-commands, no ``public.``."""
    kept = [
        line
        for line in dump.splitlines()
        if not line.startswith("\\") and "set_config('search_path'" not in line and not line.startswith("--")
    ]
    return "\n".join(kept).replace("public.", "")


def main(kind: str) -> None:
    from webapp import create_app

    config = {"TESTING": True, "REDIS_URL": None, "CREATE_RATE_LIMIT": "1000 per minute", "JOBS_CONSUMER": "none"}
    with tempfile.TemporaryDirectory() as folder:
        if kind == "sqlite":
            path = os.path.join(folder, "games.sqlite3")
            app = create_app({**config, "DATABASE": path, "DATABASE_URL": None})
            play(app.test_client())
            app.extensions["store"].close()
            db = sqlite3.connect(path)
            print("\n".join(db.iterdump()))
            return
        from benchmarks.servers import postgres_bin, postgresql

        with postgresql() as url:
            app = create_app({**config, "DATABASE_URL": str(url)})
            play(app.test_client())
            app.extensions["store"].close()
            dump = subprocess.run(
                [postgres_bin("pg_dump"), "--no-owner", "--no-privileges", "--inserts", str(url)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            print(portable(dump))


if __name__ == "__main__":
    main(sys.argv[1])
