"""certify --ray against a real local Ray cluster (a head process started here, 2 CPUs): a vendor
process with wrong answers that crashes on a poisoned case, run as two Ray actors, one of them
killed with SIGKILL mid-run, ends with the results of a one-process run; the cluster's vendor
instances are confined like a local one (the run records the same isolation)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import threading
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablecert.harness.suites.reader import iter_batches
from tablecert.vectors.suites import generate
from waits import HANG

ray = pytest.importorskip("ray")

from tablecert.parallel.local_cluster import Head, local_head  # noqa: E402

from test_parallel import TIMINGS, rows  # noqa: E402
from test_resume_kill import POISON_VENDOR, batches_recorded  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[Head]:
    """A Ray head on this machine (2 CPUs), stopped with every process below it afterwards."""
    with local_head(cpus=2) as head:
        yield head


def comparable(run_dir: Path) -> dict[str, list[tuple[object, ...]]]:
    """The run database's rows, without the vendor's stderr tails (this vendor's own stderr names
    the request ids of its session, which depend on what else that session was sent) and so
    without the record that digests them (``judged``)."""
    out = rows(run_dir)
    out["faults"] = [row[:7] + row[8:] for row in out["faults"]]
    out["meta"] = [row for row in out["meta"] if row[0] != "judged"]
    return out


def certify(suite: Path, out: Path, vendor: str, *extra: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "edge",
                             "--suite-dir", str(suite), "--out", str(out), "--batch-size", "20", "--quiet",
                             "--retries", "1", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=cwd)


def test_a_ray_run_with_an_actor_killed_has_the_results_of_a_one_process_run(
        cluster: Head, edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    suite = edge
    poisoned = [c for b in iter_batches(suite, 10_000) if b.op == "craps.settle" for c in b.cases][333]
    spec = vendor_files / "poison.json"
    spec.write_text(json.dumps({"cases": [poisoned], "ops": []}))
    spec.chmod(0o644)
    script = vendor_files / "poison_vendor.py"
    script.write_bytes(POISON_VENDOR.read_bytes())
    script.chmod(0o644)
    vendor = shlex.join([sys.executable, str(script), str(spec), "segv", "demo"])

    alone = certify(suite, tmp_path / "alone", vendor)
    assert alone.wait(timeout=HANG) == 1, alone.stderr.read() if alone.stderr else ""

    clustered = certify(suite, tmp_path / "ray", vendor, "--ray", cluster.address, "--workers", "2")
    while batches_recorded(tmp_path / "ray") < 40:           # observable progress, not the clock
        assert clustered.poll() is None, "the run ended before an actor could be killed"
        time.sleep(0.05)
    actors = cluster.actor_pids()
    assert len(actors) == 2
    os.kill(actors[0], signal.SIGKILL)
    assert clustered.wait(timeout=HANG) == 1, clustered.stderr.read() if clustered.stderr else ""

    assert comparable(tmp_path / "ray") == comparable(tmp_path / "alone")
    got, want = (json.loads((tmp_path / run / "summary.json").read_text()) for run in ("ray", "alone"))
    drop = TIMINGS | {"judged"}
    assert {k: v for k, v in got.items() if k not in drop} == {k: v for k, v in want.items() if k not in drop}
    assert want["poisoned"] and want["totals"]["fail"] and want["fault_totals"]["count"]
    assert actors[0] not in cluster.actor_pids()


def test_a_hand_suite_through_ray_actors_records_what_one_process_records(
        cluster: Head, tmp_path: Path, vendor_files: Path) -> None:
    from tablecert.harness.adapters import VendorTarget
    from tablecert.harness.contract import SessionOptions
    from tablecert.harness.run.runner import Runner
    from tablecert.parallel import ParallelOptions
    from test_parallel import WRONG_LABELS

    suite = tmp_path / "joker"
    generate("joker", suite)
    script = vendor_files / "wrong_labels.py"
    script.write_text(WRONG_LABELS)
    script.chmod(0o644)
    target = VendorTarget("subprocess", f"{sys.executable} {script}", SessionOptions(timeout=60))
    for out, parallel in ((tmp_path / "one", None),
                          (tmp_path / "ray", ParallelOptions(workers=2, ray_address=cluster.address, vendor=target))):
        Runner(target.opener(), suite, out, hand_batch_size=700, max_hands=6_000, parallel=parallel).run()
    expected = rows(tmp_path / "one")
    assert len(expected["hand_failures"]) == len(expected["batches"]) == 2 * 9
    assert rows(tmp_path / "ray") == expected


def test_a_ray_run_whose_vendor_is_never_greeted_leaves_the_cluster(cluster: Head, edge: Path, tmp_path: Path) -> None:
    """The run connects to the cluster on a thread while it greets its vendor; when the vendor
    cannot be greeted, the run ends in one error and leaves the cluster it connected to (the
    thread waited for, the driver disconnected), so the next run in this process starts clean."""
    from tablecert.harness.contract import SessionOptions
    from tablecert.harness.adapters import VendorTarget
    from tablecert.harness.run.runner import Runner, VendorNotGreeted
    from tablecert.parallel import ParallelOptions

    suite = edge
    target = VendorTarget("subprocess", f"{sys.executable} -c 'import sys; sys.exit(3)'", SessionOptions(timeout=30))
    parallel = ParallelOptions(workers=2, ray_address=cluster.address, vendor=target)
    with pytest.raises(VendorNotGreeted):
        Runner(target.opener(), suite, tmp_path / "run", parallel=parallel).run()
    assert not ray.is_initialized()
    assert not [t for t in threading.enumerate() if t.name.startswith("ray-connect")]


VIEW_VENDOR = """
import hashlib, json, os, sys
from tablecert.oracle.vendor import ReferenceVendor, serve

