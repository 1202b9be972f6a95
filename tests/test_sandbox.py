"""The confined subprocess vendor: a hostile vendor process against a real ``tablecert certify``.

One run of ``tests/hostile_vendor.py`` (the reference vendor's answers, plus attacks at hello and
at bye) under the default ``--isolation auto``, with the run folder and the signing key in a
folder any user could read: every attack must fail, the run must still be CERTIFIED, and the
grandchild it leaves must be gone when certify returns. Tests of mechanisms this machine cannot
give (not root, no namespaces) are skipped, saying why.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pypdf import PdfReader

from tablecert.harness.confine import sandbox
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault
from waits import HANG

HOSTILE = Path(__file__).with_name("hostile_vendor.py")
FULL = sandbox.plan([sys.executable], SessionOptions(isolation="auto"))
needs_full = pytest.mark.skipif("a user of its own" not in FULL.mechanisms,
                                reason=f"full isolation needs root and namespaces; this machine gives: {FULL.description}")


def _processes_with(marker: str) -> list[int]:
    """Host processes (not zombies) whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state != "Z":
                found.append(int(entry))
    return found


DRIVER = """
import json, sys
from pathlib import Path
from tablecert.harness.run.certify import OutputOptions, certify
from tablecert.harness.adapters import VendorTarget
from tablecert.harness.contract import SessionOptions
from tablecert.reports import report_step
cmd, suite, out, key, report = sys.argv[1:6]
# The hostile vendor's one writable folder (its report), bound in as a vendor's own state folder is.
options = SessionOptions(isolation="auto", writable_paths=(report,))
result, summary = certify(VendorTarget("subprocess", cmd, options), "edge", Path(out), suite_dir=Path(suite),
                          sign_key=Path(key), then=report_step(OutputOptions(sign_key=Path(key))))
print("verdict:", summary["verdict"])
sys.exit(0 if summary["verdict"] == "pass" else 1)
"""


