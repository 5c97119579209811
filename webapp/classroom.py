"""``make classroom``: a live class served from the teacher's own computer
to the phones on its Wi-Fi.

It finds this machine's addresses on the local network, serves the app with
gunicorn on all of them (``deploy/gunicorn.conf.py``, one worker), with
``PUBLIC_URL`` on the first, so every join link and QR code names an address
a phone can open, and ``TRUSTED_HOSTS`` holding those addresses and this
machine's own names; then prints the students' address and its QR code.
Without a network it serves this machine alone, as ``make run`` does.

It speaks the machine's language (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``
or ``LANG``, as gettext reads them) from the app's own catalogues, and draws
the QR code dark on light whatever the terminal's colours.

Standard library, gunicorn, segno and Babel only: the app itself is loaded
by the worker, as under ``make serve``. ``CLASSROOM_ADDRESS``
(comma-separated) names the addresses to give out when the search picks the
wrong ones."""

from __future__ import annotations

import argparse
import gettext
import io
import ipaddress
import json
import os
import re
import socket
import subprocess
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from . import ROOT

CONF = os.path.join(ROOT, "deploy", "gunicorn.conf.py")
DEFAULT_PORT = 5000
# Every address, or this machine alone when it has none on a network.
ALL_ADDRESSES, THIS_MACHINE = "0.0.0.0", "127.0.0.1"
# The names of this machine a request may always carry (webapp.web.security's
# LOCAL_HOSTS, written out so this launcher does not load the app; a test
# holds the two equal).
LOCAL_HOSTS = ["127.0.0.1", "localhost", "::1"]
# Interfaces no phone on the Wi-Fi reaches: containers, virtual machines, VPNs.
VIRTUAL_INTERFACES = (
    "docker", "br-", "virbr", "veth", "lxc", "lxd", "podman", "cni", "flannel",
    "vboxnet", "vmnet", "tun", "tap", "wg", "tailscale", "zt", "utun",
)  # fmt: skip
# Where the students go, and where the teacher starts a live session.
JOIN_PATH, CLASSROOM_PATH = "/join", "/live/new"
# A documentation address (RFC 5737): a UDP socket "connected" to it takes the
# address of the default route's interface; nothing is sent.
ANY_REMOTE = ("203.0.113.1", 9)
# One worker process: a class of phones fits the 120 live streams one worker
# follows (deploy/gunicorn.conf.py's 128 threads, less 8 kept free), and one
# process on a laptop loads the engine's kernels and tables once, while the
# job threads inside it take the other cores for the heavy work.
# WEB_CONCURRENCY still asks for more.
WORKERS = 1
# The app's catalogues (webapp.web.i18n's), and the variables gettext reads
# the machine's language from, first set first.
TRANSLATIONS = Path(ROOT) / "webapp" / "translations"
LANGUAGE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# The QR code in the terminal: a quiet zone of four modules (the standard's),
# and each module's colour set outright (the 256-colour palette's black and
# white, which terminal themes leave alone), so it reads on a light terminal
# as on a dark one. Each character is two modules, the upper one drawn.
QUIET_ZONE = 4
DARK, LIGHT = 16, 231
UPPER_HALF = "\u2580"
RESET = "\033[0m"
# The banner's sentences are wrapped to fit an 80-column terminal.
WIDTH = 78


def lan_addresses(candidates: Iterable[str], interfaces: Iterable[tuple[str, str]] = ()) -> list[str]:
    """The IPv4 addresses a phone on the same network could open this
    machine at: ``candidates`` (the default route's first) and the addresses
    of ``interfaces`` (name, address), each once, private ones first; never
    loopback, link-local, multicast or reserved, nor any address of a virtual
    interface (a container's bridge, a VPN).

    >>> lan_addresses(["10.8.0.2"], [("lo", "127.0.0.1"), ("wlan0", "192.168.1.23"), ("wg0", "10.8.0.2")])
    ['192.168.1.23']
    """
    interfaces = list(interfaces)
    virtual = {address for name, address in interfaces if name.startswith(VIRTUAL_INTERFACES)}
    found: dict[str, ipaddress.IPv4Address] = {}
    for text in [*candidates, *(address for _, address in interfaces)]:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        unreachable = address.is_loopback or address.is_link_local or address.is_multicast or address.is_reserved
        if not (unreachable or address.is_unspecified or text in virtual):
            found.setdefault(text, address)
    return sorted(found, key=lambda text: not found[text].is_private)


