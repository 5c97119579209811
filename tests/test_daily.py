"""The daily puzzle and a player's statistics: one secret a day for
everyone, kept server-side; one game per browser and day; the share text
with the day's number; statistics with streaks, the guesses histogram and
the comparison with the algorithms on the same secrets; the private link
that carries them; the retention rule for idle tokens."""

import re
import time

import pytest
from records import sql

from webapp import create_app, store
from webapp.engine import Code
from webapp.web import days

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture(autouse=True)
def one_day(monkeypatch):
    """The day's clock stops as the test starts: a test that runs across
    midnight UTC still sees one day."""
    stopped = days.clock()
    monkeypatch.setattr(days, "clock", lambda: stopped)


@pytest.fixture
def app(db_config):
    """No background consumer: the reviews the statistics start stay queued."""
    app = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none", "CREATE_RATE_LIMIT": "5000 per minute"})
    yield app
    app.extensions["jobs"].stop()


def start_daily(client, board="classic"):
    answer = client.post("/daily", data={"board": board})
    assert answer.status_code == 303
    return answer.headers["Location"].rsplit("/", 1)[1]


def secret_of(app, game_id) -> Code:
    with app.app_context():
        return store.games.load_game(game_id).secret


def test_everyone_plays_the_same_secret_once_a_day(app, backend):
    first, second = app.test_client(), app.test_client()
    a, b = start_daily(first), start_daily(second)
    assert a != b  # each browser its own game...
    assert secret_of(app, a) == secret_of(app, b)  # ...of the same secret
    for i, guess in enumerate(["1122", "3456"], start=1):
        ra = first.post(f"/api/games/{a}/guesses", json={"guess": guess, "move": i}).get_json()
        rb = second.post(f"/api/games/{b}/guesses", json={"guess": guess, "move": i}).get_json()
        assert ra["guesses"] == rb["guesses"]  # the same feedback for the same guesses
    assert start_daily(first) == a  # one game per browser and day
    with app.app_context():
        super_secret = days.secret(days.today(), "super")
        other_days = {str(days.secret(n, "classic")) for n in range(1, 40)}
    assert super_secret.pegs != secret_of(app, a).pegs
    assert len(other_days) > 20  # the secret changes with the day


def test_the_secret_stays_secret_until_the_end(app, client):
    game_id = start_daily(client)
    secret = str(secret_of(app, game_id))
    for path in ("/daily", f"/games/{game_id}", f"/daily/{days.today()}"):
        page = client.get(path)
        text = page.get_data(as_text=True)
        assert "secret-text" not in text and f">{secret}<" not in text and f'"{secret}"' not in text, path
        # Never a header's value or a word in one (a length or an id may hold its digits by chance).
        alone = re.compile(rf"(?<![0-9A-Za-z]){secret}(?![0-9A-Za-z])")
        assert not any(alone.search(value) for _, value in page.headers.items()), path
    state = client.get(f"/api/games/{game_id}").get_json()
    assert "secret" not in state and "replay_url" not in state
    api = client.post("/api/daily", json={"pegs": 4, "colors": 6}).get_json()
    assert "secret" not in api and api["day"] == days.today()
    # Once over, it is shown.
    client.post(f"/api/games/{game_id}/guesses", json={"guess": secret, "move": 1})
    assert client.get(f"/api/games/{game_id}").get_json()["secret"] == secret


