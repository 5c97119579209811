"""The mastermind command."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_optimal import own_replay, plain_optimum
from webapp.cli import Progress, main
from webapp.engine import GameSize
from webapp.engine.optimal import DATA


def run(*args):
    out = io.StringIO()
    status = main(list(args), out)
    return status, out.getvalue()


def test_analyse_table():
    status, out = run("analyse", "--pegs", "4", "--colors", "6", "--strategy", "knuth")
    assert status == 0
    lines = out.strip().splitlines()
    header = next(line for line in lines if line.startswith("Strategy"))
    assert header.split()[:7] == ["Strategy", "Total", "Mean", "StdDev", "First", "guess", "Max"]
    cells = next(line for line in lines if line.startswith("knuth")).split()
    assert cells[:2] == ["knuth", "5801"] and cells[4:6] == ["1122", "5"]
    assert cells[6:] == ["1", "6", "62", "533", "694"]
    assert lines[-1].startswith("Worst case, 5 guesses, for 694 secrets: 1116 1126 ")


def test_analyse_all_json():
    status, out = run("analyse", "--pegs", "3", "--colors", "4", "--strategy", "all", "--json")
    assert status == 0
    data = json.loads(out)
    assert [d["strategy"] for d in data][:3] == ["simple", "random", "knuth"]
    for d in data:
        assert set(d) == {
            "pegs",
            "colors",
            "distinct",
            "distinct_guesses",
            "strategy",
            "total",
            "mean",
            "stddev",
            "max",
            "first_guess",
            "histogram",
            "seconds",
        }
        assert sum(d["histogram"].values()) == 64


def test_analyse_distinct_and_tree(tmp_path):
    tree = tmp_path / "tree.json"
    status, out = run("analyse", "--pegs", "3", "--colors", "4", "--distinct", "--json", "--tree", str(tree))
    assert status == 0 and json.loads(out)[0]["distinct"] is True
    root = json.loads(tree.read_text())
    assert set(root) == {"guess", "children"} and "3,0" in json.dumps(root)


def test_suggest():
    status, out = run("suggest", "--strategy", "knuth", "1122:1,0")
    assert status == 0
    assert "256 codes remain. knuth guesses 1344 (largest class: 44)." in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["analyse", "--strategy", "nope"], "unknown strategy"),
        (["analyse", "--pegs", "9"], "Pegs must be from 2 to 6"),
        (["analyse", "--pegs", "6", "--colors", "9"], "analysis goes up to"),
        (["suggest", "1122:3,1"], "can never happen"),
        (["suggest", "1122:1,0", "3456:4,0"], "No secret fits"),
        (["suggest", "11x2:1,0"], "not a colour"),
        (["suggest", "1122"], "GUESS:BLACK,WHITE"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, words, capsys):
    status, out = run(*args)
    err = capsys.readouterr().err
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("mastermind")
    result = subprocess.run(
        [str(script), "suggest", "--pegs", "3", "--colors", "3"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and "27 codes remain" in result.stdout


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_in_a_log_is_a_plain_line_every_few_seconds():
    stream, clock = io.StringIO(), FakeClock()
    progress = Progress("work", "rows", stream=stream, delay=1.0, every=5.0, clock=clock)
    for second in range(13):
        clock.now = second
        progress(second * 10, 120, current_total=179_123)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert lines == [
        "work: 50 of 120 rows (42%), current total 179,123, 5 s",
        "work: 100 of 120 rows (83%), current total 179,123, 10 s",
    ]


def test_progress_without_a_total_counts():
    stream, clock = io.StringIO(), FakeClock()
    progress = Progress("searching", "nodes", stream=stream, delay=0, every=1, clock=clock)
    clock.now = 2
    progress(1_234_567, None, guesses_expanded=89)
    assert stream.getvalue() == "searching: 1,234,567 nodes, guesses expanded 89, 2 s\n"


def test_progress_on_a_terminal_is_a_bar():
    import fcntl
    import os
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows, 100 columns
    with os.fdopen(follower, "w") as terminal:
        progress = Progress("work", "rows", stream=terminal, delay=0)
        for done in (30, 60, 120):
            progress(done, 120, current_total=5)
        progress.close()
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end is closed: all is read
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    text = shown.decode()
    assert "\r" in text and "work" in text and "100%" in text and "120/120" in text and "current total=5" in text


def test_json_keeps_progress_off_stdout():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, time, webapp.cli as c;"
            "c.Progress.__init__.__defaults__ = ('', None, 0.0, 0.0, time.monotonic);"
            "sys.exit(c.main(['analyse', '--pegs', '4', '--colors', '4', '--json']))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    json.loads(result.stdout)
    assert "secrets (" in result.stderr and "\r" not in result.stderr


def test_optimal_command(tmp_path):
    tree = tmp_path / "tree.json"
    status, out = run("optimal", "--pegs", "3", "--colors", "4", "--search", "--json", "--out", str(tree))
    assert status == 0
    (summary,) = json.loads(out)
    assert summary["total"] == 206 and sum(summary["histogram"].values()) == 64
    assert {"nodes", "guesses expanded"} <= set(summary["search"])
    assert json.loads(tree.read_text())["guess"] == summary["first_guess"]


def test_optimal_bounded_and_impossible():
    status, out = run("optimal", "--pegs", "3", "--colors", "3", "--max-guesses", "4", "--json")
    (summary,) = json.loads(out)
    assert status == 0 and "optimal (max 4)" in summary["strategy"] and summary["max"] <= 4
    assert summary["total"] == plain_optimum(GameSize(3, 3), max_guesses=4)  # every guess at every node
    status, out = run("optimal", "--pegs", "3", "--colors", "3", "--max-guesses", "2")
    assert status == 0 and "No strategy finds every secret of 3×3 within 2 guesses." in out


def test_optimal_candidates_only_and_distinct():
    status, out = run("optimal", "--pegs", "3", "--colors", "4", "--distinct", "--candidates-only", "--json")
    (summary,) = json.loads(out)
    assert status == 0 and summary["distinct"] is True and "candidates only" in summary["strategy"]
    assert summary["total"] == plain_optimum(GameSize(3, 4, distinct=True), candidates_only=True)


def test_strategy_all_includes_optimal_where_available():
    status, out = run("analyse", "--pegs", "4", "--colors", "6", "--strategy", "all", "--json")
    names = {d["strategy"]: d for d in json.loads(out)}
    assert names["optimal"]["total"] == 5625 and names["optimal-5"]["max"] == 5


def test_line_matches_the_page_api(client):
    status, out = run("line", "--strategy", "optimal", "--adversary", "deepest", "--json")
    assert status == 0
    assert json.loads(out) == client.get("/api/solver/optimal-game?strategy=optimal&adversary=deepest").get_json()
    status, out = run("line")
    lines = out.strip().splitlines()
    assert lines[0] == "4×6: best-candidate against the greedy adversary, 5 guesses"
    assert lines[1].split()[:3] == ["1", "1122", "0,0"] and lines[-1].split()[2] == "4,0"
    status, _ = run("line", "--adversary", "cunning")
    assert status == 2


def test_ten_colours_write_the_tenth_as_0():
    status, out = run("analyse", "--pegs", "3", "--colors", "10", "--strategy", "knuth", "--json")
    assert status == 0
    data = json.loads(out)
    result = data[0] if isinstance(data, list) else data
    assert sum(int(v) for v in result["histogram"].values()) == 1000
    status, out = run("suggest", "--pegs", "4", "--colors", "10")
    assert status == 0 and "10000 codes remain" in out
    status, out = run("analyse", "--pegs", "3", "--colors", "10", "--strategy", "knuth")
    worst = out.strip().splitlines()[-1].split(": ", 1)[1].split()
    assert any("0" in code for code in worst) and all(len(code) == 3 for code in worst if code != "…")


def test_optimal_reads_a_shipped_tree_and_searches_on_request():
    """Where the engine ships the optimum, the command replays it (no search);
    --search finds the same tree again."""
    status, out = run("optimal", "--pegs", "3", "--colors", "6", "--json")
    (shipped,) = json.loads(out)
    assert status == 0 and shipped["source"] == "webapp/engine/data/optimal-3x6.json" and "search" not in shipped
    status, out = run("optimal", "--pegs", "3", "--colors", "6", "--json", "--search")
    (searched,) = json.loads(out)
    assert status == 0 and "search" in searched
    assert (searched["total"], searched["histogram"]) == (shipped["total"], shipped["histogram"])
    status, out = run("optimal", "--pegs", "4", "--colors", "6")
    assert status == 0 and " 5625 " in out and "read from webapp/engine/data/optimal-4x6.json" in out


def test_the_5x6_optimum_answers_from_its_shipped_tree(tmp_path):
    """7,776 secrets: the figures and the whole tree from the shipped file,
    no search; the tree written holds every secret once, at its depth."""
    status, out = run("optimal", "--pegs", "5", "--colors", "6", "--json", "--out", str(tmp_path / "tree.json"))
    (summary,) = json.loads(out)
    assert status == 0 and summary["source"] == "webapp/engine/data/optimal-5x6.json" and "search" not in summary
    depths = {}

    def walk(node, depth):
        if "secret" in node:
            depths[node["secret"]] = depth
        for child in node.get("children", {}).values():
            walk(child, depth + 1)

    walk(json.loads((tmp_path / "tree.json").read_text()), 0)
    assert len(depths) == 7776 and sum(depths.values()) == summary["total"]
    assert max(depths.values()) == summary["max"] and depths[summary["first_guess"]] == 1


def test_the_table_of_optima_replays_every_shipped_tree():
    """`mastermind optimal --table --json`: a row for every shipped exact
    tree, with the secrets, total, mean, worst case and first guess the
    test's own replay of the file finds, the optimum within one guess fewer
    where such a tree ships too, and where each optimum comes from."""
    import itertools

    status, out = run("optimal", "--table", "--json")
    assert status == 0
    listed = json.loads(out)
    rows = {(r["pegs"], r["colors"], r["distinct"], r["distinct_guesses"]): r for r in listed}
    documents = [json.loads(path.read_text()) for path in DATA.glob("optimal-*.json")]

    def board(document):
        return document["pegs"], document["colors"], document["distinct"], document.get("distinct_guesses", False)

    limited = {(board(d), d["max_guesses"]): d for d in documents if d["max_guesses"]}
    exact = {board(d): d for d in documents if not d["max_guesses"]}
    assert len(listed) == len(rows) == len(exact) and set(rows) == set(exact)
    for key, document in exact.items():
        pegs, colors, distinct, _ = key
        codes = list(itertools.product(range(colors), repeat=pegs))
        secrets = [code for code in codes if not distinct or len(set(code)) == pegs]
        first = codes[document["guesses"][0]] if document["guesses"] else secrets[0]
        depths, row = own_replay(document), rows[key]
        assert (row["codes"], row["total"], row["worst"]) == (len(secrets), sum(depths), max(depths))
        assert row["mean"] == round(sum(depths) / len(depths), 4)
        assert row["first_guess"] == "".join(str((c + 1) % 10) for c in first)
        fewer = limited.get((key, max(depths) - 1))
        if fewer is None:
            assert "within_one_fewer" not in row
        else:
            assert row["within_one_fewer"] == sum(own_replay(fewer)) and max(own_replay(fewer)) < max(depths)
    assert "within_one_fewer" in rows[(4, 6, False, False)]
    assert rows[(4, 6, False, False)]["source"] == "published by Koyama and Lai 1993 and reproduced"
    assert rows[(5, 6, False, False)]["source"] == "computed here first"
    assert rows[(2, 2, False, False)]["source"] == "computed here"


def test_the_docs_show_the_table_the_command_prints():
    """docs/rules-and-strategies.md holds `mastermind optimal --table` as it
    prints now (run it again after shipping a tree)."""
    status, out = run("optimal", "--table")
    document = (Path(__file__).resolve().parent.parent / "docs" / "rules-and-strategies.md").read_text()
    begins, ends = (
        "<!-- optima table: printed by `mastermind optimal --table`; do not edit -->",
        "<!-- end of optima table -->",
    )
    assert status == 0 and document.count(begins) == document.count(ends) == 1
    assert document.split(begins)[1].split(ends)[0] == "\n\n" + out + "\n"
