"""Throughput of the vendor adapters: cases per second through each transport.

    python benchmarks/bench_adapters.py [--cases 100000] [--batch 1000]

Each adapter runs ``--cases`` ``paigow.player_bonus`` cases (random seven-card hands, the joker
included) in batches of ``--batch`` against two vendors:

* the reference vendor (the oracle: every hand is really evaluated, so the vendor's own speed
  bounds the rate), and
* a null vendor that answers ``{"hand": "none"}`` per case without evaluating anything (the
  subprocess one without even parsing the request), which shows what the adapter itself can
  carry: the harness's own ``json.dumps`` of the request and ``json.loads`` of the answer.

The in-process rate of ``ReferenceVendor.handle`` with no adapter at all is printed first, as the
ceiling for the reference rows. Every reference answer is checked against that in-process run.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tablecert.harness.adapters.http_adapter import HttpAdapter
from tablecert.harness.adapters.http_server import serve_http
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.oracle.vendor import ReferenceVendor

OP = "paigow.player_bonus"
CONFIG = {"cap": 4_000_000}
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"] + ["JK"]

# Answers without parsing JSON (the id by a regex, one result per case by counting), so the
# subprocess rows measure the adapter rather than the vendor's JSON work. It relies on the
# adapter's compact encoding.
NULL_VENDOR_SCRIPT = r'''
import re, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
ID = re.compile(rb'"id":(\d+)')
HELLO = b'"implementation":{"name":"null","version":"0","build":"0"},"ops":["paigow.player_bonus"]'
for line in inp:
    rid = ID.search(line).group(1)
    if b'"op":"hello"' in line:
        body = b'{"id":' + rid + b',' + HELLO + b'}'
    elif b'"op":"bye"' in line:
        out.write(b'{"id":' + rid + b'}\n'); out.flush(); break
    else:
        body = b'{"id":' + rid + b',"results":[' + b",".join([b'{"hand":"none"}'] * line.count(b'{"cards":')) + b']}'
    out.write(body + b"\n"); out.flush()
'''


class NullVendor:
    """Answers every case ``{"hand": "none"}``: measures the transport, not the game."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request["op"] == "hello":
            return {"id": request["id"], "implementation": {"name": "null", "version": "0", "build": "0"},
                    "ops": [OP]}
        if request["op"] == "bye":
            return {"id": request["id"]}
        return {"id": request["id"], "results": [{"hand": "none"} for _ in request["cases"]]}


def make_cases(n: int, seed: int = 2024) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [{"cards": rng.sample(DECK, 7)} for _ in range(n)]


def run(adapter: Any, target: str, cases: list[Any], batch: int) -> tuple[float, float, list[Any]]:
    """(seconds to open and hello, cases per second of the batches, all results)."""
    start = time.perf_counter()
    session = adapter.open(target, SessionOptions(timeout=120.0))
    session.hello()
    opened = time.perf_counter() - start
    results: list[Any] = []
    start = time.perf_counter()
    for i in range(0, len(cases), batch):
        results += session.batch(OP, CONFIG, cases[i:i + batch])
    rate = len(cases) / (time.perf_counter() - start)
    session.close()
    return opened, rate, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--reference-cmd", default=shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"]),
                        help="command line of the reference vendor process")
    args = parser.parse_args(argv)
    cases = make_cases(args.cases)

    vendor = ReferenceVendor()
    start = time.perf_counter()
    truth: list[Any] = []
    for i in range(0, len(cases), args.batch):
        truth += vendor.handle({"id": 1, "op": OP, "config": CONFIG, "cases": cases[i:i + args.batch]})["results"]
    direct = len(cases) / (time.perf_counter() - start)
    print(f"{args.cases:,} {OP} cases, batches of {args.batch}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print(f"{'ReferenceVendor.handle, no adapter':<44} {'':>10} {direct:>12,.0f} cases/s")

    with tempfile.TemporaryDirectory() as tmp:
        null_script = Path(tmp) / "null_vendor.py"
        null_script.write_text(NULL_VENDOR_SCRIPT)
        ref_server, ref_url = serve_http(ReferenceVendor())
        null_server, null_url = serve_http(NullVendor())
        rows = [
            ("subprocess", "reference", SubprocessAdapter(), args.reference_cmd),
            ("python", "reference", PythonAdapter(), "reference"),
            ("http", "reference", HttpAdapter(), ref_url),
            ("subprocess", "null", SubprocessAdapter(), shlex.join([sys.executable, str(null_script)])),
            ("python", "null", PythonAdapter(), f"{__name__}:NullVendor"),
            ("http", "null", HttpAdapter(), null_url),
        ]
        try:
            for adapter_name, vendor_name, adapter, target in rows:
                opened, rate, results = run(adapter, target, cases, args.batch)
                check = ""
                if vendor_name == "reference":
                    check = "answers = oracle" if results == truth else "ANSWERS DIFFER FROM THE ORACLE"
                print(f"{adapter_name + ' / ' + vendor_name + ' vendor':<44} open {opened:5.2f} s "
                      f"{rate:>12,.0f} cases/s  {check}")
        finally:
            ref_server.shutdown()
            null_server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
