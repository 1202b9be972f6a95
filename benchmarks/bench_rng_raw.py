"""Benchmarks of the raw stream and scaling (``tablecert rng --raw --scaling``).

    python benchmarks/bench_rng_raw.py perf     [--sequences 100 --workers 2]   the 15 tests on 100 x 10^6 bits, collection included
    python benchmarks/bench_rng_raw.py rss      [--bits 10^9 ...]    RSS across stream lengths (collection + hashing)
    python benchmarks/bench_rng_raw.py scaling                       exact analysis of a die and a 53-card shuffle
    python benchmarks/bench_rng_raw.py rates    [--runs 10 --good-runs 100 --sequences 100 --generators ...]
                                             the battery's failure rate, whole, at the default plan: false
                                             failures of a good generator, power against each named defect
    python benchmarks/bench_rng_raw.py deep     [--bits 10^10]       a deep collection's collection + counting speed
    python benchmarks/bench_rng_raw.py catch    [--bits 1.7e11]      issue #35's stuck bit in 1 word in 10^4, caught
    python benchmarks/bench_rng_raw.py repeats  [--good-runs 453]    the repeats member alone on the rates seeds' good streams
    python benchmarks/bench_rng_raw.py repeats-default [--seeds 200 --generators good mt19937]  the member alone at its
                                             default 2^25 + 2 words, on PCG64 and MT19937 from seed 70000: false
                                             repeats, seconds, peak RSS
    python benchmarks/bench_rng_raw.py default  the whole default command against the reference vendor, timed with
                                             --raw-repeat-words 0 (1.1's collection) and without (the default)
    python benchmarks/bench_rng_raw.py paired   [--runs 200]         the dealt-stream family's false failures on PCG64
    python benchmarks/bench_rng_raw.py false    [--seeds 200 --state F]  the whole battery on PCG64 and MT19937, seeds 60000..,
                                             one at a time, resumable: the family-wise false-failure rate
    python benchmarks/bench_rng_raw.py exhaustive [--batches 16 --vendor-cmd CMD --state F]
                                             --scaling exhaustive's words a second, extrapolated to 2^32
                                             (--batches 16384: the whole 2^32 sweep and its law)

``perf`` and ``rss`` collect from the reference vendor as a subprocess (``python -m
tablecert.oracle.vendor``, unconfined) through the subprocess adapter, exactly as the command does;
``perf`` times collection and the battery of ``--sequences`` sequences together. ``rss`` collects
each length with the battery's sink replaced by a counter (the battery's cost is per sequence; the
question is whether memory grows with the stream) and prints the process's peak RSS after each.
``scaling`` analyses the reference vendor's die and shuffle through the same adapter. ``rates``
generates words in this process (tests/raw_generators.py: one stream a seed) and runs the whole
battery (the 15 tests and the bit-position member, Holm at family-wise 0.01) on each seed's
collection, through the command's workers; it prints each seed's rejected members and, per
generator, the failure rate with its 95 % interval.
``deep`` collects ``--bits`` (the first length given) from the reference vendor as a deep run
past its tested sequences does: every word hashed and counted by bit position from the packed
words (:meth:`tablecert.rng.bit_positions.BitPositions.add_packed`), nothing unpacked; it prints
bits a second, the counting kernel's own speed and the peak RSS. ``catch`` runs the command
itself, ``tablecert rng --raw BITS --raw-sequences 100`` under ``nice``, once against
tests/raw_vendor.py ``stuck`` (bit 31 stuck at 1 in 1 word in 10^4: must FAIL, the bit-position
member rejected) and once against the reference vendor (must PASS), at the size
``words_to_catch`` gives for 1 word in 10^4 with the 377-member family of 100 sequences
(168,421,960,832 bits; 1.7 x 10^11 by default, 99.1 % power), and prints each one's time,
exit status and rejected members.
Every mode prints the load average, since the machine may be shared.

Measured 2026-12-06, 2-core machine shared with another ``rates`` run (load 5.5-11.1): ``deep``
10^10 bits in 16.7 s (6.0 x 10^8 bits a second, kernel alone 1.0 x 10^10, peak RSS 222 MB);
``catch`` at 1.7 x 10^11 bits (the two commands run once, from a shell, under ``nice -n 10``): the
stuck vendor FAIL (exit 1, only raw.bit_positions.frequency rejected, P = 3.9e-15) in 379 s, the
reference vendor PASS (exit 0, 0 of 377 rejected) in 301 s; details in docs/labs/rng.md, "Deep
collections".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

import raw_generators as g  # noqa: E402

from tablecert.harness.adapters import find_adapter  # noqa: E402
from tablecert.harness.contract import SessionOptions  # noqa: E402
from tablecert.rng import nist  # noqa: E402
from tablecert.rng.bit_positions import BitPositions, words_to_catch  # noqa: E402
from tablecert.rng.plan import ALPHA  # noqa: E402
from tablecert.rng.raw_collect import collect_raw, declaration, scale, scale_packed  # noqa: E402
from tablecert.rng.raw_plan import RawBattery  # noqa: E402
from tablecert.rng.raw_workers import SequenceWorkers, default_workers  # noqa: E402
from tablecert.rng.repeats import Repeats  # noqa: E402

VENDOR = f"{sys.executable} -m tablecert.oracle.vendor"


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def session(vendor: str = VENDOR):  # type: ignore[no-untyped-def]
    s = find_adapter("subprocess").open(vendor, SessionOptions(timeout=600, isolation="none"))
    hello = s.hello()
    return s, declaration(hello.raw, ("rng.raw", "rng.scale"))


def perf(sequences: int, workers: int) -> None:
    RawBattery().add(g.bits(g.good(0, nist.SEQUENCE_BITS // 32)))      # compile the kernels first (cached after)
    cpu = os.times()
    start = time.perf_counter()
    with SequenceWorkers(workers) as pool:
        s, decl = session()
        record = collect_raw(s, decl, sequences * nist.SEQUENCE_BITS, nist.SEQUENCE_BITS,
                             pool.sink(RawBattery(decl.raw_bits)))
        results = pool.finish().results()
        s.close()
    took = time.perf_counter() - start
    used = os.times()
    busy = sum(getattr(used, f) - getattr(cpu, f) for f in ("user", "system", "children_user", "children_system"))
    print(f"perf: {record.sequences} sequences of 10^6 bits collected and tested in {took:.1f} s "
          f"({took / record.sequences:.2f} s a sequence) with {workers} worker(s), {busy:.1f} s of CPU in this "
          f"process and its finished children; {sum(r.rejected for r in results)} of {len(results)} members "
          f"rejected; {load()}")


def rss(lengths: list[int]) -> None:
    s, decl = session()
    for bits in lengths:
        start = time.perf_counter()
        seen = [0]
        record = collect_raw(s, decl, bits, nist.SEQUENCE_BITS, lambda b: seen.__setitem__(0, seen[0] + 1))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"rss: {bits:.3g} bits collected and hashed in {time.perf_counter() - start:.1f} s, {record.sequences:,} "
              f"sequences handed on; peak RSS of this process {peak:.0f} MB; {load()}", flush=True)
    s.close()


def scaling() -> None:
    from tablecert.rng.scale_analysis import analyse

    s, decl = session()
    for kind, n in (("die", 6), ("shuffle", 53), ("range", 100)):
        start = time.perf_counter()
        result = analyse(lambda k, m, w: scale(s, decl, k, m, w), kind, n, decl.raw_bits)
        print(f"scaling {kind}: {time.perf_counter() - start:.1f} s, {result.get('probes', 0):,} probe words, "
              f"deviation {result['max_deviation']}, {result['decision']}; {load()}")
    s.close()


def exhaustive(batches: int, vendor: str, state: Path | None) -> None:
    """``--scaling exhaustive``'s rate through ``vendor`` (the reference one by default, or e.g. the
    C++ kit's ``build/example_rng modulo``): ``batches`` batches of the die's every-word sweep
    (stopped there; the state on disk is what a resumed run reads), words a second, the time 2^32
    words would take at that rate, and the peak RSS; with ``batches`` 16384 (2^32 words) the whole
    sweep, and its exact law. ``state``: keep the sweep's state there (a stopped run resumes)."""
    from tablecert.rng import scale_exhaustive

    s, decl = session(vendor)
    sent = [0]

    class Enough(Exception):
        pass

    def scale_words(words):  # type: ignore[no-untyped-def]
        if sent[0] >= batches * scale_exhaustive.BATCH:
            raise Enough
        sent[0] += len(words)
        return scale_packed(s, decl, "die", 6, words) if decl.packed else scale(s, decl, "die", 6, words)

    def progress(done: int, total: int) -> None:
        if done % (1 << 28) < scale_exhaustive.BATCH:
            print(f"  {done:,} of {total:,} words, {time.perf_counter() - start:.0f} s, {cpu()}, peak RSS "
                  f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; {load()}", flush=True)

    law = None
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        try:
            law, refused = scale_exhaustive.exhaustive_law(scale_words, 6, 32, state or Path(tmp) / "state.json",
                                                          progress=progress)
        except Enough:
            pass
        took = time.perf_counter() - start
    rate = sent[0] / took
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"exhaustive: {sent[0]:,} words of the die in {took:.1f} s, {rate:,.0f} words a second; 2^32 words would "
          f"take {2 ** 32 / rate / 3600:.2f} h at this rate; {cpu()}; peak RSS of this process {peak:.0f} MB; "
          f"vendor {vendor}; {load()}", flush=True)
    if law is not None:
        print(f"exhaustive: the whole sweep: words per face {law.counts}, refused {refused}, outside {law.outside}; "
              f"worst {law.worst()}", flush=True)
    s.close()


