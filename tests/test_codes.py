"""Codes, sizes and single feedback: the rules document's examples first."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.engine import Code, CodeError, Feedback, FeedbackError, GameSize, SizeError, feedback
from webapp.engine.codes import conceal, reveal
from webapp.words import error_words

# secret, guess, black, white: the worked examples of rules-and-strategies.md
WORKED = [
    ("2211", "4553", 0, 0),
    ("2523", "4451", 0, 1),
    ("3254", "1143", 0, 2),
    ("3532", "5313", 0, 3),
    ("1523", "3215", 0, 4),
    ("1125", "3545", 1, 0),
    ("1423", "2221", 1, 1),
    ("1252", "2132", 1, 2),
    ("2131", "1321", 1, 3),
    ("1432", "2532", 2, 0),
    ("1511", "1451", 2, 1),
    ("4532", "3542", 2, 2),
    ("2231", "5231", 3, 0),
    ("2231", "2231", 4, 0),
]
SIZE5 = GameSize(4, 5)


@pytest.mark.parametrize("secret, guess, black, white", WORKED)
def test_worked_examples(secret, guess, black, white):
    s, g = Code.parse(secret, SIZE5), Code.parse(guess, SIZE5)
    assert feedback(g, s) == Feedback(black, white)
    assert feedback(s, g) == Feedback(black, white)


def test_repeated_colour_counts_once():
    size = GameSize()
    assert feedback(Code.parse("1111", size), Code.parse("1234", size)) == Feedback(1, 0)


def slow_feedback(guess, secret):
    """An independent implementation: remove exact matches, then count."""
    black = sum(a == b for a, b in zip(guess, secret))
    rest_g = Counter(a for a, b in zip(guess, secret) if a != b)
    rest_s = Counter(b for a, b in zip(guess, secret) if a != b)
    return black, sum((rest_g & rest_s).values())


codes = st.integers(2, 6).flatmap(
    lambda pegs: st.integers(2, 9).flatmap(
        lambda colors: st.tuples(
            st.just(GameSize(pegs, colors)),
            st.lists(st.integers(1, colors), min_size=pegs, max_size=pegs),
            st.lists(st.integers(1, colors), min_size=pegs, max_size=pegs),
        )
    )
)


@given(codes)
def test_feedback_properties(case):
    size, guess, secret = case
    g, s = Code(tuple(guess)), Code(tuple(secret))
    reply = feedback(g, s)
    assert (reply.black, reply.white) == slow_feedback(guess, secret)
    assert feedback(s, g) == reply
    assert reply.black + reply.white <= size.pegs
    assert (reply.black, reply.white) != (size.pegs - 1, 1)
    reply.check(size)  # never an impossible reply


@given(codes)
def test_index_round_trip(case):
    size, guess, _ = case
    code = Code(tuple(guess))
    assert Code.from_index(code.index(size), size) == code
    assert Code.parse(str(code), size) == code


def test_ascending_order():
    size = GameSize()
    assert str(Code.from_index(0, size)) == "1111"
    assert str(Code.from_index(1, size)) == "1112"
    assert str(Code.from_index(6, size)) == "1121"
    assert str(Code.from_index(size.n_codes - 1, size)) == "6666"


@pytest.mark.parametrize(
    "text, words",
    [
        ("112", "has 3"),
        ("11223", "has 5"),
        ("1172", "Colour 7"),
        ("12a4", "'a'"),
        ("", "Enter 4 colours"),
        ("0123", "Colour 0"),
        ("１２３４", "are not colours"),
        ("12a4", "is not a colour"),
    ],
)
def test_parse_errors_are_readable(text, words):
    with pytest.raises(CodeError) as info:
        Code.parse(text, GameSize())
    assert words in error_words(info.value)


def test_parse_rejects_non_strings():
    with pytest.raises(CodeError):
        Code.parse(1122, GameSize())


def test_parse_accepts_separators():
    assert Code.parse("1-1 2,2", GameSize()) == Code((1, 1, 2, 2))


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"pegs": 99}, "Pegs must be from 2 to 6, not 99."),
        ({"pegs": 1}, "Pegs must be from 2 to 6"),
        ({"colors": 11}, "Colours must be from 2 to 10, not 11."),
        ({"pegs": 5, "colors": 4, "distinct": True}, "at least 5 colours"),
        ({"pegs": True}, "Pegs must be a whole number"),
    ],
)
def test_size_errors(kwargs, words):
    with pytest.raises(SizeError) as info:
        GameSize(**kwargs)
    assert words in error_words(info.value)


@pytest.mark.parametrize("text", ["3,1", "5,0", "2,3", "-1,0", "x"])
def test_impossible_feedback(text):
    with pytest.raises(FeedbackError):
        Feedback.parse(text, GameSize())


def test_feedback_encoding_round_trip():
    size = GameSize(5, 8)
    for black in range(6):
        for white in range(6 - black):
            reply = Feedback(black, white)
            assert Feedback.decode(reply.encode(5), 5) == reply
    assert size.solved == Feedback(5, 0).encode(5)


def test_the_tenth_colour_is_written_0():
    ten = GameSize(4, 10)
    code = Code.parse("1090", ten)
    assert code.pegs == (1, 10, 9, 10) and str(code) == "1090"
    assert Code.from_index(code.index(ten), ten) == code
    assert Code.from_index(ten.n_codes - 1, ten) == Code.parse("0000", ten)
    with pytest.raises(CodeError) as info:
        Code.parse("1090", GameSize(4, 9))
    assert "Colour 0 is not in this game: use the digits 1 to 9" in error_words(info.value)
    with pytest.raises(CodeError) as info:
        Code.parse("12a4", ten)
    assert "the digits 1 to 9 and 0" in error_words(info.value)
    assert feedback(Code.parse("0012", ten), Code.parse("1200", ten)) == Feedback(0, 4)
    assert str(reveal(conceal(code, ten), ten)) == "1090"
