"""The vendor adapters (subprocess, python, http) against the real reference vendor, and against
small misbehaving vendors: real processes written into tmp_path, real local HTTP servers."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tables import raw_config
from tablecert.harness.adapters.http_adapter import HttpAdapter
from tablecert.harness.adapters.http_server import serve_http
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.confine.sandbox import SAFE_PATH
from tablecert.harness.protocol_versions import hello_request
from tablecert.harness.contract import (KNOWN_OPS, PROTOCOL, Adapter, FaultKind, SessionOptions, VendorFault,
                                        VendorSession)
from tablecert.harness.answers.envelope import decode_answer
from tablecert.oracle.vendor import ReferenceVendor

REFERENCE_CMD = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
PROMPT = SessionOptions(timeout=600.0)
"""For vendors that answer, fail or die at once: the timeout never ends a wait, even with both
cores saturated (issue 33), so a fault seen is the one the test made."""
SHORT = SessionOptions(timeout=3.0)
"""For vendors that hang: the timeout is what ends the wait. Long enough for a Python vendor to
start and answer hello on a saturated machine."""
HUNG = 60.0
"""Seconds the hanging vendors below sleep. A wait is judged ended by the timeout (or by a
line's length, or by the CPU limit) when it took less than half of this: the clock only has to
tell the bound apart from the hang, never measure the bound (a saturated machine stretches it)."""
IN_PROCESS = SessionOptions(timeout=0.5)
HUNG_IN_PROCESS = 5.0
"""The same for a vendor in this process (a Python plugin, an HTTP server's thread): nothing has
to start, so the timeout can be short; the vendor's thread sleeps 5 s and is left to finish."""
PAIGOW = {"cap": 4_000_000}

BATCHES: list[tuple[str, Any, list[Any]]] = [
    ("craps.odds_limits", raw_config(), [{"bet": "pass", "flat": 1000, "point": 6},
                                         {"bet": "dont_pass", "flat": 600, "point": 4},
                                         {"bet": "come", "flat": 1000, "point": None}]),
    ("craps.place_odds", raw_config(), [{"bet": "pass", "flat": 1000, "point": 6, "odds": 6000},
                                        {"bet": "pass", "flat": 1000, "point": 6, "odds": 150},
                                        {"bet": "dont_come", "flat": 1000, "point": 10, "odds": 2000}]),
    ("craps.settle", raw_config(payout_rounding="down"),
     [{"bet": "pass", "flat": 1000, "point": 5, "odds": 3000, "dice": [2, 3], "odds_working": True},
      {"bet": "dont_pass", "flat": 1000, "point": None, "odds": 0, "dice": [6, 6], "odds_working": True},
      {"bet": "come", "flat": 500, "point": None, "odds": 0, "dice": [3, 3], "odds_working": True},
      {"bet": "pass", "flat": 1000, "point": 5, "odds": 3000, "dice": [7, 0], "odds_working": True}]),
    ("paigow.player_bonus", PAIGOW, [{"cards": ["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]},
                                     {"cards": ["As", "Ah", "Ad", "Ac", "JK", "2c", "3d"]},
                                     {"cards": ["As", "As", "Qs", "Js", "Ts", "2c", "3d"]},
                                     {"nope": 1}]),
    ("paigow.banker_bonus", PAIGOW, [{"cards": ["9s", "8h", "6d", "4c", "3s", "2h", "Kd"]},
                                     {"cards": ["9s", "8s", "7s", "6s", "5s", "2h", "3d"]}]),
    ("paigow.settle", PAIGOW,
     [{"dealer": ["2c", "3c", "4d", "6h", "8s", "9d", "Jh"], "bank_seat": None,
       "seats": [{"seat": 1, "wager": 500, "cards": ["As", "Ks", "Qs", "Js", "Ts", "2h", "3d"]},
                 {"seat": 2, "wager": 0, "cards": ["5c", "5d", "7h", "7c", "Td", "Qc", "Kh"]}]}]),
    ("paigow.player_bonus", {"cap": -1}, [{"cards": ["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]}]),
]


def expected(rid: int, op: str, config: Any, cases: list[Any]) -> list[Any]:
    return ReferenceVendor().handle({"id": rid, "op": op, "config": config, "cases": cases})["results"]


# -- the real reference vendor through every adapter ------------------------------------------


@pytest.fixture(params=["subprocess", "python-entry-point", "python-module-attr", "http"])
def reference_session(request: pytest.FixtureRequest) -> Iterator[VendorSession]:
    options = SessionOptions(timeout=60.0)
    server = None
    if request.param == "subprocess":
        session: Any = SubprocessAdapter().open(REFERENCE_CMD, options)
    elif request.param == "python-entry-point":
        session = PythonAdapter().open("reference", options)
    elif request.param == "python-module-attr":
        session = PythonAdapter().open("tablecert.oracle.vendor:ReferenceVendor", options)
    else:
        server, url = serve_http(ReferenceVendor())
        session = HttpAdapter().open(url, options)
    try:
        yield session
    finally:
        session.close()
        if server is not None:
            server.shutdown()


def test_adapters_are_registered_and_typed() -> None:
    for adapter in (SubprocessAdapter(), PythonAdapter(), HttpAdapter()):
        assert isinstance(adapter, Adapter)
    assert (SubprocessAdapter.name, PythonAdapter.name, HttpAdapter.name) == ("subprocess", "python", "http")


def test_reference_vendor_hello_batches_close(reference_session: Any) -> None:
    hello = reference_session.hello()
    ref = ReferenceVendor().hello()
    assert (hello.name, hello.version, hello.build) == (ref["implementation"]["name"], ref["implementation"]["version"],
                                                       ref["implementation"]["build"])
    assert hello.ops == KNOWN_OPS
    assert isinstance(reference_session, VendorSession)
    for rid, (op, config, cases) in enumerate(BATCHES, start=1):
        results = reference_session.batch(op, config, cases)
        assert results == expected(rid, op, config, cases), op
    assert reference_session.alive
    reference_session.close()
    assert not reference_session.alive
    reference_session.close()          # twice is fine
    with pytest.raises(RuntimeError):
        reference_session.batch(*BATCHES[0])


def test_reference_vendor_request_error_is_a_fault(reference_session: Any) -> None:
    reference_session.hello()
    with pytest.raises(VendorFault) as info:
        reference_session.batch("craps.teleport", {}, [{}])
    assert info.value.kind is FaultKind.REQUEST_ERROR
    assert "unknown_op" in info.value.detail
    assert not reference_session.alive


def test_subprocess_reference_vendor_exits_by_itself_after_bye() -> None:
    session = SubprocessAdapter().open(REFERENCE_CMD, SessionOptions(timeout=60.0))
    session.hello()
    session.close()
    assert session.exit_status == "exited with status 0"
    assert _gone(session.pid)


# -- misbehaving vendor processes ---------------------------------------------------------------

PRELUDE = '''\
import json, os, signal, subprocess, sys, time
HELLO = {"implementation": {"name": "fake", "version": "1", "build": "b"}, "ops": ["paigow.player_bonus"]}
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
def answer(req):
    send({"id": req["id"], "results": [{"hand": "none"} for _ in req["cases"]]})
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "bye":
        send({"id": req["id"]})
        break
'''

DEFAULT_HELLO = '''\
    if req["op"] == "hello":
        send({"id": req["id"], **HELLO})
        continue
'''


def vendor(tmp_path: Path, batch_body: str, hello_body: str = DEFAULT_HELLO) -> str:
    """The command line of a Python vendor script: the prelude, then per request ``hello_body``
    and ``batch_body`` (indented by four spaces, ``req`` is the request)."""
    script = tmp_path / f"vendor_{len(list(tmp_path.glob('vendor_*.py')))}.py"
    script.write_text(PRELUDE + hello_body + batch_body)
    return shlex.join([sys.executable, str(script)])


def _gone(pid: int, within: float = HUNG / 2) -> bool:
    """The process has ended (no such process, or a zombie nobody has reaped yet)."""
    deadline = time.monotonic() + within
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, IndexError):
            return True
        if state == "Z":
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def fault_of(cmd: str, options: SessionOptions = PROMPT, batches: int = 1) -> tuple[VendorFault, Any, float]:
    session = SubprocessAdapter().open(cmd, options)
    try:
        session.hello()
        started = time.monotonic()
        with pytest.raises(VendorFault) as info:
            for _ in range(batches):
                session.batch("paigow.player_bonus", PAIGOW, [{"cards": []}, {"cards": []}])
        elapsed = time.monotonic() - started
    finally:
        session.close()
    assert not session.alive
    assert _gone(session.pid)
    return info.value, session, elapsed


def test_fake_vendor_works(tmp_path: Path) -> None:
    session = SubprocessAdapter().open(vendor(tmp_path, "    answer(req)\n"), PROMPT)
    assert session.hello().ops == ("paigow.player_bonus",)
    assert session.batch("paigow.player_bonus", PAIGOW, [{}, {}, {}]) == [{"hand": "none"}] * 3
    session.close()
    assert session.exit_status == "exited with status 0"


def test_exit_mid_batch_is_a_crash_with_status(tmp_path: Path) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, "    sys.stderr.write('giving up\\n'); sys.exit(3)\n"))
    assert fault.kind is FaultKind.CRASH
    assert "exited with status 3" in fault.detail
    assert "giving up" in fault.stderr_tail


@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGKILL])
def test_death_by_signal_is_a_crash_naming_it(tmp_path: Path, sig: signal.Signals) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, f"    os.kill(os.getpid(), {int(sig)})\n"))
    assert fault.kind is FaultKind.CRASH
    assert f"killed by signal {sig.name}" in fault.detail


def test_hang_is_a_timeout_and_the_process_group_is_killed(tmp_path: Path) -> None:
    hello = '''\
    if req["op"] == "hello":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        send({"id": req["id"], **HELLO, "implementation": {**HELLO["implementation"], "build": str(child.pid)}})
        continue
'''
    session = SubprocessAdapter().open(vendor(tmp_path, "    time.sleep(60)\n", hello), SHORT)
    grandchild = int(session.hello().build)
    assert not _gone(grandchild, within=0)
    started = time.monotonic()
    with pytest.raises(VendorFault) as info:
        session.batch("paigow.player_bonus", PAIGOW, [{}])
    assert info.value.kind is FaultKind.TIMEOUT
    assert SHORT.timeout * 0.9 <= time.monotonic() - started < HUNG / 2
    assert not session.alive
    assert _gone(session.pid) and _gone(grandchild)
    session.close()


def test_vendor_that_never_reads_a_large_request_times_out(tmp_path: Path) -> None:
    hello = '''\
    if req["op"] == "hello":
        send({"id": req["id"], **HELLO})
        time.sleep(60)
'''
    session = SubprocessAdapter().open(vendor(tmp_path, "    answer(req)\n", hello), SHORT)
    session.hello()
    started = time.monotonic()
    with pytest.raises(VendorFault) as info:
        session.batch("paigow.player_bonus", PAIGOW, [{"cards": ["As"] * 7}] * 100_000)   # ~3 MB, pipe holds 64 KiB
    assert info.value.kind is FaultKind.TIMEOUT
    assert time.monotonic() - started < HUNG / 2
    assert _gone(session.pid)


def test_vendor_flooding_output_instead_of_reading_is_malformed(tmp_path: Path) -> None:
    hello = '''\
    if req["op"] == "hello":
        send({"id": req["id"], **HELLO})
        sys.stdout.write("x" * (5 << 20)); sys.stdout.flush(); time.sleep(60)
'''
    session = SubprocessAdapter().open(vendor(tmp_path, "    answer(req)\n", hello),
                                       SessionOptions(timeout=600.0, max_line_bytes=1 << 20))
    session.hello()
    started = time.monotonic()
    with pytest.raises(VendorFault) as info:
        session.batch("paigow.player_bonus", PAIGOW, [{"cards": ["As"] * 7}] * 100_000)
    assert info.value.kind is FaultKind.MALFORMED        # by its length: a timeout would be TIMEOUT
    assert time.monotonic() - started < HUNG / 2
    assert _gone(session.pid)


def test_non_json_line_is_malformed(tmp_path: Path) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, "    sys.stdout.write('hand: none\\n'); sys.stdout.flush()\n"))
    assert fault.kind is FaultKind.MALFORMED
    assert "not JSON" in fault.detail


