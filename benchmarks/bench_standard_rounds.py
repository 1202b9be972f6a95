"""What ``standard``'s round part (op ``craps.round``, issue 24) costs: its share of the suite's
generation and of the reference vendor's certify run (the aim: at most about 10 % of the run).

    python benchmarks/bench_standard_rounds.py [--repeat 2]

* Generation: ``generate("standard", ...)``, the round part timed from the progress line that
  starts its vector set to the end of its writing (wall seconds).
* Certify: the reference vendor as a subprocess (``tablecert reference-vendor``), batches of
  1,000, on the whole suite and on the round part alone (its files copied with their manifest
  entries), alternately ``--repeat`` times; wall seconds and CPU seconds (the harness process and
  the vendor process it reaped), since on a shared machine the wall clock also counts the others.
"""

from __future__ import annotations

import argparse
import resource
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_judging import load  # noqa: E402

from tablecert.harness.adapters import VendorTarget  # noqa: E402
from tablecert.harness.contract import SessionOptions  # noqa: E402
from tablecert.harness.run.runner import Runner  # noqa: E402
from tablecert.vectors.suites import MANIFEST, generate, manifest_bytes, manifest_of  # noqa: E402

OP = "craps.round"


def generation(out: Path) -> dict:
    marks: list[tuple[float, str]] = []
    start = time.perf_counter()
    manifest = generate("standard", out, progress=lambda what: marks.append((time.perf_counter(), what)))
    end = time.perf_counter()
    rounds = [t for t, what in marks if what.startswith(OP)]
    later = [t for t, _ in marks if rounds and t > rounds[0]]
    part = (min(later) if later else end) - rounds[0]
    n = sum(f["numberOfTests"] for f in manifest["files"] if f["op"] == OP and f["view"] == "prompt")
    print(f"generate standard: {end - start:.1f} s wall, {manifest['numberOfTests']:,} vectors; its round part "
          f"{n:,} rounds in {part:.1f} s ({part / (end - start):.1%})   {load()}")
    return manifest


def round_part(suite: Path, manifest: dict, out: Path) -> Path:
    """The round files of a generated suite, with a manifest of their entries only."""
    entries = [f for f in manifest["files"] if f["op"] == OP]
    for f in entries:
        (out / f["path"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(suite / f["path"], out / f["path"])
    part = manifest_of(manifest["suite"], manifest["profile"]["id"], manifest["profile"]["sha256"],
                       tuple(manifest["views"]), entries)
    (out / MANIFEST).write_bytes(manifest_bytes(part))
    return out


def certify(suite: Path, out: Path) -> tuple[float, float, str, int]:
    command = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
    target = VendorTarget("subprocess", command, SessionOptions(timeout=120))
    before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = Runner(target.opener(), suite, out, batch_size=1000).run()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before))
    return wall, cpu, result.verdict, sum(result.totals.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-standard-rounds-") as tmp:
        suite = Path(tmp) / "standard"
        manifest = generation(suite)
        part = round_part(suite, manifest, Path(tmp) / "part")
        for i in range(args.repeat):
            whole = certify(suite, Path(tmp) / f"run-whole-{i}")
            rounds = certify(part, Path(tmp) / f"run-part-{i}")
            print(f"certify standard: {whole[0]:.1f} s wall, {whole[1]:.1f} s CPU, {whole[3]:,} vectors, {whole[2]}; "
                  f"its round part alone: {rounds[0]:.2f} s wall, {rounds[1]:.2f} s CPU, {rounds[3]:,} rounds, "
                  f"{rounds[2]} ({rounds[0] / whole[0]:.1%} of the wall, {rounds[1] / whole[1]:.1%} of the CPU)   "
                  f"{load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
