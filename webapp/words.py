"""The engine's facts in the reader's language: why a strategy chose its
guess, which guesses it scored, the names of its scores, and every error.
The engine returns data (``Why``, score dictionaries whose keys are the
API's field names, an error's fact and details); only this module words
them, through the gettext catalogues: for the pages and the API in the
request's language, for the command line in English. It sits beside the
web layer, not in it, so ``mastermind`` words its errors without loading a
page, a blueprint or a view."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from flask import has_app_context
from flask_babel import format_decimal, gettext, lazy_gettext, ngettext

from .engine.codes import JSON, GameSize, digit_range, example
from .engine.position import Why
from .engine.strategies import Strategy

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
    n, strategy = format_decimal(why.n), strategy_title(why.strategy)
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
            strategy=strategy,
            guess=why.guess,
            n=n,
        )
    if why.kind == "searched":
        return gettext(
            "This position is off the shipped optimal tree, so %(strategy)s searched from here: %(guess)s "
            "needs the fewest guesses in total over the %(n)s codes still possible.",
            strategy=strategy,
            guess=why.guess,
            n=n,
        )
    if why.kind == "searched-tree":
        return gettext(
            "%(strategy)s reads its guess from the tree this project searched for this board, the best one "
            "known (no optimum is known here): with %(n)s codes still possible, it plays %(guess)s.",
            strategy=strategy,
            guess=why.guess,
            n=n,
        )
    if why.kind == "off-tree":
        return gettext(
            "This game has left the searched tree of the %(strategy)s strategy, so it plays the entropy rule "
            "here: %(guess)s.",
            strategy=strategy,
            guess=why.guess,
        )
    if why.kind == "first-candidate":
        return gettext(
            "With %(n)s codes left, %(strategy)s guesses the first of them, %(guess)s.",
            n=n,
            strategy=strategy,
            guess=why.guess,
        )
    if why.kind == "random":
        return gettext(
            "%(strategy)s draws one of the %(n)s codes still possible at random: %(guess)s.",
            strategy=strategy,
            n=n,
            guess=why.guess,
        )
    if why.kind == "first-in-order":
        return gettext(
            "%(strategy)s guesses the first of the %(n)s codes still possible in ascending order.",
            strategy=strategy,
            n=n,
        )
    facts = {
        "guess": why.guess,
        "strategy": strategy,
        "score": score_words(why.score),
        "scored": format_decimal(why.scored),
        "pool": pool_words(why.pool),
        "ties": format_decimal(why.ties),
        "tied_candidates": format_decimal(why.tied_candidates),
    }
    if why.ties == 1:
        return gettext(
            "%(guess)s scores best by the %(strategy)s rule (%(score)s); no other of the %(scored)s guesses "
            "scored (%(pool)s) does as well.",
            **facts,
        )
    head = ngettext(
        "%(guess)s scores best by the %(strategy)s rule (%(score)s), tied with %(num)d other guess of the "
        "%(scored)s scored (%(pool)s)",
        "%(guess)s scores best by the %(strategy)s rule (%(score)s), tied with %(num)d other guesses of the "
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


def known_words() -> str:
    """How a review measures a move against the best strategy known (a searched tree)."""
    return gettext(
        "V is the total of the searched tree from the position, and E of another guess is that guess "
        "followed by the tree where the game stays on it and by the entropy rule elsewhere; both are totals "
        "a player can reach, not the optimum"
    )


def estimate_words() -> str:
    """How a review estimates where it cannot be exact (the engine's method)."""
    return gettext(
        "one guess ahead: each class the guess leaves is counted at the fewest guesses any strategy could "
        "need for it (the counting bound), so the figures are lower than optimal play's and only compare "
        "guesses with one another"
    )


# The adversaries of the optimal game (the API and the links keep these keys).
ADVERSARY_NAMES = {"greedy": lazy_gettext("greedy"), "deepest": lazy_gettext("deepest")}
# Each adversary as the optimal game's form offers it.
ADVERSARY_CHOICES = {
    "greedy": lazy_gettext("greedy: keeps the most codes"),
    "deepest": lazy_gettext("deepest: the longest game"),
}


def adversary_name(key: str) -> str:
    """An adversary's name in the page's language."""
    return str(ADVERSARY_NAMES.get(key, key))


def adversary_choice(key: str) -> str:
    """An adversary as the form offers it: its name and what it does."""
    return str(ADVERSARY_CHOICES.get(key, key))


def _n(value) -> str:
    """A number in the locale's grouping (1,296 / 1.296); outside a request
    (the command line) in English."""
    return format_decimal(value) if has_app_context() else f"{value:,}"


def size_label(size: GameSize | dict) -> str:
    """A size's short name: ``4×6``, ``4×6 distinct``, ``4×7 distinct guesses``
    or ``Bulls and Cows`` (a dict is a size's ``params()``)."""
    if isinstance(size, dict):
        size = GameSize(**size)
    if size.is_bulls_and_cows:
        return gettext("Bulls and Cows")
    if size.distinct_guesses:
        return gettext("%(pegs)d×%(colors)d distinct guesses", pegs=size.pegs, colors=size.colors)
    if size.distinct:
        return gettext("%(pegs)d×%(colors)d distinct", pegs=size.pegs, colors=size.colors)
    return f"{size.pegs}×{size.colors}"


def not_offered(strategy, size: GameSize) -> str:
    """A strategy the pages do not offer for ``size``."""
    return gettext(
        "%(strategy)s is not offered for %(size)s: choose another strategy.",
        strategy=strategy_title(strategy),
        size=size_label(size),
    )


def digit_range_words(details: dict) -> str:
    """The digits a code is typed with (the engine's ``digit_range``)."""
    if details.get("digits"):
        return gettext("the digits 0 to 9")
    if details.get("tenth"):
        return gettext("the digits 1 to 9 and 0 (the tenth colour)")
    return gettext("the digits 1 to %(colors)d", colors=details["colors"])


def _or(choices: list) -> str:
    return gettext(" or ").join(str(c) for c in choices)


def _line_too_slow(d: dict) -> str:
    facts = {
        "strategy": d["strategy"],
        "size": size_label(d["size"]),
        "codes": _n(GameSize(**d["size"]).n_codes),
    }
    if d["why"] == "pairs":
        what = gettext(
            "The %(strategy)s line on %(size)s (%(codes)s codes) would score %(pairs)s (guess, code) pairs at "
            "guess %(depth)d",
            pairs=_n(d["pairs"]),
            depth=d["depth"],
            **facts,
        )
    elif d["why"] == "tree":
        what = gettext(
            "The %(strategy)s line on %(size)s (%(codes)s codes) needs the codebreaker's whole decision tree",
            **facts,
        )
    else:
        what = gettext("The %(strategy)s line on %(size)s (%(codes)s codes) would need an exact search", **facts)
    return what + gettext(", more than a page may do while you wait. Choose a smaller size or another codebreaker.")


# Every fact the engine raises, worded. The keys are the engine's (see
# MastermindError); each entry takes the error's details.
ERRORS: dict[str, Callable[[dict], str]] = {
    "daily-size": lambda d: gettext("Daily Mastermind is played with 4 pegs and 6 colours or 5 pegs and 8 colours."),
    "pegs-not-number": lambda d: gettext("Pegs must be a whole number from %(low)d to %(high)d.", **d),
    "colors-not-number": lambda d: gettext("Colours must be a whole number from %(low)d to %(high)d.", **d),
    "pegs-out-of-range": lambda d: gettext("Pegs must be from %(low)d to %(high)d, not %(given)s.", **d),
    "colors-out-of-range": lambda d: gettext("Colours must be from %(low)d to %(high)d, not %(given)s.", **d),
    "distinct-not-flag": lambda d: gettext("Whether the secret uses different colours must be true or false."),
    "distinct-guesses-not-flag": lambda d: gettext("Whether every guess uses different colours must be true or false."),
    "too-few-colors": lambda d: gettext(
        "A secret of %(pegs)d different colours needs at least %(pegs)d colours, not %(colors)d.", **d
    ),
    "feedback-unreadable": lambda d: gettext("'%(given)s' is not feedback: write black,white such as 1,2.", **d),
    "feedback-too-many": lambda d: gettext(
        "%(black)d black and %(white)d white is impossible with %(pegs)d pegs.", **d
    ),
    "feedback-never": lambda d: gettext("%(black)d black and %(white)d white can never happen.", **d),
    "no-secret-fits": lambda d: gettext("No secret fits all of that feedback: check the replies."),
    "code-not-text": lambda d: gettext("A code must be written as digits such as %(example)s.", **d),
    "code-far-too-long": lambda d: gettext("That is far too long for a code of %(pegs)d pegs.", **d),
    "code-empty": lambda d: (
        gettext("Enter %(pegs)d digits, for example %(example)s.", **d)
        if d.get("digits")
        else gettext("Enter %(pegs)d colours, for example %(example)s.", **d)
    ),
    "code-not-digits": lambda d: (
        ngettext(
            "%(given)s is not a digit: use %(digits)s.",
            "%(given)s are not digits: use %(digits)s.",
            d.get("count", 1),
            given=d["given"],
            digits=digit_range_words(d),
        )
        if d.get("digits")
        else ngettext(
            "%(given)s is not a colour: use %(digits)s.",
            "%(given)s are not colours: use %(digits)s.",
            d.get("count", 1),
            given=d["given"],
            digits=digit_range_words(d),
        )
    ),
    "code-length": lambda d: (
        gettext("A code has %(pegs)d digits; '%(given)s' has %(length)d.", **d)
        if d.get("digits")
        else gettext("A code has %(pegs)d pegs; '%(given)s' has %(length)d.", **d)
    ),
    "code-colour-outside": lambda d: ngettext(
        "Colour %(given)s is not in this game: use %(digits)s.",
        "Colours %(given)s are not in this game: use %(digits)s.",
        d.get("count", 1),
        given=d["given"],
        digits=digit_range_words(d),
    ),
    "secret-repeats": lambda d: gettext("This game's secret uses different colours: no colour twice."),
    "pegs-differ": lambda d: gettext("The guess and the secret must have the same number of pegs."),
    "guess-repeats": lambda d: (
        gettext("%(guess)s repeats the digit %(repeated)s: in this game every guess has different digits.", **d)
        if d.get("digits")
        else gettext("%(guess)s repeats colour %(repeated)s: in this game every guess uses different colours.", **d)
    ),
    "history-far-too-long": lambda d: gettext("That history is far too long."),
    "history-too-long": lambda d: gettext("A history has at most %(most)d guesses, not %(given)d.", **d),
    "history-unreadable": lambda d: gettext("'%(given)s' is not GUESS:BLACK,WHITE (for example %(example)s:1,0).", **d),
    "history-after-win": lambda d: gettext("Guess %(number)d comes after the code was already found.", **d),
    "history-guess": lambda d: gettext(
        "Guess %(number)d: %(problem)s", number=d["number"], problem=error_words(d["cause"])
    ),
    "link-secret-letters": lambda d: gettext(
        "The secret in this link is damaged: it should be a few lowercase letters."
    ),
    "link-secret-size": lambda d: gettext("The secret in this link is damaged: it is not a code of this size."),
    "link-secret-repeats": lambda d: gettext(
        "The secret in this link repeats a colour, which this game does not allow."
    ),
    "unknown-adversary": lambda d: gettext(
        "Unknown adversary '%(given)s'. Choose %(choices)s.", given=d["given"], choices=_or(d["choices"])
    ),
    "line-too-long": lambda d: gettext("%(strategy)s does not find the code within %(most)d guesses.", **d),
    "line-too-slow": _line_too_slow,
    "too-large-to-analyse": lambda d: gettext(
        "%(size)s has %(codes)s codes; whole-game analysis goes up to %(most)s (5 pegs × 8 colours).",
        size=size_label(d["size"]),
        codes=_n(d["codes"]),
        most=_n(d["most"]),
    ),
    "lines-too-large": lambda d: gettext(
        "%(size)s has %(codes)s codes: its lines are computed for sizes up to %(most)s codes (5 pegs × 8 colours).",
        size=size_label(d["size"]),
        codes=_n(d["codes"]),
        most=_n(d["most"]),
    ),
    "unknown-strategy": lambda d: gettext(
        "Unknown strategy '%(given)s'. Choose one of: %(choices)s.", given=d["given"], choices=", ".join(d["choices"])
    ),
    "strategy-needs-size": lambda d: gettext("%(strategy)s needs the game size to choose.", **d),
    "no-hard-mode": lambda d: gettext(
        "%(strategy)s chooses among every code, and in hard mode every guess must fit every reply so far: "
        "choose another strategy for a hint.",
        **d,
    ),
    "guess-needs-search": lambda d: gettext(
        "%(strategy)s would have to search for its guess here, which can take many seconds: too much to do now.",
        **d,
    ),
    "position-needs-search": lambda d: gettext(
        "%(strategy)s would have to search for its guess here, which can take many seconds: choose another "
        "strategy, or a position on its shipped tree.",
        **d,
    ),
    "guess-too-slow": lambda d: gettext(
        "%(codes)s codes are still possible and %(guesses)s guesses would have to be scored against them: "
        "too much to do now. Make another guess first.",
        codes=_n(d["codes"]),
        guesses=_n(d["guesses"]),
    ),
    "ranking-too-slow": lambda d: gettext("Too many guesses to rank here: make another guess first."),
    "exact-search-too-long": lambda d: gettext(
        "A position of %(codes)s codes is beyond the exact search's reach here: it is estimated.",
        codes=_n(d["codes"]),
    ),
    "small-search-too-long": lambda d: gettext(
        "A position of %(codes)s codes on this board is beyond the exact search's reach here: it is estimated.",
        codes=_n(d["codes"]),
    ),
    "too-large-to-search": lambda d: gettext(
        "%(size)s has %(codes)s codes; the exact optimum is computed here for up to %(most)s codes, or "
        "%(most_distinct)s guesses of different colours.",
        size=size_label(d["size"]),
        codes=_n(d["codes"]),
        most=_n(d["most"]),
        most_distinct=_n(d["most_distinct"]),
    ),
    "no-strategy-within": lambda d: gettext("No strategy finds every secret here within %(most)d guesses.", **d),
    "game-over": lambda d: gettext("This game is over: start a new one to play again."),
    "code-found": lambda d: gettext("The code is already found: start a new game to play again."),
    "guesses-used-up": lambda d: gettext("This game has reached %(num)d guesses.", **d),
    "guess-pending": lambda d: gettext("The computer is still working out its guess: answer once it shows."),
    "guess-recorded": lambda d: gettext("Guess %(move)d was already recorded; the board shows it now.", **d),
    "move-stale": lambda d: gettext("This game is at guess %(next)d, not %(given)d: reload the page.", **d),
    "answers-changed": lambda d: gettext(
        "Your answers changed meanwhile (in another tab?): reload the page and answer again."
    ),
    "nothing-to-undo": lambda d: gettext("There is no answer to take back."),
    "answer-not-last": lambda d: gettext(
        "Answer %(given)d is not the last one (that is answer %(last)d): reload the page.", **d
    ),
    "server-busy": lambda d: gettext("The server is busy with other long computations: try again in a moment."),
    "client-busy": lambda d: gettext(
        "You already have as many long computations running as one visitor may: this one starts when one of "
        "them ends. Try again in a moment."
    ),
    "client-starts": lambda d: gettext(
        "You have started many long computations just now: wait a minute before starting another."
    ),
    "optimal-search-too-long": lambda d: gettext(
        "Optimal play reads this board's shipped tree and searches a position off it within a budget; this "
        "position, with %(codes)s codes still possible, is beyond it. Choose another strategy here, or ask "
        "again after another guess.",
        codes=_n(d["codes"]),
    ),
    "optimal-not-here": lambda d: (
        gettext(
            "Optimal play is shipped for the preset sizes and computed on demand up to %(most)s codes; %(size)s "
            "has %(codes)s. `mastermind optimal` searches it from the command line; or choose another strategy.",
            size=size_label(d["size"]),
            codes=_n(d["codes"]),
            most=_n(d["most"]),
        )
        if d.get("searchable")
        else gettext(
            "Optimal play is shipped for the preset sizes and computed on demand up to %(most)s codes; %(size)s "
            "has %(codes)s, too many to search here: choose another strategy.",
            size=size_label(d["size"]),
            codes=_n(d["codes"]),
            most=_n(d["most"]),
        )
    ),
}


def error_words(error: Exception | dict | str | None) -> str:
    """An error in the page's language: an engine error (or its ``record()``,
    as a background job keeps it) worded from its fact; an error the web
    layer raised is already a sentence."""
    if isinstance(error, dict):
        fact, details = error["fact"], error["details"]
    else:
        fact, details = getattr(error, "fact", None), getattr(error, "details", {})
        if fact is None:
            return str(error or "")
    wording = ERRORS.get(fact)
    shown = {name: visible(value) if isinstance(value, str) else value for name, value in details.items()}
    if isinstance(details.get("strategy"), str):
        shown["strategy"] = visible(strategy_title(details["strategy"]))
    return fact if wording is None else wording(shown)


def visible(text: str) -> str:
    r"""``text`` as a reader can see it: a character that shows nothing or
    turns the line around (a control, a direction mark) written as U+XXXX.

    >>> visible("12\u202e34\x00")
    '12U+202E34U+0000'
    """
    return "".join(f"U+{ord(c):04X}" if unicodedata.category(c).startswith("C") else c for c in text)


# Each strategy as people name it. The key (``Strategy.name``) stays in the
# addresses, the forms' values, the API's fields and the command line; a
# strategy named for a person keeps the name, a description is translated.
STRATEGY_TITLES = {
    "simple": lazy_gettext("Simple"),
    "random": lazy_gettext("Random"),
    "knuth": "Knuth",
    "minimax-lex": lazy_gettext("Lexicographic minimax"),
    "entropy": lazy_gettext("Entropy"),
    "irving": "Irving",
    "most-parts": lazy_gettext("Most parts"),
    "widedev": lazy_gettext("Wide and even"),
    "longrect": lazy_gettext("Wide and low"),
    "minimax-avg": lazy_gettext("Minimax and average"),
    "optimal": lazy_gettext("Optimal"),
    "optimal-5": lazy_gettext("Optimal within 5"),
    "best": lazy_gettext("Best known"),
    "best-candidate": lazy_gettext("Best candidate"),
}


def strategy_title(strategy: Strategy | str) -> str:
    """A strategy (or its key) as people name it, in the page's language:
    ``Knuth``, ``Most parts``; a strategy without a title (one the command
    line builds) goes by its key.

    >>> strategy_title("most-parts"), strategy_title("optimal (max 5)")
    ('Most parts', 'optimal (max 5)')
    """
    key = strategy if isinstance(strategy, str) else strategy.name
    return str(STRATEGY_TITLES.get(key, key))


# What each strategy does (the engine's own description is the English one,
# for the command line and the API).
STRATEGY_DESCRIPTIONS = {
    "simple": lazy_gettext("Always guess the first code still possible, in ascending order."),
    "random": lazy_gettext("Guess a code still possible, chosen uniformly at random (seedable)."),
    "knuth": lazy_gettext("Minimise the size of the largest class the guess can leave."),
    "minimax-lex": lazy_gettext("Minimise the largest class, then the second largest, and so on."),
    "entropy": lazy_gettext("Maximise the Shannon entropy of the class sizes (information gained)."),
    "irving": lazy_gettext("Minimise the expected size of the class that remains."),
    "most-parts": lazy_gettext("Maximise the number of non-empty classes."),
    "widedev": lazy_gettext("Maximise the number of classes, then minimise the spread of their sizes."),
    "longrect": lazy_gettext("Maximise the number of classes, then minimise the largest class."),
    "minimax-avg": lazy_gettext(
        "Minimise the largest class, then the sum of squared class sizes; no preference for codes still possible."
    ),
    "optimal": lazy_gettext("The exact optimum: fewest guesses in total over every secret."),
    "optimal-5": lazy_gettext("Fewest guesses in total among strategies that never need more than 5."),
    "best": lazy_gettext(
        "The best strategy known here: the exact optimum where it is known; on Super Mastermind, a tree "
        "searched by this project (an entropy rollout with exact endgames)."
    ),
    "best-candidate": lazy_gettext(
        "Among the codes still possible only, the one whose largest class is smallest; ties to the first in "
        "ascending order."
    ),
}
# The sources that are not a publication's title (titles stay as published).
REFERENCES = {
    "random": lazy_gettext("Common folklore; a classic blog solver"),
    "minimax-lex": lazy_gettext("A refinement of Knuth's rule"),
    "minimax-avg": lazy_gettext("A Brain Breaker solver"),
    "best-candidate": lazy_gettext('The classic "show the optimal game" line'),
    "best": lazy_gettext("This project (mastermind improve)"),
}


def strategy_description(strategy) -> str:
    """What ``strategy`` does, in the page's language."""
    return str(STRATEGY_DESCRIPTIONS.get(strategy.name, strategy.description))


def strategy_reference(strategy) -> str:
    """Where ``strategy`` comes from; the optimal ones say this project computed them."""
    if strategy.name in REFERENCES:
        return str(REFERENCES[strategy.name])
    if strategy.name in ("optimal", "optimal-5"):
        return gettext(
            "Koyama & Lai 1993, “An optimal Mastermind strategy”, J. Recreational Mathematics 25 (computed by "
            "this project)"
        )
    return strategy.reference


# A number no code length reaches: it marks where the board's script puts the length.
_LENGTH_MARK = 987654321


def code_checks(size: GameSize) -> dict[str, str]:
    """The board script's own checks of a typed guess, worded as the server
    words them, with ``{given}`` and ``{length}`` for the script to fill."""
    facts = digit_range(size)
    return {
        "empty": ERRORS["code-empty"]({"pegs": size.pegs, "example": example(size), "digits": facts["digits"]}),
        "notDigit": ERRORS["code-not-digits"]({"given": "{given}", **facts}),
        "length": ERRORS["code-length"](
            {"pegs": size.pegs, "given": "{given}", "length": _LENGTH_MARK, "digits": facts["digits"]}
        ).replace(str(_LENGTH_MARK), "{length}"),
        "outside": ERRORS["code-colour-outside"]({"given": "{given}", **facts}),
    }


def script_words() -> dict[str, str]:
    """What the pages' scripts say, in the page's language."""
    return {
        "working": gettext("Working it out…"),
        "copied": gettext("Copied."),
        "copyByHand": gettext("Press Ctrl+C (or Cmd+C) to copy the selected text."),
        "serverError": gettext(
            "The server could not answer (error %(status)s). Your last action was not saved: try again.",
            status="{status}",
        ),
        "unreachable": gettext(
            "The server cannot be reached. Your last action was not saved: check your connection and try again."
        ),
    }


# Where the secret of a classroom's game comes from, and how a live
# session's students are named, in words (the forms' keys stay in English).
SECRET_SOURCES = {
    "teacher": lazy_gettext("a secret you type (hidden until it is found)"),
    "random": lazy_gettext("a secret drawn at random"),
    "adversary": lazy_gettext("no secret: the codemaker keeps the most codes possible"),
}
LIVE_NAMES = {
    "typed": lazy_gettext("students type a nickname (or stay anonymous)"),
    "generated": lazy_gettext("the app gives each student a friendly nickname"),
    "hidden": lazy_gettext("no names: the projector shows none"),
}


def live_source_words(key: str) -> str:
    return str(SECRET_SOURCES.get(key, key))


def live_names_words(key: str) -> str:
    return str(LIVE_NAMES.get(key, key))


def student_label(student, names_shown: bool = True) -> str:
    """How the teacher's screen names a student: the nickname, or their
    number where names are hidden or they gave none."""
    if names_shown and student.nickname:
        return student.nickname
    return gettext("Student %(num)d", num=student.seat)


# The themes of best-guess puzzles (``engine.puzzles.THEMES``), as players read them.
THEME_TITLES = {
    "not-a-candidate": lazy_gettext("Play a code that cannot be the secret"),
    "candidate": lazy_gettext("The best guess could be the secret"),
    "few-codes": lazy_gettext("Few codes left"),
    "zero-reply": lazy_gettext("A zero reply"),
    "repeat-colour": lazy_gettext("Repeat a colour"),
    "brain-breaker": lazy_gettext("Brain Breaker"),
    "super-mastermind": lazy_gettext("Super Mastermind"),
    "bulls-and-cows": lazy_gettext("Bulls and Cows"),
    "distinct": lazy_gettext("Distinct colours"),
}


def theme_title(theme: str) -> str:
    """A puzzle theme's name in the page's language."""
    return str(THEME_TITLES.get(theme, theme))