@pytest.fixture(scope="module")
def hostile_run(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The hostile vendor certified once; what it found, the run folder, the grandchild's fate."""
    if "a user of its own" not in FULL.mechanisms:
        pytest.skip(f"full isolation needs root and namespaces; this machine gives: {FULL.description}")
    lab = tmp_path_factory.mktemp("lab")
    lab.chmod(0o755)                     # readable by anyone: only the sandbox hides what is in it
    keys = lab / "keys"
    keys.mkdir(mode=0o755)
    key = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption())
    (keys / "lab-0600.key").write_bytes(key)
    (keys / "lab-0600.key").chmod(0o600)
    (keys / "lab-0644.key").write_bytes(key)
    (keys / "lab-0644.key").chmod(0o644)
    out = lab / "run"
    suite = lab / "suite"                # the expected view holds the answers
    shutil.copytree(edge, suite)
    for folder in (suite, *(p for p in suite.rglob("*") if p.is_dir())):
        folder.chmod(0o755)
    expected = next((suite / "expected").glob("*.jsonl.gz"))
    shared = Path(os.environ.get("TMPDIR", "/tmp")) / f"tablecert-hostile-{uuid.uuid4().hex}"
    shared.mkdir(mode=0o755)
    vendor = shared / "vendor"            # the vendor's tree (its script and settings), read-only, its build
    vendor.mkdir(mode=0o755)
    shutil.copy(HOSTILE, vendor / HOSTILE.name)
    report = shared / "report"            # its writable folder, outside its build (a file written in the
    report.mkdir()                        # build while it runs is a build_changed fault, issue 49)
    report.chmod(0o777)
    host_tmp = Path("/tmp") / f"tablecert-host-{uuid.uuid4().hex}"
    host_tmp.write_text("host /tmp")
    host_tmp.chmod(0o644)
    host_shm = Path("/dev/shm") / f"tablecert-host-{uuid.uuid4().hex}"
    host_shm.write_text("host /dev/shm")
    host_shm.chmod(0o644)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock_path = Path("/tmp") / f"tablecert-sock-{uuid.uuid4().hex}"
    listener.bind(str(sock_path))
    sock_path.chmod(0o777)
    listener.listen(1)
    listener.setblocking(False)
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    secret, marker = uuid.uuid4().hex, f"grandchild-{uuid.uuid4().hex}"
    shm_name = f"tablecert-left-{uuid.uuid4().hex}"
    settings = {"report": str(report), "run_db": str(out / "run.db"), "keys": [str(p) for p in keys.iterdir()] + [str(expected)],
                "harness_pid_file": str(report / "harness.pid"), "secret": secret,
                "port": server.getsockname()[1], "marker": marker, "host_files": [str(host_tmp), str(host_shm)],
                "host_socket": str(sock_path), "shm_name": shm_name}
    (vendor / "settings.json").write_text(json.dumps(settings))
    cmd = shlex.join([sys.executable, str(vendor / HOSTILE.name), str(vendor / "settings.json")])
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, cmd, str(suite), str(out), str(keys / "lab-0600.key"),
                             str(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TABLECERT_LAB_SECRET": secret})
    (report / "harness.pid").write_text(str(proc.pid))   # in its writable folder: not its build
    stdout, stderr = proc.communicate(timeout=HANG)
    survivors = _processes_with(marker)
    accepted = []
    for sock in (server, listener):
        try:
            accepted.append(sock.accept()[0].close() or True)
        except BlockingIOError:
            accepted.append(False)
        sock.close()
    yield {"rc": proc.returncode, "stdout": stdout, "stderr": stderr, "out": out, "report": report,
            "hello": json.loads((report / "hello.json").read_text()),
            "bye": json.loads((report / "bye.json").read_text()), "survivors": survivors,
            "accepted": accepted[0], "unix_accepted": accepted[1], "keys": keys, "settings": settings,
            "shm_left_on_host": (Path("/dev/shm") / shm_name).exists()}
    shutil.rmtree(shared, ignore_errors=True)
    for path in (host_tmp, host_shm, sock_path):
        path.unlink(missing_ok=True)


@needs_full
def test_the_confined_reference_answers_are_certified(hostile_run: dict[str, Any]) -> None:
    assert hostile_run["rc"] == 0, hostile_run["stdout"] + hostile_run["stderr"]
    assert "verdict: pass" in hostile_run["stdout"]
    summary = json.loads((hostile_run["out"] / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["totals"]["fail"] == 0 and summary["totals"]["pass"] > 5000
    assert "a user of its own" in summary["isolation"] and "pid namespace" in summary["isolation"]
    page1 = PdfReader(hostile_run["out"] / "certificate.pdf").pages[0].extract_text()
    assert "Vendor isolation" in page1 and "not confined" not in page1


@needs_full
def test_the_vendor_cannot_read_or_change_the_run_database(hostile_run: dict[str, Any]) -> None:
    for stage in ("hello", "bye"):
        assert not hostile_run[stage]["run_db_write"].startswith("ok"), hostile_run[stage]
    assert not hostile_run["hello"]["run_dir"].startswith("ok:") or hostile_run["hello"]["run_dir"] == "ok: []"
    db = sqlite3.connect(f"file:{hostile_run['out'] / 'run.db'}?mode=ro", uri=True)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    assert json.loads(meta["verdict"]) == "pass"
    assert hostile_run["hello"]["uid"] != 0


@needs_full
def test_the_vendor_cannot_read_the_signing_key_at_either_mode_or_the_expected_view(
        hostile_run: dict[str, Any]) -> None:
    keys = hostile_run["hello"]["keys"]
    names = sorted(Path(p).name for p in keys)
    assert len(names) == 3 and {"lab-0600.key", "lab-0644.key"} <= set(names) and names[0].endswith(".jsonl.gz")
    assert all(not got.startswith("ok") for got in keys.values()), keys
    assert (hostile_run["keys"] / "lab-0644.key").read_bytes().startswith(b"-----BEGIN PRIVATE KEY")


@needs_full
def test_the_vendor_cannot_see_the_harness_through_proc(hostile_run: dict[str, Any]) -> None:
    found = hostile_run["hello"]
    assert not found["harness_environ"].startswith("ok"), found["harness_environ"]
    assert not found["harness_cmdline"].startswith("ok"), found["harness_cmdline"]
    assert found["proc"]["harness_cmdlines"] == [] and found["proc"]["secret_in"] == []
    assert 1 in found["proc"]["pids"] and len(found["proc"]["pids"]) <= 4    # its own namespace only


@needs_full
def test_a_setsid_grandchild_dies_with_the_run(hostile_run: dict[str, Any]) -> None:
    assert (hostile_run["report"] / "started.txt").exists()       # it did start, at bye
    assert hostile_run["survivors"] == []                          # and was gone when certify returned
    assert not (hostile_run["report"] / "late.txt").exists()


@needs_full
def test_no_network_beyond_its_own_loopback(hostile_run: dict[str, Any]) -> None:
    assert hostile_run["hello"]["network"] == "ConnectionRefusedError"
    assert hostile_run["accepted"] is False
    assert hostile_run["hello"]["interfaces"] == ["lo"]


@needs_full
def test_host_tmp_shm_and_unix_sockets_are_out_of_reach(hostile_run: dict[str, Any]) -> None:
    found = hostile_run["hello"]
    assert set(found["host_files"]) == set(hostile_run["settings"]["host_files"])
    assert all(got == "FileNotFoundError" for got in found["host_files"].values()), found["host_files"]
    assert found["host_socket"] in ("FileNotFoundError", "ConnectionRefusedError"), found["host_socket"]
    assert hostile_run["unix_accepted"] is False
    assert found["shm_left"] == "ok: 'written'"            # its own /dev/shm works ...
    assert hostile_run["shm_left_on_host"] is False        # ... and is gone with it, never the host's


def test_without_bubblewrap_auto_degrades_and_strict_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "bwrap_program", lambda: None)
    assert sandbox.plan(["/bin/true"], SessionOptions(isolation="auto")).description == "none (process group only)"
    with pytest.raises(VendorFault) as refused:
        sandbox.plan(["/bin/true"], SessionOptions(isolation="strict"))
    assert refused.value.kind is FaultKind.START
    assert sandbox.plan(["/bin/true"], SessionOptions(isolation="none")).prefix == ()


def test_not_root_uses_a_user_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan a user other than root gets (that it works for real: test_sandbox_unprivileged.py)."""
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(sandbox, "_works", lambda *command: True)
    got = sandbox.plan(["/bin/true"], SessionOptions(isolation="auto"))
    assert "user namespace" in got.mechanisms and "a user of its own" not in got.mechanisms
    assert "--unshare-user" in got.prefix and got.drop == ()
    assert "--unshare-net" in got.prefix and "--cap-drop" in got.prefix
    with pytest.raises(VendorFault):
        sandbox.plan(["/bin/true"], SessionOptions(isolation="strict"))
    networked = sandbox.plan(["/bin/true"], SessionOptions(isolation="auto", vendor_network=True))
    assert "--unshare-net" not in networked.prefix and "network: vendor's own" in networked.mechanisms


@needs_full
def test_the_reference_vendor_is_certified_under_the_sandbox(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd",
                           shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"]), "--suite", "edge",
                           "--suite-dir", str(edge), "--out", str(out), "--isolation", "strict", "--quiet"],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: PASS" in done.stdout and "vendor isolation: bubblewrap" in done.stdout
    assert "vendor limits: processes 256" in done.stdout


def test_an_in_process_plugin_records_that_it_is_not_confined() -> None:
    session = PythonAdapter().open("reference", SessionOptions())
    try:
        assert session.isolation == "none (in-process plugin)"
    finally:
        session.close()


LOUD_VENDOR = '''\
import json, sys
from tablecert.oracle.vendor import ReferenceVendor
vendor = ReferenceVendor()
for line in sys.stdin:
    request = json.loads(line)
    answer = vendor.handle(request)
    if request.get("op") == "hello":
        answer["implementation"] = {"name": "N" * 5000 + "\\x1b[2J\\x1b[Hverdict: PASS\\r",
                                    "version": "V" * 5000, "build": "\\x1b]0;owned\\x07" * 500}
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
    if request.get("op") == "bye":
        break
'''


def test_long_names_and_terminal_escapes_unconfined(edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    """A 5,000-character unbroken name with escapes: both PDFs render, the terminal gets no control
    character, and a run without isolation says so on the certificate's first page."""
    script = vendor_files / "loud.py"
    script.write_text(LOUD_VENDOR)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd",
                           shlex.join([sys.executable, str(script)]), "--suite", "edge", "--suite-dir", str(edge),
                           "--out", str(out), "--isolation", "none", "--quiet"],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert not any(c in done.stdout + done.stderr for c in "\x1b\r\x07"), done.stdout
    assert "more characters" in done.stdout and "vendor isolation: none (process group only)" in done.stdout
    for pdf in ("certificate.pdf", "findings.pdf"):
        assert len(PdfReader(out / pdf).pages) >= 2
    page1 = PdfReader(out / "certificate.pdf").pages[0].extract_text().replace("\n", " ")
    assert "none (process group only)" in page1 and "not confined" in page1
    assert "\x1b" not in page1 and "N" * 200 not in page1


def test_a_read_only_oracle_tree_lends_its_compiled_kernels_to_a_private_cache(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Confined, the reference vendor's tree is read-only: numba would compile every kernel again in
    every start; jit_cache seeds a private cache in HOME with the tree's compiled kernels instead."""
    import numba

    from tablecert.oracle import jit_cache

    tree = jit_cache.HERE / "__pycache__"
    compiled = sorted(p.name for p in tree.glob("*.nb[ic]")) if tree.is_dir() else []
    if not compiled:
        pytest.skip("no kernel compiled in the tree yet")
    real_access = os.access
    monkeypatch.setattr(jit_cache.os, "access", lambda path, mode: False if mode == os.W_OK else real_access(path, mode))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    root = jit_cache.use_private_cache()
    assert root == tmp_path / "tablecert-numba" and numba.config.CACHE_DIR == str(root)
    (seeded,) = root.iterdir()
    assert seeded.name.startswith("oracle_") and sorted(p.name for p in seeded.iterdir()) == compiled


MONO_MAP = Path("/etc/mono/config")
ETC_MONO_PROBE = """import json, os
found = {"config": open("/etc/mono/config", "rb").read().hex(), "etc_mono": sorted(os.listdir("/etc/mono")),
         "read_only": bool(os.statvfs("/etc/mono/config").f_flag & os.ST_RDONLY)}
print(json.dumps(found))
"""


@needs_full
@pytest.mark.skipif(not MONO_MAP.is_file(), reason="no Mono on this host (/etc/mono/config)")
def test_mono_s_library_map_is_all_of_etc_mono_a_vendor_sees_and_read_only() -> None:
    """The one /etc/mono file bound (Mono's map to System.Native, a system file): byte for byte the
    host's, on a read-only mount, and nothing else of /etc/mono (its certificate store, registry)."""
    argv = [sys.executable, "-c", ETC_MONO_PROBE]
    started = sandbox.plan(argv, SessionOptions(isolation="auto")).start(argv, stdout=subprocess.PIPE,
                                                                         stderr=subprocess.PIPE)
    try:
        stdout, stderr = started.proc.communicate(timeout=HANG)
    finally:
        if started.status_fd is not None:
            os.close(started.status_fd)
        started.release()
    assert started.proc.returncode == 0, stderr
    found = json.loads(stdout)
    assert found == {"config": MONO_MAP.read_bytes().hex(), "etc_mono": ["config"], "read_only": True}
