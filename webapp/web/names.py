"""Names people give (a player's, a student's nickname): plain text a reader
can see."""

from __future__ import annotations

import unicodedata

from flask_babel import gettext

from ..settings import MAX_NAME, SettingsError

# Characters that show nothing yet are letters or symbols to Unicode: the
# Hangul fillers and the blank Braille pattern (a name of them looks empty).
BLANK_LETTERS = set("\u115f\u1160\u3164\uffa0\u2800")
# Combining marks one character may carry in a name (a stack of dozens
# spills over the lines around it).
MOST_MARKS = 2


def shown_characters(text: str) -> str:
    """``text`` without what a reader cannot see or that changes the text
    around it: control and format characters (zero-width spaces and joiners,
    direction marks, tag characters), blank letters, and the combining marks
    past the second on one character."""
    kept: list[str] = []
    marks = 0
    for c in text:
        kind = unicodedata.category(c)
        if kind in ("Cc", "Cf", "Co", "Cs", "Cn") or c in BLANK_LETTERS:
            continue
        if kind.startswith("M"):
            marks += 1
            if marks > MOST_MARKS or not kept:
                continue
        else:
            marks = 0
        kept.append(c)
    return "".join(kept)


def player_name(raw, most: int = MAX_NAME) -> str:
    """A player's name: plain text, with what a reader cannot see removed
    (:func:`shown_characters`) and spaces folded; at most ``most`` characters.

    >>> player_name("A\u200bnn"), player_name("\u200b\u200b\u200b"), player_name("  Ann   Lee ")
    ('Ann', '', 'Ann Lee')
    """
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise SettingsError(gettext('A name is text, such as "Ann".'))
    name = " ".join(shown_characters(raw).split())
    if len(name) > most:
        raise SettingsError(gettext("A name has at most %(num)d characters.", num=most))
    return name
