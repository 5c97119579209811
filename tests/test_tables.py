"""Feedback for many codes at once and the candidate set."""

import numpy as np
import pytest

from webapp.engine import Code, Feedback, FeedbackError, GameSize, candidates, feedback
from webapp.engine.codes import code_digits, color_counts, secret_indices
from webapp.engine.tables import FeedbackTable, feedback_matrix, feedback_table


@pytest.mark.parametrize("pegs, colors", [(2, 3), (3, 4), (4, 6), (5, 3)])
def test_matrix_agrees_with_single_feedback(pegs, colors):
    size = GameSize(pegs, colors)
    matrix = feedback_matrix(pegs, colors)
    rng = np.random.default_rng(pegs * 10 + colors)
    for g, s in rng.integers(0, size.n_codes, size=(200, 2)):
        reply = feedback(Code.from_index(g, size), Code.from_index(s, size))
        assert matrix[g, s] == reply.encode(pegs)
    assert (matrix == matrix.T).all()


def test_direct_table_agrees_with_matrix():
    size = GameSize(4, 5)
    with_matrix = feedback_table(size)
    direct = FeedbackTable(4, 5, matrix=None)
    codes = np.arange(0, size.n_codes, 3)
    guesses = np.arange(0, size.n_codes, 7)
    assert (direct.rows(guesses, codes) == with_matrix.rows(guesses, codes)).all()
    assert (direct.class_counts(guesses, codes) == with_matrix.class_counts(guesses, codes)).all()


@pytest.mark.parametrize(
    "size, kept",
    [
        (GameSize(4, 6), "matrix"),
        (GameSize(4, 10, True, True), "block"),
        (GameSize(4, 10, True), "small tables"),
        (GameSize(5, 9), "neither"),
    ],
    ids=lambda x: x.label() if isinstance(x, GameSize) else x,
)
def test_one_reply_agrees_with_feedback(size, kept):
    """A single reply (the last two codes of a tree) from a kept matrix, the
    block of codes of different colours (pairs inside it and outside), the
    small tables, or worked out: the feedback the rules give."""
    if kept == "matrix":
        table = FeedbackTable(size.pegs, size.colors, feedback_matrix(size.pegs, size.colors))
    elif kept == "block":
        table = feedback_table(size)
        assert table.matrix is None and table.block is not None
    else:
        table = FeedbackTable(size.pegs, size.colors)
        assert table.by_tables == (kept == "small tables")
    rng = np.random.default_rng(size.n_codes)
    pairs = rng.integers(0, size.n_codes, size=(300, 2))
    if kept == "block":  # a third of the pairs inside the block
        pairs[::3] = rng.choice(secret_indices(size), size=(100, 2))
    for g, s in pairs.tolist():
        expected = feedback(Code.from_index(g, size), Code.from_index(s, size)).encode(size.pegs)
        assert table.reply(g, s) == expected


def test_candidates_after_history():
    size = GameSize()
    history = [(Code.parse("1122", size), Feedback(1, 0))]
    remaining = candidates(size, history)
    expected = [
        i for i in range(size.n_codes) if feedback(Code.parse("1122", size), Code.from_index(i, size)) == Feedback(1, 0)
    ]
    assert list(remaining) == expected
    assert len(remaining) == 256


def test_distinct_secrets():
    size = GameSize(4, 6, distinct=True)
    assert len(secret_indices(size)) == 360
    assert all(Code.from_index(i, size).is_distinct() for i in secret_indices(size))


def test_contradictory_history():
    size = GameSize()
    history = [(Code.parse("1234", size), Feedback(0, 0)), (Code.parse("1256", size), Feedback(0, 0))]
    with pytest.raises(FeedbackError):
        candidates(size, history)


def test_three_peg_game_by_hand():
    # 3 pegs, 2 colours: 8 codes. After 112 gets (2, 0) the secret is one of
    # 111 (2 black), 122 (2 black), 212 (2 black).
    size = GameSize(3, 2)
    remaining = candidates(size, [(Code.parse("112", size), Feedback(2, 0))])
    assert [str(Code.from_index(i, size)) for i in remaining] == ["111", "122", "212"]