def cpu() -> str:
    """CPU seconds of this process and of its live children (the vendor), from /proc."""
    me = os.times()
    tick = os.sysconf("SC_CLK_TCK")
    kids = 0.0
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for pid in (task / "children").read_text().split():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            kids += (int(fields[11]) + int(fields[12])) / tick
    return f"CPU {me.user + me.system:.1f} s here + {kids:.1f} s in the vendor"


def paired(runs: int) -> None:
    """The dealt-stream member family's false failures: ``runs`` seeds of PCG64 words of the default
    pairing's size (72,000 32-bit words), each through :func:`stream_verdict`."""
    from tablecert.rng.paired_stream import stream_verdict

    start = time.perf_counter()
    failed = []
    for seed in range(52000, 52000 + runs):
        words = np.random.Generator(np.random.PCG64(seed)).integers(0, 1 << 32, size=72_000, dtype=np.uint64)
        verdict = stream_verdict(words.astype(">u4").tobytes(), 32)
        if verdict["decision"] == "fail":
            failed.append((seed, verdict["rejected"]))
    print(f"paired: {len(failed)} of {runs} correct streams failed ({interval(len(failed), runs)}), seeds 52000-"
          f"{52000 + runs - 1}: {failed}; {time.perf_counter() - start:.0f} s; {load()}", flush=True)