def test_nan_is_not_json(tmp_path: Path) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, "    send({'id': req['id'], 'results': [float('nan'), 1]})\n"))
    assert fault.kind is FaultKind.MALFORMED


def test_wrong_id(tmp_path: Path) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, "    send({'id': req['id'] + 7, 'results': [1, 2]})\n"))
    assert fault.kind is FaultKind.WRONG_ID


def test_wrong_count(tmp_path: Path) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, "    send({'id': req['id'], 'results': [1]})\n"))
    assert fault.kind is FaultKind.WRONG_COUNT
    assert "1 results for 2 cases" in fault.detail


def test_line_cut_off_then_exit_is_a_crash_saying_so(tmp_path: Path) -> None:
    body = "    sys.stdout.write('{\"id\": %d, \"resu' % req['id']); sys.stdout.flush(); os._exit(3)\n"
    fault, _, _ = fault_of(vendor(tmp_path, body))
    assert fault.kind is FaultKind.CRASH
    assert "closed its output 15 bytes into an answer line" in fault.detail
    assert "exited with status 3" in fault.detail


def test_an_answer_naming_another_op_is_wrong_op(tmp_path: Path) -> None:
    body = "    send({'id': req['id'], 'op': 'craps.settle', 'results': [{'hand': 'none'}] * len(req['cases'])})\n"
    fault, _, _ = fault_of(vendor(tmp_path, body))
    assert fault.kind is FaultKind.WRONG_OP
    assert "'craps.settle'" in fault.detail and "paigow.player_bonus" in fault.detail


