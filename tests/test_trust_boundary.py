"""The lab decides what a confined vendor sees (issue 32): nothing the vendor wrote chooses a bind,
no lab folder is reachable through a bind in either direction, nothing it ships is read unbounded,
each run's vendors have a uid and limits of their own, a vendor unpacked deep under /tmp starts.

Every vendor here is a real program started confined by the real harness (bubblewrap). Tests of
mechanisms only root has are skipped elsewhere, saying why.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablecert.harness.confine import sandbox
from tablecert import PACKAGES as OWN_PACKAGES
from tablecert.harness.confine.vendor_trees import own_source_trees
from tablecert.harness.contract import SessionOptions, VendorFault
from tablecert.vectors.suites import generate
from waits import HANG

HERE = Path(__file__).parent
REPO = HERE.parent
THIEF = HERE / "thief_vendor.py"
AUTO = SessionOptions(isolation="auto")
FULL = sandbox.plan([sys.executable], AUTO)
root_only = pytest.mark.skipif(sandbox.OWN_USER not in FULL.mechanisms,
                               reason=f"needs root and bubblewrap; this machine gives: {FULL.description}")
confined = pytest.mark.skipif(not FULL.prefix, reason=f"needs bubblewrap; this machine gives: {FULL.description}")


@pytest.fixture
def lab() -> Iterator[Path]:
    """A folder outside pytest's own 0700 ones, readable by any user (only the sandbox protects)."""
    folder = Path(tempfile.mkdtemp(prefix="tablecert-lab-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(folder)], check=False)
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def certify(vendor: str, out: Path, *extra: str, suite: str = "edge") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", suite,
                           "--out", str(out), "--quiet", *extra], capture_output=True, text=True, timeout=HANG,
                          cwd=REPO)


