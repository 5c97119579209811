"""The live classroom's two blueprints: its pages (the projector, the
students' phones, their event streams) and its JSON under ``/api/live``.
The views beside this module add their routes to them; nothing here
imports those views."""

from flask import Blueprint

from ..answers import no_store

bp = Blueprint("live", __name__)
api = Blueprint("live_api", __name__, url_prefix="/api/live")
bp.after_request(no_store)
api.after_request(no_store)
