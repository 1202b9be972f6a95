"""Parallel runs: a slice of ``joker`` against a vendor that spends real CPU per hand, on 1 and 2
local workers and on a local 2-CPU Ray cluster; the per-batch costs; and the table of expected
``exhaustive`` wall times for vendors of 10^4 to 10^7 labels/s on 1 to 256 workers.

    python benchmarks/bench_parallel.py [--hands 300000] [--batch 10000] [--no-ray] [--json FILE]
                                        [--ceiling-hands 300000] [--repeat 3]

First, in the same run, the machine's own ceiling for two vendor instances at once
(``bench_cpu_ceiling.py``: the CPU vendor unconfined, one process, then two at once, no harness);
each parallel run's speed-up is then given as a fraction of it (the target: 0.95). The one
process's time also gives the CPU vendor's cost per label (a confined vendor's CPU time never
reaches this process's ``os.times``: its sandbox reaps it).

The vendor is ``benchmarks/cpu_vendor.py`` (the oracle's pure-Python labels, one hand at a time)
as a confined subprocess (``--isolation auto``), exactly as ``certify --vendor-cmd`` runs it; the
runs go through the runner with ``max_hands`` (the first HANDS hands of the joker order; the
verdict is then ``incomplete``, every vector must pass). Each configuration is a fresh run folder;
the script checks every run passed every vector. The configurations are run ``--repeat`` times,
alternated, and the median run of each is shown with all their walls: on the shared 2-vCPU
development VM the same work took up to 20 % more CPU time from one minute to the next (measured
with /proc/stat), so a single pair of runs cannot show a 5 % difference. The Ray head is started
for each Ray run only (its daemons' CPU would weigh on the other runs), and its start is not in
the run. "machine busy" is the share of all cores' time that anything kept busy during the run.

The model behind the table (printed with the measured inputs): for ``L`` = 308,286,160 labels in
``R`` = 15,416 requests of 20,000 hands, a vendor of ``v`` labels/s per instance and ``w`` workers,

    T(v, w) = max(L / (v * w) + R * o / w,  L * c)

where ``o`` is the measured per-request cost outside the vendor's compute on a worker (sending,
receiving, judging, per 20,000-hand request) and ``c`` the coordinator's measured cost per label
(preparing the batches and recording the outcomes: what one writer cannot spread).

The Ray run's fixed cost is broken down (:func:`ray_timeline`, timestamps taken around the pool's
steps and inside the actors, which cost nothing measurable): connecting (``import ray`` and
``ray.init``), each actor's start (from being asked for to its first line, and its process's own
start: Ray starts a run's workers as the coordinator connects), its ``__init__`` (the vendor
started in its sandbox and greeted, the judging imported meanwhile: parallel/actor.py), its first
unit against the mean of the others, the bytes and the pickling time of a unit shipped (its
prepared hand batch) and of its outcomes, and closing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import shlex
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench_cpu_ceiling import measure as ceiling_measure, requests as ceiling_requests
from tablecert.harness.adapters import VendorTarget
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.progress import duration
from tablecert.harness.run.runner import Runner
from tablecert.parallel import ParallelOptions
from tablecert.vectors.suites import generate

EXHAUSTIVE_LABELS = 2 * 154_143_080
EXHAUSTIVE_REQUESTS = 2 * math.ceil(154_143_080 / 20_000)
SPEEDS = (10**4, 10**5, 10**6, 10**7)
WORKERS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
REFERENCE_HANDS = (400_000, 2_000_000)


def vendor_target(reference: bool = False) -> VendorTarget:
    """The CPU-bound vendor (or the reference vendor, whose compiled labels cost next to nothing)."""
    script = Path(__file__).with_name("cpu_vendor.py").resolve()
    command = [sys.executable, "-m", "tablecert", "reference-vendor"] if reference else [sys.executable, str(script)]
    return VendorTarget("subprocess", shlex.join(command), SessionOptions(timeout=600, isolation="auto"))


def machine_busy() -> float:
    """Seconds of CPU the whole machine has been busy (all cores, /proc/stat: not idle, not iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def one_run(suite: Path, out: Path, hands: int, batch: int, parallel: ParallelOptions | None,
            reference: bool = False) -> dict[str, Any]:
    target = vendor_target(reference)
    if parallel is not None:
        parallel = ParallelOptions(parallel.workers, parallel.ray_address, None, target)
    cpu0 = os.times()
    busy0 = machine_busy()
    t0 = time.perf_counter()
    result = Runner(target.opener(), suite, out, hand_batch_size=batch, max_hands=hands, parallel=parallel).run()
    wall = time.perf_counter() - t0
    busy = machine_busy() - busy0
    cpu1 = os.times()
    assert result.totals["pass"] == 2 * hands and result.totals["fail"] == result.totals["fault"] == 0, result.totals
    return {"wall_s": wall, "labels": 2 * hands, "labels_per_s": 2 * hands / wall, "requests": 2 * math.ceil(hands / batch),
            "harness_cpu_s": (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system),
            "machine_busy_s": busy, "stats": result.stats.as_dict(), "totals": result.totals}


def process_start(pid: int) -> float:
    """When process ``pid`` started (time.time() clock), from /proc."""
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    booted = time.time() - float(Path("/proc/uptime").read_text().split()[0])
    return booted + ticks / os.sysconf("SC_CLK_TCK")


@contextmanager
def ray_timeline() -> Iterator[dict[str, Any]]:
    """Timestamps of the Ray pool's steps and of its actors' lives during the run inside the
    block, and the sizes of what they ship; the parts are filled in when the block ends."""
    from tablecert.parallel import ray_pool

    marks: dict[str, float] = {}
    parts: dict[str, Any] = {}
    pool_cls, actor_cls = ray_pool.RayPool, ray_pool.VendorActor

    class TimedActor(actor_cls):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any) -> None:
            self.entered = time.time()
            super().__init__(*args)
            self.initialised = time.time()
            self.units: list[tuple[float, float, int, float]] = []

        def run(self, unit: Any, skip: frozenset[str]) -> Any:
            t0 = time.time()
            out = super().run(unit, skip)
            t1 = time.time()
            self.units.append((t0, t1, len(pickle.dumps(out)), time.time() - t1))
            return out

        def timeline(self) -> dict[str, Any]:
            return {"started": process_start(os.getpid()), "entered": self.entered, "initialised": self.initialised,
                    "units": self.units}

    real_connect = ray_pool.connect

    def connect(address: str) -> Any:       # on the connecting thread, beside the coordinator's greeting
        marks["connect"] = time.time()
        import ray

        marks["imported"] = time.time()
        real_init = ray.init

        def init(*args: Any, **kwargs: Any) -> Any:
            marks["init"] = time.time()
            try:
                return real_init(*args, **kwargs)
            finally:
                marks["connected"] = time.time()
        ray.init = init
        try:
            return real_connect(address)
        finally:
            ray.init = real_init

    class TimedPool(pool_cls):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any) -> None:
            marks["pool"] = time.time()
            super().__init__(*args)
            marks["asked"] = time.time()

        def submit(self, unit: Any, skip: frozenset[str]) -> None:
            super().submit(unit, skip)
            if "unit_bytes" not in parts and unit.hand_batch is not None:
                t0 = time.perf_counter()
                parts["unit_bytes"] = len(pickle.dumps(unit, protocol=5))
                parts["unit_pickle_s"] = time.perf_counter() - t0

        def close(self, abort: bool) -> None:
            parts["actors"] = self.ray.get([a.timeline.remote() for a in self.actors])
            marks["close"] = time.time()
            super().close(abort)
            marks["closed"] = time.time()

    ray_pool.RayPool, ray_pool.VendorActor, ray_pool.connect = TimedPool, TimedActor, connect
    marks["begin"] = time.time()
    try:
        yield parts
    finally:
        ray_pool.RayPool, ray_pool.VendorActor, ray_pool.connect = pool_cls, actor_cls, real_connect
    parts.update({"import_ray_s": marks["imported"] - marks["connect"], "ray_init_s": marks["connected"] - marks["init"],
                  "greeting_s": marks["pool"] - marks["begin"],
                  "connect_waited_s": max(0.0, marks["connected"] - marks["pool"]),
                  "close_s": marks["closed"] - marks["close"]})
    for actor in parts["actors"]:
        units = actor.pop("units")
        actor.update({"start_s": actor["entered"] - marks["asked"], "process_started_s": actor["started"] - marks["init"],
                      "init_s": actor["initialised"] - actor["entered"],
                      "first_unit_s": units[0][1] - units[0][0],
                      "other_units_mean_s": sum(b - a for a, b, _, _ in units[1:]) / max(1, len(units) - 1),
                      "outcome_bytes_mean": sum(n for _, _, n, _ in units) / len(units),
                      "outcome_pickle_s_mean": sum(t for *_, t in units) / len(units)})


