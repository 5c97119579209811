"""The code's shape, checked: imports run one way (no cycle anywhere in
``webapp/``, function-level imports included), no view imports another view,
and every URL the app serves is the one it served before (the list in
``tests/data/url_map.txt``)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from webapp import create_app

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "webapp"
URL_MAP = Path(__file__).resolve().parent / "data" / "url_map.txt"
# The modules that define routes; none may import another.
VIEWS = {
    "webapp.web.play",
    "webapp.web.api",
    "webapp.web.share",
    "webapp.web.challenges",
    "webapp.web.codemaker",
    "webapp.web.apidocs",
    "webapp.web.daily",
    "webapp.web.theme",
    "webapp.web.i18n",
    "webapp.web.live.pages",
    "webapp.web.live.api",
    "webapp.web.live.stream",
    "webapp.web.puzzles.pages",
    "webapp.web.puzzles.api",
    "webapp.web.ops",
    "webapp.web.solver.line",
    "webapp.web.solver.classroom",
    "webapp.web.solver.compare",
    "webapp.web.solver.tree",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The ``webapp`` modules that module ``name`` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # ``from .pkg import mod`` imports the module pkg.mod when there is one.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # a name inside a module: the module
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith("webapp"):
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    graph = {name: imports_of(name, path, known) for name, path in found.items()}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_no_view_imports_another_view():
    graph = import_graph()
    assert set(graph) >= VIEWS, VIEWS - set(graph)
    crossing = {view: sorted(graph[view] & (VIEWS - {view})) for view in VIEWS if graph[view] & VIEWS}
    assert crossing == {}


# Plain Python the engine shares with the command line.
ENGINE_MAY_IMPORT = ("webapp.engine", "webapp.figures")


def test_the_engine_imports_no_web_code():
    graph = import_graph()
    engine = {name: deps for name, deps in graph.items() if name.startswith("webapp.engine")}
    assert {
        name: sorted(d for d in deps if not d.startswith(ENGINE_MAY_IMPORT))
        for name, deps in engine.items()
        if any(not d.startswith(ENGINE_MAY_IMPORT) for d in deps)
    } == {}


def test_every_view_module_is_listed():
    """A module that defines a route is a view, and the list above names it."""
    routed = {
        name
        for name, path in modules().items()
        if re.search(r"^@\w+\.(get|post|put|patch|delete|route)\(", path.read_text(), re.MULTILINE)
    }
    assert routed == VIEWS


def test_the_computations_import_only_the_engine_and_the_store():
    graph = import_graph()
    allowed = ("webapp.engine", "webapp.store")
    assert sorted(d for d in graph["webapp.computations"] if not d.startswith(allowed)) == []


def test_the_command_line_imports_no_web_code():
    """``mastermind`` words its errors through ``webapp.words``, not the web layer."""
    graph = import_graph()
    seen, todo = set(), ["webapp.cli"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    assert sorted(name for name in seen if name.startswith("webapp.web")) == []


def test_the_job_consumer_builds_no_web_app(tmp_path):
    """``huey_consumer webapp.worker.huey`` loads the queue, the computations
    and the store, and not one module of the web layer."""
    script = (
        "import sys, webapp.worker as w; "
        "print(sorted(m for m in sys.modules if m.startswith(('webapp.web', 'flask_babel', 'flask_talisman')))); "
        "print(sorted(name.rsplit('.', 1)[-1] for name in w.huey._registry._registry))"
    )
    env = {**os.environ, "MASTERMIND_DATABASE": str(tmp_path / "jobs.sqlite3")}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    web_modules, tasks = done.stdout.splitlines()
    assert web_modules == "[]"
    assert {"run_job", "sweep"} <= set(ast.literal_eval(tasks))


def test_the_job_consumer_reads_the_settings_the_app_reads(tmp_path, monkeypatch):
    """Both read ``MASTERMIND_<SETTING>`` from the environment, so a queue
    renamed for a shared Redis, or a longer live session, is the same in
    the web app and in ``huey_consumer``."""
    env = {
        "MASTERMIND_DATABASE": str(tmp_path / "jobs.sqlite3"),
        "MASTERMIND_JOBS_QUEUE_NAME": "second-site",
        "MASTERMIND_LIVE_IDLE_HOURS": "12",
        "MASTERMIND_GAME_RETENTION_DAYS": "7",
    }
    names = ["DATABASE", "JOBS_QUEUE_NAME", "LIVE_IDLE_HOURS", "GAME_RETENTION_DAYS"]
    script = f"import webapp.worker as w; print(repr([w.settings.get(n) for n in {names!r}] + [w.huey.name]))"
    for name in ("DATABASE_URL", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    app = create_app({"WARM_UP": False, "JOBS_CONSUMER": "none"})
    expected = [app.config[n] for n in names] + [app.extensions["jobs"].huey.name]
    assert expected == [str(tmp_path / "jobs.sqlite3"), "second-site", 12, 7, "second-site"]
    assert ast.literal_eval(done.stdout.strip()) == expected


def url_rules(app) -> list[str]:
    return sorted(
        f"{r.rule} {','.join(sorted(r.methods - {'HEAD', 'OPTIONS'}))} {r.endpoint}" for r in app.url_map.iter_rules()
    )


def test_every_url_is_unchanged(app):
    expected = [line for line in URL_MAP.read_text().splitlines() if line and not line.startswith("#")]
    assert url_rules(app) == expected


if __name__ == "__main__":  # print the list, to regenerate tests/data/url_map.txt
    import tempfile

    from webapp import create_app

    os.environ.pop("DATABASE_URL", None)
    app = create_app(
        {"DATABASE": os.path.join(tempfile.mkdtemp(), "x.sqlite3"), "WARM_UP": False, "JOBS_CONSUMER": "none"}
    )
    # The header is written here, not read back: the shell empties the file before this runs.
    print(
        "# Every URL rule of the app: path, methods, endpoint. tests/test_layout.py checks the\n"
        "# app against this list; regenerate it only for a deliberate change of URLs:\n"
        "#   python -m tests.test_layout > tests/data/url_map.txt"
    )
    print("\n".join(url_rules(app)))
