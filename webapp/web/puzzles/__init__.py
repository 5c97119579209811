"""Best-guess puzzles: a position, and the question "what is the best next
guess?", answered exactly and rated (``service``), as pages (``pages``)
and as JSON (``api``)."""

from . import api as _api
from . import pages  # noqa: F401  (their routes join the blueprints)
from .blueprints import api, bp

__all__ = ["api", "bp", "pages", "_api"]
