"""The solver's two blueprints: its pages under ``/solver`` and its JSON
under ``/api/solver``. The views beside this module add their routes to
them; nothing here imports those views."""

from flask import Blueprint

bp = Blueprint("solver", __name__, url_prefix="/solver")
api = Blueprint("solver_api", __name__, url_prefix="/api/solver")
