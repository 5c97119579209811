"""Strategies: the mechanism, the symmetry reduction and the tie-breaks."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.engine import PRESETS, Code, Feedback, GameSize, StrategyError, best_guess, get_strategy
from webapp.engine.codes import guess_indices, secret_indices
from webapp.engine.strategies import choose, guess_pool, played_mask, pool_of
from webapp.engine.tables import candidates, feedback_table


def full_pool(size: GameSize) -> np.ndarray:
    """Every code the rules allow as a guess, for checking the reduced pool against."""
    return guess_indices(size).astype(np.int64)


def test_first_guess_patterns():
    pool = guess_pool(4, 6, 0)
    assert [str(Code.from_index(i, GameSize())) for i in pool] == ["1111", "1112", "1122", "1123", "1234"]


def test_unplayed_colours_are_interchangeable():
    size = GameSize()
    mask = played_mask(size, [(Code.parse("1122", size), Feedback(1, 0))])
    pool = [str(Code.from_index(i, size)) for i in guess_pool(4, 6, mask)]
    assert "1123" in pool and "1134" in pool
    assert "3456" in pool
    assert "1124" not in pool and "1143" not in pool and "3465" not in pool


SMALL = [
    GameSize(3, 4),
    GameSize(4, 4),
    GameSize(3, 5, distinct=True),
    GameSize(4, 3),
    GameSize(3, 5, distinct_guesses=True),
    GameSize(4, 6, distinct_guesses=True),
]


@pytest.mark.parametrize("size", SMALL, ids=lambda s: s.label())
@pytest.mark.parametrize("name", [n for n, s in PRESETS.items() if not s.candidates_only and not s.chooser])
def test_reduced_pool_matches_full_pool(size, name):
    """Every node of a few games: the symmetric pool picks what all codes pick."""
    strategy = get_strategy(name)
    table = feedback_table(size)
    rng = np.random.default_rng(7)
    secrets = rng.choice(candidates(size), size=6, replace=False)
    for secret in secrets:
        history = []
        while True:
            cands = candidates(size, history).astype(np.int64)
            reduced = choose(strategy, table, cands, pool_of(size, played_mask(size, history)))
            full = choose(strategy, table, cands, full_pool(size))
            assert reduced == full
            reply = Feedback.decode(table.row(reduced, np.array([secret]))[0], size.pegs)
            if reply.black == size.pegs:
                break
            history.append((Code.from_index(reduced, size), reply))


def test_non_candidate_can_split_better():
    # From the rules document: no candidate separates these six, but 1261 does.
    size = GameSize()
    cands = np.array(
        sorted(Code.parse(c, size).index(size) for c in ["1211", "1212", "1216", "1245", "1515", "1615"]),
        dtype=np.int64,
    )
    table = feedback_table(size)
    assert table.class_counts(cands, cands).max(axis=1).min() > 1
    assert table.class_counts(np.array([Code.parse("1261", size).index(size)]), cands).max() == 1
    guess = choose(get_strategy("knuth"), table, cands, full_pool(size))
    assert table.class_counts(np.array([guess]), cands).max() == 1


def test_knuth_first_guess_and_partition():
    s = best_guess("knuth", GameSize())
    assert str(s.guess) == "1122"
    assert s.score == {"largest class": 256}
    assert sum(s.partition.values()) == 1296
    assert s.partition[Feedback(1, 0)] == 256


def test_suggestion_after_history():
    size = GameSize()
    history = [(Code.parse("1122", size), Feedback(1, 0)), (Code.parse("3456", size), Feedback(0, 2))]
    s = best_guess("knuth", size, history)
    assert s.remaining == len(candidates(size, history))
    assert sum(s.partition.values()) == s.remaining


def test_random_is_seedable():
    size = GameSize()
    a = best_guess("random", size, rng=np.random.default_rng(3)).guess
    b = best_guess("random", size, rng=np.random.default_rng(3)).guess
    assert a == b


def test_tie_breaks_candidate_preference():
    """Rows tie on every score: knuth takes the candidate, minimax-avg the first row."""
    from webapp.engine.strategies import _select

    counts = np.array([[2, 1, 1, 0], [2, 1, 0, 1], [3, 1, 0, 0]], dtype=np.int32)
    is_candidate = np.array([False, True, True])
    assert _select(get_strategy("knuth"), counts, 4, is_candidate) == 1
    assert _select(get_strategy("minimax-avg"), counts, 4, is_candidate) == 0
    assert _select(get_strategy("knuth"), counts, 4, np.array([False, False, True])) == 0


def test_minimax_avg_guesses_first_of_two():
    size = GameSize(3, 3)
    table = feedback_table(size)
    every = candidates(size)
    for guess in every:  # the first (guess, reply) that leaves exactly two codes
        replies, sizes = np.unique(table.row(guess, every), return_counts=True)
        if (sizes == 2).any():
            reply = Feedback.decode(replies[sizes == 2][0], size.pegs)
            history = [(Code.from_index(guess, size), reply)]
            break
    remaining = [str(Code.from_index(i, size)) for i in candidates(size, history)]
    assert len(remaining) == 2
    assert str(best_guess("minimax-avg", size, history).guess) == remaining[0]


def test_unknown_strategy():
    with pytest.raises(StrategyError) as info:
        get_strategy("nope")
    assert "knuth" in str(info.value)


def test_every_preset_is_described():
    for strategy in PRESETS.values():
        assert strategy.description.endswith(".") and strategy.reference


def test_unknown_strategy_is_not_echoed_at_length():
    with pytest.raises(StrategyError) as info:
        get_strategy("x" * 5000)
    assert len(str(info.value)) < 300 and "xxxx…" in str(info.value)


DISTINCT_GUESSES = [GameSize(4, 6, distinct_guesses=True), GameSize(3, 7, distinct_guesses=True)]


@pytest.mark.parametrize(
    "size, name", [(size, n) for size in DISTINCT_GUESSES for n, s in PRESETS.items() if s.available(size)], ids=str
)
def test_distinct_guesses_are_kept_to(size, name):
    """With guesses of different colours, no strategy ever guesses a repeat,
    at any node of its whole tree."""
    from webapp.engine import analyse
    from webapp.engine.tree import Node

    seen = []

    def walk(node):
        seen.append(Code.from_index(node.guess, size))
        for child in node.children.values():
            if isinstance(child, Node):
                walk(child)

    result = analyse(name, size)
    walk(result.root)
    assert len(seen) > 10 and all(g.is_distinct() for g in seen)


@pytest.mark.parametrize(
    "size", [GameSize(4, 8), GameSize(5, 6), GameSize(4, 10, distinct=True, distinct_guesses=True)]
)
def test_dead_colour_filter_in_numpy_keeps_one_of_each_twin_set(size):
    """numpy's filter of guesses that differ only in dead colours (in no
    candidate): every guess it drops splits the candidates as some smaller
    kept guess does, and for free guesses it keeps what the compiled filter
    keeps."""
    from webapp.engine import kernels
    from webapp.engine.strategies import pool_of, without_dead_variants

    table = feedback_table(size)
    rng = np.random.default_rng(size.n_codes)
    secrets = secret_indices(size)
    dropped_any = 0
    for k in (1, 3, 6, 12, 40):
        cands = np.sort(rng.choice(secrets, size=k, replace=False)).astype(np.int64)
        played = int(rng.integers(1, 1 << size.colors))
        pool = pool_of(size, played)
        kept = without_dead_variants(table.digits, pool, cands, size.colors, size.distinct_guesses)
        if not size.distinct_guesses:
            assert (kept == kernels.without_dead_variants(table.digits, pool, cands, size.colors)).all()
        partitions = {tuple(table.rows(np.array([g]), cands)[0]): g for g in kept[::-1]}
        dropped = np.setdiff1d(pool, kept)
        dropped_any += dropped.shape[0]
        for g in dropped[:200]:
            twin = partitions.get(tuple(table.rows(np.array([g]), cands)[0]))
            assert twin is not None and twin < g
    assert dropped_any


@given(
    st.integers(min_value=2, max_value=34).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.lists(st.integers(0, 6), min_size=25, max_size=25), min_size=2, max_size=12),
        )
    )
)
def test_packed_class_sizes_order_rows_as_the_sorted_sizes(case):
    """minimax-lex's one-number key orders partitions of ``n`` codes exactly
    as their class sizes, largest first, compared in turn; beyond 30 codes
    it gives way to the sorted sizes (its number would not be exact)."""
    from webapp.engine.strategies import sizes_descending, sizes_packed

    n, rows = case
    # Each row a partition of n codes: random weights scaled to sum to n.
    counts = np.zeros((len(rows), 25), dtype=np.int32)
    for i, weights in enumerate(rows):
        w = np.array(weights) + (np.arange(25) == i % 25)  # never all zero
        sizes = np.floor(w / w.sum() * n).astype(np.int32)
        sizes[np.argmax(w)] += n - sizes.sum()
        counts[i] = sizes
    packed = sizes_packed(np.asfortranarray(counts), n)
    if n > 30:
        assert packed is None
        return
    lexical = [tuple(row) for row in sizes_descending(counts, n)]
    for a in range(len(rows)):
        for b in range(len(rows)):
            assert (packed[a] < packed[b]) == (lexical[a] < lexical[b])
            assert (packed[a] == packed[b]) == (lexical[a] == lexical[b])
