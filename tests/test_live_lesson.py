"""A live lesson without a browser: the figures the classroom shows are
exact or bounds that say so (never below the optimum), ties name the right
favourite, every phone hears its own result, points and the scoreboard,
the countdown, several games in one room, the room the teacher keeps
(removal, names, seats) and the report as CSV and spreadsheet."""

from __future__ import annotations

import io
import re
from itertools import product

import pytest
from openpyxl import load_workbook

from tests.records import sql
from tests.test_live import Events, bearer, create, join, state, step, vote
from webapp import computations
from webapp.engine import Code, GameSize
from webapp.engine.codes import parse_history
from webapp.web.live import screens

# The 5 × 6 optimum (36,721 guesses over 7,776 secrets): no first guess can
# need fewer guesses on average.
OPTIMUM_5X6 = 36721 / 7776


def settle(app, size: GameSize, history, guesses) -> None:
    """Work out E of each guess now (as the background job would), so the
    pages read it at once."""
    with app.app_context():
        for guess in guesses:
            params = computations.proposal_params(size, history, Code.parse(guess, size))
            computations.remembered("proposal-value", params, lambda p=params: computations.proposal(p, print))


def first_guess_patterns(size: GameSize) -> list[str]:
    """One code for each way a first guess can repeat its colours (11111,
    11112, …, 12345): every first guess is one of these up to renaming."""
    seen: dict[tuple, str] = {}
    for digits in product(range(1, size.colors + 1), repeat=size.pegs):
        counts = tuple(sorted((digits.count(c) for c in set(digits)), reverse=True))
        if counts not in seen and list(digits) == sorted(digits):
            first = {}
            relabelled = [first.setdefault(d, len(first) + 1) for d in digits]
            seen[counts] = "".join(map(str, relabelled))
    return sorted(seen.values())


NUMBER = re.compile(r"(≥ |≤ )?(\d+\.\d+)")


def test_no_first_guess_on_5x6_shows_less_than_the_optimum(app, client):
    size = GameSize(5, 6)
    patterns = first_guess_patterns(size)
    assert len(patterns) == 7 and "11223" in patterns
    settle(app, size, [], patterns)
    session = create(client, pegs=5, colors=6, strategy="optimal")
    code = session["code"]
    for guess in patterns:
        assert vote(client, code, join(client, code), guess).status_code == 201
    teacher = bearer(session["teacher_token"])
    report = client.get(f"/api/live/{code}/report", headers=teacher).get_json()
    assert report["complete"] is True and len(report["rows"]) == 7
    for row in report["rows"]:
        assert row["expected"] >= OPTIMUM_5X6 - 1e-9, row
        assert row["best_expected"] == pytest.approx(OPTIMUM_5X6) and row["best_expected_bound"] == "exact"
        if row["guess"] == row["strategy_guess"]:
            assert row["expected_bound"] == "exact" and row["difference"] == 0
        else:  # only bounded: never counted as good as the strategy, never a gain
            assert row["expected_bound"] == "at_least"
            assert row["difference_bound"] == "at_least" and row["difference"] >= -1e-9
    assert [s["as_good"] for s in report["students"]] == [int(g == "11223") for g in patterns]
    # The projector: every E it shows is at least the optimum's 4.722, a bound marked "≥".
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    html = client.get(f"/live/{code}/votes").get_data(as_text=True)
    shown = NUMBER.findall(re.sub(r"<[^>]+>", " ", html.split('class="proposals"')[1].split("</table>")[0]))
    assert len(shown) == 7
    assert all(float(number) >= 4.722 for _, number in shown)
    assert sorted(mark for mark, _ in shown) == ["", *["≥ "] * 6]
    # The CSV: the same figures and bounds.
    text = client.get(f"/api/live/{code}/report", headers={**teacher, "Accept": "text/csv"}).get_data(as_text=True)
    lines = [line.split(",") for line in text[1:].splitlines()]
    header, body = lines[0], lines[1:]
    expected, bound = header.index("expected"), header.index("expected_bound")
    assert all(float(row[expected]) >= 4.7223 for row in body)
    assert sorted(row[bound] for row in body) == ["at_least"] * 6 + ["exact"]


def tie_session(app, client):
    """A classic Knuth game with three phones proposing 1122 (Knuth's own
    choice), 1234 and 1111, one vote each."""
    size = GameSize(4, 6)
    settle(app, size, [], ["1122", "1234", "1111"])
    session = create(client, strategy="knuth", source="teacher", secret="1116")
    code = session["code"]
    phones = [join(client, code, name) for name in ("Ana", "Ben", "Cy")]
    for token, guess in zip(phones, ("1122", "1234", "1111"), strict=True):
        assert vote(client, code, token, guess).status_code == 201
    return session, phones