def test_an_answer_echoing_the_op_asked_is_accepted(tmp_path: Path) -> None:
    body = "    send({'id': req['id'], 'op': req['op'], 'results': [{'hand': 'none'}] * len(req['cases'])})\n"
    session = SubprocessAdapter().open(vendor(tmp_path, body), PROMPT)
    session.hello()
    assert session.batch("paigow.player_bonus", PAIGOW, [{}, {}]) == [{"hand": "none"}] * 2
    session.close()


def test_an_answer_to_a_request_not_sent_is_caught(tmp_path: Path) -> None:
    """A vendor that answers every request twice: the second batch reads the stale extra line."""
    fault, _, _ = fault_of(vendor(tmp_path, "    answer(req); answer(req)\n"), batches=2)
    assert fault.kind is FaultKind.WRONG_ID
    assert "answer id 1, request id 2" in fault.detail


def test_a_hello_answer_to_a_batch_is_malformed(tmp_path: Path) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, "    send({'id': req['id'], **HELLO})\n"))
    assert fault.kind is FaultKind.MALFORMED
    assert "no 'results' list" in fault.detail


@pytest.mark.parametrize("answer, kind", [
    ("{'id': req['id'], 'results': {'0': 1, '1': 2}}", FaultKind.MALFORMED),     # results mistyped
    ("{'id': str(req['id']), 'results': [1, 2]}", FaultKind.WRONG_ID),           # id mistyped
    ("{'results': [1, 2]}", FaultKind.WRONG_ID),                                 # id missing
    ("{'id': req['id']}", FaultKind.MALFORMED),                                  # results missing
    ("[req['id'], [1, 2]]", FaultKind.MALFORMED),                                # not an object
])
def test_a_missing_or_mistyped_answer_field(tmp_path: Path, answer: str, kind: FaultKind) -> None:
    fault, _, _ = fault_of(vendor(tmp_path, f"    send({answer})\n"))
    assert fault.kind is kind


