"""`make classroom` (webapp/classroom.py): the addresses a phone can open,
the settings the app is served with, the page a refused ``Host`` gets, and
the launcher itself serving a "LAN" address (127.0.0.2, on Linux's loopback)."""

from __future__ import annotations

import http.client
import json
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import segno

from webapp import classroom, create_app
from webapp.classroom import app_environment, banner, interface_addresses, lan_addresses

ROOT = Path(__file__).resolve().parent.parent

IP_OUTPUT = """\
1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: wlp2s0    inet 192.168.1.23/24 brd 192.168.1.255 scope global dynamic wlp2s0\\       valid_lft 86000sec
3: enp0s31f6    inet 169.254.10.7/16 brd 169.254.255.255 scope link enp0s31f6\\       valid_lft forever
4: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\\       valid_lft forever
5: wg0    inet 10.8.0.2/24 scope global wg0\\       valid_lft forever preferred_lft forever
6: eth1@if9    inet 10.20.30.40/24 brd 10.20.30.255 scope global eth1\\       valid_lft forever
"""


# --- the addresses ----------------------------------------------------------------------------------


def test_ip_output_gives_each_interfaces_address():
    assert interface_addresses(IP_OUTPUT) == [
        ("lo", "127.0.0.1"),
        ("wlp2s0", "192.168.1.23"),
        ("enp0s31f6", "169.254.10.7"),
        ("docker0", "172.17.0.1"),
        ("wg0", "10.8.0.2"),
        ("eth1", "10.20.30.40"),
    ]
    assert interface_addresses("") == []


def test_loopback_link_local_and_virtual_interfaces_are_left_out():
    # The default route goes through the VPN here: its address is still left out.
    found = lan_addresses(["10.8.0.2", "127.0.1.1"], interface_addresses(IP_OUTPUT))
    assert found == ["192.168.1.23", "10.20.30.40"]


def test_private_addresses_come_first_each_once():
    found = lan_addresses(["131.159.0.1", "192.168.43.5", "0.0.0.0", "224.0.0.1", "not an address"])
    assert found == ["192.168.43.5", "131.159.0.1"]  # a public one (a university's) after
    assert lan_addresses(["192.168.43.5"], [("wlan0", "192.168.43.5")]) == ["192.168.43.5"]
    assert lan_addresses([], [("lo", "127.0.0.1")]) == []


def test_classroom_address_names_the_addresses_to_give_out():
    assert classroom.find_addresses({"CLASSROOM_ADDRESS": " 10.0.0.5, 127.0.0.2 "}) == ["10.0.0.5", "127.0.0.2"]


# --- the settings the app is served with ------------------------------------------------------------


def test_the_public_url_is_on_the_first_address_and_only_this_machine_is_trusted():
    env = app_environment(["192.168.1.23", "10.0.0.5"], 5000, {})
    assert env["MASTERMIND_PUBLIC_URL"] == "http://192.168.1.23:5000"
    assert json.loads(env["MASTERMIND_TRUSTED_HOSTS"]) == ["192.168.1.23", "10.0.0.5", "127.0.0.1", "localhost", "::1"]


def test_the_users_own_settings_are_kept():
    env = app_environment(
        ["192.168.1.23"], 5000, {"PUBLIC_URL": "https://class.example", "TRUSTED_HOSTS": "a.example, b"}
    )
    assert env["MASTERMIND_PUBLIC_URL"] == "https://class.example"
    assert json.loads(env["MASTERMIND_TRUSTED_HOSTS"]) == [
        "192.168.1.23",
        "127.0.0.1",
        "localhost",
        "::1",
        "class.example",
        "a.example",
        "b",
    ]
    prefixed = {"MASTERMIND_PUBLIC_URL": "http://laptop.local:5000", "MASTERMIND_TRUSTED_HOSTS": '["c.example"]'}
    env = app_environment(["192.168.1.23"], 5000, prefixed)
    assert env["MASTERMIND_PUBLIC_URL"] == "http://laptop.local:5000"
    assert json.loads(env["MASTERMIND_TRUSTED_HOSTS"])[-2:] == ["laptop.local", "c.example"]


def test_without_an_address_the_apps_defaults_stay():
    assert app_environment([], 5000, {"PUBLIC_URL": "https://class.example"}) == {}


