"""Exact optimal play, checked against a plain exhaustive search."""

from functools import cache

import numpy as np
import pytest

from webapp.engine import Code, GameSize, SizeError
from webapp.engine.codes import guess_indices, secret_indices
from webapp.engine.optimal import DATA, OptimalSolver, data_name
from webapp.engine.tables import feedback_table
from webapp.words import error_words


def plain_optimum(size: GameSize, max_guesses=None, candidates_only=False):
    """Try every guess at every node, no pruning, no symmetry."""
    matrix = feedback_table(size).matrix
    every = [int(g) for g in guess_indices(size)]
    solved = size.solved

    @cache
    def best(cands: frozenset, left: int) -> float:
        if left <= 0:
            return float("inf")
        if len(cands) == 1:
            return 1
        result = float("inf")
        for g in sorted(cands) if candidates_only else every:
            classes = {}
            for c in cands:
                classes.setdefault(matrix[g, c], set()).add(c)
            if len(classes) == 1 and solved not in classes:
                continue  # learns nothing
            total = len(cands) + sum(
                best(frozenset(cls), left - 1) for reply, cls in classes.items() if reply != solved
            )
            result = min(result, total)
        return result

    value = best(frozenset(int(i) for i in secret_indices(size)), max_guesses or 99)
    return None if value == float("inf") else value


SMALL = [
    GameSize(2, 3),
    GameSize(3, 3),
    GameSize(2, 5),
    GameSize(3, 4, distinct=True),
    GameSize(4, 3),
    GameSize(3, 4, distinct_guesses=True),
    GameSize(2, 6, distinct_guesses=True),
]


@pytest.mark.parametrize("size", SMALL, ids=lambda s: s.label())
def test_matches_plain_search(size):
    assert OptimalSolver(size).total() == plain_optimum(size)


@pytest.mark.parametrize("size", [GameSize(3, 3), GameSize(2, 5)], ids=lambda s: s.label())
def test_candidates_only_matches_plain_search(size):
    assert OptimalSolver(size, candidates_only=True).total() == plain_optimum(size, candidates_only=True)


@pytest.mark.parametrize(
    "size, limit", [(GameSize(3, 3), 3), (GameSize(3, 3), 4), (GameSize(2, 5), 3), (GameSize(3, 4), 3)], ids=str
)
def test_guess_limit_matches_plain_search(size, limit):
    assert OptimalSolver(size, max_guesses=limit).total() == plain_optimum(size, limit)


def test_impossible_limit_says_so():
    assert OptimalSolver(GameSize(3, 3), max_guesses=2).total() is None


def test_too_large():
    with pytest.raises(SizeError):
        OptimalSolver(GameSize(5, 8))


def test_classic_optimum_from_scratch():
    """Koyama & Lai's figures come out of the search: 5,625, and 5,626 within 5 guesses."""
    from webapp.engine.optimal import OptimalSolver

    solver = OptimalSolver(GameSize())
    assert solver.total() == 5625
    assert OptimalSolver(GameSize(), max_guesses=5).total() == 5626
    assert OptimalSolver(GameSize(), max_guesses=4).total() is None
    stats = dict(zip(("nodes", "scored", "expanded"), solver.stats[:3]))
    assert stats["expanded"] < stats["scored"]  # the bounds prune


def test_shipped_file_matches_fresh_computation():
    import json

    from webapp.engine.optimal import DATA, data_name, tree_document

    size = GameSize(3, 6)
    solver = OptimalSolver(size)
    fresh = tree_document(solver, solver.total())
    shipped = json.loads((DATA / data_name(size)).read_text())
    assert shipped == fresh
    assert "Regenerate with: mastermind optimal --pegs 3 --colors 6" in shipped["about"]