def interface_addresses(ip_output: str) -> list[tuple[str, str]]:
    """(interface, address) pairs from ``ip -4 -o addr``'s lines.

    >>> interface_addresses("2: wlan0    inet 192.168.1.23/24 brd 192.168.1.255 scope global wlan0")
    [('wlan0', '192.168.1.23')]
    """
    pattern = re.compile(r"^\d+:\s+([^\s@]+)\S*\s+inet\s+([0-9.]+)/", re.MULTILINE)
    return pattern.findall(ip_output)


def routed_address() -> str | None:
    """The address this machine reaches other networks from (its default
    route's interface), or None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(ANY_REMOTE)
            return probe.getsockname()[0]
        except OSError:
            return None


def named_addresses() -> list[str]:
    """The IPv4 addresses this machine's host name resolves to."""
    try:
        return [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        return []


def listed_interfaces() -> list[tuple[str, str]]:
    """Every interface's IPv4 address, by ``ip`` (none where it is missing)."""
    try:
        done = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return []
    return interface_addresses(done.stdout)


def find_addresses(env: Mapping[str, str]) -> list[str]:
    """The addresses to give out: ``CLASSROOM_ADDRESS``'s, else this
    machine's on its networks."""
    given = [a.strip() for a in env.get("CLASSROOM_ADDRESS", "").split(",") if a.strip()]
    if given:
        return given
    return lan_addresses([a for a in [routed_address(), *named_addresses()] if a], listed_interfaces())


def configured(env: Mapping[str, str], name: str) -> str | None:
    """A setting as the app reads it from the environment: ``MASTERMIND_<name>``, else ``<name>``."""
    return env.get(f"MASTERMIND_{name}") or env.get(name) or None


def configured_hosts(env: Mapping[str, str]) -> list[str]:
    """The ``TRUSTED_HOSTS`` the user set: a JSON list, or comma-separated names."""
    text = configured(env, "TRUSTED_HOSTS") or ""
    try:
        hosts = json.loads(text)
    except ValueError:
        hosts = text.split(",")
    hosts = hosts if isinstance(hosts, list) else [str(hosts)]
    return [str(h).strip() for h in hosts if str(h).strip()]


def app_environment(addresses: list[str], port: int, env: Mapping[str, str]) -> dict[str, str]:
    """The settings the app is served with, as ``MASTERMIND_<SETTING>``
    variables (which win over the plain names): ``PUBLIC_URL`` on the first
    address unless the user named one, and ``TRUSTED_HOSTS`` holding the
    addresses, this machine's names, the public URL's host and the user's
    own. Nothing without an address: the app's defaults serve this machine.

    >>> app_environment(["192.168.1.23"], 5000, {})["MASTERMIND_PUBLIC_URL"]
    'http://192.168.1.23:5000'
    """
    if not addresses:
        return {}
    public = configured(env, "PUBLIC_URL") or f"http://{addresses[0]}:{port}"
    hosts = [*addresses, *LOCAL_HOSTS, urlsplit(public).hostname or "", *configured_hosts(env)]
    return {
        "MASTERMIND_PUBLIC_URL": public,
        "MASTERMIND_TRUSTED_HOSTS": json.dumps([h for h in dict.fromkeys(hosts) if h]),
    }


def machine_languages(env: Mapping[str, str]) -> list[str]:
    """The languages this machine asks for, as gettext reads them: the first
    of ``LANGUAGE`` (a list), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` set.

    >>> machine_languages({"LANG": "de_DE.UTF-8", "LC_ALL": "es_ES.UTF-8"})
    ['es_ES.UTF-8']
    """
    for name in LANGUAGE_VARIABLES:
        if env.get(name):
            return env[name].split(":")
    return []


def catalogue(languages: Iterable[str]) -> Path | None:
    """The app's catalogue (``.po``) for the first of ``languages`` it
    speaks (``de_AT.UTF-8`` finds ``de``), or None for English: the app's
    own words, and what ``C`` and ``POSIX`` ask for.

    >>> catalogue(["C.UTF-8", "de"]) is None
    True
    >>> catalogue(["fr_FR", "es_MX.UTF-8"]).parent.parent.name
    'es'
    """
    for language in languages:
        name = re.split(r"[.@]", language)[0]
        if name in ("C", "POSIX", "en") or name.startswith("en_"):
            return None
        for tag in (name, name.split("_")[0]):
            po = TRANSLATIONS / tag / "LC_MESSAGES" / "messages.po"
            if tag and po.exists():
                return po
    return None


def translations(env: Mapping[str, str]) -> gettext.NullTranslations:
    """The app's words in the machine's language (English when the app
    does not speak it): the compiled catalogue, or its ``.po`` when that is
    newer or alone (before ``make compile-messages`` has run)."""
    po = catalogue(machine_languages(env))
    if po is None:
        return gettext.NullTranslations()
    mo = po.with_suffix(".mo")
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as fh:
            return gettext.GNUTranslations(fh)
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    compiled = io.BytesIO()
    with po.open("rb") as fh:
        write_mo(compiled, read_po(fh))
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def qr_code(url: str) -> str:
    """``url`` as a QR code in text: dark modules on light, quiet zone
    included, each colour set outright, two rows of modules to a line."""
    import segno

    rows = [list(row) for row in segno.make_qr(url, error="m").matrix_iter(border=QUIET_ZONE)]
    if len(rows) % 2:
        rows.append([0] * len(rows[0]))  # half a row more of quiet zone
    lines = []
    for upper, lower in zip(rows[::2], rows[1::2]):
        line, fore, back = "", None, None
        for top, bottom in zip(upper, lower):
            colours = []  # only what changed since the character before
            if top != fore:
                colours.append(f"38;5;{DARK if top else LIGHT}")
            if bottom != back:
                colours.append(f"48;5;{DARK if bottom else LIGHT}")
            line += (f"\033[{';'.join(colours)}m" if colours else "") + UPPER_HALF
            fore, back = top, bottom
        lines.append(line + RESET)
    return "\n".join(lines) + "\n"


def banner(public: str | None, others: list[str], port: int, words: gettext.NullTranslations | None = None) -> str:
    """What the terminal shows once the server listens, in ``words``'
    language (English without them), each sentence wrapped to ``WIDTH``."""
    _ = (words or gettext.NullTranslations()).gettext

    def said(sentence: str, indent: str = "") -> list[str]:
        return textwrap.wrap(sentence, WIDTH, initial_indent=indent, subsequent_indent=indent, break_long_words=False)

    if public is None:
        alone = f"http://{THIS_MACHINE}:{port}{CLASSROOM_PATH}"
        return "\n".join(
            [
                "",
                *said(_("No network address found: phones cannot reach this computer.")),
                *said(_("Serving this computer alone: %(url)s") % {"url": alone}),
                *said(
                    _(
                        "To let phones join, connect this computer to a Wi-Fi network (a phone's hotspot will do) "
                        "and run make classroom again."
                    )
                ),
                _("Ctrl+C stops the server."),
                "",
            ]
        )
    site = public.rstrip("/")
    lines = ["", _("Mastermind lab: a live classroom"), ""]
    lines += said(_("Students open %(url)s or scan this code:") % {"url": site + JOIN_PATH}, "  ")
    lines += ["", *("  " + row for row in qr_code(site + JOIN_PATH).splitlines()), ""]
    lines += ["  " + _("(also at %(url)s)") % {"url": f"http://{other}:{port}{JOIN_PATH}"} for other in others]
    lines += said(_("Teacher: open %(url)s to start a live session.") % {"url": site + CLASSROOM_PATH}, "  ")
    lines += [
        "",
        *said(
            _(
                "Phones cannot connect? The school network may keep devices apart: turn on a phone's hotspot, "
                "connect this computer and the phones to it, and run make classroom again."
            )
        ),
    ]
    return "\n".join([*lines, _("Ctrl+C stops the server."), ""])


def serve(bind: str, settings: Mapping[str, object]) -> None:
    """gunicorn with deploy/gunicorn.conf.py, then ``settings``, bound on ``bind``."""
    from gunicorn.app.wsgiapp import WSGIApplication

    class Server(WSGIApplication):
        def load_config(self):
            self.load_config_from_file(CONF)
            self.cfg.set("bind", [bind])
            for name, value in settings.items():
                self.cfg.set(name, value)
            self.app_uri = self.cfg.wsgi_app

    Server(prog="make classroom").run()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m webapp.classroom", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or DEFAULT_PORT))
    parser.add_argument("--host", help="the address to serve on (all of this machine's, by default)")
    args = parser.parse_args(argv)
    one_address = args.host and args.host != ALL_ADDRESSES
    addresses = [args.host] if one_address else find_addresses(os.environ)
    os.environ.update(app_environment(addresses, args.port, os.environ))
    os.environ.setdefault("MASTERMIND_LOG_REQUESTS", "false")  # the terminal shows the join banner, not each request
    public = os.environ.get("MASTERMIND_PUBLIC_URL") if addresses else None
    shown = banner(public, addresses[1:], args.port, translations(os.environ))

    def when_ready(server):
        print(shown, flush=True)

    bind = args.host or (ALL_ADDRESSES if addresses else THIS_MACHINE)
    workers = int(os.environ.get("WEB_CONCURRENCY") or WORKERS)
    # gunicorn's own start-up lines (and its 0.0.0.0) would bury the address: warnings only.
    serve(f"{bind}:{args.port}", {"workers": workers, "loglevel": "warning", "when_ready": when_ready})


if __name__ == "__main__":
    main()