def test_the_app_reads_the_settings_as_given(monkeypatch, tmp_path):
    for name in ("PUBLIC_URL", "TRUSTED_HOSTS", "MASTERMIND_PUBLIC_URL", "MASTERMIND_TRUSTED_HOSTS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in app_environment(["192.168.1.23"], 5077, {}).items():
        monkeypatch.setenv(name, value)
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "WARM_UP": False})
    try:
        assert app.config["PUBLIC_URL"] == "http://192.168.1.23:5077"
        assert app.config["TRUSTED_HOSTS"] == ["192.168.1.23", "127.0.0.1", "localhost", "::1"]
    finally:
        app.extensions["jobs"].stop()
        app.extensions["store"].close()


def test_this_machines_names_are_the_apps():
    from webapp.web.security import LOCAL_HOSTS

    assert classroom.LOCAL_HOSTS == LOCAL_HOSTS


def test_the_banner_shows_the_join_address_its_qr_code_and_what_to_do():
    shown = banner("http://192.168.1.23:5000", ["10.0.0.5"], 5000)
    assert "http://192.168.1.23:5000/join" in shown and "http://10.0.0.5:5000/join" in shown
    assert sum("▀" in line for line in shown.splitlines()) >= 10
    assert "hotspot" in shown
    assert all(len(line) <= 80 for line in shown.splitlines() if "▀" not in line)  # an 80-column terminal
    alone = banner(None, [], 5000)
    assert "No network address found" in alone and "http://127.0.0.1:5000/" in alone and "▀" not in alone


# --- the QR code in the terminal --------------------------------------------------------------------

ESCAPE = re.compile(r"\033\[([0-9;]*)m")


def drawn_modules(text: str) -> list[list[bool]]:
    """The modules a terminal shows for ``text`` (True for dark), read back
    from its colours: each upper half block is the foreground's module over
    the background's. Every line must set both colours itself, so nothing
    depends on the terminal's own."""
    modules = []
    for line in text.splitlines():
        fore = back = None
        upper, lower = [], []
        for piece in re.split(f"({ESCAPE.pattern})", line):
            if not piece or ESCAPE.fullmatch(piece):
                continue
            if re.fullmatch(r"[0-9;]*", piece):  # an escape's parameters (the split's inner group)
                codes = piece.split(";")
                if codes == ["0"]:
                    fore = back = None
                for i in range(len(codes) - 2):
                    if codes[i + 1] == "5" and codes[i] in ("38", "48"):
                        colour = {classroom.DARK: True, classroom.LIGHT: False}[int(codes[i + 2])]
                        fore, back = (colour, back) if codes[i] == "38" else (fore, colour)
                continue
            assert set(piece) == {"▀"}, repr(piece)  # nothing drawn in the terminal's own colours
            assert fore is not None and back is not None, "a module drawn before both colours are set"
            upper += [fore] * len(piece)
            lower += [back] * len(piece)
        assert line.endswith("\033[0m")  # the terminal's colours back after each line
        modules += [upper, lower]
    return modules


def test_the_qr_code_is_dark_on_light_whatever_the_terminals_colours():
    url = "http://192.168.1.23:5000/join"
    drawn = drawn_modules(classroom.qr_code(url))
    # The code's own modules (segno's matrix), surrounded by four light modules
    # on every side (the standard's quiet zone); its 37 rows take 19 lines, the
    # last line's lower half one more light row.
    matrix = [[bool(m) for m in row] for row in segno.make_qr(url, error="m").matrix]
    quiet = classroom.QUIET_ZONE
    assert quiet == 4 and len(drawn) == len(matrix) + 2 * quiet + 1
    assert all(len(row) == len(matrix) + 2 * quiet for row in drawn)
    assert [row[quiet:-quiet] for row in drawn[quiet : quiet + len(matrix)]] == matrix
    border = drawn[:quiet] + drawn[quiet + len(matrix) :] + [row[:quiet] + row[-quiet:] for row in drawn]
    assert not any(any(row) for row in border)  # light all round
    assert drawn[quiet][quiet : quiet + 7] == [True] * 7  # a finder pattern's dark edge, top left


