"""Live tables over the Python and HTTP adapters (issue 52, item 3), with real cuts: the reference
vendor, served as a Python plugin (each cut SIGKILLs the fresh interpreter serving it) and over
HTTP from a server process of its own (each cut runs the lab's restart hook, which SIGKILLs the
server and starts another: tests/live_http_server.py), survives every cut and passes; the same
vendor keeping its tables in memory only fails after the first cut over both (so the cuts are
real: a thread or a server left running would keep its memory); an HTTP vendor without a
restart hook gets its live tables unsupported, the reason in the run's record and on page 1 of
its certificate (read back with pdftotext)."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from live_http_server import kill
from test_live_vendors import small_suite  # noqa: F401  (a fixture)
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.run import LiveRun
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner
from tablecert.harness.store import RunStore
from tablecert.reports import write_reports
from waits import HANG

HERE = Path(__file__).parent
SERVER = HERE / "live_http_server.py"
OPTIONS = SessionOptions(timeout=60)


def live_run(vendor: VendorTarget, suite: Path, out: Path, **settings: Any) -> tuple[Any, dict[str, Any], list[str]]:
    """The live suite run through ``vendor``'s adapter: (result, summary.json, the failures' comments)."""
    runner = Runner(vendor.opener(), suite, out, batch_size=1, stop_after_failures=1)
    runner.live = LiveRun(vendor.target, vendor.options, out, adapter=vendor.adapter, **settings)
    with runner.live:
        result = runner.run()
    summary = write_outputs(out)
    with closing(RunStore(out / "run.db")) as db:
        return result, summary, [rec.comment for rec in db.failures()]


@pytest.fixture
def tests_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin's fresh interpreter imports this folder's modules (its PYTHONPATH is passed)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_vendor(tmp_path: Path) -> Iterator[Any]:
    """Starts a vendor's server (by the restart hook itself, no server yet) and gives
    (its URL, its restart hook, the server's pid now); the last server is killed at the end."""
    pidfile = tmp_path / "server.pid"

    def start(vendor: str) -> tuple[str, str, int]:
        port = free_port()
        hook = shlex.join([sys.executable, str(SERVER), "restart", vendor, str(port), str(pidfile)])
        subprocess.run(shlex.split(hook), check=True, timeout=HANG)
        return f"http://127.0.0.1:{port}/", hook, int(pidfile.read_text())

    yield start
    if pidfile.exists():
        kill(int(pidfile.read_text()))


def cuts(summary: dict[str, Any]) -> tuple[int, int]:
    live = summary["live"]["interruptions"]
    return live["made"], live["survived"]


def test_the_reference_plugin_survives_every_cut_of_a_fresh_interpreter(small_suite: Path, tmp_path: Path) -> None:
    result, summary, comments = live_run(VendorTarget("python", "reference", OPTIONS), small_suite, tmp_path / "run",
                                         interruptions=4)
    made, survived = cuts(summary)
    assert result.verdict == "pass" and comments == [] and made > 0 and survived == made, (result.verdict, comments)


def test_a_memory_only_plugin_loses_its_tables_at_the_first_cut(small_suite: Path, tmp_path: Path,
                                                                tests_importable: None) -> None:
    result, _, comments = live_run(VendorTarget("python", "live_http_server:MemoryOnlyVendor", OPTIONS), small_suite,
                                   tmp_path / "run", interruptions=1)
    assert result.verdict == "fail" and "no_such_table" in comments[0], comments


def test_an_http_vendor_survives_every_cut_of_its_restart_hook(small_suite: Path, tmp_path: Path,
                                                               http_vendor: Any) -> None:
    url, hook, first = http_vendor("reference")
    vendor = VendorTarget("http", url, SessionOptions(timeout=60, restart_hook=hook))
    result, summary, comments = live_run(vendor, small_suite, tmp_path / "run", interruptions=4)
    made, survived = cuts(summary)
    assert result.verdict == "pass" and comments == [] and made > 0 and survived == made, (result.verdict, comments)
    assert int((tmp_path / "server.pid").read_text()) != first          # the hook's server, not the first


def test_a_memory_only_http_vendor_loses_its_tables_at_the_first_cut(small_suite: Path, tmp_path: Path,
                                                                    http_vendor: Any) -> None:
    url, hook, _ = http_vendor("memory-only")
    vendor = VendorTarget("http", url, SessionOptions(timeout=60, restart_hook=hook))
    result, _, comments = live_run(vendor, small_suite, tmp_path / "run", interruptions=1)
    assert result.verdict == "fail" and "no_such_table" in comments[0], comments


def test_an_http_vendor_without_a_restart_hook_has_its_live_tables_scoped_out(small_suite: Path, tmp_path: Path,
                                                                             http_vendor: Any) -> None:
    url, _, _ = http_vendor("reference")
    result, summary, _ = live_run(VendorTarget("http", url, OPTIONS), small_suite, tmp_path / "run")
    assert result.verdict != "pass" and result.totals["unsupported"] == 4 and result.totals["pass"] == 0
    assert "no restart hook was named (--restart-hook CMD)" in summary["live"]["not_played"]
    write_reports(tmp_path / "run")
    page = " ".join(subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(tmp_path / "run" / "certificate.pdf"), "-"],
                                   capture_output=True, text=True, check=True, timeout=HANG).stdout.split())
    assert "Live tables not played: the HTTP vendor's server is the lab's and no restart hook was named" in page


def test_a_restart_hook_for_a_vendor_the_harness_cuts_itself_is_refused_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", "true", "--restart-hook",
                           "true", "--suite", "edge", "--out", str(tmp_path / "run")], capture_output=True, text=True,
                          timeout=HANG)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert "--restart-hook cuts an HTTP vendor's server (--vendor-url)" in done.stderr
    assert not (tmp_path / "run").exists()