def test_threads_share_the_parallel_kernels_safely():
    """A threaded web server may ask for suggestions at once; numba's fallback
    thread pool aborts the process on concurrent entry unless calls take turns."""
    import os
    import subprocess
    import sys

    script = (
        "import threading\n"
        "from webapp.engine import GameSize, best_guess\n"
        "def work():\n"
        "    for _ in range(10): best_guess('knuth', GameSize(5, 8))\n"
        "threads = [threading.Thread(target=work) for _ in range(4)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print('finished')\n"
    )
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-500:]
    assert "finished" in result.stdout


def test_warm_up_leaves_nothing_to_compile_for_suggestions():
    """After the app's warm-up, suggestions (matrix and on-the-fly sizes) use
    already compiled kernels: no request pays for compilation. A fresh
    process, so nothing compiled by other tests hides a gap."""
    import subprocess
    import sys

    script = """
from webapp.engine import Code, Feedback, GameSize, best_guess, kernels, warm
warm.warm_up()
found = {n: getattr(kernels, n) for n in dir(kernels) if hasattr(getattr(kernels, n), "signatures")}
before = {n: len(f.signatures) for n, f in found.items()}
big = GameSize(5, 8)
best_guess("knuth", GameSize(), [(Code.parse("1122", GameSize()), Feedback(1, 0))])
best_guess("entropy", big, [(Code.parse("11223", big), Feedback(1, 1))])
print(sorted(n for n, f in found.items() if len(f.signatures) != before[n]))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-500:]
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("head, threshold", [(256, 200_000), (8, 0)])
def test_perfect_or_counts_in_one_pass_agrees(head, threshold, monkeypatch):
    """The compiled one-pass search for a perfect split, which counts every
    guess's classes when it finds none, gives the first perfect split the
    matrix shows, else the class sizes of every guess; one thread and the
    head-then-every-thread path (forced on a small board) alike."""
    from webapp.engine import kernels
    from webapp.engine.tables import small_tables

    monkeypatch.setattr(kernels, "FEW_HEAD", head)
    monkeypatch.setattr(kernels, "PARALLEL_THRESHOLD", threshold)
    monkeypatch.setattr(kernels, "THREADS", 2)  # the parallel path, whatever the machine
    pegs, colors = 4, 5
    matrix = feedback_matrix(pegs, colors)
    table = FeedbackTable(pegs, colors, matrix=None)
    small = small_tables(pegs, colors)
    guesses = np.arange(matrix.shape[0], dtype=np.int64)
    rng = np.random.default_rng(45)
    found = {"early": 0, "late": 0, "none": 0}
    for k in list(range(2, table.replies + 1)) * 6:
        few = np.sort(rng.choice(matrix.shape[0], size=k, replace=False)).astype(np.int64)
        first, counts = kernels.perfect_or_counts_few(guesses, few, small, pegs, table.slots)
        expected = next((i for i, g in enumerate(guesses) if len(set(matrix[g, few])) == k), -1)
        assert first == expected
        if first >= 0:
            assert counts is None
            found["early" if first < head else "late"] += 1
        else:
            assert (counts == kernels.counts_few(guesses, few, small, pegs, table.slots)).all()
            found["none"] += 1
    assert found["none"] and found["early"] and (found["late"] or head > 8)


@pytest.mark.parametrize("pegs, colors", [(2, 3), (3, 5), (4, 6), (5, 4)])
def test_numpy_and_compiled_kernels_agree(pegs, colors):
    """Small work runs in numpy until the compiled kernels are loaded: both
    give the same feedback, class sizes and first perfect split."""
    from webapp.engine import kernels
    from webapp.engine.tables import counts_by_reply, feedback_numpy

    size = GameSize(pegs, colors)
    table = FeedbackTable(pegs, colors, matrix=None)
    rng = np.random.default_rng(pegs * 10 + colors)
    guesses = np.sort(rng.choice(size.n_codes, size=min(size.n_codes, 150), replace=False)).astype(np.int64)
    codes = np.sort(rng.choice(size.n_codes, size=min(size.n_codes, 90), replace=False)).astype(np.int64)
    by_numpy = feedback_numpy(
        table.digits[guesses], table.counts[guesses], table.digits[codes], table.counts[codes], pegs
    )
    digits_t, counts_t = table._columns(codes)
    compiled = kernels.feedback_block(table.digits[guesses], table.counts[guesses], digits_t, counts_t, pegs)
    assert (by_numpy == compiled).all()
    from webapp.engine.tables import feedback_by_tables, small_tables

    by_tables = feedback_by_tables(guesses, codes, small_tables(pegs, colors), pegs)
    assert (by_tables == by_numpy).all() and (
        feedback_by_tables(codes, guesses, small_tables(pegs, colors), pegs) == by_numpy.T
    ).all()
    assert (
        counts_by_reply(by_numpy.T, table.slots)
        == kernels.counts_direct(table.digits, table.counts, guesses, digits_t, counts_t, pegs, table.slots)
    ).all()
    matrix = feedback_matrix(pegs, colors)  # numpy or compiled, whichever this process uses now
    few = codes[: table.replies]
    expected = next((i for i, g in enumerate(guesses) if len(set(matrix[g, few])) == len(few)), -1)
    assert kernels.first_perfect_split(matrix, guesses, few, table.slots) == expected
    direct = FeedbackTable(pegs, colors, matrix=None)
    assert direct.first_perfect_split(guesses, few) == expected
    from webapp.engine.tables import small_tables

    small = small_tables(pegs, colors)
    assert kernels.first_perfect_split_few(guesses, few, small, pegs) == expected
    few_replies = feedback_numpy(
        table.digits[guesses], table.counts[guesses], table.digits[few], table.counts[few], pegs
    )
    assert (
        kernels.counts_few(guesses, few, small, pegs, table.slots) == counts_by_reply(few_replies.T, table.slots)
    ).all()


def test_classic_commands_never_load_numba():
    """`mastermind suggest` and `analyse` on the classic board run in numpy
    (loading numba would cost more than the work), with the published totals."""
    import subprocess
    import sys

    script = """
