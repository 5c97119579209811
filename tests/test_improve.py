"""The improved strategy: the search that finds it (`mastermind improve`),
its checkpoint, and the Super Mastermind tree the app ships as ``best``."""

import json

import numpy as np
import pytest

from webapp.cli import main
from webapp.engine import GameSize, MastermindError, analyse
from webapp.engine.best import data_name, searched, searched_document
from webapp.engine.improve import Improver
from webapp.engine.optimal import DATA, NO_WORK_LIMIT, OptimalSolver, decode_tree, tree_chooser
from webapp.engine.strategies import Strategy
from webapp.engine.tree import Node

CLASSIC = GameSize(4, 6)
SUPER = GameSize(5, 8)


def replayed(size: GameSize, guesses: list[int]):
    """Play a compact tree against every secret."""
    return analyse(Strategy("tree", "A stored tree.", "test", chooser=tree_chooser(decode_tree(size, guesses))), size)


def leaves_are_secrets(node: Node, solved: int) -> bool:
    """Every leaf of the tree is reached by the winning reply to its own code."""
    for reply, child in node.children.items():
        if isinstance(child, Node):
            if reply == solved or not leaves_are_secrets(child, solved):
                return False
        elif reply != solved or child != node.guess:
            return False
    return True


def test_the_improved_tree_lies_between_the_optimum_and_its_base():
    improver = Improver(CLASSIC, small=8, width=3)
    total = improver.run()
    base = improver.base(np.arange(CLASSIC.n_codes), 0)
    entropy = analyse("entropy", CLASSIC).total
    optimum = OptimalSolver(CLASSIC).total()
    assert optimum <= total <= base <= entropy
    assert total < entropy  # the rollout finds something here
    assert improver.current == total  # the running figure ends at the total
    assert replayed(CLASSIC, improver.guesses()).total == total


def test_more_width_and_larger_endgames_never_lose():
    narrow = Improver(CLASSIC, small=6, width=1).run()
    wide = Improver(CLASSIC, small=6, width=4).run()
    assert wide <= narrow


def test_a_nested_rollout_never_loses_and_is_replayed():
    """Weighing mid-sized classes by their own rollout: never worse than
    weighing them by the base, and the tree realises its total."""
    flat = Improver(CLASSIC, small=4, width=2).run()
    placed = []
    nested = Improver(CLASSIC, small=4, width=2, deep=60, report=lambda done, *_: placed.append(done))
    total = nested.run()
    # Weighing a class by its own rollout is not progress: what is reported
    # only moves forward, to every code placed.
    assert placed == sorted(placed) and placed[-1] == CLASSIC.n_codes
    assert total <= flat
    assert nested.current == total
    assert replayed(CLASSIC, nested.guesses()).total == total
    assert nested.document(total)["method"] == {"base": "entropy", "small": 4, "width": 2, "deep": 60}


def test_the_polish_only_lowers_the_total_and_reaches_the_optimum(tmp_path):
    """Solving the tree's positions exactly after the rollout: the total
    falls and the tree still realises it; with the whole board in reach and
    no budget, the total is the optimum. The checkpoint keeps what the
    polish proved, so a second run searches nothing."""
    plain = Improver(CLASSIC, small=4, width=1)
    total = plain.run()
    optimum = OptimalSolver(CLASSIC).total()
    assert optimum < total
    path = tmp_path / "improve.txt"
    placed = []
    part = Improver(
        CLASSIC,
        small=4,
        width=1,
        exact=200,
        exact_nodes=2000,
        checkpoint=path,
        report=lambda done, *_: placed.append(done),
    )
    polished = part.polish(part.run())
    assert optimum < polished < total
    assert part.current == polished and placed[-1] == CLASSIC.n_codes
    assert replayed(CLASSIC, part.guesses()).total == polished
    kinds = {line.split()[0] for line in path.read_text().splitlines()[1:]}
    assert {"x", "k"} <= kinds  # positions bettered, and positions kept
    again = Improver(CLASSIC, small=4, width=1, exact=200, exact_nodes=2000, checkpoint=path)
    assert again.polish(again.run()) == polished and int(again.solver.stats[0]) == 0
    assert again.guesses() == part.guesses()
    # A larger budget may only do better, reading what the first one proved.
    more = Improver(CLASSIC, small=4, width=1, exact=200, exact_nodes=NO_WORK_LIMIT, checkpoint=path)
    assert more.polish(more.run()) <= polished
    whole = Improver(CLASSIC, small=4, width=1, exact=CLASSIC.n_codes, exact_nodes=NO_WORK_LIMIT)
    assert whole.polish(whole.run()) == optimum
    assert replayed(CLASSIC, whole.guesses()).total == optimum
    assert whole.document(optimum)["method"] == {
        "base": "entropy",
        "small": 4,
        "width": 1,
        "exact": CLASSIC.n_codes,
        "exact_nodes": NO_WORK_LIMIT,
    }


