"""Friendly nicknames the app gives students when the teacher asks for
them: an animal and a word, in the page's language, one per seat."""

from __future__ import annotations

from flask_babel import lazy_gettext

# Each name is translated whole, so its words agree in every language.
NAMES = (
    lazy_gettext("Brave Badger"),
    lazy_gettext("Calm Crane"),
    lazy_gettext("Clever Fox"),
    lazy_gettext("Curious Otter"),
    lazy_gettext("Eager Beaver"),
    lazy_gettext("Gentle Deer"),
    lazy_gettext("Happy Hedgehog"),
    lazy_gettext("Jolly Dolphin"),
    lazy_gettext("Keen Hawk"),
    lazy_gettext("Kind Koala"),
    lazy_gettext("Lucky Lynx"),
    lazy_gettext("Merry Magpie"),
    lazy_gettext("Nimble Squirrel"),
    lazy_gettext("Patient Tortoise"),
    lazy_gettext("Proud Lion"),
    lazy_gettext("Quick Hare"),
    lazy_gettext("Quiet Owl"),
    lazy_gettext("Sharp Eagle"),
    lazy_gettext("Steady Bear"),
    lazy_gettext("Swift Swallow"),
    lazy_gettext("Wise Raven"),
    lazy_gettext("Bold Wolf"),
    lazy_gettext("Bright Robin"),
    lazy_gettext("Busy Bee"),
)


def nickname(seat: int) -> str:
    """The name of ``seat`` (counted from 1): the list in turn, then again
    with a number, so no two seats of a session share a name."""
    name = str(NAMES[(seat - 1) % len(NAMES)])
    lap = (seat - 1) // len(NAMES)
    return name if lap == 0 else f"{name} {lap + 1}"