@pytest.mark.parametrize(
    "name, size, limit",
    [
        ("optimal-4x6.json", GameSize(), None),
        ("optimal-4x6-max5.json", GameSize(), 5),
        ("optimal-4x6-distinct.json", GameSize(4, 6, True), None),
        ("optimal-4x5.json", GameSize(4, 5), None),
        ("optimal-5x5.json", GameSize(5, 5), None),
        ("optimal-4x8.json", GameSize(4, 8), None),
        ("optimal-4x10-distinct-guesses.json", GameSize(4, 10, True, True), None),
    ],
)
def test_shipped_trees_replay_to_their_totals(name, size, limit):
    import json

    from webapp.engine import analyse
    from webapp.engine.optimal import DATA, data_name

    assert data_name(size, limit) == name
    document = json.loads((DATA / name).read_text())
    result = analyse("optimal" if limit is None else f"optimal-{limit}", size)
    assert result.total == document["total"]
    if limit:
        assert result.max <= limit


def own_feedback(secret: tuple[int, ...], guess: tuple[int, ...]) -> tuple[int, int]:
    """(black, white), peg by peg and colour by colour, without the engine."""
    black = sum(s == g for s, g in zip(secret, guess))
    common = sum(min(secret.count(c), guess.count(c)) for c in set(guess))
    return black, common - black


def own_replay(document: dict) -> list[int]:
    """The guesses a shipped tree takes for each secret, replayed from the
    file's own description: codes by index in ascending order, the guesses of
    nodes of three or more codes in preorder, children by ascending (black,
    white), a node of one or two codes guessing its first."""
    import itertools

    pegs, colors = document["pegs"], document["colors"]
    codes = list(itertools.product(range(colors), repeat=pegs))
    secrets = [i for i, code in enumerate(codes) if not document["distinct"] or len(set(code)) == pegs]
    stream, depths = iter(document["guesses"]), {}

    def visit(cands: list[int], depth: int) -> None:
        assert depth <= 12  # a guess that learns nothing would never end
        if len(cands) <= 2:
            for extra, code in enumerate(cands):
                depths[code] = depth + extra
            return
        guess = codes[next(stream)]
        classes: dict[tuple[int, int], list[int]] = {}
        for code in cands:
            classes.setdefault(own_feedback(codes[code], guess), []).append(code)
        for reply in sorted(classes):
            if reply == (pegs, 0):
                depths[classes[reply][0]] = depth
            else:
                visit(classes[reply], depth + 1)

    visit(secrets, 1)
    assert next(stream, None) is None  # every stored guess is some node's
    assert sorted(depths) == secrets
    return list(depths.values())


@pytest.mark.parametrize("name", sorted(path.name for path in DATA.glob("optimal-*.json")))
def test_shipped_trees_replay_with_a_feedback_of_their_own(name):
    """Every shipped tree, replayed over every secret without the engine:
    its stated total, and its limit when it has one."""
    import json

    document = json.loads((DATA / name).read_text())
    depths = own_replay(document)
    assert sum(depths) == document["total"]
    if document["max_guesses"]:
        assert max(depths) <= document["max_guesses"]


@pytest.mark.parametrize(
    "size",
    [
        GameSize(2, 2),
        GameSize(2, 2, True),
        GameSize(2, 3, True),
        GameSize(2, 4),
        GameSize(3, 2),
        GameSize(3, 3, True),
        GameSize(4, 2),
        GameSize(5, 2),
    ],
    ids=lambda s: s.label(),
)
def test_small_shipped_trees_state_the_plain_search_optimum(size):
    """The smallest shipped trees: the total each file states is the one
    every guess tried at every node finds."""
    import json

    assert json.loads((DATA / data_name(size)).read_text())["total"] == plain_optimum(size)


def test_the_5x6_optimum_is_below_the_best_heuristic_tree():
    """The shipped 5 × 6 optimum (7,776 secrets) beats the entropy tree, the
    best of the published heuristics, and every tree the engine's strategies
    make; its worst case is its document's."""
    import json

    from webapp.engine import analyse

    size = GameSize(5, 6)
    document = json.loads((DATA / data_name(size)).read_text())
    optimum = analyse("optimal", size)
    assert optimum.total == document["total"] == sum(own_replay(document))
    assert optimum.total < analyse("entropy", size).total