def test_the_key_is_shared_by_every_server_on_the_database(db_config, backend):
    apps = [create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none"}) for _ in range(2)]
    secrets = []
    for app in apps:
        with app.app_context():
            secrets.append(days.secret(days.today(), "classic"))
        app.extensions["jobs"].stop()
    assert secrets[0] == secrets[1]
    configured = create_app({**db_config, "TESTING": True, "JOBS_CONSUMER": "none", "DAILY_KEY": "another key"})
    with configured.app_context():
        other = [days.secret(n, "classic") for n in range(1, 9)]
    with apps[0].app_context():
        stored = [days.secret(n, "classic") for n in range(1, 9)]
    assert other != stored  # the key decides the secrets
    configured.extensions["jobs"].stop()


def test_the_api_gives_the_same_game_back_with_the_token(client):
    made = client.post("/api/daily", json={"pegs": 5, "colors": 8})
    assert made.status_code == 201
    body = made.get_json()
    again = client.post("/api/daily", json={"pegs": 5, "colors": 8, "player": body["player"]})
    assert again.status_code == 200 and again.get_json()["id"] == body["id"]
    wrong = client.post("/api/daily", json={"pegs": 4, "colors": 7})
    assert wrong.status_code == 400 and "4 pegs and 6 colours" in wrong.get_json()["error"]
    mixed = client.post("/api/daily", json={"pegs": 5, "colors": 6})
    assert mixed.status_code == 400 and "5 pegs and 8 colours" in mixed.get_json()["error"]
    super_by_pegs = client.post("/api/daily", json={"pegs": 5, "player": body["player"]})  # colours follow
    assert super_by_pegs.status_code == 200 and super_by_pegs.get_json()["id"] == body["id"]


def test_days_not_yet_come_are_not_offered(client):
    future = days.today() + 1
    assert client.get(f"/daily/{future}").status_code == 404
    answer = client.post("/daily", data={"board": "classic", "day": str(future)})
    assert answer.status_code == 404
    assert client.post("/daily", data={"board": "nope"}).status_code == 400
    assert client.post("/daily", data={"board": "classic", "day": "²"}).status_code == 400


def test_the_share_text_names_the_day_and_links_to_the_puzzle(app, client):
    game_id = start_daily(client)
    secret = str(secret_of(app, game_id))
    client.post(f"/api/games/{game_id}/guesses", json={"guess": secret, "move": 1})
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    text = re.search(r'id="share-text"[^>]*>([^<]*)</textarea>', page)[1]
    lines = text.split("\n")
    assert lines[0] == f"Mastermind daily #{days.today()} 1/10"
    assert lines[-1].endswith(f"/daily/{days.today()}") and secret not in text


def win(client, app, game_id, wrong=()):
    secret = str(secret_of(app, game_id))
    guesses = [g for g in wrong if g != secret] + [secret]
    for move, guess in enumerate(guesses, start=1):
        assert client.post(f"/api/games/{game_id}/guesses", json={"guess": guess, "move": move}).status_code == 200
    return len(guesses)


def test_statistics_after_three_games(app, client):
    today = days.today()
    counts = []
    # Daily puzzles of the two days before and today, then a lost free game.
    for number in (today - 2, today - 1, today):
        answer = client.post("/daily", data={"board": "classic", "day": str(number)})
        game_id = answer.headers["Location"].rsplit("/", 1)[1]
        counts.append(win(client, app, game_id, ["1122"] * (number - today + 3)))
        if number == today - 2:  # played late: it does not count for the streak...
            late = game_id
        else:  # ...these two are taken as played on their own days
            with app.app_context():
                when = days.clock().timestamp() - (today - number) * 86400  # the test's one day
                sql("UPDATE games SET created_at = :t WHERE id = :g", t=when, g=game_id)
    token = client.get_cookie("player").value
    lost = client.post("/games", data={"preset": "classic"}).headers["Location"].rsplit("/", 1)[1]
    wrong = "1111" if str(secret_of(app, lost)) != "1111" else "2222"
    for move in range(1, 11):
        assert client.post(f"/api/games/{lost}/guesses", json={"guess": wrong, "move": move}).status_code == 200
    stats = client.get("/api/me/stats").get_json()
    assert stats["player"] == token
    assert stats["played"] == 4 and stats["won"] == 3 and stats["win_rate"] == 75 and stats["lost"] == 1
    assert stats["current_streak"] == 2 and stats["longest_streak"] == 2 and stats["daily_played"] == 3
    with app.app_context():  # taken as played on its day too: three in a row
        sql("UPDATE games SET created_at = :t WHERE id = :g", t=days.clock().timestamp() - 2 * 86400, g=late)
    stats = client.get("/api/me/stats").get_json()
    assert stats["current_streak"] == 3 and stats["longest_streak"] == 3
    for n in set(counts):
        assert stats["guesses"][str(n)] == counts.count(n)
    assert stats["average_guesses"] == pytest.approx(sum(counts) / 3, abs=0.01)
    knuth = stats["versus_knuth"]
    assert knuth["games"] == 3 and knuth["you"] == stats["average_guesses"] and knuth["knuth"] >= 1
    optimal = stats["versus_optimal"]
    assert optimal["games"] == 3 and 1 <= optimal["optimal"] <= 6
    same = client.get(f"/api/me/stats?player={token}").get_json()
    assert {k: v for k, v in same.items() if k not in ("average_skill", "reviewed")} == {
        k: v for k, v in stats.items() if k not in ("average_skill", "reviewed")
    }  # the reviews may have finished in between
    page = client.get("/me").get_data(as_text=True)
    assert "Your statistics" in page and "/me/carry/" + token in page and 'class="histogram"' in page


def test_the_private_link_carries_the_statistics(app, client):
    start_daily(client)
    token = client.get_cookie("player").value
    other = app.test_client()
    page = other.get(f"/me/carry/{token}")
    assert page.status_code == 200 and page.headers.get("Referrer-Policy") == "no-referrer"
    assert other.get_cookie("player") is None  # opening the link alone changes nothing
    taken = other.post("/me/carry", data={"token": token})
    assert taken.status_code == 303 and other.get_cookie("player").value == token
    assert other.get("/api/me/stats").get_json()["player"] == token
    assert other.post("/me/carry", data={"token": "short"}).status_code == 400
    assert other.get("/me/carry/bad").status_code == 404


def test_carrying_asks_before_putting_this_browsers_statistics_aside(app, client):
    """A browser with statistics of its own is told what they are and asked;
    replacing them keeps a way back, and the way back is a single button."""
    start_daily(client)
    theirs = client.get_cookie("player").value
    other = app.test_client()
    start_daily(other)
    mine = other.get_cookie("player").value
    page = other.get(f"/me/carry/{theirs}").get_data(as_text=True)
    assert (
        "This browser has statistics of its own" in page
        and "1 of today's Daily Mastermind games still being played" in page
    )
    unasked = other.post("/me/carry", data={"token": theirs})  # a form without the answer to the question
    assert unasked.status_code == 409 and other.get_cookie("player").value == mine
    taken = other.post("/me/carry", data={"token": theirs, "replace": "1"})
    assert taken.status_code == 303 and other.get_cookie("player").value == theirs
    assert other.get_cookie("previous_player").value == mine
    me = other.get("/me").get_data(as_text=True)
    assert "Switch to the other statistics" in me and f'value="{mine}"' in me
    back = other.post("/me/carry", data={"token": mine, "replace": "1"})
    assert back.status_code == 303 and other.get_cookie("player").value == mine
    assert other.get_cookie("previous_player").value == theirs  # and forth again, if wanted
    again = other.get("/me").get_data(as_text=True)  # the same words fit both ways
    assert "Switch to the other statistics" in again and f'value="{theirs}"' in again


def test_tokens_idle_for_a_year_are_let_go(app, client):
    game_id = start_daily(client)
    token = client.get_cookie("player").value
    with app.app_context():
        sql("UPDATE games SET created_at = :t WHERE id = :g", t=time.time() - 400 * 86400, g=game_id)
        assert store.players.forget_idle_players(time.time() - 365 * 86400) == 1
        assert store.players.daily_games_of(token, days.today()) == {}
        assert store.games.load_game(game_id).id == game_id  # the game stays
    runner = app.test_cli_runner()
    assert "let go of 0 player tokens" in runner.invoke(args=["expire-games"]).output


def test_streaks():
    from webapp.web.stats import streaks

    assert streaks(set(), 10) == (0, 0)
    assert streaks({10}, 10) == (1, 1)
    assert streaks({9}, 10) == (1, 1)  # today's is still to play
    assert streaks({1, 2, 3, 5}, 10) == (0, 3)


def test_a_watched_daily_keeps_its_secret_behind_a_warning(app, client):
    """Others still play the day's secret: the watch page of a lost daily
    shows it only when asked, and links to the puzzle, not to a replay."""
    game_id = start_daily(client)
    secret = str(secret_of(app, game_id))
    wrong = next(code for code in ("1111", "2222") if code != secret)
    answer: dict = {"status": "playing"}
    while answer["status"] == "playing":
        answer = client.post(f"/api/games/{game_id}/guesses", json={"guess": wrong}).get_json()
    assert answer["status"] == "lost"
    html = client.get(answer["watch_url"]).get_data(as_text=True)
    shown, hidden = html.split('<details class="spoiler">', 1)
    assert secret not in shown.split("<main", 1)[1]
    assert f'<span class="secret-text">{secret}</span>' in hidden.split("</details>", 1)[0]
    assert "/replay/" not in html and f'href="/daily/{days.today()}"' in html


def test_a_watched_daily_that_was_won_keeps_its_last_row_behind_a_warning(app, client):
    """A won game's last row is the secret: a watcher who has yet to play
    the day's puzzle sees the other rows, and that one only when asked."""
    game_id = start_daily(client)
    secret = str(secret_of(app, game_id))
    opening = next(code for code in ("1122", "3456") if code != secret)
    client.post(f"/api/games/{game_id}/guesses", json={"guess": opening})
    answer = client.post(f"/api/games/{game_id}/guesses", json={"guess": secret}).get_json()
    assert answer["status"] == "won"
    html = client.get(answer["watch_url"]).get_data(as_text=True)
    shown, hidden = html.split('<details class="spoiler">', 1)
    assert f'data-guess="{opening}"' in shown and secret not in shown.split("<main", 1)[1]
    assert "Show the winning guess" in hidden and f'data-guess="{secret}"' in hidden.split("</details>", 1)[0]
