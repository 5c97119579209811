"""Every benchmark mode still runs: ``python -m benchmarks --smoke`` runs each
once at a tiny size (gunicorn, nginx, PostgreSQL and Redis included, which it
starts itself from Debian's packages, as the modes do), so none rots unseen
between the runs that measure. conftest.py starts it as the test run begins,
beside the other tests, and this test, run last, collects it. Nothing here compares a time with a number:
at these sizes the times printed measure nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# Run apart from the other heavy files when the suite runs on several cores
# (pytest-xdist's loadgroup): their work would crowd each other out.
pytestmark = pytest.mark.xdist_group("heavy")

ROOT = Path(__file__).resolve().parent.parent

# A line each mode prints itself (its header, or a row of its table), as a
# regular expression matched at the start of a line.
PRINTED = {
    "the job list (--quick --only)": r"feedback matrix 4×6 +\d",
    "--load": r"load: 2 players, gunicorn 1 gthread workers",
    "--scale": r"PostgreSQL \+ Redis, 2 servers +\d",
    "--slow-clients": r"nginx +yes +\d",
    "--fairness (shares on)": r"shares on \(the defaults\):",
    "--fairness (shares off)": r"shares off:",
    "--worker-memory": r"sweep of 2 sizes +\d",
    "--sweep": r"sweep: \d+ requests over 2 sizes",
    "--live": r"in-process, nginx +\d",
    "--live (school)": r"school: 3 students behind one address",
    "--puzzles": r"PostgreSQL +harder, super-mastermind +\d",
    "--capacity": r"floor: a one-route Flask app +\d",
    "--capacity (a hint job)": r"hint job: through the queue +\d",
    "--capacity (PostgreSQL)": r"guess: form, PostgreSQL \+ Redis +\d",
    "--subtrees": r"first round: .* as on 3x4\)",
    "--peer-jobs": r"tree 4×6 knuth +\d",
    "--start-up": r"whole process, best of 1, feedback matrices read from the cache",
    "--start-up --cold": r"whole process, best of 1, feedback matrices built by each command",
    "--start-up --against": r"whole process, best of 1, alternating, .* beside HEAD",
}


def test_every_benchmark_mode_runs_at_a_tiny_size(smoke_run):
    status, output = smoke_run.result(timeout=600)  # a bound for a run gone wrong only
    assert status == 0, output[-6000:]
    headers = re.findall(r"^== smoke (\d+)/(\d+): ", output, re.MULTILINE)
    ran = re.findall(r"^-- ran: ", output, re.MULTILINE)
    assert headers and len(ran) == len(headers) == int(headers[0][1]), output[-6000:]
    missing = [mode for mode, line in PRINTED.items() if not re.search("^" + line, output, re.MULTILINE)]
    assert not missing, f"no output from {missing}:\n{output[-6000:]}"