def test_a_large_board_searches_off_its_shipped_tree_within_a_budget(monkeypatch):
    """5 × 6 is too large to search on demand. Off its shipped tree (a first
    guess of 12345), the optimal player searches the position within
    OFF_TREE_NODES positions visited, as a hint's background job does: its
    guess reaches the total the review's own small search finds there. Past
    the budget, or for a position of more than OFF_TREE_CODES codes, it says
    so in a sentence."""
    from webapp.engine import best_guess, feedback, get_strategy
    from webapp.engine import optimal as module
    from webapp.engine.optimal import _classes
    from webapp.engine.review import SmallSolver
    from webapp.engine.strategies import StrategyError, colors_mask, played_mask
    from webapp.engine.tables import candidates

    size = GameSize(5, 6)
    secret, strategy = Code.parse("54612", size), get_strategy("optimal")

    def played(*guesses):
        return [(g, feedback(g, secret)) for g in (Code.parse(text, size) for text in guesses)]

    history = played("12345", "11223", "66554")
    cands = candidates(size, history).astype(np.int64)
    assert 3 <= cands.shape[0] <= 30  # within the small search's reach
    assert not strategy.quick(size, cands) and strategy.source(size, cands) == "searched"
    guess = best_guess(strategy, size, history).guess.index(size)
    small, colours = SmallSolver(size), played_mask(size, history)
    table = feedback_table(size)
    classes = _classes(table.row(guess, cands), cands, size.solved)
    after = colours | colors_mask(size, guess)
    assert cands.shape[0] + sum(small.total(c, after)[0] for c in classes) == small.total(cands, colours)[0]

    # A hint job hears how much of the budget the search has spent.
    reports = []
    module.shared_solver(size, None).forget()
    with module.searching(reports.append):
        best_guess(strategy, size, played("12345", "23456"))
    assert reports and 0 < reports[-1] <= 1 and reports == sorted(reports)

    solver = module.shared_solver(size, None)
    visited = int(solver.stats[0])
    huge = played("11111")  # 3,125 codes: refused without a search
    with pytest.raises(StrategyError) as info:
        best_guess(strategy, size, huge)
    assert info.value.fact == "optimal-search-too-long" and int(solver.stats[0]) == visited
    assert candidates(size, huge).shape[0] > module.OFF_TREE_CODES

    monkeypatch.setattr(module, "OFF_TREE_NODES", 1)
    module.shared_solver(size, None).forget()
    larger = played("12345", "11223")
    with pytest.raises(StrategyError) as info:
        best_guess(strategy, size, larger)
    assert info.value.fact == "optimal-search-too-long"
    assert f"{candidates(size, larger).shape[0]} codes still possible" in error_words(info.value)


def test_polled_work_is_polled_until_it_ends_and_its_error_comes_back():
    """The work runs on its own thread and cannot end before the third poll
    (an event): it is polled while it runs and once at the end; an error
    raised there is raised here."""
    import threading

    from webapp.engine.optimal import polled

    release, polls = threading.Event(), []

    def poll():
        polls.append(release.is_set())
        if len(polls) >= 3:
            release.set()

    assert polled(lambda: release.wait() and 42, poll, every=0.001) == 42
    assert len(polls) >= 4 and polls[:3] == [False, False, False]

    def failing():
        raise SizeError("no-strategy-within", most=2)

    with pytest.raises(SizeError):
        polled(failing, lambda: None, every=0.001)