def test_100_mb_in_one_line_is_malformed_at_the_default_limit(tmp_path: Path) -> None:
    body = "    sys.stdout.write('x' * (100 << 20) + '\\n'); sys.stdout.flush(); time.sleep(60)\n"
    fault, _, elapsed = fault_of(vendor(tmp_path, body), SessionOptions(timeout=600.0))
    assert fault.kind is FaultKind.MALFORMED
    assert f"longer than {SessionOptions().max_line_bytes} bytes" in fault.detail
    assert elapsed < HUNG / 2   # found by its length, not by the vendor's sleep nor the timeout


def test_line_over_max_line_bytes_is_malformed_and_killed(tmp_path: Path) -> None:
    body = "    sys.stdout.write('x' * (5 << 20)); sys.stdout.flush(); time.sleep(60)\n"
    fault, _, elapsed = fault_of(vendor(tmp_path, body), SessionOptions(timeout=600.0, max_line_bytes=1 << 20))
    assert fault.kind is FaultKind.MALFORMED
    assert "longer than 1048576 bytes" in fault.detail
    assert elapsed < HUNG / 2   # found by its length, not by the vendor's sleep nor the timeout


def test_endless_stderr_does_not_block_and_its_tail_is_kept(tmp_path: Path) -> None:
    body = '''\
    sys.stderr.write(("noise " * 1000 + "\\n") * 175)
    sys.stderr.write(f"END-{req['id']}\\n")
    sys.stderr.flush()
    answer(req)
'''
    session = SubprocessAdapter().open(vendor(tmp_path, body), SessionOptions(timeout=PROMPT.timeout))
    session.hello()
    for _ in range(3):   # 3 MB of stderr in all; an undrained pipe blocks after 64 KiB
        assert session.batch("paigow.player_bonus", PAIGOW, [{}]) == [{"hand": "none"}]
    session.close()
    tail = session.stderr_tail()
    assert tail.endswith("noise \nEND-3\n")
    assert 4096 < len(tail) <= 8192


