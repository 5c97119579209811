"""Security headers on every answer (Flask-Talisman): a Content-Security-Policy
that allows only the app's own scripts, styles and images, no framing,
`nosniff`, and `Referrer-Policy: same-origin`. HTTPS is the proxy's job, so
Talisman does not redirect to it here."""

from __future__ import annotations

CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def init_app(app) -> None:
    from flask import g
    from flask_talisman import Talisman

    # Registered before Talisman, so it runs after it: a page holding a private
    # key in its address (a challenge's results) sends no referrer at all.
    @app.after_request
    def stricter_referrer(response):
        if g.get("no_referrer"):
            response.headers["Referrer-Policy"] = "no-referrer"
        return response

    Talisman(
        app,
        force_https=False,
        strict_transport_security=False,
        session_cookie_secure=False,
        content_security_policy=CSP,
        referrer_policy="same-origin",
        frame_options="DENY",
        permissions_policy={"camera": "()", "microphone": "()", "geolocation": "()"},
    )
