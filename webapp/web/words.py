"""The engine's facts in the page's language: why a strategy chose its
guess, which guesses it scored, and the names of its scores. The engine
returns data (``Why``, score dictionaries whose keys are the API's field
names); only this module words them, through the gettext catalogues."""

from __future__ import annotations

from flask_babel import format_decimal, gettext, lazy_gettext, ngettext

from ..engine.codes import JSON
from ..engine.position import Why

# The score names the strategies use (the API keeps these keys in English).
SCORE_NAMES = {
    "largest class": lazy_gettext("largest class"),
    "class sizes": lazy_gettext("class sizes"),
    "entropy (bits)": lazy_gettext("entropy (bits)"),
    "expected size": lazy_gettext("expected size"),
    "classes": lazy_gettext("classes"),
    "std dev of sizes": lazy_gettext("std dev of sizes"),
    "sum of squares": lazy_gettext("sum of squares"),
}


def score_name(label: str) -> str:
    """A score's name in the page's language."""
    return str(SCORE_NAMES.get(label, label))


def score_value(value) -> str:
    """A score's value: a list cut short after five, a number in the locale."""
    if isinstance(value, list):
        return ", ".join(format_decimal(v) for v in value[:5]) + (", …" if len(value) > 5 else "")
    return format_decimal(value)


def score_words(score: JSON) -> str:
    """``largest class 256``, or several values joined."""
    return ", ".join(f"{score_name(label)} {score_value(value)}" for label, value in score.items())


def pool_words(pool: str) -> str:
    """Which guesses a position's top list scored."""
    return {
        "every": gettext("every code"),
        "every-distinct": gettext("every code of different colours"),
        "candidates": gettext("the codes still possible"),
        "patterns": gettext("one code per pattern"),
        "unplayed": gettext("one of each set of guesses that differ only in colours not yet played"),
    }.get(pool, pool)


def why_words(why: Why) -> str:
    """One sentence on which score and which tie-break chose the guess."""
    n = format_decimal(why.n)
    if why.kind == "none":
        return ""
    if why.kind == "solved":
        return ngettext(
            "Solved: %(guess)s is the secret, found in %(num)d guess.",
            "Solved: %(guess)s is the secret, found in %(num)d guesses.",
            why.n,
            guess=why.guess,
        )
    if why.kind == "one-left":
        return gettext("Only one code is left, so %(guess)s is guessed.", guess=why.guess)
    if why.kind == "tree":
        return gettext(
            "%(strategy)s reads its guess from the exact optimal decision tree: from here, %(guess)s needs "
            "the fewest guesses in total over the %(n)s codes still possible.",
            strategy=why.strategy,
            guess=why.guess,
            n=n,
        )
    if why.kind == "first-candidate":
        return gettext(
            "With %(n)s codes left, %(strategy)s guesses the first of them, %(guess)s.",
            n=n,
            strategy=why.strategy,
            guess=why.guess,
        )
    if why.kind == "random":
        return gettext(
            "%(strategy)s draws one of the %(n)s codes still possible at random: %(guess)s.",
            strategy=why.strategy,
            n=n,
            guess=why.guess,
        )
    if why.kind == "first-in-order":
        return gettext(
            "%(strategy)s guesses the first of the %(n)s codes still possible in ascending order.",
            strategy=why.strategy,
            n=n,
        )
    facts = {
        "guess": why.guess,
        "strategy": why.strategy,
        "score": score_words(why.score),
        "scored": format_decimal(why.scored),
        "pool": pool_words(why.pool),
        "ties": format_decimal(why.ties),
        "tied_candidates": format_decimal(why.tied_candidates),
    }
    if why.ties == 1:
        return gettext(
            "%(guess)s scores best by %(strategy)s's rule (%(score)s); no other of the %(scored)s guesses "
            "scored (%(pool)s) does as well.",
            **facts,
        )
    head = ngettext(
        "%(guess)s scores best by %(strategy)s's rule (%(score)s), tied with %(num)d other guess of the "
        "%(scored)s scored (%(pool)s)",
        "%(guess)s scores best by %(strategy)s's rule (%(score)s), tied with %(num)d other guesses of the "
        "%(scored)s scored (%(pool)s)",
        why.ties - 1,
        **facts,
    )
    if not why.prefer_candidates:
        tail = gettext(
            "; this strategy gives codes still possible no preference, so the first in ascending order wins."
        )
    elif why.tied_candidates == 1 and why.is_candidate:
        tail = gettext("; it is the only one of them that could be the secret, so it wins.")
    elif 0 < why.tied_candidates < why.ties:
        tail = gettext(
            "; %(tied_candidates)s of the %(ties)s tied could be the secret, and of those the first in "
            "ascending order wins.",
            **facts,
        )
    else:
        tail = gettext("; the first in ascending order wins.")
    return head + tail


# A review's ratings (the API keeps these keys in English).
RATING_NAMES = {
    "best": lazy_gettext("best"),
    "excellent": lazy_gettext("excellent"),
    "good": lazy_gettext("good"),
    "inaccuracy": lazy_gettext("inaccuracy"),
    "mistake": lazy_gettext("mistake"),
    "blunder": lazy_gettext("blunder"),
}


def rating_name(key: str) -> str:
    """A review's rating in the page's language."""
    return str(RATING_NAMES.get(key, key))


def estimate_words() -> str:
    """How a review estimates where it cannot be exact (the engine's method)."""
    return gettext(
        "one guess ahead: each class the guess leaves is counted at the fewest guesses any strategy could "
        "need for it (the counting bound), so the figures are lower than optimal play's and only compare "
        "guesses with one another"
    )


# The adversaries of the optimal game (the API and the links keep these keys).
ADVERSARY_NAMES = {"greedy": lazy_gettext("greedy"), "deepest": lazy_gettext("deepest")}


def adversary_name(key: str) -> str:
    """An adversary's name in the page's language."""
    return str(ADVERSARY_NAMES.get(key, key))