def test_optimal_preset_off_the_shipped_tree():
    """After a guess the tree would not make, the preset searches that position."""
    from webapp.engine import Code, Feedback, best_guess, candidates
    from webapp.engine.strategies import played_mask

    size = GameSize()
    history = [(Code.parse("1122", size), Feedback(1, 0))]
    guess = best_guess("optimal", size, history).guess
    cands = candidates(size, history).astype(np.int64)
    solver = OptimalSolver(size)
    matrix = feedback_table(size).matrix
    g = guess.index(size)
    parts = [cands[matrix[g, cands] == r] for r in np.unique(matrix[g, cands]) if r != size.solved]
    mask = played_mask(size, history + [(guess, None)])
    through_guess = len(cands) + sum(solver.total(p, mask, 3) for p in parts)
    assert through_guess == solver.total(cands, played_mask(size, history), 2)


def test_optimal_unavailable_for_large_sizes():
    from webapp.engine import StrategyError, best_guess

    with pytest.raises(StrategyError) as info:
        best_guess("optimal", GameSize(5, 8))
    assert info.value.fact == "optimal-not-here"
    assert "computed on demand up to 1,296 codes; 5×8 has 32,768, too many to search here" in error_words(info.value)
    with pytest.raises(StrategyError) as info:  # no shipped optimal-5 tree: the command line searches it
        best_guess("optimal-5", GameSize(4, 10, distinct=True, distinct_guesses=True))
    assert "Bulls and Cows has 5,040. `mastermind optimal` searches it" in error_words(info.value)


def test_shared_solver_memory_is_bounded():
    from webapp.engine.optimal import OptimalSolver
    from webapp.engine.search_kernels import table_size

    solver = OptimalSolver(GameSize(3, 4))
    total = solver.total()
    assert table_size(solver.table_t) > 10
    solver.bound_memory(entries=10)
    assert table_size(solver.table_t) == 0
    assert solver.total() == total  # it only forgets; answers are the same


@pytest.mark.parametrize("size", [GameSize(3, 4), GameSize(4, 4), GameSize(3, 5), GameSize(4, 6, True)])
@pytest.mark.parametrize("rows", [1, 8, 64])
def test_a_table_too_small_forgets_but_never_changes_an_answer(size, rows):
    """With a few rows, positions keep overwriting one another: every total
    and every tree must still be the optimum's."""
    from webapp.engine.optimal import OptimalSolver, encode_tree
    from webapp.engine.search_kernels import new_table

    roomy = OptimalSolver(size)
    total = roomy.total()
    cramped = OptimalSolver(size)
    cramped.table_t = new_table(rows)
    assert cramped.total() == total
    tree = encode_tree(cramped)
    assert decode_total(size, tree) == total


def decode_total(size, guesses):
    """The total of a compact tree, replayed over every secret."""
    from webapp.engine.codes import secret_indices
    from webapp.engine.optimal import _classes, decode_tree, set_key
    from webapp.engine.tables import feedback_table

    choices, table = decode_tree(size, guesses), feedback_table(size)

    def total(cands):
        n = cands.shape[0]
        if n <= 2:
            return 2 * n - 1
        guess = choices[set_key(cands)]
        return n + sum(total(c) for c in _classes(table.row(guess, cands), cands, size.solved))

    return total(secret_indices(size).astype(np.int64))


@pytest.mark.parametrize("size, limit", [(GameSize(4, 5), None), (GameSize(3, 8), None), (GameSize(4, 5), 5)])
def test_search_on_two_threads_matches_one(size, limit, monkeypatch):
    """The whole-game search shares its root's work between threads: the
    total and every choice of the tree are those of the one-thread search."""
    from webapp.engine.optimal import encode_tree

    trees = {}
    for workers in ("1", "2"):
        monkeypatch.setenv("NUMBA_NUM_THREADS", workers)
        solver = OptimalSolver(size, max_guesses=limit)
        trees[workers] = (solver.total(), encode_tree(solver))
    assert trees["1"] == trees["2"]
    assert size.n_codes >= 500  # large enough to take the threaded path


