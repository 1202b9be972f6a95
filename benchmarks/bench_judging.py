"""Judging speed with an instant vendor: answers per second when the vendor formats its answers
like ``json.dumps`` (spaces after ``:`` and ``,``, keys in another order), next to the
byte-identical formatting and to the strict case-by-case path.

    python benchmarks/bench_judging.py [--hands 1000000] [--strict-hands 100000]
                                       [--joker-dir DIR] [--standard-dir DIR] [--only hands|settle]
                                       [--settle-batch 1000] [--repeat 1]

The vendors answer from canned replies (the suite's expected answers, written out before the
clock starts), so the figures are the harness's own cost: sending, reading, decoding, judging
and, for the hand suites, recording.

* Hand suites: ``--hands`` hands of ``joker`` (both ops: twice as many answers) through the whole
  :class:`~tablecert.harness.run.runner.Runner` (each commit checkpointed by a run key, as ``certify``
  runs it), in requests of 20,000 hands, with a canned vendor as a
  subprocess (compact lines: the byte-identical path; spaced lines: the bulk judge; spaced lines
  with the bulk judge switched off: the strict path, on ``--strict-hands`` hands) and as a Python
  plugin (its answers are Python values).
* Settle vectors: every ``craps.settle`` and ``paigow.settle`` vector of ``standard``, read into
  memory first in batches of ``--settle-batch`` (1,000: the runner's default; kept out of the garbage collector's way: ``gc.freeze``), then sent and judged batch by batch as the runner does it,
  through the run pipeline (:func:`tablecert.harness.run.judging.judge` on a vendor instance: the
  raw answer line for the subprocess adapter, ``session.batch`` for a plugin). Every row is a cold
  single pass, as a run makes it: each batch's capabilities are marked again in its first judging.
  Reading the suite is timed on its own line. Each row also gives the harness's own CPU time (its
  process: the vendor runs in another), steadier than the wall time on a loaded machine.

A hand row's run lasts well under a second and swings up to 2x from run to run on a shared
2-core machine: ``--repeat 7`` runs each hand row seven times and shows the median (the best in
brackets); compare two versions by their medians, measured alternately on a quiet machine.

``--joker-dir`` / ``--standard-dir`` reuse generated suites; otherwise they are generated into a
temporary folder (about 30 s and 2.5 min). The machine's load average is printed with each row.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.harness.answers import bulk as bulk_judge
from tablecert.harness.record.chain import Checkpoints

from tablecert.harness.adapters.python_adapter import PythonSession
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.hand_batches import HAND_OPS, HandSuite, iter_hand_batches
from tablecert.harness.instance.recovery import FaultPolicy
from tablecert.harness.instance.vendor_instance import VendorInstance, identity_of
from tablecert.harness.run.judging import judge
from tablecert.harness.run.runner import Runner
from tablecert.harness.suites.reader import iter_batches
from tablecert.vectors.suites import generate

SETTLE_OPS = ("craps.settle", "paigow.settle")
HAND_BATCH = 20_000
SETTLE_BATCH = 1_000

# Answers every request with the next canned reply (its id put in place of @ID@), without
# parsing anything: the harness's cost, not the vendor's.
CANNED_VENDOR = r'''
import re, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
ID = re.compile(rb'"id":(\d+)')
with open(sys.argv[1], "rb") as f:
    canned = [line.split(b"@ID@") for line in f.read().split(b"\n") if line]
hello = (b'"protocol": "tablecert-vendor/2", "implementation": {"name": "canned", "version": "0", "build": "0"}, '
         b'"ops": ' + sys.argv[2].encode())
k = 0
for line in inp:
    rid = ID.search(line, 0, 64).group(1)
    head = line[:64]
    if b'"op":"hello"' in head:
        body = b'{' + hello + b', "id": ' + rid + b'}'
    elif b'"op":"bye"' in head:
        out.write(b'{"id": ' + rid + b'}\n'); out.flush(); break
    else:
        before, after = canned[k]
        k += 1
        body = before + rid + after
    out.write(body + b"\n"); out.flush()
'''


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def reverse_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: reverse_keys(value[k]) for k in reversed(list(value))}
    return [reverse_keys(v) for v in value] if isinstance(value, list) else value


def answer_template(results: list[Any], spaced: bool) -> bytes:
    """A canned answer line with ``@ID@`` for its id: compact (the byte-identical formatting)
    or as ``json.dumps`` writes it with the keys reversed (``results`` before ``id``)."""
    if spaced:
        return b'{"results": ' + json.dumps(reverse_keys(results)).encode() + b', "id": @ID@}'
    return b'{"id":@ID@,"results":' + json.dumps(results, separators=(",", ":")).encode() + b'}'


def answers_of(expected: list[dict[str, Any]]) -> list[Any]:
    """What a correct vendor answers: the result, or a rejection with a free message."""
    return [e["result"] if "result" in e else {"error": {"code": e["error"], "message": "refused: see the rules"}}
            for e in expected]


class CannedPlugin:
    """A Python vendor answering from canned results (Python values, keys put in another order as
    it answers: copying them in advance would hold millions of dicts)."""

    def __init__(self, canned: list[list[Any]], ops: list[str]) -> None:
        self.canned, self.ops, self.k = canned, ops, 0

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request["op"] == "hello":
            return {"ops": self.ops, "implementation": {"name": "canned", "version": "0", "build": "0"},
                    "protocol": "tablecert-vendor/2", "id": request["id"]}
        if request["op"] == "bye":
            return {"id": request["id"]}
        self.k += 1
        return {"results": reverse_keys(self.canned[self.k - 1]), "id": request["id"]}


@contextmanager
def strict_only() -> Iterator[None]:
    """The bulk judge switched off: every answer decoded strictly and judged case by case."""
    saved = bulk_judge.confirms_line, bulk_judge.confirms_values
    never: Callable[..., bool] = lambda *a: False  # noqa: E731
    bulk_judge.confirms_line = bulk_judge.confirms_values = never      # the run pipeline's one bulk judge
    try:
        yield
    finally:
        bulk_judge.confirms_line, bulk_judge.confirms_values = saved


def subprocess_opener(tmp: Path, name: str, templates: list[bytes], ops: list[str]) -> Callable[[], Any]:
    script, replies = tmp / "canned_vendor.py", tmp / f"{name}.replies"
    script.write_text(CANNED_VENDOR)
    replies.write_bytes(b"\n".join(templates) + b"\n")
    target = shlex.join([sys.executable, str(script), str(replies), json.dumps(ops)])
    adapter = SubprocessAdapter()
    return lambda: adapter.open(target, SessionOptions(timeout=300))


def vendors(tmp: Path, name: str, answers: list[list[Any]], ops: list[str]) -> dict[str, Callable[[], Any]]:
    """Openers of the canned vendors giving ``answers`` (one list per request): a subprocess
    writing compact lines, one writing spaced lines, and a Python plugin."""
    def plugin() -> PythonSession:
        return PythonSession(CannedPlugin(answers, ops), "canned", SessionOptions(timeout=300))
    return {"compact": subprocess_opener(tmp, f"{name}-compact", [answer_template(a, False) for a in answers], ops),
            "spaced": subprocess_opener(tmp, f"{name}-spaced", [answer_template(a, True) for a in answers], ops),
            "plugin": plugin}


# -- hand suites ---------------------------------------------------------------------------------

def hand_answers(suite: HandSuite, hands: int) -> list[list[Any]]:
    """The right answers, one list per request, to the first ``hands`` hands of ``suite`` in
    requests of :data:`HAND_BATCH` hands (the canned vendors give them in this order)."""
    fd = os.open(suite.labels_path, os.O_RDONLY)
    results: list[list[Any]] = []
    shared: dict[Any, Any] = {}
    try:
        for hb in iter_hand_batches(suite, fd, HAND_BATCH, 0, hands):
            for op in HAND_OPS:
                labels = json.loads(hb.expected_line(op, 0))["results"]
                results.append([shared.setdefault(r["hand"], r) for r in labels])
    finally:
        os.close(fd)
    return results


def hand_rows(joker: Path, hands: int, strict_hands: int, tmp: Path, repeat: int = 1) -> None:
    suite = HandSuite.load(joker)
    results = hand_answers(suite, hands)
    ops = list(HAND_OPS)
    print(f"\njoker: the first {hands:,} hands ({2 * hands:,} answers), requests of {HAND_BATCH:,} hands, "
          f"through the whole Runner" + (f"; each row the median of {repeat} runs (best in brackets)" if repeat > 1 else ""))
    v = vendors(tmp, "hands", results, ops)
    rows = [("subprocess, compact (byte-identical)", v["compact"], hands, False),
            ("subprocess, spaced (bulk judge)", v["spaced"], hands, False),
            ("python plugin, values (bulk judge)", v["plugin"], hands, False),
            # its own canned vendor: the strict row's requests hold fewer hands (``--strict-hands``)
            ("subprocess, spaced (strict path only)", vendors(tmp, "hands-strict", hand_answers(suite, strict_hands), ops)["spaced"],
             strict_hands, True)]
    for name, opener, n, strict in rows:
        runs = []
        for _ in range(repeat):
            out = tmp / f"run-{name.split(',')[0]}-{len(os.listdir(tmp))}"
            run = Runner(opener, joker, out, hand_batch_size=HAND_BATCH, max_hands=n,
                         checkpoints=Checkpoints(Ed25519PrivateKey.generate()))     # as certify runs it
            with strict_only() if strict else _nothing():
                result = run.run()
            assert result.totals["pass"] == 2 * n and result.totals["fail"] == 0, result.totals
            runs.append(result.stats)
        runs.sort(key=lambda st: st.run_s)
        s = runs[len(runs) // 2]            # the median run (the upper one of an even count)
        best = f" ({2 * n / runs[0].run_s:,.0f})" if repeat > 1 else ""
        requests = 2 * -(-n // HAND_BATCH)
        print(f"  {name:<40} {2 * n / s.run_s:>12,.0f}{best} answers/s   judging alone {2 * n / (s.judge_s + s.fallback_s):>12,.0f}/s"
              f"   requests: {s.fast_passes} byte-identical, {s.bulk_passes} bulk, "
              f"{requests - s.fast_passes - s.bulk_passes} strict   {load()}")
        print(f"  {'':<40} seconds: run {s.run_s:.2f}, exchange {s.exchange_s:.2f}, judging {s.judge_s + s.fallback_s:.2f}, "
              f"recording {s.record_s:.2f}, waiting for the next batch {s.prefetch_wait_s:.2f}")


# -- settle vectors ------------------------------------------------------------------------------

def settle_rows(standard: Path, tmp: Path, size: int) -> None:
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    batches = [b for b in iter_batches(standard, size) if b.op in SETTLE_OPS]
    read_s, read_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    n = sum(len(b.cases) for b in batches)
    answers = [answers_of(b.expected) for b in batches]
    gc.freeze()     # the 400,000 vectors held here (a run streams them) are not scanned by every collection
    ops = list(SETTLE_OPS)
    print(f"\nstandard: {n:,} settle vectors ({', '.join(f'{sum(len(b.cases) for b in batches if b.op == op):,} {op}' for op in ops)}) "
          f"in {len(batches):,} batches of up to {size:,}")
    print(f"  {'reading the whole suite (all ops)':<40} {read_s:>10.1f} s, CPU {read_cpu:.1f} s (not in the rows below)")
    v = vendors(tmp, "settle", answers, ops)
    rows = [("subprocess, compact", v["compact"], False, True),
            ("subprocess, spaced (bulk judge)", v["spaced"], False, True),
            ("subprocess, spaced (strict path only)", v["spaced"], True, True),
            ("python plugin, values (bulk judge)", v["plugin"], False, False),
            ("python plugin, values (strict only)", v["plugin"], True, False)]
    for name, opener, strict, raw in rows:
        for b in batches:
            b.features = b.outside = None        # marked again, as in a run
        session = opener()
        instance = VendorInstance(opener, FaultPolicy(), began=identity_of(session.hello()), session=session)
        exchange = timed(session, "batch_raw" if raw else "batch")
        passed = 0
        with strict_only() if strict else _nothing():
            cpu0 = time.process_time()
            t0 = time.perf_counter()
            for b in batches:
                outcome = judge(instance, b)
                passed += sum(k for (dim, _, result), k in outcome.counts.items() if dim == "op" and result == "pass")
            elapsed = time.perf_counter() - t0
            cpu = time.process_time() - cpu0
        session.close()
        assert passed == n, (name, passed, n)
        st = instance.stats
        judging = elapsed - exchange[0]
        print(f"  {name:<40} {n / elapsed:>12,.0f} answers/s   judging alone {n / judging:>12,.0f}/s   batches: "
              f"{st.lines_confirmed + st.values_confirmed} bulk, {len(batches) - st.lines_confirmed - st.values_confirmed} "
              f"strict   {load()}")
        print(f"  {'':<40} seconds: {elapsed:.2f}, of which sending, the vendor and reading {exchange[0]:.2f}; "
              f"harness CPU {cpu:.2f} ({n / cpu:,.0f} answers per CPU second)")


def timed(session: Any, method: str) -> list[float]:
    """Wrap ``session.<method>`` (the exchange: encoding, sending, the vendor, reading; for a
    plugin also the strict decoding of its answer) so that its seconds add up in the list returned."""
    spent = [0.0]
    call = getattr(session, method)

    def wrapper(*args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return call(*args)
        finally:
            spent[0] += time.perf_counter() - t0
    setattr(session, method, wrapper)
    return spent


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--strict-hands", type=int, default=100_000)
    parser.add_argument("--joker-dir", type=Path)
    parser.add_argument("--standard-dir", type=Path)
    parser.add_argument("--settle-batch", type=int, default=SETTLE_BATCH, help="cases per settle request")
    parser.add_argument("--only", choices=("hands", "settle"), help="measure one part only")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each hand row, the median shown (default 1)")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs, {load()}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.only != "settle":
            joker = args.joker_dir or tmp / "joker"
            if args.joker_dir is None:
                generate("joker", joker)
            hand_rows(joker, args.hands, args.strict_hands, tmp, args.repeat)
        if args.only != "hands":
            standard = args.standard_dir or tmp / "standard"
            if args.standard_dir is None:
                generate("standard", standard)
            settle_rows(standard, tmp, args.settle_batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