def test_no_answer_to_hello(tmp_path: Path) -> None:
    hello = '''\
    if req["op"] == "hello":
        time.sleep(60)
'''
    session = SubprocessAdapter().open(vendor(tmp_path, "    answer(req)\n", hello), SHORT)
    started = time.monotonic()
    with pytest.raises(VendorFault) as info:
        session.hello()
    assert info.value.kind in (FaultKind.TIMEOUT, FaultKind.BAD_HELLO)
    assert time.monotonic() - started < HUNG / 2
    assert _gone(session.pid)


def test_unknown_protocol_answer_is_bad_hello(tmp_path: Path) -> None:
    hello = '''\
    if req["op"] == "hello":
        send({"id": req["id"], "error": {"code": "unsupported_protocol", "message": "I speak v2"}})
        continue
'''
    session = SubprocessAdapter().open(vendor(tmp_path, "    answer(req)\n", hello), PROMPT)
    with pytest.raises(VendorFault) as info:
        session.hello()
    assert info.value.kind is FaultKind.BAD_HELLO
    assert "unsupported_protocol" in info.value.detail
    assert not session.alive and _gone(session.pid)


def test_hello_carries_the_protocol(tmp_path: Path) -> None:
    hello = '''\
    if req["op"] == "hello":
        send({"id": req["id"], **HELLO, "implementation": {**HELLO["implementation"], "build": line.strip()}})
        continue
'''
    session = SubprocessAdapter().open(vendor(tmp_path, "    answer(req)\n", hello), PROMPT)
    build = session.hello().build
    assert build == json.dumps(hello_request(PROTOCOL), separators=(",", ":"))
    assert PROTOCOL == "tablecert-vendor/2" and json.loads(build)["protocols"] == ["tablecert-vendor/2", "tablecert-vendor/1"]
    session.close()


@pytest.mark.parametrize("cmd", ["/nonexistent/tablecert-vendor --serve", "", "vendor 'unbalanced", "__FILE__"])
def test_unstartable_vendor(tmp_path: Path, cmd: str) -> None:
    if cmd == "__FILE__":   # exists, not executable
        script = tmp_path / "vendor.sh"
        script.write_text("#!/bin/sh\n")
        cmd = str(script)
    with pytest.raises(VendorFault) as info:
        SubprocessAdapter().open(cmd, PROMPT)
    assert info.value.kind is FaultKind.START
    assert "\n" not in info.value.detail