def test_a_tie_names_the_tied_proposal_that_needs_fewest_guesses(app, client):
    session, _ = tie_session(app, client)
    code = session["code"]
    with app.app_context():
        size = GameSize(4, 6)
        values = {g: screens.value_of(size, [], Code.parse(g, size)).expected.value for g in ("1122", "1234", "1111")}
    best = min(values, key=values.get)
    assert best == "1234"  # better than Knuth's 1122 in expectation, and far better than 1111
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    html = client.get(f"/live/{code}/votes").get_data(as_text=True)
    assert "3 proposals tie for the most votes" in html
    gap = f"{values['1122'] - values['1234']:.3f}"  # a third decimal where it is not 0
    gap = gap[:-1] if gap.endswith("0") else gap
    assert f"The class's favourite {best} would save {gap} guesses on 1122" in html


def test_the_games_total_is_the_sum_of_its_rows_as_shown(app, client):
    """One phone proposes the strategy's guess at every step, another some
    other code, a tie each time: the favourite is never worse than the
    strategy's guess, and the total is the rows' sum."""
    session = create(client, strategy="knuth", source="teacher", secret="1116")
    code = session["code"]
    teacher = session["teacher_token"]
    good, other = join(client, code, "Good"), join(client, code, "Other")
    size = GameSize(4, 6)
    for _ in range(10):
        now = state(client, code, teacher)
        if now["solved"]:
            break
        line = " ".join(f"{h['guess']}:{h['black']},{h['white']}" for h in now["history"])
        history = parse_history(line, size) if line else []
        alternative = "1111" if now["strategy_guess"] != "1111" else "2222"
        settle(app, size, history, [now["strategy_guess"], alternative])
        assert vote(client, code, good, now["strategy_guess"]).status_code == 201
        assert vote(client, code, other, alternative).status_code == 201
        assert step(client, session).status_code == 200
    client.set_cookie(f"live_teacher_{code}", teacher)
    html = client.get(f"/live/{code}/teach").get_data(as_text=True)
    table = html.split('class="summary"')[1].split("</table>")[0]
    rows = re.findall(r"<td>([+-]\d+\.\d\d)</td>", table.split("<tfoot>")[0])
    total = re.search(r"<tfoot>.*?<td>([+-]\d+\.\d\d)</td>", table, re.S).group(1)
    assert rows and round(sum(float(r) for r in rows), 2) == float(total)
    assert all(float(r) <= 0 for r in rows)  # a tie never crowns the worse proposal
    assert "were worth as much as" in html or "would have saved" in html


# --- each phone, points, the scoreboard ------------------------------------------------------------


def test_each_phone_hears_its_own_result_after_the_step(app, client):
    session, phones = tie_session(app, client)
    code = session["code"]
    step(client, session)
    you = client.get(f"/api/live/{code}", headers=bearer(phones[1])).get_json()["you"]
    assert you["nickname"] == "Ben"
    (mine,) = you["proposals"]
    assert (mine["game"], mine["step"], mine["guess"], mine["strategy_guess"]) == (1, 1, "1234", "1122")
    assert mine["expected"] < mine["strategy_expected"] and mine["best_expected"] <= mine["expected"]
    assert mine["points"] == 100 - round(100 * (mine["expected"] - mine["best_expected"]))
    assert you["points"] == mine["points"]
    # The teacher's state has no "you"; the phone's page says it in a sentence.
    assert "you" not in state(client, code, session["teacher_token"])
    phone = client.application.test_client()
    phone.set_cookie(f"live_student_{code}", phones[1])
    html = phone.get(f"/live/{code}/you").get_data(as_text=True)
    assert f"Your 1234 would need {mine['expected']:.3f} guesses on average." in html
    assert f"The Knuth strategy's 1122 needs {mine['strategy_expected']:.3f}." in html
    assert f"The best possible is {mine['best_expected']:.3f}." in html
    assert f"+{mine['points']} points" in html


def test_the_scoreboard_ranks_the_room_after_each_step(app, client):
    session, phones = tie_session(app, client)
    code = session["code"]
    step(client, session)
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    html = client.get(f"/live/{code}/teach").get_data(as_text=True)
    board = html.split('class="scoreboard')[1].split("</section>")[0]
    names = re.findall(r'class="nickname">([^<]+)<', board)
    assert names[0] == "Ben"  # 1234 beats Knuth's 1122, which beats 1111
    assert names == ["Ben", "Ana", "Cy"]
    # A calm lesson: no points, no scoreboard.
    calm = create(client, scoring=False)
    client.set_cookie(f"live_teacher_{calm['code']}", calm["teacher_token"])
    step(client, calm)
    assert 'class="scoreboard' not in client.get(f"/live/{calm['code']}/teach").get_data(as_text=True)