def ray_parts_text(parts: dict[str, Any]) -> str:
    actors = parts["actors"]

    def each(key: str, scale: float = 1.0, fmt: str = ".2f") -> str:
        return " / ".join(f"{a[key] * scale:{fmt}}" for a in actors)
    return "\n".join([
        "Ray's fixed cost (the run above; per actor where it says so):",
        f"  import ray {parts['import_ray_s']:.2f} s, ray.init (connect) {parts['ray_init_s']:.2f} s, on a thread beside "
        f"the coordinator's start of the run and greeting ({parts['greeting_s']:.2f} s): the run waited "
        f"{parts['connect_waited_s']:.2f} s more for them",
        f"  actor start, asked -> its __init__ (placing, importing its class): {each('start_s')} s; its worker "
        f"process started {each('process_started_s')} s after ray.init began",
        f"  its __init__ (the vendor started and greeted, the judging imported meanwhile): {each('init_s')} s",
        f"  first unit {each('first_unit_s')} s against {each('other_units_mean_s')} s for the others (first calls)",
        f"  shipping a unit: {parts.get('unit_bytes', 0):,} bytes pickled in {parts.get('unit_pickle_s', 0) * 1e3:.1f} ms; "
        f"its outcomes {each('outcome_bytes_mean', 1, ',.0f')} bytes in {each('outcome_pickle_s_mean', 1e3, '.2f')} ms",
        f"  closing (bye to each vendor, actors killed, ray.shutdown) {parts['close_s']:.2f} s"])