def test_environment_process_group_and_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLECERT_VENDOR_LICENCE", "lab-key-42")
    monkeypatch.setenv("TABLECERT_NOT_PASSED", "secret")
    hello = '''\
    if req["op"] == "hello":
        import resource
        facts = {"env": dict(os.environ), "pid": os.getpid(), "pgid": os.getpgid(0), "sid": os.getsid(0),
                 "as": resource.getrlimit(resource.RLIMIT_AS), "core": resource.getrlimit(resource.RLIMIT_CORE),
                 "cpu": resource.getrlimit(resource.RLIMIT_CPU)}
        send({"id": req["id"], **HELLO, "implementation": {**HELLO["implementation"], "build": json.dumps(facts)}})
        continue
'''
    options = SessionOptions(timeout=PROMPT.timeout, pass_env=("TABLECERT_VENDOR_LICENCE", "TABLECERT_UNSET_VARIABLE"),
                             memory_limit_mb=1024, cpu_limit_s=30)
    session = SubprocessAdapter().open(vendor(tmp_path, "    answer(req)\n", hello), options)
    facts = json.loads(session.hello().build)
    session.close()
    assert facts["env"] == {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "TABLECERT_VENDOR_LICENCE": "lab-key-42"}
    assert facts["pid"] == session.pid == facts["pgid"] == facts["sid"]
    assert facts["pgid"] != os.getpgid(0)
    assert facts["as"] == [1024 << 20, 1024 << 20]
    assert facts["core"] == [0, 0]
    assert facts["cpu"][0] == 30


def test_memory_limit_is_enforced(tmp_path: Path) -> None:
    body = "    x = bytearray(600 << 20)\n    answer(req)\n"
    fault, _, _ = fault_of(vendor(tmp_path, body), SessionOptions(timeout=PROMPT.timeout, memory_limit_mb=256))
    assert fault.kind is FaultKind.CRASH
    assert "MemoryError" in fault.stderr_tail


def test_cpu_time_limit_is_enforced(tmp_path: Path) -> None:
    body = "    while True: pass\n"
    started = time.monotonic()
    fault, _, _ = fault_of(vendor(tmp_path, body), SessionOptions(timeout=600.0, cpu_limit_s=1))
    assert fault.kind is FaultKind.CRASH                 # by the CPU limit: the timeout would be TIMEOUT
    assert "SIGXCPU" in fault.detail or "SIGKILL" in fault.detail


# -- python plugins -------------------------------------------------------------------------------


class RaisingVendor(ReferenceVendor):
    def handle(self, request: Any) -> dict[str, Any]:
        if request.get("op") == "paigow.player_bonus":
            raise ValueError("boom")
        return super().handle(request)


class MutatingVendor(ReferenceVendor):
    def handle(self, request: Any) -> dict[str, Any]:
        for case in request.get("cases", []):
            case["cards"] = ["2c"] * 7
        return super().handle(request)


class CachingVendor(ReferenceVendor):
    """Answers a repeated request with the very objects it answered before."""

    def __init__(self) -> None:
        self.cache: dict[str, dict[str, Any]] = {}

    def handle(self, request: Any) -> dict[str, Any]:
        key = json.dumps({**request, "id": None}, sort_keys=True)
        if key not in self.cache:
            self.cache[key] = super().handle(request)
        return {"id": request["id"], **{k: v for k, v in self.cache[key].items() if k != "id"}}


class HangingVendor(ReferenceVendor):
    def handle(self, request: Any) -> dict[str, Any]:
        if request.get("op") != "hello":
            time.sleep(HUNG_IN_PROCESS)
        return super().handle(request)


class TupleVendor(ReferenceVendor):
    def handle(self, request: Any) -> dict[str, Any]:
        if request.get("op") == "hello":
            return super().handle(request)
        return {"id": request["id"], "results": [object() for _ in request["cases"]]}


class FloodingVendor(ReferenceVendor):
    def handle(self, request: Any) -> dict[str, Any]:
        if request.get("op") == "hello":
            return super().handle(request)
        return {"id": request["id"], "results": ["x" * (2 << 20) for _ in request["cases"]]}


def test_python_vendor_answer_over_the_size_limit_is_malformed() -> None:
    session = PythonAdapter().open("test_adapters:FloodingVendor", SessionOptions(timeout=PROMPT.timeout, max_line_bytes=1 << 20))
    session.hello()
    with pytest.raises(VendorFault) as info:
        session.batch(*BATCHES[3])
    assert info.value.kind is FaultKind.MALFORMED
    assert "longer than 1048576 bytes" in info.value.detail
    assert not session.alive