def test_the_banner_speaks_the_machines_language():
    german = banner("http://192.168.1.23:5000", ["10.0.0.5"], 5000, classroom.translations({"LANG": "de_DE.UTF-8"}))
    assert "Die Schüler öffnen http://192.168.1.23:5000/join oder scannen diesen Code:" in german
    assert "(auch unter http://10.0.0.5:5000/join)" in german and "Strg+C beendet den Server." in german
    assert "Ctrl+C" not in german and "Students open" not in german
    alone = banner(None, [], 5000, classroom.translations({"LANG": "de_DE.UTF-8"}))
    assert "Keine Netzwerkadresse gefunden" in alone and "http://127.0.0.1:5000/live/new" in alone
    spanish = banner(
        "http://192.168.1.23:5000", [], 5000, classroom.translations({"LC_ALL": "es_ES.UTF-8", "LANG": "de"})
    )
    assert "Los estudiantes abren http://192.168.1.23:5000/join o escanean este código:" in spanish
    for env in ({"LANG": "C.UTF-8"}, {"LANG": "fr_FR.UTF-8"}, {"LANGUAGE": "en_GB:de", "LANG": "de_DE.UTF-8"}, {}):
        assert "Ctrl+C stops the server." in banner(None, [], 5000, classroom.translations(env)), env
    assert "Strg+C" in banner(None, [], 5000, classroom.translations({"LANGUAGE": "fr:de_AT", "LANG": "es"}))


def test_a_catalogue_not_yet_compiled_is_read_from_its_po_file(monkeypatch, tmp_path):
    po = classroom.TRANSLATIONS / "de" / "LC_MESSAGES" / "messages.po"
    (tmp_path / "de" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "de" / "LC_MESSAGES" / "messages.po").write_bytes(po.read_bytes())
    monkeypatch.setattr(classroom, "TRANSLATIONS", tmp_path)
    assert (
        classroom.translations({"LANG": "de_DE.UTF-8"}).gettext("Ctrl+C stops the server.")
        == "Strg+C beendet den Server."
    )


# --- a refused Host ---------------------------------------------------------------------------------


@pytest.fixture
def public_app(db_config):
    app = create_app({**db_config, "TESTING": True, "PUBLIC_URL": "http://192.168.1.23:5000"})
    yield app
    app.extensions["jobs"].stop()
    app.extensions["store"].close()


FOREIGN = "192.0.2.99:5000"


def test_a_refused_host_gets_the_sites_page_in_german(public_app):
    client = public_app.test_client()
    resp = client.get("/join", headers={"Host": FOREIGN, "Accept-Language": "de"})
    page = resp.get_data(as_text=True)
    assert resp.status_code == 400 and resp.mimetype == "text/html"
    assert '<html lang="de"' in page and 'class="brand"' in page and "/static/style.css" in page
    assert "Dieser Server antwortet nicht unter der Adresse 192.0.2.99:5000." in page
    assert (
        'Öffne die Website unter ihrer eigenen Adresse: <a href="http://192.168.1.23:5000">http://192.168.1.23:5000</a>'
        in page
    )
    assert "not trusted" not in page and 'href="http://192.0.2.99' not in page
    assert "Set-Cookie" not in resp.headers  # refused before anything is read or kept