def ceiling(suite: Path, hands: int, tmp: Path, repeat: int = 3) -> dict[str, Any]:
    """The machine's ceiling for two CPU vendors at once (bench_cpu_ceiling.py's measurement)."""
    path = tmp / "ceiling-requests.jsonl"
    ceiling_requests(suite, hands, path)
    one, two, ones, twos = ceiling_measure(path, repeat)
    return {"hands": hands, "labels": 2 * hands, "one_process_s": one, "two_at_once_s": two, "speed_up": 2 * one / two,
            "one_process_runs_s": ones, "two_at_once_runs_s": twos}


def model(cpu: dict[str, Any], small: dict[str, Any], large: dict[str, Any]) -> dict[str, Any]:
    """The costs behind the table (see the docstring): the CPU vendor's compute per label; from two
    runs of different sizes against the reference vendor (whose compiled labels cost next to
    nothing), the time per request of the exchange and judging as the slope between them, so
    that start-up and warm-up cancel out (``o``), and the coordinator's serial work per label
    (``c``: preparing the batches, judging, recording) on the larger run."""
    def per_request(r: dict[str, Any]) -> float:
        st = r["stats"]
        return st["exchange_s"] + st["judge_s"] + st["fallback_s"]

    s = large["stats"]
    return {"vendor_s_per_label": cpu["one_process_s"] / cpu["labels"],
            "worker_s_per_request": max(0.0, (per_request(large) - per_request(small))
                                        / (large["requests"] - small["requests"])),
            "coordinator_s_per_label": (s["encode_s"] + s["expected_s"] + s["judge_s"] + s["record_s"]) / large["labels"]}


def expected_wall(costs: dict[str, Any], speed: float, workers: int) -> float:
    spread = EXHAUSTIVE_LABELS / (speed * workers) + EXHAUSTIVE_REQUESTS * costs["worker_s_per_request"] / workers
    return max(spread, EXHAUSTIVE_LABELS * costs["coordinator_s_per_label"])