import sys
from webapp import cli
sys.argv = ["mastermind", "analyse", "--strategy", "knuth"]
cli.main()
sys.argv = ["mastermind", "suggest", "1122:1,0"]
cli.main()
print("numba loaded:", "numba" in sys.modules)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-500:]
    assert "numba loaded: False" in result.stdout
    assert " 5801 " in result.stdout


@pytest.mark.parametrize("size", [GameSize(4, 5), GameSize(3, 8), GameSize(5, 4)], ids=lambda s: s.label())
def test_dead_colour_filter_changes_no_tree(size, monkeypatch):
    """Guesses that differ only in colours no candidate has are scored once;
    every strategy still finds every secret at the same depth."""
    from webapp.engine import analyse, kernels, warm

    warm.warm_up()  # the filter runs where the compiled kernels do
    names = ["knuth", "minimax-lex", "entropy", "irving", "most-parts", "widedev", "longrect", "minimax-avg"]
    filtered = {name: analyse(name, size).depths.tolist() for name in names}
    monkeypatch.setattr(kernels, "without_dead_variants", lambda digits, pool, cands, colors: pool)
    assert filtered == {name: analyse(name, size).depths.tolist() for name in names}


def test_block_of_distinct_codes_agrees_with_direct_feedback():
    """Bulls and Cows keeps the feedback between its 5,040 codes of different
    colours (the 10,000-code matrix is too large); reading it, in numpy or in
    the compiled kernels, gives what computing each reply gives."""
    import os

    from webapp.engine import kernels
    from webapp.engine.tables import counts_gathered

    size = GameSize(4, 10, True, True)
    table = feedback_table(size)
    assert table.matrix is None and table.block is not None and table.block.shape == (5040, 5040)
    kept = os.listdir(os.environ["MASTERMIND_CACHE"])  # the session's cache (conftest)
    assert any(name.startswith("feedback-4x10-different-colours-") for name in kept)
    direct = FeedbackTable(4, 10, matrix=None)
    rng = np.random.default_rng(5040)
    members = secret_indices(size).astype(np.int64)
    guesses = np.sort(rng.choice(members, 300, replace=False))
    codes = np.sort(rng.choice(members, 40, replace=False))
    assert (table.rows(guesses, codes) == direct.rows(guesses, codes)).all()
    assert (table.row(int(guesses[0]), codes) == direct.row(int(guesses[0]), codes)).all()
    expected = direct.class_counts(guesses, codes)
    assert (table.class_counts(guesses, codes) == expected).all()
    rows, columns = table.position[guesses], table.position[codes]
    assert (counts_gathered(table.block, rows, columns, table.slots) == expected).all()
    assert (counts_gathered(table.block, columns, rows, table.slots) == table.class_counts(codes, guesses)).all()
    for few in (codes[:5], codes[:9], codes[:14]):
        first = direct.first_perfect_split(guesses, few)
        assert table.first_perfect_split(guesses, few) == first
        assert (table.replies_of(guesses, few, table.kept(guesses, few)) == direct.replies_of(guesses, few)).all()
        assert kernels.first_perfect_split(table.block, rows, table.position[few], table.slots) == first
        found, counts = table.perfect_or_counts(guesses, few)
        assert found == first and (counts is None or (counts == direct.class_counts(guesses, few)).all())
    outside = np.array([0, 1, 11])  # 1111, 1112, 1122: not in the block
    assert (table.rows(outside, codes) == direct.rows(outside, codes)).all()


