"""A pytest plugin that notes, for every test, its wall time and the CPU its process and its
waited-for children spent (user + system), setup, call and teardown together, and on which
xdist worker and when it ran: one JSON line a test, in ``$TABLECERT_SUITE_CLOCK/<worker>.jsonl``.

Loaded by benchmarks/bench_test_suite.py (``-p suite_clock``, this folder on PYTHONPATH);
pytest-xdist hands ``-p`` to its workers, so each worker writes its own file. A child's CPU is
counted once it has been waited for (``subprocess.run`` does; a module's browser is counted at
the teardown that quits it, so sum a file's tests, not one test).
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Generator
from pathlib import Path

import pytest

FOLDER = "TABLECERT_SUITE_CLOCK"


def cpu_seconds() -> float:
    """User + system CPU of this process and of its children waited for so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    started, wall, cpu = time.time(), time.perf_counter(), cpu_seconds()
    yield
    line = {"nodeid": item.nodeid, "file": item.path.name, "worker": worker, "start": started,
            "wall": time.perf_counter() - wall, "cpu": cpu_seconds() - cpu, "load": os.getloadavg()[0]}
    folder = Path(os.environ[FOLDER])
    with open(folder / f"{worker}.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