def _open_tree(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


COUNTER = """
import json, os, sys
folders = sys.argv[1:]
for line in sys.stdin:
    request = json.loads(line)
    if request.get("op") == "hello":
        found = 0
        for folder in folders:
            for path, _, names in os.walk(folder):
                for name in names:
                    try:
                        with open(os.path.join(path, name), "rb") as f:
                            found += bool(f.read(2))
                    except OSError:
                        pass
        print(json.dumps({"id": request["id"], "protocol": "tablecert-vendor/2", "ops": ["craps.settle"],
                          "implementation": {"name": "counter", "version": "1", "build": f"read {found} files"}}),
              flush=True)
    else:
        print(json.dumps({"id": request.get("id"), "error": {"code": "nothing", "message": "implements nothing"}}),
              flush=True)
"""


def _vendor_venv(lab: Path) -> tuple[Path, Path]:
    """A vendor's own venv (a real one) and its site-packages."""
    env = lab / "vendor-venv"
    venv.EnvBuilder(symlinks=True, with_pip=False).create(env)
    site = next(env.glob("lib/python3*/site-packages"))
    return env, site


def test_the_harness_knows_every_package_it_is_made_of() -> None:
    """OWN_PACKAGES is the wheel's outermost packages (setup.py finds the rest below them): a
    package added there is bound too."""
    import runpy

    packages = runpy.run_path(str(REPO / "setup.py"), run_name="setup")["package_map"]()
    assert sorted(OWN_PACKAGES) == sorted(p for p, folder in packages.items() if "/" not in folder)   # top folders
    assert all(Path(tree).is_dir() for tree in own_source_trees())


@confined
def test_a_pth_file_and_an_editable_finder_bind_nothing(lab: Path) -> None:
    """The thief's venv names the lab's suite through a .pth line and an editable finder's MAPPING:
    before this release both folders were bound read-only and the thief passed every vector."""
    suite = lab / "cache" / "suites" / "edge"
    generate("edge", suite)
    env, site = _vendor_venv(lab)
    (site / "steal.pth").write_text(f"{suite / 'expected'}\n{suite}\n")
    (site / "__editable___thief_0_1_finder.py").write_text(f"MAPPING = {{'thief': {str(suite)!r}}}\n")
    counter = env / "counter.py"
    counter.write_text(COUNTER)
    _open_tree(lab)
    argv = [str(env / "bin" / "python"), str(counter), str(suite)]
    plan = sandbox.plan(argv, AUTO)
    assert not any(str(suite).startswith(b) or b.startswith(str(suite)) for b in plan.bound), plan.bound
    done = certify(shlex.join(argv), lab / "run", "--suite-dir", str(suite), "--custom-suite")
    summary = json.loads((lab / "run" / "summary.json").read_text())
    assert summary["vendor"]["build"] == "read 0 files", (summary["vendor"], done.stderr)
    assert done.returncode == 1 and summary["totals"]["pass"] == 0
    assert str(suite) not in " ".join(summary["vendor_bound"])
    assert str(env) in summary["vendor_bound"]                   # the venv the program is in: the lab's rule


@confined
def test_a_fifo_a_device_and_a_huge_pth_are_never_read(lab: Path) -> None:
    """A .pth that is a FIFO hung certify for good; one linked to /dev/zero ran it out of memory.
    Planned in a child process with a small address space: it must finish, one line each way."""
    env, site = _vendor_venv(lab)
    os.mkfifo(site / "hang.pth")
    (site / "zero.pth").symlink_to("/dev/zero")
    (env / "bin" / "fifo-interpreter").mkdir()        # a folder where a program is looked for
    os.mkfifo(lab / "fifo-script")
    script = env / "bin" / "vendor"
    script.write_text(f"#!{env / 'bin' / 'python'}\nimport sys\n")
    script.chmod(0o755)
    _open_tree(lab)
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
            "from tablecert.harness.confine import sandbox; from tablecert.harness.contract import SessionOptions;"
            f"p = sandbox.plan([{str(script)!r}, {str(lab / 'fifo-script')!r}], SessionOptions(isolation='auto'));"
            "print(len(p.bound))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0 and done.stdout.strip().isdigit(), done.stderr[-2000:]


@confined
def test_a_vendor_tree_holding_an_earlier_run_is_refused_in_one_line(lab: Path) -> None:
    """The vendor program sits in the folder that holds the lab's earlier runs: the bind is refused
    before any start (issue 47: refused, not covered), one line naming the run folder; before issue
    32 the thief read every expected answer (PASS 6,863)."""
    runs = lab / "runs"
    runs.mkdir()
    done = certify(f"{sys.executable} -m tablecert reference-vendor", runs / "earlier")
    assert done.returncode == 0, done.stderr
    thief = runs / "thief.py"
    thief.write_text(THIEF.read_text())
    _open_tree(lab)
    done = certify(f"{sys.executable} {thief} steal-from={runs}", lab / "now")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"holds the lab's folder {runs / 'earlier'}" in done.stderr and "Traceback" not in done.stderr


@confined
def test_a_vendor_inside_a_lab_folder_is_refused_in_one_line(lab: Path) -> None:
    """A bind inside this run's folder (or the suite cache) would open it: refused before any start."""
    out = lab / "run"
    (out / "vendor" / "bin").mkdir(parents=True)
    program = out / "vendor" / "bin" / "run"
    program.write_text("#!/usr/bin/python3\n" + COUNTER)
    program.chmod(0o755)
    with pytest.raises(VendorFault, match="lies inside the lab's folder"):     # this run's folder
        sandbox.plan([str(program)], SessionOptions(isolation="auto", hidden_paths=(str(out),)))
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "tablecert" / "vendor"      # the lab's suite cache
    (cache / "bin").mkdir(parents=True, exist_ok=True)
    (cache / "bin" / "run").write_text(program.read_text())
    (cache / "bin" / "run").chmod(0o755)
    done = certify(str(cache / "bin" / "run"), lab / "cached")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "lies inside the lab's folder" in done.stderr and "Traceback" not in done.stderr
    with pytest.raises(VendorFault, match="lies inside the lab's folder"):     # named by the lab, all the same
        sandbox.plan(["/usr/bin/python3", "-c", "pass"], SessionOptions(isolation="auto", vendor_paths=(str(cache),)))


@confined
def test_the_vendor_sees_no_protected_path_in_its_first_process(lab: Path) -> None:
    """bubblewrap's options go over a descriptor: /proc/1/cmdline inside names no host path."""
    secret = lab / "run-folder-name-the-vendor-must-not-learn"
    secret.mkdir()
    plan = sandbox.plan(["/bin/cat", "/proc/1/cmdline"], SessionOptions(isolation="auto", hidden_paths=(str(secret),)))
    started = plan.start(["/bin/cat", "/proc/1/cmdline"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = started.proc.communicate(timeout=HANG)
    if started.status_fd is not None:
        os.close(started.status_fd)
    started.release()
    assert started.proc.returncode == 0, err
    assert b"bwrap" in out or b"--args" in out
    assert secret.name.encode() not in out and b"--ro-bind" not in out


@confined
def test_a_vendor_unpacked_folders_deep_under_tmp_starts() -> None:
    """Where labs unpack submissions: /tmp/x/a/b/c/vendor-1.0/bin/run, each folder 0755."""
    top = Path(tempfile.mkdtemp(prefix="tablecert-unpacked-"))
    try:
        top.chmod(0o755)
        program = top / "a" / "b" / "c" / "vendor-1.0" / "bin" / "run"
        program.parent.mkdir(parents=True)
        program.write_text("#!/usr/bin/python3\n" + COUNTER)
        _open_tree(top)
        program.chmod(0o755)
        done = subprocess.run([sys.executable, "-m", "tablecert", "sandbox-check", "--vendor-cmd", str(program)],
                              capture_output=True, text=True, timeout=HANG, cwd=REPO)
        assert done.returncode == 0 and "hello: counter 1 (read 0 files)" in done.stdout, done.stdout + done.stderr
    finally:
        subprocess.run(["rm", "-rf", str(top)], check=False)


HOLDER = """
import json, os, sys, time
held = []
for line in sys.stdin:
    request = json.loads(line)
    if request.get("op") == "hello":
        while len(held) < 4000:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            held.append(pid)
        print(json.dumps({"id": request["id"], "protocol": "tablecert-vendor/2", "ops": ["craps.settle"],
                          "implementation": {"name": "holder", "version": "1", "build": str(len(held))}}), flush=True)
    # every other request goes unanswered: the run waits for it (its --timeout), the processes held
"""


THREADED = """
import sys, threading, time
from tablecert.oracle.vendor import ReferenceVendor, serve
for _ in range(8):                  # a pool of workers, as a real engine starts at its start
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
sys.exit(serve(sys.stdin, sys.stdout, ReferenceVendor()))
"""


def _tasks_with(marker: str) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    count += 1
            except OSError:
                continue
    return count


@root_only
def test_one_runs_vendor_at_its_process_limit_leaves_another_run_certified(lab: Path) -> None:
    """Run A's vendor forks until its limit and holds every process; meanwhile run B's correct
    vendor, under the same limit, is CERTIFIED. As root every vendor was `nobody`, so RLIMIT_NPROC
    counted A's processes against B (a correct vendor NOT CERTIFIED, "pthread_create failed")."""
    marker = f"holder-{os.getpid()}-{lab.name}"
    (lab / "vendor").mkdir()                     # apart from the run folders (a tree holding one is refused)
    holder = lab / "vendor" / f"{marker}.py"
    holder.write_text(HOLDER)
    threaded = lab / "vendor" / "threaded.py"
    threaded.write_text(THREADED)
    _open_tree(lab)
    a = subprocess.Popen([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd",
                          f"{sys.executable} {holder}", "--suite", "edge", "--out", str(lab / "a"), "--quiet",
                          "--max-processes", "64", "--timeout", "600"], cwd=REPO, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        while _tasks_with(marker) < 60 and a.poll() is None:      # A's vendor is holding its limit
            os.sched_yield()
        assert a.poll() is None, a.communicate()
        done = certify(f"{sys.executable} {threaded}", lab / "b", "--max-processes", "64")
        summary = json.loads((lab / "b" / "summary.json").read_text())
        assert done.returncode == 0 and summary["verdict"] == "pass", done.stdout + done.stderr
    finally:
        a.kill()
        a.communicate()


MEMORY_HOG = """
import json, os, sys, time
for line in sys.stdin:
    request = json.loads(line)
    if request.get("op") == "hello":
        for _ in range(4):
            if os.fork() == 0:
                block = bytearray(200 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(3600)
        print(json.dumps({"id": request["id"], "protocol": "tablecert-vendor/2", "ops": [],
                          "implementation": {"name": "hog", "version": "1", "build": "1"}}), flush=True)
        os.wait()
        print("a child ended", file=sys.stderr, flush=True)
        time.sleep(3600)
"""


@root_only
def test_the_memory_limit_holds_for_the_vendors_processes_together(lab: Path) -> None:
    """Four children of 200 MiB under a 512 MiB limit: per process (RLIMIT_AS) each fitted; counted
    together (the memory controller) one is killed, which the vendor reports on its stderr."""
    if "cgroup" not in FULL.limits:
        pytest.skip(f"no memory controller here: {FULL.limits}")
    hog = lab / "hog.py"
    hog.write_text(MEMORY_HOG)
    _open_tree(lab)
    session = sandbox.plan([sys.executable, str(hog)], replace_memory(512))
    started = session.start([sys.executable, str(hog)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert started.proc.stdin is not None and started.proc.stderr is not None
        started.proc.stdin.write(b'{"id": 1, "op": "hello"}\n')
        started.proc.stdin.flush()
        assert started.proc.stderr.readline() == b"a child ended\n"     # one of the four was killed
    finally:
        started.proc.kill()
        started.proc.wait()
        if started.status_fd is not None:
            os.close(started.status_fd)
        started.release()


def replace_memory(mb: int) -> SessionOptions:
    return SessionOptions(isolation="auto", memory_limit_mb=mb)


@confined
def test_a_vendor_needing_its_editable_sources_is_told_the_vendor_path_in_one_line(lab: Path) -> None:
    """Its editable install's sources are not bound (the vendor's own finder names them): it fails
    to start, and the one line names the --vendor-path that lets it; given that, it starts."""
    env, site = _vendor_venv(lab)
    sources = lab / "vendor-src"
    (sources / "counting").mkdir(parents=True)
    (sources / "counting" / "__init__.py").write_text(COUNTER.replace("sys.argv[1:]", "[]"))
    (site / "__editable___counting_1_finder.py").write_text(
        f"MAPPING = {{'counting': {str(sources / 'counting')!r}}}\nimport sys\nsys.path.append({str(sources)!r})\n")
    (site / "__editable__.counting-1.pth").write_text("import __editable___counting_1_finder\n")
    _open_tree(lab)
    vendor = shlex.join([str(env / "bin" / "python"), "-c", "import counting"])
    done = subprocess.run([sys.executable, "-m", "tablecert", "sandbox-check", "--vendor-cmd", vendor],
                          capture_output=True, text=True, timeout=HANG, cwd=REPO)
    assert done.returncode == 2 and f"add --vendor-path {sources} (" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1
    done = subprocess.run([sys.executable, "-m", "tablecert", "sandbox-check", "--vendor-cmd", vendor,
                           "--vendor-path", str(sources)], capture_output=True, text=True, timeout=HANG, cwd=REPO)
    assert done.returncode == 0 and "hello: counter 1 (read 0 files)" in done.stdout, done.stdout + done.stderr


@root_only
def test_a_vendor_instance_group_is_made_with_its_limits_and_what_killed_runs_left_is_removed() -> None:
    from tablecert.harness.confine import cgroups

    controllers = cgroups._available()
    if controllers is None:
        pytest.skip("no usable memory and pids controllers here")
    group = controllers.group(512, 64)
    try:
        memory = Path(group.folders[0], controllers.memory_file).read_text().strip()
        assert memory in (str(512 << 20), "536870912")
        assert Path(group.folders[-1], "pids.max").read_text().strip() == "64"
    finally:
        group.remove()
    assert not any(Path(f).exists() for f in group.folders)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()          # a pid no process has any more
    left = [os.path.join(parent, f"tablecert-{dead}-0") for parent in (controllers.memory_parent,
                                                                        controllers.pids_parent)]
    for folder in dict.fromkeys(left):
        os.mkdir(folder)
    assert cgroups.remove_stale((controllers.memory_parent, controllers.pids_parent)) == len(set(left))
    assert not any(os.path.exists(f) for f in left)