class Stop(Exception):
    pass


def test_an_interrupted_search_continues_from_its_checkpoint(tmp_path):
    whole = Improver(CLASSIC, small=8, width=3)
    expected = whole.run()
    path = tmp_path / "improve.txt"

    def interrupt(placed, codes, current, seconds):
        if placed >= codes // 2:
            raise Stop

    first = Improver(CLASSIC, small=8, width=3, checkpoint=path, report=interrupt)
    first.memory.every = 0  # save every finished position
    with pytest.raises(Stop):
        first.run()
    kept = path.read_text().splitlines()
    assert kept[0] == "# 4x6 small=8 width=3 base=entropy"
    assert any(line.startswith("c ") for line in kept) and any(line.startswith("b ") for line in kept)

    again = Improver(CLASSIC, small=8, width=3, checkpoint=path)
    assert again.run() == expected
    assert again.guesses() == whole.guesses()
    # A finished checkpoint answers without any search.
    third = Improver(CLASSIC, small=8, width=3, checkpoint=path)
    assert third.run() == expected and int(third.solver.stats[0]) == 0


def test_a_checkpoint_of_other_settings_is_refused(tmp_path):
    path = tmp_path / "improve.txt"
    Improver(CLASSIC, small=8, width=2, checkpoint=path).run()
    with pytest.raises(MastermindError, match="other settings"):
        Improver(CLASSIC, small=9, width=2, checkpoint=path)


def test_improve_command(tmp_path, capsys):
    data = tmp_path / "best.json"
    status = main(
        ["improve", "--pegs", "3", "--colors", "4", "--small", "4", "--width", "2", "--json", "--data", str(data)]
    )
    assert status == 0
    (summary,) = json.loads(capsys.readouterr().out)
    document = json.loads(data.read_text())
    assert summary["total"] == document["total"] == replayed(GameSize(3, 4), document["guesses"]).total
    assert summary["method"] == {"base": "entropy", "small": 4, "width": 2}
    polished = tmp_path / "polished.json"
    args = ["improve", "--pegs", "3", "--colors", "4", "--small", "4", "--width", "2", "--exact", "64"]
    assert main([*args, "--json", "--data", str(polished)]) == 0
    (after,) = json.loads(capsys.readouterr().out)
    document = json.loads(polished.read_text())
    assert after["total"] == document["total"] == replayed(GameSize(3, 4), document["guesses"]).total
    assert after["total"] <= summary["total"] and document["method"]["exact"] == 64
    assert "--exact 64" in document["about"]
    assert main(["improve", "--pegs", "3", "--colors", "4", "--small", "1"]) == 2
    assert main(["improve", "--pegs", "3", "--colors", "4", "--small", "4", "--deep", "4"]) == 2
    assert main(["improve", "--pegs", "3", "--colors", "4", "--small", "4", "--exact", "3"]) == 2
    assert main(["improve", "--pegs", "3", "--colors", "4", "--small", "4", "--exact", "9", "--exact-nodes", "0"]) == 2


def test_the_shipped_super_mastermind_tree():
    """Replayed against all 32,768 secrets: its total, its worst case, and
    every leaf the secret."""
    assert searched(SUPER) and (DATA / data_name(SUPER)).exists()
    document = searched_document(SUPER)
    result = analyse("best", SUPER)
    assert result.strategy.name == "best"
    assert result.total == document["total"] <= 178_500  # the goal of the 5 × 8 record
    assert result.depths.min() >= 1 and result.depths.shape[0] == SUPER.n_codes
    assert leaves_are_secrets(result.root, SUPER.solved)
    assert result.max == document["max"]