@pytest.mark.parametrize(
    "size", [GameSize(3, 5), GameSize(4, 4), GameSize(3, 6, True), GameSize(4, 5)], ids=lambda s: s.label()
)
def test_symmetry_changes_neither_total_nor_tree(size, monkeypatch):
    """The whole-game search scores one guess per set of guesses that a
    permutation of positions and colours fixing the history makes alike. The
    same search without it gives the same total and the very same tree, after
    visiting more positions."""
    from webapp.engine.optimal import encode_tree

    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    plain = OptimalSolver(size)
    value = plain._run(plain.secrets, 0, plain.depth_left(1))  # no symmetry known
    fast = OptimalSolver(size)
    assert fast.total() == value
    assert encode_tree(fast) == encode_tree(plain)
    assert fast.stats[0] < plain.stats[0]


def plain_orbit_minima(pool, group, digits, played, colors):
    """The guesses of ``pool`` no smaller guess of it copies: every image
    written in full, by every symmetry, the identity included."""
    pegs = digits.shape[1]
    unplayed = [c for c in range(colors) if not played >> c & 1]
    members = set(pool.tolist())
    kept = []
    for h in pool.tolist():
        images = []
        for row in group:
            rename, index = {}, 0
            for k in range(pegs):
                x = int(digits[h, row[k]])
                y = int(row[pegs + x])
                if y < 0:
                    if x not in rename:
                        rename[x] = unplayed[len(rename)]
                    y = rename[x]
                index = index * colors + y
            images.append(index)
        if not any(image < h and image in members for image in images):
            kept.append(h)
    return kept


@pytest.mark.parametrize("size", [GameSize(4, 6), GameSize(5, 4), GameSize(4, 6, True)], ids=lambda s: s.label())
def test_orbit_minima_keep_the_smallest_of_each_set_of_images(size):
    """The compiled filter (which skips the identity and gives up an image at
    its first larger digit) keeps exactly what writing every image keeps,
    along lines of one and two guesses."""
    from webapp.engine.search_kernels import child_group, orbit_minima, pool_without_dead_variants

    solver = OptimalSolver(size)
    rng = np.random.default_rng(7)
    checked = 0
    for first in rng.choice(solver.secrets, 6, replace=False).tolist():
        group = child_group(solver.all_symmetries, solver.digits, first, 0)
        played = int(solver.colmask[first])
        for second in [first, *rng.choice(solver.secrets, 3, replace=False).tolist()]:
            inner = child_group(group, solver.digits, second, played)
            after = played | int(solver.colmask[second])
            pool = solver.pools[after, : solver.pool_lens[after]]
            cands = solver.secrets[rng.random(solver.secrets.shape[0]) < 0.3]
            pool = pool_without_dead_variants(
                pool, cands, solver.colmask, after, (1 << size.colors) - 1, solver.digits, size.distinct_guesses
            )
            expected = plain_orbit_minima(pool, inner, solver.digits, after, size.colors)
            assert orbit_minima(pool, inner, solver.digits, after, size.colors, size.n_codes).tolist() == expected
            checked += len(pool) - len(expected)
    assert checked > 0  # some guesses were copies


def test_bulls_and_cows_tree_reaches_the_published_optimum():
    """The shipped Bulls and Cows tree, computed by this project's search,
    replays to the published optimum: 26,274 guesses over the 5,040 secrets
    (5.2131 on average), never more than 7, every guess four different digits."""
    from webapp.engine import analyse
    from webapp.engine.tree import Node

    result = analyse("optimal", GameSize(4, 10, True, True))
    assert (result.total, len(result.depths), result.max) == (26274, 5040, 7)
    guesses = []

    def walk(node):
        guesses.append(Code.from_index(node.guess, result.size))
        for child in node.children.values():
            if isinstance(child, Node):
                walk(child)

    walk(result.root)
    assert all(g.is_distinct() for g in guesses)


def test_the_search_and_its_kernels_mean_the_same_by_no_total():
    """``optimal`` reads the kernels' results against its own INF (it must not
    import numba to read a shipped tree), so the two must be one value."""
    from webapp.engine import optimal, search_kernels

    assert optimal.INF == search_kernels.INF
