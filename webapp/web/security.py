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


class BoundedBody:
    """WSGI middleware: a chunked request body (no Content-Length) is read up
    to the app's limit here, so one over it gets 413 like any other instead of
    being cut short and accepted."""

    def __init__(self, wsgi_app, limit: int):
        self.wsgi_app, self.limit = wsgi_app, limit

    def __call__(self, environ, start_response):
        import io

        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            body = environ["wsgi.input"].read(self.limit + 1)
            if len(body) > self.limit:
                environ["mastermind.too_large"] = True
                body = b""
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            environ["wsgi.input_terminated"] = False
        return self.wsgi_app(environ, start_response)


def init_app(app) -> None:
    from flask import abort, g, request
    from flask_talisman import Talisman

    app.wsgi_app = BoundedBody(app.wsgi_app, app.config["MAX_CONTENT_LENGTH"])
    proxies = int(app.config.get("PROXIES") or 0)
    if proxies:  # behind this many trusted proxies: the client is the one they name
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)

    @app.before_request
    def refuse_oversized_chunks():
        if request.environ.get("mastermind.too_large"):
            abort(413)

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
