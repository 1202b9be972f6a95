"""Vendor starter kits: each kit's build time, and the vectors per second its worked example
answers on ``standard``'s ``craps.settle`` vectors against the reference vendor's, in the same run.

    python benchmarks/bench_kits.py [--suite-dir DIR] [--rounds 3] [--kits cpp,csharp,java,typescript]

* Build: ``tablecert kit LANG`` into a fresh folder, then the kit's build commands (as
  tests/kit_checks.py runs them), timed by the wall clock (the machine's load is printed beside).
* Speed: every settle request of the suite (one per group of up to 1,000 cases, 424,351 cases) is
  written to the vendor's stdin by a thread while its answers are read; the time runs from the
  first request to the last answer (the vendor's start and hello excluded). Every vendor runs
  unconfined (``python -m tablecert.oracle.vendor`` for the reference, its fastest start) and the
  vendors are alternated ``--rounds`` times; the median is shown. Every answer is compared with
  the suite's expected view (outside the timing): a wrong answer stops the benchmark.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from kit_checks import KITS  # noqa: E402  (the kits' build and run commands, one source)

from tablecert.vectors.suites import generate  # noqa: E402

HELLO = json.dumps({"id": 0, "op": "hello", "protocol": "tablecert-vendor/2", "protocols": ["tablecert-vendor/2"]})


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def settle_requests(suite: Path) -> tuple[list[bytes], list[list[dict]]]:
    """The request lines of every craps.settle group (at most 1,000 cases each) and their expected results."""
    lines: list[bytes] = []
    expected: list[list[dict]] = []
    for prompt in sorted((suite / "prompt").glob("craps.settle.*.jsonl.gz")):
        with gzip.open(prompt, "rt") as p, gzip.open(suite / "expected" / prompt.name, "rt") as e:
            config, cases, answers = None, [], []
            for pl, el in zip(p, e):
                pr, ex = json.loads(pl), json.loads(el)
                if pr["type"] in ("group", "footer") and cases:
                    for start in range(0, len(cases), 1000):
                        lines.append(json.dumps({"id": len(lines) + 1, "op": "craps.settle", "config": config,
                                                 "cases": cases[start:start + 1000]}).encode() + b"\n")
                        expected.append(answers[start:start + 1000])
                    cases, answers = [], []
                if pr["type"] == "group":
                    config = pr["config"]
                elif pr["type"] == "test":
                    cases.append(pr["case"])
                    answers.append(ex["expected"])
    return lines, expected


def same(answer: object, expected: dict) -> bool:
    """The harness's rule for one result (the expected view's ``{"result": ...}`` or ``{"error":
    CODE}``): equal, errors by their code only."""
    if "error" in expected:
        return isinstance(answer, dict) and isinstance(answer.get("error"), dict) \
            and answer["error"].get("code") == expected["error"]
    return json.dumps(answer, sort_keys=True) == json.dumps(expected["result"], sort_keys=True)


def measure(argv: list[str], cwd: Path, lines: list[bytes], expected: list[list[dict]]) -> float:
    """Seconds from the first settle request to the last answer; checks every answer."""
    vendor = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert vendor.stdin and vendor.stdout
    vendor.stdin.write(HELLO.encode() + b"\n")
    vendor.stdin.flush()
    json.loads(vendor.stdout.readline())

    def feed() -> None:
        for line in lines:
            vendor.stdin.write(line)
        vendor.stdin.write(b'{"id": -1, "op": "bye"}\n')
        vendor.stdin.flush()

    start = time.perf_counter()
    writer = threading.Thread(target=feed)
    writer.start()
    answers = [vendor.stdout.readline() for _ in lines]
    seconds = time.perf_counter() - start
    writer.join()
    vendor.wait(timeout=60)
    for line, want in zip(answers, expected):
        got = json.loads(line)["results"]
        bad = next((i for i, (a, e) in enumerate(zip(got, want)) if not same(a, e)), None)
        if len(got) != len(want) or bad is not None:
            raise SystemExit(f"{' '.join(argv)}: wrong answer in {line[:200]!r}")
    return seconds


def build(lang: str, parent: Path) -> tuple[Path, float]:
    folder = parent / lang
    subprocess.run([sys.executable, "-m", "tablecert", "kit", lang, "--out", str(folder)], check=True,
                   capture_output=True)
    start = time.perf_counter()
    for command in KITS[lang].build:
        subprocess.run(command, cwd=folder, check=True, capture_output=True)
    return folder, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite-dir", type=Path, help="a generated standard suite (default: generate one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kits", default=",".join(KITS))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-kits-"))
    try:
        suite = args.suite_dir
        if suite is None:
            suite = work / "standard"
            generate("standard", suite)
        lines, expected = settle_requests(suite)
        cases = sum(len(e) for e in expected)
        print(f"standard: {cases:,} craps.settle cases in {len(lines):,} requests")
        vendors: dict[str, tuple[list[str], Path]] = {
            "reference": ([sys.executable, "-m", "tablecert.oracle.vendor"], work)}
        for lang in args.kits.split(","):
            print(f"building {lang} ({load()})", flush=True)
            folder, seconds = build(lang, work)
            print(f"  {lang}: built in {seconds:.1f} s ({load()})", flush=True)
            vendors[lang] = ([str(folder / a) if (folder / a).exists() else a for a in KITS[lang].example], folder)
        times: dict[str, list[float]] = {name: [] for name in vendors}
        for round_ in range(args.rounds):
            for name, (argv, cwd) in vendors.items():
                times[name].append(measure(argv, cwd, lines, expected))
                print(f"  round {round_ + 1} {name}: {times[name][-1]:.2f} s ({load()})", flush=True)
        reference = cases / statistics.median(times["reference"])
        print(f"\n{'vendor':<12} {'median s':>9} {'vectors/s':>10} {'x reference':>12}")
        for name, seconds in times.items():
            rate = cases / statistics.median(seconds)
            print(f"{name:<12} {statistics.median(seconds):>9.2f} {rate:>10,.0f} {rate / reference:>12.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