def test_a_late_proposal_is_refused_when_the_countdown_ends(app, client):
    session = create(client, countdown=20)
    code = session["code"]
    token = join(client, code)
    assert state(client, code)["countdown"] == 20 and "deadline" in state(client, code)
    assert vote(client, code, token, "1122").status_code == 201
    with app.app_context():  # the step was shown a minute ago
        sql("UPDATE live_sessions SET step_at = step_at - 60 WHERE code = :c", c=code)
    late = vote(client, code, token, "1234")
    assert late.status_code == 409 and "Time is up" in late.get_json()["error"]
    step(client, session)  # the next step opens the proposals again
    assert vote(client, code, token, "1234").status_code == 201


# --- one room for the lesson -----------------------------------------------------------------------


def test_the_next_game_keeps_the_room_and_every_token(client):
    session = create(client, source="teacher", secret="1122")
    code, teacher = session["code"], bearer(session["teacher_token"])
    ana = join(client, code, "Ana")
    assert vote(client, code, ana, "1234").status_code == 201
    while not state(client, code)["solved"]:
        step(client, session)
    started = client.post(
        f"/api/live/{code}/games", headers=teacher, json={"pegs": 3, "colors": 4, "source": "teacher", "secret": "444"}
    )
    assert started.status_code == 201
    body = started.get_json()
    assert (body["code"], body["game"], body["pegs"], body["step"], body["joined"]) == (code, 2, 3, 0, 1)
    assert vote(client, code, ana, "123").status_code == 201  # the same token, no new join
    step(client, session)
    report = client.get(f"/api/live/{code}/report", headers=teacher).get_json()
    assert [(r["game"], r["step"], r["guess"]) for r in report["rows"]] == [(1, 1, "1234"), (2, 1, "123")]
    assert [(g["game"], g["pegs"], g["solved"]) for g in report["games"]] == [(1, 4, True), (2, 3, False)]
    you = client.get(f"/api/live/{code}", headers=bearer(ana)).get_json()["you"]
    assert [(p["game"], p["step"]) for p in you["proposals"]] == [(1, 1), (2, 1)]
    # Only the teacher starts games; a bad board is refused with a sentence and changes nothing.
    assert client.post(f"/api/live/{code}/games", headers=bearer(ana), json={}).status_code == 403
    bad = client.post(f"/api/live/{code}/games", headers=teacher, json={"pegs": 6, "colors": 8})
    assert bad.status_code == 422 and "smaller board" in bad.get_json()["error"]
    assert state(client, code)["game"] == 2


def test_a_phone_follows_into_the_next_game(client):
    session = create(client)
    code = session["code"]
    token = join(client, code)
    client.set_cookie(f"live_student_{code}", token)
    stream = Events(client, f"/live/{code}/events?after={state(client, code)['version']}")
    try:
        started = client.post(
            f"/api/live/{code}/games", headers=bearer(session["teacher_token"]), json={"pegs": 3, "colors": 5}
        )
        name, version, html = stream.next()
        assert (name, version) == ("step", started.get_json()["version"])
        assert '<span id="live-title" hx-swap-oob="innerHTML">' in html and "<small>3×5 · game 2</small>" in html
    finally:
        stream.close()


# --- the room --------------------------------------------------------------------------------------


def test_a_removed_phone_is_told_at_once_and_its_proposals_stay_marked(client):
    session = create(client)
    code, teacher = session["code"], bearer(session["teacher_token"])
    ana, bo = join(client, code, "Ana"), join(client, code, "Bo")
    vote(client, code, bo, "1122")
    client.set_cookie(f"live_student_{code}", bo)
    stream = Events(client, f"/live/{code}/events?after={state(client, code)['version']}")
    try:
        assert client.delete(f"/api/live/{code}/students/2", headers=teacher).status_code == 204
        name, _, html = stream.next()
        assert name == "ended" and "taken you out" in html
    finally:
        stream.close()
    report = client.get(f"/api/live/{code}/report", headers=teacher).get_json()
    assert [(r["nickname"], r["removed"]) for r in report["rows"]] == [("Bo", True)]
    assert [(s["nickname"], s["removed"]) for s in report["students"]] == [("Ana", False), ("Bo", True)]
    assert state(client, code, session["teacher_token"])["votes"] == {}  # no longer counted
    assert ana


