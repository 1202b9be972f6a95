"""What authenticating the vendor's build costs (issue 49): digesting a build at rest, and the
re-check a live-table restart adds.

    python benchmarks/bench_build_digest.py [--gib 1] [--venv-files 5000] [--repeat 3] [--keep DIR]

Three builds, each digested as certify digests the vendor's tree
(:func:`tablecert.harness.confine.build_files.digest_build`: every file opened without following a
link, read in 1 MiB chunks, SHA-256): the reference vendor's tree (the folders the harness's own
packages are imported from, what ``tablecert reference-vendor`` runs), a venv-like tree of
``--venv-files`` small files (2 to 40 KiB, in 50 packages of 100 modules), and a build of
``--gib`` GiB (eight large files). Each is digested ``--repeat`` times after one warm-up read
(the page cache holds the files: the figure is the hashing and the reads through the kernel, not
the disk), best and median wall and MB/s reported; beside them hashlib's SHA-256 alone over 256 MiB
in memory (the ceiling). Then the re-check a live restart does, best and median over 20 runs:
the time each cut of a live table adds: as certify does it, the watch
(:class:`tablecert.harness.confine.build_watch.BuildWatch`, set before the digest) drained and
nothing read when no event came; and without a watch (what a build the watch cannot vouch for
costs: :func:`tablecert.harness.confine.build_files.recheck`, a stat of every entry, no file read
when none moved). The
machine's load (1-minute average) is printed with each figure: the figures are walls, and a busy
machine makes them longer.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tablecert.harness.confine.build_files import digest_build, recheck
from tablecert.harness.confine.build_watch import BuildWatch
from tablecert.harness.confine.vendor_trees import own_source_trees

MIB = 1 << 20


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def venv_tree(folder: Path, files: int) -> Path:
    """A venv-like tree: ``files`` modules of 2 to 40 KiB in packages of 100 (deterministic bytes)."""
    block = bytes(range(256)) * 160                     # 40 KiB
    for i in range(files):
        package = folder / "lib" / "python3.11" / "site-packages" / f"package_{i // 100:03d}"
        package.mkdir(parents=True, exist_ok=True)
        size = 2048 + (i * 7919) % (40 * 1024 - 2048)
        (package / f"module_{i % 100:03d}.py").write_bytes(i.to_bytes(4, "big") + block[:size - 4])
    return folder


def big_tree(folder: Path, gib: float) -> Path:
    """Eight files making ``gib`` GiB (each a repeated random MiB, made once)."""
    folder.mkdir(parents=True, exist_ok=True)
    each = int(gib * 1024 / 8)
    chunk = os.urandom(MIB)
    for i in range(8):
        with open(folder / f"engine-{i}.bin", "wb") as f:
            for j in range(each):
                f.write(chunk[j % 251:] + chunk[:j % 251])
    return folder


def timed(run: Callable[[], object], repeat: int) -> list[float]:
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        walls.append(time.perf_counter() - start)
    return walls


def report(name: str, roots: list[str], repeat: int) -> None:
    listing = digest_build(roots, [])                  # warm-up: the files in the page cache
    size = listing.total_bytes
    walls = timed(lambda: digest_build(roots, []), repeat)
    best, median = min(walls), statistics.median(walls)
    print(f"{name}: {len(listing.files):,} files, {size / MIB:,.1f} MiB: digest best {best * 1000:,.1f} ms "
          f"({size / MIB / best:,.0f} MB/s), median {median * 1000:,.1f} ms ({size / MIB / median:,.0f} MB/s); "
          f"{load()}", flush=True)
    watch = BuildWatch.on(roots)
    try:
        listing = digest_build(roots, [])               # after the watch, as certify digests
        watched = timed(lambda: recheck(listing, watch.named()), 20)
        assert watch.why_not is None, watch.why_not
    finally:
        watch.close()
    walked = timed(lambda: recheck(listing), 20)
    print(f"  a live restart's re-check: watched, best {min(watched) * 1000:.3f} ms, median "
          f"{statistics.median(watched) * 1000:.3f} ms per cut; without a watch (a stat of every file), best "
          f"{min(walked) * 1000:.2f} ms, median {statistics.median(walked) * 1000:.2f} ms; {load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--venv-files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="make the trees here (default: a temporary folder, removed)")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-build-"))
    try:
        data = os.urandom(MIB) * 256
        walls = timed(lambda: hashlib.sha256(data).digest(), args.repeat)
        print(f"hashlib sha256 alone, 256 MiB in memory: {256 / min(walls):,.0f} MB/s best; {load()}", flush=True)
        report("the reference vendor's tree", own_source_trees(), args.repeat)
        venv = base / "venv"
        if not venv.exists():
            venv_tree(venv, args.venv_files)
        report(f"a venv of {args.venv_files:,} files", [str(venv)], args.repeat)
        big = base / "big"
        if not big.exists():
            big_tree(big, args.gib)
        report(f"a build of {args.gib:g} GiB", [str(big)], args.repeat)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