def table(costs: dict[str, Any]) -> str:
    head = "| vendor labels/s | " + " | ".join(f"{w} worker{'s' if w > 1 else ''}" for w in WORKERS) + " |"
    rule = "|---|" + "---|" * len(WORKERS)
    body = [f"| 10^{int(math.log10(v))} | " + " | ".join(duration(expected_wall(costs, v, w)) for w in WORKERS) + " |"
            for v in SPEEDS]
    return "\n".join([head, rule, *body])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=300_000, help="hands of joker (default 300,000: 1.5%%)")
    parser.add_argument("--batch", type=int, default=10_000, help="hands per request (default 10,000)")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray cluster run")
    parser.add_argument("--json", help="write the measurements here too")
    parser.add_argument("--ceiling-hands", type=int, default=300_000,
                        help="hands per process of the ceiling (default 300,000; median of 3)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each configuration, alternated; the "
                        "median shown (default 3)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        suite = Path(tmp) / "joker"
        generate("joker", suite)
        roof = ceiling(suite, args.ceiling_hands, Path(tmp))
        print(f"the machine's ceiling: one CPU vendor {roof['one_process_s']:.2f} s, two at once "
              f"{roof['two_at_once_s']:.2f} s (medians of {[round(t, 2) for t in roof['one_process_runs_s']]} and "
              f"{[round(t, 2) for t in roof['two_at_once_runs_s']]}), speed-up {roof['speed_up']:.2f}", flush=True)
        runs: dict[str, dict[str, Any]] = {}
        one_run(suite, Path(tmp) / "warm", 40_000, 20_000, None, reference=True)    # compiled caches, page cache
        runs["reference A"] = one_run(suite, Path(tmp) / "refa", REFERENCE_HANDS[0], 20_000, None, reference=True)
        runs["reference B"] = one_run(suite, Path(tmp) / "refb", REFERENCE_HANDS[1], 20_000, None, reference=True)
        trials: dict[str, list[dict[str, Any]]] = {"workers 1": [], "workers 2": [], "ray 2 CPUs": []}
        head_s = 0.0
        for k in range(args.repeat):            # the configurations alternated, so drift hits each alike
            trials["workers 1"].append(one_run(suite, Path(tmp) / f"w1-{k}", args.hands, args.batch, None))
            trials["workers 2"].append(one_run(suite, Path(tmp) / f"w2-{k}", args.hands, args.batch,
                                               ParallelOptions(workers=2)))
            if not args.no_ray:
                from tablecert.parallel.local_cluster import local_head

                t0 = time.perf_counter()
                with local_head(cpus=2) as head:     # only for its run: its daemons take CPU from any run beside them
                    head_s = time.perf_counter() - t0
                    with ray_timeline() as parts:
                        trials["ray 2 CPUs"].append(one_run(suite, Path(tmp) / f"ray-{k}", args.hands, args.batch,
                                                            ParallelOptions(workers=2, ray_address=head.address)))
                trials["ray 2 CPUs"][-1]["fixed_cost_parts"] = parts
        for name, tried in trials.items():
            if tried:
                tried.sort(key=lambda r: r["wall_s"])
                runs[name] = dict(tried[len(tried) // 2], walls_s=[r["wall_s"] for r in tried])   # the median run
        if "ray 2 CPUs" in runs:
            ray_parts = runs["ray 2 CPUs"].pop("fixed_cost_parts")
            ray_parts["head_start_s"] = head_s
    print(f"load average after: {os.getloadavg()}")
    base = runs["workers 1"]["wall_s"]
    print(f"\njoker, first {args.hands:,} hands x 2 ops ({2 * args.hands:,} labels), {args.batch:,} hands per request")
    print(f"{'run':<12} {'wall s':>8} {'labels/s':>10} {'speed-up':>9} {'of ceiling':>11} {'harness CPU s':>14} "
          f"{'machine busy':>13}   (the median run of {args.repeat}; their walls)")
    for name, r in runs.items():
        r["speed_up"] = base / r["wall_s"]
        r["of_ceiling"] = r["speed_up"] / roof["speed_up"]
        shown = f"{r['of_ceiling']:11.2f}" if name in ("workers 2", "ray 2 CPUs") else f"{'':11}"
        walls = " / ".join(f"{w:.2f}" for w in r.get("walls_s", []))
        print(f"{name:<12} {r['wall_s']:8.2f} {r['labels_per_s']:10,.0f} {r['speed_up']:9.2f} {shown} "
              f"{r['harness_cpu_s']:14.1f} {r['machine_busy_s'] / (os.cpu_count() or 1) / r['wall_s']:12.0%}   {walls}")
    print(f"(the ceiling, measured first: {roof['speed_up']:.2f}; 'of ceiling' = speed-up / ceiling, the target 0.95; "
          "'machine busy': the share of all cores' time the machine was busy during the run, anything's)")
    if "ray 2 CPUs" in runs:
        print(f"\n{ray_parts_text(ray_parts)}\n  (the local head's own start, not in the run: {ray_parts['head_start_s']:.1f} s)")
        runs["ray 2 CPUs"]["fixed_cost_parts"] = ray_parts   # of the median Ray run
    costs = model(roof, runs["reference A"], runs["reference B"])
    print(f"\n(speed-ups against 'workers 1'; 'reference A/B': the reference vendor on {REFERENCE_HANDS[0]:,} and "
          f"{REFERENCE_HANDS[1]:,} hands, 20,000 hands per request, for the per-request costs)")
    print(f"per-batch costs: CPU vendor {costs['vendor_s_per_label'] * 1e6:.1f} us/label; besides the vendor "
          f"{costs['worker_s_per_request'] * 1e3:.1f} ms per 20,000-hand request (o); coordinator "
          f"{costs['coordinator_s_per_label'] * 1e9:.0f} ns/label (c)")
    print("\nexpected wall time of exhaustive (308,286,160 labels):\n")
    print(table(costs))
    if args.json:
        Path(args.json).write_text(json.dumps({"ceiling": roof, "runs": runs, "costs": costs}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