def test_python_vendor_exception_is_a_crash() -> None:
    session = PythonAdapter().open("test_adapters:RaisingVendor", PROMPT)
    session.hello()
    with pytest.raises(VendorFault) as info:
        session.batch(*BATCHES[3])
    assert info.value.kind is FaultKind.CRASH
    assert info.value.detail == "vendor raised ValueError: boom"
    assert "Traceback" in info.value.stderr_tail and "boom" in info.value.stderr_tail
    assert not session.alive


def test_python_vendor_cannot_mutate_the_cases() -> None:
    session = PythonAdapter().open("test_adapters:MutatingVendor", PROMPT)
    op, config, cases = BATCHES[3]
    before = json.dumps(cases)
    results = session.batch(op, config, cases)
    assert json.dumps(cases) == before
    assert results[0]["error"]["code"] == "invalid_hand"   # the vendor saw its own (mutated) copy
    session.close()


def test_python_vendor_keeps_no_reference_into_results() -> None:
    session = PythonAdapter().open("test_adapters:CachingVendor", PROMPT)
    op, config, cases = BATCHES[3]
    first = session.batch(op, config, cases)
    first[0]["hand"] = "tampered"
    assert session.batch(op, config, cases)[0] == {"hand": "royal_flush"}
    session.close()


def test_python_vendor_hang_is_a_timeout() -> None:
    session = PythonAdapter().open("test_adapters:HangingVendor", IN_PROCESS)
    session.hello()
    started = time.monotonic()
    with pytest.raises(VendorFault) as info:
        session.batch(*BATCHES[3])
    assert info.value.kind is FaultKind.TIMEOUT
    assert time.monotonic() - started < HUNG_IN_PROCESS / 2


def test_python_vendor_answer_must_be_json() -> None:
    session = PythonAdapter().open("test_adapters:TupleVendor", PROMPT)
    session.hello()
    with pytest.raises(VendorFault) as info:
        session.batch(*BATCHES[3])
    assert info.value.kind is FaultKind.MALFORMED


@pytest.mark.parametrize("target", ["no-such-plugin", "tablecert.oracle.vendor:NoSuchVendor", "no_such_module:Vendor"])
def test_python_vendor_not_found_is_start(target: str) -> None:
    with pytest.raises(VendorFault) as info:
        PythonAdapter().open(target, PROMPT)
    assert info.value.kind is FaultKind.START


# -- http -------------------------------------------------------------------------------------


def http_fault(vendor_obj: Any, options: SessionOptions = PROMPT, hello: bool = True) -> VendorFault:
    server, url = serve_http(vendor_obj)
    try:
        session = HttpAdapter().open(url, options)
        if hello:
            session.hello()
        with pytest.raises(VendorFault) as info:
            session.batch(*BATCHES[3])
        assert not session.alive
        session.close()
        return info.value
    finally:
        server.shutdown()


def test_http_500_is_malformed() -> None:
    fault = http_fault(RaisingVendor())
    assert fault.kind is FaultKind.MALFORMED
    assert "500" in fault.detail


def test_http_timeout() -> None:
    started = time.monotonic()
    fault = http_fault(HangingVendor(), IN_PROCESS)
    assert fault.kind is FaultKind.TIMEOUT
    assert time.monotonic() - started < HUNG_IN_PROCESS / 2


def test_http_body_over_limit_is_malformed() -> None:
    fault = http_fault(ReferenceVendor(), SessionOptions(timeout=PROMPT.timeout, max_line_bytes=40), hello=False)
    assert fault.kind is FaultKind.MALFORMED
    assert "longer than 40 bytes" in fault.detail


def test_http_server_closed_is_a_crash() -> None:
    server, url = serve_http(ReferenceVendor())
    session = HttpAdapter().open(url, PROMPT)
    session.hello()
    server.shutdown()
    with pytest.raises(VendorFault) as info:
        session.batch(*BATCHES[3])
    assert info.value.kind is FaultKind.CRASH
    session.close()


def test_http_nothing_listening_or_bad_url_is_start() -> None:
    server, url = serve_http(ReferenceVendor())
    server.shutdown()
    for target in (url, "ftp://example.org/vendor", "not a url"):
        with pytest.raises(VendorFault) as info:
            HttpAdapter().open(target, PROMPT)
        assert info.value.kind is FaultKind.START, target