@pytest.mark.parametrize("pegs, colors", [(2, 3), (4, 6), (5, 4), (6, 3), (3, 5)])
@pytest.mark.parametrize("members", ["every code", "different colours", "a random set"])
def test_matrix_in_numpy_agrees_with_compiled(pegs, colors, members):
    """The numpy matrix among every code, among the codes of different
    colours (Bulls and Cows's block) and among any ascending set, whose runs
    of first pegs differ in length, against the compiled kernels."""
    from webapp.engine import kernels
    from webapp.engine.tables import among_numpy

    if members == "every code" or (members == "different colours" and colors < pegs):
        chosen = np.arange(colors**pegs)
    elif members == "different colours":
        chosen = secret_indices(GameSize(pegs, colors, distinct=True)).astype(np.int64)
    else:
        chosen = np.flatnonzero(np.random.default_rng(pegs * colors).random(colors**pegs) < 0.3)
    digits, counts = code_digits(pegs, colors)[chosen], color_counts(pegs, colors)[chosen]
    compiled = kernels.feedback_block(
        digits, counts, np.ascontiguousarray(digits.T), np.ascontiguousarray(counts.T), pegs
    )
    assert (among_numpy(pegs, colors, chosen) == compiled).all()


def test_small_boards_never_load_numba():
    """Trees of up to a few thousand codes (Bulls and Cows too) and the
    shipped optima run in numpy: loading numba would cost more than the work."""
    import subprocess
    import sys

    script = """
import sys
from webapp import cli
for args in (["analyse", "--preset", "bulls-and-cows", "--strategy", "minimax-lex"],
             ["analyse", "--pegs", "4", "--colors", "8", "--strategy", "entropy"],
             ["optimal", "--pegs", "4", "--colors", "5"]):
    cli.main(args)
print("numba loaded:", "numba" in sys.modules)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-500:]
    assert "numba loaded: False" in result.stdout
    assert " 27030 " in result.stdout and " 2463 " in result.stdout


@pytest.mark.parametrize(
    "pegs, colors, keep", [(2, 3, False), (4, 6, False), (4, 6, True), (5, 4, False), (6, 3, True), (5, 9, False)]
)
def test_numpy_perfect_split_or_counts_in_one_pass(pegs, colors, keep, monkeypatch):
    """Without the compiled kernels, with a kept matrix or without, the
    search for a perfect split reads or works out replies a block of guesses
    at a time and, when
    no guess splits the codes into single codes, counts every guess's classes
    from those same replies: the first perfect split one reply at a time
    shows, else the class sizes it gives (6 pegs: the largest replies; 5 × 9:
    a board whose replies come without the small tables)."""
    from webapp.engine import tables

    monkeypatch.setattr(tables, "_compiled", None)
    monkeypatch.setattr(tables, "FIRST_GUESSES_TRIED", 16)  # several blocks on a small board
    size = GameSize(pegs, colors)
    table = FeedbackTable(pegs, colors, matrix=feedback_matrix(pegs, colors) if keep else None)
    rng = np.random.default_rng(pegs * 100 + colors)
    outcomes = {"found": 0, "none": 0}
    for k in list(range(1, table.replies + 1)) * 4:
        guesses = np.sort(rng.choice(size.n_codes, size=min(size.n_codes, 300), replace=False)).astype(np.int64)
        few = np.sort(rng.choice(size.n_codes, size=k, replace=False)).astype(np.int64)
        replies = np.array(
            [[feedback(Code.from_index(g, size), Code.from_index(c, size)).encode(pegs) for c in few] for g in guesses]
        )
        expected_counts = np.array([np.bincount(row, minlength=table.slots) for row in replies])
        expected = next((i for i, row in enumerate(replies) if len(set(row)) == k), -1)
        first, counts = table.perfect_or_counts(guesses, few)
        assert first == expected == table.first_perfect_split(guesses, few)
        if first >= 0:
            assert counts is None
            outcomes["found"] += 1
        else:
            assert counts is not None and (counts == expected_counts).all()
            outcomes["none"] += 1
        assert (table.class_counts(guesses, few) == expected_counts).all()
    assert outcomes["found"] and outcomes["none"]


def test_matrices_kept_on_disk_between_processes(tmp_path, monkeypatch):
    """A matrix built once is written to the cache directory and read by
    the next process that needs it; a file of another layout, a truncated
    one or one whose rows disagree with fresh replies is built and written
    again; ``off`` keeps nothing; a directory that cannot be made only
    means no file."""
    from webapp.engine import tables

    pegs, colors = 5, 5
    members = np.arange(colors**pegs, dtype=np.int64)
    assert members.shape[0] >= tables.CACHE_FROM_CODES
    built = []

    def build():
        built.append(1)
        return feedback_matrix(pegs, colors)

    def kept():
        return tables.kept_on_disk("feedback-test", pegs, colors, members, build)

    monkeypatch.setenv("MASTERMIND_CACHE", str(tmp_path))
    expected = feedback_matrix(pegs, colors)
    first = kept()
    path = tmp_path / f"feedback-test-{tables.CACHE_FORMAT}.npy"
    assert len(built) == 1 and path.exists() and (first == expected).all()
    again = kept()
    assert len(built) == 1 and (again == expected).all() and not again.flags.writeable
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left

    np.save(path, np.zeros_like(expected))  # the right shape, the wrong replies
    assert (kept() == expected).all() and len(built) == 2
    assert (np.load(path) == expected).all()  # written again
    path.write_bytes(path.read_bytes()[:1000])  # cut short
    assert (kept() == expected).all() and len(built) == 3
    np.save(path, expected[:100, :100])  # another layout
    assert (kept() == expected).all() and len(built) == 4
    assert (kept() == expected).all() and len(built) == 4

    monkeypatch.setenv("MASTERMIND_CACHE", "off")
    path.unlink()
    assert (kept() == expected).all() and len(built) == 5 and not path.exists()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("MASTERMIND_CACHE", str(blocked / "cache"))
    assert (kept() == expected).all() and len(built) == 6


def test_the_cache_defaults_to_the_users_cache_directory(monkeypatch, tmp_path):
    from webapp.engine.tables import cache_directory

    monkeypatch.delenv("MASTERMIND_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_directory() == str(tmp_path / "mastermind-lab")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_directory() == str(tmp_path / ".cache" / "mastermind-lab")


def test_a_second_process_reads_the_first_ones_matrix(tmp_path):
    """Two whole commands on one board: the first writes its matrix, the
    second maps that file (it is not written again) and gives the same tree."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "MASTERMIND_CACHE": str(tmp_path)}
    command = [sys.executable, "-m", "webapp.cli", "analyse", "--pegs", "5", "--colors", "5", "--strategy", "knuth"]
    first = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env, timeout=120, check=True)
    (path,) = tmp_path.glob("feedback-5x5-*.npy")
    written = path.stat().st_mtime_ns
    second = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env, timeout=120, check=True)
    assert path.stat().st_mtime_ns == written
    trees = [{k: v for k, v in json.loads(run.stdout)[0].items() if k != "seconds"} for run in (first, second)]
    assert trees[0] == trees[1] and trees[0]["total"] > 0
