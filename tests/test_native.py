"""The compiled tree library (webapp.native) and the command's front door
(webapp.command): the same figures as the engine, on every board and
strategy the library plays, without loading numpy."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from webapp import command, native
from webapp.cli import build_parser
from webapp.cli import main as whole_command
from webapp.engine import GameSize, analyse, secret_indices, tree_kernel
from webapp.engine.strategies import PRESETS, get_strategy
from webapp.native import build

MASTERMIND = str(Path(sys.executable).with_name("mastermind"))


def boards():
    """Every board the library plays: up to 10,000 codes, each rule."""
    for pegs in range(2, 7):
        for colors in range(2, 11):
            if colors**pegs > 10_000:
                continue
            for distinct, distinct_guesses in ((False, False), (True, False), (True, True)):
                if not distinct or colors >= pegs:
                    yield pegs, colors, distinct, distinct_guesses


BOARDS = list(boards())


def library():
    lib = native.library()
    assert lib is not None, "webapp/native/tree.so is missing or stale: make builds it"
    return lib


def test_the_library_is_built_from_the_present_sources():
    lib = library()
    assert set(lib.strategies) == set(build.strategy_table())
    assert lib.default_strategy == build_parser().parse_args(["analyse"]).strategy


def test_it_plays_every_one_step_strategy_and_no_other():
    """Those the engine scores without chance or search; never random,
    optimal or best."""
    played = {name for name, s in PRESETS.items() if s.chooser is None and not s.random}
    assert set(library().strategies) == played


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: GameSize(*b).label().replace(" ", "-"))
def test_every_board_and_strategy_gives_the_engines_tree(board):
    size = GameSize(*board)
    secrets = secret_indices(size).tolist()
    for name in library().strategies:
        engine = analyse(name, size)
        for threads in (1, 2):
            played = native.whole_tree(*board, name, threads=threads)
            assert played is not None, (name, threads)
            assert played.secrets == secrets
            assert (played.first_guess, played.depths) == (engine.root.guess, engine.depths.tolist()), (name, threads)


def test_more_threads_than_the_work_has_pieces_give_the_same_tree():
    one = native.whole_tree(4, 10, True, True, "entropy", threads=1)
    many = native.whole_tree(4, 10, True, True, "entropy", threads=5)
    assert (many.first_guess, many.depths) == (one.first_guess, one.depths)


def test_what_it_does_not_play_is_declined():
    assert native.whole_tree(5, 8, False, False, "knuth") is None  # 32,768 codes
    assert native.whole_tree(4, 6, False, False, "random") is None
    assert native.whole_tree(4, 6, False, False, "optimal") is None
    assert native.whole_tree(4, 3, True, False, "knuth") is None  # four different colours of three
    assert native.whole_tree(1, 6, False, False, "knuth") is None
    assert native.whole_tree(4, 11, False, False, "knuth") is None


def test_a_library_built_from_other_sources_is_not_used(tmp_path, monkeypatch):
    """The library records its sources' contents: a kernel changed since
    (here, a copy with a comment added) leaves it unused, and the command
    plays through the engine; the same contents at another time do not."""
    kernel = Path(native.SOURCES[0]).read_bytes()
    changed, copied = tmp_path / "changed.py", tmp_path / "copied.py"
    changed.write_bytes(kernel + b"# changed\n")
    copied.write_bytes(kernel)
    try:
        monkeypatch.setattr(native, "SOURCES", (str(changed), *native.SOURCES[1:]))
        native._loaded.clear()
        assert native.library() is None
        assert command.quick_analysis(["analyse", "--strategy", "knuth"]) is None
        monkeypatch.setattr(native, "SOURCES", (str(copied), *native.SOURCES[1:]))
        native._loaded.clear()
        assert native.library() is not None
    finally:
        native._loaded.clear()


def test_the_kernels_tolerance_is_the_strategies():
    """Every criterion compares exactly or within the kernel's one
    tolerance, and the strategies whose first criterion has it are those
    the kernel compares so."""
    played = [get_strategy(name) for name in library().strategies]
    assert {c.tolerance for s in played for c in s.criteria} == {0.0, tree_kernel.TOLERANCE}
    float_first = {s.name for s in played if s.criteria and s.criteria[0].tolerance}
    assert float_first == {
        name for name, number in tree_kernel.STRATEGY_IDS.items() if number in tree_kernel.FLOAT_FIRST
    }


def test_a_library_built_for_another_processor_is_not_used(monkeypatch):
    monkeypatch.setattr(native, "processor", lambda: "another machine")
    native._loaded.clear()
    try:
        assert native.library() is None
    finally:
        native._loaded.clear()


# --- the front door ---------------------------------------------------------------------


def whole(argv):
    out = io.StringIO()
    assert whole_command(list(argv), out) == 0
    return out.getvalue()


def without_seconds(text):
    return [{k: v for k, v in summary.items() if k != "seconds"} for summary in json.loads(text)]


DOOR_ARGUMENTS = [
    ["analyse", "--strategy", "knuth"],
    ["analyze"],
    ["analyse", "--preset", "bulls-and-cows", "--strategy", "minimax-lex"],
    ["analyse", "--preset=bulls-and-cows", "--strategy=entropy", "--seed", "7"],
    ["analyse", "--pegs", "3", "--colors", "5", "--distinct", "--strategy", "widedev"],
    ["analyse", "--pegs=5", "--colors=4", "--strategy", "simple"],
    ["analyse", "--colors", "7", "--distinct-guesses", "--strategy", "minimax-avg"],
    ["analyse", "--pegs", "6", "--colors", "4", "--strategy", "longrect"],
    ["analyse", "--pegs", "2", "--colors", "10", "--strategy", "irving"],
]


@pytest.mark.parametrize("argv", DOOR_ARGUMENTS, ids=" ".join)
def test_the_door_prints_what_the_whole_command_prints(argv):
    text = command.quick_analysis(argv)
    assert text is not None
    assert text == whole(argv)
    figures = command.quick_analysis([*argv, "--json"])
    assert without_seconds(figures) == without_seconds(whole([*argv, "--json"]))


DECLINED = [
    ["suggest", "1122:1,0"],
    ["analyse", "--strategy", "all"],
    ["analyse", "--strategy", "random"],
    ["analyse", "--strategy", "optimal"],
    ["analyse", "--strategy", "nonsense"],
    ["analyse", "--tree", "out.json"],
    ["analyse", "--help"],
    ["analyse", "--pegs", "5", "--colors", "8"],
    ["analyse", "--pegs", "7"],
    ["analyse", "--pegs", "x"],
    ["analyse", "--pegs"],
    ["analyse", "--pegs", "4", "--pegs", "5"],
    ["analyse", "--peg", "4"],
    ["analyse", "--pegs", "4", "--colors", "3", "--distinct"],
    ["analyse", "--preset", "chess"],
    ["analyse", "--json=yes"],
    ["analyse", "extra"],
    [],
]


@pytest.mark.parametrize("argv", DECLINED, ids=" ".join)
def test_the_door_leaves_everything_else_to_the_whole_command(argv):
    assert command.quick_analysis(argv) is None


def test_the_door_reads_the_whole_commands_options():
    """The ``analyse`` options the door reads are the command's own, all
    but ``--tree`` and help, with the same defaults: an option added to the
    command fails this until the door reads it or is told to leave it."""
    parser = build_parser()
    analyse_parser = parser._subparsers._group_actions[0].choices["analyse"]
    options = {s for action in analyse_parser._actions for s in action.option_strings}
    assert options == set(command.VALUES) | set(command.FLAGS) | {"--tree", "-h", "--help"}
    defaults = parser.parse_args(["analyse"])
    assert (defaults.pegs, defaults.colors) == (command.DEFAULT_PEGS, command.DEFAULT_COLORS)
    assert get_strategy(defaults.strategy).name == library().default_strategy


def test_the_command_answers_without_numpy_or_the_engine():
    script = (
        "import sys\n"
        "from webapp.command import quick_analysis\n"
        "text = quick_analysis(['analyse', '--preset', 'bulls-and-cows', '--strategy', 'minimax-lex'])\n"
        "assert text is not None\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'numba', 'argparse')"
        " or m.startswith('webapp.engine')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def test_the_installed_command_goes_through_the_door_and_past_it():
    argv = ["analyse", "--preset", "bulls-and-cows", "--strategy", "knuth"]
    shown = subprocess.run([MASTERMIND, *argv], capture_output=True, text=True, check=True)
    assert shown.stdout == whole(argv)
    refused = subprocess.run([MASTERMIND, "analyse", "--pegs", "7"], capture_output=True, text=True)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == "mastermind: error: Pegs must be from 2 to 6, not 7.\n"


def test_a_single_worst_secret_is_worded_in_the_singular():
    argv = ["analyse", "--preset", "bulls-and-cows", "--strategy", "entropy"]
    (summary,) = json.loads(whole([*argv, "--json"]))
    assert summary["histogram"][str(summary["max"])] == 1  # one secret needs the most guesses
    last = command.quick_analysis(argv).splitlines()[-1]
    assert last.startswith(f"Worst case, {summary['max']} guesses, for 1 secret: ")
    assert last == whole(argv).splitlines()[-1]