def test_the_language_cookie_chooses_too(client):
    client.set_cookie("lang", "es", domain="evil.example")  # chosen there, as a browser keeps it
    page = client.get("/", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert '<html lang="es"' in page and "Este servidor no responde en la dirección evil.example." in page
    assert "TRUSTED_HOSTS" in page  # no public address to send the visitor to


@pytest.mark.parametrize("path", ["/join", "/nowhere", "/games/1"])
def test_every_path_and_method_gets_the_same_page(public_app, path):
    client = public_app.test_client()
    for method, headers in (("GET", {}), ("POST", {"Origin": "http://evil.example"}), ("POST", {})):
        resp = client.open(path, method=method, headers={"Host": FOREIGN, **headers})
        assert resp.status_code == 400, (path, method)
        assert "This server does not answer to the address 192.0.2.99:5000." in resp.get_data(as_text=True)


def test_the_api_answers_in_json(public_app):
    resp = public_app.test_client().post("/api/live", json={}, headers={"Host": FOREIGN, "Accept-Language": "es"})
    assert resp.status_code == 400
    assert resp.get_json() == {
        "error": "Este servidor no responde en la dirección 192.0.2.99:5000. "
        "Abre el sitio en su propia dirección: http://192.168.1.23:5000"
    }


def test_the_pages_style_is_served_to_a_refused_host(client):
    resp = client.get("/static/style.css", headers={"Host": "evil.example"})
    assert resp.status_code == 200 and resp.mimetype == "text/css"


def test_a_hostile_host_is_shown_escaped(client):
    resp = client.get("/", headers={"Host": '"><script>x</script>'})
    page = resp.get_data(as_text=True)
    assert resp.status_code == 400 and "<script>x" not in page and "&lt;script&gt;x" in page


# --- the launcher -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read_until(process: subprocess.Popen, marker: bytes, waits: int = 600) -> str:
    """The process's output up to ``marker``, read as it comes (each wait
    ends when output arrives; a bounded number of them)."""
    out = b""
    fd = process.stdout.fileno()  # type: ignore[union-attr]
    # A selector, not select(): a process that has opened over 1,024 files
    # (a long test run) gets descriptors select() cannot wait on.
    with selectors.DefaultSelector() as waiting:
        waiting.register(fd, selectors.EVENT_READ)
        for _ in range(waits):
            if waiting.select(0.5):
                chunk = os.read(fd, 65536)
                if not chunk:
                    break  # the process ended
                out += chunk
                if marker in out:
                    return out.decode()
    raise AssertionError(f"no {marker!r} in the launcher's output:\n{out.decode(errors='replace')}")


def call(host: str, port: int, method: str, path: str, headers=None, body=None):
    conn = http.client.HTTPConnection(host, port, timeout=120)  # the first request waits for the worker's start
    try:
        data = None if body is None else json.dumps(body)
        sent = {**({"Content-Type": "application/json"} if body is not None else {}), **(headers or {})}
        conn.request(method, path, data, sent)
        resp = conn.getresponse()
        return resp.status, resp.read().decode()
    finally:
        conn.close()


def test_the_launcher_serves_the_phones_address(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.endswith(("PUBLIC_URL", "TRUSTED_HOSTS"))}
    for name in ("DATABASE_URL", "REDIS_URL", "WEB_CONCURRENCY", "MASTERMIND_DATABASE_URL", "MASTERMIND_REDIS_URL"):
        env.pop(name, None)
    for name in classroom.LANGUAGE_VARIABLES:
        env.pop(name, None)
    env.update(
        LANG="de_DE.UTF-8",  # a German teacher's laptop
        CLASSROOM_ADDRESS="127.0.0.2",
        MASTERMIND_DATABASE=str(tmp_path / "classroom.sqlite3"),
        MASTERMIND_WARM_UP="false",
        MASTERMIND_JOBS_PERIODIC="false",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp.classroom", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        shown = read_until(process, b"Strg+C beendet den Server.")  # printed once the port listens
        site = f"http://127.0.0.2:{port}"
        assert f"Die Schüler öffnen {site}/join oder scannen diesen Code:" in shown
        assert len(drawn_modules("\n".join(line.lstrip() for line in shown.splitlines() if "▀" in line))) >= 30

        status, page = call("127.0.0.2", port, "GET", "/join")  # Host: 127.0.0.2:<port>, as a phone sends it
        assert status == 200 and 'action="/join"' in page
        status, body = call("127.0.0.2", port, "POST", "/api/live", body={})
        assert status == 201 and json.loads(body)["join_url"].startswith(f"{site}/join/")
        code = json.loads(body)["code"]
        status, body = call("127.0.0.2", port, "POST", f"/api/live/{code}/students", body={"nickname": "Ann"})
        assert status == 201  # a student's phone joins through the laptop's address
        status, body = call("127.0.0.2", port, "GET", f"/api/live/{code}")
        assert json.loads(body)["joined"] == 1 and json.loads(body)["events_url"].startswith(site)
        assert call("127.0.0.1", port, "GET", "/join")[0] == 200  # the teacher's own browser, by its name
        status, page = call("127.0.0.2", port, "GET", "/join", headers={"Host": f"evil.example:{port}"})
        assert status == 400 and f'<a href="{site}">{site}</a>' in page
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        process.stdout.close()  # type: ignore[union-attr]
