"""The doors: what every request meets before a view runs, and what every
answer carries.

- **Only the site acts for its visitors.** Every unsafe request (POST, PUT,
  PATCH, DELETE) that a browser says came from another site is refused with
  403 before anything is read, counted or stored: by ``Sec-Fetch-Site`` when
  the browser sends it (anything but ``same-origin`` or ``none``), else by
  ``Origin`` (present, ``null`` included, and not this site's). A request
  with neither header (curl, a script) passes: no browser sends a
  cross-site form without one of them. This is the check of Go's
  ``net/http.CrossOriginProtection``; the player cookie is also
  ``SameSite=Lax``. No per-form tokens are needed on top.
- **JSON routes read JSON only**: an unsafe request under ``/api/`` with a
  body of another type (what a cross-site form can send without asking
  first) gets 415.
- **The site's own address** is ``PUBLIC_URL`` when set; otherwise the
  request's, and a ``Host`` header not in ``TRUSTED_HOSTS`` is refused
  (Flask's own check), so no link the app gives out names another host.
  The refusal is a 400 page in the visitor's language saying where the site
  is, drawn on the site's own address (its style sheets and scripts are
  served to any host: they name none).
- **Headers on every answer** (Flask-Talisman): a Content-Security-Policy
  that allows only the app's own scripts, styles and images, no framing,
  ``nosniff``, and ``Referrer-Policy: same-origin``. HTTPS is the proxy's
  job, so Talisman does not redirect to it here."""

from __future__ import annotations

from urllib.parse import urlsplit

from werkzeug.routing import IntegerConverter

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


class AsciiNumber(IntegerConverter):
    """``<int:…>`` in a route: ASCII digits only (Werkzeug's own takes any
    Unicode digit, so ``/daily/٣٢٨`` would be day 328)."""

    regex = r"[0-9]+"


UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The hosts a request may name when PUBLIC_URL does not say: this machine.
LOCAL_HOSTS = ["127.0.0.1", "localhost", "::1"]
# A refused Host header is shown to its sender cut to this many characters.
SHOWN_HOST = 80
# What machines call (probes, Prometheus): they build no link, so they answer
# whatever Host a probe names (a load balancer's address for the server, say),
# and they answer while the database waits for its upgrade.
PROBES = frozenset({"ops.healthz", "ops.readyz", "ops.metrics"})


def site_origin(public_url: str | None, scheme: str, host: str) -> str:
    """This site's origin (``scheme://host[:port]``): the public URL's, or
    the request's.

    >>> site_origin("https://mm.example/", "http", "127.0.0.1:8000")
    'https://mm.example'
    >>> site_origin(None, "http", "127.0.0.1:8000")
    'http://127.0.0.1:8000'
    """
    if public_url:
        parts = urlsplit(public_url)
        return f"{parts.scheme}://{parts.netloc}"
    return f"{scheme}://{host}"


def from_another_site(fetch_site: str | None, origin: str | None, own: str) -> bool:
    """Whether a browser says this request came from a page of another site:
    by ``Sec-Fetch-Site`` when it sends one, else by ``Origin`` (a page with
    ``Referrer-Policy: no-referrer`` posts ``Origin: null`` to its own site,
    and ``Sec-Fetch-Site: same-origin`` says so).

    >>> from_another_site("cross-site", None, "http://a.example")
    True
    >>> from_another_site("same-origin", "null", "http://a.example")
    False
    >>> from_another_site(None, "null", "http://a.example")
    True
    >>> from_another_site(None, "http://a.example", "http://a.example")
    False
    >>> from_another_site(None, None, "http://a.example")
    False
    """
    if fetch_site is not None:
        return fetch_site not in ("same-origin", "none")
    return origin is not None and origin.rstrip("/") != own


def trusted_hosts(config) -> list[str] | None:
    """The hosts a request's ``Host`` header may name: the configured list,
    else the public URL's host and this machine's names."""
    if config.get("TRUSTED_HOSTS") is not None:
        return config["TRUSTED_HOSTS"]
    public = config.get("PUBLIC_URL")
    return [urlsplit(public).hostname or ""] + LOCAL_HOSTS if public else LOCAL_HOSTS


def own_address(public_url: str | None, scheme: str) -> tuple[str, str]:
    """The scheme and host a refused request's page is drawn on: the public
    URL's, else this machine's name (the page's links are relative, so only
    an absolute link would show it).

    >>> own_address("https://mm.example/", "http"), own_address(None, "http")
    (('https', 'mm.example'), ('http', 'localhost'))
    """
    if public_url:
        parts = urlsplit(public_url)
        return parts.scheme, parts.netloc
    return scheme, "localhost"


def init_app(app) -> None:
    from flask import abort, g, request
    from flask.globals import request_ctx
    from flask_babel import gettext
    from flask_talisman import Talisman
    from werkzeug.exceptions import SecurityError

    from .errors import error_response

    app.config["TRUSTED_HOSTS"] = trusted_hosts(app.config)
    app.url_map.converters["int"] = AsciiNumber  # before any route is added

    @app.before_request
    def only_trusted_hosts():
        """Registered first of all. Flask refused the ``Host`` header as the
        request arrived (``routing_exception``), leaving it no address; the
        request is bound to the site's own, matched there (so a static file
        is served as usual), and anything else gets the page."""
        if not isinstance(request.routing_exception, SecurityError):
            return None
        environ = request.environ
        named = (environ.get("HTTP_HOST") or environ.get("SERVER_NAME") or "")[:SHOWN_HOST]
        public = app.config.get("PUBLIC_URL")
        scheme, host = own_address(public, request.scheme)
        request.host = host  # so nothing drawn for this request reads the refused one
        request_ctx.url_adapter = app.url_map.bind(
            host,
            script_name=request.root_path or None,
            subdomain=app.url_map.default_subdomain or "",
            url_scheme=scheme,
            default_method=request.method,
            path_info=request.path,
        )
        request.routing_exception = None
        request_ctx.match_request()
        if (request.endpoint == "static" or request.endpoint in PROBES) and request.routing_exception is None:
            return None
        said = gettext("This server does not answer to the address %(host)s.", host=named)
        if public:
            where = gettext("Open the site at its own address: %(address)s", address=public)
        else:
            where = gettext(
                "Open the site at the address you were given; whoever runs it can add this one "
                "to its TRUSTED_HOSTS setting."
            )
        return error_response(400, f"{said} {where}", "refused_host.html", host=named, address=public)

    @app.before_request
    def only_this_site():
        """Registered next, so a refusal comes before anything is read or counted."""
        if request.method not in UNSAFE_METHODS:
            return None
        own = site_origin(app.config.get("PUBLIC_URL"), request.scheme, request.host)
        if from_another_site(request.headers.get("Sec-Fetch-Site"), request.headers.get("Origin"), own):
            return error_response(
                403,
                gettext(
                    "This request came from a page of another site, so nothing was done. "
                    "To play, use the pages of this site."
                ),
            )
        sent_body = request.content_length or request.headers.get("Transfer-Encoding")
        if (
            request.path.startswith("/api/")
            and (sent_body or request.mimetype)
            and request.mimetype != "application/json"
        ):
            return error_response(
                415,
                gettext(
                    "This address reads a JSON object sent as application/json, not %(body)s.",
                    body=request.mimetype or gettext("a body of no stated type"),
                ),
            )
        return None

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
