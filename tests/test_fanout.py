"""Subtree searches fanned out on a Dask cluster (a local one of two worker
processes here): the same totals and trees as one process, and a run that
stops part way resumes from its checkpoint."""

import io
import json

import pytest

from webapp.cli import main
from webapp.engine import GameSize, MastermindError
from webapp.engine.fanout import cluster
from webapp.engine.improve import Improver, forget_worker_improvers
from webapp.engine.optimal import OptimalSolver, classes_of, encode_tree

# Run apart from the other heavy files when the suite runs on several cores
# (pytest-xdist's loadgroup): their work would crowd each other out.
pytestmark = pytest.mark.xdist_group("heavy")

CLASSIC = GameSize(4, 6)


@pytest.fixture(scope="module")
def workers():
    with cluster(workers=2) as fanout:
        assert fanout.workers == 2
        yield fanout


@pytest.fixture
def fan(workers):
    """The module's cluster, its workers knowing nothing from an earlier test."""
    workers.client.run(forget_worker_improvers)
    return workers


@pytest.mark.parametrize("size", [GameSize(3, 5), CLASSIC, GameSize(4, 6, distinct_guesses=True)])
def test_an_optimal_search_on_the_cluster_is_the_one_process_search(fan, size):
    alone = OptimalSolver(size)
    fanned = OptimalSolver(size)
    assert fanned.total(fanout=fan) == alone.total()
    searched = int(fanned.stats[0])
    assert searched > 0  # the workers' nodes are counted here
    # The tree too comes from the workers, a class of the first guess each.
    assert fanned.tree_guesses(fan) == encode_tree(alone)
    assert int(fanned.stats[0]) > searched


@pytest.mark.parametrize("small, width, deep", [(8, 3, 0), (4, 2, 60)])
def test_an_improved_tree_on_the_cluster_is_the_one_process_tree(fan, small, width, deep):
    alone = Improver(CLASSIC, small=small, width=width, deep=deep)
    fanned = Improver(CLASSIC, small=small, width=width, deep=deep, fanout=fan)
    assert fanned.run() == alone.run()
    assert fanned.guesses() == alone.guesses()
    assert fanned.memory.base == alone.memory.base  # every base total came back


def test_a_tree_polished_on_the_cluster_is_the_one_process_tree(fan):
    """The polish's searches, a level of the tree at a time on two workers:
    the same total, tree and facts as one process working top-down."""
    settings = {"small": 4, "width": 1, "exact": 200, "exact_nodes": 2000}
    alone = Improver(CLASSIC, **settings)
    fanned = Improver(CLASSIC, **settings, fanout=fan)
    plain = alone.run()
    expected = alone.polish(plain)
    assert fanned.run() == plain
    placed = []
    fanned.report = lambda done, *_: placed.append(done)
    searched_here = int(fanned.solver.stats[0])
    assert fanned.polish(plain) == expected < plain
    assert int(fanned.solver.stats[0]) == searched_here  # every search ran on the workers
    assert fanned.guesses() == alone.guesses()
    assert fanned.memory.optimum == alone.memory.optimum and fanned.memory.kept == alone.memory.kept
    assert fanned.current == expected
    assert placed == sorted(placed) and placed[-1] == CLASSIC.n_codes


def test_a_fanned_search_resumes_from_its_checkpoint(fan, tmp_path):
    path = tmp_path / "optimal.txt"
    whole = OptimalSolver(CLASSIC).total(fanout=fan, checkpoint=path)
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# optimal 4x6")
    facts = lines[1:]
    assert any(f.startswith("a ") for f in facts) and any(f.startswith("t ") for f in facts)
    # A run stopped part way kept the first half of what it learned.
    path.write_text("\n".join(lines[: 1 + len(facts) // 2]) + "\n")
    resumed = OptimalSolver(CLASSIC)
    assert resumed.total(fanout=fan, checkpoint=path) == whole
    single = OptimalSolver(CLASSIC)
    single.total()
    tree = encode_tree(single)
    assert resumed.tree_guesses(fan, path) == tree
    assert len(path.read_text().splitlines()) >= len(lines)  # what was missing is learned again
    # Each class's subtree is kept as it comes: a run stopped while building
    # the tree keeps the subtrees it had, and the same tree comes out.
    lines = path.read_text().splitlines()
    subtrees = [line for line in lines if line.startswith("g ")]
    assert len(subtrees) == len(classes_of(single.matrix, single.secrets, tree[0], CLASSIC.solved))
    path.write_text("\n".join(lines[: lines.index(subtrees[len(subtrees) // 2])]) + "\n")
    again = OptimalSolver(CLASSIC)
    again.total(fanout=fan, checkpoint=path)
    built = []
    assert again.tree_guesses(fan, path, report=lambda done, classes: built.append((done, classes))) == tree
    assert built[0] == (len(subtrees) // 2, len(subtrees)) and built[-1] == (len(subtrees), len(subtrees))
    with pytest.raises(MastermindError, match="other settings"):
        OptimalSolver(CLASSIC, max_guesses=5).total(fanout=fan, checkpoint=path)


def test_the_commands_fan_out_on_a_local_cluster(tmp_path):
    out = io.StringIO()
    args = ["optimal", "--pegs", "3", "--colors", "4", "--search", "--json"]
    fanned_args = [*args, "--workers", "2", "--checkpoint", str(tmp_path / "c.txt"), "--data", str(tmp_path / "t.json")]
    assert main(fanned_args, out) == 0
    (fanned,) = json.loads(out.getvalue())
    document = json.loads((tmp_path / "t.json").read_text())
    single = OptimalSolver(GameSize(3, 4))
    assert document["total"] == fanned["total"] == single.total()
    assert document["guesses"] == encode_tree(single)
    out = io.StringIO()
    assert main(args, out) == 0
    assert json.loads(out.getvalue())[0]["total"] == fanned["total"]
    assert main(["improve", "--pegs", "3", "--colors", "4", "--workers", "-1"]) == 2


def test_a_fanned_improvement_resumes_from_its_checkpoint(fan, tmp_path):
    path = tmp_path / "improve.txt"
    first = Improver(CLASSIC, small=8, width=3, checkpoint=path, fanout=fan)
    whole = first.run()
    lines = path.read_text().splitlines()
    assert lines[0] == "# 4x6 small=8 width=3 base=entropy"
    # A run stopped part way kept the first half of what it learned.
    path.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    again = Improver(CLASSIC, small=8, width=3, checkpoint=path, fanout=fan)
    assert again.run() == whole
    assert again.guesses() == first.guesses()