def view() -> str:
    seen = []
    for top, dirs, files in os.walk("/"):
        dirs[:] = sorted(d for d in dirs if os.path.join(top, d) not in ("/proc", "/sys", "/dev"))
        if top.count("/") > 4:
            dirs[:] = []
        seen += [os.path.join(top, name) for name in sorted(dirs + files)]
    return hashlib.sha256("\\n".join(seen).encode()).hexdigest()[:16]

class Viewer(ReferenceVendor):
    def handle(self, request):
        answer = super().handle(request)
        if request.get("op") == "hello":
            answer["implementation"] = {"name": "viewer", "version": "1", "build": "view " + view()}
        return answer

sys.exit(serve(sys.stdin, sys.stdout, Viewer()))
"""


def test_a_ray_actors_vendor_sees_exactly_what_a_local_one_sees(
        cluster: Head, edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    """Issue 47: the same allow-list for every vendor instance, whoever starts it. The vendor names a
    digest of the file system it sees (to four folders deep) as its build; every later instance
    must greet as the first one did, so an actor whose sandbox bound anything else (another working
    folder, PATH, environment) would be a BAD_HELLO fault. Run alone and through two Ray actors:
    both CERTIFIED, with one and the same view."""
    script = vendor_files / "viewer.py"
    script.write_text(VIEW_VENDOR)
    script.chmod(0o644)
    vendor = shlex.join([sys.executable, str(script)])
    workdir = vendor_files / "lab"               # the lab works elsewhere than where the cluster started
    workdir.mkdir(mode=0o755)
    alone = certify(edge, tmp_path / "alone", vendor, cwd=workdir)
    assert alone.wait(timeout=HANG) == 0, alone.stderr.read() if alone.stderr else ""
    clustered = certify(edge, tmp_path / "ray", vendor, "--ray", cluster.address, "--workers", "2", cwd=workdir)
    assert clustered.wait(timeout=HANG) == 0, clustered.stderr.read() if clustered.stderr else ""
    got, want = (json.loads((tmp_path / run / "summary.json").read_text()) for run in ("ray", "alone"))
    assert got["vendor"]["build"] == want["vendor"]["build"] and got["vendor"]["build"].startswith("view ")
    assert got["fault_totals"]["count"] == 0 and got["vendor_bound"] == want["vendor_bound"]