def deep(bits: int) -> None:
    """Collection and counting past a deep run's tested sequences: bits a second, RSS."""
    counts = BitPositions(32)
    block = g.good(1, 1 << 20).astype(">u4").tobytes()
    counts.add_packed(block)                                       # compile (cached after)
    start = time.perf_counter()
    for _ in range(32):
        counts.add_packed(block)
    kernel = 32 * len(block) * 8 / (time.perf_counter() - start)
    s, decl = session()
    counts = BitPositions(decl.raw_bits)
    start = time.perf_counter()
    record = collect_raw(s, decl, bits, nist.SEQUENCE_BITS, lambda b: None, tested=0, every_word=counts.add_packed)
    took = time.perf_counter() - start
    s.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"deep: {record.bits:.3g} bits collected, hashed and counted by position in {took:.1f} s "
          f"({record.bits / took:.3g} bits a second); the counting kernel alone {kernel:.3g} bits a second; "
          f"{counts.words:,} words counted; peak RSS {peak:.0f} MB; {load()}", flush=True)


CATCH_VENDORS = {"stuck": f"{sys.executable} {Path(__file__).parents[1] / 'tests' / 'raw_vendor.py'} stuck",
                 "reference": VENDOR}


def catch(bits: int, workers: int) -> None:
    """``tablecert rng --raw BITS --raw-sequences 100`` against the stuck vendor and the reference one."""
    needed = words_to_catch(1e-4, 32, 377, ALPHA) * 32
    print(f"catch: 1 word in 10^4 with 99 % power needs {needed:,} bits (377 members); running {bits:,}", flush=True)
    for name, cmd in CATCH_VENDORS.items():
        out = Path(tempfile.mkdtemp(prefix=f"deep-{name}-"))
        start = time.perf_counter()
        done = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", cmd,
                               "--out", str(out), "--raw", str(bits), "--raw-sequences", "100", "--quiet",
                               "--workers", str(workers)], capture_output=True, text=True)
        took = time.perf_counter() - start
        raw = json.loads((out / "raw-summary.json").read_text())["raw"] if done.returncode in (0, 1) else {}
        print(f"catch {name}: exit {done.returncode} in {took:.0f} s ({bits / took:.3g} bits a second); "
              f"rejected {raw.get('rejected')}; stuck bit caught from 1 word in "
              f"{raw.get('stuck_bit', {}).get('one_word_in')}; results in {out}; {load()}\n{done.stdout}{done.stderr}",
              flush=True)


