"""Whole-game analysis: landmarks, consistency of the tree, export."""

import numpy as np
import pytest

from webapp.engine import PRESETS, Code, GameSize, SizeError, analyse, feedback
from webapp.engine.codes import secret_indices


def test_knuth_classic_landmark():
    result = analyse("knuth", GameSize())
    assert result.total == 5801
    assert result.max == 5
    assert str(result.first_guess) == "1122"
    assert sum(result.histogram.values()) == 1296


def walk(node, size, path, out):
    for reply, child in node["children"].items():
        if "secret" in child:
            assert child["secret"] == node["guess"]
            out[child["secret"]] = path + [(node["guess"], reply)]
        else:
            walk(child, size, path + [(node["guess"], reply)], out)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("size", [GameSize(3, 4), GameSize(4, 4, distinct=True)], ids=lambda s: s.label())
def test_tree_replies_are_true(name, size):
    """Every path of the exported tree is a real game against its leaf secret."""
    result = analyse(name, size, seed=1)
    paths = {}
    walk(result.export(), size, [], paths)
    assert sorted(paths) == sorted(str(Code.from_index(i, size)) for i in secret_indices(size))
    for secret, path in paths.items():
        s = Code.parse(secret, size)
        for guess, reply in path:
            assert feedback(Code.parse(guess, size), s).key == reply
    depths = {secret: len(path) for secret, path in paths.items()}
    assert sum(depths.values()) == result.total
    assert max(depths.values()) == result.max
    worst = {str(c) for c in result.worst_secrets()}
    assert worst == {s for s, d in depths.items() if d == result.max}


