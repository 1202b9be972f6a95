"""A vendor process (run as a script) that answers like the reference vendor while attacking the lab.

    python hostile_vendor.py SETTINGS.json

SETTINGS: ``report`` (a folder it may write to, bound into its sandbox by the test: what each
attack got, as ``hello.json`` and ``bye.json``), ``run_db``, ``keys`` (paths to read),
``harness_pid_file`` (holds the harness's pid once the test has written it), ``secret`` (a value in
the harness's environment only), ``port`` (a TCP port listening on the host's loopback), ``marker``
(on the grandchild's command line), ``host_files`` (files in the host's ``/tmp`` and ``/dev/shm``),
``host_socket`` (a unix socket listening in the host's ``/tmp``), ``shm_name`` (a file it leaves in
its ``/dev/shm``).

At ``hello`` it reads and tries to change the run database, reads the keys, reads the harness's
``/proc`` entries and scans ``/proc`` for the harness, connects to the host's port and unix socket,
reads the host's ``/tmp`` and ``/dev/shm`` files, leaves 8 MB in its own ``/dev/shm`` and lists the
network interfaces. At ``bye`` it tries the run database again, starts a grandchild in a session
of its own (which says it started, sleeps, then writes ``late.txt``), waits until the grandchild
has started, and answers.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

from tablecert.oracle.vendor import ReferenceVendor

GRANDCHILD = """
import pathlib, sys, time
report = pathlib.Path(sys.argv[1])
(report / "started.txt").write_text("started")
time.sleep(1.0)
(report / "late.txt").write_text("outlived the run")
"""


def attempt(action) -> str:
    """What one attack got: ``ok: ...`` or the exception's name."""
    try:
        return f"ok: {action()!r}"[:200]
    except Exception as err:  # noqa: BLE001 - every outcome is the finding
        return type(err).__name__


def tamper(path: str) -> str:
    with open(path, "r+b") as f:
        f.write(b"CERTIFIED")
    return "written"


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def scan_proc(secret: str) -> dict[str, object]:
    seen, harness, leaked = [], [], []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        seen.append(int(entry))
        cmdline = attempt(lambda: read(f"/proc/{entry}/cmdline"))
        if "certify" in cmdline:
            harness.append(cmdline)
        if secret in attempt(lambda: read(f"/proc/{entry}/environ")):
            leaked.append(entry)
    return {"pids": sorted(seen), "harness_cmdlines": harness, "secret_in": leaked}


def harness_pid(path: str) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = attempt(lambda: read(path).decode())
        if text.startswith("ok: '") and text[5:-1].strip().isdigit():
            return text[5:-1].strip()
        time.sleep(0.05)
    return "0"


def connect(port: int) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        return "connected"


def connect_unix(path: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        s.connect(path)
        return "connected"


def leave_in_shm(name: str) -> str:
    with open(os.path.join("/dev/shm", name), "wb") as f:
        f.write(b"\0" * (8 << 20))
    return "written"


def at_hello(settings: dict) -> dict:
    pid = harness_pid(settings["harness_pid_file"])
    return {"run_db_write": attempt(lambda: tamper(settings["run_db"])),
            "run_dir": attempt(lambda: os.listdir(os.path.dirname(settings["run_db"]))),
            "keys": {path: attempt(lambda path=path: read(path)) for path in settings["keys"]},
            "harness_environ": attempt(lambda: read(f"/proc/{pid}/environ")),
            "harness_cmdline": attempt(lambda: read(f"/proc/{pid}/cmdline")),
            "proc": scan_proc(settings["secret"]),
            "network": attempt(lambda: connect(settings["port"])),
            "interfaces": [name for _, name in socket.if_nameindex()],
            "host_files": {path: attempt(lambda path=path: read(path)) for path in settings["host_files"]},
            "host_socket": attempt(lambda: connect_unix(settings["host_socket"])),
            "shm_left": attempt(lambda: leave_in_shm(settings["shm_name"])),
            "uid": os.getuid()}


def at_bye(settings: dict) -> dict:
    found = {"run_db_write": attempt(lambda: tamper(settings["run_db"]))}
    report = settings["report"]
    subprocess.Popen([sys.executable, "-c", GRANDCHILD, report, settings["marker"]], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not os.path.exists(os.path.join(report, "started.txt")) and time.monotonic() < deadline:
        time.sleep(0.01)
    return found


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        settings = json.load(f)
    vendor = ReferenceVendor()
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op in ("hello", "bye"):
            found = at_hello(settings) if op == "hello" else at_bye(settings)
            with open(os.path.join(settings["report"], f"{op}.json"), "w", encoding="utf-8") as f:
                json.dump(found, f)
        sys.stdout.write(json.dumps(vendor.handle(request)) + "\n")
        sys.stdout.flush()
        if op == "bye":
            break


if __name__ == "__main__":
    main()