class _RawHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    body = b"this is not json"

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def raw_http(handler: type) -> Iterator[str]:
    """The URL of a real local HTTP server answering with ``handler``, for the time of the block."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/vendor"
    finally:
        server.shutdown()
        server.server_close()


class _DuplicateKeyHandler(_RawHandler):
    body = b'{"id": 0, "ops": [], "implementation": {"name": "n", "version": "v", "build": "b", "name": "m"}}'


@pytest.mark.parametrize("handler, detail", [(_RawHandler, "not JSON"), (_DuplicateKeyHandler, "duplicate key 'name'")])
def test_http_body_not_strict_json_is_malformed(handler: type, detail: str) -> None:
    with raw_http(handler) as url:
        session = HttpAdapter().open(url, PROMPT)
        with pytest.raises(VendorFault) as info:
            session.hello()
        assert info.value.kind is FaultKind.MALFORMED
        assert detail in info.value.detail


def test_serve_http_binds_loopback_only_by_default() -> None:
    with pytest.raises(ValueError):
        serve_http(ReferenceVendor(), host="0.0.0.0")


class _DripHandler(http.server.BaseHTTPRequestHandler):
    """Answers every POST a byte at a time, a byte every 0.2 s (``continues``: first endless
    ``100 Continue`` lines instead)."""

    protocol_version = "HTTP/1.1"
    continues = False

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        body = b'{"id": 0, "ops": [], "implementation": {"name": "n", "version": "v", "build": "b"}}'
        head = b"HTTP/1.1 100 Continue\r\n\r\n" if self.continues else \
            b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)
        try:
            for _ in range(200):                 # 40 s at most
                for byte in head if self.continues else head + body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.2)
                if not self.continues:
                    break
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class _ContinueHandler(_DripHandler):
    continues = True


@pytest.mark.parametrize("handler", [_DripHandler, _ContinueHandler])
def test_http_one_deadline_for_the_whole_answer(handler: type) -> None:
    """A server that drips a byte every 0.2 s (or sends 100 Continue forever) never lets a
    per-read timeout of 1 s pass; the answer's deadline does."""
    with raw_http(handler) as url:
        session = HttpAdapter().open(url, SessionOptions(timeout=1.0))
        started = time.monotonic()
        with pytest.raises(VendorFault) as info:
            session.hello()
        assert info.value.kind is FaultKind.TIMEOUT, info.value
        assert time.monotonic() - started < 20.0         # the drip goes on for 40 s
        assert not session.alive


@pytest.mark.parametrize("text", ['{"id": 0, "id": 1}',
                                  '{"id": 1, "results": [{"total": 5, "total": 7}]}',
                                  '[[{"a": {"b": 1, "c": {"d": 1, "d": 1}}}]]'])
def test_a_key_repeated_at_any_depth_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="duplicate key"):
        decode_answer(text)
    assert decode_answer(text.replace('"id": 1}', '"di": 1}').replace('"total": 7', '"ltot": 7')
                         .replace('"d": 1}', '"e": 1}')) is not None



def test_each_adapter_says_what_of_its_vendor_a_run_binds_and_its_command() -> None:
    """What a run binds and how report.html names the vendor's command come from the adapter
    (BuildSource, since 1.2), never from its name compared outside harness/adapters/."""
    from tablecert.harness.adapters.registry import VendorTarget, command_line
    from tablecert.harness.contract import Binding

    assert [VendorTarget(name, "x").binding() for name in ("subprocess", "python", "http")] == [
        Binding.COMMAND, Binding.PLUGIN, Binding.ARCHIVE]
    assert VendorTarget("http", "x").not_bound() == "the vendor was reached over HTTP: the lab could read none of its files"
    assert command_line("subprocess", ["./my vendor", "--fast"]) == "'./my vendor' --fast"
    assert command_line("subprocess", "./vendor --fast") == "./vendor --fast"
    assert command_line("python", "my_pkg:Vendor") == "tablecert serve-vendor --plugin my_pkg:Vendor"
    assert command_line("python", "a b") == "tablecert serve-vendor --plugin 'a b'"
    assert command_line("http", "http://127.0.0.1:8080") is None
    assert command_line("responses", "answers.jsonl") is None and command_line(None, None) is None
