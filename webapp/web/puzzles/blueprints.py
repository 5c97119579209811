"""The puzzles' two blueprints: the pages under ``/puzzles`` and the JSON
under ``/api/puzzles``. The views beside this module add their routes."""

from flask import Blueprint

from ..answers import no_store

bp = Blueprint("puzzles", __name__, url_prefix="/puzzles")
api = Blueprint("puzzles_api", __name__, url_prefix="/api/puzzles")
bp.after_request(no_store)
api.after_request(no_store)
