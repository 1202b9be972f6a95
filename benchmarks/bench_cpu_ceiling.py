"""The machine's own ceiling for running two vendor instances at once, with no harness at all.

The CPU vendor's work (``cpu_vendor.py``: the oracle's pure-Python labels, one hand at a time) is
timed in one process, then in two processes started together, each labelling as many hands as
the single one; on a machine with two free cores both take the same time (speed-up 2.0). The
measured speed-up

    2 * T(one process) / T(two processes at once)

is the most ``--workers 2`` (or a 2-CPU Ray cluster) can reach on this machine for a CPU-bound
vendor, whatever the harness does. The vendors read the harness's own request lines (the first
HANDS hands of ``joker``, both ops) from a file and their answers go to /dev/null. Each
measurement is repeated, one process and two at once alternated, after one unmeasured run, and the
median of each taken (a best-of pairs the luckiest of each kind); run it on a quiet machine.

    python benchmarks/bench_cpu_ceiling.py [--hands 100000] [--repeat 3] [--joker-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablecert.harness.run.hand_batches import HAND_OPS, HandBatch, HandSuite
from tablecert.vectors.suites import generate

VENDOR = Path(__file__).with_name("cpu_vendor.py")

def requests(suite_dir: Path, hands: int, path: Path) -> None:
    """The first ``hands`` hands of the suite as the harness sends them (requests of 1,000 hands,
    both ops), preceded by hello and followed by bye."""
    suite = HandSuite.load(suite_dir)
    fd = os.open(suite.labels_path, os.O_RDONLY)
    lines = [json.dumps({"id": 0, "op": "hello", "protocol": "tablecert-vendor/2"}).encode()]
    try:
        for index in range(0, hands, 1_000):
            hb = HandBatch(suite, fd, index, min(1_000, hands - index))
            lines += [bytes(hb.request_line(op, len(lines))).rstrip(b"\n") for op in HAND_OPS]
    finally:
        os.close(fd)
    lines.append(json.dumps({"id": len(lines), "op": "bye"}).encode())
    path.write_bytes(b"\n".join(lines) + b"\n")


def timed(copies: int, path: Path) -> float:
    """Wall seconds until ``copies`` CPU vendors started together have answered every request of
    ``path`` (answers thrown away)."""
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, str(VENDOR)], stdin=path.open("rb"), stdout=subprocess.DEVNULL)
             for _ in range(copies)]
    for p in procs:
        p.wait()
    return time.perf_counter() - t0


def measure(path: Path, repeat: int) -> tuple[float, float, list[float], list[float]]:
    """(one process, two at once) in seconds, each the median of ``repeat`` runs alternated after
    one unmeasured run (caches), and the runs themselves."""
    timed(1, path)
    ones, twos = [], []
    for _ in range(repeat):
        ones.append(timed(1, path))
        twos.append(timed(2, path))
    return sorted(ones)[len(ones) // 2], sorted(twos)[len(twos) // 2], ones, twos


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--joker-dir", type=Path, help="a generated joker suite (else generated, about 30 s)")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        joker = args.joker_dir
        if joker is None:
            joker = Path(tmp) / "joker"
            generate("joker", joker)
        path = Path(tmp) / "requests.jsonl"
        requests(joker, args.hands, path)
        one, two, _, _ = measure(path, args.repeat)
    print(json.dumps({"cpus": os.cpu_count(), "load_before": load, "hands_per_process": args.hands,
                      "one_process_s": round(one, 2), "two_at_once_s": round(two, 2),
                      "ceiling_speed_up": round(2 * one / two, 2)}, indent=2))


if __name__ == "__main__":
    main()
