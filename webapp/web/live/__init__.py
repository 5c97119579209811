"""The live classroom: a teacher steps through a strategy's game on the
projector while every student follows on their own phone and proposes the
next guess. The projector shows the class's proposals beside the strategy's
choice, each with its expected number of guesses from there (E, as the
review measures it); at the end, how the class's choices would have fared,
and a report the teacher keeps.

``service`` holds the rules (validate, record, publish), ``screens`` what
the screens show; the views (``pages``, ``api``, ``stream``) only read
requests and answer, on the two blueprints of ``blueprints``."""

from . import api as _api
from . import pages, stream  # noqa: F401  (their routes join the blueprints)
from .blueprints import api, bp

__all__ = ["api", "bp"]
del _api