def run_battery(pool: SequenceWorkers, generator: g.Words, seed: int, sequences: int) -> list[str]:
    """The members a generator's collection of ``sequences`` x 10^6 bits rejects (one stream per
    seed, cut into sequences as the command cuts the vendor's)."""
    words = nist.SEQUENCE_BITS // 32
    battery = RawBattery(32)
    sink = pool.sink(battery)
    stream = generator(seed, sequences * words)
    battery.repeats.add_packed(stream.astype(">u4").tobytes())          # every word, as the collector feeds it
    for q in range(sequences):
        sink(g.bits(stream[q * words:(q + 1) * words]))
    return [r.id for r in pool.finish().results() if r.rejected]


def repeats_only(first: int, runs: int, sequences: int, budget: float) -> None:
    """The repeats member alone on the good generator's collections of seeds ``first`` ..: the
    NIST members' P-values do not depend on it, and one more member with p = 1 only makes Holm's
    other thresholds stricter, so the battery's measured failures on those seeds bound the whole
    family's once this member adds none."""
    start = time.perf_counter()
    found, done = [], 0
    for seed in range(first, first + runs):
        if time.perf_counter() - start > budget:
            break
        r = Repeats(32)
        r.add_packed(g.good(seed, sequences * (nist.SEQUENCE_BITS // 32)).astype(">u4").tobytes())
        if r.found()[0]:
            found.append(seed)
        done += 1
    print(f"repeats: {len(found)} of {done} good collections of {sequences} x 10^6 bits repeat a 64-bit window "
          f"({interval(len(found), done)}), seeds {first}-{first + done - 1}: {found}; "
          f"{time.perf_counter() - start:.0f} s; {load()}", flush=True)


def repeats_default(seeds: int, first: int, names: list[str]) -> None:
    """The repeats member alone at its default size (:func:`tablecert.rng.repeats.default_words`,
    2^25 + 2 words of 32 bits, fed in the collector's answers of 262,144 words) on the good streams
    of ``seeds`` seeds of PCG64 and of MT19937 from ``first``: how many repeat a window (found at
    all) and how many the member would fail (its p-value below 0.01 / 378, Holm's first step), the
    member's own seconds (generation excluded) and the peak RSS; a line every 25 seeds, so a run
    stopped early still says what it measured. ``names``: the generators, of PCG64 ("good") and
    MT19937 ("mt19937"), one process each on a shared machine."""
    from tablecert.rng.repeats import default_words

    words, chunk = default_words(32), 262_144
    for name in names:
        found, failed, seconds = [], [], 0.0
        for seed in range(first, first + seeds):
            if seed > first and (seed - first) % 25 == 0:
                print(f"  {name}: {seed - first} seeds, {len(found)} repeat, {len(failed)} fail; {load()}", flush=True)
            stream = g.GENERATORS[name](seed, words).astype(">u4").tobytes()
            start = time.perf_counter()
            r = Repeats(32)
            for at in range(0, len(stream), 4 * chunk):
                r.add_packed(stream[at:at + 4 * chunk])
            member = r.member()
            seconds += time.perf_counter() - start
            if member.chart["period"]:
                found.append(seed)
            if member.p_value < ALPHA / 378:
                failed.append(seed)
        print(f"repeats-default {name}: {len(found)} of {seeds} good streams of {words:,} words repeat a 64-bit "
              f"window ({interval(len(found), seeds)}), the member fails {len(failed)}, seeds {first}-{first + seeds - 1}: "
              f"{found}; the member {seconds / seeds:.2f} s a stream ({words * seeds / seconds:.3g} words a second); "
              f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB; {load()}", flush=True)


def default_run() -> None:
    """``tablecert rng --raw 100000000`` (the default collection, no scaling) against the reference
    vendor, once with ``--raw-repeat-words 0`` (the words 1.1 collected) and once with the default:
    wall time, exit status, the words the repeats member saw, the command's peak RSS."""
    for label, extra in (("--raw-repeat-words 0", ["--raw-repeat-words", "0"]), ("default", [])):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", VENDOR, "--out", tmp,
                                   "--raw", str(100 * nist.SEQUENCE_BITS), "--quiet", *extra],
                                  capture_output=True, text=True)
            took = time.perf_counter() - start
            raw = json.loads((Path(tmp) / "raw-summary.json").read_text())["raw"]
        print(f"default ({label}): exit {done.returncode} in {took:.1f} s; the repeats member saw "
              f"{raw['repeats']['words']:,} words, no period up to {raw['repeats']['ruled_out']:,}; peak RSS of the "
              f"commands so far {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024} MB; {load()}",
              flush=True)


def interval(k: int, n: int) -> str:
    """Clopper-Pearson 95 % interval of a rate k / n."""
    from scipy import stats

    lo = 0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k)
    return f"{k}/{n} = {k / n:.3f} (95 % interval {lo:.3f} to {hi:.3f})"


def rates(names: list[str], runs: int, good_runs: int, sequences: int, workers: int, budget: float) -> None:
    """Each named generator over ``runs`` seeds (the good one over ``good_runs``), at the default
    plan: the share of collections the battery fails. Stops a generator when ``budget`` seconds
    have gone, printing what it measured."""
    start = time.perf_counter()
    with SequenceWorkers(workers) as pool:
        for name in names:
            n = good_runs if name in GOOD else runs
            failed = 0
            done = 0
            for seed in range(n):
                if time.perf_counter() - start > budget:
                    break
                rejected = run_battery(pool, g.GENERATORS[name], 35_000 + seed, sequences)
                failed += bool(rejected)
                done += 1
                print(f"  {name} seed {35_000 + seed}: {'FAIL ' + ', '.join(rejected[:4]) if rejected else 'pass'}",
                      flush=True)
            print(f"rates {name}: the battery failed {interval(failed, done)} collections of {sequences} x 10^6 bits; "
                  f"{time.perf_counter() - start:.0f} s so far; {load()}", flush=True)


GOOD = ("good", "mt19937")
"""The correct generators (PCG64, MT19937): the battery must pass them."""


def false_rate(seeds: int, first: int, sequences: int, workers: int, state: Path) -> None:
    """The whole battery (the 15 tests, the bit positions, the repeats; Holm at family-wise 0.01) at
    the default plan on ``seeds`` seeds of each correct generator, one seed at a time, PCG64 and
    MT19937 in turn. Each finished collection is one line of ``state`` (JSON: generator, seed,
    rejected members, seconds); a stopped run started again skips the lines there, so it resumes.
    Prints, per generator and for both together, the share of collections the battery failed
    (its family-wise false-failure rate) with its Clopper-Pearson 95 % interval."""
    done = {(r["generator"], r["seed"]): r for r in map(json.loads, state.read_text().splitlines())} \
        if state.exists() else {}
    with SequenceWorkers(workers) as pool:
        for seed in range(first, first + seeds):
            for name in GOOD:
                if (name, seed) in done:
                    continue
                start = time.perf_counter()
                rejected = run_battery(pool, g.GENERATORS[name], seed, sequences)
                row = {"generator": name, "seed": seed, "rejected": rejected,
                       "seconds": round(time.perf_counter() - start, 1)}
                with state.open("a") as out:
                    out.write(json.dumps(row) + "\n")
                done[name, seed] = row
                print(f"  {name} seed {seed}: {'FAIL ' + ', '.join(rejected) if rejected else 'pass'} "
                      f"({row['seconds']} s; {load()})", flush=True)
    false_rate_summary(list(done.values()), sequences)


def false_rate_summary(rows: list[dict], sequences: int) -> None:
    """The measured false-failure rates of :func:`false_rate`'s rows."""
    for label, names in (("PCG64", ("good",)), ("MT19937", ("mt19937",)), ("both", GOOD)):
        mine = [r for r in rows if r["generator"] in names]
        failed = [(r["generator"], r["seed"], r["rejected"]) for r in mine if r["rejected"]]
        seconds = sum(r["seconds"] for r in mine) / max(len(mine), 1)
        print(f"false {label}: the battery failed {interval(len(failed), len(mine))} correct collections of "
              f"{sequences} x 10^6 bits; {seconds:.1f} s a seed; failures {failed}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("perf", "rss", "scaling", "rates", "deep", "catch", "exhaustive", "paired", "repeats",
                                           "false", "repeats-default", "default"))
    parser.add_argument("--seeds", type=int, default=200, help="false: seeds of each correct generator (default 200)")
    parser.add_argument("--state", type=Path, default=Path("false-rate.jsonl"),
                        help="false: one line per finished collection; an existing file is resumed")
    parser.add_argument("--batches", type=int, default=16, help="exhaustive: batches of 2^18 words timed (default 16)")
    parser.add_argument("--vendor-cmd", default=VENDOR, help="exhaustive: the vendor (default the reference one)")
    parser.add_argument("--generators", nargs="+", default=list(g.GENERATORS), choices=list(g.GENERATORS))
    parser.add_argument("--good-runs", type=int, default=100)
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds of the rates mode (default 3600)")
    parser.add_argument("--sequences", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--bits", type=float, nargs="+", default=[1e8, 1e9, 4e9])
    args = parser.parse_args()
    if args.mode == "perf":
        perf(args.sequences, args.workers)
    elif args.mode == "rss":
        rss([int(b) for b in args.bits])
    elif args.mode == "scaling":
        scaling()
    elif args.mode == "false":
        false_rate(args.seeds, 60_000, args.sequences, args.workers, args.state)
    elif args.mode == "repeats-default":
        repeats_default(args.seeds, 70_000, [n for n in GOOD if n in args.generators])
    elif args.mode == "default":
        default_run()
    elif args.mode == "repeats":
        repeats_only(35_000, args.good_runs, args.sequences, args.budget)
    elif args.mode == "paired":
        paired(args.runs)
    elif args.mode == "exhaustive":
        exhaustive(args.batches, args.vendor_cmd, args.state if args.state != parser.get_default("state") else None)
    elif args.mode == "deep":
        deep(int(args.bits[0]) if args.bits != parser.get_default("bits") else 10 ** 10)
    elif args.mode == "catch":
        catch(int(args.bits[0]) if args.bits != parser.get_default("bits") else 170 * 10 ** 9, args.workers)
    else:
        rates(args.generators, args.runs, args.good_runs, args.sequences, args.workers, args.budget)


if __name__ == "__main__":
    main()