def test_removed_seats_free_their_place(app, client):
    app.config["LIVE_MAX_STUDENTS"] = 3
    session = create(client)
    code, teacher = session["code"], bearer(session["teacher_token"])
    for name in ("a", "b", "c"):
        join(client, code, name)
    assert client.post(f"/api/live/{code}/students", json={}).status_code == 409
    for seat in (1, 2):
        assert client.delete(f"/api/live/{code}/students/{seat}", headers=teacher).status_code == 204
    assert [join(client, code, name) for name in ("d", "e")]
    assert client.post(f"/api/live/{code}/students", json={}).status_code == 409
    assert state(client, code)["joined"] == 3


def test_same_names_are_told_apart_and_the_teacher_renames(client):
    session = create(client)
    code, teacher = session["code"], bearer(session["teacher_token"])
    for _ in range(3):
        join(client, code, "Lucía")
    join(client, code)
    roster = state(client, code, session["teacher_token"])["students"]
    assert [s["nickname"] for s in roster] == ["Lucía", "Lucía 2", "Lucía 3", ""]
    renamed = client.put(f"/api/live/{code}/students/3", headers=teacher, json={"nickname": "lucía"})
    assert renamed.status_code == 200 and renamed.get_json()["nickname"] == "lucía 3"
    renamed = client.put(f"/api/live/{code}/students/3", headers=teacher, json={"nickname": "Marta"})
    assert renamed.get_json() == {"id": 3, "nickname": "Marta"}
    assert client.put(f"/api/live/{code}/students/9", headers=teacher, json={"nickname": "X"}).status_code == 404
    assert client.put(f"/api/live/{code}/students/1", json={"nickname": "X"}).status_code == 401


def test_the_anonymous_student_has_one_name_everywhere(client):
    session = create(client)
    code, teacher = session["code"], session["teacher_token"]
    token = join(client, code)
    vote(client, code, token, "1122")
    client.set_cookie(f"live_teacher_{code}", teacher)
    projector = client.get(f"/live/{code}/teach").get_data(as_text=True)
    assert "Student 1" in projector and "anonymous" not in projector
    report = client.get(f"/api/live/{code}/report", headers=bearer(teacher)).get_json()
    assert report["rows"][0]["nickname"] == "Student 1" and report["students"][0]["nickname"] == "Student 1"
    phone = client.application.test_client()
    phone.set_cookie(f"live_student_{code}", token)
    assert "You are Student 1." in phone.get(f"/live/{code}").get_data(as_text=True)


def test_join_asks_a_name_only_where_the_room_takes_one(client):
    generated = create(client, names="generated")["code"]
    typed = create(client)["code"]
    assert 'name="nickname"' not in client.get("/join").get_data(as_text=True)
    assert 'name="nickname"' not in client.get(f"/join/{generated}").get_data(as_text=True)
    assert 'name="nickname"' in client.get(f"/join/{typed}").get_data(as_text=True)
    then = client.post("/join", data={"code": typed})
    assert then.status_code == 303 and then.headers["Location"].endswith(f"/join/{typed}")
    phone = client.application.test_client()
    assert phone.post("/join", data={"code": generated}).headers["Location"].endswith(f"/live/{generated}")


# --- the report to keep ----------------------------------------------------------------------------


def test_the_lesson_report_as_a_spreadsheet(app, client):
    session, phones = tie_session(app, client)
    code = session["code"]
    step(client, session)
    client.set_cookie(f"live_teacher_{code}", session["teacher_token"])
    answer = client.get(f"/live/{code}/report.xlsx", headers={"Accept-Language": "de"})
    assert answer.status_code == 200 and answer.mimetype.endswith("spreadsheetml.sheet")
    book = load_workbook(io.BytesIO(answer.get_data()))
    sheet = book.worksheets[0]
    header = [c.value for c in sheet[1]]
    assert (header[0], header[6], header[-1]) == ("Spiel", "E des Vorschlags", "Punkte")
    rows = list(sheet.iter_rows(min_row=2, values_only=True))
    assert [row[5] for row in rows] == ["1122", "1234", "1111"]
    assert all(isinstance(row[6], float) for row in rows)  # numbers, not text
    assert all(isinstance(row[0], int) and isinstance(row[-1], int) for row in rows)
    assert {row[7] for row in rows} == {"genau"}
    assert len(book.worksheets) == 2 and book.worksheets[1].max_row == 4