def test_summary_fields():
    summary = analyse("entropy", GameSize(3, 4)).summary()
    assert set(summary) == {
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
    assert sum(summary["histogram"].values()) == 64
    assert summary["mean"] == pytest.approx(summary["total"] / 64)


def test_distinct_variant():
    result = analyse("knuth", GameSize(4, 6, distinct=True))
    assert sum(result.histogram.values()) == 360
    assert result.depths.shape == (360,)


def test_too_large_is_refused():
    with pytest.raises(SizeError):
        analyse("knuth", GameSize(6, 9))


def test_simple_is_first_candidate_every_time():
    size = GameSize(3, 3)
    result = analyse("simple", size)
    assert str(result.first_guess) == "111"
    assert result.histogram[1] == 1


def test_random_seed_reproducible():
    a = analyse("random", GameSize(3, 4), seed=5)
    b = analyse("random", GameSize(3, 4), seed=5)
    assert np.array_equal(a.depths, b.depths)


SYMMETRIC_SIZES = [
    GameSize(4, 6),
    GameSize(6, 3),
    GameSize(5, 4),
    GameSize(3, 8, distinct=True),
    GameSize(4, 7, distinct=True, distinct_guesses=True),
]


@pytest.mark.parametrize("size", SYMMETRIC_SIZES, ids=lambda s: s.label())
def test_scoring_one_guess_per_symmetry_changes_no_tree(size):
    """Only the smallest of guesses that are images of one another by a
    symmetry of the line played is scored: every one-step strategy still
    builds the tree it builds when every guess is scored, guess for guess,
    and the symmetry does leave guesses out."""
    from webapp.engine.strategies import pool_of
    from webapp.engine.tree import Symmetry, export_node

    for name, strategy in PRESETS.items():
        if strategy.chooser is not None:
            continue
        fast, slow = analyse(name, size), analyse(name, size, symmetric=False)
        assert export_node(fast.root, size) == export_node(slow.root, size), name
    symmetry = Symmetry(size)
    first = analyse("knuth", size).root.guess
    played = int(np.bitwise_or.reduce(1 << symmetry.digits[first]))
    pool, group = symmetry.after(symmetry.whole, first, 0, pool_of(size, played), played)
    assert group is not None and 0 < pool.shape[0] < pool_of(size, played).shape[0]


# Run in a fresh interpreter: a tree forks only while numpy does the work,
# and other tests load the compiled kernels into this one.
FORKED = """
import json, os, sys
import numpy as np
from webapp.engine import PRESETS, GameSize, analyse, tree
from webapp.engine.tree import export_node

forks = []
fork = os.fork
def counted():
    forks.append(1)
    return fork()
os.fork = counted

parent = os.getpid()
choose = tree.choose
def failing(*args, **kwargs):  # the fault under test, in the forked process or in this one
    if (os.getpid() != parent) == (FAULT in ("child exits", "child raises")) and kwargs.get("depth") == 3:
        if FAULT == "child exits":
            os._exit(3)
        raise RuntimeError(FAULT)
    return choose(*args, **kwargs)
if FAULT:
    tree.choose = failing

out = {}
for label, size, names in (
    ("4x6", GameSize(4, 6), list(PRESETS)),
    ("bulls and cows", GameSize(4, 10, True, True), ["minimax-lex", "entropy"]),
):
    for name in names:
        reports = []
        try:
            apart = analyse(
                name, size, processes=PROCESSES, progress=lambda done, total: reports.append((done, total))
            )
        except RuntimeError as exc:
            out[f"{label} {name}"] = {"raised": str(exc)}
            continue
        tree.choose = choose
        alone = analyse(name, size, processes=1)
        tree.choose = failing if FAULT else choose
        out[f"{label} {name}"] = {
            "same tree": export_node(apart.root, size) == export_node(alone.root, size),
            "same depths": bool(np.array_equal(apart.depths, alone.depths)),
            "last report": reports[-1],
            "secrets": int(alone.depths.shape[0]),
        }
try:
    os.waitpid(-1, os.WNOHANG)
    left = True
except ChildProcessError:
    left = False
print(json.dumps({"forks": len(forks), "trees": out, "children left": left}))
"""


# The presets that fork on 4 × 6 (and both Bulls and Cows trees do).
FORKING = sum(1 for s in PRESETS.values() if s.chooser is None and s.criteria and not s.random)


def forked_trees(fault: str, processes: int = 2) -> dict:
    import json
    import subprocess
    import sys

    script = f"FAULT = {fault!r}\nPROCESSES = {processes}\n" + FORKED
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.parametrize("fault, processes", [("", 2), ("", 3), ("child exits", 2), ("child raises", 3)])
def test_forked_processes_grow_the_first_classes_alike(fault, processes):
    """With two processes or more, forked ones share the growing of the
    first guess's classes: every strategy's tree and depths are the ones
    one process builds, progress reaches every secret, and no process is
    left behind. What a forked process that dies or fails had taken is
    grown by the parent, for the same tree. A random strategy (its draws
    must come in one order), one that scores nothing (simple) and one that
    searches or reads shipped trees do not fork."""
    report = forked_trees(fault, processes)
    assert report["forks"] == (FORKING + 2) * (processes - 1)
    assert len(report["trees"]) == len(PRESETS) + 2
    for name, tree in report["trees"].items():
        assert tree["same tree"] and tree["same depths"], name
        assert tree["last report"] == [tree["secrets"], tree["secrets"]], name
    assert not report["children left"]


def test_a_failure_in_the_parent_ends_the_forked_process():
    """An error in the parent's half is raised, and the forked process is
    ended and reaped rather than left running."""
    report = forked_trees("parent raises")
    assert report["forks"] == FORKING + 2
    assert all(tree == {"raised": "parent raises"} for tree in report["trees"].values())
    assert not report["children left"]


# A thread holds the pools' lock when another thread forks. Fork hooks
# registered later run first, so ``entered`` is set as the fork begins,
# before the engine's own hook waits for the lock.
LOCK_ACROSS_FORK = """
import os, threading
from webapp.engine.strategies import POOLS_LOCK

held, go, entered = threading.Event(), threading.Event(), threading.Event()
os.register_at_fork(before=entered.set)

def holder():
    with POOLS_LOCK:
        held.set()
        go.wait()

def forker(out):
    pid = os.fork()
    if pid == 0:
        os._exit(1 if POOLS_LOCK.locked() else 0)
    out.append(os.waitpid(pid, 0)[1])

statuses = []
threads = [threading.Thread(target=holder), threading.Thread(target=forker, args=(statuses,))]
threads[0].start()
held.wait()
threads[1].start()
entered.wait()  # the fork has begun while the lock is held
go.set()
for thread in threads:
    thread.join()
print("child saw the lock", "held" if statuses[0] else "free")
"""


def test_a_forked_process_never_starts_with_the_pools_lock_held():
    """A forked process looks guess pools up (deeper guesses of a shared
    tree): it must not start with their lock held by a thread of its parent
    that it does not have, or its first look-up would wait for ever. The
    lock is taken across every fork: here a thread holds it as another
    forks, and the child still finds it free (without that, "held")."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", LOCK_ACROSS_FORK], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "child saw the lock free"
