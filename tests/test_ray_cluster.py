"""certify --ray against a real local Ray cluster (a head process started here, 2 CPUs): a vendor
process with wrong answers that crashes on a poisoned case, run as two Ray actors, one of them
killed with SIGKILL mid-run, ends with the results of a one-process run; the cluster's vendor
instances are confined like a local one (the run records the same isolation)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablecert.harness.suite_reader import iter_batches
from tablecert.vectors.suites import generate

ray = pytest.importorskip("ray")

from test_parallel import TIMINGS, rows  # noqa: E402
from test_resume_kill import POISON_VENDOR, batches_recorded  # noqa: E402


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (the head we started), from /proc."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        frontier += kids
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A Ray head on this machine (2 CPUs) in a process group of its own: (address, head pid)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    temp = Path("/tmp") / f"tablecert-ray-{os.getpid()}"
    head = subprocess.Popen([str(Path(sys.executable).with_name("ray")), "start", "--head", "--block",
                             "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", "2",
                             "--include-dashboard=false", "--disable-usage-stats", "--temp-dir", str(temp)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert head.stdout is not None
    for line in head.stdout:                       # observable progress: the head says it is up
        if "Ray runtime started" in line:
            break
    else:
        pytest.fail("the Ray head did not start")
    try:
        yield f"127.0.0.1:{port}", head.pid
    finally:
        below = descendants(head.pid)
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        head.stdout.close()
        shutil.rmtree(temp, ignore_errors=True)


def comparable(run_dir: Path) -> dict[str, list[tuple[object, ...]]]:
    """The run database's rows, without the vendor's stderr tails (this vendor's own stderr names
    the request ids of its session, which depend on what else that session was sent) and so
    without the record that digests them (``judged``)."""
    out = rows(run_dir)
    out["faults"] = [row[:7] + row[8:] for row in out["faults"]]
    out["meta"] = [row for row in out["meta"] if row[0] != "judged"]
    return out


def certify(suite: Path, out: Path, vendor: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "edge",
                             "--suite-dir", str(suite), "--out", str(out), "--batch-size", "10", "--quiet",
                             "--retries", "1", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def test_a_ray_run_with_an_actor_killed_has_the_results_of_a_one_process_run(
        cluster: tuple[str, int], tmp_path: Path, vendor_files: Path) -> None:
    address, head = cluster
    suite = tmp_path / "edge"
    generate("edge", suite)
    poisoned = [c for b in iter_batches(suite, 10_000) if b.op == "craps.settle" for c in b.cases][333]
    spec = vendor_files / "poison.json"
    spec.write_text(json.dumps({"cases": [poisoned], "ops": []}))
    spec.chmod(0o644)
    script = vendor_files / "poison_vendor.py"
    script.write_bytes(POISON_VENDOR.read_bytes())
    script.chmod(0o644)
    vendor = shlex.join([sys.executable, str(script), str(spec), "segv", "demo"])

    alone = certify(suite, tmp_path / "alone", vendor)
    assert alone.wait(timeout=300) == 1, alone.stderr.read() if alone.stderr else ""

    clustered = certify(suite, tmp_path / "ray", vendor, "--ray", address, "--workers", "2")
    while batches_recorded(tmp_path / "ray") < 60:           # observable progress, not the clock
        assert clustered.poll() is None, "the run ended before an actor could be killed"
        time.sleep(0.05)
    actors = [p for p in descendants(head) if cmdline(p).startswith("ray::VendorActor")]
    assert len(actors) == 2
    os.kill(actors[0], signal.SIGKILL)
    assert clustered.wait(timeout=300) == 1, clustered.stderr.read() if clustered.stderr else ""

    assert comparable(tmp_path / "ray") == comparable(tmp_path / "alone")
    got, want = (json.loads((tmp_path / run / "summary.json").read_text()) for run in ("ray", "alone"))
    drop = TIMINGS | {"judged"}
    assert {k: v for k, v in got.items() if k not in drop} == {k: v for k, v in want.items() if k not in drop}
    assert want["poisoned"] and want["totals"]["fail"] and want["fault_totals"]["count"]
    assert not any(cmdline(p).startswith("ray::VendorActor") and p == actors[0] for p in descendants(head))
